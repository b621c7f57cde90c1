//! The engine's options: their typed values, their names and ranges for the
//! handshake, and the errors of setting one.

use super::Level;
use crate::eval::EnglishWeights;
use crate::search::tt::TableAllocError;

/// Engine errors.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// No option with that name.
    #[error(
        "unknown option '{0}' (options: Level, Hash, Threads, Ponder, MiniTable, EvalWeights, EvalFile, EGDBPath, EGDBPieces, MultiPV)"
    )]
    UnknownOption(String),
    /// A value the option does not take.
    #[error("bad value '{value}' for option {name}: expected {expected}")]
    BadValue {
        /// The option.
        name: String,
        /// What was given.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// The transposition table of the size asked for can't be allocated; the
    /// engine keeps its old size and table.
    #[error("{0}; Hash is unchanged")]
    NoMemory(#[from] TableAllocError),
}

/// The type and range of an option, for the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A boolean.
    Check {
        /// Default value.
        default: bool,
    },
    /// An integer in a range.
    Spin {
        /// Default value.
        default: i64,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// Free text (empty by default).
    Text {
        /// Default value.
        default: String,
    },
    /// One of a list of words.
    Combo {
        /// Default value.
        default: String,
        /// Allowed values.
        values: Vec<String>,
    },
}

/// An option the engine accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The option's name.
    pub name: String,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// Largest transposition table, in MiB.
pub const MAX_HASH_MIB: i64 = 4096;
/// Most search threads.
pub const MAX_THREADS: i64 = 64;

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MIB: usize = 16;

/// Every option of an engine, typed.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Strength.
    pub level: Level,
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// Search threads.
    pub threads: usize,
    /// Whether the client may ask for pondering.
    pub ponder: bool,
    /// Use the exact mini-checkers table at level max.
    pub mini_table: bool,
    /// How English positions are evaluated.
    pub eval: crate::eval::Evaluator,
    /// Directory of the English endgame databases (empty: `KINGME_EGDB`, else
    /// the platform data directory).
    pub egdb_path: String,
    /// Probe the databases in positions of at most this many pieces (0: off).
    pub egdb_pieces: u32,
    /// Root moves reported per iteration, best first (1: the classic search).
    pub multipv: usize,
}

/// Largest `MultiPV`.
pub const MAX_MULTIPV: i64 = 64;

/// Largest `EGDBPieces`: the most pieces `kingme egdb build` builds.
pub const MAX_EGDB_PIECES: i64 = 8;

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            level: Level::Max,
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            ponder: false,
            mini_table: true,
            eval: crate::eval::Evaluator::default(),
            egdb_path: String::new(),
            egdb_pieces: MAX_EGDB_PIECES as u32,
            multipv: 1,
        }
    }
}

impl EngineOptions {
    /// The options and their ranges.
    #[must_use]
    pub fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                name: "Level".into(),
                kind: OptionKind::Combo {
                    default: Level::Max.name().into(),
                    values: Level::ALL.iter().map(|l| l.name().into()).collect(),
                },
            },
            OptionSpec {
                name: "Hash".into(),
                kind: OptionKind::Spin {
                    default: DEFAULT_HASH_MIB as i64,
                    min: 1,
                    max: MAX_HASH_MIB,
                },
            },
            OptionSpec {
                name: "Threads".into(),
                kind: OptionKind::Spin {
                    default: 1,
                    min: 1,
                    max: MAX_THREADS,
                },
            },
            OptionSpec {
                name: "Ponder".into(),
                kind: OptionKind::Check { default: false },
            },
            OptionSpec {
                name: "MiniTable".into(),
                kind: OptionKind::Check { default: true },
            },
            OptionSpec {
                name: "EvalWeights".into(),
                kind: OptionKind::Text {
                    default: String::new(),
                },
            },
            OptionSpec {
                name: "EGDBPath".into(),
                kind: OptionKind::Text {
                    default: String::new(),
                },
            },
            OptionSpec {
                name: "EGDBPieces".into(),
                kind: OptionKind::Spin {
                    default: MAX_EGDB_PIECES,
                    min: 0,
                    max: MAX_EGDB_PIECES,
                },
            },
            OptionSpec {
                name: "EvalFile".into(),
                kind: OptionKind::Text {
                    default: "builtin".into(),
                },
            },
            OptionSpec {
                name: "MultiPV".into(),
                kind: OptionKind::Spin {
                    default: 1,
                    min: 1,
                    max: MAX_MULTIPV,
                },
            },
        ]
    }

    /// Sets an option by name (case-insensitive).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let bad = |expected: String| EngineError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected,
        };
        let spin = |min: i64, max: i64| -> Result<i64, EngineError> {
            value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| bad(format!("an integer from {min} to {max}")))
        };
        match name.to_ascii_lowercase().as_str() {
            "level" => self.level = value.parse()?,
            "hash" => {
                let mib = spin(1, MAX_HASH_MIB)? as usize;
                self.hash_mib = mib;
            }
            "threads" => self.threads = spin(1, MAX_THREADS)? as usize,
            "ponder" => {
                self.ponder = parse_bool(value).ok_or_else(|| bad("true or false".into()))?
            }
            "evalweights" => {
                self.eval =
                    crate::eval::Evaluator::Hand(EnglishWeights::parse(value).map_err(|e| {
                        bad(format!("comma-separated name=value pairs: {}", e.reason))
                    })?)
            }
            "evalfile" => {
                self.eval = match value.trim() {
                    "" | "builtin" => crate::eval::Evaluator::default(),
                    "hand" => crate::eval::Evaluator::Hand(EnglishWeights::default()),
                    path => crate::eval::Evaluator::Learned(std::sync::Arc::new(
                        crate::eval::LearnedWeights::load(std::path::Path::new(path)).map_err(
                            |e| bad(format!("builtin, hand or a kingme weights file ({e})")),
                        )?,
                    )),
                }
            }
            "minitable" => {
                self.mini_table = parse_bool(value).ok_or_else(|| bad("true or false".into()))?
            }
            "egdbpath" => self.egdb_path = value.trim().to_string(),
            "egdbpieces" => self.egdb_pieces = spin(0, MAX_EGDB_PIECES)? as u32,
            "multipv" => self.multipv = spin(1, MAX_MULTIPV)? as usize,
            _ => return Err(EngineError::UnknownOption(name.to_string())),
        }
        Ok(())
    }
}

/// Reads a check option's value (`true`/`on`/`1`/`yes` or `false`/`off`/`0`/`no`).
#[must_use]
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}
