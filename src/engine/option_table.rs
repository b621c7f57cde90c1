//! The options every front end offers, each declared once in [`REGISTRY`]:
//! its name (the kingme protocol's and Hub's), scope, type, range, default,
//! one line of help, and how its text is read into a typed value and written
//! back. The engine's typed options ([`EngineOption`], [`EngineOptions`])
//! are made from the same declarations. The kingme handshake, `help`,
//! `setoption`, Hub's `hello` and `set-param`, the server's file policy and
//! PROTOCOL.md's option table are made from a registry.

use super::options::{
    DEFAULT_EGDB_CACHE_MIB, DEFAULT_HASH_MIB, MAX_BOOK_VARIETY, MAX_CONTEMPT, MAX_EGDB_CACHE_MIB,
    MAX_EGDB_PIECES, MAX_HASH_MIB, MAX_MULTIPV, MAX_THREADS,
};
use super::{Engine, EngineError, Level};
use crate::board::Variant;
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

/// A typed option value, read from its text.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    /// One of the engine's options.
    Engine(EngineOption),
    /// The rules the session plays.
    Variant(Variant),
    /// Whether `play` is answered by the engine's own move.
    Reply(bool),
}

/// The values an option is written from: the engine's and the session's.
#[derive(Clone, Copy, Debug)]
pub struct OptionValues<'a> {
    /// The engine's options.
    pub engine: &'a EngineOptions,
    /// The session's rules.
    pub variant: Variant,
    /// The session's `Reply`.
    pub reply: bool,
}

/// One option, declared once.
#[derive(Clone, Copy, Debug)]
pub struct OptionDecl {
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
    pub read: fn(&str, &OptionDecl) -> Result<OptionValue, OptionError>,
    /// Writes its current value as text (what `setoption` takes).
    pub write: fn(&OptionValues<'_>) -> String,
}

/// A set of option declarations, in the handshake's order.
pub type Registry = &'static [OptionDecl];

impl PartialEq for OptionDecl {
    /// The same option: name, Hub name, scope and help.
    fn eq(&self, other: &OptionDecl) -> bool {
        self.name == other.name
            && self.hub == other.hub
            && self.scope == other.scope
            && self.help == other.help
    }
}

impl Eq for OptionDecl {}

impl OptionDecl {
    /// Reads `text` (the option's value as a client sent it).
    pub fn read(&self, text: &str) -> Result<OptionValue, OptionError> {
        (self.read)(text, self)
    }

    /// The current value as text.
    #[must_use]
    pub fn write(&self, values: &OptionValues<'_>) -> String {
        (self.write)(values)
    }

    /// The default value as text.
    #[must_use]
    pub fn default_text(&self) -> String {
        let engine = EngineOptions::default();
        self.write(&OptionValues {
            engine: &engine,
            variant: Variant::English,
            reply: false,
        })
    }

    /// The type, range and default, as the handshake states them.
    #[must_use]
    pub fn kind(&self) -> OptionKind {
        let default = self.default_text();
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
pub fn find(registry: Registry, name: &str) -> Option<&'static OptionDecl> {
    registry.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The option Hub calls `hub_name` (case-insensitive) in `registry`.
#[must_use]
pub fn find_hub(registry: Registry, hub_name: &str) -> Option<&'static OptionDecl> {
    registry
        .iter()
        .find(|d| d.hub.is_some_and(|h| h.eq_ignore_ascii_case(hub_name)))
}

/// A value type an option can hold: read from text within the option's type
/// and range, written back as text.
pub trait OptionCodec: Sized {
    /// Reads `text` for option `decl`.
    fn read_value(text: &str, decl: &OptionDecl) -> Result<Self, OptionError>;
    /// The value as text.
    fn write_value(&self) -> String;
}

impl OptionCodec for bool {
    fn read_value(text: &str, decl: &OptionDecl) -> Result<bool, OptionError> {
        parse_bool(text).ok_or_else(|| decl.bad_value(text, "true or false".into()))
    }
    fn write_value(&self) -> String {
        self.to_string()
    }
}

macro_rules! spin_codec {
    ($($t:ty),*) => {$(
        impl OptionCodec for $t {
            fn read_value(text: &str, decl: &OptionDecl) -> Result<$t, OptionError> {
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
    fn read_value(text: &str, _: &OptionDecl) -> Result<String, OptionError> {
        Ok(text.trim().to_string())
    }
    fn write_value(&self) -> String {
        self.clone()
    }
}

impl OptionCodec for Level {
    fn read_value(text: &str, decl: &OptionDecl) -> Result<Level, OptionError> {
        text.parse::<Level>()
            .map_err(|_| decl.bad_value(text, one_of(&level_names())))
    }
    fn write_value(&self) -> String {
        self.name().to_string()
    }
}

impl OptionCodec for Evaluator {
    fn read_value(text: &str, decl: &OptionDecl) -> Result<Evaluator, OptionError> {
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

fn level_names() -> Vec<&'static str> {
    Level::ALL.iter().map(|l| l.name()).collect()
}

fn variant_names() -> Vec<&'static str> {
    Variant::ALL.iter().map(|v| v.name()).collect()
}

/// The declaration's own read and write, or those its value type gives.
macro_rules! or_typed {
    ([$given:expr] [$($typed:tt)*]) => {
        $given
    };
    ([] [$typed:expr]) => {
        $typed
    };
}

/// Declares the options: the registry in the order given, and for each entry
/// with a typed value (`=> Variant(field: Type = default)`) the
/// [`EngineOption`] variant, the [`EngineOptions`] field and its default.
macro_rules! declare_options {
    ($(
        $name:literal $(=> $variant:ident($field:ident: $ty:ty = $default:expr))? {
            hub: $hub:expr,
            scope: $scope:expr,
            ty: $oty:expr,
            help: $help:literal
            $(, read: $read:expr)?
            $(, write: $write:expr)?
            $(,)?
        }
    )*) => {
        /// One option of an engine, with its new value.
        #[derive(Clone, Debug, PartialEq)]
        pub enum EngineOption {
            $($(
                #[doc = $help]
                $variant($ty),
            )?)*
        }

        /// Every option of an engine, typed.
        #[derive(Clone, Debug, PartialEq)]
        pub struct EngineOptions {
            $($(
                #[doc = $help]
                pub $field: $ty,
            )?)*
        }

        impl Default for EngineOptions {
            fn default() -> Self {
                EngineOptions { $($($field: $default,)?)* }
            }
        }

        impl EngineOptions {
            /// Sets one option.
            pub fn apply(&mut self, option: EngineOption) {
                match option {
                    $($(EngineOption::$variant(v) => self.$field = v,)?)*
                }
            }
        }

        /// Every option kingme offers, in the handshake's order.
        pub static REGISTRY: Registry = &[$(
            OptionDecl {
                name: $name,
                hub: $hub,
                scope: $scope,
                ty: $oty,
                help: $help,
                read: or_typed!([$($read)?] [$(|text: &str, decl: &OptionDecl| {
                    <$ty as OptionCodec>::read_value(text, decl)
                        .map(|v| OptionValue::Engine(EngineOption::$variant(v)))
                })?]),
                write: or_typed!([$($write)?] [$(|v: &OptionValues<'_>| {
                    OptionCodec::write_value(&v.engine.$field)
                })?]),
            },
        )*];
    };
}

declare_options! {
    "Variant" {
        hub: Some("variant"),
        scope: Scope::Session,
        ty: OptionType::Combo { values: variant_names },
        help: "the rules: english or mini (changing it starts a new game)",
        read: |text: &str, _: &OptionDecl| text
            .parse::<Variant>()
            .map(OptionValue::Variant)
            .map_err(|e| OptionError::Invalid(e.to_string())),
        write: |v: &OptionValues<'_>| v.variant.name().to_string(),
    }
    "Level" => Level(level: Level = Level::Max) {
        hub: Some("level"),
        scope: Scope::Search,
        ty: OptionType::Combo { values: level_names },
        help: "strength and default think time: easy, medium, hard or max",
    }
    "Hash" => Hash(hash_mib: usize = DEFAULT_HASH_MIB) {
        hub: Some("hash"),
        scope: Scope::Engine,
        ty: OptionType::Spin { min: 1, max: MAX_HASH_MIB },
        help: "transposition table size in MiB",
    }
    "Threads" => Threads(threads: usize = 1) {
        hub: Some("threads"),
        scope: Scope::Engine,
        ty: OptionType::Spin { min: 1, max: MAX_THREADS },
        help: "search threads",
    }
    "Ponder" => Ponder(ponder: bool = false) {
        hub: None,
        scope: Scope::Search,
        ty: OptionType::Check,
        help: "the GUI may send go ponder",
    }
    "MiniTable" => MiniTable(mini_table: bool = true) {
        hub: Some("mini-table"),
        scope: Scope::Search,
        ty: OptionType::Check,
        help: "mini-checkers at level max: play perfectly from the solved table",
    }
    "EvalWeights" {
        hub: Some("eval-weights"),
        scope: Scope::Engine,
        ty: OptionType::Text,
        help: "English: the hand-set evaluation with these name=value weights",
        read: |text: &str, decl: &OptionDecl| EnglishWeights::parse(text)
            .map(|w| OptionValue::Engine(EngineOption::Eval(Evaluator::Hand(w))))
            .map_err(|e| decl.bad_value(
                text,
                format!("comma-separated name=value pairs: {}", e.reason),
            )),
        write: |v: &OptionValues<'_>| match &v.engine.eval {
            Evaluator::Hand(w) => w.to_string(),
            _ => String::new(),
        },
    }
    "EGDBPath" => EgdbPath(egdb_path: String = String::new()) {
        hub: Some("egdb-path"),
        scope: Scope::ServerFile { keywords: &[] },
        ty: OptionType::Text,
        help: "directory of the endgame databases (empty: the default one)",
    }
    "EGDBPieces" => EgdbPieces(egdb_pieces: u32 = MAX_EGDB_PIECES as u32) {
        hub: Some("egdb-pieces"),
        scope: Scope::Search,
        ty: OptionType::Spin { min: 0, max: MAX_EGDB_PIECES },
        help: "probe the databases in positions of at most this many pieces (0: off)",
    }
    "EGDBCache" => EgdbCache(egdb_cache_mib: usize = DEFAULT_EGDB_CACHE_MIB) {
        hub: Some("egdb-cache"),
        scope: Scope::Process,
        ty: OptionType::Spin { min: 1, max: MAX_EGDB_CACHE_MIB },
        help: "MiB of decoded database blocks in memory (one cache for the whole process)",
    }
    "EvalFile" => Eval(eval: Evaluator = Evaluator::default()) {
        hub: Some("eval-file"),
        scope: Scope::ServerFile { keywords: &["builtin", "hand", "patterns", "network"] },
        ty: OptionType::Text,
        help: "English evaluation: builtin (the network), patterns, network, hand, or a kingme weights or network file",
        write: |v: &OptionValues<'_>| match &v.engine.eval {
            Evaluator::Hand(_) => "hand".to_string(),
            e if *e == Evaluator::default() => "builtin".to_string(),
            e => e.describe(),
        },
    }
    "MultiPV" => MultiPv(multipv: usize = 1) {
        hub: Some("multipv"),
        scope: Scope::Search,
        ty: OptionType::Spin { min: 1, max: MAX_MULTIPV },
        help: "report the best N root moves each iteration",
    }
    "OwnBook" => OwnBook(own_book: bool = true) {
        hub: Some("book"),
        scope: Scope::Search,
        ty: OptionType::Check,
        help: "English at level max: answer game moves from the opening book",
    }
    "BookFile" => BookFile(book_file: String = String::new()) {
        hub: Some("book-file"),
        scope: Scope::ServerFile { keywords: &[] },
        ty: OptionType::Text,
        help: "the opening book (empty: the one inside kingme)",
    }
    "BookVariety" => BookVariety(book_variety: u32 = 0) {
        hub: Some("book-variety"),
        scope: Scope::Search,
        ty: OptionType::Spin { min: 0, max: MAX_BOOK_VARIETY },
        help: "choose among book moves within N centi-men of the best (0: the best)",
    }
    "Contempt" => Contempt(contempt: i32 = 0) {
        hub: Some("contempt"),
        scope: Scope::Search,
        ty: OptionType::Spin { min: -MAX_CONTEMPT, max: MAX_CONTEMPT },
        help: "English: a draw is worth N centi-men less than 0 to the engine (negative: more)",
    }
    "Reply" {
        hub: None,
        scope: Scope::Session,
        ty: OptionType::Check,
        help: "after play, the engine searches and plays its own move",
        read: |text: &str, decl: &OptionDecl| bool::read_value(text, decl).map(OptionValue::Reply),
        write: |v: &OptionValues<'_>| v.reply.to_string(),
    }
}

/// The engine's options (those not of the session), in handshake order.
pub fn engine_options() -> impl Iterator<Item = &'static OptionDecl> {
    REGISTRY.iter().filter(|d| d.scope != Scope::Session)
}

/// The names of the engine's options, in handshake order.
#[must_use]
pub fn option_names() -> Vec<String> {
    engine_options().map(|d| d.name.to_string()).collect()
}

/// Reads `setoption name NAME value VALUE` for one of the engine's options
/// (the name case-insensitive).
pub fn parse_option(name: &str, value: &str) -> Result<EngineOption, OptionError> {
    let decl = engine_options()
        .find(|d| d.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| OptionError::UnknownOption(name.to_string()))?;
    match decl.read(value)? {
        OptionValue::Engine(o) => Ok(o),
        _ => Err(OptionError::NotEngine(decl.name)),
    }
}

/// Gives `engine` an option it has read, reporting what it refuses in the
/// words of option `decl` and value `value`: a directory that can't be read
/// is a bad value of `EGDBPath`; one that holds no databases is taken (the
/// engine's notice says so).
pub fn give(
    engine: &mut Engine,
    decl: &OptionDecl,
    value: &str,
    option: EngineOption,
) -> Result<(), OptionError> {
    match engine.set(option) {
        Ok(()) => Ok(()),
        Err(EngineError::NoTablebase { reason, .. }) => Err(decl.bad_value(
            value,
            format!("a directory of endgame database files ({reason})"),
        )),
        Err(EngineError::NoBook { reason, .. }) => Err(decl.bad_value(
            value,
            format!("a kingme book file, or empty for the shipped book ({reason})"),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Sets an engine option from its text: [`parse_option`], then [`give`].
pub fn set_option(engine: &mut Engine, name: &str, value: &str) -> Result<(), OptionError> {
    let option = parse_option(name, value)?;
    let decl = find(REGISTRY, name).expect("parse_option found it");
    give(engine, decl, value, option)
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

/// PROTOCOL.md's option table, made from `registry`: one row an option,
/// with its Hub name, type and range, default and line of help.
#[must_use]
pub fn markdown_table(registry: Registry) -> String {
    let mut t = String::from(
        "| option | Hub | type | default | meaning |\n|--------|-----|------|---------|---------|\n",
    );
    for d in registry {
        let ty = match d.kind() {
            OptionKind::Check { .. } => "check".to_string(),
            OptionKind::Spin { min, max, .. } => format!("spin {min} to {max}"),
            OptionKind::Text { .. } => "string".to_string(),
            OptionKind::Combo { values, .. } => format!("combo {}", values.join(", ")),
        };
        let default = match d.default_text() {
            s if s.is_empty() => "<empty>".to_string(),
            s => s,
        };
        let hub = d.hub.map_or("-".to_string(), |h| format!("`{h}`"));
        t.push_str(&format!(
            "| {} | {hub} | {ty} | `{default}` | {} |\n",
            d.name, d.help
        ));
    }
    t
}
