//! The engine: options, the transposition table, and searches on their own
//! threads that report only through events. No I/O happens here.

use crate::board::{Game, Move, Position, Variant};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History, Iteration, SearchLimits, SearchReport};
pub use crate::search::{Score, TraceNode};
use crate::solve::MiniTablebase;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = EngineError;
    fn from_str(s: &str) -> Result<Level, EngineError> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| EngineError::BadValue {
                name: "Level".into(),
                value: s.into(),
                expected: "easy, medium, hard or max".into(),
            })
    }
}

/// Engine errors.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// No option with that name.
    #[error(
        "unknown option '{0}' (options: Level, Hash, Threads, Ponder, MiniTable, EvalWeights)"
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
        default: &'static str,
    },
    /// One of a list of words.
    Combo {
        /// Default value.
        default: &'static str,
        /// Allowed values.
        values: Vec<&'static str>,
    },
}

/// An option the engine accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The option's name.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// Largest transposition table, in MiB.
pub const MAX_HASH_MIB: i64 = 4096;
/// Most search threads.
pub const MAX_THREADS: i64 = 64;

/// Limits of one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Black's clock.
    pub btime: Option<Duration>,
    /// White's clock.
    pub wtime: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Emit the search tree as trace events, at most this many nodes.
    pub trace: Option<u64>,
}

impl Limits {
    fn has_limit(&self) -> bool {
        self.depth.is_some()
            || self.nodes.is_some()
            || self.movetime.is_some()
            || self.wtime.is_some()
            || self.btime.is_some()
            || self.infinite
            || self.ponder
    }
}

/// Statistics of one iteration, as the protocol's `info` line shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score from the side to move's view.
    pub score: Score,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Cut-offs in total.
    pub prunes: u64,
    /// Cut-offs where the engine's side was to move.
    pub prunes_max: u64,
    /// Cut-offs where the opponent was to move.
    pub prunes_min: u64,
    /// Usable transposition table hits.
    pub tt_hits: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since `go`.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
}

impl Info {
    fn from_iteration(it: &Iteration) -> Info {
        let secs = it.time.as_secs_f64().max(1e-6);
        Info {
            depth: it.depth,
            seldepth: it.stats.seldepth,
            score: it.score,
            nodes: it.stats.nodes,
            prunes: it.stats.prunes_max + it.stats.prunes_min,
            prunes_max: it.stats.prunes_max,
            prunes_min: it.stats.prunes_min,
            tt_hits: it.stats.tt_hits,
            nps: (it.stats.nodes as f64 / secs) as u64,
            time: it.time,
            pv: it.pv.clone(),
        }
    }
}

/// What a search reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A completed iteration, and a final summary before `BestMove`.
    Info(Info),
    /// One node of the search tree (only with `Limits::trace`).
    Trace(TraceNode),
    /// The answer: exactly one per search. `mv` is `None` only without a legal move.
    BestMove {
        /// The move to play.
        mv: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
    },
}

/// A running search: stop it, release a ponder, or wait for it. Dropping it
/// stops and joins the search thread.
pub struct SearchHandle {
    control: Arc<Control>,
    start: Instant,
    thread: Option<JoinHandle<()>>,
}

impl SearchHandle {
    /// Asks the search to end now; it still sends its `BestMove`.
    pub fn stop(&self) {
        self.control.hold.store(false, Ordering::SeqCst);
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: the ponder search goes on as a normal one.
    pub fn ponderhit(&self) {
        let us = self.start.elapsed().as_micros() as u64;
        self.control.clock_start_us.store(us, Ordering::SeqCst);
        self.control.hold.store(false, Ordering::SeqCst);
    }

    /// Whether the search thread has finished (its `BestMove` was sent).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Blocks until the search ends by itself.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SearchHandle {
    fn drop(&mut self) {
        self.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The engine of one session: options, transposition table, searches.
pub struct Engine {
    level: Level,
    hash_mib: usize,
    threads: usize,
    ponder: bool,
    mini_table: bool,
    weights: crate::eval::EnglishWeights,
    /// Allocated by the first search, so an idle session costs no table.
    tt: Option<Arc<TranspositionTable>>,
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MIB: usize = 16;

struct Reporter<'a> {
    on_event: &'a mut (dyn FnMut(Event) + Send),
}

impl SearchReport for Reporter<'_> {
    fn iteration(&mut self, it: &Iteration) {
        (self.on_event)(Event::Info(Info::from_iteration(it)));
    }
    fn trace(&mut self, node: TraceNode) {
        (self.on_event)(Event::Trace(node));
    }
}

impl Engine {
    /// An engine with default options.
    #[must_use]
    pub fn new() -> Engine {
        Engine {
            level: Level::Max,
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            ponder: false,
            mini_table: true,
            weights: crate::eval::EnglishWeights::default(),
            tt: None,
        }
    }

    /// The options and their ranges.
    #[must_use]
    pub fn option_specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                name: "Level",
                kind: OptionKind::Combo {
                    default: "max",
                    values: Level::ALL.iter().map(|l| l.name()).collect(),
                },
            },
            OptionSpec {
                name: "Hash",
                kind: OptionKind::Spin {
                    default: DEFAULT_HASH_MIB as i64,
                    min: 1,
                    max: MAX_HASH_MIB,
                },
            },
            OptionSpec {
                name: "Threads",
                kind: OptionKind::Spin {
                    default: 1,
                    min: 1,
                    max: MAX_THREADS,
                },
            },
            OptionSpec {
                name: "Ponder",
                kind: OptionKind::Check { default: false },
            },
            OptionSpec {
                name: "MiniTable",
                kind: OptionKind::Check { default: true },
            },
            OptionSpec {
                name: "EvalWeights",
                kind: OptionKind::Text { default: "" },
            },
        ]
    }

    /// The current level.
    #[must_use]
    pub fn level(&self) -> Level {
        self.level
    }

    /// The transposition table size in MiB.
    #[must_use]
    pub fn hash_mib(&self) -> usize {
        self.hash_mib
    }

    /// The number of search threads.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets an option by name (case-insensitive). Changing `Hash` reallocates the table.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
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
                if mib != self.hash_mib {
                    self.hash_mib = mib;
                    self.tt = None;
                }
            }
            "threads" => self.threads = spin(1, MAX_THREADS)? as usize,
            "ponder" => {
                self.ponder = parse_bool(value).ok_or_else(|| bad("true or false".into()))?
            }
            "evalweights" => {
                self.weights = crate::eval::EnglishWeights::parse(value)
                    .map_err(|e| bad(format!("comma-separated name=value pairs: {}", e.reason)))?
            }
            "minitable" => {
                self.mini_table = parse_bool(value).ok_or_else(|| bad("true or false".into()))?
            }
            _ => return Err(EngineError::UnknownOption(name.to_string())),
        }
        Ok(())
    }

    /// Forgets everything learned (clears the transposition table).
    pub fn new_game(&mut self) {
        if let Some(tt) = &self.tt {
            tt.clear();
        }
    }

    /// The static evaluation of `pos`, side to move's view.
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> Score {
        Score::Eval(crate::eval::evaluate_with(pos, &self.weights))
    }

    /// Turns protocol limits into search limits for the side to move.
    fn search_limits(&self, limits: &Limits, pos: &Position) -> SearchLimits {
        let mut sl = SearchLimits {
            depth: limits.depth,
            nodes: limits.nodes,
            noise: self.level.noise(),
            seed: if self.level.noise() > 0 {
                Instant::now().elapsed().as_nanos() as u64 ^ rand_seed()
            } else {
                0
            },
            trace: limits.trace,
            threads: self.threads,
            weights: self.weights,
            mini_table: if pos.variant() == Variant::Mini
                && self.level == Level::Max
                && self.mini_table
            {
                mini_table()
            } else {
                None
            },
            ..Default::default()
        };
        if let Some(d) = self.level.max_depth() {
            sl.depth = Some(sl.depth.map_or(d, |x| x.min(d)));
        }
        if let Some(mt) = limits.movetime {
            let hard = mt
                .saturating_sub(Duration::from_millis(3))
                .max(Duration::from_millis(1));
            sl.hard_time = Some(hard);
            sl.soft_time = Some(hard);
        } else {
            let (left, inc) = match pos.turn() {
                crate::board::Color::Black => (limits.btime, limits.binc),
                crate::board::Color::White => (limits.wtime, limits.winc),
            };
            if let Some(left) = left {
                let (soft, hard) =
                    search::clock_budget(left, inc.unwrap_or_default(), limits.movestogo);
                sl.soft_time = Some(soft);
                sl.hard_time = Some(hard);
            } else if !limits.has_limit() {
                let mt = self.level.default_movetime();
                sl.hard_time = Some(mt);
                sl.soft_time = Some(mt);
            }
        }
        sl
    }

    /// Starts searching the current position of `game` on a new thread. Events
    /// go to `on_event` (called from the search thread); exactly one
    /// [`Event::BestMove`] ends every search.
    pub fn go(
        &mut self,
        game: &Game,
        limits: Limits,
        on_event: Box<dyn FnMut(Event) + Send>,
    ) -> SearchHandle {
        // shared with the fallback below, used when no thread can be started
        let on_event = Arc::new(std::sync::Mutex::new(on_event));
        let fallback = Arc::clone(&on_event);
        let pos = *game.position();
        let hist = history_of(game);
        let sl = self.search_limits(&limits, &pos);
        let control = Arc::new(Control::default());
        if limits.infinite || limits.ponder {
            control.hold.store(true, Ordering::SeqCst);
        }
        let tt = Arc::clone(
            self.tt
                .get_or_insert_with(|| Arc::new(TranspositionTable::new(self.hash_mib))),
        );
        tt.new_search();
        let c2 = Arc::clone(&control);
        let thread = std::thread::Builder::new()
            .name("kingme-search".into())
            .spawn(move || {
                let mut guard = on_event.lock().unwrap_or_else(|p| p.into_inner());
                let on_event = &mut **guard;
                let mut rep = Reporter {
                    on_event: &mut *on_event,
                };
                let res = search::search(&pos, &hist, &sl, &tt, &c2, &mut rep);
                let secs = res.time.as_secs_f64().max(1e-6);
                if let Some(last) = &res.last {
                    let s = res.stats;
                    (on_event)(Event::Info(Info {
                        depth: last.depth,
                        seldepth: s.seldepth,
                        score: last.score,
                        nodes: s.nodes,
                        prunes: s.prunes_max + s.prunes_min,
                        prunes_max: s.prunes_max,
                        prunes_min: s.prunes_min,
                        tt_hits: s.tt_hits,
                        nps: (s.nodes as f64 / secs) as u64,
                        time: res.time,
                        pv: last.pv.clone(),
                    }));
                }
                (on_event)(Event::BestMove {
                    mv: res.best,
                    ponder: res.ponder,
                });
            });
        let thread = match thread {
            Ok(t) => Some(t),
            Err(_) => {
                // no search thread: answer at once with the first legal move
                let mv = pos.legal_moves().first().copied();
                let mut f = fallback.lock().unwrap_or_else(|p| p.into_inner());
                (f)(Event::BestMove { mv, ponder: None });
                None
            }
        };
        SearchHandle {
            control,
            start: Instant::now(),
            thread,
        }
    }

    /// Searches synchronously and returns the events (convenience for tools and tests).
    pub fn search_blocking(&mut self, game: &Game, limits: Limits) -> Vec<Event> {
        let (tx, rx) = std::sync::mpsc::channel();
        let h = self.go(
            game,
            limits,
            Box::new(move |e| {
                let _ = tx.send(e);
            }),
        );
        h.wait();
        rx.into_iter().collect()
    }
}

fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    h.finish()
}

/// The exact mini-checkers table if it is built. Otherwise the first call starts
/// building it on a background thread (about 10 s and 0.2 GB once per process;
/// searches use heuristics until then), unless the environment variable
/// `KINGME_MINI_TABLE` is `off`.
#[must_use]
pub fn mini_table() -> Option<&'static MiniTablebase> {
    if let Some(t) = MiniTablebase::try_global() {
        return Some(t);
    }
    if std::env::var_os("KINGME_MINI_TABLE").is_none_or(|v| v != "off") {
        MiniTablebase::prepare_in_background();
    }
    None
}

/// Builds the exact mini-checkers table now (blocking) so that searches at level
/// `max` play mini-checkers perfectly from the first move.
pub fn prepare_mini_table() -> &'static MiniTablebase {
    MiniTablebase::global()
}

/// The hashes of the game's positions that can still repeat, for the search.
#[must_use]
pub fn history_of(game: &Game) -> History {
    let positions = game.positions();
    let quiet = game.quiet_plies();
    let n = positions.len();
    let from = n.saturating_sub(quiet as usize + 1);
    History {
        hashes: positions[from..n - 1].iter().map(|p| p.hash()).collect(),
        quiet,
    }
}

/// The default variant of a new session.
pub const DEFAULT_VARIANT: Variant = Variant::English;
