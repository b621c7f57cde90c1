//! The retrograde builder.
//!
//! Slices are built in [`plan`] order, so captures and crownings
//! lead into slices already on disk. Inside a slice, blocks (one set of men,
//! see [`index`](super::index)) are solved from the most advanced men
//! backwards: a man's move leads into a block already solved. Blocks of equal
//! advancement are independent and solved in parallel.
//!
//! In a block only kings' quiet moves stay inside. Every other move
//! (capture, man's move, crowning) has a known value. The block is then
//! solved by retrograde analysis over the kings' moves, by increasing
//! distance to conversion: a position is won at distance d + 1 as soon as a
//! child is lost at d, and lost when its last undecided child is found won.
//! What is left undecided is a draw (no side can force the game out of a
//! cycle of kings' moves).
//!
//! A slice is written compact (the newest compact version) unless version 1
//! is asked for, and a compact slice is probed back and compared with the
//! builder's values before the next slice starts.
//!
//! Restartable: a slice whose files are present and open (header, size,
//! checksum) is skipped; files are written under a temporary name, synced and
//! renamed; a lock file keeps a second build out of the directory.

use super::compact::Compact;
use super::convert::{self, ConvertError, Unpacked};
use super::file::{self, Kind};
use super::full;
use super::index::{mirror, BlockPositions, KingSets, Men, SliceIndex};
use super::lock::remove_stale_temporaries;
pub use super::lock::{DirLock, LockError};
use super::probe::{ProbeError, Tablebase};
use super::FileError;
use super::{plan, Material, Wdl, NOT_A_POSITION};
use crate::board::movegen::step;
use crate::board::{English, MoveList, Position, Square};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What to build where.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The database directory (created if missing).
    pub dir: PathBuf,
    /// Every slice of at most this many pieces.
    pub pieces: u32,
    /// Only this slice (its dependencies must be in `dir`).
    pub slice: Option<Material>,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// The file format written.
    pub format: Format,
    /// Positions of each slice written compact that are probed from the new
    /// files and compared with the builder's values (spread over the slice;
    /// every position when the slice has fewer).
    pub check: u64,
}

impl BuildOptions {
    /// Every slice of at most `pieces` pieces into `dir`, compact, on every
    /// core, a million positions a slice checked.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>, pieces: u32) -> BuildOptions {
        BuildOptions {
            dir: dir.into(),
            pieces,
            slice: None,
            threads: 0,
            format: Format::Compact,
            check: 1_000_000,
        }
    }
}

/// The slice file format a build writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The newest compact version ([`file::COMPACT_VERSION`]).
    #[default]
    Compact,
    /// Version 1, every index stored ([`mod@file`]).
    Full,
}

/// Where a build stands, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildProgress {
    /// The slice being built.
    pub slice: Material,
    /// Positions done, of every slice this run builds.
    pub done: u64,
    /// Positions this run builds.
    pub total: u64,
    /// The slice just finished, when this report is its end.
    pub built: Option<Built>,
}

/// One slice built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Built {
    /// The slice.
    pub slice: Material,
    /// Seconds it took, solving, writing and checking.
    pub seconds: f64,
    /// Bytes of its files (values, distances).
    pub bytes: (u64, u64),
}

/// What a build did.
#[derive(Clone, Debug, Default)]
pub struct BuildReport {
    /// Slices built now.
    pub built: Vec<Material>,
    /// Slices found complete and kept.
    pub kept: Vec<Material>,
}

/// Why a build stopped. Each names the file or directory concerned.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The directory can't be created or written.
    #[error("database directory {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Another build holds the directory's or the slice's lock.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// More pieces than the index supports.
    #[error("--pieces {0}: at most 8 pieces can be built")]
    TooManyPieces(u32),
    /// `--slice` needs a slice it depends on that is not usable in the directory.
    #[error("slice {slice} needs slice {needs}: {reason} (build it first; `kingme egdb plan` lists the order)")]
    Dependency {
        /// The slice asked for.
        slice: Material,
        /// The slice it needs.
        needs: Material,
        /// Why that one can't be used.
        reason: ProbeError,
    },
    /// A slice file could not be written or read.
    #[error(transparent)]
    File(#[from] FileError),
    /// A slice written compact does not give back the builder's values.
    #[error(transparent)]
    Check(#[from] ConvertError),
    /// A probe into a finished slice failed during the build.
    #[error("while building {slice}: {source}")]
    Probe {
        /// The slice being built.
        slice: Material,
        /// The failed probe.
        source: ProbeError,
    },
    /// The thread pool could not start.
    #[error("thread pool: {0}")]
    Threads(String),
}

/// Whether both files of `mat` in `dir` are present and open (either
/// version; every checksum checked).
fn complete(dir: &Path, mat: Material) -> bool {
    [Kind::Values, Kind::Conversion].into_iter().all(|kind| {
        let path = file::path(dir, mat, kind);
        match file::version_of(&path) {
            Ok(Some(v)) if file::is_compact_version(v) => {
                Compact::open(&path, mat, kind).is_ok_and(|c| c.warm().is_ok())
            }
            Ok(Some(file::FULL_VERSION)) => full::read(&path, mat, kind).is_ok(),
            _ => false,
        }
    })
}

/// Builds the slices `opts` asks for into `opts.dir`, keeping those already
/// complete there.
pub fn build(opts: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_reporting(opts, &|_| {})
}

/// [`build`], telling `progress` where it stands as it goes.
pub fn build_reporting(
    opts: &BuildOptions,
    progress: &(dyn Fn(BuildProgress) + Sync),
) -> Result<BuildReport, BuildError> {
    if opts.pieces > 8 {
        return Err(BuildError::TooManyPieces(opts.pieces));
    }
    let dir = &opts.dir;
    std::fs::create_dir_all(dir).map_err(|source| BuildError::Dir {
        path: dir.clone(),
        source,
    })?;
    let only = opts.slice.map(Material::canonical);
    let _lock = match only {
        Some(m) => DirLock::take_slice(dir, m)?,
        None => DirLock::take(dir)?,
    };
    remove_stale_temporaries(dir, only);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .thread_name(|i| format!("egdb-build-{i}"))
        .build()
        .map_err(|e| BuildError::Threads(e.to_string()))?;
    let slices = match opts.slice {
        Some(m) => vec![m.canonical()],
        None => plan(opts.pieces),
    };
    let mut tb = Tablebase::new();
    let mut report = BuildReport::default();
    let todo: Vec<Material> = slices
        .iter()
        .copied()
        .filter(|m| {
            let done = complete(dir, *m);
            if done {
                report.kept.push(*m);
            }
            !done
        })
        .collect();
    // dependencies: every slice any slice to build needs, directly or through
    // a probe of a compact slice (a capture search), not built in this run
    let mut deps: Vec<Material> = todo.iter().flat_map(|m| m.dependencies()).collect();
    let mut i = 0;
    while i < deps.len() {
        for m in deps[i].dependencies() {
            if !deps.contains(&m) {
                deps.push(m);
            }
        }
        i += 1;
    }
    deps.sort_by_key(|m| (m.pieces(), m.men(), *m));
    deps.dedup();
    for d in deps {
        if todo.contains(&d) {
            continue;
        }
        tb.add_slice(dir, d);
        if let Err(reason) = tb.check_slice(d) {
            let slice = todo
                .iter()
                .copied()
                .find(|m| m.dependencies().contains(&d))
                .unwrap_or(todo[0]);
            return Err(BuildError::Dependency {
                slice,
                needs: d,
                reason,
            });
        }
    }
    let total: u64 = todo.iter().map(|m| m.positions()).sum();
    let done = std::sync::atomic::AtomicU64::new(0);
    for mat in todo {
        let step = |n: u64| {
            let d = done.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n;
            progress(BuildProgress {
                slice: mat,
                done: d,
                total,
                built: None,
            });
        };
        step(0);
        let t = std::time::Instant::now();
        let (values, conversion) = pool.install(|| build_slice(mat, &tb, &step))?;
        let bytes = match opts.format {
            Format::Full => {
                let d = full::write(dir, mat, Kind::Conversion, &conversion)?;
                let v = full::write(dir, mat, Kind::Values, &full::pack(&values))?;
                tb.add_slice(dir, mat);
                (file_len(&v), file_len(&d))
            }
            Format::Compact => {
                let src = Unpacked {
                    values: &values,
                    dtc: &conversion,
                };
                let bytes = pool.install(|| convert::write_slice(dir, mat, &src))?;
                tb.add_slice(dir, mat);
                pool.install(|| convert::check_slice(mat, &src, Some(opts.check), &tb))?;
                bytes
            }
        };
        report.built.push(mat);
        progress(BuildProgress {
            slice: mat,
            done: done.load(std::sync::atomic::Ordering::Relaxed),
            total,
            built: Some(Built {
                slice: mat,
                seconds: t.elapsed().as_secs_f64(),
                bytes,
            }),
        });
    }
    Ok(report)
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// A block's value codes and conversion distances.
type Solved = (u64, Vec<u8>, Vec<u8>);

/// Solves every position of `mat`: value codes (one per byte) and distances to
/// conversion. `done(n)` is told of each `n` indices finished.
pub fn build_slice(
    mat: Material,
    tb: &Tablebase,
    done: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<u8>, Vec<u8>), BuildError> {
    let ix = SliceIndex::new(mat);
    let n = ix.len() as usize;
    let bl = ix.block_len() as usize;
    let mut values = vec![NOT_A_POSITION; n];
    let mut conversion = vec![0u8; n];
    let mut levels: Vec<Vec<(u64, Men)>> = Vec::new();
    for b in 0..ix.blocks() {
        match ix.men(b) {
            Some(men) => {
                let p = men.progress() as usize;
                if levels.len() <= p {
                    levels.resize_with(p + 1, Vec::new);
                }
                levels[p].push((b, men));
            }
            None => done(bl as u64),
        }
    }
    let kings = ix.king_sets();
    for level in levels.iter().rev() {
        let solved: Vec<Solved> = level
            .par_iter()
            .map(|&(b, men)| solve_block(&ix, b, men, &kings, &values, tb))
            .collect::<Result<_, _>>()
            .map_err(|source| BuildError::Probe { slice: mat, source })?;
        for (b, v, d) in solved {
            let at = b as usize * bl;
            values[at..at + bl].copy_from_slice(&v);
            conversion[at..at + bl].copy_from_slice(&d);
            done(bl as u64);
        }
    }
    Ok((values, conversion))
}

/// The value of `child` (a position reached by an irreversible move) for its
/// side to move: from this slice's finished blocks or from the tablebase.
fn child_value(
    child: &Position,
    ix: &SliceIndex,
    values: &[u8],
    tb: &Tablebase,
) -> Result<Wdl, ProbeError> {
    let mat = Material::of(child);
    let own = ix.material();
    let code = if mat == own {
        values[ix.index(child) as usize]
    } else if mat.mirrored() == own {
        values[ix.index(&mirror(child)) as usize]
    } else {
        return tb.probe_wdl(child);
    };
    Wdl::from_code(code).ok_or(ProbeError::NoValue(own))
}

const UNDECIDED: u8 = 0xff;

/// Solves one block; `values` holds the finished blocks of the slice,
/// `kings` the slice's [`SliceIndex::king_sets`].
fn solve_block(
    ix: &SliceIndex,
    b: u64,
    men: Men,
    kings: &KingSets,
    values: &[u8],
    tb: &Tablebase,
) -> Result<Solved, ProbeError> {
    let block = BlockPositions::new(men, kings);
    let bl = ix.block_len() as usize;
    let mut value = vec![UNDECIDED; bl];
    let mut dist = vec![0u8; bl];
    let mut pending = vec![0u8; bl];
    let mut can_draw = vec![false; bl];
    // buckets[d]: positions decided at distance d, whose parents are still to see
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    let mut moves = MoveList::new();
    for i in 0..bl {
        let pos = block.position(i as u64);
        pos.legal_moves_all_paths_into(&mut moves);
        if moves.is_empty() {
            decide(&mut value, &mut dist, &mut buckets, i, Wdl::Loss, 0);
            continue;
        }
        let (mut wins, mut draws, mut inside) = (false, false, 0u8);
        for &m in moves.iter() {
            if pos.is_irreversible(m) {
                match child_value(&pos.after(m), ix, values, tb)? {
                    Wdl::Loss => {
                        wins = true;
                        break;
                    }
                    Wdl::Draw => draws = true,
                    Wdl::Win => {}
                }
            } else {
                inside += 1;
            }
        }
        if wins {
            // an irreversible winning move: no win is nearer
            decide(&mut value, &mut dist, &mut buckets, i, Wdl::Win, 1);
        } else if inside == 0 {
            if !draws {
                decide(&mut value, &mut dist, &mut buckets, i, Wdl::Loss, 1);
            }
        } else {
            pending[i] = inside;
            can_draw[i] = draws;
        }
    }
    let mut d = 0;
    while d < buckets.len() {
        let bucket = std::mem::take(&mut buckets[d]);
        for i in bucket {
            let wins = value[i as usize] == Wdl::Win.code();
            // parents: the opponent's king stepped here from an empty neighbour
            let pos = block.position(u64::from(i));
            let them = !pos.turn();
            let empty = !pos.occupied().0;
            let mut k = pos.kings_of(them).0;
            while k != 0 {
                let t = k & k.wrapping_neg();
                k ^= t;
                for dir in 0..4 {
                    let u = step::<English>(t, dir) & empty;
                    if u == 0 {
                        continue;
                    }
                    let parent = pos.before_king_step(
                        Square::new_unchecked(u.trailing_zeros() as u8),
                        Square::new_unchecked(t.trailing_zeros() as u8),
                    );
                    if parent.must_capture() {
                        continue;
                    }
                    let q = ix.index_in_block(&parent) as usize;
                    if value[q] != UNDECIDED {
                        continue;
                    }
                    if !wins {
                        decide(&mut value, &mut dist, &mut buckets, q, Wdl::Win, d + 1);
                    } else {
                        pending[q] -= 1;
                        if pending[q] == 0 && !can_draw[q] {
                            decide(&mut value, &mut dist, &mut buckets, q, Wdl::Loss, d + 1);
                        }
                    }
                }
            }
        }
        d += 1;
    }
    for v in &mut value {
        if *v == UNDECIDED {
            *v = Wdl::Draw.code();
        }
    }
    Ok((b, value, dist))
}

/// Records position `i` of a block as decided at distance `d`, to propagate.
fn decide(
    value: &mut [u8],
    dist: &mut [u8],
    buckets: &mut Vec<Vec<u32>>,
    i: usize,
    v: Wdl,
    d: usize,
) {
    value[i] = v.code();
    dist[i] = d.min(255) as u8;
    if buckets.len() <= d {
        buckets.resize_with(d + 1, Vec::new);
    }
    buckets[d].push(i as u32);
}
