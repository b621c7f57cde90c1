//! The engine with endgame databases: the protocol options, `board`, the
//! `info ... egdb` count, a missing path, the notice when there is none, and
//! conversion: from won database positions kingme beats kingme (both with
//! the databases) well within the 40-move rule.

mod common;

use kingme::board::{Color, Game, Outcome, Position, Variant};
use kingme::egdb;
use kingme::engine::{Engine, EngineOption, GoLimits};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

fn three_pieces() -> &'static std::path::Path {
    common::three_piece_databases("play")
}

/// Runs a kingme session over stdio, sending `input` line by line and waiting
/// for `bestmove` after each `go`; returns every line it printed.
fn session(input: &str, env_home: Option<&Path>) -> Vec<String> {
    use std::io::{BufRead, BufReader};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kingme"));
    cmd.env_remove("KINGME_EGDB")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(h) = env_home {
        cmd.env("HOME", h);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for l in input.lines() {
        writeln!(stdin, "{l}").unwrap();
        if l.starts_with("go") {
            loop {
                let mut s = String::new();
                assert!(stdout.read_line(&mut s).unwrap() > 0, "eof: {lines:?}");
                let s = s.trim_end().to_string();
                let done = s.starts_with("bestmove");
                lines.push(s);
                if done {
                    break;
                }
            }
        }
    }
    drop(stdin);
    for l in stdout.lines() {
        lines.push(l.unwrap());
    }
    child.wait().unwrap();
    lines
}

#[test]
fn protocol_options_board_info_and_errors() {
    let dir = three_pieces();
    let input = format!(
        "setoption name EGDBPath value {}\n\
         position fen W:WK32:BK26\nboard\n\
         go movetime 50\nisready\n\
         position fen B:WK32:BK26\nboard\n\
         position fen B:W21,22,23:B1,2,3\nboard\n\
         setoption name EGDBPath value {}/nowhere\n\
         setoption name EGDBPieces value 9\n\
         position fen W:WK19,K23:BK32\nboard\ngo depth 4\nisready\n\
         setoption name EGDBPieces value 0\nboard\ngo depth 4\nisready\nquit\n",
        dir.display(),
        dir.display()
    );
    let lines = session(&input, None);
    let text = lines.join("\n");
    assert!(
        lines[0].starts_with("info string endgame databases:")
            && lines[0].contains("up to 5 pieces"),
        "{text}"
    );
    let db: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("database "))
        .collect();
    // win (White to move), draw (Black to move); six men: known from the
    // slices of 6 pieces with at most one king built into kingme (the
    // directory has 3 pieces, kingme's own set every position of 5)
    assert_eq!(
        db,
        [
            "database win",
            "database draw",
            "database draw",
            "database win"
        ],
        "{text}"
    );
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 2, "{text}");
    assert!(
        errors[0].contains("EGDBPath") && errors[0].contains("nowhere"),
        "{text}"
    );
    assert!(errors[1].contains("EGDBPieces"), "{text}");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    // the won roots are played from the databases: score win, probes counted
    assert!(
        infos[0].contains("score win") && !infos[0].contains(" egdb 0 "),
        "{text}"
    );
    // with EGDBPieces 0 the databases are not probed
    assert!(infos.last().unwrap().contains(" egdb 0 "), "{text}");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        3,
        "{text}"
    );
    assert_eq!(
        lines.iter().filter(|l| *l == "readyok").count(),
        3,
        "{text}"
    );
}

#[test]
fn without_a_database_directory_the_five_pieces_built_in_play() {
    let home = std::env::temp_dir().join(format!("kingme-egdb-home-{}", std::process::id()));
    let lines = session(
        "position fen W:WK32:BK26\ngo depth 3\nisready\nposition fen W:WK19,K23:BK32\ngo depth 3\nisready\nboard\nposition fen B:WK19,K23:BK32,K1,K5\nboard\nposition fen B:W22,26,30:B5,10,K14\ngo depth 4\nquit\n",
        Some(&home),
    );
    let text = lines.join("\n");
    let notes: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    assert_eq!(notes.len(), 1, "{text}");
    assert!(
        notes[0].contains("built into kingme") && notes[0].contains("up to 5 pieces"),
        "{text}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        3,
        "{text}"
    );
    // the searches probe them from the first move (they are in memory before
    // the first search): two kings against one is a win at depth 3, and a
    // built-in slice of 6 pieces with one king answers too
    let searches: Vec<&[String]> = text_between_bestmoves(&lines);
    assert!(
        searches[1].iter().any(|l| l.contains(" score win ")),
        "{text}"
    );
    assert!(
        searches[2].iter().any(|l| l.contains(" score draw ")),
        "{text}"
    );
    // two kings against one win; five pieces are known too
    let db: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("database "))
        .collect();
    assert_eq!(db.len(), 2, "{text}");
    assert_eq!(db[0], "database win", "{text}");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{text}");
}

/// The lines of each search, up to and with its `bestmove`.
fn text_between_bestmoves(lines: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("bestmove") {
            out.push(&lines[start..=i]);
            start = i + 1;
        }
    }
    out
}

/// Plays `fen` out, both sides kingme with the databases at `depth`; the result and plies.
fn play_out(fen: &str, depth: u32) -> (Option<Outcome>, usize) {
    let dir = three_pieces().to_str().unwrap().to_string();
    let mut engines = [Engine::new(), Engine::new()];
    for e in &mut engines {
        e.set(EngineOption::EgdbPath(dir.clone())).unwrap();
    }
    let mut game = Game::from_position(Position::from_fen(Variant::English, fen).unwrap());
    for ply in 0..200 {
        if let Some(end) = game.result() {
            return (Some(end.outcome), ply);
        }
        let side = usize::from(game.position().turn() == Color::White);
        let events = engines[side].search_blocking(
            &game,
            GoLimits {
                depth: Some(depth),
                ..Default::default()
            },
        );
        game.play(common::best_move(&events)).unwrap();
    }
    (game.result().map(|e| e.outcome), 200)
}

#[test]
fn won_database_positions_are_converted_against_a_database_defender() {
    let dir = three_pieces();
    let mut tb = egdb::Tablebase::new();
    tb.add_directory(dir).unwrap();
    // every won 3-piece position of a sample, kings and men, both colours
    let mut won = Vec::new();
    for m in egdb::plan(3) {
        let ix = egdb::index::SliceIndex::new(m);
        for i in (0..ix.len()).step_by(997) {
            if let Some(p) = ix.position(i) {
                if matches!(tb.probe_wdl(&p), Ok(egdb::Wdl::Win)) && !p.legal_moves().is_empty() {
                    won.push(p);
                }
            }
        }
    }
    assert!(won.len() > 50, "{}", won.len());
    won.push(Position::from_fen(Variant::English, "W:WK32:BK26").unwrap());
    won.push(Position::from_fen(Variant::English, "W:WK19,K23:BK32").unwrap());
    for p in &won {
        let (result, plies) = play_out(&p.to_fen(), 3);
        assert_eq!(
            result,
            Some(Outcome::Win(p.turn())),
            "{p} after {plies} plies"
        );
        // no shuffling: far inside the 40-move rule's 80 plies
        assert!(plies < 80, "{p}: {plies} plies");
    }
}
