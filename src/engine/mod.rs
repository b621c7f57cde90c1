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
    parse_bool, EngineError, EngineOptions, OptionKind, OptionSpec, DEFAULT_HASH_MIB,
    MAX_EGDB_PIECES, MAX_HASH_MIB, MAX_THREADS,
};

use crate::board::{Game, Move, Position};
use crate::egdb::Tablebase;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History, Iteration, SearchReport};
pub use crate::search::{Score, TraceNode};
use crate::solve::MiniTablebase;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::Mutex;
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
    /// Endgame database probes that gave a value.
    pub egdb_probes: u64,
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
            egdb_probes: it.stats.egdb_probes,
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
    /// The endgame databases, opened on first use.
    egdb: Egdb,
    /// A line about the databases for the user, said once.
    egdb_notice: Option<String>,
}

/// Where an engine stands with its endgame databases.
enum Egdb {
    /// Not looked for yet.
    Unopened,
    /// Found (possibly holding no slice).
    Open(Arc<Tablebase>),
    /// None found where they were looked for.
    Absent,
}

/// The databases in `dir`, shared by every engine of the process that uses
/// the same directory (the slices it loads are read-only).
fn open_tablebase(dir: &Path) -> Result<Arc<Tablebase>, String> {
    static OPEN: Mutex<Vec<(PathBuf, Arc<Tablebase>)>> = Mutex::new(Vec::new());
    let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, tb)) = open.iter().find(|(d, _)| d == dir) {
        return Ok(Arc::clone(tb));
    }
    let mut tb = Tablebase::new();
    tb.add_directory(dir).map_err(|e| e.to_string())?;
    let tb = Arc::new(tb);
    open.push((dir.to_path_buf(), Arc::clone(&tb)));
    Ok(tb)
}

fn describe_tablebase(tb: &Tablebase, dir: &Path) -> String {
    if tb.max_pieces() == 0 {
        format!(
            "no endgame database found in {} (kingme egdb build makes one); playing without",
            dir.display()
        )
    } else {
        format!(
            "endgame databases: {} slices, every position of up to {} pieces, in {}",
            tb.slices().len(),
            tb.max_pieces(),
            dir.display()
        )
    }
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
            egdb: Egdb::Unopened,
            egdb_notice: None,
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

    /// Sets an option by name (case-insensitive). Changing `Hash` reallocates the
    /// table; `EGDBPath` opens the databases there (an error if it is no directory).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let old_hash = self.options.hash_mib;
        let old_path = self.options.egdb_path.clone();
        self.options.set(name, value)?;
        if self.options.hash_mib != old_hash {
            self.tt = None;
        }
        if name.eq_ignore_ascii_case("EGDBPath") {
            if self.options.egdb_path.is_empty() {
                self.egdb = Egdb::Unopened;
                self.egdb_notice = None;
            } else {
                let dir = PathBuf::from(&self.options.egdb_path);
                match open_tablebase(&dir) {
                    Ok(tb) => {
                        self.egdb_notice = Some(describe_tablebase(&tb, &dir));
                        self.egdb = Egdb::Open(tb);
                    }
                    Err(e) => {
                        self.options.egdb_path = old_path;
                        return Err(EngineError::BadValue {
                            name: name.to_string(),
                            value: value.to_string(),
                            expected: format!("a directory of endgame database files ({e})"),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The endgame databases searches probe, looked for on the first call in
    /// `EGDBPath` or the default directory; `None` when `EGDBPieces` is 0 or
    /// none were found.
    pub fn tablebase(&mut self) -> Option<Arc<Tablebase>> {
        if self.options.egdb_pieces == 0 {
            return None;
        }
        if let Egdb::Unopened = self.egdb {
            let dir = crate::egdb::default_dir();
            self.egdb = match dir.as_deref().map(|d| (d, open_tablebase(d))) {
                Some((d, Ok(tb))) => {
                    self.egdb_notice = Some(describe_tablebase(&tb, d));
                    Egdb::Open(tb)
                }
                Some((d, Err(_))) => {
                    self.egdb_notice = Some(format!(
                        "no endgame database found in {} (kingme egdb build makes one); playing without",
                        d.display()
                    ));
                    Egdb::Absent
                }
                None => {
                    self.egdb_notice = Some(
                        "no endgame database found (no data directory; set EGDBPath); playing without"
                            .to_string(),
                    );
                    Egdb::Absent
                }
            };
        }
        match &self.egdb {
            Egdb::Open(tb) if tb.max_pieces() > 0 => Some(Arc::clone(tb)),
            _ => None,
        }
    }

    /// The line about the databases not yet said (where they are, or that none
    /// were found), once.
    pub fn take_egdb_notice(&mut self) -> Option<String> {
        self.egdb_notice.take()
    }

    /// The databases' value of `pos`, when they know it.
    pub fn database_value(&mut self, pos: &Position) -> Option<crate::egdb::Wdl> {
        if pos.variant() != crate::board::Variant::English
            || pos.occupied().count() > self.options.egdb_pieces
        {
            return None;
        }
        self.tablebase()?.probe_wdl(pos).ok()
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
        let mut sl = self.options.search_limits(&limits, &pos);
        if pos.variant() == crate::board::Variant::English {
            if let Some(tb) = self.tablebase() {
                sl.egdb_pieces = self.options.egdb_pieces.min(tb.max_pieces());
                sl.egdb = Some(tb);
            }
        }
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
                        egdb_probes: s.egdb_probes,
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
