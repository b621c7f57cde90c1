//! The float model that `kingme train --model network` fits: the engine's
//! network before rounding, its forward and backward passes, the initial
//! weights and the ranges the integer network can hold.

use crate::board::Color;
use crate::datagen::record::Record;
use crate::eval::network::{bucket, for_each_input, input_bucket, Boards, INPUTS};
use crate::rng::SplitMix64;
use crate::train::{cross_entropy, sigmoid, target};
use rayon::prelude::*;

/// First-layer weights stay within this (the accumulator of 24 pieces fits `i16`).
const FT_CLIP: f32 = 8.0;
/// First-layer biases stay within this.
const FT_BIAS_CLIP: f32 = 32.0;
/// Dense weights stay within this (`i16` at [`crate::eval::network::QB`]).
const DENSE_CLIP: f32 = 127.0;
/// The first dense layer's weights stay within this: `i8` at
/// [`crate::eval::network::QB`], so that the engine takes its byte kernels.
const L1_CLIP: f32 = 127.0 / crate::eval::network::QB as f32;

/// Where each layer lives in the flat parameter vector: the first layer,
/// then each dense layer's weights and biases for every bucket in turn (the
/// file's order).
///
/// With input buckets the first layer is trained factorised: [`INPUTS`]
/// rows shared by every bucket, then each bucket's own rows; a bucket's
/// row in the file is the sum of its own and the shared one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) h: usize,
    pub(super) input_buckets: usize,
    pub(super) l1: usize,
    pub(super) l2: usize,
    pub(super) buckets: usize,
    pub(super) ft_w: usize,
    pub(super) ft_b: usize,
    pub(super) l1_w: usize,
    pub(super) l1_b: usize,
    pub(super) l2_w: usize,
    pub(super) l2_b: usize,
    pub(super) out_w: usize,
    pub(super) out_b: usize,
    pub(super) len: usize,
}

impl Layout {
    pub(super) fn new(
        h: usize,
        input_buckets: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
    ) -> Layout {
        let ft_w = 0;
        let ft_b = ft_w + Self::feature_rows(input_buckets) * h;
        let l1_w = ft_b + h;
        let l1_b = l1_w + buckets * l1 * 2 * h;
        let l2_w = l1_b + buckets * l1;
        let l2_b = l2_w + buckets * l2 * l1;
        let out_w = l2_b + buckets * l2;
        let out_b = out_w + buckets * l2;
        Layout {
            h,
            input_buckets,
            l1,
            l2,
            buckets,
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            l2_w,
            l2_b,
            out_w,
            out_b,
            len: out_b + buckets,
        }
    }

    /// Rows of the float first layer: the file's rows, plus the shared
    /// ones when there are input buckets.
    pub(super) fn feature_rows(input_buckets: usize) -> usize {
        if input_buckets > 1 {
            (1 + input_buckets) * INPUTS
        } else {
            INPUTS
        }
    }

    /// The layout of bucket `b`'s dense layers: offsets of its own weights
    /// and biases (the first-layer offsets unchanged).
    #[inline(always)]
    fn bucket(&self, b: usize) -> Layout {
        Layout {
            l1_w: self.l1_w + b * self.l1 * 2 * self.h,
            l1_b: self.l1_b + b * self.l1,
            l2_w: self.l2_w + b * self.l2 * self.l1,
            l2_b: self.l2_b + b * self.l2,
            out_w: self.out_w + b * self.l2,
            out_b: self.out_b + b,
            ..*self
        }
    }
}

/// A training position: its inputs from the side to move's and the other
/// side's view, and its target.
pub(super) struct Sample {
    pub(super) us: Vec<u16>,
    pub(super) them: Vec<u16>,
    pub(super) bucket: u8,
    pub(super) target: f32,
}

pub(super) fn sample(r: &Record, k: f64, lambda: f64, ly: &Layout) -> Sample {
    let b = Boards::of(&r.position);
    let stm = r.position.turn();
    // with input buckets: each piece's shared row, and its bucket's own row
    let own = (ly.input_buckets > 1).then(|| (1 + input_bucket(&b, ly.input_buckets)) * INPUTS);
    let inputs = |c: Color| {
        let mut v = Vec::with_capacity(48);
        for_each_input(&b, c, |f| {
            v.push(f as u16);
            if let Some(at) = own {
                v.push((at + f) as u16);
            }
        });
        v
    };
    Sample {
        us: inputs(stm),
        them: inputs(!stm),
        bucket: bucket(b.pieces(), ly.buckets) as u8,
        target: target(r, k, lambda) as f32,
    }
}

/// Scratch space of one forward and backward pass.
pub(super) struct Scratch {
    acc: Vec<f32>,
    x: Vec<f32>,
    z1: Vec<f32>,
    h1: Vec<f32>,
    z2: Vec<f32>,
    h2: Vec<f32>,
    g1: Vec<f32>,
    g2: Vec<f32>,
    gx: Vec<f32>,
}

impl Scratch {
    pub(super) fn new(ly: &Layout) -> Scratch {
        Scratch {
            acc: vec![0.0; 2 * ly.h],
            x: vec![0.0; 2 * ly.h],
            z1: vec![0.0; ly.l1],
            h1: vec![0.0; ly.l1],
            z2: vec![0.0; ly.l2],
            h2: vec![0.0; ly.l2],
            g1: vec![0.0; ly.l1],
            g2: vec![0.0; ly.l2],
            gx: vec![0.0; 2 * ly.h],
        }
    }
}

#[inline(always)]
fn clip01(v: f32) -> f32 {
    v.clamp(0.0, 1.0)
}

#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // eight lanes, so the compiler vectorises the sum
    let mut s = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            s[i] += x[i] * y[i];
        }
    }
    let mut t: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    t += s.iter().sum::<f32>();
    t
}

#[inline(always)]
fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    for (v, &u) in y.iter_mut().zip(x) {
        *v += a * u;
    }
}

/// The float output of `p` for a sample's inputs; fills `s` for the backward pass.
#[inline(always)]
pub(super) fn forward(p: &[f32], ly: &Layout, us: &[u16], them: &[u16], s: &mut Scratch) -> f32 {
    let h = ly.h;
    for (side, feats) in [us, them].into_iter().enumerate() {
        let acc = &mut s.acc[side * h..(side + 1) * h];
        acc.copy_from_slice(&p[ly.ft_b..ly.ft_b + h]);
        for &f in feats {
            let row = ly.ft_w + f as usize * h;
            axpy(acc, 1.0, &p[row..row + h]);
        }
    }
    for (x, &a) in s.x.iter_mut().zip(&s.acc) {
        *x = clip01(a);
    }
    for j in 0..ly.l1 {
        let row = ly.l1_w + j * 2 * h;
        s.z1[j] = dot(&p[row..row + 2 * h], &s.x) + p[ly.l1_b + j];
        s.h1[j] = clip01(s.z1[j]);
    }
    for j in 0..ly.l2 {
        let row = ly.l2_w + j * ly.l1;
        s.z2[j] = dot(&p[row..row + ly.l1], &s.h1) + p[ly.l2_b + j];
        s.h2[j] = clip01(s.z2[j]);
    }
    dot(&p[ly.out_w..ly.out_w + ly.l2], &s.h2) + p[ly.out_b]
}

/// Adds the gradient of the loss (times `g`, its derivative by the output) to `grad`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn backward(
    p: &[f32],
    ly: &Layout,
    us: &[u16],
    them: &[u16],
    s: &mut Scratch,
    g: f32,
    grad: &mut [f32],
) {
    let h = ly.h;
    axpy(&mut grad[ly.out_w..ly.out_w + ly.l2], g, &s.h2);
    grad[ly.out_b] += g;
    for j in 0..ly.l2 {
        let live = s.z2[j] > 0.0 && s.z2[j] < 1.0;
        s.g2[j] = if live { g * p[ly.out_w + j] } else { 0.0 };
    }
    s.g1.iter_mut().for_each(|v| *v = 0.0);
    for j in 0..ly.l2 {
        let gj = s.g2[j];
        if gj == 0.0 {
            continue;
        }
        let row = ly.l2_w + j * ly.l1;
        axpy(&mut grad[row..row + ly.l1], gj, &s.h1);
        grad[ly.l2_b + j] += gj;
        axpy(&mut s.g1, gj, &p[row..row + ly.l1]);
    }
    for j in 0..ly.l1 {
        if !(s.z1[j] > 0.0 && s.z1[j] < 1.0) {
            s.g1[j] = 0.0;
        }
    }
    s.gx.iter_mut().for_each(|v| *v = 0.0);
    for j in 0..ly.l1 {
        let gj = s.g1[j];
        if gj == 0.0 {
            continue;
        }
        let row = ly.l1_w + j * 2 * h;
        axpy(&mut grad[row..row + 2 * h], gj, &s.x);
        grad[ly.l1_b + j] += gj;
        axpy(&mut s.gx, gj, &p[row..row + 2 * h]);
    }
    for (gx, &a) in s.gx.iter_mut().zip(&s.acc) {
        if !(a > 0.0 && a < 1.0) {
            *gx = 0.0;
        }
    }
    for (side, feats) in [us, them].into_iter().enumerate() {
        let gs = &s.gx[side * h..(side + 1) * h];
        axpy(&mut grad[ly.ft_b..ly.ft_b + h], 1.0, gs);
        for &f in feats {
            let row = ly.ft_w + f as usize * h;
            axpy(&mut grad[row..row + h], 1.0, gs);
        }
    }
}

/// The gradient of the summed loss over `part` into `grad`; returns the summed loss.
#[inline(always)]
fn part_gradient_body(p: &[f32], ly: &Layout, part: &[&Sample], grad: &mut [f32]) -> f64 {
    grad.iter_mut().for_each(|v| *v = 0.0);
    let mut s = Scratch::new(ly);
    let mut loss = 0.0f64;
    for smp in part {
        let bl = ly.bucket(usize::from(smp.bucket));
        let o = forward(p, &bl, &smp.us, &smp.them, &mut s);
        let pr = sigmoid(f64::from(o));
        loss += cross_entropy(pr, f64::from(smp.target));
        backward(
            p,
            &bl,
            &smp.us,
            &smp.them,
            &mut s,
            pr as f32 - smp.target,
            grad,
        );
    }
    loss
}

crate::avx2_twin! {
    pub(super) fn part_gradient(p: &[f32], ly: &Layout, part: &[&Sample], grad: &mut [f32]) -> f64 = part_gradient_body;
}

pub(super) fn mean_loss(p: &[f32], ly: &Layout, samples: &[Sample]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .par_chunks(4096)
        .map(|c| {
            let mut s = Scratch::new(ly);
            c.iter()
                .map(|smp| {
                    let bl = ly.bucket(usize::from(smp.bucket));
                    let o = forward(p, &bl, &smp.us, &smp.them, &mut s);
                    cross_entropy(sigmoid(f64::from(o)), f64::from(smp.target))
                })
                .sum::<f64>()
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum();
    total / samples.len() as f64
}

/// Pseudo-random uniform in `[-a, a]`.
fn uniform(rng: &mut SplitMix64, a: f32) -> f32 {
    let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * u - 1.0) * a
}

pub(super) fn initial(ly: &Layout, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed ^ 0x6e6e_7565);
    let mut p = vec![0.0f32; ly.len];
    // the shared rows (or the only ones) random, the buckets' own rows zero
    for v in &mut p[ly.ft_w..ly.ft_w + INPUTS * ly.h] {
        *v = uniform(&mut rng, 0.1);
    }
    for v in &mut p[ly.ft_b..ly.l1_w] {
        *v = 0.3 + uniform(&mut rng, 0.1);
    }
    let a1 = (3.0 / (2 * ly.h) as f32).sqrt();
    for v in &mut p[ly.l1_w..ly.l1_b] {
        *v = uniform(&mut rng, a1);
    }
    for v in &mut p[ly.l1_b..ly.l2_w] {
        *v = 0.1;
    }
    let a2 = (3.0 / ly.l1 as f32).sqrt();
    for v in &mut p[ly.l2_w..ly.l2_b] {
        *v = uniform(&mut rng, a2);
    }
    for v in &mut p[ly.l2_b..ly.out_w] {
        *v = 0.1;
    }
    let a3 = (3.0 / ly.l2 as f32).sqrt();
    for v in &mut p[ly.out_w..ly.out_b] {
        *v = uniform(&mut rng, a3);
    }
    p
}

pub(super) fn clip(p: &mut [f32], ly: &Layout) {
    let c = |s: &mut [f32], m: f32| s.iter_mut().for_each(|v| *v = v.clamp(-m, m));
    // a bucket's row in the file is the sum of two rows here
    let ft = if ly.input_buckets > 1 {
        FT_CLIP / 2.0
    } else {
        FT_CLIP
    };
    c(&mut p[ly.ft_w..ly.ft_b], ft);
    c(&mut p[ly.ft_b..ly.l1_w], FT_BIAS_CLIP);
    c(&mut p[ly.l1_w..ly.l1_b], L1_CLIP);
    c(&mut p[ly.l1_b..], DENSE_CLIP);
}
