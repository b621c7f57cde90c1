//! The network's forward pass: the score of a position from its first
//! layer's sums, through the dense layers, in the engine's integers.

use super::accumulator::Accumulator;
use super::file::{Network, MAX_DENSE};
use super::kernels::{self, Lanes};
use super::{Boards, MAX_SCORE, QA, QB};
use crate::board::Position;

#[inline(always)]
fn evaluate_body(net: &Network, pos: &Position) -> i32 {
    let mut acc = Accumulator::new(net.hidden);
    acc.refresh(net, Boards::of(pos));
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
    pub(super) fn forward(
        &self,
        acc: &Accumulator,
        stm: crate::board::Color,
        input: &mut [Lanes],
    ) -> i32 {
        let l = self.hidden / 16;
        let b = super::bucket(acc.boards().pieces(), self.buckets);
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
        let out = kernels::tail(
            &a1[..n1],
            &self.l2_w,
            b * n2,
            &self.l2_b[b * n2..(b + 1) * n2],
            &self.out_w[b * n2..(b + 1) * n2],
            self.out_b[b],
        );
        self.score_of(out)
    }

    /// The evaluation of an English `pos` for its side to move, in centi-men
    /// (the first layer computed afresh; the search uses [`super::EvalCache`]).
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        evaluate_fresh(self, pos)
    }
}
