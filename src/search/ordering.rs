//! Move ordering: the table move first, then captures (more captured pieces
//! first), killer moves, and quiet moves by the history table.

use super::node::Worker;
use crate::board::{Color, Move, MoveList};

/// Move-ordering keys (score << 8 | 255 - generation index, so ties keep generation
/// order), only the first `n` written.
pub(super) struct Keys {
    k: [std::mem::MaybeUninit<i64>; crate::board::MAX_MOVES],
}

impl Keys {
    #[inline(always)]
    pub(super) fn new() -> Keys {
        Keys {
            k: [std::mem::MaybeUninit::uninit(); crate::board::MAX_MOVES],
        }
    }
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, v: i64) {
        self.k[i] = std::mem::MaybeUninit::new(v);
    }
    /// Reads entry `i`, which must have been written by `set`.
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> i64 {
        // SAFETY: callers only read indices below the move count, all written by `order`.
        unsafe { self.k[i].assume_init() }
    }
    #[inline(always)]
    pub(super) fn swap(&mut self, i: usize, j: usize) {
        self.k.swap(i, j);
    }
}

impl Worker<'_, '_> {
    pub(super) fn order(&self, list: &MoveList, tt_idx: u8, ply: usize, side: Color) -> Keys {
        let mut keys = Keys::new();
        for (i, m) in list.iter().enumerate() {
            let k = if i == tt_idx as usize {
                1 << 30
            } else if m.is_capture() {
                (1 << 29) + m.captured().count() as i32 * 1000
            } else if self.killers[ply][0] == m.key() {
                1 << 28
            } else if self.killers[ply][1] == m.key() {
                (1 << 28) - 1
            } else if m.is_pass() {
                0
            } else {
                self.history[side as usize]
                    [(m.from().index() as usize) << 5 | m.to().index() as usize]
            };
            keys.set(i, ((k as i64) << 8) | (255 - i as i64));
        }
        keys
    }

    /// A quiet move caused a beta cut-off at `ply`: remember it as a killer
    /// and credit it in the history table.
    #[inline]
    pub(super) fn reward_cutoff(&mut self, m: Move, ply: usize, side: Color, depth: i32) {
        let k = m.key();
        if self.killers[ply][0] != k {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = k;
        }
        let h = &mut self.history[side as usize]
            [(m.from().index() as usize) << 5 | m.to().index() as usize];
        *h = (*h + depth.max(1) * depth.max(1)).min(1 << 20);
    }
}
