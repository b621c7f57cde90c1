//! Property tests (proptest) of the rules core's text and bookkeeping.
//!
//! - FEN round trip: random legal-looking positions of both variants print, parse
//!   back equal, and printing is canonical (print . parse . print == print); the
//!   same position written non-canonically (shuffled, lists swapped, ranges, spaces,
//!   lower case) parses to the same position.
//! - Move round trip: for every legal move of positions reached by random play,
//!   `parse_move(m.to_string()) == m`; the short `from x to` form parses when only
//!   one distinct move fits, or when one of them is a single step or jump (written
//!   in full), and is otherwise an `Ambiguous` error listing exactly the
//!   candidates; a move that isn't legal is an `Illegal` error listing the legal
//!   moves.
//! - `Game::play` then `Game::undo` restores the position and its hash.
//! - The incrementally kept hash equals `compute_hash` all along random games,
//!   and a king's step taken back (`before_king_step`) gives the position before it.
//! - Fuzz: arbitrary strings (and arbitrary bytes converted lossily) fed to
//!   `Position::from_fen` (both variants), `Position::parse_move` and
//!   `str::parse::<Variant>` never panic, and every error holds the offending text.
//!
//! There are no expected numbers here: every property is checked against the
//! definition (protocol/RULES.md's FEN and move notation), not against recorded output.

use kingme::board::{Bitboard, Color, Game, Move, ParseMoveError, Position, Square, Variant};
use kingme::perft::{self, Counting};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A position from raw choices: each square gets empty / black / white, and each
/// piece may be a king (English only; men on their crowning row become kings, and
/// at most 12 pieces per side are kept, so the result always validates).
fn position_from(variant: Variant, cells: &[(u8, bool)], white_to_move: bool) -> Position {
    let n = variant.squares() as usize;
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    let (mut nb, mut nw) = (0, 0);
    for (i, &(kind, king)) in cells.iter().take(n).enumerate() {
        let bit = 1u32 << i;
        let (row, _) = variant.row_col(i as u8);
        let last = variant.size() - 1;
        match kind % 3 {
            1 if nb < 12 => {
                black |= bit;
                nb += 1;
                if variant.has_kings() && (king || row == last) {
                    kings |= bit;
                }
            }
            2 if nw < 12 => {
                white |= bit;
                nw += 1;
                if variant.has_kings() && (king || row == 0) {
                    kings |= bit;
                }
            }
            _ => {}
        }
    }
    let turn = if white_to_move {
        Color::White
    } else {
        Color::Black
    };
    let p = Position::from_parts(
        variant,
        Bitboard(black),
        Bitboard(white),
        Bitboard(kings),
        turn,
    );
    p.validate()
        .unwrap_or_else(|e| panic!("generator made an invalid position {p}: {e}"));
    p
}

fn variant_strategy() -> impl Strategy<Value = Variant> {
    prop_oneof![Just(Variant::English), Just(Variant::Mini)]
}

fn position_strategy() -> impl Strategy<Value = Position> {
    (
        variant_strategy(),
        prop::collection::vec((0u8..6, prop::bool::weighted(0.3)), 32),
        any::<bool>(),
    )
        .prop_map(|(v, cells, w)| position_from(v, &cells, w))
}

/// Plays a random game from the start of `variant` (or from `start`), choosing moves
/// by `choices`; returns the game (every position and move on the way).
fn random_game(start: Position, choices: &[u16]) -> Game {
    let mut game = Game::from_position(start);
    for &c in choices {
        let moves = game.position().legal_moves_all_paths();
        if moves.is_empty() {
            break;
        }
        let m = moves[c as usize % moves.len()];
        game.play(m).expect("a generated move is legal");
    }
    game
}

fn game_strategy() -> impl Strategy<Value = Game> {
    (
        variant_strategy(),
        prop::collection::vec(any::<u16>(), 0..120),
    )
        .prop_map(|(v, choices)| random_game(Position::startpos(v), &choices))
}

/// Games that start from random positions, to reach kings and odd material fast.
fn game_from_random_strategy() -> impl Strategy<Value = Game> {
    (
        position_strategy(),
        prop::collection::vec(any::<u16>(), 0..40),
    )
        .prop_map(|(p, choices)| random_game(p, &choices))
}

/// The same position written the long way round: lists in either order, squares
/// shuffled, runs of consecutive men written as ranges, random spacing and case.
fn scrambled_fen(p: &Position, seed: u64) -> String {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut lists = Vec::new();
    for color in [Color::White, Color::Black] {
        let mut items: Vec<String> = Vec::new();
        let mut men: Vec<u32> = Vec::new();
        for sq in p.pieces(color) {
            if p.kings().contains(sq) {
                let k = if next() % 2 == 0 { "K" } else { "k" };
                items.push(format!("{k}{sq}"));
            } else {
                men.push(sq.number());
            }
        }
        // Runs of consecutive numbers may become ranges.
        let mut i = 0;
        while i < men.len() {
            let mut j = i;
            while j + 1 < men.len() && men[j + 1] == men[j] + 1 {
                j += 1;
            }
            if j > i && next() % 2 == 0 {
                items.push(format!("{}-{}", men[i], men[j]));
            } else {
                items.extend(men[i..=j].iter().map(u32::to_string));
            }
            i = j + 1;
        }
        for k in (1..items.len()).rev() {
            items.swap(k, next() as usize % (k + 1));
        }
        let letter = if next() % 2 == 0 {
            color.letter().to_string()
        } else {
            color.letter().to_ascii_lowercase().to_string()
        };
        let sep = if next() % 3 == 0 { ", " } else { "," };
        lists.push(format!("{letter}{}", items.join(sep)));
    }
    if next() % 2 == 0 {
        lists.swap(0, 1);
    }
    let side = p.turn().letter();
    let pad = if next() % 2 == 0 { "  " } else { "" };
    format!("{pad}{side}:{}:{}{pad}", lists[0], lists[1])
}

fn texts(moves: &[Move]) -> Vec<String> {
    moves.iter().map(Move::to_string).collect()
}

/// All the move-notation properties for one position.
fn check_moves(pos: &Position) -> Result<(), TestCaseError> {
    let all = pos.legal_moves_all_paths();
    let distinct = pos.legal_moves();
    // `legal_moves` is `legal_moves_all_paths` with same-effect duplicates merged.
    for (i, a) in distinct.iter().enumerate() {
        prop_assert!(all.contains(a), "{pos}: {a} not among every-path moves");
        for b in &distinct[..i] {
            prop_assert!(!a.same_effect(*b), "{pos}: {a} and {b} both listed");
        }
    }
    for a in all.iter() {
        prop_assert!(
            distinct.iter().any(|d| d.same_effect(*a)),
            "{pos}: {a} has no distinct representative"
        );
    }
    for &m in all.iter() {
        let text = m.to_string();
        let parsed = pos.parse_move(&text);
        prop_assert_eq!(parsed.clone(), Ok(m), "{}: '{}' -> {:?}", pos, text, parsed);
        prop_assert!(pos.is_legal(m));
        if m.is_pass() {
            continue;
        }
        // The short form.
        let sep = if m.is_capture() { 'x' } else { '-' };
        let short = format!("{}{sep}{}", m.from(), m.to());
        let fits: Vec<Move> = distinct
            .iter()
            .copied()
            .filter(|d| !d.is_pass() && d.from() == m.from() && d.to() == m.to())
            .collect();
        match pos.parse_move(&short) {
            Ok(got) if fits.len() == 1 => {
                prop_assert!(
                    got.same_effect(m),
                    "{pos}: '{short}' -> {got}, expected {m}"
                );
            }
            Ok(got) => {
                // several moves fit, but one of them is written exactly so:
                // a single step or jump
                let whole: Vec<&Move> = fits.iter().filter(|f| f.landings().count() == 1).collect();
                prop_assert_eq!(
                    whole.len(),
                    1,
                    "{}: '{}' parsed but {:?} fit",
                    pos,
                    short,
                    fits
                );
                prop_assert!(got.same_effect(*whole[0]), "{pos}: '{short}' -> {got}");
            }
            Err(ParseMoveError::Ambiguous { text, candidates }) => {
                prop_assert!(fits.len() > 1, "{pos}: '{short}' ambiguous, fits {fits:?}");
                prop_assert!(
                    fits.iter().filter(|f| f.landings().count() == 1).count() != 1,
                    "{pos}: '{short}' ambiguous, but one fit is a single jump"
                );
                prop_assert_eq!(&text, &short);
                let mut listed: Vec<&str> = candidates.split(' ').collect();
                let mut want = texts(&fits);
                listed.sort_unstable();
                want.sort();
                prop_assert_eq!(listed, want, "{}: candidates for '{}'", pos, short);
                let e = pos.parse_move(&short).unwrap_err().to_string();
                prop_assert!(e.contains(&short), "{e}");
            }
            Err(e) => prop_assert!(false, "{pos}: '{short}' of legal {m}: {e}"),
        }
    }
    // Illegal moves: a step from an empty square, or onto an occupied one.
    let n = pos.variant().squares();
    let occupied = pos.occupied();
    let legal_list = if distinct.is_empty() {
        "none".to_string()
    } else {
        texts(&distinct).join(" ")
    };
    for a in 1..=n {
        let b = if a < n { a + 1 } else { 1 };
        let text = format!("{a}-{b}");
        let sa = Square::from_number(a).expect("on board");
        let sb = Square::from_number(b).expect("on board");
        if occupied.contains(sa) && !occupied.contains(sb) {
            continue; // might be legal in some geometry; not an illegal-move probe
        }
        match pos.parse_move(&text) {
            Err(ParseMoveError::Illegal { text: t, legal }) => {
                prop_assert_eq!(&t, &text);
                prop_assert_eq!(&legal, &legal_list, "{}: legal list for '{}'", pos, text);
            }
            other => prop_assert!(false, "{pos}: '{text}' gave {other:?}"),
        }
    }
    // `pass` is accepted exactly when it is a legal move.
    let pass_legal = distinct.contains(&Move::PASS);
    prop_assert_eq!(pos.parse_move("pass").is_ok(), pass_legal, "{}: pass", pos);
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn fen_round_trip(p in position_strategy(), seed in any::<u64>()) {
        let text = p.to_fen();
        let back = Position::from_fen(p.variant(), &text);
        prop_assert_eq!(back.clone(), Ok(p), "{}", text);
        let back = back.unwrap();
        prop_assert_eq!(back.to_fen(), text.clone());
        prop_assert_eq!(back.hash(), back.compute_hash());
        prop_assert_eq!(format!("{back}"), text.clone());
        let scrambled = scrambled_fen(&p, seed);
        let q = Position::from_fen(p.variant(), &scrambled);
        prop_assert_eq!(q.clone(), Ok(p), "scrambled '{}'", scrambled);
        prop_assert_eq!(q.unwrap().to_fen(), text.clone());
        let tagged = format!("[FEN \"{text}\"]");
        prop_assert_eq!(Position::from_fen(p.variant(), &tagged), Ok(p), "{}", tagged);
    }

    #[test]
    fn fen_round_trip_of_played_positions(game in game_strategy()) {
        for p in game.positions() {
            let back = Position::from_fen(p.variant(), &p.to_fen());
            prop_assert_eq!(back, Ok(*p));
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 96, ..Config::default() })]

    #[test]
    fn move_text_round_trip(game in game_strategy()) {
        for p in game.positions() {
            check_moves(p)?;
        }
    }

    #[test]
    fn move_text_round_trip_from_random_positions(game in game_from_random_strategy()) {
        for p in game.positions() {
            check_moves(p)?;
        }
    }

    #[test]
    fn play_then_undo_restores(game in game_from_random_strategy(), pick in any::<u16>()) {
        let mut g = game.clone();
        for _ in 0..game.moves().len() {
            let before = *g.position();
            let moves = before.legal_moves_all_paths();
            if !moves.is_empty() {
                let m = moves[pick as usize % moves.len()];
                g.play(m).expect("legal");
                prop_assert_eq!(g.position(), &before.after(m));
                prop_assert_eq!(g.undo(), Some(m));
                prop_assert_eq!(g.position(), &before);
                prop_assert_eq!(g.position().hash(), before.hash());
                prop_assert_eq!(g.position().hash(), before.compute_hash());
            }
            let last = g.moves().last().copied();
            let undone = g.undo();
            prop_assert_eq!(undone, last);
        }
        prop_assert_eq!(g.moves().len(), 0);
        prop_assert_eq!(g.position(), game.start());
        prop_assert_eq!(g.undo(), None);
    }

    #[test]
    fn incremental_hash_matches(game in game_strategy()) {
        for p in game.positions() {
            prop_assert_eq!(p.hash(), p.compute_hash(), "{}", p);
        }
        // Walking forward with play_unchecked gives the same positions and keys.
        let mut p = *game.start();
        for (i, &m) in game.moves().iter().enumerate() {
            p.play_unchecked(m);
            prop_assert_eq!(&p, &game.positions()[i + 1]);
            prop_assert_eq!(p.hash(), p.compute_hash());
        }
    }

    #[test]
    fn incremental_hash_matches_from_random_positions(game in game_from_random_strategy()) {
        for p in game.positions() {
            prop_assert_eq!(p.hash(), p.compute_hash(), "{}", p);
            prop_assert_eq!(p.with_turn(!p.turn()).hash(), p.with_turn(!p.turn()).compute_hash());
        }
    }

    #[test]
    fn a_king_step_taken_back_gives_the_position_and_key(game in game_from_random_strategy()) {
        for p in game.positions() {
            for &m in p.legal_moves().iter() {
                if m.is_capture() || !p.kings().contains(m.from()) {
                    continue;
                }
                let back = p.after(m).before_king_step(m.from(), m.to());
                prop_assert_eq!(back, *p, "{} {}", p, m);
                prop_assert_eq!(back.hash(), back.compute_hash());
            }
        }
    }
}

/// Checks `Position::from_fen` on arbitrary text for both variants.
fn fuzz_fen(text: &str) -> Result<(), TestCaseError> {
    for v in Variant::ALL {
        match Position::from_fen(v, text) {
            Ok(p) => {
                prop_assert!(p.validate().is_ok());
                prop_assert_eq!(p.hash(), p.compute_hash());
                // Whatever was accepted prints canonically and reads back the same.
                prop_assert_eq!(Position::from_fen(v, &p.to_fen()), Ok(p));
            }
            Err(e) => {
                let shown: String = text.chars().take(200).collect();
                prop_assert_eq!(&e.text, &shown);
                prop_assert!(e.to_string().contains(&shown), "{e}");
                prop_assert!(!e.reason.is_empty());
            }
        }
    }
    Ok(())
}

/// Checks `Position::parse_move` on arbitrary text in `pos`.
fn fuzz_move(pos: &Position, text: &str) -> Result<(), TestCaseError> {
    match pos.parse_move(text) {
        Ok(m) => prop_assert!(pos.is_legal(m), "{pos}: '{text}' -> illegal {m}"),
        Err(e) => {
            let shown: String = text.trim().chars().take(80).collect();
            prop_assert!(e.to_string().contains(&shown), "'{text}': {e}");
        }
    }
    Ok(())
}

fn fuzz_variant(text: &str) -> Result<(), TestCaseError> {
    match text.parse::<Variant>() {
        Ok(v) => prop_assert!(Variant::ALL.contains(&v)),
        Err(e) => prop_assert!(e.to_string().contains(text), "{e}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 2048, ..Config::default() })]

    #[test]
    fn fuzz_fen_any_string(s in any::<String>()) {
        fuzz_fen(&s)?;
    }

    #[test]
    fn fuzz_fen_fen_like(s in "[ \\[\\]\"BWbwKk:,0-9\\-.FEN]{0,60}") {
        fuzz_fen(&s)?;
    }

    #[test]
    fn fuzz_fen_bytes(b in prop::collection::vec(any::<u8>(), 0..300)) {
        fuzz_fen(&String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn fuzz_fen_long(s in "[BW:,0-9K]{150,400}") {
        fuzz_fen(&s)?;
    }

    #[test]
    fn fuzz_move_text(p in position_strategy(), s in any::<String>(),
                      t in "[ 0-9xX\\-]{0,24}|pass|PASS| pass ") {
        fuzz_move(&p, &s)?;
        fuzz_move(&p, &t)?;
    }

    #[test]
    fn fuzz_move_bytes(p in position_strategy(), b in prop::collection::vec(any::<u8>(), 0..200)) {
        fuzz_move(&p, &String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn fuzz_variant_name(s in any::<String>(), t in "(?i)(english|mini|american|checkers|8x8|6x6|minicheckers|mini-checkers)[ a-z]{0,2}") {
        fuzz_variant(&s)?;
        fuzz_variant(&t)?;
    }
}

/// Hand-picked nasty inputs, run every time (proptest may not draw them).
#[test]
fn fuzz_edge_cases() {
    let long_digits = "9".repeat(500);
    let long_fen = format!("B:W{}:B1", "1,".repeat(300));
    let inputs = [
        "",
        " ",
        ":",
        "::",
        "B",
        "B:",
        "B:W",
        "B:W:B",
        "W:W:B:",
        "B:W0:B1",
        "B:W33:B1",
        "B:W19:B1",
        "B:W-:B1",
        "B:W1-:B2",
        "B:W-3:B2",
        "B:W5-3:B1",
        "B:WK:B1",
        "B:WKK5:B1",
        "B:W1,,2:B3",
        "B:W1:B1",
        "B:W1-32:B1",
        "B:W4294967297:B1",
        "B:W18446744073709551617:B1",
        "[FEN",
        "[FEN \"",
        "[FEN \"B:W21:B1\"",
        "[\"]",
        "[",
        "B:W21:B1:W22",
        "X:W21:B1",
        "é:W21:B1",
        "B:W２１:B1",
        "\u{0}",
        long_digits.as_str(),
        long_fen.as_str(),
        "...",
        "B:W21:B1.",
    ];
    for s in inputs {
        fuzz_fen(s).unwrap_or_else(|e| panic!("from_fen({s:?}): {e}"));
        fuzz_variant(s).unwrap_or_else(|e| panic!("variant {s:?}: {e}"));
        for v in Variant::ALL {
            fuzz_move(&Position::startpos(v), s).unwrap_or_else(|e| panic!("move {s:?}: {e}"));
        }
    }
    let moves = [
        "-",
        "x",
        "1-",
        "-1",
        "1--2",
        "1xx2",
        "0-1",
        "1-0",
        "99-1",
        "1-99",
        "999999999-1",
        "11-15-",
        "11",
        "11-15 ",
        " 11-15",
        "11 - 15",
        "11-15x19",
        "pas",
        "passs",
        "PaSs",
        "٣-٤",
        "１１-１５",
        "11–15",
    ];
    for s in moves {
        for v in Variant::ALL {
            fuzz_move(&Position::startpos(v), s).unwrap_or_else(|e| panic!("move {s:?}: {e}"));
        }
        fuzz_move(&Position::startpos(Variant::English), &s.repeat(40))
            .unwrap_or_else(|e| panic!("move {s:?} x40: {e}"));
    }
}

/// protocol/RULES.md examples of text that must be accepted, as a fixed check on top of the
/// generated ones.
#[test]
fn rules_md_examples() {
    let p =
        Position::from_fen(Variant::English, "W:WK10,22:B3,K14").expect("protocol/RULES.md FEN");
    assert_eq!(p.to_fen(), "W:WK10,22:B3,K14");
    let start = Position::startpos(Variant::English);
    assert_eq!(
        Position::from_fen(Variant::English, "B:W21-32:B1-12"),
        Ok(start)
    );
    assert_eq!(
        start.to_fen(),
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    let m = start.parse_move("11-15").expect("11-15 is legal");
    assert_eq!(m.to_string(), "11-15");
    assert!(matches!(
        start.parse_move("11-16x"),
        Err(ParseMoveError::Syntax(_))
    ));
    assert!(matches!(
        start.parse_move("33-1"),
        Err(ParseMoveError::Square { square: 33, .. })
    ));
    // The two-conventions position: the king's loop is one move with two paths;
    // the short form names both and is ambiguous only if the effects differ.
    let loop_pos =
        Position::from_fen(Variant::English, "W:WK7,30,31:B1,4,10,11,18,19").expect("fen");
    let all = texts(&loop_pos.legal_moves_all_paths());
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(loop_pos.legal_moves().len(), 1);
    for t in &all {
        assert_eq!(&loop_pos.parse_move(t).expect("full path").to_string(), t);
    }
    assert!(
        loop_pos.parse_move("7x7").is_ok(),
        "one distinct move: not ambiguous"
    );
    // An ambiguous short form: Black's man on 2 reaches 18 over 6 and 14 or over 7
    // and 15.
    let amb = Position::from_fen(Variant::English, "B:W6,7,14,15:B2").expect("fen");
    match amb.parse_move("2x18") {
        Err(ParseMoveError::Ambiguous { text, candidates }) => {
            assert_eq!(text, "2x18");
            let mut c: Vec<&str> = candidates.split(' ').collect();
            c.sort_unstable();
            assert_eq!(c, ["2x11x18", "2x9x18"]);
        }
        other => panic!("2x18 should be ambiguous, got {other:?}"),
    }
    assert_eq!(
        amb.parse_move("2x9x18").expect("full").to_string(),
        "2x9x18"
    );
    assert!(amb.parse_move("2x10x18").is_err());
    // A single jump and a king's five-piece loop both go from 23 to 32: "23x32"
    // written in full is the single jump (over 27), not an ambiguity.
    let jump = Position::from_fen(Variant::English, "B:W10,11,18,19,27:B2,K23").expect("fen");
    let single = jump.parse_move("23x32").expect("the single jump");
    assert_eq!(single.captured().count(), 1);
    assert!(single
        .captured()
        .contains(Square::from_number(27).expect("square")));
    let round = jump.parse_move("23x14x7x16x23x32").expect("the loop");
    assert_eq!(round.captured().count(), 5);
}

/// Perft the slow, obvious way: every legal move played, leaves counted one by one.
fn naive_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves_all_paths()
        .iter()
        .map(|&m| naive_perft(&pos.after(m), depth - 1))
        .sum()
}

fn check_perft(pos: &Position) -> Result<(), TestCaseError> {
    for depth in 1..=4 {
        let fast = perft::perft(pos, depth, Counting::AllPaths);
        prop_assert_eq!(fast, naive_perft(pos, depth), "{}: perft {}", pos, depth);
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    // perft's shortcuts (bulk counts, replies counted from the opponent's reach
    // at depth 2, captures taken straight from the bitboards, the popcnt copy)
    // agree with playing every move, from random positions (kings of both sides,
    // odd material) and from positions of random games
    #[test]
    fn fast_perft_matches_playing_every_move(p in position_strategy()) {
        check_perft(&p)?;
    }

    #[test]
    fn fast_perft_matches_playing_every_move_in_games(game in game_from_random_strategy()) {
        check_perft(game.position())?;
    }

    #[test]
    fn fast_perft_matches_playing_every_move_from_the_start(game in game_strategy()) {
        check_perft(game.position())?;
    }
}
