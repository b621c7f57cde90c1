//! Level `max` plays mini-checkers perfectly: with the exact table built, the
//! engine's move in every position of many random games keeps the position's
//! game-theoretic result (never a win into a draw, never a draw into a loss),
//! and its reported score is the exact value. The values come from the solver,
//! which tests/solver.rs checks against a plain minimax without tables.

use kingme::board::{Game, Variant};
use kingme::engine::{self, Engine, Event, GoLimits, Score};
use kingme::solve::ValueKind;

#[test]
fn max_level_keeps_the_exact_result() {
    let tb = engine::prepare_mini_table();
    let mut e = Engine::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut checked = 0;
    for game_no in 0..40 {
        let mut g = Game::new(Variant::Mini);
        while g.result().is_none() {
            let pos = *g.position();
            let value = tb.value(&pos);
            let events = e.search_blocking(
                &g,
                GoLimits {
                    depth: Some(2),
                    ..Default::default()
                },
            );
            let mut best = None;
            let mut score = None;
            for ev in &events {
                match ev {
                    Event::Info(i) => score = Some(i.score),
                    Event::BestMove { mv, .. } => best = *mv,
                    _ => {}
                }
            }
            let m = best.expect("a move while the game is on");
            let after = tb.value(&pos.after(m)).flipped();
            assert_eq!(
                after.kind, value.kind,
                "{pos}: {m} changes {value} into {after}"
            );
            let expect = match value.kind {
                ValueKind::Win => Score::Win(value.plies),
                ValueKind::Loss => Score::Loss(value.plies),
                ValueKind::Draw => Score::Draw,
            };
            assert_eq!(score, Some(expect), "{pos}");
            checked += 1;
            // the engine's side plays its move on even games; a random move otherwise,
            // so the games wander into won and lost positions too
            if (g.moves().len() + game_no).is_multiple_of(2) {
                g.play_unchecked(m);
            } else {
                let moves = pos.legal_moves();
                g.play_unchecked(moves[(rnd() % moves.len() as u64) as usize]);
            }
        }
    }
    assert!(checked > 300, "checked {checked} positions");
}

/// Through the protocol, in a fresh process: the very first timed search at
/// level max waits for the table being built (started by `newgame mini`) and
/// answers with an exact score, not a heuristic one. The start's moves are
/// 5-7, 4-7 and 5-8 (draws), 6-8 (a longer draw) and 6-9 (a loss): the
/// engine must not choose the loss.
#[test]
fn the_first_timed_move_at_level_max_is_already_exact() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_remove("KINGME_MINI_TABLE")
        .spawn()
        .expect("start kingme");
    let mut stdin = child.stdin.take().expect("stdin");
    let start = Instant::now();
    stdin
        .write_all(b"setoption name Level value max\nnewgame mini\ngo movetime 120000\n")
        .expect("write");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut exact = false;
    let best = loop {
        let line = lines.next().expect("kingme answers").expect("a line");
        if line.starts_with("info ") && line.contains(" score draw ") {
            exact = true;
        }
        if let Some(m) = line.strip_prefix("bestmove ") {
            break m.split_whitespace().next().unwrap_or_default().to_string();
        }
    };
    let took = start.elapsed();
    drop(stdin);
    let _ = child.wait();
    assert!(exact, "no exact score before bestmove {best}");
    assert_ne!(best, "6-9", "the losing move");
    // an exact root ends the search at once: no need for the 120 s
    assert!(took < Duration::from_secs(60), "took {took:?}");
}
