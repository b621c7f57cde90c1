//! `Score`: a search's value of a position as users see it (centi-men, or a
//! win, loss or draw known exactly), its protocol text (`cp 12`, `win 5`,
//! `loss 5`, `draw`), its order, and the exact values it is made from.

use super::{DB_WIN_PLIES, WIN, WIN_BOUND};
use crate::egdb::Wdl;
use crate::solve::{GameValue, ValueKind};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// A search score as reported to users, from the side to move's view.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Score {
    /// Heuristic value in centi-men (100 = one man).
    Eval(i32),
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
    /// An exact draw: the value is known (the solved mini-checkers table, the
    /// endgame databases) and it is a draw.
    Draw,
}

impl Score {
    /// Converts an internal score.
    #[must_use]
    pub fn from_internal(s: i32) -> Score {
        if s >= WIN_BOUND {
            Score::Win((WIN - s) as u32)
        } else if s <= -WIN_BOUND {
            Score::Loss((WIN + s) as u32)
        } else {
            Score::Eval(s)
        }
    }

    /// The internal score this stands for (the inverse of
    /// [`Score::from_internal`]; an exact draw is 0).
    #[must_use]
    pub fn internal(self) -> i32 {
        match self {
            Score::Eval(cp) => cp,
            Score::Win(n) => WIN - n as i32,
            Score::Loss(n) => -(WIN - n as i32),
            Score::Draw => 0,
        }
    }

    /// The plies an endgame database win or loss is reported at: certain, of
    /// unknown length, beyond any searched one.
    pub const DATABASE_PLIES: u32 = DB_WIN_PLIES as u32 + 1;

    /// Where the score ranks: (class, value within the class), larger better.
    fn rank(self) -> (i8, i64) {
        match self {
            Score::Loss(n) => (0, i64::from(n)),
            Score::Eval(cp) => (1, 2 * i64::from(cp) + 1),
            // an exact draw just below an evaluation of 0, so that the order
            // agrees with equality
            Score::Draw => (1, 0),
            Score::Win(n) => (2, -i64::from(n)),
        }
    }
}

/// Better for the side to move is greater: a win sooner, a loss later.
impl Ord for Score {
    fn cmp(&self, other: &Score) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Score) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The same position seen by the other side.
impl std::ops::Neg for Score {
    type Output = Score;

    fn neg(self) -> Score {
        match self {
            Score::Eval(cp) => Score::Eval(-cp),
            Score::Win(n) => Score::Loss(n),
            Score::Loss(n) => Score::Win(n),
            Score::Draw => Score::Draw,
        }
    }
}

/// An exact mini-checkers value.
impl From<GameValue> for Score {
    fn from(v: GameValue) -> Score {
        match v.kind {
            ValueKind::Win => Score::Win(v.plies),
            ValueKind::Loss => Score::Loss(v.plies),
            ValueKind::Draw => Score::Draw,
        }
    }
}

/// An endgame database value (a win or loss at [`Score::DATABASE_PLIES`]).
impl From<Wdl> for Score {
    fn from(v: Wdl) -> Score {
        match v {
            Wdl::Win => Score::Win(Score::DATABASE_PLIES),
            Wdl::Loss => Score::Loss(Score::DATABASE_PLIES),
            Wdl::Draw => Score::Draw,
        }
    }
}

/// `cp N`, `win N`, `loss N` or `draw`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Eval(cp) => write!(f, "cp {cp}"),
            Score::Win(n) => write!(f, "win {n}"),
            Score::Loss(n) => write!(f, "loss {n}"),
            Score::Draw => f.write_str("draw"),
        }
    }
}

/// Why score text can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad score '{text}': expected cp N, win N, loss N or draw")]
pub struct ParseScoreError {
    /// The text given (shortened).
    pub text: String,
}

impl FromStr for Score {
    type Err = ParseScoreError;

    /// Reads what `Display` writes (words separated by any blanks).
    fn from_str(s: &str) -> Result<Score, ParseScoreError> {
        let bad = || ParseScoreError {
            text: s.chars().take(40).collect(),
        };
        let mut words = s.split_whitespace();
        let kind = words.next().ok_or_else(bad)?;
        let score = if kind == "draw" {
            Score::Draw
        } else {
            let n = words.next().ok_or_else(bad)?;
            match kind {
                "cp" => Score::Eval(n.parse().map_err(|_| bad())?),
                "win" => Score::Win(n.parse().map_err(|_| bad())?),
                "loss" => Score::Loss(n.parse().map_err(|_| bad())?),
                _ => return Err(bad()),
            }
        };
        if words.next().is_some() {
            return Err(bad());
        }
        Ok(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_for_every_kind() {
        let cases = [
            (Score::Eval(12), "cp 12"),
            (Score::Eval(-340), "cp -340"),
            (Score::Win(5), "win 5"),
            (Score::Loss(501), "loss 501"),
            (Score::Draw, "draw"),
        ];
        for (score, text) in cases {
            assert_eq!(score.to_string(), text);
            assert_eq!(text.parse::<Score>(), Ok(score));
        }
        for bad in [
            "", "cp", "cp x", "win -1", "tie", "draw 3", "cp 1 2", "CP 1",
        ] {
            assert!(bad.parse::<Score>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn better_for_the_side_to_move_is_greater() {
        let ascending = [
            Score::Loss(3),
            Score::Loss(9),
            Score::Eval(-50),
            Score::Draw,
            Score::Eval(0),
            Score::Eval(80),
            Score::Win(11),
            Score::Win(2),
        ];
        for w in ascending.windows(2) {
            assert!(w[0] < w[1], "{} < {}", w[0], w[1]);
        }
        for s in ascending {
            assert_eq!(-(-s), s);
        }
        assert_eq!(-Score::Win(4), Score::Loss(4));
    }

    #[test]
    fn exact_values_convert() {
        assert_eq!(Score::from(GameValue::win(7)), Score::Win(7));
        assert_eq!(Score::from(Wdl::Loss), Score::Loss(501));
        assert_eq!(Score::from(Wdl::Draw), Score::Draw);
    }
}
