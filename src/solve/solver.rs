//! `MiniSolver`: memoised negamax over the mini-checkers game DAG.

use super::key::key_of;
use super::layered::Layered;
use super::memo::Table;
use super::GameValue;
use crate::board::movegen;
use crate::board::{Mini, Move, MoveList, Position, Variant};
use std::fmt;

/// The number of positions reachable from the start position (either side
/// first), as the table counts them: a position with White to move is stored
/// as its mirror image with Black to move.
pub const START_POSITIONS: usize = 20_261_946;

/// Most moves a mini position can have: two per piece off the far row.
const MAX_CHILDREN: usize = 32;

/// How often (in new positions) the progress callback is called.
const PROGRESS_EVERY: usize = 1 << 20;

/// Writes the children of `pos` to `out` and returns how many (0 when the game
/// is over). Kept out of line so the move list does not sit in every frame of
/// the recursion.
#[inline(never)]
fn children(pos: &Position, out: &mut [Position; MAX_CHILDREN]) -> usize {
    let mut list = MoveList::new();
    movegen::generate::<Mini>(pos, &mut list);
    debug_assert!(list.len() <= MAX_CHILDREN, "{pos}: too many moves");
    let n = list.len().min(MAX_CHILDREN);
    for (slot, &m) in out.iter_mut().zip(list.iter()) {
        let mut c = *pos;
        c.apply::<Mini, false>(m);
        *slot = c;
    }
    n
}

fn terminal_value(pos: &Position) -> GameValue {
    let us = pos.turn();
    GameValue::finished(pos.pieces(us).count(), pos.pieces(!us).count())
}

/// Memoised negamax over the game DAG; `memo` receives every new value,
/// `base` (read-only) is consulted first.
pub(super) struct Search<'a> {
    pub(super) memo: &'a mut Table,
    pub(super) base: Option<&'a Layered>,
    pub(super) progress: Option<&'a mut dyn FnMut(usize)>,
    pub(super) next_report: usize,
}

impl Search<'_> {
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        if let Some(b) = self.base {
            b.prefetch(key);
        }
        self.memo.prefetch(key);
    }

    #[inline(always)]
    fn known(&self, key: u64) -> Option<GameValue> {
        match self.base.and_then(|b| b.get(key)) {
            Some(v) => Some(v),
            None => self.memo.get(key),
        }
    }

    pub(super) fn value(&mut self, pos: &Position) -> GameValue {
        let key = key_of(pos);
        match self.known(key) {
            Some(v) => v,
            None => self.solve_new(pos, key),
        }
    }

    /// Solves `pos`, whose value (key `key`) is not known yet.
    fn solve_new(&mut self, pos: &Position, key: u64) -> GameValue {
        let mut kids = [*pos; MAX_CHILDREN];
        let n = children(pos, &mut kids);
        let v = if n == 0 {
            terminal_value(pos)
        } else {
            // Prefetch every child's table slot first, so the reads overlap.
            let mut keys = [0u64; MAX_CHILDREN];
            for i in 0..n {
                keys[i] = key_of(&kids[i]);
                self.prefetch(keys[i]);
            }
            let mut vals = [None; MAX_CHILDREN];
            for i in 0..n {
                vals[i] = self.known(keys[i]);
            }
            let mut best = GameValue::loss(0);
            for i in 0..n {
                let v = match vals[i] {
                    Some(v) => v,
                    // A sibling's subtree may have solved it since.
                    None => match self.known(keys[i]) {
                        Some(v) => v,
                        None => self.solve_new(&kids[i], keys[i]),
                    },
                };
                best = best.max(v.before_move());
            }
            best
        };
        self.memo.insert_new(key, v);
        if self.memo.len >= self.next_report {
            self.next_report += PROGRESS_EVERY;
            if let Some(f) = self.progress.as_mut() {
                f(self.memo.len);
            }
        }
        v
    }
}

pub(super) fn assert_mini(pos: &Position) {
    assert!(
        pos.variant() == Variant::Mini,
        "the solver only knows mini-checkers, not {}",
        pos.variant()
    );
}

/// Each legal move with its value for the mover, best first.
pub(super) fn move_values_with(
    pos: &Position,
    mut value: impl FnMut(&Position) -> GameValue,
) -> Vec<(Move, GameValue)> {
    assert_mini(pos);
    let mut out: Vec<(Move, GameValue)> = pos
        .legal_moves()
        .iter()
        .map(|&m| (m, value(&pos.after(m)).before_move()))
        .collect();
    out.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
    out
}

/// A mini-checkers solver that remembers the value of every position it has
/// solved, so later questions about them are table lookups.
///
/// All methods panic if given a position of another variant.
#[derive(Clone)]
pub struct MiniSolver {
    pub(super) table: Table,
}

impl Default for MiniSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MiniSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniSolver")
            .field("positions", &self.table.len)
            .finish()
    }
}

impl MiniSolver {
    /// A solver that knows nothing yet.
    #[must_use]
    pub fn new() -> MiniSolver {
        MiniSolver {
            table: Table::new(),
        }
    }

    /// A solver with room for `positions` values before its table grows
    /// ([`START_POSITIONS`] for the whole game).
    #[must_use]
    pub fn with_capacity(positions: usize) -> MiniSolver {
        MiniSolver {
            table: Table::with_capacity(positions),
        }
    }

    /// The exact value of `pos` for its side to move.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn value(&mut self, pos: &Position) -> GameValue {
        self.value_with_progress(pos, &mut |_| {})
    }

    /// [`MiniSolver::value`], calling `progress` with the number of positions
    /// known so far every million or so new positions.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn value_with_progress(
        &mut self,
        pos: &Position,
        progress: &mut dyn FnMut(usize),
    ) -> GameValue {
        assert_mini(pos);
        let next_report = (self.table.len / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
        Search {
            memo: &mut self.table,
            base: None,
            progress: Some(progress),
            next_report,
        }
        .value(pos)
    }

    /// Every legal move of `pos` with its value for the side to move (the value
    /// of the position it leads to, seen from the mover), best first. Empty
    /// when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn move_values(&mut self, pos: &Position) -> Vec<(Move, GameValue)> {
        move_values_with(pos, |c| self.value(c))
    }

    /// A best move of `pos` (the first of [`MiniSolver::move_values`]), or
    /// `None` when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn best_move(&mut self, pos: &Position) -> Option<Move> {
        self.move_values(pos).first().map(|&(m, _)| m)
    }

    /// The number of positions whose value is known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.table.len
    }

    /// Whether no position has been solved yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.table.len == 0
    }

    /// Bytes of memory the value table occupies.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }
}
