//! The engine's options declared once: their names (the kingme protocol's
//! and Hub's), types, ranges and defaults, from which every front end's
//! handshake and error lines are made; and option text turned into a typed
//! [`EngineOption`].

use super::{
    Engine, EngineError, EngineOption, EngineOptions, Level, DEFAULT_EGDB_CACHE_MIB,
    DEFAULT_HASH_MIB, MAX_BOOK_VARIETY, MAX_CONTEMPT, MAX_EGDB_CACHE_MIB, MAX_EGDB_PIECES,
    MAX_HASH_MIB, MAX_MULTIPV, MAX_THREADS,
};
use crate::eval::{EnglishWeights, Evaluator};

/// Why an option can't be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option with that name.
    #[error("unknown option '{0}' (options: {names})", names = option_names().join(", "))]
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
    /// The engine could not take the value.
    #[error(transparent)]
    Engine(#[from] EngineError),
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
    /// Its name in Hub's `hello` and `set-param` (`None`: not offered there).
    pub hub: Option<&'static str>,
    /// Its type, default and range.
    pub kind: OptionKind,
    /// What it does, in one line (the `help` command lists it).
    pub help: &'static str,
}

/// The names of the engine's options, in handshake order.
#[must_use]
pub fn option_names() -> Vec<String> {
    engine_option_specs().into_iter().map(|s| s.name).collect()
}

/// The option Hub calls `hub_name` (case-insensitive).
#[must_use]
pub fn hub_option(hub_name: &str) -> Option<OptionSpec> {
    engine_option_specs()
        .into_iter()
        .find(|s| s.hub.is_some_and(|h| h.eq_ignore_ascii_case(hub_name)))
}

impl EngineOptions {
    /// The current value of option `name` as text (what `setoption` takes).
    #[must_use]
    pub fn value_text(&self, name: &str) -> Option<String> {
        Some(match name.to_ascii_lowercase().as_str() {
            "level" => self.level.name().to_string(),
            "hash" => self.hash_mib.to_string(),
            "threads" => self.threads.to_string(),
            "ponder" => self.ponder.to_string(),
            "minitable" => self.mini_table.to_string(),
            "evalfile" | "evalweights" => self.eval.describe(),
            "egdbpath" => self.egdb_path.clone(),
            "egdbpieces" => self.egdb_pieces.to_string(),
            "egdbcache" => self.egdb_cache_mib.to_string(),
            "multipv" => self.multipv.to_string(),
            "ownbook" => self.own_book.to_string(),
            "bookfile" => self.book_file.clone(),
            "bookvariety" => self.book_variety.to_string(),
            "contempt" => self.contempt.to_string(),
            _ => return None,
        })
    }
}

/// The engine's options, their types and ranges, for the handshake.
#[must_use]
pub fn engine_option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec {
            name: "Level".into(),
            hub: Some("level"),
            kind: OptionKind::Combo {
                default: Level::Max.name().into(),
                values: Level::ALL.iter().map(|l| l.name().into()).collect(),
            },
            help: "strength and default think time: easy, medium, hard or max",
        },
        OptionSpec {
            name: "Hash".into(),
            hub: Some("hash"),
            kind: OptionKind::Spin {
                default: DEFAULT_HASH_MIB as i64,
                min: 1,
                max: MAX_HASH_MIB,
            },
            help: "transposition table size in MiB",
        },
        OptionSpec {
            name: "Threads".into(),
            hub: Some("threads"),
            kind: OptionKind::Spin {
                default: 1,
                min: 1,
                max: MAX_THREADS,
            },
            help: "search threads",
        },
        OptionSpec {
            name: "Ponder".into(),
            hub: None,
            kind: OptionKind::Check { default: false },
            help: "the GUI may send go ponder",
        },
        OptionSpec {
            name: "MiniTable".into(),
            hub: None,
            kind: OptionKind::Check { default: true },
            help: "mini-checkers at level max: play perfectly from the solved table",
        },
        OptionSpec {
            name: "EvalWeights".into(),
            hub: None,
            kind: OptionKind::Text {
                default: String::new(),
            },
            help: "English: the hand-set evaluation with these name=value weights",
        },
        OptionSpec {
            name: "EGDBPath".into(),
            hub: Some("egdb-path"),
            kind: OptionKind::Text {
                default: String::new(),
            },
            help: "directory of the endgame databases (empty: the default one)",
        },
        OptionSpec {
            name: "EGDBPieces".into(),
            hub: Some("egdb-pieces"),
            kind: OptionKind::Spin {
                default: MAX_EGDB_PIECES,
                min: 0,
                max: MAX_EGDB_PIECES,
            },
            help: "probe the databases in positions of at most this many pieces (0: off)",
        },
        OptionSpec {
            name: "EGDBCache".into(),
            hub: Some("egdb-cache"),
            kind: OptionKind::Spin {
                default: DEFAULT_EGDB_CACHE_MIB as i64,
                min: 1,
                max: MAX_EGDB_CACHE_MIB,
            },
            help: "MiB of decoded database blocks in memory (one cache for the whole process)",
        },
        OptionSpec {
            name: "EvalFile".into(),
            hub: None,
            kind: OptionKind::Text {
                default: "builtin".into(),
            },
            help: "English evaluation: builtin (the network), patterns, network, hand, or a kingme weights or network file",
        },
        OptionSpec {
            name: "MultiPV".into(),
            hub: Some("multipv"),
            kind: OptionKind::Spin {
                default: 1,
                min: 1,
                max: MAX_MULTIPV,
            },
            help: "report the best N root moves each iteration",
        },
        OptionSpec {
            name: "OwnBook".into(),
            hub: Some("book"),
            kind: OptionKind::Check { default: true },
            help: "English at level max: answer game moves from the opening book",
        },
        OptionSpec {
            name: "BookFile".into(),
            hub: Some("book-file"),
            kind: OptionKind::Text {
                default: String::new(),
            },
            help: "the opening book (empty: the one inside kingme)",
        },
        OptionSpec {
            name: "BookVariety".into(),
            hub: Some("book-variety"),
            kind: OptionKind::Spin {
                default: 0,
                min: 0,
                max: MAX_BOOK_VARIETY,
            },
            help: "choose among book moves within N centi-men of the best (0: the best)",
        },
        OptionSpec {
            name: "Contempt".into(),
            hub: Some("contempt"),
            kind: OptionKind::Spin {
                default: 0,
                min: -MAX_CONTEMPT,
                max: MAX_CONTEMPT,
            },
            help: "English: a draw is worth N centi-men less than 0 to the engine (negative: more)",
        },
    ]
}

/// Reads `setoption name NAME value VALUE` (the name case-insensitive).
pub fn parse_option(name: &str, value: &str) -> Result<EngineOption, OptionError> {
    let bad = |expected: String| OptionError::BadValue {
        name: name.to_string(),
        value: value.to_string(),
        expected,
    };
    let spin = |min: i64, max: i64| -> Result<i64, OptionError> {
        value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| bad(format!("an integer from {min} to {max}")))
    };
    let check = || parse_bool(value).ok_or_else(|| bad("true or false".into()));
    Ok(match name.to_ascii_lowercase().as_str() {
        "level" => {
            EngineOption::Level(value.parse::<Level>().map_err(|_| OptionError::BadValue {
                name: "Level".into(),
                value: value.to_string(),
                expected: "easy, medium, hard or max".into(),
            })?)
        }
        "hash" => EngineOption::Hash(spin(1, MAX_HASH_MIB)? as usize),
        "threads" => EngineOption::Threads(spin(1, MAX_THREADS)? as usize),
        "ponder" => EngineOption::Ponder(check()?),
        "minitable" => EngineOption::MiniTable(check()?),
        "evalweights" => EngineOption::Eval(Evaluator::Hand(
            EnglishWeights::parse(value)
                .map_err(|e| bad(format!("comma-separated name=value pairs: {}", e.reason)))?,
        )),
        "evalfile" => EngineOption::Eval(Evaluator::from_name(value).map_err(|e| {
            bad(format!(
                "builtin, patterns, network, hand, or a kingme weights or network file ({e})"
            ))
        })?),
        "egdbpath" => EngineOption::EgdbPath(value.trim().to_string()),
        "egdbpieces" => EngineOption::EgdbPieces(spin(0, MAX_EGDB_PIECES)? as u32),
        "egdbcache" => EngineOption::EgdbCache(spin(1, MAX_EGDB_CACHE_MIB)? as usize),
        "multipv" => EngineOption::MultiPv(spin(1, MAX_MULTIPV)? as usize),
        "ownbook" => EngineOption::OwnBook(check()?),
        "bookfile" => EngineOption::BookFile(value.trim().to_string()),
        "bookvariety" => EngineOption::BookVariety(spin(0, MAX_BOOK_VARIETY)? as u32),
        "contempt" => EngineOption::Contempt(spin(-MAX_CONTEMPT, MAX_CONTEMPT)? as i32),
        _ => return Err(OptionError::UnknownOption(name.to_string())),
    })
}

/// Whether setting option `name` to `value` names a server file or
/// directory (a path, not a keyword such as `builtin`).
#[must_use]
pub fn names_server_file(name: &str, value: &str) -> bool {
    match name.to_ascii_lowercase().as_str() {
        "evalfile" => !matches!(value.trim(), "" | "builtin" | "hand"),
        "egdbpath" | "bookfile" => !value.trim().is_empty(),
        _ => false,
    }
}

/// Sets an engine option from its text: [`parse_option`], then
/// [`Engine::set`]. A directory that can't be read is a bad value of
/// `EGDBPath`; one that holds no databases is taken (the engine's notice
/// says so).
pub fn set_option(engine: &mut Engine, name: &str, value: &str) -> Result<(), OptionError> {
    match engine.set(parse_option(name, value)?) {
        Ok(()) => Ok(()),
        Err(EngineError::NoTablebase { reason, .. }) => Err(OptionError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected: format!("a directory of endgame database files ({reason})"),
        }),
        Err(EngineError::NoBook { reason, .. }) => Err(OptionError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected: format!("a kingme book file, or empty for the shipped book ({reason})"),
        }),
        Err(e) => Err(e.into()),
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
