//! An open book: the shipped one or a file (memory-mapped, so that engines
//! of several processes share it), its moves for a position, and the choice
//! among them.

use super::file::{not_a_book, BookParams, View, FLAG_IN_BOOK};
use crate::board::{Move, Position, Variant};
use crate::checked_file::FileError;
use crate::search::Score;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The book shipped inside the binary (`src/book/english.kmb`, built by the
/// command in `BOOK.md`).
static SHIPPED: &[u8] = include_bytes!("english.kmb");

/// The bytes behind a book.
enum Bytes {
    Static(&'static [u8]),
    Mapped(memmap2::Mmap),
}

impl Bytes {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Static(b) => b,
            Bytes::Mapped(m) => m,
        }
    }
}

/// Largest book file opened (1 GiB: some ten million positions).
pub const MAX_BOOK_BYTES: u64 = 1 << 30;

/// An opening book, checked when opened.
pub struct Book {
    bytes: Bytes,
    /// Where it came from (a path, or `shipped book`).
    name: String,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("name", &self.name)
            .field("positions", &self.len())
            .finish_non_exhaustive()
    }
}

/// A move of the book with what the build found for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move (legal in the position probed).
    pub mv: Move,
    /// Its value for the player making it.
    pub score: Score,
    /// The search's internal value (centi-men, or beyond ±29,000 a win or loss).
    pub value: i32,
    /// Plies below the move that the value comes from.
    pub depth: u32,
    /// Whether the position it reaches is in the book.
    pub in_book: bool,
}

impl Book {
    /// Opens and checks the book file at `path` (memory-mapped).
    pub fn open(path: &Path) -> Result<Book, FileError> {
        let name = path.display().to_string();
        let io = |e| FileError::io(path, e);
        let file = crate::files::open_regular(path).map_err(io)?;
        // the whole file is checked when opened: bound what that reads
        let size = file.metadata().map_err(io)?.len();
        if size > MAX_BOOK_BYTES {
            return Err(not_a_book(
                path,
                &format!("{size} bytes, more than a book may hold ({MAX_BOOK_BYTES})"),
            ));
        }
        // SAFETY: the map is read-only; a file changed under it while open is
        // caught by the checksum at open, and afterwards can only give moves
        // that are checked for legality before use.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Book::from_bytes(Bytes::Mapped(map), name)
    }

    /// The book shipped inside the binary.
    pub fn shipped() -> Result<Arc<Book>, FileError> {
        static BOOK: OnceLock<Result<Arc<Book>, String>> = OnceLock::new();
        BOOK.get_or_init(|| {
            Book::from_bytes(Bytes::Static(SHIPPED), "shipped book".into())
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|reason| not_a_book(Path::new("shipped book"), &reason))
    }

    /// A book from bytes in memory (`name` for errors).
    pub fn from_static(bytes: &'static [u8], name: &str) -> Result<Book, FileError> {
        Book::from_bytes(Bytes::Static(bytes), name.to_string())
    }

    fn from_bytes(bytes: Bytes, name: String) -> Result<Book, FileError> {
        View::new(bytes.get(), &name)?;
        Ok(Book { bytes, name })
    }

    /// The view of the bytes (checked when the book was opened).
    #[must_use]
    pub fn view(&self) -> View<'_> {
        self.view_unchecked()
    }

    /// Where the book came from.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.view().len()
    }

    /// Whether the book holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.view().is_empty()
    }

    /// The parameters it was built with.
    #[must_use]
    pub fn params(&self) -> BookParams {
        self.view().params
    }

    /// The book's moves in `pos`, best first; `None` when the position is not
    /// in the book or a stored move is not legal there (a book that does
    /// not belong to these rules is not trusted).
    #[must_use]
    pub fn probe(&self, pos: &Position) -> Option<Vec<BookMove>> {
        if pos.variant() != Variant::English {
            return None;
        }
        let view = self.view_unchecked();
        let i = view.find(pos)?;
        let legal = pos.legal_moves();
        let mut out = Vec::new();
        for raw in view.moves(i) {
            let Some(mv) = raw.find_in(&legal) else {
                tracing::warn!(book = %self.name, "a book move is not legal; leaving the book");
                return None;
            };
            out.push(BookMove {
                mv,
                score: Score::from_internal(i32::from(raw.value)),
                value: i32::from(raw.value),
                depth: u32::from(raw.depth),
                in_book: raw.flags & FLAG_IN_BOOK != 0,
            });
        }
        if out.is_empty() {
            return None;
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.value));
        Some(out)
    }

    /// The view without checking the bytes again (they were checked when the
    /// book was opened).
    fn view_unchecked(&self) -> View<'_> {
        View::trusted(self.bytes.get())
    }
}

/// The move to play from `moves` (best first): with `variety` 0 the best;
/// else one of those within `variety` centi-men of the best, the nearer the
/// likelier (weight `variety + 1 - drop`), drawn with `random` (any u64).
/// Moves whose value is a win or loss are never drawn past the best.
#[must_use]
pub fn choose(moves: &[BookMove], variety: u32, random: u64) -> Option<&BookMove> {
    let best = moves.iter().max_by_key(|m| m.value)?;
    if variety == 0 || matches!(best.score, Score::Win(_) | Score::Loss(_)) {
        return Some(best);
    }
    let v = i64::from(variety);
    let weights: Vec<(&BookMove, i64)> = moves
        .iter()
        .filter(|m| matches!(m.score, Score::Eval(_) | Score::Draw))
        .map(|m| (m, v + 1 - (i64::from(best.value) - i64::from(m.value))))
        .filter(|&(_, w)| w > 0)
        .collect();
    let total: i64 = weights.iter().map(|&(_, w)| w).sum();
    if total <= 0 {
        return Some(best);
    }
    let mut pick = (random % total as u64) as i64;
    for (m, w) in weights {
        if pick < w {
            return Some(m);
        }
        pick -= w;
    }
    Some(best)
}
