//! `kingme train` (the default model): fits the pattern weights to
//! self-play data.
//!
//! The model is the one [`PatternWeights::evaluate`] computes: every feature of
//! [`features`](crate::eval::patterns::features) has a full-board and a bare-board
//! weight, mixed by the number of pieces. The objective is the trainers' own
//! ([`super`]: the target mixing result and search score, the
//! cross-entropy), minimised by Adam over shuffled mini-batches; only the
//! weights a batch touches are updated (their moments too), and the window and
//! king-square weights decay towards zero.
//!
//! The last part of the data (whole games, as written) is held out and its loss
//! reported each epoch, so over-fitting shows. One thread, deterministic for a
//! given data set and seed.

use super::{cross_entropy, fit_scale, sigmoid, target, EpochReport};
use crate::datagen::record::Record;
use crate::eval::patterns::features::{for_each_feature, Oriented, FEATURES, PHASES, SCALARS};
use crate::eval::patterns::{PatternWeights, SCALE};
use crate::rng::SplitMix64;

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

/// Float weights during training: per feature, full-board and bare-board.
struct Model {
    w: Vec<[f64; 2]>,
}

impl Model {
    fn from_weights(init: &PatternWeights) -> Model {
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

    fn to_weights(&self, generation: u32) -> PatternWeights {
        let q = |v: f64| (v * f64::from(SCALE)).round().clamp(-32767.0, 32767.0) as i16;
        PatternWeights {
            generation,
            w: self.w.iter().map(|&[a, b]| [q(a), q(b)]).collect(),
        }
    }
}

/// Starting weights: a man 100, a king 150, nothing else.
#[must_use]
pub fn material_start() -> PatternWeights {
    let mut w = PatternWeights::zero();
    let s = SCALE as i16;
    for (i, v) in [(0, 100), (1, -100), (2, 150), (3, -150)] {
        w.w[SCALARS + i] = [v * s, v * s];
    }
    w
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
    init: &PatternWeights,
    mut report: impl FnMut(&EpochReport),
) -> (PatternWeights, f64) {
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
mod tests {
    use super::*;
    use crate::train::tests::rec;

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
