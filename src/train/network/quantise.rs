//! Between the float model and the engine's integers: rounding a trained
//! model into a [`Network`], reading a network back as floats, and the
//! reference integer forward pass.

use super::model::Layout;
use crate::eval::network::kernels::PairRows;
use crate::eval::network::FeatureRows;
use crate::eval::network::{
    bucket, for_each_input, input_bucket, Boards, Network, INPUTS, QA, QB, QB_SHIFT,
};

/// Centi-men per unit of the network's output (a logit), written into the
/// file as its scale: the shipped pattern evaluation's `K` (generation 3), so
/// that a score means the same expected result with either evaluation and the
/// search's margins, levels and adjudication thresholds fit both. The data's
/// own `K` is used for the targets only.
pub const CENTI_MEN_PER_UNIT: f64 = 161.0;

pub(super) fn float_of(net: &Network, ly: &Layout) -> Vec<f32> {
    let mut p = vec![0.0f32; ly.len];
    let (qa, qab) = (QA as f32, (QA * QB) as f32);
    let put = |p: &mut [f32], at: usize, v: &[i16], d: f32| {
        for (i, &x) in v.iter().enumerate() {
            p[at + i] = f32::from(x) / d;
        }
    };
    // with input buckets the file's rows are the buckets' own, the shared ones zero
    let own = if ly.input_buckets > 1 {
        INPUTS * ly.h
    } else {
        0
    };
    put(&mut p, ly.ft_w + own, &net.ft_w, qa);
    put(&mut p, ly.ft_b, &net.ft_b, qa);
    put(&mut p, ly.l1_w, &net.l1_w, QB as f32);
    put(&mut p, ly.l2_w, &net.l2_w, QB as f32);
    put(&mut p, ly.out_w, &net.out_w, QB as f32);
    for (i, &b) in net.l1_b.iter().enumerate() {
        p[ly.l1_b + i] = b as f32 / qab;
    }
    for (i, &b) in net.l2_b.iter().enumerate() {
        p[ly.l2_b + i] = b as f32 / qab;
    }
    for (i, &b) in net.out_b.iter().enumerate() {
        p[ly.out_b + i] = b as f32 / qab;
    }
    p
}

pub(super) fn quantise(p: &[f32], ly: &Layout, generation: u32) -> Network {
    let q16 = |v: &[f32], m: f32| -> Vec<i16> {
        v.iter()
            .map(|&x| (x * m).round().clamp(-32767.0, 32767.0) as i16)
            .collect()
    };
    let q32 = |v: &[f32]| -> Vec<i32> {
        v.iter()
            .map(|&x| (f64::from(x) * f64::from(QA * QB)).round() as i32)
            .collect()
    };
    // each bucket's rows: its own plus the shared ones
    let ft: Vec<f32> = if ly.input_buckets > 1 {
        let n = INPUTS * ly.h;
        let shared = &p[ly.ft_w..ly.ft_w + n];
        p[ly.ft_w + n..ly.ft_b]
            .chunks_exact(n)
            .flat_map(|own| own.iter().zip(shared).map(|(a, b)| a + b))
            .collect()
    } else {
        p[ly.ft_w..ly.ft_b].to_vec()
    };
    Network {
        generation,
        hidden: ly.h,
        input_buckets: ly.input_buckets,
        l1: ly.l1,
        l2: ly.l2,
        buckets: ly.buckets,
        scale: CENTI_MEN_PER_UNIT as u32,
        ft_w: FeatureRows::new(q16(&ft, QA as f32), ly.input_buckets),
        ft_b: q16(&p[ly.ft_b..ly.l1_w], QA as f32),
        l1_w: q16(&p[ly.l1_w..ly.l1_b], QB as f32).into(),
        l1_b: q32(&p[ly.l1_b..ly.l2_w]),
        l2_w: PairRows::new(q16(&p[ly.l2_w..ly.l2_b], QB as f32), ly.l1),
        l2_b: q32(&p[ly.l2_b..ly.out_w]),
        out_w: q16(&p[ly.out_w..ly.out_b], QB as f32).into(),
        out_b: q32(&p[ly.out_b..]),
    }
}

/// The network's score of `pos` (side to move's view, centi-men) computed
/// from the file format's definition: every sum afresh in `i64`, no cache,
/// no vectors.
#[must_use]
pub fn quantised_score(net: &Network, pos: &crate::board::Position) -> i32 {
    let h = net.hidden;
    let b = Boards::of(pos);
    let stm = pos.turn();
    let mut x = Vec::with_capacity(2 * h);
    let mut pieces = 0;
    // the rows of the input bucket of who has kings
    let rows = input_bucket(&b, net.input_buckets) * INPUTS;
    for side in [stm, !stm] {
        let mut acc: Vec<i64> = net.ft_b.iter().map(|&v| i64::from(v)).collect();
        pieces = 0;
        for_each_input(&b, side, |f| {
            pieces += 1;
            for (j, a) in acc.iter_mut().enumerate() {
                *a += i64::from(net.ft_w[(rows + f) * h + j]);
            }
        });
        x.extend(acc.iter().map(|&a| a.clamp(0, i64::from(QA))));
    }
    let layer = |input: &[i64], w: &[i16], bias: &[i32]| -> Vec<i64> {
        bias.iter()
            .enumerate()
            .map(|(j, &bj)| {
                let row = &w[j * input.len()..(j + 1) * input.len()];
                i64::from(bj)
                    + row
                        .iter()
                        .zip(input)
                        .map(|(&wi, &xi)| i64::from(wi) * xi)
                        .sum::<i64>()
            })
            .collect()
    };
    let act = |v: Vec<i64>| -> Vec<i64> {
        v.into_iter()
            .map(|s| (s >> QB_SHIFT).clamp(0, i64::from(QA)))
            .collect()
    };
    // this position's bucket: its own rows of each dense layer
    let k = bucket(pieces, net.buckets);
    let (l1, l2) = (net.l1, net.l2);
    let a1 = act(layer(
        &x,
        &net.l1_w[k * l1 * 2 * h..(k + 1) * l1 * 2 * h],
        &net.l1_b[k * l1..(k + 1) * l1],
    ));
    let a2 = act(layer(
        &a1,
        &net.l2_w[k * l2 * l1..(k + 1) * l2 * l1],
        &net.l2_b[k * l2..(k + 1) * l2],
    ));
    let out = layer(&a2, &net.out_w[k * l2..(k + 1) * l2], &net.out_b[k..=k])[0];
    let cm = (out * i64::from(net.scale)).div_euclid(i64::from(QA * QB));
    cm.clamp(
        -i64::from(crate::eval::network::MAX_SCORE),
        i64::from(crate::eval::network::MAX_SCORE),
    ) as i32
}
