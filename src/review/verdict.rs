//! How one move is judged: the expected result a score stands for (through
//! the evaluation's scale `K`), the loss between the best move and the
//! played one, the verdict that loss earns, and the exact verdict where the
//! databases or the solved mini game know both positions.

use crate::search::Score;
use std::fmt;
use std::str::FromStr;

/// The verdict on one move, best first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Verdict {
    /// The best move: the engine's choice, or exactly as good as it.
    Best,
    /// Another move, losing less than the inaccuracy threshold.
    Good,
    /// Losing at least the inaccuracy threshold.
    Inaccuracy,
    /// Losing at least the mistake threshold.
    Mistake,
    /// Losing at least the blunder threshold, or (exactly) a result.
    Blunder,
}

impl Verdict {
    /// Every verdict, best first.
    pub const ALL: [Verdict; 5] = [
        Verdict::Best,
        Verdict::Good,
        Verdict::Inaccuracy,
        Verdict::Mistake,
        Verdict::Blunder,
    ];

    /// `best`, `good`, `inaccuracy`, `mistake` or `blunder`.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            Verdict::Best => "best",
            Verdict::Good => "good",
            Verdict::Inaccuracy => "inaccuracy",
            Verdict::Mistake => "mistake",
            Verdict::Blunder => "blunder",
        }
    }

    /// The PDN mark of the verdict: `?!`, `?` or `??` (none for a good move).
    #[must_use]
    pub const fn mark(self) -> &'static str {
        match self {
            Verdict::Best | Verdict::Good => "",
            Verdict::Inaccuracy => "?!",
            Verdict::Mistake => "?",
            Verdict::Blunder => "??",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A word that is not a verdict.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad verdict '{0}': expected best, good, inaccuracy, mistake or blunder")]
pub struct ParseVerdictError(pub String);

impl FromStr for Verdict {
    type Err = ParseVerdictError;

    fn from_str(s: &str) -> Result<Verdict, ParseVerdictError> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.word() == s)
            .ok_or_else(|| ParseVerdictError(s.chars().take(40).collect()))
    }
}

/// The least loss in expected result (0 to 1) that makes a move an
/// inaccuracy, a mistake and a blunder.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Thresholds {
    /// From this loss a move is an inaccuracy.
    pub inaccuracy: f64,
    /// From this loss, a mistake.
    pub mistake: f64,
    /// From this loss, a blunder.
    pub blunder: f64,
}

impl Default for Thresholds {
    /// 0.03, 0.07 and 0.15 of a game: with the shipped network's scale, a
    /// quarter, a half and a whole man thrown away from an even position.
    fn default() -> Thresholds {
        Thresholds {
            inaccuracy: 0.03,
            mistake: 0.07,
            blunder: 0.15,
        }
    }
}

impl Thresholds {
    /// The verdict on a move other than the best that loses `loss`.
    #[must_use]
    pub fn verdict(&self, loss: f64) -> Verdict {
        if loss >= self.blunder {
            Verdict::Blunder
        } else if loss >= self.mistake {
            Verdict::Mistake
        } else if loss >= self.inaccuracy {
            Verdict::Inaccuracy
        } else {
            Verdict::Good
        }
    }
}

/// `0.03,0.07,0.15`.
impl fmt::Display for Thresholds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.inaccuracy, self.mistake, self.blunder)
    }
}

/// Threshold text that can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad thresholds '{0}': expected three increasing numbers between 0 and 1, like 0.03,0.07,0.15"
)]
pub struct ParseThresholdsError(pub String);

impl FromStr for Thresholds {
    type Err = ParseThresholdsError;

    /// Three increasing numbers in (0, 1], comma-separated.
    fn from_str(s: &str) -> Result<Thresholds, ParseThresholdsError> {
        let bad = || ParseThresholdsError(s.chars().take(40).collect());
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        match v.as_slice() {
            &[a, b, c] if 0.0 < a && a < b && b < c && c <= 1.0 => Ok(Thresholds {
                inaccuracy: a,
                mistake: b,
                blunder: c,
            }),
            _ => Err(bad()),
        }
    }
}

/// The expected result (1 a win, 0.5 a draw, 0 a loss) a score stands for,
/// for the side it is from: `1 / (1 + exp(-cp / k))` for an evaluation,
/// where `k` is the evaluation's scale (centi-men per unit of the logistic).
#[must_use]
pub fn expected(score: Score, k: f64) -> f64 {
    match score {
        Score::Eval(cp) => 1.0 / (1.0 + (-f64::from(cp) / k).exp()),
        Score::Win(_) => 1.0,
        Score::Loss(_) => 0.0,
        Score::Draw => 0.5,
    }
}

/// What the exact values say of a move: the best value the mover had and
/// the value of the move played, both from the mover's view and both exact
/// ([`Score::Win`], [`Score::Loss`] or [`Score::Draw`]; a database win or
/// loss of unknown length is at [`Score::DATABASE_PLIES`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Exact {
    /// The value of the position before the move.
    pub before: Score,
    /// The value after the move played.
    pub after: Score,
}

/// A value's class: 2 a win, 1 a draw, 0 a loss.
fn class(s: Score) -> u8 {
    match s {
        Score::Win(_) => 2,
        Score::Loss(_) => 0,
        Score::Draw | Score::Eval(_) => 1,
    }
}

/// Plies of an exact win or loss, when known.
fn plies(s: Score) -> Option<u32> {
    match s {
        Score::Win(n) | Score::Loss(n) if n != Score::DATABASE_PLIES => Some(n),
        _ => None,
    }
}

impl Exact {
    /// Whether the move kept the position's value (and, where the plies are
    /// known, its distance).
    #[must_use]
    pub fn is_best(&self) -> bool {
        class(self.before) == class(self.after)
            && match (plies(self.before), plies(self.after)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    /// Whether the move changed the game's result.
    #[must_use]
    pub fn changed_result(&self) -> bool {
        class(self.after) < class(self.before)
    }

    /// The verdict: a blunder when the result changed, best when the value
    /// and its distance held, good when only the distance grew (a slower
    /// win, a quicker loss).
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        if self.changed_result() {
            Verdict::Blunder
        } else if self.is_best() {
            Verdict::Best
        } else {
            Verdict::Good
        }
    }

    /// In the databases' words: `threw away a win`, `turned a draw into a
    /// loss`, `kept the win, 14 plies slower`, `kept the draw`, ...
    #[must_use]
    pub fn words(&self) -> String {
        let by = |a: u32, b: u32| match a.abs_diff(b) {
            1 => "1 ply".to_string(),
            n => format!("{n} plies"),
        };
        match (self.before, self.after) {
            (Score::Win(_), Score::Draw) => "threw away a win".into(),
            (Score::Win(_), Score::Loss(_)) => "threw away a win and lost".into(),
            (Score::Draw, Score::Loss(_)) => "turned a draw into a loss".into(),
            (Score::Win(a), Score::Win(b)) => match (plies(self.before), plies(self.after)) {
                (Some(_), Some(_)) if b > a => format!("kept the win, {} slower", by(a, b)),
                _ => "kept the win".into(),
            },
            (Score::Loss(a), Score::Loss(b)) => match (plies(self.before), plies(self.after)) {
                (Some(_), Some(_)) if b < a => format!("lost anyway, {} sooner", by(a, b)),
                _ => "lost anyway".into(),
            },
            (Score::Draw, Score::Draw) => "kept the draw".into(),
            (before, after) => format!("{} became {}", word(before), word(after)),
        }
    }
}

fn word(s: Score) -> &'static str {
    match class(s) {
        2 => "a win",
        1 => "a draw",
        _ => "a loss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_map_to_verdicts_at_the_thresholds() {
        let t = Thresholds::default();
        assert_eq!(t.verdict(0.0), Verdict::Good);
        assert_eq!(t.verdict(0.0299), Verdict::Good);
        assert_eq!(t.verdict(0.03), Verdict::Inaccuracy);
        assert_eq!(t.verdict(0.07), Verdict::Mistake);
        assert_eq!(t.verdict(0.15), Verdict::Blunder);
        assert_eq!(t.verdict(1.0), Verdict::Blunder);
        assert_eq!(
            "0.05,0.1,0.2".parse::<Thresholds>().unwrap().verdict(0.09),
            Verdict::Inaccuracy
        );
        for bad in [
            "",
            "0.1,0.05,0.2",
            "0.1,0.2",
            "0,0.1,0.2",
            "0.1,0.2,1.5",
            "a,b,c",
        ] {
            assert!(bad.parse::<Thresholds>().is_err(), "{bad}");
        }
        assert_eq!(t.to_string().parse::<Thresholds>(), Ok(t));
    }

    #[test]
    fn expected_results_follow_the_logistic() {
        assert!((expected(Score::Eval(0), 160.0) - 0.5).abs() < 1e-12);
        // 1 / (1 + e^-1)
        assert!((expected(Score::Eval(160), 160.0) - 0.731_058_578_6).abs() < 1e-9);
        assert!((expected(Score::Eval(-160), 160.0) - 0.268_941_421_4).abs() < 1e-9);
        assert_eq!(expected(Score::Win(3), 160.0), 1.0);
        assert_eq!(expected(Score::Loss(3), 160.0), 0.0);
        assert_eq!(expected(Score::Draw, 160.0), 0.5);
    }

    #[test]
    fn exact_words_and_verdicts() {
        let db = Score::DATABASE_PLIES;
        let e = |before, after| Exact { before, after };
        let cases = [
            (
                e(Score::Win(db), Score::Draw),
                "threw away a win",
                Verdict::Blunder,
            ),
            (
                e(Score::Win(9), Score::Loss(4)),
                "threw away a win and lost",
                Verdict::Blunder,
            ),
            (
                e(Score::Draw, Score::Loss(db)),
                "turned a draw into a loss",
                Verdict::Blunder,
            ),
            (
                e(Score::Win(9), Score::Win(23)),
                "kept the win, 14 plies slower",
                Verdict::Good,
            ),
            (
                e(Score::Win(9), Score::Win(9)),
                "kept the win",
                Verdict::Best,
            ),
            (
                e(Score::Win(db), Score::Win(db)),
                "kept the win",
                Verdict::Best,
            ),
            (e(Score::Draw, Score::Draw), "kept the draw", Verdict::Best),
            (
                e(Score::Loss(20), Score::Loss(6)),
                "lost anyway, 14 plies sooner",
                Verdict::Good,
            ),
            (
                e(Score::Loss(20), Score::Loss(20)),
                "lost anyway",
                Verdict::Best,
            ),
        ];
        for (exact, words, verdict) in cases {
            assert_eq!(exact.words(), words);
            assert_eq!(exact.verdict(), verdict, "{words}");
        }
    }

    #[test]
    fn verdict_words_read_back() {
        for v in Verdict::ALL {
            assert_eq!(v.word().parse::<Verdict>(), Ok(v));
        }
        assert!("great".parse::<Verdict>().is_err());
        assert_eq!(Verdict::Blunder.mark(), "??");
    }
}
