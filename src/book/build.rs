//! Building a book by drop-out expansion (Lincke 2000): every position of
//! the book is searched to a fixed depth with all its moves valued
//! (MultiPV); values are backed up through the book by negamax; the next
//! positions searched are the ones reached by the moves of least
//! *priority*, the plies from a root times the drop-out weight plus the
//! centi-men each move on the way gives up against the best move there.
//! So the main lines grow deep and a move that loses a little is still
//! looked at near the roots.
//!
//! The book written so far is the build's whole state: a build resumes from
//! its output file, which is rewritten atomically at intervals.
//!
//! A shard of a build ([`build_shard`]) grows the book of one contiguous part
//! of the roots; [`mod@super::merge`] joins the shards' books into one.

use super::file::{self, BookParams};
use super::tree::{Leaf, Tree};
use crate::board::{Move, Position};
use crate::checked_file::{write_atomically, FileError};
use crate::eval::Evaluator;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History, Iteration, SearchLimits, SearchReport, TraceNode};
use crate::shard::Shard;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why a build stopped without a book.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The output file exists but can't be continued, or can't be written.
    #[error(transparent)]
    Book(#[from] FileError),
    /// The output file was built with other parameters.
    #[error("{path} was built with --depth {depth} --dropout {dropout} --seed {seed}{}; continue it with those, or write a new file",
        if .shard.is_whole() { String::new() } else { format!(" --shard {}", .shard) })]
    Mismatch {
        /// The file.
        path: String,
        /// Its depth.
        depth: u32,
        /// Its drop-out weight.
        dropout: u32,
        /// Its seed.
        seed: u64,
        /// The part of the roots it grew from.
        shard: Shard,
    },
    /// No transposition table for a worker.
    #[error(transparent)]
    NoMemory(#[from] crate::search::tt::TableAllocError),
}

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The positions the book starts from.
    pub roots: Vec<Position>,
    /// Search depth of each position's moves.
    pub depth: u32,
    /// Centi-men one ply of depth is worth in a move's priority.
    pub dropout: u32,
    /// Breaks ties between equally urgent positions.
    pub seed: u64,
    /// Positions searched at once (each on one thread).
    pub threads: usize,
    /// Stop once the book holds this many positions.
    pub positions: Option<usize>,
    /// Stop starting searches after this long.
    pub time: Option<Duration>,
    /// Write the book at least this often.
    pub save_every: Duration,
    /// Transposition table of each thread, MiB.
    pub hash_mib: usize,
    /// The evaluation the searches use.
    pub eval: Evaluator,
    /// Endgame databases the searches probe.
    pub egdb: Option<std::sync::Arc<crate::egdb::Tablebase>>,
}

impl BuildOptions {
    fn params(&self) -> BookParams {
        BookParams {
            depth: self.depth,
            dropout: self.dropout,
            seed: self.seed,
        }
    }
}

/// Where a build stands, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct BuildProgress {
    /// Positions in the book.
    pub positions: usize,
    /// Positions added by this run.
    pub added: usize,
    /// Plies from its root of the last position searched.
    pub plies: u32,
    /// Since this run started.
    pub elapsed: Duration,
    /// Whether the book was just written.
    pub saved: bool,
}

/// What a build did.
#[derive(Clone, Copy, Debug)]
pub struct BuildReport {
    /// Positions in the book written.
    pub positions: usize,
    /// Positions read from the file it continued.
    pub resumed: usize,
    /// Positions this run added.
    pub added: usize,
    /// Whether no position was left to expand.
    pub complete: bool,
    /// Since this run started.
    pub elapsed: Duration,
}

/// Positions searched between two choices of the next ones: a few per
/// thread, so that no thread waits long for the slowest, and the same for
/// any number of threads up to 8, so that those builds give the same book.
fn batch_size(threads: usize) -> usize {
    (threads * 2).max(16)
}

/// Collects the lines of each depth of a MultiPV search.
#[derive(Default)]
struct Lines {
    by_depth: Vec<(u32, Vec<(Move, i32)>)>,
}

impl SearchReport for Lines {
    fn iteration(&mut self, it: &Iteration) {
        let Some(&mv) = it.pv.first() else { return };
        if self.by_depth.last().is_none_or(|(d, _)| *d != it.depth) {
            self.by_depth.push((it.depth, Vec::new()));
        }
        if let Some((_, lines)) = self.by_depth.last_mut() {
            lines.push((mv, it.score.internal()));
        }
    }
    fn trace(&mut self, _: TraceNode) {}
}

/// Every legal move of `pos` valued by a search of `depth` plies (the
/// deepest iteration that valued them all).
fn search_moves(pos: &Position, opts: &BuildOptions, tt: &TranspositionTable) -> Vec<Leaf> {
    let legal = pos.legal_moves();
    let limits = SearchLimits {
        depth: Some(opts.depth),
        threads: 1,
        multipv: legal.len(),
        eval: opts.eval.clone(),
        egdb_pieces: opts.egdb.as_ref().map_or(0, |t| t.max_pieces()),
        egdb: opts.egdb.clone(),
        ..SearchLimits::default()
    };
    tt.clear();
    tt.new_search();
    let mut lines = Lines::default();
    let hist = History::default();
    let res = search::search(pos, &hist, &limits, tt, &Control::default(), &mut lines);
    let full = lines
        .by_depth
        .iter()
        .rev()
        .find(|(_, l)| l.len() == legal.len());
    match full {
        Some((d, l)) => l
            .iter()
            .map(|&(mv, value)| Leaf {
                mv,
                child: pos.after(mv),
                value,
                depth: *d,
            })
            .collect(),
        // one move only (no MultiPV line per move), or a database answer
        None => res
            .best
            .zip(res.last)
            .map(|(mv, last)| Leaf {
                mv,
                child: pos.after(mv),
                value: last.score.internal(),
                depth: last.depth,
            })
            .into_iter()
            .collect(),
    }
}

/// Builds (or continues) the book at `out`: reads it if it exists, expands
/// it until a budget ends or nothing is left, writes it atomically every
/// `save_every` and at the end. `stop` ends the build early (the book so far
/// is written).
pub fn build(
    out: &Path,
    opts: &BuildOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&BuildProgress),
) -> Result<BuildReport, BuildError> {
    build_shard(out, opts, Shard::WHOLE, stop, progress)
}

/// [`build`] for `shard` of the build: the book of that contiguous part of
/// `opts.roots`, its file marked with the shard (a whole build's is not).
/// The budgets are the shard's own.
pub fn build_shard(
    out: &Path,
    opts: &BuildOptions,
    shard: Shard,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&BuildProgress),
) -> Result<BuildReport, BuildError> {
    let start = Instant::now();
    let params = opts.params();
    let roots = shard.part_of(&opts.roots);
    let path = out.display().to_string();
    let mut tree = if out.exists() {
        let bytes = std::fs::read(out).map_err(|e| FileError::io(out, e))?;
        let view = file::View::new(&bytes, &path)?;
        if view.params != params || view.shard != shard {
            return Err(BuildError::Mismatch {
                path,
                depth: view.params.depth,
                dropout: view.params.dropout,
                seed: view.params.seed,
                shard: view.shard,
            });
        }
        Tree::from_entries(view.entries())
    } else {
        Tree::default()
    };
    let resumed = tree.nodes.len();
    let save = |tree: &Tree| {
        write_atomically(
            out,
            [&file::encode_shard(&params, shard, &tree.entries())[..]],
        )
        .map_err(BuildError::Book)
    };
    let threads = opts.threads.max(1);
    let tables = (0..threads)
        .map(|_| TranspositionTable::try_new(opts.hash_mib))
        .collect::<Result<Vec<_>, _>>()?;
    let mut last_save = Instant::now();
    let mut complete = false;
    let mut plies = 0;
    loop {
        let room = opts
            .positions
            .map_or(usize::MAX, |n| n.saturating_sub(tree.nodes.len()));
        if room == 0
            || stop.load(Ordering::Relaxed)
            || opts.time.is_some_and(|t| start.elapsed() >= t)
        {
            break;
        }
        let batch = tree.frontier(roots, &params, batch_size(threads).min(room));
        if batch.is_empty() {
            complete = true;
            break;
        }
        let results: Mutex<Vec<Option<Vec<Leaf>>>> = Mutex::new(vec![None; batch.len()]);
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for tt in &tables {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((pos, _)) = batch.get(i) else { break };
                    let leaves = search_moves(pos, opts, tt);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(leaves);
                });
            }
        });
        let results = results
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for ((pos, p), leaves) in batch.iter().zip(results) {
            tree.nodes.insert(*pos, leaves.unwrap_or_default());
            plies = *p;
        }
        let saved = last_save.elapsed() >= opts.save_every;
        if saved {
            save(&tree)?;
            last_save = Instant::now();
        }
        progress(&BuildProgress {
            positions: tree.nodes.len(),
            added: tree.nodes.len() - resumed,
            plies,
            elapsed: start.elapsed(),
            saved,
        });
    }
    save(&tree)?;
    Ok(BuildReport {
        positions: tree.nodes.len(),
        resumed,
        added: tree.nodes.len() - resumed,
        complete,
        elapsed: start.elapsed(),
    })
}
