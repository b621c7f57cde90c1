//! The engine: options, the transposition table, and searches on their own
//! threads that report only through events. No I/O happens here.
//!
//! - [`level`]: the difficulty levels.
//! - [`options`]: the typed options, their names and ranges, their errors.
//! - [`limits`]: the limits of one `go` and the search limits they become.
//! - [`handle`]: the handle of a running search.

mod answer;
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
use answer::{Answer, AnswerGuard, SharedAnswer};
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
    /// A failure to inject into the next search (unit tests only).
    #[cfg(test)]
    fault: Option<Fault>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

struct Reporter<'a> {
    answer: &'a SharedAnswer,
    /// A fault the unit tests inject: panic in the search, at the first iteration.
    panic_in_search: bool,
}

impl SearchReport for Reporter<'_> {
    fn iteration(&mut self, it: &Iteration) {
        assert!(
            !self.panic_in_search,
            "search made to panic (injected fault)"
        );
        answer::lock(self.answer).send(Event::Info(Info::from_iteration(it)));
    }
    fn trace(&mut self, node: TraceNode) {
        answer::lock(self.answer).send(Event::Trace(node));
    }
}

/// Failures the unit tests inject into the next search of an engine, to check
/// that every search still answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Fault {
    /// The search thread panics at its first iteration.
    PanicInSearch,
    /// No search thread can be started.
    NoThread,
}

impl Engine {
    /// An engine with default options.
    #[must_use]
    pub fn new() -> Engine {
        Engine {
            options: EngineOptions::default(),
            tt: None,
            #[cfg(test)]
            fault: None,
        }
    }

    /// Makes the next search fail as `fault` says (unit tests only).
    #[cfg(test)]
    pub(crate) fn inject_fault(&mut self, fault: Fault) {
        self.fault = Some(fault);
    }

    #[cfg(test)]
    fn take_fault(&mut self) -> Option<Fault> {
        self.fault.take()
    }

    #[cfg(not(test))]
    #[allow(clippy::unused_self)]
    fn take_fault(&mut self) -> Option<Fault> {
        None
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
        Score::Eval(self.options.eval.evaluate(pos))
    }

    /// Starts searching the current position of `game` on a new thread. Events
    /// go to `on_event` (called from the search thread); exactly one
    /// [`Event::BestMove`] ends every search, and nothing follows it. A search
    /// that fails still answers: when its thread panics the thread sends the
    /// first legal move, and when no thread can be started `go` sends it
    /// before returning.
    pub fn go(
        &mut self,
        game: &Game,
        limits: Limits,
        on_event: Box<dyn FnMut(Event) + Send>,
    ) -> SearchHandle {
        let pos = *game.position();
        let answer = Answer::new(on_event, pos.legal_moves().first().copied());
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
        let fault = self.take_fault();
        let c2 = Arc::clone(&control);
        let guard = AnswerGuard(Arc::clone(&answer));
        let search = move || {
            let guard = guard;
            let mut rep = Reporter {
                answer: &guard.0,
                panic_in_search: fault == Some(Fault::PanicInSearch),
            };
            let res = search::search(&pos, &hist, &sl, &tt, &c2, &mut rep);
            let secs = res.time.as_secs_f64().max(1e-6);
            let mut answer = answer::lock(&guard.0);
            if let Some(last) = &res.last {
                let s = res.stats;
                answer.send(Event::Info(Info {
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
            answer.send(Event::BestMove {
                mv: res.best,
                ponder: res.ponder,
            });
        };
        let thread = if fault == Some(Fault::NoThread) {
            drop(search);
            Err(std::io::Error::other("no thread (injected fault)"))
        } else {
            std::thread::Builder::new()
                .name("kingme-search".into())
                .spawn(search)
        };
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::error!(error = %e, "no search thread; answering with the first legal move");
                answer::lock(&answer).answer_with_fallback();
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
