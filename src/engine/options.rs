//! The limits and defaults of the engine's options, and the errors of
//! changing one. The options themselves are declared in
//! [`super::option_table`].

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

/// Largest `EGDBPieces`: the most pieces `kingme egdb build` builds.
pub const MAX_EGDB_PIECES: i64 = 8;

/// Largest `EGDBCache`, in MiB.
pub const MAX_EGDB_CACHE_MIB: i64 = 4096;

/// Default `EGDBCache`, in MiB: the block cache's own default size.
pub const DEFAULT_EGDB_CACHE_MIB: usize = crate::egdb::cache::DEFAULT_CAPACITY >> 20;
