//! `egdb convert`: version 1 slice files into compact ones (see
//! [`compact`](super::compact)), each slice checked against the files it
//! came from before it counts as converted.

use super::compact::{self, COMPACT_VERSION, DISTANCE_BLOCK, DONT_CARE, VALUE_BLOCK};
use super::file::{self, FileError, Kind};
use super::index::SliceIndex;
use super::probe::{ProbeError, Tablebase};
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

/// Whether `mat`'s files in `dir` are both compact already.
pub fn is_compact(dir: &Path, mat: Material) -> bool {
    [Kind::Values, Kind::Conversion].iter().all(|&k| {
        matches!(
            file::version_of(&file::path(dir, mat, k)),
            Ok(Some(COMPACT_VERSION))
        )
    })
}

/// The value codes and distances of one block of distances, with the positions a
/// probe never reads from the file marked [`DONT_CARE`]: indices that are no
/// position, positions with a capture pending, and in the distances draws.
fn block_codes(ix: &SliceIndex, values: &[u8], dtc: &[u8], b: u64) -> (Vec<u8>, Vec<u8>) {
    let n = ix.len();
    let start = b * DISTANCE_BLOCK;
    let end = (start + DISTANCE_BLOCK).min(n);
    let mut codes = Vec::with_capacity((end - start) as usize);
    let mut dist = Vec::with_capacity((end - start) as usize);
    for j in start..end {
        let i = compact::index_at(j, n);
        let c = file::unpack(values, i);
        let kept = c != NOT_A_POSITION && ix.position(i).is_some_and(|p| !p.must_capture());
        codes.push(if kept { c } else { DONT_CARE });
        dist.push(if kept && c != Wdl::Draw.code() {
            dtc[i as usize]
        } else {
            DONT_CARE
        });
    }
    (codes, dist)
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
    let values = file::read(&vpath, mat, Kind::Values)?;
    let dtc = file::read(&dpath, mat, Kind::Conversion)?;
    let before = (
        std::fs::metadata(&vpath).map_or(0, |m| m.len()),
        std::fs::metadata(&dpath).map_or(0, |m| m.len()),
    );
    let ix = SliceIndex::new(mat);
    let blocks = ix.len().div_ceil(DISTANCE_BLOCK);
    let encoded: Vec<(Vec<Vec<u8>>, Vec<u8>)> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let (codes, dist) = block_codes(&ix, &values, &dtc, b);
            let d = compact::encode_distances(&dist).map_err(|source| FileError::Io {
                path: dpath.clone(),
                source,
            })?;
            let v = codes
                .chunks(VALUE_BLOCK as usize)
                .map(compact::encode_values)
                .collect();
            Ok((v, d))
        })
        .collect::<Result<_, FileError>>()?;
    let (vblocks, dblocks): (Vec<Vec<Vec<u8>>>, Vec<Vec<u8>>) = encoded.into_iter().unzip();
    let vblocks: Vec<Vec<u8>> = vblocks.into_iter().flatten().collect();
    let v = compact::write(to, mat, Kind::Values, &vblocks)?;
    let d = compact::write(to, mat, Kind::Conversion, &dblocks)?;
    let after = (
        std::fs::metadata(&v).map_or(0, |m| m.len()),
        std::fs::metadata(&d).map_or(0, |m| m.len()),
    );
    let tb = tb();
    let n = ix.len();
    let indices: Vec<u64> = match sample {
        Some(k) if k < n => (0..k).map(|j| j * n / k).collect(),
        _ => (0..n).collect(),
    };
    let checked = indices
        .par_iter()
        .map(|&i| {
            let code = file::unpack(&values, i);
            let (Some(pos), Some(v)) = (ix.position(i), Wdl::from_code(code)) else {
                return Ok(0);
            };
            let got = tb
                .probe_dtc(&pos)
                .map_err(|source| ConvertError::Probe { slice: mat, source })?;
            let expected = (v, dtc[i as usize]);
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
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    Ok(Converted {
        slice: mat,
        before,
        after,
        checked,
    })
}
