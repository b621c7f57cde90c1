//! [`Network`]: the network's integer weights (the first layer's rows and
//! bias, the dense layers of every bucket) and the evaluation of a position
//! through them.

use super::accumulator::Accumulator;
use super::dense::{Dense, MAX_BUCKETS, MAX_DENSE};
use super::features::{Boards, INPUTS, MAX_INPUT_BUCKETS};
use super::kernels::{Aligned, DenseRows, Lanes, PairRows};
use super::transformer::{FeatureRows, MAX_HIDDEN};
use super::{MAX_SCORE, QA, QB};
use crate::board::{Color, Position};

/// A network's integer weights (the file's layout: [`super::file`]).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// Which training round made it.
    pub generation: u32,
    /// Accumulator width per perspective.
    pub hidden: usize,
    /// Sets of first-layer rows, chosen by who has kings.
    pub input_buckets: usize,
    /// First dense layer width.
    pub l1: usize,
    /// Second dense layer width.
    pub l2: usize,
    /// Sets of dense layers, chosen by the number of pieces.
    pub buckets: usize,
    /// Centi-men per unit of output.
    pub scale: u32,
    /// First layer, `input_buckets * INPUTS` rows of `hidden`.
    pub ft_w: FeatureRows,
    /// First layer bias.
    pub ft_b: Vec<i16>,
    /// First dense layers, `buckets * l1` rows of `2 hidden`.
    pub l1_w: DenseRows,
    /// First dense layers' biases, `buckets * l1`.
    pub l1_b: Vec<i32>,
    /// Second dense layers, `buckets * l2` rows of `l1`.
    pub l2_w: PairRows,
    /// Second dense layers' biases, `buckets * l2`.
    pub l2_b: Vec<i32>,
    /// Output weights, `buckets` rows of `l2`.
    pub out_w: Aligned,
    /// Output biases, `buckets`.
    pub out_b: Vec<i32>,
}

#[inline(always)]
fn evaluate_body(net: &Network, pos: &Position) -> i32 {
    let mut acc = Accumulator::new(net.hidden);
    acc.refresh(&net.ft_w, &net.ft_b, Boards::of(pos));
    net.forward(
        &acc,
        pos.turn(),
        &mut vec![Lanes::default(); net.hidden / 8],
    )
}

crate::avx2_twin! {
    fn evaluate_fresh(net: &Network, pos: &Position) -> i32 = evaluate_body;
}

impl Network {
    /// Whether this build evaluates a network of these widths: an accumulator
    /// a multiple of 16 up to [`MAX_HIDDEN`], 1 to [`MAX_INPUT_BUCKETS`] input
    /// buckets, dense layers 1 to [`MAX_DENSE`] wide, 1 to [`MAX_BUCKETS`]
    /// buckets.
    #[must_use]
    pub fn evaluable(
        hidden: usize,
        input_buckets: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
    ) -> bool {
        hidden > 0
            && (1..=MAX_INPUT_BUCKETS).contains(&input_buckets)
            && hidden.is_multiple_of(16)
            && hidden <= MAX_HIDDEN
            && (1..=MAX_DENSE).contains(&l1)
            && (1..=MAX_DENSE).contains(&l2)
            && (1..=MAX_BUCKETS).contains(&buckets)
    }

    /// `128x2xH-L1-L2-1`, the dense layers written `(L1-L2-1)xB` when there
    /// are `B` buckets of them, the first layer `128x2xHxI` when there are
    /// `I` input buckets.
    #[must_use]
    pub fn architecture(&self) -> String {
        let dense = if self.buckets == 1 {
            format!("{}-{}-1", self.l1, self.l2)
        } else {
            format!("({}-{}-1)x{}", self.l1, self.l2, self.buckets)
        };
        let first = if self.input_buckets == 1 {
            format!("{INPUTS}x2x{}", self.hidden)
        } else {
            format!("{INPUTS}x2x{}x{}", self.hidden, self.input_buckets)
        };
        format!("{first}-{dense}")
    }

    /// The dense layers, every bucket's.
    #[inline(always)]
    #[must_use]
    pub fn dense(&self) -> Dense<'_> {
        Dense {
            l1: self.l1,
            l2: self.l2,
            buckets: self.buckets,
            l1_w: &self.l1_w,
            l1_b: &self.l1_b,
            l2_w: &self.l2_w,
            l2_b: &self.l2_b,
            out_w: &self.out_w,
            out_b: &self.out_b,
        }
    }

    /// The score of the output sum, in centi-men.
    #[inline]
    #[must_use]
    pub fn score_of(&self, out: i32) -> i32 {
        let cm = (i64::from(out) * i64::from(self.scale)).div_euclid(i64::from(QA * QB));
        cm.clamp(-i64::from(MAX_SCORE), i64::from(MAX_SCORE)) as i32
    }

    /// The score of an accumulator for the side to move `stm`; `input` is
    /// scratch space of at least `2 hidden / 16` lanes.
    #[inline(always)]
    pub(super) fn forward(&self, acc: &Accumulator, stm: Color, input: &mut [Lanes]) -> i32 {
        self.score_of(self.dense().output(acc, stm, input))
    }

    /// The evaluation of an English `pos` for its side to move, in centi-men
    /// (the first layer computed afresh; the search uses [`super::EvalCache`]).
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        evaluate_fresh(self, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Variant;

    #[test]
    fn a_position_and_its_mirror_score_alike() {
        let r = |b: crate::board::Bitboard| crate::board::Bitboard(b.0.reverse_bits());
        let nets = [
            Network::random(3, 32, 8, 8, 2),
            Network::random_with_inputs(3, 32, 3, 8, 8, 2),
        ];
        for (net, fen) in nets.iter().flat_map(|n| {
            [
                (n, "B:W21-32:B1-12"),
                (
                    n,
                    "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9",
                ),
                (n, "B:WK14,K22,27:B3,K9,12"),
                (n, "W:WK14,22,27:B3,9,12"),
            ]
        }) {
            let p = Position::from_fen(Variant::English, fen).unwrap();
            let m = Position::from_parts(
                Variant::English,
                r(p.pieces(Color::White)),
                r(p.pieces(Color::Black)),
                r(p.kings()),
                !p.turn(),
            );
            assert_eq!(net.evaluate(&p), net.evaluate(&m), "{fen}");
        }
    }
}
