//! What a book holds (positions by plies from the roots, by ballot) and the
//! check of every entry against the rules.

use super::file::{View, FLAG_IN_BOOK};
use crate::board::Position;
use std::collections::{HashMap, VecDeque};

/// A problem `verify` found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// A stored move is not legal in its position.
    #[error("entry {entry} ({fen}): move {from}-{to} is not legal")]
    Illegal {
        /// Entry index.
        entry: usize,
        /// The position.
        fen: String,
        /// Stored start square index.
        from: u8,
        /// Stored end square index.
        to: u8,
    },
    /// The same move twice, or not every legal move.
    #[error("entry {entry} ({fen}): {detail}")]
    Moves {
        /// Entry index.
        entry: usize,
        /// The position.
        fen: String,
        /// What is wrong.
        detail: String,
    },
}

/// The result of [`verify`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Entries checked.
    pub positions: usize,
    /// Moves checked.
    pub moves: usize,
    /// Moves flagged as leading into the book.
    pub in_book: usize,
}

/// Checks every entry: each stored move is legal (up to the capture path),
/// none is stored twice, every legal move is there, and a move flagged as
/// leading into the book does, with a value the negation of that
/// position's best.
pub fn verify(view: &View<'_>) -> Result<Verified, VerifyError> {
    let mut done = Verified::default();
    for i in 0..view.len() {
        let pos = view.position(i).expect("checked when opened");
        let fen = || pos.to_fen();
        let legal = pos.legal_moves();
        let moves = view.moves(i);
        let mut seen = Vec::new();
        for m in &moves {
            let Some(mv) = m.find_in(&legal) else {
                return Err(VerifyError::Illegal {
                    entry: i,
                    fen: fen(),
                    from: m.from,
                    to: m.to,
                });
            };
            if seen.iter().any(|s: &crate::board::Move| s.same_effect(mv)) {
                return Err(VerifyError::Moves {
                    entry: i,
                    fen: fen(),
                    detail: format!("{mv} twice"),
                });
            }
            seen.push(mv);
            let child = view.find(&pos.after(mv));
            if (m.flags & FLAG_IN_BOOK != 0) != child.is_some() {
                return Err(VerifyError::Moves {
                    entry: i,
                    fen: fen(),
                    detail: format!("{mv}: the in-book flag disagrees with the book"),
                });
            }
            if let Some(c) = child {
                let best = view.moves(c).iter().map(|r| r.value).max();
                if best.is_some_and(|b| b != -m.value) {
                    return Err(VerifyError::Moves {
                        entry: i,
                        fen: fen(),
                        detail: format!(
                            "{mv}: value {} is not the negation of the best value of the position it reaches ({})",
                            m.value,
                            best.unwrap_or_default()
                        ),
                    });
                }
                done.in_book += 1;
            }
        }
        let distinct = legal
            .iter()
            .filter(|&&l| {
                legal.iter().position(|&o| o.same_effect(l)) == legal.iter().position(|&o| o == l)
            })
            .count();
        if seen.len() != distinct {
            return Err(VerifyError::Moves {
                entry: i,
                fen: fen(),
                detail: format!("{} of its {distinct} legal moves are stored", seen.len()),
            });
        }
        done.positions += 1;
        done.moves += moves.len();
    }
    Ok(done)
}

/// Book positions by their fewest plies from any of `roots` (index = plies),
/// and how many no root reaches through the book.
#[must_use]
pub fn by_plies(view: &View<'_>, roots: &[Position]) -> (Vec<usize>, usize) {
    let dist = distances(view, roots);
    let mut counts = Vec::new();
    for &d in dist.values() {
        if counts.len() <= d {
            counts.resize(d + 1, 0);
        }
        counts[d] += 1;
    }
    (counts, view.len() - dist.len())
}

/// For each root, the book positions reachable from it through the book.
#[must_use]
pub fn by_root(view: &View<'_>, roots: &[Position]) -> Vec<usize> {
    roots
        .iter()
        .map(|r| distances(view, std::slice::from_ref(r)).len())
        .collect()
}

/// Fewest plies from `roots` to each book entry reachable through book moves.
fn distances(view: &View<'_>, roots: &[Position]) -> HashMap<usize, usize> {
    let mut dist = HashMap::new();
    let mut queue = VecDeque::new();
    for r in roots {
        if let Some(i) = view.find(r) {
            if dist.insert(i, 0).is_none() {
                queue.push_back((i, *r));
            }
        }
    }
    while let Some((i, pos)) = queue.pop_front() {
        let d = dist[&i];
        let legal = pos.legal_moves();
        for m in view.moves(i) {
            if m.flags & FLAG_IN_BOOK == 0 {
                continue;
            }
            let Some(mv) = m.find_in(&legal) else {
                continue;
            };
            let child = pos.after(mv);
            if let Some(c) = view.find(&child) {
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(c) {
                    e.insert(d + 1);
                    queue.push_back((c, child));
                }
            }
        }
    }
    dist
}
