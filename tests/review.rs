//! Game review, judged against the databases and the solved mini table
//! (which the test consults itself), and its outputs read back: the JSON by
//! its schema's structs, the PDN by kingme's reader; the command line on a
//! file of several games, one of them malformed.

mod common;

use common::cli::{kingme, temp_dir, text};
use kingme::board::pdn::parse_pdn;
use kingme::egdb::{Tablebase, Wdl};
use kingme::engine::{Engine, Event, GoLimits, MoveComment, ReviewEnd};
use kingme::review::json::{JsonMove, ReviewFile};
use kingme::review::{annotated_movetext, MoveReview, ReviewSettings, Verdict};
use kingme::solve::{MiniTablebase, ValueKind};
use kingme::{Color, Game, Position, Variant};
use std::time::Duration;

/// Reviews `game` on a fresh engine at `nodes` a position.
fn review(game: &Game, nodes: u64) -> (Vec<MoveReview>, ReviewEnd) {
    let mut engine = Engine::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let limits = GoLimits {
        nodes: Some(nodes),
        ..GoLimits::default()
    };
    let handle = engine.review(
        game,
        limits,
        ReviewSettings::default(),
        Box::new(move |e| {
            let _ = tx.send(e);
        }),
    );
    let mut reviews = Vec::new();
    loop {
        match rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the review answers")
        {
            Event::Reviewed(r) => reviews.push(*r),
            Event::ReviewDone(end) => {
                handle.wait();
                reviews.sort_by_key(|r| r.ply);
                return (reviews, end);
            }
            other => panic!("a review sent {other:?}"),
        }
    }
}

fn builtin() -> Tablebase {
    let mut tb = Tablebase::new();
    tb.add_builtin().expect("the built-in databases");
    tb
}

/// Black to move with two kings against one: a database win with a move
/// that draws (a king given away), found by probing every placement.
fn win_with_a_drawing_move(tb: &Tablebase) -> (Position, kingme::Move) {
    for a in 1..=32u8 {
        for b in a + 1..=32 {
            for w in 1..=32u8 {
                if w == a || w == b {
                    continue;
                }
                let fen = format!("B:WK{w}:BK{a},K{b}");
                let pos = Position::from_fen(Variant::English, &fen).expect("a FEN");
                if pos.legal_moves().iter().any(|m| m.is_capture()) {
                    continue;
                }
                if tb.probe_wdl(&pos).ok() != Some(Wdl::Win) {
                    continue;
                }
                let drawing = pos
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|&m| tb.probe_wdl(&pos.after(m)).ok() == Some(Wdl::Draw));
                if let Some(m) = drawing {
                    return (pos, m);
                }
            }
        }
    }
    panic!("no two-king win with a drawing move");
}

/// `plies` more moves of `game`, each the databases' own.
fn database_moves(tb: &Tablebase, game: &mut Game, plies: usize) {
    for _ in 0..plies {
        if game.result().is_some() {
            break;
        }
        let (m, _) = tb
            .best_move(game.position())
            .expect("a probe")
            .expect("a move");
        game.play(m).expect("a legal move");
    }
}

#[test]
fn a_thrown_away_database_win_is_marked_at_that_move_and_nowhere_else() {
    let tb = builtin();
    let (pos, drawing) = win_with_a_drawing_move(&tb);
    let mut game = Game::from_position(pos);
    game.play(drawing).unwrap();
    database_moves(&tb, &mut game, 8);
    let (reviews, end) = review(&game, 2000);
    assert!(end.complete);
    assert_eq!(reviews.len(), game.moves().len());
    for r in &reviews {
        let before = game.positions()[r.ply];
        let after = game.positions()[r.ply + 1];
        let e = r
            .exact_verdict()
            .unwrap_or_else(|| panic!("ply {}: not exact", r.ply));
        // the test's own reading of the databases
        let was = tb.probe_wdl(&before).unwrap();
        let now = tb.probe_wdl(&after).unwrap().flipped();
        if r.ply == 0 {
            assert_eq!((was, now), (Wdl::Win, Wdl::Draw));
            assert_eq!(r.verdict, Verdict::Blunder, "{r:?}");
            assert_eq!(e.words(), "threw away a win");
        } else {
            assert_eq!(was, now, "ply {}", r.ply);
            assert!(r.verdict <= Verdict::Good, "ply {}: {r:?}", r.ply);
            assert!(!e.words().contains("threw"), "{}", e.words());
        }
    }
    assert_eq!(end.black.count(Verdict::Blunder), 1);
    assert_eq!(end.white.count(Verdict::Blunder), 0);
}

#[test]
fn a_game_of_database_moves_has_no_mistakes() {
    let tb = builtin();
    let (pos, _) = win_with_a_drawing_move(&tb);
    let mut game = Game::from_position(pos);
    database_moves(&tb, &mut game, 30);
    let (reviews, end) = review(&game, 2000);
    assert_eq!(reviews.len(), game.moves().len());
    for r in &reviews {
        assert!(r.exact, "ply {}", r.ply);
        assert!(r.verdict <= Verdict::Good, "ply {}: {r:?}", r.ply);
        assert_eq!(r.loss, 0.0, "ply {}", r.ply);
    }
    for v in [Verdict::Inaccuracy, Verdict::Mistake, Verdict::Blunder] {
        assert_eq!(end.black.count(v) + end.white.count(v), 0);
    }
}

#[test]
fn a_mini_game_is_judged_exactly_by_the_solved_table() {
    let table = MiniTablebase::global();
    let mut game = Game::new(Variant::Mini);
    let mut changed_at = None;
    while game.moves().len() < 16 && game.result().is_none() {
        let pos = *game.position();
        let value = table.value(&pos);
        let values = table.move_values(&pos);
        // the first move that changes the result, played once; else the table's best
        let worse = values.iter().find(|(_, v)| v.kind != value.kind);
        let m = match (changed_at, worse) {
            (None, Some(&(m, _))) if game.moves().len() >= 2 => {
                changed_at = Some(game.moves().len());
                m
            }
            _ => values[0].0,
        };
        game.play(m).unwrap();
    }
    let changed_at = changed_at.expect("a move that changes the result");
    let (reviews, _) = review(&game, 500);
    assert_eq!(reviews.len(), game.moves().len());
    for r in &reviews {
        let before = table.value(&game.positions()[r.ply]);
        let after = table.value(&game.positions()[r.ply + 1]).flipped();
        let e = r.exact_verdict().expect("every mini position is known");
        assert_eq!(e.before, before.into(), "ply {}", r.ply);
        if r.ply == changed_at {
            assert_ne!(before.kind, after.kind);
            assert_eq!(r.verdict, Verdict::Blunder, "{r:?}");
            let words = match (before.kind, after.kind) {
                (ValueKind::Win, ValueKind::Draw) => "threw away a win",
                (ValueKind::Win, ValueKind::Loss) => "threw away a win and lost",
                _ => "turned a draw into a loss",
            };
            assert_eq!(e.words(), words);
        } else {
            assert_eq!(before.kind, after.kind, "ply {}", r.ply);
            assert!(r.verdict <= Verdict::Good, "ply {}: {r:?}", r.ply);
        }
    }
}

/// A short English game with a piece given away (black's 3rd move).
fn hung_piece_game() -> Game {
    let mut g = Game::new(Variant::English);
    for m in ["11-15", "23-19", "8-11", "22-17", "15-18", "19-15"] {
        g.play_text(m).unwrap();
    }
    g
}

#[test]
fn the_json_reads_back_to_the_same_review() {
    let game = hung_piece_game();
    let (reviews, _) = review(&game, 3000);
    let moves: Vec<JsonMove> = reviews
        .iter()
        .map(|r| JsonMove::of(r, Color::Black, Some("+0.25/12 0.20s")))
        .collect();
    let text = serde_json::to_string(&moves).unwrap();
    let back: Vec<JsonMove> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, moves);
    for (j, r) in back.iter().zip(&reviews) {
        assert_eq!(&j.review(Variant::English).unwrap(), r);
        assert_eq!(j.number, r.ply / 2 + 1);
    }
    // a given-away man is a mistake or worse for the engine at any depth
    let hung = &reviews[4];
    assert_eq!(hung.played.to_string(), "15-18");
    assert!(hung.verdict >= Verdict::Mistake, "{hung:?}");
}

#[test]
fn the_annotated_pdn_reads_back_with_its_values_and_marks() {
    let game = hung_piece_game();
    let (reviews, _) = review(&game, 3000);
    let text = format!(
        "[Event \"review\"]\n\n{}",
        annotated_movetext(&game, &reviews, "*")
    );
    let back = parse_pdn(&text).unwrap().remove(0);
    assert_eq!(back.replay().unwrap().moves(), game.moves());
    assert!(text.contains("15-18?"), "{text}");
    for r in &reviews {
        let c: MoveComment = back.comments[r.ply]
            .as_deref()
            .expect("a comment after every reviewed move")
            .parse()
            .unwrap();
        // men to two decimals: the comment rounds nothing away
        assert_eq!(c.score, Some(r.played_score), "ply {}", r.ply);
        assert_eq!(c.depth, Some(r.depth));
    }
}

#[test]
fn a_file_of_games_is_reviewed_game_by_game_and_a_malformed_one_refused_by_name() {
    let dir = temp_dir("review-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("games.pdn");
    std::fs::write(
        &pdn,
        "[Black \"alice\"]\n[White \"bob\"]\n1. 11-15 {+0.25/12 0.20s} 23-19 2. 8-11 22-17 3. 15-18 19-15 *\n\n\
         [Black \"carol\"]\n[White \"dave\"]\n1. 11-15 23-19 2. 15-10 {illegal} *\n\n\
         [Black \"bob\"]\n[White \"alice\"]\n1. 9-13 22-18 2. 11-15 18x11 3. 8x15 *\n",
    )
    .unwrap();
    let json = dir.join("review.json");
    let out_pdn = dir.join("review.pdn");
    let args = [
        "review",
        pdn.to_str().unwrap(),
        "--nodes",
        "500",
        "--json",
        json.to_str().unwrap(),
        "--pdn",
        out_pdn.to_str().unwrap(),
        "--quiet",
    ];
    let out = kingme(&args);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "one game is malformed: {stdout}");
    assert!(
        stderr.contains("game 2 (carol - dave): move 2. 15-10"),
        "{stderr}"
    );
    let file: ReviewFile = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(file.version, kingme::review::json::JSON_VERSION);
    assert_eq!(
        file.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [1, 3]
    );
    assert_eq!(file.games[0].moves.len(), 6);
    // what the engine said of its move, beside the verdict
    assert_eq!(
        file.games[0].moves[0].engine.as_deref(),
        Some("+0.25/12 0.20s")
    );
    assert_eq!(file.games[0].moves[1].engine, None);
    assert_eq!(file.games[1].moves.len(), 5);
    assert_eq!(file.errors.len(), 1);
    assert_eq!(file.errors[0].game, 2);
    // alice and bob each played both colours; carol and dave are not reviewed
    let names: Vec<&str> = file.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    for p in &file.players {
        assert_eq!(p.games, 2);
        // alice: 3 black moves in game 1 and 2 white moves in game 3
        let want = if p.name == "alice" { 3 + 2 } else { 3 + 3 };
        assert_eq!(p.summary.moves, want, "{}", p.name);
    }
    assert!(stdout.contains("players over 2 games"), "{stdout}");
    let annotated = parse_pdn(&std::fs::read_to_string(&out_pdn).unwrap()).unwrap();
    assert_eq!(annotated.len(), 2);
    assert_eq!(annotated[1].tag("Black"), Some("bob"));
    assert!(annotated[0].tag("Annotator").unwrap().contains("nodes 500"));
    let _ = std::fs::remove_dir_all(&dir);
}
