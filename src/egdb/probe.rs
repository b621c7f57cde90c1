//! The [`Tablebase`]: slice files found by name in the directories added,
//! opened lazily on the first probe that needs them, checked (header, size,
//! checksum) as they are opened; probes answer an exact value or a typed
//! error, never a guess. Safe to share between search threads.

use super::compact::{self, Compact};
use super::file::{self, Kind};
use super::full;
use super::index::{mirror, SliceIndex};
use super::pack;
use super::FileError;
use super::{Material, Wdl};
use crate::board::{MoveList, Outcome, Position, Variant};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

mod conversion;

/// Why a probe has no answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// Only English positions are in the databases.
    #[error("not an English position")]
    Variant,
    /// The position's slice is not among the files found.
    #[error("slice {0} is not in the database")]
    Missing(Material),
    /// The slice's file is unusable (truncated, corrupted, unreadable).
    #[error("{0}")]
    File(Arc<FileError>),
    /// The slice is still being read (a probe that does not wait).
    #[error("slice {0} is still loading")]
    Loading(Material),
    /// The slice's file holds no position at this index (a corrupted file
    /// whose checksum was recomputed, or a bug).
    #[error("slice {0} has no value for this position")]
    NoValue(Material),
    /// A search for a distance the file leaves out met more positions than
    /// its bound (the engine's probes, which must answer quickly).
    #[error("the distance search went past {0} positions")]
    Bound(u64),
}

fn file_error(e: FileError) -> ProbeError {
    ProbeError::File(Arc::new(e))
}

/// A directory that can't be added.
#[derive(Debug, thiserror::Error)]
#[error("database directory {path}: {source}")]
pub struct DirError {
    /// The directory.
    pub path: PathBuf,
    /// The system's error.
    pub source: std::io::Error,
}

/// A slice file as a probe reads it.
enum SliceData {
    /// A version 1 file, read whole into memory.
    Full(Arc<[u8]>),
    /// A compact file, mapped; the positions [`compact::left_out`] are not in it.
    Compact(Compact),
}

impl SliceData {
    /// Bytes of memory or of mapped file.
    fn len(&self) -> u64 {
        match self {
            SliceData::Full(d) => d.len() as u64,
            SliceData::Compact(c) => c.len(),
        }
    }
}

type Loaded = OnceLock<Result<SliceData, Arc<FileError>>>;

/// Where a slice's files are.
enum Source {
    /// In a directory, by name.
    Dir(PathBuf),
    /// Built into kingme: its compact values and conversion files.
    Builtin(&'static [u8], &'static [u8]),
}

struct Entry {
    mat: Material,
    index: SliceIndex,
    source: Source,
    values: Loaded,
    conversion: Loaded,
}

/// Whether a probe reads a slice's file when it is not in memory yet, or
/// answers [`ProbeError::Loading`] at once (searches on a clock).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wait {
    Yes,
    No,
}

impl Entry {
    fn cell(&self, kind: Kind) -> &Loaded {
        match kind {
            Kind::Values => &self.values,
            Kind::Conversion => &self.conversion,
        }
    }

    fn data(&self, kind: Kind, wait: Wait) -> Result<&SliceData, ProbeError> {
        if wait == Wait::No {
            return match self.cell(kind).get() {
                Some(r) => r.as_ref().map_err(|e| ProbeError::File(e.clone())),
                None => Err(ProbeError::Loading(self.mat)),
            };
        }
        self.load(kind)
    }

    /// Opens the file of `kind` on first use: a compact file is mapped and
    /// its index checked, a version 1 file read whole and checked.
    fn load(&self, kind: Kind) -> Result<&SliceData, ProbeError> {
        self.cell(kind)
            .get_or_init(|| {
                let dir = match &self.source {
                    Source::Dir(dir) => dir,
                    Source::Builtin(values, conversion) => {
                        let (bytes, ext) = match kind {
                            Kind::Values => (values, "wld"),
                            Kind::Conversion => (conversion, "dtc"),
                        };
                        let name =
                            Path::new(pack::BUILTIN_NAME).join(format!("{}.{ext}", self.mat));
                        return Compact::from_static(bytes, &name, self.mat, kind)
                            .map(SliceData::Compact)
                            .map_err(Arc::new);
                    }
                };
                let path = file::path(dir, self.mat, kind);
                match file::version_of(&path) {
                    Ok(Some(v)) if file::is_compact_version(v) => {
                        Compact::open(&path, self.mat, kind).map(SliceData::Compact)
                    }
                    Ok(Some(v)) if v != file::FULL_VERSION => Err(file::unknown_version(&path, v)),
                    Ok(_) => {
                        full::read(&path, self.mat, kind).map(|d| SliceData::Full(Arc::from(d)))
                    }
                    Err(e) => Err(e),
                }
                .map_err(Arc::new)
            })
            .as_ref()
            .map_err(|e| ProbeError::File(e.clone()))
    }
}

/// Slot of a material in the table of entries (each count below 13).
fn slot(m: Material) -> usize {
    ((usize::from(m.bm) * 13 + usize::from(m.bk)) * 13 + usize::from(m.wm)) * 13 + usize::from(m.wk)
}

/// A collection of database slices from one or more directories.
pub struct Tablebase {
    entries: Vec<Option<Entry>>,
    max_pieces: u32,
    dirs: Vec<PathBuf>,
}

impl Default for Tablebase {
    fn default() -> Tablebase {
        Tablebase::new()
    }
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("dirs", &self.dirs)
            .field("slices", &self.slices())
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

/// How a position's value is looked up: which slice entry, and the position
/// in the slice's orientation.
enum Located<'a> {
    Known(Wdl),
    At(&'a Entry, Position),
}

impl Tablebase {
    /// An empty collection: every probe answers [`ProbeError::Missing`].
    #[must_use]
    pub fn new() -> Tablebase {
        Tablebase {
            entries: (0..13usize.pow(4)).map(|_| None).collect(),
            max_pieces: 0,
            dirs: Vec::new(),
        }
    }

    /// Adds the slice files (`*.wld`, named by material) of `dir`; a slice
    /// already known from an earlier directory is kept. Returns how many
    /// slices were added. Files are opened on the first probe needing them.
    pub fn add_directory(&mut self, dir: impl AsRef<Path>) -> Result<usize, DirError> {
        let dir = dir.as_ref();
        let err = |source| DirError {
            path: dir.to_path_buf(),
            source,
        };
        let mut added = 0;
        for e in std::fs::read_dir(dir).map_err(err)? {
            let e = e.map_err(err)?;
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(stem) = name.strip_suffix(".wld") else {
                continue;
            };
            let Ok(mat) = stem.parse::<Material>() else {
                continue;
            };
            if mat.is_canonical() && self.add_slice(dir, mat) {
                added += 1;
            }
        }
        self.dirs.push(dir.to_path_buf());
        Ok(added)
    }

    /// Adds one slice whose files are in `dir` (for a builder that just wrote
    /// them). Returns false when the slice was known already.
    pub fn add_slice(&mut self, dir: &Path, mat: Material) -> bool {
        let s = &mut self.entries[slot(mat)];
        if s.is_some() {
            return false;
        }
        *s = Some(Entry {
            mat,
            index: SliceIndex::new(mat),
            source: Source::Dir(dir.to_path_buf()),
            values: OnceLock::new(),
            conversion: OnceLock::new(),
        });
        self.count_pieces();
        true
    }

    /// Adds the slices built into kingme (every slice of up to
    /// [`pack::BUILTIN_PIECES`] pieces) that no directory added gave.
    /// Returns how many were added.
    pub fn add_builtin(&mut self) -> Result<usize, FileError> {
        let files = pack::builtin()?;
        let mut added = 0;
        for v in files.iter().filter(|p| p.kind == Kind::Values) {
            let Some(d) = files
                .iter()
                .find(|p| p.slice == v.slice && p.kind == Kind::Conversion)
            else {
                continue;
            };
            let s = &mut self.entries[slot(v.slice)];
            if s.is_none() && v.slice.is_canonical() {
                *s = Some(Entry {
                    mat: v.slice,
                    index: SliceIndex::new(v.slice),
                    source: Source::Builtin(v.bytes, d.bytes),
                    values: OnceLock::new(),
                    conversion: OnceLock::new(),
                });
                added += 1;
            }
        }
        self.count_pieces();
        Ok(added)
    }

    /// The most pieces of any slice known, complete or not: searches probe up
    /// to this many (a position of a missing slice is evaluated instead).
    #[must_use]
    pub fn probe_pieces(&self) -> u32 {
        self.entries
            .iter()
            .flatten()
            .map(|e| e.mat.pieces())
            .max()
            .unwrap_or(0)
    }

    /// Sets `max_pieces` from the slices known.
    fn count_pieces(&mut self) {
        self.max_pieces = (2..=12)
            .take_while(|&n| {
                super::plan(n)
                    .iter()
                    .all(|m| self.entries[slot(*m)].is_some())
            })
            .last()
            .unwrap_or(0);
    }

    /// Reads the files of every slice of at most `pieces` pieces into memory,
    /// smallest slice first, its values then its distances (a file already
    /// read is skipped; one that can't be used stays an error for its
    /// probes). Returns the bytes now in memory. Probes that do not wait see
    /// each slice as soon as it is read, so the smaller slices, the ones
    /// conversions lead into, are complete first.
    pub fn preload(&self, pieces: u32) -> u64 {
        let mut bytes = 0;
        for m in self.slices() {
            if m.pieces() > pieces {
                continue;
            }
            if let Some(e) = &self.entries[slot(m)] {
                for kind in [Kind::Values, Kind::Conversion] {
                    bytes += match e.load(kind) {
                        Ok(SliceData::Compact(c)) => c.warm().unwrap_or(0),
                        Ok(d) => d.len(),
                        Err(_) => 0,
                    };
                }
            }
        }
        bytes
    }

    /// The largest N such that every slice of at most N pieces is present
    /// (0 when not even the 2-piece slices are).
    #[must_use]
    pub const fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The slices found, in build order.
    #[must_use]
    pub fn slices(&self) -> Vec<Material> {
        let mut v: Vec<Material> = self.entries.iter().flatten().map(|e| e.mat).collect();
        v.sort_by_key(|m| (m.pieces(), m.men(), *m));
        v
    }

    /// The directories added.
    #[must_use]
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Whether the slice file of `mat` (canonical) is present and opens
    /// (header, size, checksum); the error names the file.
    pub fn check_slice(&self, mat: Material) -> Result<(), ProbeError> {
        let e = self.entries[slot(mat)]
            .as_ref()
            .ok_or(ProbeError::Missing(mat))?;
        e.load(Kind::Values).map(|_| ())
    }

    fn locate(&self, pos: &Position) -> Result<Located<'_>, ProbeError> {
        if pos.variant() != Variant::English {
            return Err(ProbeError::Variant);
        }
        let us = pos.turn();
        if pos.pieces(us).is_empty() {
            return Ok(Located::Known(Wdl::Loss));
        }
        if pos.pieces(!us).is_empty() {
            return Ok(Located::Known(Wdl::Win));
        }
        let mat = Material::of(pos);
        let (mat, pos) = if mat.is_canonical() {
            (mat, *pos)
        } else {
            (mat.mirrored(), mirror(pos))
        };
        if mat.bk > 12 || mat.wk > 12 || mat.pieces() > 12 {
            return Err(ProbeError::Missing(mat));
        }
        let e = self.entries[slot(mat)]
            .as_ref()
            .ok_or(ProbeError::Missing(mat))?;
        Ok(Located::At(e, pos))
    }

    /// The value of `pos` for the side to move. Valid for every legal English
    /// position whose slice is present: with or without a capture pending, with
    /// or without a legal move.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.wdl(pos, Wait::Yes)
    }

    /// [`Tablebase::probe_wdl`] without reading any file: a slice not in
    /// memory yet answers [`ProbeError::Loading`] (for searches on a clock,
    /// while [`Tablebase::preload`] reads the files).
    pub fn probe_wdl_now(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.wdl(pos, Wait::No)
    }

    fn wdl(&self, pos: &Position, wait: Wait) -> Result<Wdl, ProbeError> {
        match self.locate(pos)? {
            Located::Known(v) => Ok(v),
            Located::At(e, p) => self.value_in(e, &p, wait),
        }
    }

    /// The value of `p` (in `e`'s orientation) from `e`'s file, or for a
    /// position a compact file leaves out, from its moves.
    fn value_in(&self, e: &Entry, p: &Position, wait: Wait) -> Result<Wdl, ProbeError> {
        let code = match e.data(Kind::Values, wait)? {
            SliceData::Full(d) => full::unpack(d, e.index.index(p)),
            SliceData::Compact(c) => match compact::left_out(p) {
                Some(_) => return self.search_value(p, wait),
                None => c.get(e.index.index(p)).map_err(file_error)?,
            },
        };
        Wdl::from_code(code).ok_or(ProbeError::NoValue(e.mat))
    }

    /// The value of `p` from its moves' values: a capture leads into a
    /// smaller slice, and for a position a compact file leaves out every
    /// other move leads to a position that is stored.
    fn search_value(&self, p: &Position, wait: Wait) -> Result<Wdl, ProbeError> {
        let mut best = Wdl::Loss;
        let mut moves = MoveList::new();
        p.legal_moves_into(&mut moves);
        for &m in moves.iter() {
            match self.wdl(&p.after(m), wait)?.flipped() {
                Wdl::Win => return Ok(Wdl::Win),
                Wdl::Draw => best = Wdl::Draw,
                Wdl::Loss => {}
            }
        }
        Ok(best)
    }

    /// The game's result under perfect play from `pos`, when `pos` is English
    /// and has at most [`Tablebase::max_pieces`] pieces (and its probe
    /// answers); `None` otherwise.
    #[must_use]
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if pos.variant() != Variant::English || pos.occupied().count() > self.max_pieces {
            return None;
        }
        Some(match self.probe_wdl(pos).ok()? {
            Wdl::Win => Outcome::Win(pos.turn()),
            Wdl::Loss => Outcome::Win(!pos.turn()),
            Wdl::Draw => Outcome::Draw,
        })
    }
}
