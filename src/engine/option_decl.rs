//! The vocabulary of option declarations, apart from any one set of
//! options: where a value lives ([`Scope`]), its type and range
//! ([`OptionType`], and [`OptionKind`] with the default), one option's
//! declaration ([`Declaration`]), the value types an option can hold
//! ([`OptionCodec`]) and the errors of setting one.

use super::level::Level;
use super::options::EngineError;
use crate::eval::Evaluator;

/// Why an option can't be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option with that name.
    #[error("unknown option '{name}' (options: {names})")]
    UnknownOption {
        /// The name given.
        name: String,
        /// The options there are, comma-separated.
        names: String,
    },
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
    /// A value the option does not take, said in the value type's own words.
    #[error("{0}")]
    Invalid(String),
    /// The option is the protocol session's, not the engine's.
    #[error("option {0} is the session's, not the engine's")]
    NotEngine(&'static str),
    /// The engine could not take the value.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Where an option's value lives, and so who may set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The protocol session's, not the engine's (the rules, `Reply`).
    Session,
    /// Read by each search (its strength, the lines it reports).
    Search,
    /// Held by the engine between searches (its table, threads, databases).
    Engine,
    /// One for the whole process, shared by every engine in it: on a server
    /// the operator's, not a client's.
    Process,
    /// A file or directory on the machine the engine runs on, unless the
    /// value is empty or one of these words: over the network only inside
    /// the directories the operator allows.
    ServerFile {
        /// Values that name no file.
        keywords: &'static [&'static str],
    },
}

/// An option's type and range, without its default.
#[derive(Clone, Copy, Debug)]
pub enum OptionType {
    /// A boolean.
    Check,
    /// An integer from `min` to `max`.
    Spin {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// Free text.
    Text,
    /// One of a list of words.
    Combo {
        /// The words, in the handshake's order.
        values: fn() -> Vec<&'static str>,
    },
}

/// The type, range and default of an option, as the handshake states them.
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

/// One option, declared once: `V` is the typed value its text is read
/// into, `S` what its current value is written from.
#[derive(Debug)]
pub struct Declaration<V: 'static, S: 'static> {
    /// Its name in the kingme protocol (matched without regard to case).
    pub name: &'static str,
    /// Its name in Hub's `hello` and `set-param` (`None`: not offered there).
    pub hub: Option<&'static str>,
    /// Where its value lives.
    pub scope: Scope,
    /// Its type and range.
    pub ty: OptionType,
    /// What it does, in one line (the `help` command lists it).
    pub help: &'static str,
    /// Reads its text into a typed value.
    pub read: fn(&str, &Declaration<V, S>) -> Result<V, OptionError>,
    /// Writes its current value as text (what `setoption` takes).
    pub write: fn(&S) -> String,
}

impl<V, S> Clone for Declaration<V, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V, S> Copy for Declaration<V, S> {}

impl<V, S> PartialEq for Declaration<V, S> {
    /// The same option: name, Hub name, scope and help.
    fn eq(&self, other: &Declaration<V, S>) -> bool {
        self.name == other.name
            && self.hub == other.hub
            && self.scope == other.scope
            && self.help == other.help
    }
}

impl<V, S> Eq for Declaration<V, S> {}

impl<V, S> Declaration<V, S> {
    /// Reads `text` (the option's value as a client sent it).
    pub fn read(&self, text: &str) -> Result<V, OptionError> {
        (self.read)(text, self)
    }

    /// The current value as text.
    #[must_use]
    pub fn write(&self, values: &S) -> String {
        (self.write)(values)
    }

    /// The type and range, with the default `default` (the text of the
    /// default value), as the handshake states them.
    #[must_use]
    pub fn kind_with(&self, default: String) -> OptionKind {
        match self.ty {
            OptionType::Check => OptionKind::Check {
                default: parse_bool(&default).unwrap_or(false),
            },
            OptionType::Spin { min, max } => OptionKind::Spin {
                default: default.parse().unwrap_or(min),
                min,
                max,
            },
            OptionType::Text => OptionKind::Text { default },
            OptionType::Combo { values } => OptionKind::Combo {
                default,
                values: values().into_iter().map(String::from).collect(),
            },
        }
    }

    /// Whether `value` names a file or directory on the engine's machine.
    #[must_use]
    pub fn names_server_file(&self, value: &str) -> bool {
        match self.scope {
            Scope::ServerFile { keywords } => {
                let v = value.trim();
                !v.is_empty() && !keywords.contains(&v)
            }
            _ => false,
        }
    }

    /// A bad value of this option: `expected` says what it takes.
    #[must_use]
    pub fn bad_value(&self, value: &str, expected: String) -> OptionError {
        OptionError::BadValue {
            name: self.name.to_string(),
            value: value.to_string(),
            expected,
        }
    }
}

/// The option named `name` (case-insensitive) in `registry`.
#[must_use]
pub fn find<V, S>(
    registry: &'static [Declaration<V, S>],
    name: &str,
) -> Option<&'static Declaration<V, S>> {
    registry.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The option Hub calls `hub_name` (case-insensitive) in `registry`.
#[must_use]
pub fn find_hub<V, S>(
    registry: &'static [Declaration<V, S>],
    hub_name: &str,
) -> Option<&'static Declaration<V, S>> {
    registry
        .iter()
        .find(|d| d.hub.is_some_and(|h| h.eq_ignore_ascii_case(hub_name)))
}

/// A value type an option can hold: read from text within the option's type
/// and range, written back as text.
pub trait OptionCodec: Sized {
    /// Reads `text` for option `decl`.
    fn read_value<V, S>(text: &str, decl: &Declaration<V, S>) -> Result<Self, OptionError>;
    /// The value as text.
    fn write_value(&self) -> String;
}

impl OptionCodec for bool {
    fn read_value<V, S>(text: &str, decl: &Declaration<V, S>) -> Result<bool, OptionError> {
        parse_bool(text).ok_or_else(|| decl.bad_value(text, "true or false".into()))
    }
    fn write_value(&self) -> String {
        self.to_string()
    }
}

macro_rules! spin_codec {
    ($($t:ty),*) => {$(
        impl OptionCodec for $t {
            fn read_value<V, S>(text: &str, decl: &Declaration<V, S>) -> Result<$t, OptionError> {
                let OptionType::Spin { min, max } = decl.ty else {
                    unreachable!("option {} holds an integer but is no spin", decl.name)
                };
                text.trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|v| (min..=max).contains(v))
                    .and_then(|v| <$t>::try_from(v).ok())
                    .ok_or_else(|| decl.bad_value(text, format!("an integer from {min} to {max}")))
            }
            fn write_value(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
spin_codec!(usize, u32, i32);

impl OptionCodec for String {
    fn read_value<V, S>(text: &str, _: &Declaration<V, S>) -> Result<String, OptionError> {
        Ok(text.trim().to_string())
    }
    fn write_value(&self) -> String {
        self.clone()
    }
}

impl OptionCodec for Level {
    fn read_value<V, S>(text: &str, decl: &Declaration<V, S>) -> Result<Level, OptionError> {
        text.parse::<Level>().map_err(|_| {
            let words = match decl.ty {
                OptionType::Combo { values } => one_of(&values()),
                _ => one_of(&Level::ALL.map(Level::name)),
            };
            decl.bad_value(text, words)
        })
    }
    fn write_value(&self) -> String {
        self.name().to_string()
    }
}

impl OptionCodec for Evaluator {
    fn read_value<V, S>(text: &str, decl: &Declaration<V, S>) -> Result<Evaluator, OptionError> {
        Evaluator::from_name(text).map_err(|e| {
            decl.bad_value(
                text,
                format!(
                    "builtin, patterns, network, hand, or a kingme weights or network file ({e})"
                ),
            )
        })
    }
    fn write_value(&self) -> String {
        self.describe()
    }
}

/// "a, b or c".
fn one_of(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
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
