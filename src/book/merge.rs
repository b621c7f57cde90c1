//! Books joined into one (`kingme book merge`): the shards of one build
//! (`kingme book build --shard K/N`), or books built with the same
//! parameters.
//!
//! Every input is checked whole ([`View::new`]) and must have been built with
//! the same depth, drop-out weight and seed; shards must be every shard of
//! one build, each once. The join holds every position of every input; a
//! position two inputs both hold was searched by both (with a cleared table,
//! so alike) and is kept once, and two inputs that disagree on one (built
//! with another evaluation or other databases) are refused by name. The
//! values are then backed up through the whole join, so a line of one
//! shard that transposes into another's book takes the value found there.
//! The result is a whole book (version 1), written atomically; a build can
//! continue it over all the roots.

use super::file::{self, BookParams, RawEntry, View, FLAG_IN_BOOK};
use super::tree::Tree;
use crate::board::Position;
use crate::checked_file::{write_atomically, FileError};
use crate::shard::{self, ShardSetError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why books could not be joined.
#[derive(Debug, thiserror::Error)]
pub enum BookMergeError {
    /// An input that can't be read or is no book, or an output not written.
    #[error(transparent)]
    File(#[from] FileError),
    /// No input.
    #[error("no book to merge")]
    Empty,
    /// Not every shard of one build once.
    #[error(transparent)]
    Shards(#[from] ShardSetError),
    /// Built with other parameters than the first input.
    #[error("{path} was built with --depth {} --dropout {} --seed {}, {first} with --depth {} --dropout {} --seed {}",
        .params.depth, .params.dropout, .params.seed, .first_params.depth, .first_params.dropout, .first_params.seed)]
    Params {
        /// The input.
        path: String,
        /// Its parameters.
        params: BookParams,
        /// The first input.
        first: String,
        /// Its parameters.
        first_params: BookParams,
    },
    /// Two inputs whose searches of one position differ.
    #[error("{first} and {second} disagree on {fen} (built with another evaluation or other databases?)")]
    Disagree {
        /// One input.
        first: String,
        /// The other.
        second: String,
        /// The position.
        fen: String,
    },
}

/// What a merge wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMergeReport {
    /// Positions in the book written.
    pub positions: usize,
    /// Positions that more than one input held.
    pub shared: usize,
}

/// Whether two stored entries of one position are the same search: the same
/// moves, and the same value and depth of each move that leaves both books
/// (a move into a book holds the value backed up there).
fn same_search(a: &RawEntry, b: &RawEntry) -> bool {
    let key = |m: &file::RawMove| (m.from, m.to, m.captured);
    a.moves.len() == b.moves.len()
        && a.moves.iter().all(|m| {
            b.moves.iter().any(|o| {
                key(o) == key(m)
                    && (m.flags & FLAG_IN_BOOK != 0
                        || o.flags & FLAG_IN_BOOK != 0
                        || (m.value, m.depth) == (o.value, o.depth))
            })
        })
}

/// Joins the books `inputs` into `out` (the module's doc says how).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<BookMergeReport, BookMergeError> {
    let files = inputs
        .iter()
        .map(|p| std::fs::read(p).map_err(|e| FileError::io(p, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let views = files
        .iter()
        .zip(&names)
        .map(|(b, n)| View::new(b, n))
        .collect::<Result<Vec<_>, _>>()?;
    let first = views.first().ok_or(BookMergeError::Empty)?;
    for (v, name) in views.iter().zip(&names) {
        if v.params != first.params {
            return Err(BookMergeError::Params {
                path: name.clone(),
                params: v.params,
                first: names[0].clone(),
                first_params: first.params,
            });
        }
    }
    let order: Vec<usize> = if views.iter().all(|v| v.shard.is_whole()) {
        (0..views.len()).collect()
    } else {
        let parts: Vec<_> = views
            .iter()
            .zip(&names)
            .map(|(v, n)| (v.shard, n.as_str()))
            .collect();
        shard::in_order(&parts)?
    };
    let mut joined: HashMap<Position, (usize, RawEntry)> = HashMap::new();
    let mut shared = 0;
    for &i in &order {
        for e in views[i].entries() {
            match joined.get(&e.pos) {
                None => {
                    joined.insert(e.pos, (i, e));
                }
                Some((_, held)) if same_search(held, &e) => shared += 1,
                Some((j, _)) => {
                    return Err(BookMergeError::Disagree {
                        first: names[*j].clone(),
                        second: names[i].clone(),
                        fen: e.pos.to_fen(),
                    })
                }
            }
        }
    }
    let tree = Tree::from_entries(joined.into_values().map(|(_, e)| e).collect());
    let bytes = file::encode(&first.params, &tree.entries());
    write_atomically(out, [&bytes[..]])?;
    Ok(BookMergeReport {
        positions: tree.nodes.len(),
        shared,
    })
}
