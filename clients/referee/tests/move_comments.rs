//! Each move of the referee's PDN carries what its engine said of it
//! (`{+0.25/12 0.20s}`): checked against the engines' own output, logged on
//! its way to the referee.

mod common;

use common::{script_spec, TempDir};
use kingme::engine::{MoveComment, Score};
use kingme::Variant;
use kingme_referee::game::TimeControl;
use kingme_referee::pdn::parse_pdn;
use kingme_referee::runner::{run_match, MatchConfig, Quiet};
use std::time::Duration;

/// What one `bestmove` came with, read from an engine's raw output.
#[derive(Debug, PartialEq)]
struct Said {
    mv: String,
    score: Option<Score>,
    depth: Option<u32>,
    book: bool,
}

/// The score words after `score` in an info line (`cp 12`, `win 5`,
/// `loss 3`, `draw`), read here word by word.
fn score_words(words: &[&str]) -> Option<Score> {
    let at = words.iter().position(|w| *w == "score")?;
    match (words.get(at + 1).copied(), words.get(at + 2)) {
        (Some("draw"), _) => Some(Score::Draw),
        (Some("cp"), Some(n)) => Some(Score::Eval(n.parse().ok()?)),
        (Some("win"), Some(n)) => Some(Score::Win(n.parse().ok()?)),
        (Some("loss"), Some(n)) => Some(Score::Loss(n.parse().ok()?)),
        _ => None,
    }
}

fn number_after(words: &[&str], key: &str) -> Option<u32> {
    let at = words.iter().position(|w| *w == key)?;
    words.get(at + 1)?.parse().ok()
}

/// Every `bestmove` of an engine's output with the last score it sent
/// before it (an `info` line, or an `info string book` line).
fn bestmoves(log: &str) -> Vec<Said> {
    let mut out = Vec::new();
    let (mut score, mut depth, mut book) = (None, None, false);
    for line in log.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["bestmove", mv, ..] => {
                out.push(Said {
                    mv: (*mv).to_string(),
                    score: score.take(),
                    depth: depth.take(),
                    book,
                });
                book = false;
            }
            ["info", "string", "book", ..] => {
                score = score_words(&words);
                depth = number_after(&words, "depth");
                book = true;
            }
            ["info", "string", ..] => {}
            ["info", ..] if words.contains(&"score") => {
                score = score_words(&words);
                depth = number_after(&words, "depth");
                book = false;
            }
            _ => {}
        }
    }
    out
}

/// A real kingme whose output is also appended to `log` on its way out;
/// with `quiet`, its `info` lines are dropped (an engine that reports no score).
fn logged_kingme(dir: &TempDir, name: &str, quiet: bool) -> (String, std::path::PathBuf) {
    let log = dir.path(&format!("{name}.log"));
    let filter = if quiet {
        " | grep --line-buffered -v '^info'"
    } else {
        ""
    };
    let body = format!(
        "\"{}\"{filter} | tee -a '{}'\n",
        common::kingme_bin().display(),
        log.display()
    );
    (script_spec(dir, &format!("{name}.sh"), &body), log)
}

#[test]
fn the_pdn_comments_are_what_the_engines_said() {
    let dir = TempDir::new("comments");
    let (a, a_log) = logged_kingme(&dir, "a", false);
    let (b, b_log) = logged_kingme(&dir, "b", true);
    let pdn = dir.path("games.pdn");
    let cfg = MatchConfig {
        engine_a: a.parse().unwrap(),
        engine_b: b.parse().unwrap(),
        options_a: Vec::new(),
        options_b: Vec::new(),
        games: 2,
        variant: Variant::English,
        tc: TimeControl::Nodes(400),
        // one connection to each engine for the whole match: each log is
        // its moves in order
        concurrency: 1,
        sprt: None,
        max_plies: 120,
        egdb: None,
        seed: 3,
        margin: Duration::from_millis(5000),
        setup_timeout: Duration::from_secs(20),
        pdn: Some(pdn.clone()),
        event: "comments".into(),
        interrupt: None,
    };
    let report = run_match(&cfg, &mut Quiet).expect("match runs");
    assert!(report.faults.is_empty(), "{:?}", report.game_list);
    let games = parse_pdn(&std::fs::read_to_string(&pdn).unwrap()).expect("PDN reads");
    assert_eq!(games.len(), 2);

    // each engine's moves, in the order it played them, with their comments
    let mut by_engine: [Vec<(String, MoveComment)>; 2] = [Vec::new(), Vec::new()];
    let mut games = games;
    games.sort_by_key(|g| g.tag("Round").unwrap().parse::<u32>().unwrap());
    for g in &games {
        assert_eq!(g.comments.len(), g.moves.len());
        g.replay().expect("the moves are legal");
        // the two engines answer to one name, told apart by the referee's
        // [A] and [B]; a ballot leaves White to move
        let a_black = g.tag("Black").unwrap().ends_with("[A]");
        let white_first = g.tag("FEN").is_some_and(|f| f.starts_with('W'));
        let a_first = a_black != white_first;
        for (i, (mv, c)) in g.moves.iter().zip(&g.comments).enumerate() {
            let text = c.as_deref().expect("every move has a comment");
            let comment: MoveComment = text.parse().expect("a move comment");
            assert!(comment.time.is_some(), "{text}");
            let engine = usize::from((i % 2 == 0) != a_first);
            by_engine[engine].push((mv.clone(), comment));
        }
    }

    let said_a = bestmoves(&std::fs::read_to_string(&a_log).unwrap());
    assert_eq!(said_a.len(), by_engine[0].len(), "A's bestmoves");
    let mut scored = 0;
    for (said, (mv, c)) in said_a.iter().zip(&by_engine[0]) {
        assert_eq!(&said.mv, mv);
        assert_eq!(c.book, said.book, "{mv}: {c}");
        if !said.book {
            assert!(said.score.is_some(), "kingme reports a score: {said:?}");
            assert_eq!((c.score, c.depth), (said.score, said.depth), "{mv}: {c}");
            scored += 1;
        }
    }
    assert!(scored > 10, "{scored} searched moves");

    // B sent no info lines: its comments are the time alone
    let said_b = bestmoves(&std::fs::read_to_string(&b_log).unwrap());
    assert_eq!(said_b.len(), by_engine[1].len(), "B's bestmoves");
    for (said, (mv, c)) in said_b.iter().zip(&by_engine[1]) {
        assert_eq!(&said.mv, mv);
        assert_eq!(said.score, None);
        assert_eq!((c.score, c.depth, c.book), (None, None, false), "{c}");
        assert!(!c.to_string().contains('/'), "{c}");
    }
}
