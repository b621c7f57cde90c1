//! `kingme train`: fits the English evaluations to self-play data
//! (`kingme datagen`, [`crate::datagen::record`]).
//!
//! - [`patterns`]: the pattern weights ([`crate::eval::patterns`]), by
//!   logistic regression;
//! - [`network`]: the network ([`crate::eval::network`]), in floats, then
//!   quantised into the integers the engine computes with.
//!
//! Both fit the same objective, declared here: a score `s` in centi-men is
//! read as the side to move's expected result `sigmoid(s / K)`, `K` fitted
//! to the data ([`fit_scale`]) unless given; the target of a position mixes
//! the game's result with the search score it was played with, `lambda *
//! result + (1 - lambda) * sigmoid(score / K)`; the loss is the
//! cross-entropy; each epoch ends with an [`EpochReport`].

pub mod network;
pub mod patterns;

use crate::datagen::record::{Record, SCORE_CLAMP};

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

/// The logistic function.
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The cross-entropy of predicting `p` where the target is `t`.
pub(crate) fn cross_entropy(p: f64, t: f64) -> f64 {
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

/// The target of a record for the side to move.
pub(crate) fn target(r: &Record, k: f64, lambda: f64) -> f64 {
    let searched = sigmoid(f64::from(r.score) / k);
    lambda * f64::from(r.result_for_mover()) + (1.0 - lambda) * searched
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::board::{Position, Variant};
    use crate::rng::SplitMix64;

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
}
