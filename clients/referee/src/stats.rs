//! Match statistics from engine A's point of view: score, Elo difference with a
//! 95% interval, likelihood of superiority, and the GSPRT log-likelihood ratio,
//! both per game (trinomial) and per pair of games on one opening with colours
//! swapped (pentanomial, as fishtest does: the two games of a pair are not
//! independent, so per-game statistics misjudge the variance).

use serde::{Deserialize, Serialize};

/// Wins, draws and losses of engine A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games A won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
}

/// Elo from a score fraction (logistic model); infinite at 0 and 1.
#[must_use]
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// The score fraction expected at an Elo difference.
#[must_use]
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
#[must_use]
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

impl Wdl {
    /// Games played.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's score fraction (a draw counts half); 0.5 with no games.
    #[must_use]
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// Per-game variance of the score.
    #[must_use]
    pub fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return 0.0;
        }
        let s = self.score();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }

    /// Elo difference and its 95% interval (normal approximation of the score).
    #[must_use]
    pub fn elo(&self) -> (f64, f64, f64) {
        elo_interval(self.score(), self.variance(), self.games())
    }

    /// Likelihood of superiority: the chance that A is stronger, from wins and losses.
    #[must_use]
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w == l {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// The GSPRT log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`), the
    /// normal approximation for trinomial results used by fishtest.
    #[must_use]
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        // All results equal: no variance to divide by. Borrow it from one
        // extra win, draw and loss, so a one-sided run (every game lost, or
        // drawn) still decides, but not after a game or two.
        let var = match self.variance() {
            v if v > 0.0 => v,
            _ => Wdl {
                wins: self.wins + 1,
                draws: self.draws + 1,
                losses: self.losses + 1,
            }
            .variance(),
        };
        gsprt_llr(self.games(), self.score(), var, elo0, elo1)
    }
}

/// Elo of a mean score and its 95% interval, from `n` samples with per-sample
/// variance `var` (normal approximation).
fn elo_interval(mean: f64, var: f64, n: u32) -> (f64, f64, f64) {
    let margin = 1.959_964 * (var / f64::from(n.max(1))).sqrt();
    (
        elo_from_score(mean),
        elo_from_score(mean - margin),
        elo_from_score(mean + margin),
    )
}

/// The GSPRT log-likelihood ratio (normal approximation) of `n` samples with
/// mean score `mean` and per-sample variance `var`.
fn gsprt_llr(n: u32, mean: f64, var: f64, elo0: f64, elo1: f64) -> f64 {
    if n == 0 || var <= 0.0 {
        return 0.0;
    }
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    f64::from(n) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
}

/// A's results over pairs of games (one opening, each colour once), by the
/// points A took from the pair: `[0, 0.5, 1, 1.5, 2]` (lost both, lost and
/// drew, two draws or a win and a loss, won and drew, won both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Adds a pair, from A's points in each game (0, 0.5 or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let k = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[k] += 1;
    }

    /// Pairs counted.
    #[must_use]
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// A's score fraction per game; 0.5 with no pairs.
    #[must_use]
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let points: f64 = (0..5).map(|k| f64::from(self.0[k]) * k as f64 / 4.0).sum();
        points / f64::from(n)
    }

    /// Variance of a pair's score fraction (its points / 2).
    #[must_use]
    pub fn variance(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        let m = self.score();
        let sum: f64 = (0..5)
            .map(|k| f64::from(self.0[k]) * (k as f64 / 4.0 - m).powi(2))
            .sum();
        sum / f64::from(n)
    }

    /// Elo difference and its 95% interval from the pairs.
    #[must_use]
    pub fn elo(&self) -> (f64, f64, f64) {
        elo_interval(self.score(), self.variance(), self.pairs())
    }

    /// The GSPRT log-likelihood ratio of H1 against H0 over the pairs (the
    /// normal approximation fishtest uses for pentanomial results).
    #[must_use]
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        // All pairs alike: borrow the variance from one extra pair of each kind.
        let var = match self.variance() {
            v if v > 0.0 => v,
            _ => Pentanomial(self.0.map(|c| c + 1)).variance(),
        };
        gsprt_llr(self.pairs(), self.score(), var, elo0, elo1)
    }
}

/// A sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative.
    pub elo1: f64,
    /// Type I error.
    pub alpha: f64,
    /// Type II error.
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// Not decided yet.
    Continue,
    /// H1 accepted: A is at least `elo1` stronger (with the test's errors).
    H1,
    /// H0 accepted: A is at most `elo0` stronger.
    H0,
}

impl Sprt {
    /// A test with alpha = beta = 0.05.
    #[must_use]
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// The lower and upper LLR bounds.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for these results, game by game.
    #[must_use]
    pub fn decide(&self, wdl: &Wdl) -> (f64, SprtDecision) {
        self.decide_llr(wdl.llr(self.elo0, self.elo1))
    }

    /// The decision for these results, pair by pair.
    #[must_use]
    pub fn decide_pairs(&self, pairs: &Pentanomial) -> (f64, SprtDecision) {
        self.decide_llr(pairs.llr(self.elo0, self.elo1))
    }

    fn decide_llr(&self, llr: f64) -> (f64, SprtDecision) {
        let (lo, hi) = self.bounds();
        let d = if llr >= hi {
            SprtDecision::H1
        } else if llr <= lo {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        };
        (llr, d)
    }
}

/// Formats an Elo value, `+inf`/`-inf` at the ends.
#[must_use]
pub fn fmt_elo(e: f64) -> String {
    if e.is_infinite() {
        if e > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        // No "-0.0": round first, then add zero to drop the sign of -0.
        format!("{:+.1}", (e * 10.0).round() / 10.0 + 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_match() {
        let w = Wdl {
            wins: 10,
            draws: 20,
            losses: 10,
        };
        assert_eq!(w.score(), 0.5);
        let (e, lo, hi) = w.elo();
        assert!(e.abs() < 1e-9);
        assert!(lo < 0.0 && hi > 0.0 && (lo + hi).abs() < 1e-6);
        assert!((w.los() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn known_values() {
        // 75% is +190.8 Elo.
        assert!((elo_from_score(0.75) - 190.848).abs() < 0.01);
        assert!((score_from_elo(190.848) - 0.75).abs() < 1e-5);
        assert!((erf(1.0) - 0.842_700_8).abs() < 1e-6);
        assert!((erf(-0.5) + 0.520_499_9).abs() < 1e-6);
        let w = Wdl {
            wins: 30,
            draws: 0,
            losses: 10,
        };
        // LOS = Phi((30-10)/sqrt(40)) = Phi(3.162) = 0.99922
        assert!((w.los() - 0.99922).abs() < 1e-4);
    }

    #[test]
    fn sprt_decides_both_ways() {
        let t = Sprt::new(0.0, 10.0);
        let (lo, hi) = t.bounds();
        assert!((hi - 2.944).abs() < 1e-3 && (lo + 2.944).abs() < 1e-3);
        let strong = Wdl {
            wins: 300,
            draws: 100,
            losses: 100,
        };
        assert_eq!(t.decide(&strong).1, SprtDecision::H1);
        let weak = Wdl {
            wins: 100,
            draws: 100,
            losses: 300,
        };
        assert_eq!(t.decide(&weak).1, SprtDecision::H0);
        let few = Wdl {
            wins: 2,
            draws: 1,
            losses: 1,
        };
        assert_eq!(t.decide(&few).1, SprtDecision::Continue);
        let lost = |n| Wdl {
            wins: 0,
            draws: 0,
            losses: n,
        };
        assert_eq!(t.decide(&lost(3)).1, SprtDecision::Continue);
        assert_eq!(t.decide(&lost(40)).1, SprtDecision::H0);
        // A single draw once gave LLR -inf (zero variance) and stopped the match.
        let drawn = |n| Wdl {
            wins: 0,
            draws: n,
            losses: 0,
        };
        for n in [1, 2, 5] {
            let (llr, d) = t.decide(&drawn(n));
            assert!(llr.is_finite(), "{n} draws: LLR {llr}");
            assert_eq!(d, SprtDecision::Continue, "{n} draws");
        }
        assert_eq!(t.decide(&drawn(2000)).1, SprtDecision::H0);
    }

    #[test]
    fn pentanomial_figures() {
        // expected values worked out by hand (Python) from the definitions:
        // mean = sum(c_k * k/4) / n, var = sum(c_k * (k/4 - mean)^2) / n,
        // LLR = n (s1 - s0)(2 mean - s0 - s1) / (2 var)
        let even = Pentanomial([10, 20, 40, 20, 10]);
        assert_eq!(even.pairs(), 100);
        assert!((even.score() - 0.5).abs() < 1e-12);
        assert!((even.variance() - 0.075).abs() < 1e-12);
        assert!((even.llr(0.0, 10.0) + 0.137_994).abs() < 1e-5);
        let ahead = Pentanomial([5, 10, 40, 30, 15]);
        assert!((ahead.score() - 0.6).abs() < 1e-12);
        assert!((ahead.variance() - 0.065).abs() < 1e-12);
        assert!((ahead.llr(0.0, 10.0) - 2.054_189).abs() < 1e-5);
        assert!((ahead.llr(0.0, 5.0) - 1.067_113).abs() < 1e-5);
        let t = Sprt::new(0.0, 5.0);
        assert_eq!(t.decide_pairs(&ahead).1, SprtDecision::Continue);
        assert_eq!(
            t.decide_pairs(&Pentanomial(ahead.0.map(|c| c * 3))).1,
            SprtDecision::H1
        );

        // pairs where each colour wins its game: per game that looks like a
        // coin toss, per pair it is a certain 1-1
        let mut colour_wins = Pentanomial::default();
        for _ in 0..50 {
            colour_wins.add(1.0, 0.0);
        }
        assert_eq!(colour_wins.0, [0, 0, 50, 0, 0]);
        let games = Wdl {
            wins: 50,
            draws: 0,
            losses: 50,
        };
        let (_, lo_pairs, hi_pairs) = colour_wins.elo();
        let (_, lo_games, hi_games) = games.elo();
        assert!(hi_pairs - lo_pairs < (hi_games - lo_games) / 10.0);
        assert!(colour_wins.llr(0.0, 10.0).is_finite());
        let mut one = Pentanomial::default();
        one.add(0.5, 0.5);
        assert_eq!(
            Sprt::new(0.0, 5.0).decide_pairs(&one).1,
            SprtDecision::Continue
        );
    }
}
