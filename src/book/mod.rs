//! English opening books: built by kingme's own search (`kingme book
//! build`), stored in a checked file, played from by the engine.
//!
//! - [`mod@file`]: the file format (header, sorted entries, moves, checksum),
//!   written atomically and checked as a whole when read.
//! - [`mod@build`]: drop-out expansion from the start and the 3-move ballots,
//!   restartable from its own output, whole or one shard of the roots.
//! - [`mod@merge`]: the shards' books (or books of one build's parameters)
//!   joined into one.
//! - `probe`: an open book (the shipped one or a memory-mapped file), the
//!   moves it knows in a position and the choice among them.
//! - `tree`: the book as positions and moves, values backed up by negamax
//!   and the next positions to search by drop-out priority (built by
//!   [`mod@build`], shifted by [`mod@learn`]).
//! - [`mod@learn`]: the values of the moves by which played games left the
//!   book, moved towards those games' results.
//! - [`stats`]: counts by depth and by ballot, and the check of every entry.

pub mod build;
pub mod file;
pub mod learn;
pub mod merge;
mod probe;
pub mod stats;
mod tree;

pub use build::{build, build_shard, BuildError, BuildOptions, BuildProgress, BuildReport};
pub use file::BookParams;
pub use learn::{learn, LearnReport, PlayedGame};
pub use merge::{merge, BookMergeError, BookMergeReport};
pub use probe::{choose, Book, BookMove};

use crate::board::{Position, Variant};

/// The positions a book grows from: the English start and the end of each
/// ACF 3-move ballot, in deck order.
#[must_use]
pub fn roots() -> Vec<Position> {
    let mut roots = vec![Position::startpos(Variant::English)];
    roots.extend(
        crate::openings::acf_deck()
            .expect("the shipped ballots are checked by the tests")
            .into_iter()
            .map(|o| o.position),
    );
    roots
}
