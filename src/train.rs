//! `kingme train`: fits the learned evaluation's weights to self-play data.
//!
//! The model is the one [`LearnedWeights::evaluate`] computes: every feature of
//! [`features`](crate::eval::features) has a full-board and a bare-board
//! weight, mixed by the number of pieces. A score `s` in centi-men is read as
//! the side to move's expected result `sigmoid(s / K)`. The target of a
//! position mixes the game's result with the search score it was played with:
//! `lambda * result + (1 - lambda) * sigmoid(score / K)`. The loss is the
//! cross-entropy, minimised by Adam over shuffled mini-batches; only the
//! weights a batch touches are updated (their moments too), and the window and
//! king-square weights decay towards zero.
//!
//! The last part of the data (whole games, as written) is held out and its loss
//! reported each epoch, so over-fitting shows. One thread, deterministic for a
//! given data set and seed.

pub mod network;

use crate::datagen::record::{Record, SCORE_CLAMP};
use crate::eval::features::{for_each_feature, Oriented, FEATURES, PHASES, SCALARS};
use crate::eval::weights::{LearnedWeights, SCALE};
use crate::openings::SplitMix64;

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Passes over the training data.
    pub epochs: u32,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Adam step size at the start, in centi-men; it falls linearly to a tenth.
    pub lr: f64,
    /// Share of the game result in the target (the rest is the search score).
    pub lambda: f64,
    /// `K`: centi-men per unit of the logistic; `None` fits it to the data.
    pub scale: Option<f64>,
    /// Decay of the window and king-square weights per update.
    pub decay: f64,
    /// Share of the data held out for validation.
    pub holdout: f64,
    /// Seed of the shuffling.
    pub seed: u64,
    /// Generation number written into the weights file.
    pub generation: u32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 30,
            batch: 4096,
            lr: 1.0,
            lambda: 0.5,
            scale: None,
            decay: 1e-4,
            holdout: 0.05,
            seed: 1,
            generation: 1,
        }
    }
}

/// Losses after one epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// Epoch number from 1.
    pub epoch: u32,
    /// Mean cross-entropy on the training data.
    pub train_loss: f64,
    /// Mean cross-entropy on the held-out data.
    pub holdout_loss: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn cross_entropy(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// The `K` that best predicts the game results from the search scores (scores of
/// found wins left out), by golden-section search over 20..2000.
#[must_use]
pub fn fit_scale(records: &[Record]) -> f64 {
    let usable: Vec<(f64, f64)> = records
        .iter()
        .filter(|r| i32::from(r.score).abs() < SCORE_CLAMP)
        .map(|r| (f64::from(r.score), f64::from(r.result_for_mover())))
        .collect();
    let loss = |k: f64| -> f64 {
        usable
            .iter()
            .map(|&(s, t)| cross_entropy(sigmoid(s / k), t))
            .sum::<f64>()
    };
    let (mut a, mut b) = (20.0f64, 2000.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if loss(c) < loss(d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// Float weights during training: per feature, full-board and bare-board.
struct Model {
    w: Vec<[f64; 2]>,
}

impl Model {
    fn from_weights(init: &LearnedWeights) -> Model {
        Model {
            w: init
                .w
                .iter()
                .map(|&[a, b]| {
                    [
                        f64::from(a) / f64::from(SCALE),
                        f64::from(b) / f64::from(SCALE),
                    ]
                })
                .collect(),
        }
    }

    /// The score in centi-men and the full-board share.
    fn score(&self, o: &Oriented) -> (f64, f64) {
        let phase = f64::from(o.pieces().min(PHASES)) / f64::from(PHASES);
        let mut s = 0.0;
        for_each_feature(o, |i, x| {
            let [a, b] = self.w[i];
            s += f64::from(x) * (phase * a + (1.0 - phase) * b);
        });
        (s, phase)
    }

    fn to_weights(&self, generation: u32) -> LearnedWeights {
        let q = |v: f64| (v * f64::from(SCALE)).round().clamp(-32767.0, 32767.0) as i16;
        LearnedWeights {
            generation,
            w: self.w.iter().map(|&[a, b]| [q(a), q(b)]).collect(),
        }
    }
}

/// Starting weights: a man 100, a king 150, nothing else.
#[must_use]
pub fn material_start() -> LearnedWeights {
    let mut w = LearnedWeights::zero();
    let s = SCALE as i16;
    for (i, v) in [(0, 100), (1, -100), (2, 150), (3, -150)] {
        w.w[SCALARS + i] = [v * s, v * s];
    }
    w
}

/// The target of a record for the side to move.
fn target(r: &Record, k: f64, lambda: f64) -> f64 {
    let searched = sigmoid(f64::from(r.score) / k);
    lambda * f64::from(r.result_for_mover()) + (1.0 - lambda) * searched
}

/// Mean loss of `model` over `records`.
fn mean_loss(model: &Model, records: &[Record], k: f64, lambda: f64) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let total: f64 = records
        .iter()
        .map(|r| {
            let (s, _) = model.score(&Oriented::new(&r.position));
            cross_entropy(sigmoid(s / k), target(r, k, lambda))
        })
        .sum();
    total / records.len() as f64
}

/// Trains from `init` on `records`; `report` is called after each epoch.
/// Returns the weights and the `K` used.
pub fn train(
    records: &[Record],
    cfg: &TrainConfig,
    init: &LearnedWeights,
    mut report: impl FnMut(&EpochReport),
) -> (LearnedWeights, f64) {
    let k = cfg.scale.unwrap_or_else(|| fit_scale(records));
    let held = ((records.len() as f64) * cfg.holdout) as usize;
    let (train_set, holdout) = records.split_at(records.len() - held);
    let mut model = Model::from_weights(init);
    let mut m = vec![[0.0f64; 2]; FEATURES];
    let mut v = vec![[0.0f64; 2]; FEATURES];
    let mut grad = vec![[0.0f64; 2]; FEATURES];
    let mut touched_at = vec![u64::MAX; FEATURES];
    let mut touched: Vec<usize> = Vec::new();
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let mut rng = SplitMix64(cfg.seed);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let mut step = 0u64;
    let total_steps =
        (u64::from(cfg.epochs) * order.len().div_ceil(cfg.batch.max(1)) as u64).max(1);
    for epoch in 1..=cfg.epochs {
        rng.shuffle(&mut order);
        let mut train_loss = 0.0;
        for batch in order.chunks(cfg.batch.max(1)) {
            step += 1;
            touched.clear();
            let inv = 1.0 / batch.len() as f64;
            for &i in batch {
                let r = &train_set[i];
                let o = Oriented::new(&r.position);
                let (s, phase) = model.score(&o);
                let t = target(r, k, cfg.lambda);
                let p = sigmoid(s / k);
                train_loss += cross_entropy(p, t);
                let g = (p - t) / k * inv;
                for_each_feature(&o, |f, x| {
                    if touched_at[f] != step {
                        touched_at[f] = step;
                        grad[f] = [0.0, 0.0];
                        touched.push(f);
                    }
                    let gx = g * f64::from(x);
                    grad[f][0] += gx * phase;
                    grad[f][1] += gx * (1.0 - phase);
                });
            }
            let lr = cfg.lr * (1.0 - 0.9 * (step - 1) as f64 / total_steps as f64);
            let (c1, c2) = (
                1.0 - b1.powi(step.min(10_000) as i32),
                1.0 - b2.powi(step.min(100_000) as i32),
            );
            for &f in &touched {
                for ph in 0..2 {
                    let g = grad[f][ph];
                    m[f][ph] = b1 * m[f][ph] + (1.0 - b1) * g;
                    v[f][ph] = b2 * v[f][ph] + (1.0 - b2) * g * g;
                    let upd = lr * (m[f][ph] / c1) / ((v[f][ph] / c2).sqrt() + eps);
                    let w = &mut model.w[f][ph];
                    *w -= upd;
                    if f < SCALARS {
                        *w -= cfg.decay * lr * *w;
                    }
                }
            }
        }
        report(&EpochReport {
            epoch,
            train_loss: train_loss / train_set.len().max(1) as f64,
            holdout_loss: mean_loss(&model, holdout, k, cfg.lambda),
        });
    }
    (model.to_weights(cfg.generation), k)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::board::{Position, Variant};

    pub(crate) fn rec(fen: &str, result: u8, score: i16) -> Record {
        Record {
            position: Position::from_fen(Variant::English, fen).unwrap(),
            result,
            score,
        }
    }

    #[test]
    fn the_scale_fit_finds_the_logistic_that_made_the_results() {
        // results drawn so that a score s wins with probability sigmoid(s / 200)
        let mut rng = SplitMix64(3);
        let mut recs = Vec::new();
        for i in 0..4000 {
            let s = (i % 81) as i16 * 10 - 400;
            let p = sigmoid(f64::from(s) / 200.0);
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            recs.push(rec("B:W21-32:B1-12", if u < p { 2 } else { 0 }, s));
        }
        let k = fit_scale(&recs);
        assert!((150.0..260.0).contains(&k), "K = {k}");
    }

    #[test]
    fn training_learns_that_a_pattern_wins() {
        // Black to move with a man on 14 always wins, with a man on 15 always loses:
        // the window weights that tell them apart must take opposite signs
        let win = rec("B:W21-32:B1-11,14", 2, 0);
        let loss = rec("B:W21-32:B1-11,15", 0, 0);
        let recs: Vec<Record> = (0..2000)
            .map(|i| if i % 2 == 0 { win } else { loss })
            .collect();
        let cfg = TrainConfig {
            epochs: 5,
            batch: 100,
            scale: Some(100.0),
            lambda: 1.0,
            holdout: 0.0,
            ..Default::default()
        };
        let mut reports = Vec::new();
        let (w, k) = train(&recs, &cfg, &material_start(), |r| reports.push(*r));
        assert_eq!(k, 100.0);
        assert_eq!(reports.len(), 5);
        assert!(
            reports[4].train_loss < reports[0].train_loss * 0.5,
            "{reports:?}"
        );
        assert!(
            w.evaluate(&win.position) > 100,
            "{}",
            w.evaluate(&win.position)
        );
        assert!(
            w.evaluate(&loss.position) < -100,
            "{}",
            w.evaluate(&loss.position)
        );
    }
}
