//! `kingme train --model network`: fits the network evaluation
//! ([`crate::eval::network`]) to self-play data, and quantises it into the
//! integers the engine computes with.
//!
//! The float model is the engine's network before rounding: both
//! perspectives' first layers, clipped to 0..1, side to move first, two
//! clipped dense layers and an output `o`, read as the side to move's
//! expected result `sigmoid(o)` (so `o * K` is the score in centi-men). The
//! target and the loss are the trainers' shared objective ([`super`]: the
//! target, the cross-entropy). Adam over shuffled mini-batches, the step falling linearly
//! to a tenth; weights are kept inside the ranges that the integer network
//! can hold. Each batch is cut into a fixed number of parts whose gradients
//! are computed side by side and added in order, so a data set and a seed
//! give the same network whatever the number of threads.
//!
//! [`quantised_score`] is the integer forward pass written from the file
//! format's definition alone; the test suite holds the engine's incremental,
//! vectorised evaluation to it.

mod model;
mod quantise;

pub use quantise::{quantised_score, CENTI_MEN_PER_UNIT};

use crate::datagen::record::Record;
use crate::eval::network::{bucket, Network, MAX_PIECES};
use crate::rng::SplitMix64;
use crate::train::{fit_scale, EpochReport};
use model::{clip, initial, mean_loss, part_gradient, sample, Layout, Sample};
use quantise::{float_of, quantise};
use rayon::prelude::*;

/// Parts each batch is cut into (fixed, for determinism).
const PARTS: usize = 8;

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
    /// Sets of first-layer rows, chosen by who has kings (1 to
    /// [`crate::eval::network::MAX_INPUT_BUCKETS`]; see
    /// [`crate::eval::network::input_bucket`]).
    pub input_buckets: usize,
    /// First dense layer width.
    pub l1: usize,
    /// Second dense layer width.
    pub l2: usize,
    /// Sets of dense layers, chosen by the number of pieces (1 to
    /// [`crate::eval::network::MAX_BUCKETS`]).
    pub buckets: usize,
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
            input_buckets: 1,
            l1: 16,
            l2: 32,
            buckets: 1,
        }
    }
}

/// Why a network could not be trained.
#[derive(Debug, thiserror::Error)]
pub enum NetTrainError {
    /// A set of dense layers would be left (nearly) untrained: its positions
    /// are missing from the data, so it would score them at random.
    #[error(
        "bucket {bucket} of {buckets} ({lo}-{hi} pieces) has {positions} of the {total} training \
         positions (at least 1 in {SPARSE_BUCKET} is needed): its dense layers would stay \
         untrained and score such positions at random; use fewer --buckets or data that holds \
         such positions"
    )]
    SparseBucket {
        /// The bucket, 0 for the fewest pieces.
        bucket: usize,
        /// Buckets in all.
        buckets: usize,
        /// The fewest pieces of its positions.
        lo: u32,
        /// The most pieces of its positions.
        hi: u32,
        /// Its training positions.
        positions: usize,
        /// All training positions.
        total: usize,
    },
}

/// A bucket needs at least one training position in this many.
pub const SPARSE_BUCKET: usize = 1000;

/// Refuses a layout with a set of dense layers that the training positions
/// would leave (nearly) untrained.
fn check_buckets(train_set: &[Sample], buckets: usize) -> Result<(), NetTrainError> {
    if buckets < 2 {
        return Ok(());
    }
    let mut counts = vec![0usize; buckets];
    for s in train_set {
        counts[usize::from(s.bucket)] += 1;
    }
    let total = train_set.len();
    for (b, &positions) in counts.iter().enumerate() {
        if positions == 0 || positions * SPARSE_BUCKET < total {
            let pieces: Vec<u32> = (1..=MAX_PIECES as u32)
                .filter(|&p| bucket(p, buckets) == b)
                .collect();
            return Err(NetTrainError::SparseBucket {
                bucket: b,
                buckets,
                lo: pieces.first().copied().unwrap_or(0),
                hi: pieces.last().copied().unwrap_or(0),
                positions,
                total,
            });
        }
    }
    Ok(())
}

/// Trains a network on `records`, from `init` (its widths replace the
/// config's) or from random weights; `report` is called after each epoch.
/// Returns the quantised network and the `K` of the targets; from random
/// weights, refuses ([`NetTrainError::SparseBucket`]) a layout whose
/// positions are missing from the training data.
pub fn train(
    records: &[Record],
    cfg: &NetConfig,
    init: Option<&Network>,
    mut report: impl FnMut(&EpochReport),
) -> Result<(Network, f64), NetTrainError> {
    let k = cfg.scale.unwrap_or_else(|| fit_scale(records));
    let ly = match init {
        Some(n) => Layout::new(n.hidden, n.input_buckets, n.l1, n.l2, n.buckets),
        None => Layout::new(cfg.hidden, cfg.input_buckets, cfg.l1, cfg.l2, cfg.buckets),
    };
    let held = ((records.len() as f64) * cfg.holdout) as usize;
    let samples: Vec<Sample> = records
        .par_iter()
        .map(|r| sample(r, k, cfg.lambda, &ly))
        .collect();
    let (train_set, holdout) = samples.split_at(samples.len() - held);
    // from a network, a bucket the data misses keeps that network's weights
    if init.is_none() {
        check_buckets(train_set, ly.buckets)?;
    }
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
    Ok((quantise(&p, &ly, cfg.generation), k))
}

#[cfg(test)]
mod tests {
    use super::model::{forward, Scratch};
    use super::*;
    use crate::board::{Position, Variant};
    use crate::train::tests::rec;

    #[test]
    fn the_engine_scores_like_the_trainers_quantised_forward_pass() {
        // first dense weights beyond i8 (the i16 kernels), and within (the byte kernels)
        let wide = Network::random(5, 48, 16, 8, 4);
        assert!(wide.l1_w.narrow().is_none());
        let random = Network::random(6, 64, 16, 8, 2);
        let narrow = Network {
            l1_w: random
                .l1_w
                .iter()
                .map(|&w| w / 3)
                .collect::<Vec<i16>>()
                .into(),
            ..random
        };
        assert!(narrow.l1_w.narrow().is_some());
        // input buckets: the rows of who has kings
        let kings = Network::random_with_inputs(7, 32, 3, 8, 8, 2);
        for net in [wide, narrow, kings] {
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
    }

    /// 4,000 records, `a` and `b` in turn.
    fn alternating(a: Record, b: Record) -> Vec<Record> {
        (0..4000).map(|i| if i % 2 == 0 { a } else { b }).collect()
    }

    /// A tiny network fitted quickly to results alone (`K` 100).
    fn tiny(input_buckets: usize) -> NetConfig {
        NetConfig {
            epochs: 6,
            batch: 64,
            lr: 0.01,
            scale: Some(100.0),
            lambda: 1.0,
            holdout: 0.0,
            hidden: 16,
            input_buckets,
            l1: 8,
            l2: 8,
            ..Default::default()
        }
    }

    #[test]
    fn training_learns_a_won_position_and_quantises_faithfully() {
        let win = rec("B:W21-32:B1-11,14", 2, 0);
        let loss = rec("B:W21-32:B1-11,15", 0, 0);
        let recs = alternating(win, loss);
        let cfg = tiny(1);
        let mut reports = Vec::new();
        let (net, k) = train(&recs, &cfg, None, |r| reports.push(*r)).unwrap();
        assert_eq!((k, net.scale), (100.0, CENTI_MEN_PER_UNIT as u32));
        assert!(
            reports[5].train_loss < reports[0].train_loss * 0.5,
            "{reports:?}"
        );
        let (w, l) = (net.evaluate(&win.position), net.evaluate(&loss.position));
        assert!(w > 150 && l < -150, "{w} {l}");
        // the first dense layer is trained within i8, for the engine's byte kernels
        assert!(net.l1_w.narrow().is_some());
        // the file round trip keeps every weight
        let back = Network::from_bytes(&net.to_bytes(), "t").unwrap();
        assert_eq!(back, net);
        // the float model and the integer one agree to a few centi-men
        let ly = Layout::new(16, 1, 8, 8, 1);
        let p = float_of(&net, &ly);
        let mut s = Scratch::new(&ly);
        let smp = sample(&win, k, 1.0, &ly);
        let f = f64::from(forward(&p, &ly, &smp.us, &smp.them, &mut s)) * CENTI_MEN_PER_UNIT;
        assert!((f - f64::from(w)).abs() < 8.0, "float {f} integer {w}");
    }

    #[test]
    fn input_buckets_train_factorised_and_quantise_faithfully() {
        // the same men, with and without a king each: different buckets
        let plain = rec("B:W21-32:B1-11,14", 2, 0);
        let kings = rec("B:WK22,21,23-32:BK14,1-11", 0, 0);
        let (net, k) = train(&alternating(plain, kings), &tiny(3), None, |_| {}).unwrap();
        assert_eq!(net.input_buckets, 3);
        let (p, q) = (net.evaluate(&plain.position), net.evaluate(&kings.position));
        assert!(p > 100 && q < -100, "{p} {q}");
        let back = Network::from_bytes(&net.to_bytes(), "t").unwrap();
        assert_eq!(back, net);
        // the float model (the shared rows plus each bucket's own) and the
        // integer network (their sums) agree to a few centi-men
        let ly = Layout::new(16, 3, 8, 8, 1);
        let f = float_of(&net, &ly);
        let mut s = Scratch::new(&ly);
        for r in [plain, kings] {
            let smp = sample(&r, k, 1.0, &ly);
            let o = f64::from(forward(&f, &ly, &smp.us, &smp.them, &mut s)) * CENTI_MEN_PER_UNIT;
            let w = net.evaluate(&r.position);
            assert!((o - f64::from(w)).abs() < 8.0, "float {o} integer {w}");
        }
    }

    #[test]
    fn a_bucket_the_data_leaves_untrained_is_refused() {
        // every position has 24 pieces: of four buckets, the first (1-6
        // pieces) would keep its random weights
        let full = rec("B:W21-32:B1-12", 1, 0);
        let many = rec("B:W21-32:B1-11,14", 2, 0);
        let recs = alternating(full, many);
        let four = NetConfig {
            buckets: 4,
            ..tiny(1)
        };
        let e = train(&recs, &four, None, |_| panic!("no epoch may run")).unwrap_err();
        let NetTrainError::SparseBucket {
            bucket,
            lo,
            hi,
            positions,
            total,
            ..
        } = &e;
        assert_eq!((*bucket, *lo, *hi, *positions, *total), (0, 1, 6, 0, 4000));
        assert!(e.to_string().contains("(1-6 pieces)"), "{e}");
        // from a network of that layout the empty bucket keeps its weights
        let start = Network::random(3, 16, 8, 8, 4);
        let (net, _) = train(&recs, &four, Some(&start), |_| {}).unwrap();
        assert_eq!(net.buckets, 4);
        assert_eq!(net.out_b[0], start.out_b[0], "bucket 0 untouched");
        // one position in a thousand is enough; fewer is not
        let few = rec("B:W21,22:B1,2", 1, 0);
        let mut recs: Vec<Record> = alternating(full, many);
        recs.extend(std::iter::repeat_n(few, 5));
        let two = NetConfig {
            buckets: 2,
            epochs: 1,
            ..tiny(1)
        };
        assert!(train(&recs, &two, None, |_| {}).is_ok());
        recs.truncate(4001);
        assert!(matches!(
            train(&recs, &two, None, |_| {}),
            Err(NetTrainError::SparseBucket {
                bucket: 0,
                positions: 1,
                ..
            })
        ));
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
        let a = train(&recs, &cfg, None, |_| {}).unwrap().0;
        let b = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| train(&recs, &cfg, None, |_| {}).unwrap().0);
        assert_eq!(a, b);
    }
}
