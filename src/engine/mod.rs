//! The engine: options, the transposition table, and searches on their own
//! threads that report only through events. No I/O happens here.
//!
//! - `level`: the difficulty levels.
//! - `options`: the options' limits and defaults, and the errors of setting one.
//! - `option_decl`: the vocabulary of option declarations (scope, type,
//!   range, one declaration, the value types an option holds).
//! - [`option_table`]: every option declared once (name, Hub name, scope,
//!   type, range, default, help, how its text is read and written), the
//!   typed options made from the same declarations; every front end's
//!   handshake, `setoption`, Hub's `hello` and `set-param`, the file policy
//!   and the error lines use it; `option_set`: an option set from its
//!   text, the engine's refusals in the option's words.
//! - `limits`: the limits of one `go` and the search limits they become.
//! - `mini`: the policy for the solved mini-checkers table: whether it may
//!   be built, starting its build, waiting for it.
//! - `handle`: the handle of a running search; `job`: the search as its
//!   thread runs it, reporting through events; `review`: a game review as
//!   one search ([`crate::review`] judging each position's search).
//! - `tablebases`: the endgame databases, one open set per directory shared
//!   by the process's engines, read in the background.
//! - `slot`: one front end's search as a state machine (idle, queued,
//!   searching), shared by the kingme session, Hub and DXP.
//! - `event`: what a search reports (`Event`, `Info`); `move_comment`: what
//!   an engine reported of its move, as a PDN comment (`{+0.25/12 0.20s}`).
//! - `fault`: failures the unit tests inject.

mod answer;
mod event;
pub(crate) mod fault;
mod handle;
mod job;
mod level;
mod limits;
mod mini;
mod move_comment;
mod option_decl;
mod option_set;
pub mod option_table;
mod options;
mod own_book;
mod review;
mod slot;
mod tablebases;

use event::OnEvent;
pub use event::{Event, Info};
pub use handle::SearchHandle;
use job::SearchJob;
pub use level::{levels_help, levels_table, Level, ParseLevelError};
pub use limits::{GoLimits, GO_KEYS};
use mini::mini_table_allowed;
pub use mini::{allow_mini_table, mini_table, prepare_mini_table, MINI_TABLE_ENV};
pub use move_comment::{MoveComment, ParseCommentError};
pub use option_table::{EngineOption, EngineOptions};
pub use options::{
    EngineError, DEFAULT_EGDB_CACHE_MIB, DEFAULT_HASH_MIB, MAX_BOOK_VARIETY, MAX_CONTEMPT,
    MAX_EGDB_CACHE_MIB, MAX_EGDB_PIECES, MAX_HASH_MIB, MAX_MULTIPV, MAX_THREADS,
};
pub use review::ReviewEnd;
pub use slot::{Phase, SearchId, SearchSlot, SlotToken, Stopped};
pub use tablebases::open_tablebases;
use tablebases::{describe_tablebase, open_builtin_tablebase, open_tablebase};

use crate::board::{Game, Move, Position};
use crate::egdb::Tablebase;
use crate::perft::{Counting, PerftInterrupted};
use crate::search::tt::{TableAllocError, TranspositionTable};
use crate::search::{self, Control, History};
pub use crate::search::{Score, TraceNode};
use answer::{Answer, AnswerGuard};
use fault::Fault;
use own_book::BookState;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The engine of one session: options, transposition table, searches.
pub struct Engine {
    options: EngineOptions,
    /// Allocated by the first search, so an idle session costs no table.
    tt: Option<Arc<TranspositionTable>>,
    /// The endgame databases, opened on first use.
    egdb: Egdb,
    /// A line about the databases for the user, said once.
    egdb_notice: Option<String>,
    /// The opening book.
    book: BookState,
}

/// Where an engine stands with its endgame databases.
enum Egdb {
    /// Not looked for yet.
    Unopened,
    /// Found (possibly holding no slice), or the ones built in.
    Open(Arc<Tablebase>),
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
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
            book: BookState::Unopened,
        }
    }

    /// Sets the table size without allocating the table: the next search
    /// does, so an engine that never searches holds none (a server's
    /// session). Any table already allocated is dropped.
    pub fn set_hash_lazily(&mut self, mib: usize) {
        if mib != self.options.hash_mib {
            self.options.hash_mib = mib;
            self.tt = None;
        }
    }

    /// The book played from, opened on first use; `None` with `OwnBook` off.
    pub fn book(&mut self) -> Option<Arc<crate::book::Book>> {
        self.book.book(&self.options)
    }

    /// The book's moves in `pos`, best first, when the book holds it.
    pub fn book_moves(&mut self, pos: &Position) -> Option<Vec<crate::book::BookMove>> {
        self.book()?.probe(pos)
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

    /// Sets an option. Changing `Hash` allocates the new table at once, and
    /// `EgdbPath` opens the databases there; when that fails the old value,
    /// table and databases stay.
    pub fn set(&mut self, option: EngineOption) -> Result<(), EngineError> {
        let mut options = self.options.clone();
        let egdb_path = matches!(option, EngineOption::EgdbPath(_));
        let option_copy = option.clone();
        options.apply(option);
        if options.hash_mib != self.options.hash_mib {
            self.tt = Some(Arc::new(allocate_table(options.hash_mib)?));
        }
        if let EngineOption::EgdbCache(mib) = option_copy {
            crate::egdb::cache::set_capacity(mib << 20);
        }
        if let EngineOption::BookFile(path) = &option_copy {
            self.book = BookState::Open(own_book::open_book(path)?);
        }
        if egdb_path {
            if options.egdb_path.is_empty() {
                self.egdb = Egdb::Unopened;
                self.egdb_notice = None;
            } else {
                let dir = PathBuf::from(&options.egdb_path);
                let tb = open_tablebase(&dir).map_err(|reason| EngineError::NoTablebase {
                    dir: options.egdb_path.clone(),
                    reason,
                })?;
                self.egdb_notice = Some(describe_tablebase(&tb, Some(&dir)));
                self.egdb = Egdb::Open(tb);
            }
        }
        self.options = options;
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
            // the default directory, else (none there) the slices built in
            let dir = crate::egdb::default_dir();
            let (tb, dir) = match dir.as_deref().map(|d| (d, open_tablebase(d))) {
                Some((d, Ok(tb))) => (tb, Some(d)),
                _ => (open_builtin_tablebase(), None),
            };
            self.egdb_notice = Some(describe_tablebase(&tb, dir));
            self.egdb = Egdb::Open(tb);
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

    /// The table, allocated now if there is none yet (the smallest one when
    /// the size asked for can't be had).
    fn table(&mut self) -> Arc<TranspositionTable> {
        if let Some(tt) = &self.tt {
            return Arc::clone(tt);
        }
        let mib = self.options.hash_mib;
        let tt = allocate_table(mib).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "using the smallest transposition table");
            TranspositionTable::try_new(1).expect("memory for a 1 MiB table")
        });
        let tt = Arc::new(tt);
        self.tt = Some(Arc::clone(&tt));
        tt
    }

    /// Forgets everything learned (clears the transposition table), and
    /// starts what a game of `variant` will need: at level max in
    /// mini-checkers, the solved table's build, so that it is ready (or
    /// nearly) when the first search wants it.
    pub fn new_game(&mut self, variant: crate::board::Variant) {
        if let Some(tt) = &self.tt {
            tt.clear();
        }
        if variant == crate::board::Variant::Mini
            && self.options.mini_table
            && self.options.level == Level::Max
        {
            let _ = mini_table();
        }
    }

    /// The exact value of each legal move of `pos` for the player making it,
    /// where known: the solved mini-checkers table (once built, with
    /// MiniTable on), or the English endgame databases (a database win is
    /// certain, of unknown length: [`Score::DATABASE_PLIES`]).
    pub fn move_values(&mut self, pos: &Position) -> Vec<(Move, Score)> {
        match pos.variant() {
            crate::board::Variant::Mini => {
                if !self.options.mini_table {
                    return Vec::new();
                }
                let Some(tb) = mini_table() else {
                    return Vec::new();
                };
                tb.move_values(pos)
                    .into_iter()
                    .map(|(m, v)| (m, Score::from(v)))
                    .collect()
            }
            crate::board::Variant::English => pos
                .legal_moves()
                .iter()
                .filter_map(|&m| {
                    // the child's value is the opponent's
                    let v = self.database_value(&pos.after(m))?;
                    Some((m, -Score::from(v)))
                })
                .collect(),
        }
    }

    /// Before searching `pos`: where a database would count (English, few
    /// enough pieces), the line about the databases not yet said.
    pub fn notice_before_search(&mut self, pos: &Position) -> Option<String> {
        if pos.variant() != crate::board::Variant::English
            || pos.occupied().count() > MAX_EGDB_PIECES as u32
        {
            return None;
        }
        let _ = self.tablebase();
        self.take_egdb_notice()
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
        limits: GoLimits,
        on_event: Box<dyn FnMut(Event) + Send>,
    ) -> SearchHandle {
        let pos = *game.position();
        let answer = Answer::new(on_event, pos.legal_moves().first().copied());
        if let Some(bm) = self.book.answer(&self.options, &pos, &limits) {
            let mut a = answer::lock(&answer);
            a.send(Event::Book {
                mv: bm.mv,
                score: bm.score,
                depth: bm.depth,
            });
            a.send(Event::BestMove {
                mv: Some(bm.mv),
                ponder: None,
            });
            return SearchHandle {
                control: Arc::new(Control::default()),
                start: Instant::now(),
                thread: None,
            };
        }
        let (sl, wait_for_table) = self.limits_for(&limits, &pos);
        let control = Arc::new(Control::default());
        control
            .hold
            .store(limits.infinite || limits.ponder, Ordering::SeqCst);
        let job = SearchJob {
            pos,
            hist: history_of(game),
            sl,
            wait_for_table,
            tt: self.table(),
            control: Arc::clone(&control),
            panic_in_search: fault::take(Fault::PanicInSearch),
        };
        job.tt.new_search();
        let no_thread = fault::take(Fault::NoThread);
        let guard = AnswerGuard(Arc::clone(&answer));
        let thread = if no_thread {
            Err(std::io::Error::other("no thread (injected fault)"))
        } else {
            std::thread::Builder::new()
                .name("kingme-search".into())
                .spawn(move || job.run(&guard))
        };
        SearchHandle::spawned(control, &answer, thread)
    }

    /// The search limits of a `go` of `pos` (the level's, the databases'),
    /// and whether the search should first wait for the mini table's build.
    fn limits_for(&mut self, limits: &GoLimits, pos: &Position) -> (search::SearchLimits, bool) {
        let tb = match pos.variant() {
            crate::board::Variant::English => self.tablebase(),
            crate::board::Variant::Mini => None,
        };
        let sl = limits_with(&self.options, tb.as_ref(), limits, pos);
        let wait_for_table = sl.mini_table.is_none()
            && self.options.plays_from_mini_table(pos)
            && mini_table_allowed();
        (sl, wait_for_table)
    }

    /// Counts the leaves `depth` plies below `pos` (every capture path counted)
    /// on a new thread, giving up when stopped or past `budget` leaves: a
    /// search like any other for the front end, answered by exactly one
    /// [`Event::Perft`].
    #[allow(clippy::unused_self)]
    pub fn perft(
        &mut self,
        pos: &Position,
        depth: u32,
        budget: u64,
        on_event: Box<dyn FnMut(Event) + Send>,
    ) -> SearchHandle {
        let control = Arc::new(Control::default());
        let c2 = Arc::clone(&control);
        let pos = *pos;
        let start = Instant::now();
        let answer = Arc::new(Mutex::new(Some(on_event)));
        let a2 = Arc::clone(&answer);
        let send = move |answer: &Mutex<Option<OnEvent>>, leaves, time| {
            let mut slot = answer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(mut f) = slot.take() {
                f(Event::Perft {
                    depth,
                    leaves,
                    time,
                });
            }
        };
        let thread = std::thread::Builder::new()
            .name("kingme-perft".into())
            .spawn(move || {
                // the count's own time, not the thread's start
                let t = Instant::now();
                let leaves =
                    crate::perft::perft_bounded(&pos, depth, Counting::AllPaths, &c2.stop, budget);
                send(&a2, leaves, t.elapsed());
            });
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::error!(error = %e, "no perft thread");
                send(&answer, Err(PerftInterrupted::Stopped(0)), Duration::ZERO);
                None
            }
        };
        SearchHandle {
            control,
            start,
            thread,
        }
    }

    /// Searches synchronously and returns the events (convenience for tools and tests).
    pub fn search_blocking(&mut self, game: &Game, limits: GoLimits) -> Vec<Event> {
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

/// The search limits of `limits` in `pos` under `options`, with the
/// databases `tb` (English).
fn limits_with(
    options: &EngineOptions,
    tb: Option<&Arc<Tablebase>>,
    limits: &GoLimits,
    pos: &Position,
) -> search::SearchLimits {
    let mut sl = options.search_limits(limits, pos);
    if pos.variant() == crate::board::Variant::English {
        if let Some(tb) = tb {
            // the built-in slices of 6 pieces are not all of them: a
            // position of a missing slice is evaluated
            sl.egdb_pieces = options.egdb_pieces.min(tb.probe_pieces());
            sl.egdb = Some(Arc::clone(tb));
        }
    }
    sl
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

/// A new table of `mib` MiB.
fn allocate_table(mib: usize) -> Result<TranspositionTable, TableAllocError> {
    if fault::take(Fault::NoMemory) {
        return Err(TableAllocError { mib });
    }
    TranspositionTable::try_new(mib)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_that_cannot_be_allocated_keeps_the_old_one() {
        let mut e = Engine::new();
        e.set(EngineOption::Hash(2)).unwrap();
        let before = Arc::clone(e.tt.as_ref().unwrap());
        fault::inject(Fault::NoMemory);
        let err = e.set(EngineOption::Hash(8)).unwrap_err();
        assert_eq!(err, EngineError::NoMemory(TableAllocError { mib: 8 }));
        assert_eq!(e.hash_mib(), 2);
        assert!(Arc::ptr_eq(&before, e.tt.as_ref().unwrap()));
        e.set(EngineOption::Hash(4)).unwrap();
        assert_eq!(e.hash_mib(), 4);
        assert!(!Arc::ptr_eq(&before, e.tt.as_ref().unwrap()));
    }

    #[test]
    fn a_lazily_set_table_is_allocated_by_the_first_search_only() {
        let mut e = Engine::new();
        e.set_hash_lazily(2);
        assert_eq!(e.hash_mib(), 2);
        assert!(e.tt.is_none(), "no table before a search");
        let game = Game::new(crate::board::Variant::English);
        e.search_blocking(
            &game,
            GoLimits {
                depth: Some(2),
                ..Default::default()
            },
        );
        let first = Arc::clone(e.tt.as_ref().expect("the search allocated it"));
        e.set_hash_lazily(2);
        assert!(
            Arc::ptr_eq(&first, e.tt.as_ref().unwrap()),
            "same size kept"
        );
        e.set_hash_lazily(4);
        assert_eq!(e.hash_mib(), 4);
        assert!(e.tt.is_none(), "another size drops the table");
    }
}
