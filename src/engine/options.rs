//! The engine's options as typed values: every option of an engine, one
//! option to change, and the errors of changing one. Their names, ranges and
//! text are declared in [`super::option_table`].

use super::Level;
use crate::eval::Evaluator;
use crate::search::tt::TableAllocError;

/// Why the engine could not take an option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The transposition table of the size asked for can't be allocated; the
    /// engine keeps its old size and table.
    #[error("{0}; Hash is unchanged")]
    NoMemory(#[from] TableAllocError),
    /// The endgame database directory can't be opened; the engine keeps its
    /// old databases.
    #[error("no endgame databases in {dir}: {reason}")]
    NoTablebase {
        /// The directory given.
        dir: String,
        /// Why it can't be used.
        reason: String,
    },
    /// The book file can't be used; the engine keeps its old book.
    #[error("no opening book in {file}: {reason}")]
    NoBook {
        /// The file given.
        file: String,
        /// Why it can't be used.
        reason: String,
    },
}

/// One option of an engine, with its new value.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineOption {
    /// Strength.
    Level(Level),
    /// Transposition table size in MiB (1 to [`MAX_HASH_MIB`]).
    Hash(usize),
    /// Search threads (1 to [`MAX_THREADS`]).
    Threads(usize),
    /// Whether the client may ask for pondering.
    Ponder(bool),
    /// Use the exact mini-checkers table at level max.
    MiniTable(bool),
    /// How English positions are evaluated.
    Eval(Evaluator),
    /// Directory of the English endgame databases (empty: the default one).
    EgdbPath(String),
    /// Probe the databases in positions of at most this many pieces (0 to
    /// [`MAX_EGDB_PIECES`]; 0: off).
    EgdbPieces(u32),
    /// MiB of decoded database blocks kept in memory, one cache for the
    /// whole process (1 to [`MAX_EGDB_CACHE_MIB`]).
    EgdbCache(usize),
    /// Root moves reported per iteration, best first (1 to [`MAX_MULTIPV`]).
    MultiPv(usize),
    /// Play from the opening book.
    OwnBook(bool),
    /// The book file (empty: the shipped book).
    BookFile(String),
    /// Centi-men below the best book move that a book move may still be
    /// chosen at (0: always the best; 0 to [`MAX_BOOK_VARIETY`]).
    BookVariety(u32),
    /// Centi-men an English draw is worth less than 0 to the engine (negative:
    /// more); -[`MAX_CONTEMPT`] to [`MAX_CONTEMPT`].
    Contempt(i32),
}

/// Largest `Contempt` either way, in centi-men.
pub const MAX_CONTEMPT: i64 = 100;

/// Largest `BookVariety`.
pub const MAX_BOOK_VARIETY: i64 = 100;

/// Largest transposition table, in MiB.
pub const MAX_HASH_MIB: i64 = 4096;
/// Most search threads.
pub const MAX_THREADS: i64 = 64;

/// Largest `MultiPV`.
pub const MAX_MULTIPV: i64 = 64;

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
    pub eval: Evaluator,
    /// Directory of the English endgame databases (empty: `KINGME_EGDB`, else
    /// the platform data directory).
    pub egdb_path: String,
    /// Probe the databases in positions of at most this many pieces (0: off).
    pub egdb_pieces: u32,
    /// MiB of decoded database blocks (the process's one cache).
    pub egdb_cache_mib: usize,
    /// Root moves reported per iteration, best first (1: the best move only).
    pub multipv: usize,
    /// Play from the opening book (on by default: the shipped book won its
    /// match, see `src/book/BOOK.md`).
    pub own_book: bool,
    /// The book file (empty: the shipped book).
    pub book_file: String,
    /// Centi-men below the best that a book move may be chosen at.
    pub book_variety: u32,
    /// Centi-men an English draw is worth less than 0 to the engine.
    pub contempt: i32,
}

/// Largest `EGDBPieces`: the most pieces `kingme egdb build` builds.
pub const MAX_EGDB_PIECES: i64 = 8;

/// Largest `EGDBCache`, in MiB.
pub const MAX_EGDB_CACHE_MIB: i64 = 4096;

/// Default `EGDBCache`, in MiB: the block cache's own default size.
pub const DEFAULT_EGDB_CACHE_MIB: usize = crate::egdb::cache::DEFAULT_CAPACITY >> 20;

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            level: Level::Max,
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            ponder: false,
            mini_table: true,
            eval: Evaluator::default(),
            egdb_path: String::new(),
            egdb_pieces: MAX_EGDB_PIECES as u32,
            egdb_cache_mib: DEFAULT_EGDB_CACHE_MIB,
            multipv: 1,
            own_book: true,
            book_file: String::new(),
            book_variety: 0,
            contempt: 0,
        }
    }
}

impl EngineOptions {
    /// Sets one option.
    pub fn apply(&mut self, option: EngineOption) {
        match option {
            EngineOption::Level(l) => self.level = l,
            EngineOption::Hash(mib) => self.hash_mib = mib,
            EngineOption::Threads(n) => self.threads = n,
            EngineOption::Ponder(b) => self.ponder = b,
            EngineOption::MiniTable(b) => self.mini_table = b,
            EngineOption::Eval(e) => self.eval = e,
            EngineOption::EgdbPath(p) => self.egdb_path = p,
            EngineOption::EgdbPieces(n) => self.egdb_pieces = n,
            EngineOption::EgdbCache(mib) => self.egdb_cache_mib = mib,
            EngineOption::MultiPv(n) => self.multipv = n,
            EngineOption::OwnBook(b) => self.own_book = b,
            EngineOption::BookFile(p) => self.book_file = p,
            EngineOption::BookVariety(v) => self.book_variety = v,
            EngineOption::Contempt(c) => self.contempt = c,
        }
    }
}
