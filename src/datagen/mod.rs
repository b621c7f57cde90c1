//! `kingme datagen`: self-play games of English that become training data for the
//! learned evaluation (`kingme train`).
//!
//! Each game starts from an ACF 3-move ballot followed by a few random plies, then
//! both sides play kingme's search at a fixed node budget with a little leaf noise.
//! Every position without a capture pending is kept with the search score and,
//! once the game is over, its result ([`record`] has the file format). A game
//! ends by the rules (no move, threefold repetition, the 40-move rule), when a
//! search finds a forced win, when one side's score stays above
//! [`DatagenConfig::adjudicate`] for eight plies, or as a draw after
//! [`DatagenConfig::max_plies`].
//!
//! Games are spread over threads; a run is reproducible for a given seed and one
//! thread (with more, which thread plays which game depends on timing).

pub mod record;

use crate::board::{Game, Outcome, Position};
use crate::eval::Evaluator;
use crate::openings::{self, SplitMix64};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, Iteration, Score, SearchLimits, SearchReport, TraceNode};
use record::{Record, SCORE_CLAMP};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// What a datagen run plays.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// Stop after this many positions.
    pub positions: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Threads playing games.
    pub threads: usize,
    /// Seed of the openings, random plies and noise.
    pub seed: u64,
    /// Random plies after the ballot: 0 up to this many.
    pub random_plies: u32,
    /// Leaf noise amplitude (centi-men).
    pub noise: i32,
    /// The evaluation both sides play with.
    pub eval: Evaluator,
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// Score (centi-men) that, held by one side for eight plies, wins the game.
    pub adjudicate: i32,
    /// Transposition table per thread, MiB.
    pub hash_mib: usize,
}

impl Default for DatagenConfig {
    fn default() -> Self {
        DatagenConfig {
            positions: 100_000,
            nodes: 4000,
            threads: 1,
            seed: 1,
            random_plies: 4,
            noise: 8,
            eval: Evaluator::default(),
            max_plies: 300,
            adjudicate: 500,
            hash_mib: 4,
        }
    }
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
    /// Games won by Black, drawn, won by White.
    pub results: [u64; 3],
}

struct Silent;

impl SearchReport for Silent {
    fn iteration(&mut self, _: &Iteration) {}
    fn trace(&mut self, _: TraceNode) {}
}

/// The outcome of one game and its positions with their search scores.
fn play_game(
    cfg: &DatagenConfig,
    rng: &mut SplitMix64,
    deck: &[Position],
    tt: &TranspositionTable,
) -> Option<(Outcome, Vec<(Position, i16)>)> {
    let mut game = Game::from_position(deck[(rng.next_u64() % deck.len() as u64) as usize]);
    for _ in 0..rng.next_u64() % (u64::from(cfg.random_plies) + 1) {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    if game.result().is_some() {
        return None;
    }
    tt.clear();
    let mut kept = Vec::new();
    let mut leader_streak = (None, 0u32);
    let outcome = loop {
        if let Some(end) = game.result() {
            break end.outcome;
        }
        if game.moves().len() >= cfg.max_plies {
            break Outcome::Draw;
        }
        let pos = *game.position();
        tt.new_search();
        let limits = SearchLimits {
            nodes: Some(cfg.nodes),
            threads: 1,
            noise: cfg.noise,
            seed: rng.next_u64(),
            eval: cfg.eval.clone(),
            ..Default::default()
        };
        let hist = crate::engine::history_of(&game);
        let res = search::search(&pos, &hist, &limits, tt, &Control::default(), &mut Silent);
        let best = res.best?;
        let score = match res.last.map(|l| l.score) {
            Some(Score::Win(_)) => SCORE_CLAMP,
            Some(Score::Loss(_)) => -SCORE_CLAMP,
            Some(Score::Eval(s)) => s.clamp(-SCORE_CLAMP + 1, SCORE_CLAMP - 1),
            Some(Score::Draw) | None => 0,
        };
        if !pos.must_capture() {
            kept.push((pos, score as i16));
        }
        if score.abs() == SCORE_CLAMP {
            let winner = if score > 0 { pos.turn() } else { !pos.turn() };
            break Outcome::Win(winner);
        }
        let leader = if score >= cfg.adjudicate {
            Some(pos.turn())
        } else if score <= -cfg.adjudicate {
            Some(!pos.turn())
        } else {
            None
        };
        leader_streak = match (leader, leader_streak) {
            (Some(l), (Some(p), n)) if l == p => (Some(l), n + 1),
            (l, _) => (l, u32::from(l.is_some())),
        };
        if let (Some(l), 8..) = leader_streak {
            break Outcome::Win(l);
        }
        game.play_unchecked(best);
    };
    Some((outcome, kept))
}

/// Plays games until `cfg.positions` positions are written to `out` (after the
/// header); `progress(positions, games)` is called after each game. `stop` ends
/// the run early (the games in flight are discarded).
pub fn run(
    cfg: &DatagenConfig,
    out: &mut impl Write,
    stop: &AtomicBool,
    mut progress: impl FnMut(&DatagenSummary),
) -> std::io::Result<DatagenSummary> {
    let deck: Vec<Position> = openings::acf_deck()
        .map_err(std::io::Error::other)?
        .into_iter()
        .map(|o| o.position)
        .collect();
    record::write_header(out, cfg.seed)?;
    let tables = (0..cfg.threads.max(1))
        .map(|_| TranspositionTable::try_new(cfg.hash_mib).map_err(std::io::Error::other))
        .collect::<std::io::Result<Vec<_>>>()?;
    let written = AtomicU64::new(0);
    let mut summary = DatagenSummary::default();
    let (tx, rx) = mpsc::sync_channel::<(Outcome, Vec<(Position, i16)>)>(64);
    std::thread::scope(|scope| -> std::io::Result<()> {
        for (t, tt) in tables.into_iter().enumerate() {
            let tx = tx.clone();
            let (deck, written) = (&deck, &written);
            std::thread::Builder::new()
                .name(format!("kingme-datagen-{t}"))
                .spawn_scoped(scope, move || {
                    let mut rng = SplitMix64(cfg.seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9));
                    while written.load(Ordering::Relaxed) < cfg.positions
                        && !stop.load(Ordering::Relaxed)
                    {
                        if let Some(g) = play_game(cfg, &mut rng, deck, &tt) {
                            written.fetch_add(g.1.len() as u64, Ordering::Relaxed);
                            if tx.send(g).is_err() {
                                break;
                            }
                        }
                    }
                })?;
        }
        drop(tx);
        for (outcome, kept) in rx {
            if summary.positions >= cfg.positions || stop.load(Ordering::Relaxed) {
                continue;
            }
            let result = match outcome {
                Outcome::Win(crate::Color::Black) => 2,
                Outcome::Draw => 1,
                Outcome::Win(crate::Color::White) => 0,
            };
            for (position, score) in &kept {
                let r = Record {
                    position: *position,
                    result,
                    score: *score,
                };
                out.write_all(&r.to_bytes())?;
            }
            summary.games += 1;
            summary.positions += kept.len() as u64;
            summary.results[2 - result as usize] += 1;
            progress(&summary);
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(summary)
}
