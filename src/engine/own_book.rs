//! The engine's opening book: which one it plays from (the shipped book, a
//! file, or none), and which `go` it answers from the book.

use super::{Engine, EngineError, GoLimits, Level};
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

impl Engine {
    /// The book played from, opened on first use; `None` with `OwnBook` off.
    pub fn book(&mut self) -> Option<Arc<Book>> {
        if !self.options.own_book {
            return None;
        }
        if let BookState::Unopened = self.book {
            self.book = match open_book(&self.options.book_file) {
                Ok(b) => BookState::Open(b),
                Err(e) => {
                    tracing::warn!(error = %e, "playing without a book");
                    BookState::Absent
                }
            };
        }
        match &self.book {
            BookState::Open(b) => Some(Arc::clone(b)),
            _ => None,
        }
    }

    /// The book's moves in `pos`, best first, when the book holds it.
    pub fn book_moves(&mut self, pos: &Position) -> Option<Vec<BookMove>> {
        self.book()?.probe(pos)
    }

    /// The book move a `go` with `limits` in `pos` is answered with: only
    /// for a game move at level max in English (no fixed depth or nodes,
    /// no analysis, ponder, trace, MultiPV or searchmoves), and only when
    /// the position is in the book.
    pub(super) fn book_answer(&mut self, pos: &Position, limits: &GoLimits) -> Option<BookMove> {
        let plays = pos.variant() == Variant::English
            && self.options.level == Level::Max
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && !limits.infinite
            && !limits.ponder
            && limits.trace.is_none()
            && limits.multipv.unwrap_or(self.options.multipv) <= 1
            && limits.searchmoves.is_empty();
        if !plays {
            return None;
        }
        let moves = self.book_moves(pos)?;
        book::choose(&moves, self.options.book_variety, random_u64()).copied()
    }
}
