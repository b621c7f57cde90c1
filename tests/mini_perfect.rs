//! Level `max` plays mini-checkers perfectly: with the exact table built, the
//! engine's move in every position of many random games keeps the position's
//! game-theoretic result (never a win into a draw, never a draw into a loss),
//! and its reported score is the exact value. The values come from the solver,
//! which tests/solver.rs checks against a plain minimax without tables.

use kingme::board::{Game, Variant};
use kingme::engine::{self, Engine, Event, Limits, Score};
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
                Limits {
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
                    Event::Trace(_) => {}
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
