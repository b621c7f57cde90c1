//! The engine's opening book: which one it plays from (the shipped book, a
//! file, or none), and which `go` it answers from the book.

use super::level::Level;
use super::limits::GoLimits;
use super::option_table::EngineOptions;
use super::options::EngineError;
use crate::board::{Position, Variant};
use crate::book::{self, Book, BookMove};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where an engine stands with its book.
pub(super) enum BookState {
    /// Not opened yet (the shipped book opens on first use).
    Unopened,
    /// Open.
    Open(Arc<Book>),
    /// None can be used (the shipped one failed its check).
    Absent,
}

/// The book file at `path`, or the shipped book for an empty path.
pub(super) fn open_book(path: &str) -> Result<Arc<Book>, EngineError> {
    let opened = if path.is_empty() {
        Book::shipped()
    } else {
        Book::open(Path::new(path)).map(Arc::new)
    };
    opened.map_err(|e| EngineError::NoBook {
        file: if path.is_empty() {
            "the shipped book".into()
        } else {
            path.to_string()
        },
        reason: e.to_string(),
    })
}

/// A number that differs from call to call and process to process (for
/// `BookVariety`).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

impl BookState {
    /// The book played from, opened on first use; `None` with `OwnBook` off.
    pub(super) fn book(&mut self, options: &EngineOptions) -> Option<Arc<Book>> {
        if !options.own_book {
            return None;
        }
        if let BookState::Unopened = self {
            *self = match open_book(&options.book_file) {
                Ok(b) => BookState::Open(b),
                Err(e) => {
                    tracing::warn!(error = %e, "playing without a book");
                    BookState::Absent
                }
            };
        }
        match self {
            BookState::Open(b) => Some(Arc::clone(b)),
            _ => None,
        }
    }

    /// The book move a `go` with `limits` in `pos` is answered with: only
    /// for a game move at level max in English (no fixed depth or nodes,
    /// no analysis, ponder, trace, MultiPV or searchmoves), and only when
    /// the position is in the book.
    pub(super) fn answer(
        &mut self,
        options: &EngineOptions,
        pos: &Position,
        limits: &GoLimits,
    ) -> Option<BookMove> {
        let plays = pos.variant() == Variant::English
            && options.level == Level::Max
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && !limits.infinite
            && !limits.ponder
            && limits.trace.is_none()
            && limits.multipv.unwrap_or(options.multipv) <= 1
            && limits.searchmoves.is_empty();
        if !plays {
            return None;
        }
        let moves = self.book(options)?.probe(pos)?;
        book::choose(&moves, options.book_variety, random_u64()).copied()
    }
}
