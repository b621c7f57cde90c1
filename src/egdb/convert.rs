//! A slice's values into compact files (see [`compact`]),
//! checked against where they came from: `egdb convert` from version 1
//! files or older compact ones, `egdb build` from the builder's memory.

use super::compact::{self, LeftOut, DISTANCE_BLOCK, DONT_CARE, VALUE_BLOCK};
use super::file::{self, Kind, COMPACT_VERSION};
use super::full;
use super::index::{KingSets, Men, SliceIndex};
use super::probe::{ProbeError, Tablebase};
use super::FileError;
use super::{Material, Wdl, NOT_A_POSITION};
use rayon::prelude::*;
use std::path::Path;

/// Why a slice could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// A probe of the new files failed.
    #[error("slice {slice}: probing the compact files: {source}")]
    Probe {
        /// The slice.
        slice: Material,
        /// Why.
        source: ProbeError,
    },
    /// The compact files give another value than the originals.
    #[error("slice {slice}: the compact files give {got} for {fen}, the originals {expected}")]
    Mismatch {
        /// The slice.
        slice: Material,
        /// The position.
        fen: String,
        /// Value and distance from the compact files.
        got: String,
        /// From the originals.
        expected: String,
    },
}

/// What converting one slice did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converted {
    /// The slice.
    pub slice: Material,
    /// Bytes of the version 1 files (values, distances).
    pub before: (u64, u64),
    /// Bytes of the compact files (values, distances).
    pub after: (u64, u64),
    /// Positions compared between the two.
    pub checked: u64,
}

/// The format versions of `mat`'s values and conversion files in `dir`
/// (`None` for a file missing, unreadable or without a kingme header).
fn versions(dir: &Path, mat: Material) -> [Option<u32>; 2] {
    [Kind::Values, Kind::Conversion]
        .map(|k| file::version_of(&file::path(dir, mat, k)).ok().flatten())
}

/// Whether `mat`'s files in `dir` are both compact already, of the version
/// written now.
pub fn is_compact(dir: &Path, mat: Material) -> bool {
    versions(dir, mat) == [Some(COMPACT_VERSION); 2]
}

/// Whether `mat`'s files in `dir` are both compact, at least one of them of
/// an older version than is written now.
pub fn is_older_compact(dir: &Path, mat: Material) -> bool {
    let v = versions(dir, mat);
    v.iter().all(|v| v.is_some_and(file::is_compact_version)) && v != [Some(COMPACT_VERSION); 2]
}

/// A slice's value codes (`NOT_A_POSITION` for an index that is no
/// position) and distances by slice index, wherever they are held.
pub trait SliceSource: Sync {
    /// The value code of index `i`.
    fn code(&self, i: u64) -> u8;
    /// The distance to conversion of index `i`.
    fn distance(&self, i: u64) -> u8;
}

/// Version 1 files read into memory: packed values, a byte per distance.
struct Packed<'a> {
    values: &'a [u8],
    dtc: &'a [u8],
}

impl SliceSource for Packed<'_> {
    fn code(&self, i: u64) -> u8 {
        full::unpack(self.values, i)
    }
    fn distance(&self, i: u64) -> u8 {
        self.dtc[i as usize]
    }
}

/// The builder's arrays: a byte per value code, a byte per distance.
pub struct Unpacked<'a> {
    /// Value codes.
    pub values: &'a [u8],
    /// Distances.
    pub dtc: &'a [u8],
}

impl SliceSource for Unpacked<'_> {
    fn code(&self, i: u64) -> u8 {
        self.values[i as usize]
    }
    fn distance(&self, i: u64) -> u8 {
        self.dtc[i as usize]
    }
}

/// One values block's encoding and the encodings of the conversion blocks
/// it covers. A position a probe never reads from the file is
/// [`DONT_CARE`]: an index that is no position, a position [`left_out`] of
/// the values, and in the distances anything but a win without a capture
/// pending ([`compact::stored_distance`]). `kings` is the slice's
/// [`SliceIndex::king_sets`].
fn encode_block(
    ix: &SliceIndex,
    kings: &KingSets,
    src: &dyn SliceSource,
    b: u64,
) -> std::io::Result<(Vec<u8>, Vec<Vec<u8>>)> {
    let n = ix.len();
    let bl = ix.block_len();
    let start = b * VALUE_BLOCK;
    let end = (start + VALUE_BLOCK).min(n);
    let mut codes = Vec::with_capacity((end - start) as usize);
    let mut dist = Vec::with_capacity((end - start) as usize);
    // the men of the index's block read last: stored neighbours are mostly
    // in one block
    let mut men: Option<(u64, Option<Men>)> = None;
    for j in start..end {
        let i = compact::index_at(j, n);
        let c = src.code(i);
        if men.map(|m| m.0) != Some(i / bl) {
            men = Some((i / bl, ix.men(i / bl)));
        }
        let pos = men.and_then(|m| m.1).map(|m| kings.position(m, i % bl));
        let why = match pos {
            Some(p) if c != NOT_A_POSITION => Ok(compact::left_out(&p)),
            _ => Err(()),
        };
        codes.push(if matches!(why, Ok(None)) {
            c
        } else {
            DONT_CARE
        });
        dist.push(if matches!(why, Ok(None | Some(LeftOut::Threat))) {
            compact::stored_distance(c, src.distance(i))
        } else {
            DONT_CARE
        });
    }
    let d = dist
        .chunks(DISTANCE_BLOCK as usize)
        .map(compact::encode_distances)
        .collect::<Result<_, _>>()?;
    Ok((compact::encode_values(&codes)?, d))
}

/// Writes `mat`'s compact files into `dir` from `src`; returns their sizes
/// in bytes (values, distances).
pub fn write_slice(
    dir: &Path,
    mat: Material,
    src: &dyn SliceSource,
) -> Result<(u64, u64), FileError> {
    let ix = SliceIndex::new(mat);
    let blocks = ix.len().div_ceil(VALUE_BLOCK);
    let kings = ix.king_sets();
    let encoded: Vec<(Vec<u8>, Vec<Vec<u8>>)> = (0..blocks)
        .into_par_iter()
        .map(|b| encode_block(&ix, &kings, src, b))
        .collect::<Result<_, _>>()
        .map_err(|source| FileError::Io {
            path: file::path(dir, mat, Kind::Values),
            source,
        })?;
    let (vblocks, dblocks): (Vec<Vec<u8>>, Vec<Vec<Vec<u8>>>) = encoded.into_iter().unzip();
    let dblocks: Vec<Vec<u8>> = dblocks.into_iter().flatten().collect();
    let v = compact::write(dir, mat, Kind::Values, &vblocks)?;
    let d = compact::write(dir, mat, Kind::Conversion, &dblocks)?;
    Ok((
        std::fs::metadata(&v).map_or(0, |m| m.len()),
        std::fs::metadata(&d).map_or(0, |m| m.len()),
    ))
}

/// Compares the value and distance of every position of `mat` (or of
/// `sample` positions spread over the slice) from `tb`, a tablebase that
/// finds its new files, with `src`. Returns the positions compared.
pub fn check_slice(
    mat: Material,
    src: &dyn SliceSource,
    sample: Option<u64>,
    tb: &Tablebase,
) -> Result<u64, ConvertError> {
    let ix = SliceIndex::new(mat);
    let n = ix.len();
    let indices: Vec<u64> = match sample {
        Some(k) if k < n => (0..k).map(|j| j * n / k).collect(),
        _ => (0..n).collect(),
    };
    indices
        .par_iter()
        .map(|&i| {
            let (Some(pos), Some(v)) = (ix.position(i), Wdl::from_code(src.code(i))) else {
                return Ok(0);
            };
            let got = tb
                .probe_dtc(&pos)
                .map_err(|source| ConvertError::Probe { slice: mat, source })?;
            let expected = (v, if v == Wdl::Draw { 0 } else { src.distance(i) });
            if got != expected {
                return Err(ConvertError::Mismatch {
                    slice: mat,
                    fen: pos.to_fen(),
                    got: format!("{} {}", got.0, got.1),
                    expected: format!("{} {}", expected.0, expected.1),
                });
            }
            Ok(1u64)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// Converts `mat`'s version 1 files in `from` into compact files in `to`
/// (which may be `from`: each file is replaced by a rename), then compares
/// the value and distance of every position (or of `sample` positions spread
/// over the slice) through `tb`, a tablebase that finds the new files and
/// the smaller slices.
pub fn convert_slice(
    from: &Path,
    to: &Path,
    mat: Material,
    sample: Option<u64>,
    tb: impl FnOnce() -> Tablebase,
) -> Result<Converted, ConvertError> {
    let vpath = file::path(from, mat, Kind::Values);
    let dpath = file::path(from, mat, Kind::Conversion);
    let values = full::read(&vpath, mat, Kind::Values)?;
    let dtc = full::read(&dpath, mat, Kind::Conversion)?;
    let before = (
        std::fs::metadata(&vpath).map_or(0, |m| m.len()),
        std::fs::metadata(&dpath).map_or(0, |m| m.len()),
    );
    let src = Packed {
        values: &values,
        dtc: &dtc,
    };
    write_and_check(to, mat, &src, before, sample, tb)
}

/// Writes `mat`'s compact files into `to` from `src` (whose files took
/// `before` bytes), then compares them with `src` through `tb`.
fn write_and_check(
    to: &Path,
    mat: Material,
    src: &dyn SliceSource,
    before: (u64, u64),
    sample: Option<u64>,
    tb: impl FnOnce() -> Tablebase,
) -> Result<Converted, ConvertError> {
    let after = write_slice(to, mat, src)?;
    let checked = check_slice(mat, src, sample, &tb())?;
    Ok(Converted {
        slice: mat,
        before,
        after,
        checked,
    })
}

/// Every value code and distance of `mat` by slice index, probed through
/// `tb` (for turning older compact files into the current version).
pub fn read_slice(mat: Material, tb: &Tablebase) -> Result<(Vec<u8>, Vec<u8>), ConvertError> {
    let ix = SliceIndex::new(mat);
    let n = ix.len() as usize;
    let mut values = vec![NOT_A_POSITION; n];
    let mut dtc = vec![0u8; n];
    let chunk = DISTANCE_BLOCK as usize;
    values
        .par_chunks_mut(chunk)
        .zip(dtc.par_chunks_mut(chunk))
        .enumerate()
        .try_for_each(|(k, (v, d))| {
            for j in 0..v.len() {
                let Some(pos) = ix.position((k * chunk + j) as u64) else {
                    continue;
                };
                let (w, dist) = tb
                    .probe_dtc(&pos)
                    .map_err(|source| ConvertError::Probe { slice: mat, source })?;
                v[j] = w.code();
                d[j] = dist;
            }
            Ok::<(), ConvertError>(())
        })?;
    Ok((values, dtc))
}

/// Rewrites `mat`'s compact files of an older version, read through
/// `source` (a tablebase that finds them in `from`), as current files in
/// `to` (which may be `from`), then compares every position (or `sample`
/// of them) through `tb`, a tablebase that finds the new files.
pub fn upgrade_slice(
    from: &Path,
    to: &Path,
    mat: Material,
    sample: Option<u64>,
    source: &Tablebase,
    tb: impl FnOnce() -> Tablebase,
) -> Result<Converted, ConvertError> {
    let size = |kind| std::fs::metadata(file::path(from, mat, kind)).map_or(0, |m| m.len());
    let before = (size(Kind::Values), size(Kind::Conversion));
    let (values, dtc) = read_slice(mat, source)?;
    let src = Unpacked {
        values: &values,
        dtc: &dtc,
    };
    write_and_check(to, mat, &src, before, sample, tb)
}
