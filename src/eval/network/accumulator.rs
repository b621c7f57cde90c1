//! The network's first layer's sums, per perspective, and their
//! incremental update.
//!
//! An [`Accumulator`] remembers the piece boards it was computed for. Moving
//! it to another position subtracts the rows of the pieces that left and adds
//! the rows of the pieces that arrived (a move, a capture of any length, a
//! crowning, an undo, or any two positions at all), or computes it afresh
//! when that is fewer rows. An [`EvalCache`](super::EvalCache) keeps one per
//! search thread, so each evaluation starts from the position evaluated
//! before it: in a search tree, usually a sibling or a cousin a few pieces
//! away.

use super::features::{for_each_member, input_bucket, Boards};
use super::kernels::{self, Aligned, Lanes};
use super::transformer::FeatureRows;
use crate::board::Color;

/// The first layer's sums for both perspectives (Black's, then White's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    boards: Boards,
    /// The input bucket whose rows the sums are made of.
    bucket: usize,
    values: Aligned,
    hidden: usize,
}

impl Accumulator {
    /// An accumulator of `hidden` sums per perspective, not yet computed
    /// (it stands for the empty board with zero sums).
    #[must_use]
    pub fn new(hidden: usize) -> Accumulator {
        Accumulator {
            boards: Boards::default(),
            bucket: 0,
            values: vec![0; 2 * hidden].into(),
            hidden,
        }
    }

    /// The piece boards it was computed for.
    #[must_use]
    pub fn boards(&self) -> Boards {
        self.boards
    }

    /// Sums per perspective.
    #[inline(always)]
    #[must_use]
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The sums of `perspective`.
    #[inline(always)]
    #[must_use]
    pub fn side(&self, perspective: Color) -> &[i16] {
        let h = self.hidden;
        match perspective {
            Color::Black => &self.values[..h],
            Color::White => &self.values[h..],
        }
    }

    /// The sums of `perspective` as lanes.
    #[inline(always)]
    #[must_use]
    pub fn side_lanes(&self, perspective: Color) -> &[Lanes] {
        let l = self.hidden / 16;
        match perspective {
            Color::Black => &self.values.lanes()[..l],
            Color::White => &self.values.lanes()[l..2 * l],
        }
    }

    /// Computes the sums of `boards` afresh from the first layer's `rows`
    /// and `bias` (`hidden` values).
    #[inline(always)]
    pub fn refresh(&mut self, rows: &FeatureRows, bias: &[i16], boards: Boards) {
        let h = self.hidden;
        self.values[..h].copy_from_slice(bias);
        self.values[h..].copy_from_slice(bias);
        let mut came = [0usize; 32];
        let n = indices(boards.black_inputs(), &mut came);
        let bucket = input_bucket(&boards, rows.input_buckets());
        kernels::move_lanes(
            self.values.lanes_mut(),
            rows.by_piece(bucket),
            &[],
            &came[..n],
        );
        self.boards = boards;
        self.bucket = bucket;
    }

    /// Moves the sums to `boards`: by the pieces that differ, or afresh when
    /// that is less work or the input bucket changes (`rows` and `bias` as
    /// in [`Accumulator::refresh`], the ones it was computed with).
    #[inline(always)]
    pub fn update(&mut self, rows: &FeatureRows, bias: &[i16], boards: Boards) {
        let (old, new) = (self.boards.black_inputs(), boards.black_inputs());
        let (left, arrived) = (old & !new, new & !old);
        let changed = left.count_ones() + arrived.count_ones();
        if changed == 0 {
            return;
        }
        let buckets = rows.input_buckets();
        let rebucket = buckets > 1 && input_bucket(&boards, buckets) != self.bucket;
        if changed >= new.count_ones() || rebucket {
            self.refresh(rows, bias, boards);
            return;
        }
        // fewer rows change than there are pieces
        let (mut gone, mut came) = ([0usize; 32], [0usize; 32]);
        let ng = indices(left, &mut gone);
        let nc = indices(arrived, &mut came);
        let rows = rows.by_piece(self.bucket);
        kernels::move_lanes(self.values.lanes_mut(), rows, &gone[..ng], &came[..nc]);
        self.boards = boards;
    }
}

/// Writes the members of `set` (input indices in Black's view, the rows of
/// [`FeatureRows::by_piece`]) into `out`, lowest first; returns how many.
#[inline(always)]
fn indices(set: u128, out: &mut [usize; 32]) -> usize {
    let mut n = 0;
    for_each_member(set, |f| {
        out[n] = f;
        n += 1;
    });
    n
}
