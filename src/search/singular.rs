//! Singular extensions: whether the table's move at a node stands alone,
//! found by searching the node's other moves shallower below its score.

use super::node::{from_tt, Singular, Worker};
use super::tt::{Bound, Entry};
use super::WIN_BOUND;
use crate::board::{Move, Position, Rules};

/// The least depth of a tested node.
const SINGULAR_DEPTH: i32 = 8;
/// How much shallower than the node the table's entry may be.
const SINGULAR_ENTRY_SLACK: i32 = 3;
/// Centi-men a ply of depth below the table's score that the other moves must stay under.
const SINGULAR_MARGIN_PER_PLY: i32 = 2;

impl Worker<'_, '_> {
    /// Tests whether `ttm`, the move of the table's `entry` for `pos`, is
    /// singular. The test search leaves `ttm` out, keeps out of the table and
    /// clears the node's principal variation; after a stop it answers `No`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn singular_test<R: Rules>(
        &mut self,
        pos: &Position,
        entry: Entry,
        ttm: Move,
        moves: usize,
        depth: i32,
        beta: i32,
        ply: usize,
        quiet: u32,
        came_by: Option<Move>,
    ) -> Singular {
        let tts = from_tt(entry.score, ply);
        if depth < SINGULAR_DEPTH
            || moves < 2
            || entry.bound == Bound::Upper
            || entry.depth < depth - SINGULAR_ENTRY_SLACK
            || ply as i32 >= 2 * self.root_depth
            || tts.abs() >= WIN_BOUND / 2
        {
            return Singular::No;
        }
        let sbeta = tts - SINGULAR_MARGIN_PER_PLY * depth;
        self.excluded[ply] = Some(ttm);
        let s =
            self.search::<R, false>(pos, (depth - 1) / 2, sbeta - 1, sbeta, ply, quiet, came_by);
        self.excluded[ply] = None;
        self.pv_len[ply] = 0;
        if self.stopped {
            Singular::No
        } else if s < sbeta {
            Singular::Extend(ttm)
        } else if sbeta >= beta {
            Singular::FailHigh(sbeta)
        } else {
            Singular::No
        }
    }
}
