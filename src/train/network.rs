//! `kingme train --model network`: fits the network evaluation
//! ([`crate::eval::network`]) to self-play data, and quantises it into the
//! integers the engine computes with.
//!
//! The float model is the engine's network before rounding: both
//! perspectives' first layers, clipped to 0..1, side to move first, two
//! clipped dense layers and an output `o`, read as the side to move's
//! expected result `sigmoid(o)` (so `o * K` is the score in centi-men). The
//! target and the loss are the pattern trainer's ([`super::target`], the
//! cross-entropy). Adam over shuffled mini-batches, the step falling linearly
//! to a tenth; weights are kept inside the ranges that the integer network
//! can hold. Each batch is cut into a fixed number of parts whose gradients
//! are computed side by side and added in order, so a data set and a seed
//! give the same network whatever the number of threads.
//!
//! [`quantised_score`] is the integer forward pass written from the file
//! format's definition alone; the test suite holds the engine's incremental,
//! vectorised evaluation to it.

use super::{cross_entropy, fit_scale, sigmoid, target, EpochReport};
use crate::board::Color;
use crate::datagen::record::Record;
use crate::eval::network::{for_each_input, Boards, Network, INPUTS, QA, QB, QB_SHIFT};
use crate::openings::SplitMix64;
use rayon::prelude::*;

/// Centi-men per unit of the network's output (a logit), written into the
/// file as its scale: the shipped pattern evaluation's `K` (generation 3), so
/// that a score means the same expected result with either evaluation and the
/// search's margins, levels and adjudication thresholds fit both. The data's
/// own `K` is used for the targets only.
pub const CENTI_MEN_PER_UNIT: f64 = 161.0;
/// Parts each batch is cut into (fixed, for determinism).
const PARTS: usize = 8;
/// First-layer weights stay within this (the accumulator of 24 pieces fits `i16`).
const FT_CLIP: f32 = 8.0;
/// First-layer biases stay within this.
const FT_BIAS_CLIP: f32 = 32.0;
/// Dense weights stay within this (`i16` at [`QB`]).
const DENSE_CLIP: f32 = 127.0;

/// How to train a network.
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// Passes over the training data.
    pub epochs: u32,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Adam step size at the start; it falls linearly to a tenth.
    pub lr: f64,
    /// Share of the game result in the target (the rest is the search score).
    pub lambda: f64,
    /// `K`: centi-men per unit of output; `None` fits it to the data.
    pub scale: Option<f64>,
    /// Share of the data held out for validation.
    pub holdout: f64,
    /// Seed of the initial weights and the shuffling.
    pub seed: u64,
    /// Generation number written into the file.
    pub generation: u32,
    /// Accumulator width per perspective (a multiple of 16).
    pub hidden: usize,
    /// First dense layer width.
    pub l1: usize,
    /// Second dense layer width.
    pub l2: usize,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            epochs: 12,
            batch: 4096,
            lr: 0.002,
            lambda: 0.5,
            scale: None,
            holdout: 0.05,
            seed: 1,
            generation: 1,
            hidden: 128,
            l1: 16,
            l2: 32,
        }
    }
}

/// Where each layer lives in the flat parameter vector.
#[derive(Clone, Copy, Debug)]
struct Layout {
    h: usize,
    l1: usize,
    l2: usize,
    ft_w: usize,
    ft_b: usize,
    l1_w: usize,
    l1_b: usize,
    l2_w: usize,
    l2_b: usize,
    out_w: usize,
    out_b: usize,
    len: usize,
}

impl Layout {
    fn new(h: usize, l1: usize, l2: usize) -> Layout {
        let ft_w = 0;
        let ft_b = ft_w + INPUTS * h;
        let l1_w = ft_b + h;
        let l1_b = l1_w + l1 * 2 * h;
        let l2_w = l1_b + l1;
        let l2_b = l2_w + l2 * l1;
        let out_w = l2_b + l2;
        let out_b = out_w + l2;
        Layout {
            h,
            l1,
            l2,
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            l2_w,
            l2_b,
            out_w,
            out_b,
            len: out_b + 1,
        }
    }
}

/// A training position: its inputs from the side to move's and the other
/// side's view, and its target.
struct Sample {
    us: Vec<u16>,
    them: Vec<u16>,
    target: f32,
}

fn sample(r: &Record, k: f64, lambda: f64) -> Sample {
    let b = Boards::of(&r.position);
    let stm = r.position.turn();
    let inputs = |c: Color| {
        let mut v = Vec::with_capacity(24);
        for_each_input(&b, c, |f| v.push(f as u16));
        v
    };
    Sample {
        us: inputs(stm),
        them: inputs(!stm),
        target: target(r, k, lambda) as f32,
    }
}

/// Scratch space of one forward and backward pass.
struct Scratch {
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
    fn new(ly: &Layout) -> Scratch {
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
fn forward(p: &[f32], ly: &Layout, us: &[u16], them: &[u16], s: &mut Scratch) -> f32 {
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
        let o = forward(p, ly, &smp.us, &smp.them, &mut s);
        let pr = sigmoid(f64::from(o));
        loss += cross_entropy(pr, f64::from(smp.target));
        backward(
            p,
            ly,
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
    fn part_gradient(p: &[f32], ly: &Layout, part: &[&Sample], grad: &mut [f32]) -> f64 = part_gradient_body;
}

fn mean_loss(p: &[f32], ly: &Layout, samples: &[Sample]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .par_chunks(4096)
        .map(|c| {
            let mut s = Scratch::new(ly);
            c.iter()
                .map(|smp| {
                    let o = forward(p, ly, &smp.us, &smp.them, &mut s);
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

fn initial(ly: &Layout, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed ^ 0x6e6e_7565);
    let mut p = vec![0.0f32; ly.len];
    for v in &mut p[ly.ft_w..ly.ft_b] {
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

fn clip(p: &mut [f32], ly: &Layout) {
    let c = |s: &mut [f32], m: f32| s.iter_mut().for_each(|v| *v = v.clamp(-m, m));
    c(&mut p[ly.ft_w..ly.ft_b], FT_CLIP);
    c(&mut p[ly.ft_b..ly.l1_w], FT_BIAS_CLIP);
    c(&mut p[ly.l1_w..], DENSE_CLIP);
}

fn float_of(net: &Network, ly: &Layout) -> Vec<f32> {
    let mut p = vec![0.0f32; ly.len];
    let (qa, qab) = (QA as f32, (QA * QB) as f32);
    let put = |p: &mut [f32], at: usize, v: &[i16], d: f32| {
        for (i, &x) in v.iter().enumerate() {
            p[at + i] = f32::from(x) / d;
        }
    };
    put(&mut p, ly.ft_w, &net.ft_w, qa);
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
    p[ly.out_b] = net.out_b as f32 / qab;
    p
}

fn quantise(p: &[f32], ly: &Layout, generation: u32) -> Network {
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
    Network {
        generation,
        hidden: ly.h,
        l1: ly.l1,
        l2: ly.l2,
        scale: CENTI_MEN_PER_UNIT as u32,
        ft_w: q16(&p[ly.ft_w..ly.ft_b], QA as f32).into(),
        ft_b: q16(&p[ly.ft_b..ly.l1_w], QA as f32),
        l1_w: q16(&p[ly.l1_w..ly.l1_b], QB as f32).into(),
        l1_b: q32(&p[ly.l1_b..ly.l2_w]),
        l2_w: q16(&p[ly.l2_w..ly.l2_b], QB as f32).into(),
        l2_b: q32(&p[ly.l2_b..ly.out_w]),
        out_w: q16(&p[ly.out_w..ly.out_b], QB as f32).into(),
        out_b: q32(&p[ly.out_b..])[0],
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
    for side in [stm, !stm] {
        let mut acc: Vec<i64> = net.ft_b.iter().map(|&v| i64::from(v)).collect();
        for_each_input(&b, side, |f| {
            for (j, a) in acc.iter_mut().enumerate() {
                *a += i64::from(net.ft_w[f * h + j]);
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
    let a1 = act(layer(&x, &net.l1_w, &net.l1_b));
    let a2 = act(layer(&a1, &net.l2_w, &net.l2_b));
    let out = layer(&a2, &net.out_w, &[net.out_b])[0];
    let cm = (out * i64::from(net.scale)).div_euclid(i64::from(QA * QB));
    cm.clamp(
        -i64::from(crate::eval::network::MAX_SCORE),
        i64::from(crate::eval::network::MAX_SCORE),
    ) as i32
}

/// Trains a network on `records`, from `init` (its widths replace the
/// config's) or from random weights; `report` is called after each epoch.
/// Returns the quantised network and the `K` of the targets.
pub fn train(
    records: &[Record],
    cfg: &NetConfig,
    init: Option<&Network>,
    mut report: impl FnMut(&EpochReport),
) -> (Network, f64) {
    let k = cfg.scale.unwrap_or_else(|| fit_scale(records));
    let ly = match init {
        Some(n) => Layout::new(n.hidden, n.l1, n.l2),
        None => Layout::new(cfg.hidden, cfg.l1, cfg.l2),
    };
    let held = ((records.len() as f64) * cfg.holdout) as usize;
    let samples: Vec<Sample> = records
        .par_iter()
        .map(|r| sample(r, k, cfg.lambda))
        .collect();
    let (train_set, holdout) = samples.split_at(samples.len() - held);
    let mut p = match init {
        Some(n) => float_of(n, &ly),
        None => initial(&ly, cfg.seed),
    };
    let mut m = vec![0.0f32; ly.len];
    let mut v = vec![0.0f32; ly.len];
    let mut grads = vec![vec![0.0f32; ly.len]; PARTS];
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let mut rng = SplitMix64(cfg.seed);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let batch = cfg.batch.max(1);
    let total_steps = (u64::from(cfg.epochs) * order.len().div_ceil(batch) as u64).max(1);
    let mut step = 0u64;
    let mut refs: Vec<&Sample> = Vec::with_capacity(batch);
    for epoch in 1..=cfg.epochs {
        rng.shuffle(&mut order);
        let mut train_loss = 0.0;
        for idx in order.chunks(batch) {
            step += 1;
            refs.clear();
            refs.extend(idx.iter().map(|&i| &train_set[i]));
            let per = refs.len().div_ceil(PARTS);
            let losses: Vec<f64> = grads
                .par_iter_mut()
                .enumerate()
                .map(|(i, g)| {
                    let lo = (i * per).min(refs.len());
                    let hi = ((i + 1) * per).min(refs.len());
                    part_gradient(&p, &ly, &refs[lo..hi], g)
                })
                .collect();
            train_loss += losses.iter().sum::<f64>();
            let inv = 1.0 / refs.len() as f32;
            let lr = cfg.lr * (1.0 - 0.9 * (step - 1) as f64 / total_steps as f64);
            let c1 = 1.0 - b1.powi(step.min(10_000) as i32);
            let c2 = 1.0 - b2.powi(step.min(100_000) as i32);
            let (lr_t, b1f, b2f) = ((lr * c2.sqrt() / c1) as f32, b1 as f32, b2 as f32);
            for i in 0..ly.len {
                let mut g = 0.0f32;
                for part in &grads {
                    g += part[i];
                }
                g *= inv;
                m[i] = b1f * m[i] + (1.0 - b1f) * g;
                v[i] = b2f * v[i] + (1.0 - b2f) * g * g;
                p[i] -= lr_t * m[i] / (v[i].sqrt() + eps as f32);
            }
            clip(&mut p, &ly);
        }
        report(&EpochReport {
            epoch,
            train_loss: train_loss / train_set.len().max(1) as f64,
            holdout_loss: mean_loss(&p, &ly, holdout),
        });
    }
    (quantise(&p, &ly, cfg.generation), k)
}

#[cfg(test)]
mod tests {
    use super::super::tests::rec;
    use super::*;
    use crate::board::{Position, Variant};

    #[test]
    fn the_engine_scores_like_the_trainers_quantised_forward_pass() {
        let net = Network::random(5, 48, 16, 8);
        let mut cache = crate::eval::EvalCache::new();
        let mut rng = SplitMix64(9);
        let mut pos = Position::startpos(Variant::English);
        let mut checked = 0;
        for _ in 0..400 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::startpos(Variant::English);
                continue;
            }
            pos = pos.after(moves[(rng.next_u64() % moves.len() as u64) as usize]);
            let want = quantised_score(&net, &pos);
            assert_eq!(net.evaluate(&pos), want, "{}", pos.to_fen());
            assert_eq!(cache.evaluate(&net, &pos), want, "{}", pos.to_fen());
            checked += 1;
        }
        assert!(checked > 300);
    }

    #[test]
    fn training_learns_a_won_position_and_quantises_faithfully() {
        let win = rec("B:W21-32:B1-11,14", 2, 0);
        let loss = rec("B:W21-32:B1-11,15", 0, 0);
        let recs: Vec<Record> = (0..4000)
            .map(|i| if i % 2 == 0 { win } else { loss })
            .collect();
        let cfg = NetConfig {
            epochs: 6,
            batch: 64,
            lr: 0.01,
            scale: Some(100.0),
            lambda: 1.0,
            holdout: 0.0,
            hidden: 16,
            l1: 8,
            l2: 8,
            ..Default::default()
        };
        let mut reports = Vec::new();
        let (net, k) = train(&recs, &cfg, None, |r| reports.push(*r));
        assert_eq!((k, net.scale), (100.0, CENTI_MEN_PER_UNIT as u32));
        assert!(
            reports[5].train_loss < reports[0].train_loss * 0.5,
            "{reports:?}"
        );
        let (w, l) = (net.evaluate(&win.position), net.evaluate(&loss.position));
        assert!(w > 150 && l < -150, "{w} {l}");
        // the file round trip keeps every weight
        let back = Network::from_bytes(&net.to_bytes(), "t").unwrap();
        assert_eq!(back, net);
        // the float model and the integer one agree to a few centi-men
        let ly = Layout::new(16, 8, 8);
        let p = float_of(&net, &ly);
        let mut s = Scratch::new(&ly);
        let smp = sample(&win, k, 1.0);
        let f = f64::from(forward(&p, &ly, &smp.us, &smp.them, &mut s)) * CENTI_MEN_PER_UNIT;
        assert!((f - f64::from(w)).abs() < 8.0, "float {f} integer {w}");
    }

    #[test]
    fn the_same_data_and_seed_give_the_same_network() {
        let recs: Vec<Record> = (0..600)
            .map(|i| {
                if i % 3 == 0 {
                    rec("B:W21-32:B1-11,14", 2, 40)
                } else {
                    rec("W:W18,22-32:B1-12", 1, -10)
                }
            })
            .collect();
        let cfg = NetConfig {
            epochs: 2,
            batch: 50,
            hidden: 16,
            l1: 8,
            l2: 8,
            ..Default::default()
        };
        let a = train(&recs, &cfg, None, |_| {}).0;
        let b = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| train(&recs, &cfg, None, |_| {}).0);
        assert_eq!(a, b);
    }
}
