//! The options every front end offers, each declared once in [`REGISTRY`]:
//! its name (the kingme protocol's and Hub's), scope, type, range, default,
//! one line of help, and how its text is read into a typed value and written
//! back. The engine's typed options ([`EngineOption`], [`EngineOptions`])
//! are made from the same declarations. The kingme handshake, `help`,
//! `setoption`, Hub's `hello` and `set-param`, the server's file policy and
//! PROTOCOL.md's option table are made from a registry.

use super::level::Level;
pub use super::option_decl::{
    find, find_hub, parse_bool, Declaration, OptionCodec, OptionError, OptionKind, OptionType,
    Scope,
};
pub use super::option_set::{give, set_option};
use super::options::{
    DEFAULT_EGDB_CACHE_MIB, DEFAULT_HASH_MIB, MAX_BOOK_VARIETY, MAX_CONTEMPT, MAX_EGDB_CACHE_MIB,
    MAX_EGDB_PIECES, MAX_HASH_MIB, MAX_MULTIPV, MAX_THREADS,
};
use crate::board::Variant;
use crate::eval::{EnglishWeights, Evaluator};

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
#[derive(Clone, Debug)]
pub struct OptionValues {
    /// The engine's options.
    pub engine: EngineOptions,
    /// The session's rules.
    pub variant: Variant,
    /// The session's `Reply`.
    pub reply: bool,
}

/// One of kingme's options, declared once.
pub type OptionDecl = Declaration<OptionValue, OptionValues>;

/// A set of option declarations, in the handshake's order.
pub type Registry = &'static [OptionDecl];

impl Default for OptionValues {
    /// Every option at its default.
    fn default() -> Self {
        OptionValues {
            engine: EngineOptions::default(),
            variant: Variant::English,
            reply: false,
        }
    }
}

impl OptionValues {
    /// Every option at its default, made once for the process.
    #[must_use]
    pub fn defaults() -> &'static OptionValues {
        static DEFAULTS: std::sync::OnceLock<OptionValues> = std::sync::OnceLock::new();
        DEFAULTS.get_or_init(OptionValues::default)
    }
}

impl OptionDecl {
    /// The default value as text.
    #[must_use]
    pub fn default_text(&self) -> String {
        self.write(OptionValues::defaults())
    }

    /// The type, range and default, as the handshake states them.
    #[must_use]
    pub fn kind(&self) -> OptionKind {
        self.kind_with(self.default_text())
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
                write: or_typed!([$($write)?] [$(|v: &OptionValues| {
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
        write: |v: &OptionValues| v.variant.name().to_string(),
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
        write: |v: &OptionValues| match &v.engine.eval {
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
        write: |v: &OptionValues| match &v.engine.eval {
            Evaluator::Hand(_) => "hand".to_string(),
            e if e == &OptionValues::defaults().engine.eval => "builtin".to_string(),
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
        write: |v: &OptionValues| v.reply.to_string(),
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
        .ok_or_else(|| OptionError::UnknownOption {
            name: name.to_string(),
            names: option_names().join(", "),
        })?;
    match decl.read(value)? {
        OptionValue::Engine(o) => Ok(o),
        _ => Err(OptionError::NotEngine(decl.name)),
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
