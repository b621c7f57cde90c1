//! `kingme endings`: positions the endgame databases know, each labelled by
//! its exact value, reached by random plies from a data file's late positions.
//!
//! The engine probes only the databases it has; a network trained on games
//! that ended as soon as the databases knew the position has never seen the
//! positions just past that point, which its search meets at the leaves of
//! every late middlegame. From each input position of at most
//! [`EndingsConfig::from_pieces`] pieces, [`EndingsConfig::walks`] walks of
//! random legal plies go on until a position the databases know; one with at
//! least [`EndingsConfig::min_pieces`] pieces and no capture pending is kept,
//! its result and score the databases' (a win scores
//! [`SCORE_CLAMP`] for the winner, a draw 0).
//! Deterministic for a seed; each position is kept once.

use super::record::{result_of, Record, SCORE_CLAMP};
use crate::board::{Outcome, Position};
use crate::egdb::Tablebase;
use crate::rng::SplitMix64;
use std::collections::HashSet;

/// What an endings run keeps.
#[derive(Clone, Debug)]
pub struct EndingsConfig {
    /// Walks from each input position.
    pub walks: u32,
    /// Input positions of at most this many pieces start walks.
    pub from_pieces: u32,
    /// A kept position has at least this many pieces (those the engine's
    /// built-in databases hold need no evaluation).
    pub min_pieces: u32,
    /// A walk that has not reached a known position after this many plies is dropped.
    pub max_plies: u32,
    /// Seed of the random plies.
    pub seed: u64,
}

impl Default for EndingsConfig {
    fn default() -> Self {
        EndingsConfig {
            walks: 1,
            from_pieces: 9,
            min_pieces: crate::egdb::pack::BUILTIN_PIECES + 1,
            max_plies: 16,
            seed: 1,
        }
    }
}

/// What an endings run found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndingsSummary {
    /// Walks started.
    pub walks: u64,
    /// Positions kept.
    pub kept: u64,
    /// Kept positions won by Black, drawn, won by White.
    pub results: [u64; 3],
    /// Walks that ended on a position already kept (or an input position).
    pub repeats: u64,
}

/// The record of `pos` labelled by its exact `outcome`.
fn labelled(pos: Position, outcome: Outcome) -> Record {
    let score = match outcome {
        Outcome::Draw => 0,
        Outcome::Win(c) if c == pos.turn() => SCORE_CLAMP,
        Outcome::Win(_) => -SCORE_CLAMP,
    };
    Record {
        position: pos,
        result: result_of(outcome),
        score: score as i16,
    }
}

/// One walk from `start`: the first position the databases know, if it is
/// worth keeping.
fn walk(
    cfg: &EndingsConfig,
    tb: &Tablebase,
    start: &Position,
    rng: &mut SplitMix64,
) -> Option<Record> {
    let mut pos = *start;
    for _ in 0..cfg.max_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos = pos.after(moves[(rng.next_u64() % moves.len() as u64) as usize]);
        if let Some(outcome) = tb.outcome(&pos) {
            let keep = pos.occupied().count() >= cfg.min_pieces && !pos.must_capture();
            return keep.then(|| labelled(pos, outcome));
        }
    }
    None
}

/// Walks from every position of `input` small enough, calling `keep` with
/// each new labelled position in order, and `progress` with the number of
/// input positions done every few thousand.
pub fn run(
    cfg: &EndingsConfig,
    tb: &Tablebase,
    input: &[Record],
    mut keep: impl FnMut(&Record) -> std::io::Result<()>,
    mut progress: impl FnMut(usize),
) -> std::io::Result<EndingsSummary> {
    let mut rng = SplitMix64(cfg.seed);
    let mut seen: HashSet<u64> = input.iter().map(|r| r.position.hash()).collect();
    let mut summary = EndingsSummary::default();
    for (i, r) in input.iter().enumerate() {
        if i % 4096 == 0 {
            progress(i);
        }
        let pos = &r.position;
        if pos.occupied().count() > cfg.from_pieces || tb.outcome(pos).is_some() {
            continue;
        }
        for _ in 0..cfg.walks {
            summary.walks += 1;
            let Some(rec) = walk(cfg, tb, pos, &mut rng) else {
                continue;
            };
            if !seen.insert(rec.position.hash()) {
                summary.repeats += 1;
                continue;
            }
            keep(&rec)?;
            summary.kept += 1;
            summary.results[2 - rec.result as usize] += 1;
        }
    }
    progress(input.len());
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, Variant};

    fn tb() -> Tablebase {
        let mut tb = Tablebase::new();
        tb.add_builtin().expect("the built-in databases");
        tb
    }

    /// Late positions of a few plies' reach: kings and men, 6-7 pieces.
    fn inputs() -> Vec<Record> {
        [
            "B:W18,22,K30:B5,10,K14",
            "W:W21,25,26,K31:B6,K9,K12",
            "B:WK27,29,30:B1,2,K15,16",
            "W:W19,24,K28:B3,K8,11",
        ]
        .iter()
        .map(|f| Record {
            position: Position::from_fen(Variant::English, f).unwrap(),
            result: 1,
            score: 0,
        })
        .collect()
    }

    fn collect(cfg: &EndingsConfig) -> (Vec<Record>, EndingsSummary) {
        let mut out = Vec::new();
        let s = run(
            cfg,
            &tb(),
            &inputs(),
            |r| {
                out.push(*r);
                Ok(())
            },
            |_| {},
        )
        .unwrap();
        (out, s)
    }

    /// Every position reachable from `start` in at most `plies` plies.
    fn reachable(start: &Position, plies: u32) -> HashSet<u64> {
        let mut all = HashSet::from([start.hash()]);
        let mut frontier = vec![*start];
        for _ in 0..plies {
            let mut next = Vec::new();
            for p in &frontier {
                for m in p.legal_moves().iter() {
                    let c = p.after(*m);
                    if all.insert(c.hash()) {
                        next.push(c);
                    }
                }
            }
            frontier = next;
        }
        all
    }

    #[test]
    fn kept_positions_are_reachable_known_and_labelled_exactly() {
        let cfg = EndingsConfig {
            walks: 20,
            from_pieces: 7,
            min_pieces: 5,
            max_plies: 6,
            seed: 7,
        };
        let (out, s) = collect(&cfg);
        assert!(s.kept > 5, "{s:?}");
        assert_eq!(s.kept as usize, out.len());
        assert_eq!(s.results.iter().sum::<u64>(), s.kept);
        let tb = tb();
        let reach: Vec<HashSet<u64>> = inputs()
            .iter()
            .map(|r| reachable(&r.position, cfg.max_plies))
            .collect();
        let mut hashes = HashSet::new();
        for r in &out {
            let p = &r.position;
            assert!(hashes.insert(p.hash()), "kept twice: {}", p.to_fen());
            assert!(
                reach.iter().any(|h| h.contains(&p.hash())),
                "{}",
                p.to_fen()
            );
            assert!(
                p.occupied().count() >= 5 && !p.must_capture(),
                "{}",
                p.to_fen()
            );
            // the label is the databases' value, seen from each side
            let want = tb.outcome(p).expect("known");
            let black = match want {
                Outcome::Win(Color::Black) => 2,
                Outcome::Draw => 1,
                Outcome::Win(Color::White) => 0,
            };
            assert_eq!(r.result, black, "{}", p.to_fen());
            let mover = i32::from(r.result) - 1;
            let mover = if p.turn() == Color::Black {
                mover
            } else {
                -mover
            };
            assert_eq!(i32::from(r.score), mover * SCORE_CLAMP, "{}", p.to_fen());
        }
    }

    #[test]
    fn a_seed_gives_the_same_positions_and_another_seed_others() {
        let cfg = EndingsConfig {
            walks: 10,
            from_pieces: 7,
            min_pieces: 5,
            max_plies: 6,
            seed: 3,
        };
        let (a, _) = collect(&cfg);
        let (b, _) = collect(&cfg);
        assert_eq!(a, b);
        let (c, _) = collect(&EndingsConfig { seed: 4, ..cfg });
        assert_ne!(a, c);
    }

    #[test]
    fn large_positions_start_no_walks() {
        let (out, s) = collect(&EndingsConfig {
            from_pieces: 5,
            ..EndingsConfig::default()
        });
        assert!(out.is_empty());
        assert_eq!(s.walks, 0);
    }
}
