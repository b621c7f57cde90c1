//! The engine: options, the transposition table, and searches on their own
//! threads that report only through events. No I/O happens here.
//!
//! - [`level`]: the difficulty levels.
//! - [`options`]: the typed options, their names and ranges, their errors.
//! - [`limits`]: the limits of one `go` and the search limits they become.
//! - [`handle`]: the handle of a running search.

mod handle;
mod level;
mod limits;
mod options;

pub use handle::SearchHandle;
pub use level::Level;
pub use limits::Limits;
pub use options::{
    parse_bool, EngineError, EngineOptions, OptionKind, OptionSpec, DEFAULT_HASH_MIB, MAX_HASH_MIB,
    MAX_THREADS,
};

use crate::board::{Game, Move, Position};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History, Iteration, SearchReport};
pub use crate::search::{Score, TraceNode};
use crate::solve::MiniTablebase;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// The engine of one session: options, transposition table, searches.
pub struct Engine {
    options: EngineOptions,
    /// Allocated by the first search, so an idle session costs no table.
    tt: Option<Arc<TranspositionTable>>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

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
            options: EngineOptions::default(),
            tt: None,
        }
    }

    /// The options and their ranges.
    #[must_use]
    pub fn option_specs() -> Vec<OptionSpec> {
        EngineOptions::specs()
    }

    /// The current options.
    #[must_use]
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The current level.
    #[must_use]
    pub fn level(&self) -> Level {
        self.options.level
    }

    /// The transposition table size in MiB.
    #[must_use]
    pub fn hash_mib(&self) -> usize {
        self.options.hash_mib
    }

    /// The number of search threads.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.options.threads
    }

    /// Sets an option by name (case-insensitive). Changing `Hash` reallocates the table.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let old_hash = self.options.hash_mib;
        self.options.set(name, value)?;
        if self.options.hash_mib != old_hash {
            self.tt = None;
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
        Score::Eval(crate::eval::evaluate_with(pos, &self.options.weights))
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
        let sl = self.options.search_limits(&limits, &pos);
        let control = Arc::new(Control::default());
        if limits.infinite || limits.ponder {
            control.hold.store(true, Ordering::SeqCst);
        }
        let tt = Arc::clone(
            self.tt
                .get_or_insert_with(|| Arc::new(TranspositionTable::new(self.options.hash_mib))),
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
