//! The network's dense layers: from the first layer's sums, clipped and put
//! side to move first, through two dense layers (`i16` weights, `i32` sums,
//! clipped) to one output, in the engine's integers. A network holds up to
//! [`MAX_BUCKETS`] sets of them, one chosen per position by its number of
//! pieces ([`bucket`]). The first dense layer runs on bytes (`u8` inputs,
//! `i8` weights) where its weights fit, with the same sums.

use super::accumulator::Accumulator;
use super::features::MAX_PIECES;
use super::kernels::{self, DenseRows, Lanes, PairRows};
use crate::board::Color;

/// The widest dense layer this build evaluates.
pub const MAX_DENSE: usize = 64;
/// Most sets of dense layers (buckets) a network may have.
pub const MAX_BUCKETS: usize = 8;

/// Which of `buckets` sets of dense layers evaluates a position of `pieces`
/// pieces: the range 1..=[`MAX_PIECES`] cut into `buckets` equal parts,
/// fewest pieces first.
#[inline]
#[must_use]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    (pieces.saturating_sub(1) as usize * buckets / MAX_PIECES).min(buckets.saturating_sub(1))
}

/// A network's dense layers, every bucket's, borrowed from it.
#[derive(Clone, Copy, Debug)]
pub struct Dense<'a> {
    /// First dense layer width.
    pub l1: usize,
    /// Second dense layer width.
    pub l2: usize,
    /// Sets of dense layers.
    pub buckets: usize,
    /// First dense layers, `buckets * l1` rows of `2 hidden`.
    pub l1_w: &'a DenseRows,
    /// First dense layers' biases, `buckets * l1`.
    pub l1_b: &'a [i32],
    /// Second dense layers, `buckets * l2` rows of `l1`.
    pub l2_w: &'a PairRows,
    /// Second dense layers' biases, `buckets * l2`.
    pub l2_b: &'a [i32],
    /// Output weights, `buckets` rows of `l2`.
    pub out_w: &'a [i16],
    /// Output biases, `buckets`.
    pub out_b: &'a [i32],
}

impl Dense<'_> {
    /// The output's raw sum for the first layer's sums `acc`, the side to
    /// move `stm` first, through the bucket of `acc`'s piece count; `input`
    /// is scratch space of at least `2 hidden / 16` lanes.
    #[inline(always)]
    pub fn output(&self, acc: &Accumulator, stm: Color, input: &mut [Lanes]) -> i32 {
        let l = acc.hidden() / 16;
        let b = bucket(acc.boards().pieces(), self.buckets);
        let (n1, n2) = (self.l1, self.l2);
        let mut sums = [0i32; MAX_DENSE];
        let mut a1 = [0i16; MAX_DENSE];
        match self.l1_w.narrow() {
            // bytes: u8 inputs, i8 weights (the same sums)
            Some(w) if kernels::has_avx2() && l.is_multiple_of(2) && n1.is_multiple_of(4) => {
                let bytes = kernels::as_bytes_mut(input);
                kernels::clip_pack(acc.side_lanes(stm), acc.side_lanes(!stm), bytes);
                kernels::dense_bytes(
                    &bytes[..l],
                    &w[b * n1 * l..],
                    &self.l1_b[b * n1..],
                    &mut sums[..n1],
                );
            }
            _ => {
                kernels::clip_lanes(acc.side_lanes(stm), &mut input[..l]);
                kernels::clip_lanes(acc.side_lanes(!stm), &mut input[l..2 * l]);
                kernels::dense_lanes(
                    &input[..2 * l],
                    &self.l1_w.lanes()[b * n1 * 2 * l..],
                    &self.l1_b[b * n1..],
                    &mut sums[..n1],
                );
            }
        }
        kernels::activate(&sums[..n1], &mut a1[..n1]);
        kernels::tail(
            &a1[..n1],
            self.l2_w,
            b * n2,
            &self.l2_b[b * n2..(b + 1) * n2],
            &self.out_w[b * n2..(b + 1) * n2],
            self.out_b[b],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cut_the_piece_counts_into_equal_parts() {
        assert_eq!(bucket(24, 1), 0);
        assert_eq!(bucket(2, 1), 0);
        let four: Vec<usize> = (1..=24).map(|n| bucket(n, 4)).collect();
        for (i, b) in four.iter().enumerate() {
            assert_eq!(*b, i / 6, "{} pieces", i + 1);
        }
        assert_eq!(bucket(0, 4), 0);
        assert_eq!(bucket(24, MAX_BUCKETS), MAX_BUCKETS - 1);
        assert_eq!(bucket(4, 3), 0);
        assert_eq!(bucket(9, 3), 1);
        assert_eq!(bucket(17, 3), 2);
    }
}
