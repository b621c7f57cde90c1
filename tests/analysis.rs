//! Analysis over the protocol: MultiPV lines, `go searchmoves`, `analyze`,
//! `hint`, and the exact values `moves` shows, on an in-process session.

mod common;

use common::{Conn, InProcess};
use kingme::board::{Move, Position, Variant};
use kingme::engine::{Info, Score};
use kingme::protocol::{Response, SessionConfig};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

fn session() -> InProcess {
    InProcess::new(SessionConfig::default())
}

/// Sends `line`, then reads every line up to and including the first one
/// starting with `last`.
fn until(c: &mut InProcess, line: &str, last: &str) -> Vec<String> {
    c.send(line);
    read_until(c, last)
}

fn read_until(c: &mut InProcess, last: &str) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let l = c
            .recv(WAIT)
            .unwrap_or_else(|| panic!("no '{last}' line; got {out:?}"));
        let done = l.starts_with(last);
        out.push(l);
        if done {
            return out;
        }
    }
}

/// Sends `line` and returns what the session said before `readyok`.
fn said(c: &mut InProcess, line: &str) -> Vec<String> {
    c.send(line);
    let mut out = until(c, "isready", "readyok");
    out.pop();
    out
}

fn infos(lines: &[String], variant: Variant) -> Vec<Info> {
    lines
        .iter()
        .filter_map(|l| match Response::parse_in(variant, l) {
            Ok(Response::Info(i)) => Some(i),
            _ => None,
        })
        .collect()
}

fn bestmove(lines: &[String], variant: Variant) -> Move {
    match Response::parse_in(variant, lines.last().unwrap()) {
        Ok(Response::BestMove { mv: Some(m), .. }) => m,
        other => panic!("{other:?} in {lines:?}"),
    }
}

/// Orders scores from the side to move's view.
fn key(s: Score) -> i64 {
    match s {
        Score::Eval(cp) => i64::from(cp),
        Score::Draw => 0,
        Score::Win(n) => 1_000_000 - i64::from(n),
        Score::Loss(n) => -1_000_000 + i64::from(n),
    }
}

/// The iterations' line sets (the lines of one depth, in the order sent),
/// the final summary left out. Checks that every set is `multipv 1..=n`,
/// of distinct legal moves of `pos` (inside `allowed` when given), best first.
fn check_lines(
    infos: &[Info],
    pos: &Position,
    n: usize,
    allowed: Option<&[Move]>,
) -> Vec<Vec<Info>> {
    // the last info is the summary: the best line again
    let (summary, lines) = infos.split_last().expect("info lines");
    let mut sets: Vec<Vec<Info>> = Vec::new();
    for i in lines {
        let k = i.multipv.expect("a multipv field") as usize;
        if k == 1 {
            sets.push(Vec::new());
        }
        let set = sets.last_mut().expect("multipv 1 first");
        assert_eq!(k, set.len() + 1, "lines in order: {infos:?}");
        set.push(i.clone());
    }
    assert!(!sets.is_empty());
    for set in &sets {
        assert_eq!(set.len(), n, "{set:?}");
        let depth = set[0].depth;
        let mut moves = Vec::new();
        for i in set {
            assert_eq!(i.depth, depth);
            let m = i.pv[0];
            assert!(pos.is_legal(m), "{m} is not legal");
            if let Some(a) = allowed {
                assert!(a.contains(&m), "{m} is outside searchmoves");
            }
            assert!(!moves.contains(&m), "{m} twice in {set:?}");
            moves.push(m);
        }
        for w in set.windows(2) {
            assert!(
                key(w[0].score) >= key(w[1].score),
                "not best first: {:?} then {:?}",
                w[0].score,
                w[1].score
            );
        }
    }
    let last = &sets.last().unwrap()[0];
    assert_eq!(summary.multipv, Some(1));
    assert_eq!(summary.pv, last.pv);
    sets
}

#[test]
fn multipv_lines_are_distinct_legal_moves_best_first() {
    let mut c = session();
    let pos = Position::startpos(Variant::English);
    assert!(said(&mut c, "setoption name MultiPV value 4").is_empty());
    let out = until(&mut c, "go depth 6", "bestmove");
    let sets = check_lines(&infos(&out, Variant::English), &pos, 4, None);
    assert_eq!(sets.len(), 6, "one set per depth");
    assert_eq!(bestmove(&out, Variant::English), sets[5][0].pv[0]);
    for l in &out {
        assert!(
            l.starts_with("info depth ") || l.starts_with("bestmove "),
            "{l}"
        );
        if l.starts_with("info ") {
            assert!(l.contains(" seldepth ") && l.contains(" multipv "), "{l}");
            let a = l.find(" seldepth ").unwrap();
            let b = l.find(" multipv ").unwrap();
            let s = l.find(" score ").unwrap();
            assert!(a < b && b < s, "multipv comes after seldepth: {l}");
        }
    }
}

#[test]
fn multipv_is_capped_at_the_legal_moves() {
    let mut c = session();
    // White has two moves: 32-27 and 32-28
    let fen = "W:W32:B1,2";
    let pos = Position::from_fen(Variant::English, fen).unwrap();
    assert_eq!(pos.legal_moves().len(), 2);
    said(&mut c, &format!("position fen {fen}"));
    said(&mut c, "setoption name MultiPV value 10");
    let out = until(&mut c, "go depth 4", "bestmove");
    check_lines(&infos(&out, Variant::English), &pos, 2, None);
}

#[test]
fn multipv_one_keeps_the_classic_lines() {
    let mut c = session();
    let out = until(&mut c, "go depth 4", "bestmove");
    for l in &out[..out.len() - 1] {
        assert!(!l.contains("multipv"), "{l}");
    }
    assert!(infos(&out, Variant::English)
        .iter()
        .all(|i| i.multipv.is_none()));
}

#[test]
fn multipv_with_two_threads() {
    let mut c = session();
    let pos = Position::startpos(Variant::English).after(
        Position::startpos(Variant::English)
            .parse_move("11-15")
            .unwrap(),
    );
    said(&mut c, "setoption name Threads value 2");
    said(&mut c, "setoption name MultiPV value 3");
    said(&mut c, "position startpos moves 11-15");
    let out = until(&mut c, "go depth 7", "bestmove");
    let sets = check_lines(&infos(&out, Variant::English), &pos, 3, None);
    assert_eq!(sets.len(), 7);
    assert_eq!(bestmove(&out, Variant::English), sets[6][0].pv[0]);
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut c = session();
    let pos = Position::startpos(Variant::English);
    // 9-13 is no engine's first choice: only searchmoves makes it the answer
    let out = until(&mut c, "go depth 5 searchmoves 9-13", "bestmove");
    let m = pos.parse_move("9-13").unwrap();
    assert_eq!(bestmove(&out, Variant::English), m);
    for i in infos(&out, Variant::English) {
        assert_eq!(i.pv[0], m);
        assert_eq!(i.multipv, None);
    }
    // with MultiPV above the number of moves searched: one line per move
    said(&mut c, "setoption name MultiPV value 5");
    let out = until(
        &mut c,
        "go depth 4 searchmoves 12-16 9-13 10-15",
        "bestmove",
    );
    let allowed: Vec<Move> = ["12-16", "9-13", "10-15"]
        .iter()
        .map(|t| pos.parse_move(t).unwrap())
        .collect();
    check_lines(&infos(&out, Variant::English), &pos, 3, Some(&allowed));
    assert!(allowed.contains(&bestmove(&out, Variant::English)));
}

#[test]
fn one_move_of_searchmoves_is_searched_for_the_whole_move_time() {
    // a root with one legal move stops after two iterations; one move picked
    // out of seven by searchmoves is analysed for the time given
    let mut c = session();
    let start = Instant::now();
    let out = until(&mut c, "go movetime 400 searchmoves 11-15", "bestmove");
    let depth = infos(&out, Variant::English)
        .iter()
        .map(|i| i.depth)
        .max()
        .unwrap();
    assert!(depth > 4, "searched to depth {depth} only: {out:?}");
    assert!(start.elapsed() >= Duration::from_millis(300), "{out:?}");
}

#[test]
fn searchmoves_with_an_illegal_or_repeated_move_is_one_error() {
    let mut c = session();
    for (line, expect) in [
        (
            "go depth 3 searchmoves 11-15 22-18",
            "error go: searchmoves: illegal move '22-18'; legal moves: ",
        ),
        (
            "go depth 3 searchmoves 11-15 11-15",
            "error go: searchmoves: 11-15 is given twice",
        ),
        (
            "go searchmoves",
            "error go: expected a move after searchmoves, found end of line",
        ),
        (
            "go searchmoves 11-15 depth 3",
            "error go: expected a move (11-15, 22x15x8 or pass), found 'depth'",
        ),
    ] {
        let out = said(&mut c, line);
        assert_eq!(out.len(), 1, "{line}: {out:?}");
        assert!(out[0].starts_with(expect), "{line}: {out:?}");
    }
}

#[test]
fn analyze_streams_lines_until_stop() {
    let mut c = session();
    said(&mut c, "position startpos moves 11-15");
    c.send("analyze");
    // wait until the search is under way, then stop it
    let mut seen = read_until(&mut c, "info depth 5 ");
    let t = Instant::now();
    c.send("stop");
    let rest = read_until(&mut c, "bestmove");
    let mut latencies = vec![t.elapsed()];
    seen.extend(rest);
    // more samples of the stop latency, stopped at different moments
    for wait in [0u64, 5, 20, 50, 120, 250] {
        let wait = Duration::from_millis(wait);
        latencies.push(common::stop_latency(&mut c, "analyze", "info ", wait));
    }
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    assert!(median < Duration::from_millis(100), "{latencies:?}");
    assert!(
        *latencies.last().unwrap() < Duration::from_secs(2),
        "{latencies:?}"
    );
    let infos = infos(&seen, Variant::English);
    assert!(infos
        .iter()
        .all(|i| i.multipv.is_some_and(|k| (1..=3).contains(&k))));
    assert!(
        infos.iter().any(|i| i.multipv == Some(3)),
        "three lines by default"
    );
    // the session is idle again
    assert!(said(&mut c, "moves")[0].starts_with("moves "));
    // analyze N
    c.send("analyze 2");
    read_until(&mut c, "info depth 3 ");
    c.send("board");
    assert!(read_until(&mut c, "error")
        .last()
        .unwrap()
        .starts_with("error busy"));
    c.send("stop");
    let out = read_until(&mut c, "bestmove");
    assert!(infos_of(&out).all(|k| k <= 2));
}

fn infos_of(lines: &[String]) -> impl Iterator<Item = u32> + '_ {
    infos(lines, Variant::English)
        .into_iter()
        .map(|i| i.multipv.unwrap_or(0))
        .collect::<Vec<_>>()
        .into_iter()
}

#[test]
fn hint_says_a_legal_move_and_plays_nothing() {
    let mut c = session();
    said(&mut c, "setoption name Level value easy");
    said(&mut c, "position startpos moves 11-15 23-19");
    let board = said(&mut c, "board");
    let out = until(&mut c, "hint", "hint ");
    let pos = Position::from_fen(
        Variant::English,
        board.iter().find_map(|l| l.strip_prefix("fen ")).unwrap(),
    )
    .unwrap();
    let Ok(Response::Hint {
        mv: Some(m),
        score: Some(s),
    }) = Response::parse_in(Variant::English, out.last().unwrap())
    else {
        panic!("{out:?}")
    };
    assert!(pos.is_legal(m));
    let last_info = infos(&out, Variant::English).pop().unwrap();
    assert_eq!(last_info.score, s);
    assert!(!out.iter().any(|l| l.starts_with("bestmove")));
    assert_eq!(said(&mut c, "board"), board, "the position is unchanged");
    // stop ends a hint early, with the same answer line
    c.send("setoption name Level value max");
    c.send("hint");
    c.send("stop");
    let out = read_until(&mut c, "hint ");
    let Ok(Response::Hint { mv: Some(m), .. }) =
        Response::parse_in(Variant::English, out.last().unwrap())
    else {
        panic!("{out:?}")
    };
    assert!(pos.is_legal(m));
    assert_eq!(said(&mut c, "board"), board);
    // after the game's end
    said(&mut c, "position fen W:W:B1");
    let out = said(&mut c, "hint");
    assert_eq!(out[1], "hint none", "{out:?}");
}

/// The exact value of a mini position for its side to move, by brute force:
/// (+1 win, 0 draw, -1 loss; plies to the end, the winner hurrying and the
/// loser delaying). The game ends when the side to move has no move (kingme
/// gives it a pass while the opponent can move); then more pieces win.
fn brute(pos: &Position) -> (i32, u32) {
    brute_memo(pos, &mut HashMap::new())
}

fn brute_memo(pos: &Position, memo: &mut HashMap<String, (i32, u32)>) -> (i32, u32) {
    let key = pos.to_fen();
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let moves = pos.legal_moves();
    let v = if moves.is_empty() {
        let us = pos.pieces(pos.turn()).count();
        let them = pos.pieces(!pos.turn()).count();
        (us.cmp(&them) as i32, 0)
    } else {
        moves
            .iter()
            .map(|&m| {
                let (r, p) = brute_memo(&pos.after(m), memo);
                (-r, p + 1)
            })
            .max_by_key(|&(r, p)| (r, if r > 0 { -i64::from(p) } else { i64::from(p) }))
            .unwrap()
    };
    memo.insert(key, v);
    v
}

#[test]
fn moves_shows_exact_values_in_mini() {
    kingme::engine::prepare_mini_table();
    let mut c = session();
    said(&mut c, "setoption name Variant value mini");
    // moves that win, draw and lose, in various plies
    for fen in ["B:W13,14,17:B2,5", "W:W13,14,16:B4,8", "B:W15,17,18:B1,3,6"] {
        said(&mut c, &format!("position fen {fen}"));
        let pos = Position::from_fen(Variant::Mini, fen).unwrap();
        let out = said(&mut c, "moves");
        assert_eq!(out.len(), 2, "{fen}: {out:?}");
        let Ok(Response::Moves(moves)) = Response::parse_in(Variant::Mini, &out[0]) else {
            panic!("{out:?}")
        };
        let Ok(Response::Values(values)) = Response::parse_in(Variant::Mini, &out[1]) else {
            panic!("{out:?}")
        };
        assert_eq!(values.iter().map(|v| v.0).collect::<Vec<_>>(), moves);
        for (m, v) in values {
            let (r, p) = brute(&pos.after(m));
            let expect = match -r {
                1 => Score::Win(p + 1),
                -1 => Score::Loss(p + 1),
                _ => Score::Draw,
            };
            assert_eq!(v, expect, "{fen}: {m}");
        }
    }
    // no values line where none are known (English, more pieces than any database)
    let out = said(&mut c, "newgame english");
    assert!(out.is_empty());
    let out = said(&mut c, "moves");
    assert_eq!(out.len(), 1, "{out:?}");
}

#[test]
fn an_exact_draw_is_scored_draw() {
    kingme::engine::prepare_mini_table();
    let mut c = session();
    said(&mut c, "setoption name Variant value mini");
    // find a drawn position by brute force, then search it at level max
    let fen = [
        "B:W13,14:B4,5",
        "W:W13,14:B4,5",
        "B:W16,17:B1,2",
        "W:W16,17:B1,2",
    ]
    .into_iter()
    .find(|f| brute(&Position::from_fen(Variant::Mini, f).unwrap()).0 == 0)
    .expect("a drawn position among the candidates");
    said(&mut c, &format!("position fen {fen}"));
    let out = until(&mut c, "go depth 3", "bestmove");
    let last = infos(&out, Variant::Mini).pop().unwrap();
    assert_eq!(last.score, Score::Draw, "{out:?}");
    assert!(out.iter().any(|l| l.contains(" score draw ")), "{out:?}");
}

fn three_pieces() -> &'static std::path::Path {
    common::three_piece_databases("analysis")
}

#[test]
fn moves_values_and_multipv_from_the_english_databases() {
    use kingme::egdb::{Tablebase, Wdl};
    let dir = three_pieces();
    let mut tb = Tablebase::new();
    tb.add_directory(dir).unwrap();
    let mut c = session();
    let out = said(
        &mut c,
        &format!("setoption name EGDBPath value {}", dir.display()),
    );
    assert!(
        out[0].starts_with("info string endgame databases: "),
        "{out:?}"
    );
    let mut roots = Vec::new();
    // won (two kings against one), drawn and lost roots
    for fen in [
        "W:WK10,K22:BK14",
        "B:WK10,K22:BK14",
        "W:WK1:BK10,K14",
        "B:W27:B3,K9",
    ] {
        let pos = Position::from_fen(Variant::English, fen).unwrap();
        said(&mut c, &format!("position fen {fen}"));
        let out = said(&mut c, "moves");
        assert_eq!(out.len(), 2, "{fen}: {out:?}");
        let Ok(Response::Values(values)) = Response::parse_in(Variant::English, &out[1]) else {
            panic!("{out:?}")
        };
        assert_eq!(values.len(), pos.legal_moves().len());
        for &(m, v) in &values {
            let expect = match tb.probe_wdl(&pos.after(m)).unwrap() {
                Wdl::Loss => Score::Win(501),
                Wdl::Draw => Score::Draw,
                Wdl::Win => Score::Loss(501),
            };
            assert_eq!(v, expect, "{fen}: {m}");
        }
        // the root's value is the best of its moves'
        let best = values.iter().map(|v| key(v.1)).max().unwrap();
        let root = match tb.probe_wdl(&pos).unwrap() {
            Wdl::Win => key(Score::Win(501)),
            Wdl::Draw => 0,
            Wdl::Loss => key(Score::Loss(501)),
        };
        assert_eq!(best, root, "{fen}: {values:?}");
        roots.push(tb.probe_wdl(&pos).unwrap());
        // MultiPV: every line exact, the databases' move first
        said(&mut c, "setoption name MultiPV value 3");
        let out = until(&mut c, "go depth 3", "bestmove");
        said(&mut c, "setoption name MultiPV value 1");
        let n = pos.legal_moves().len().min(3);
        let sets = check_lines(&infos(&out, Variant::English), &pos, n, None);
        let last = sets.last().unwrap();
        for i in last {
            let (_, v) = values.iter().find(|v| v.0 == i.pv[0]).unwrap();
            assert_eq!(key(i.score).signum(), key(*v).signum(), "{fen}: {i:?}");
            if *v == Score::Draw {
                assert_eq!(i.score, Score::Draw);
            }
        }
        if let Some((m, Wdl::Win | Wdl::Loss)) = tb.best_move(&pos).unwrap() {
            assert_eq!(bestmove(&out, Variant::English), m, "{fen}");
        }
    }
    assert!(
        roots.contains(&Wdl::Win) && roots.contains(&Wdl::Loss),
        "{roots:?}"
    );
    assert!(roots.contains(&Wdl::Draw), "{roots:?}");
}
