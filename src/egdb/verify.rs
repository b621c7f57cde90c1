//! Checks of a built database: every slice file opens (header, size,
//! checksum), and its values are consistent with the rules: each position's
//! value and distance to conversion are what its children's give (forward
//! move generation, probes into this and the smaller slices). With the
//! distances checked too, a win can only be stored where the winner really
//! makes progress, so consistency of every slice means correctness.
//! Also the per-slice counts of wins, draws and losses.

use super::file::{self, Kind};
use super::full;
use super::index::SliceIndex;
use super::probe::{ProbeError, Tablebase};
use super::FileError;
use super::{Material, Wdl};
use crate::board::Position;
use rayon::prelude::*;
use std::path::Path;

/// A position whose stored value disagrees with its children's.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Its index in the slice.
    pub index: u64,
    /// The position.
    pub fen: String,
    /// What the files say (value and distance, or `none`).
    pub stored: String,
    /// What the children say.
    pub expected: String,
}

/// Why a slice failed verification.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A file is unusable.
    #[error(transparent)]
    File(#[from] FileError),
    /// A probe failed (a slice it depends on is missing or unusable).
    #[error("{slice}: {source}")]
    Probe {
        /// The slice checked.
        slice: Material,
        /// The failed probe.
        source: ProbeError,
    },
    /// Values that disagree with the rules.
    #[error("{slice}: {bad} of {checked} positions inconsistent, first {} stored {} expected {}", first.fen, first.stored, first.expected)]
    Inconsistent {
        /// The slice checked.
        slice: Material,
        /// Positions checked.
        checked: u64,
        /// Positions wrong.
        bad: u64,
        /// The first one.
        first: Box<Mismatch>,
    },
}

/// A slice's stored values: read whole from version 1 files, or probed
/// from compact ones (positions with a capture pending by their search).
enum Stored {
    Full { values: Vec<u8>, dtc: Vec<u8> },
    Compact,
}

impl Stored {
    fn open(tb: &Tablebase, dir: &Path, mat: Material) -> Result<Stored, VerifyError> {
        if super::convert::is_compact(dir, mat) {
            tb.check_slice(mat)
                .map_err(|source| VerifyError::Probe { slice: mat, source })?;
            return Ok(Stored::Compact);
        }
        let values = full::read(&file::path(dir, mat, Kind::Values), mat, Kind::Values)?;
        let dtc = full::read(
            &file::path(dir, mat, Kind::Conversion),
            mat,
            Kind::Conversion,
        )?;
        Ok(Stored::Full { values, dtc })
    }

    /// The stored code (value code, or for a compact file the probed value's)
    /// and distance of index `i`, whose position is `pos`.
    fn at(&self, tb: &Tablebase, i: u64, pos: Option<&Position>) -> Result<(u8, u8), ProbeError> {
        match (self, pos) {
            (Stored::Full { values, dtc }, _) => Ok((full::unpack(values, i), dtc[i as usize])),
            (Stored::Compact, Some(p)) => tb.probe_dtc(p).map(|(v, d)| (v.code(), d)),
            (Stored::Compact, None) => Ok((super::NOT_A_POSITION, 0)),
        }
    }
}

/// The value and distance to conversion `pos` should have, from its children.
pub fn expected(tb: &Tablebase, pos: &Position) -> Result<(Wdl, u32), ProbeError> {
    let moves = pos.legal_moves_all_paths();
    if moves.is_empty() {
        return Ok((Wdl::Loss, 0));
    }
    let mut win: Option<u32> = None;
    let mut draw = false;
    let mut loss = 0u32;
    for &m in moves.iter() {
        let (v, d) = tb.probe_dtc(&pos.after(m))?;
        let plies = if pos.is_irreversible(m) {
            1
        } else {
            1 + u32::from(d)
        };
        match v.flipped() {
            Wdl::Win => win = Some(win.map_or(plies, |w| w.min(plies))),
            Wdl::Draw => draw = true,
            Wdl::Loss => loss = loss.max(plies),
        }
    }
    Ok(match (win, draw) {
        (Some(w), _) => (Wdl::Win, w),
        (None, true) => (Wdl::Draw, 0),
        (None, false) => (Wdl::Loss, loss),
    })
}

/// A small deterministic generator for sampling.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Checks slice `mat` in `dir`: both files open, and every position (or
/// `sample` positions drawn at random, where the slice has more) agrees
/// with its children. `tb` must hold this slice and the slices it depends
/// on. Returns the positions checked.
pub fn verify_slice(
    tb: &Tablebase,
    dir: &Path,
    mat: Material,
    sample: Option<u64>,
) -> Result<u64, VerifyError> {
    let stored_files = Stored::open(tb, dir, mat)?;
    let ix = SliceIndex::new(mat);
    let indices: Vec<u64> = match sample {
        Some(k) if k < ix.len() => {
            let mut state = ix.len() ^ 0x6b69_6e67_6d65;
            (0..k).map(|_| splitmix(&mut state) % ix.len()).collect()
        }
        _ => (0..ix.len()).collect(),
    };
    let check = |i: u64| -> Result<Option<Mismatch>, ProbeError> {
        let pos = ix.position(i);
        let (code, stored_d) = stored_files.at(tb, i, pos.as_ref())?;
        let stored_d = u32::from(stored_d);
        let Some(pos) = pos else {
            return Ok((code != super::NOT_A_POSITION).then(|| Mismatch {
                index: i,
                fen: format!("index {i} (no position)"),
                stored: format!("code {code}"),
                expected: "none".into(),
            }));
        };
        let (v, d) = expected(tb, &pos)?;
        let d = d.min(255);
        let stored = Wdl::from_code(code);
        Ok((stored != Some(v) || stored_d != d).then(|| Mismatch {
            index: i,
            fen: pos.to_fen(),
            stored: stored.map_or("none".into(), |s| format!("{s} {stored_d}")),
            expected: format!("{v} {d}"),
        }))
    };
    let results: Vec<Mismatch> = indices
        .par_iter()
        .map(|&i| check(i))
        .filter_map(|r| match r {
            Ok(None) => None,
            Ok(Some(m)) => Some(Ok(m)),
            Err(e) => Some(Err(e)),
        })
        .collect::<Result<_, _>>()
        .map_err(|source| VerifyError::Probe { slice: mat, source })?;
    if let Some(first) = results.iter().min_by_key(|m| m.index) {
        return Err(VerifyError::Inconsistent {
            slice: mat,
            checked: indices.len() as u64,
            bad: results.len() as u64,
            first: Box::new(first.clone()),
        });
    }
    Ok(indices.len() as u64)
}

/// Counts of one slice's positions (both sides to move).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceStats {
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// The longest distance to conversion of a won position.
    pub max_conversion: u8,
}

/// The counts of slice `mat` in `dir`, read from its files (probed through
/// `tb` where they are compact).
pub fn slice_stats(tb: &Tablebase, dir: &Path, mat: Material) -> Result<SliceStats, VerifyError> {
    let stored = Stored::open(tb, dir, mat)?;
    let ix = SliceIndex::new(mat);
    (0..ix.len())
        .into_par_iter()
        .try_fold(SliceStats::default, |mut s, i| {
            let pos = ix.position(i);
            let (code, d) = stored.at(tb, i, pos.as_ref())?;
            match Wdl::from_code(code) {
                Some(Wdl::Win) => {
                    s.wins += 1;
                    s.max_conversion = s.max_conversion.max(d);
                }
                Some(Wdl::Draw) => s.draws += 1,
                Some(Wdl::Loss) => s.losses += 1,
                None => {}
            }
            Ok(s)
        })
        .try_reduce(SliceStats::default, |a, b| {
            Ok(SliceStats {
                wins: a.wins + b.wins,
                draws: a.draws + b.draws,
                losses: a.losses + b.losses,
                max_conversion: a.max_conversion.max(b.max_conversion),
            })
        })
        .map_err(|source| VerifyError::Probe { slice: mat, source })
}
