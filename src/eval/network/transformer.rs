//! The feature transformer's weights, the network's first layer: a row of
//! `hidden` values per input of the feature set ([`super::features`]), one
//! set of rows per input bucket, kept also paired by piece for the
//! accumulator's updates ([`super::accumulator`]).

use super::features::{input_index, INPUTS};
use super::kernels::{Aligned, Lanes};
use crate::board::Color;

/// The widest first layer (accumulator) this build evaluates.
pub const MAX_HIDDEN: usize = 512;

/// The first layer's weights: for each input bucket, a row of `hidden`
/// values per input ([`INPUTS`] rows a bucket, as in the file), and the same
/// rows paired by piece, so that one pass over the pieces that moved updates
/// both perspectives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureRows {
    by_input: Aligned,
    by_piece: Aligned,
    /// Lanes of one bucket's paired rows.
    bucket_lanes: usize,
    /// Input buckets.
    buckets: usize,
}

impl FeatureRows {
    /// `v` holds `input_buckets` sets of [`INPUTS`] rows of `hidden` values,
    /// `hidden` a multiple of 16.
    #[must_use]
    pub fn new(v: Vec<i16>, input_buckets: usize) -> FeatureRows {
        let input_buckets = input_buckets.max(1);
        let h = v.len() / (INPUTS * input_buckets);
        let mut paired = Vec::with_capacity(2 * v.len());
        for rows in v.chunks_exact(INPUTS * h) {
            for kind in 0..4 {
                for bit in 0..32 {
                    for perspective in Color::ALL {
                        let f = input_index(perspective, kind, bit);
                        paired.extend_from_slice(&rows[f * h..(f + 1) * h]);
                    }
                }
            }
        }
        FeatureRows {
            by_input: v.into(),
            by_piece: paired.into(),
            bucket_lanes: 2 * INPUTS * h / 16,
            buckets: input_buckets,
        }
    }

    /// Sets of rows, chosen by who has kings ([`super::input_bucket`]).
    #[inline(always)]
    #[must_use]
    pub fn input_buckets(&self) -> usize {
        self.buckets
    }

    /// For each piece, at its input index in Black's view: `2 hidden`
    /// values of input bucket `bucket`, its input's row in Black's view, then
    /// in White's (the accumulator's layout), as whole lanes.
    #[inline(always)]
    #[must_use]
    pub fn by_piece(&self, bucket: usize) -> &[Lanes] {
        let n = self.bucket_lanes;
        &self.by_piece.lanes()[bucket * n..(bucket + 1) * n]
    }
}

impl From<Vec<i16>> for FeatureRows {
    /// `v` holds [`INPUTS`] rows of `hidden` values (one input bucket).
    fn from(v: Vec<i16>) -> FeatureRows {
        FeatureRows::new(v, 1)
    }
}

impl std::ops::Deref for FeatureRows {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        &self.by_input
    }
}
