//! Difficulty levels: how deep, how noisy, how long by default.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A difficulty level.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Level {
    /// Shallow and noisy: a beginner can win.
    Easy,
    /// Moderate depth, a little noise.
    Medium,
    /// Deep, no noise, short default think time.
    Hard,
    /// Everything: full depth, the default.
    #[default]
    Max,
}

impl Level {
    /// All levels, weakest first.
    pub const ALL: [Level; 4] = [Level::Easy, Level::Medium, Level::Hard, Level::Max];

    /// The protocol name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Max => "max",
        }
    }

    /// Deepest iteration this level searches.
    #[must_use]
    pub const fn max_depth(self) -> Option<u32> {
        match self {
            Level::Easy => Some(2),
            Level::Medium => Some(5),
            Level::Hard => Some(12),
            Level::Max => None,
        }
    }

    /// Leaf noise in centi-men.
    #[must_use]
    pub const fn noise(self) -> i32 {
        match self {
            Level::Easy => 90,
            Level::Medium => 25,
            Level::Hard | Level::Max => 0,
        }
    }

    /// Think time per move when `go` gives no limit.
    #[must_use]
    pub const fn default_movetime(self) -> Duration {
        match self {
            Level::Easy => Duration::from_millis(200),
            Level::Medium => Duration::from_millis(300),
            Level::Hard => Duration::from_millis(500),
            Level::Max => Duration::from_millis(1000),
        }
    }
}

impl Level {
    /// What the level does, in one line for people: depth, noise, and the
    /// think time of a move when `go` gives no limit.
    #[must_use]
    pub fn summary(self) -> String {
        let depth = match self.max_depth() {
            Some(d) => format!("up to {d} plies"),
            None => "full depth".to_string(),
        };
        let noise = match self.noise() {
            0 => "no noise".to_string(),
            n => format!("leaf noise of {n} centi-men"),
        };
        let secs = self.default_movetime().as_secs_f64();
        let mini = if self == Level::Max {
            "; mini-checkers from the solved game"
        } else {
            ""
        };
        format!("{depth}, {noise}, {secs} s a move{mini}")
    }
}

/// Every level's summary, a line each, for `--help` texts.
#[must_use]
pub fn levels_help() -> String {
    Level::ALL
        .iter()
        .map(|l| format!("  {:<7} {}", l.name(), l.summary()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// PROTOCOL.md's table of the levels.
#[must_use]
pub fn levels_table() -> String {
    let mut t = String::from("| level | what it does |\n|-------|--------------|\n");
    for l in Level::ALL {
        t.push_str(&format!("| `{}` | {} |\n", l.name(), l.summary()));
    }
    t
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A word that names no level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad value '{0}' for option Level: expected easy, medium, hard or max")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseLevelError(s.into()))
    }
}
