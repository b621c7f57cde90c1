//! The slice files: `NAME.wld` (values, 2 bits per position) and `NAME.dtc`
//! (plies to conversion, one byte per position), each a 64-byte header and
//! the data.
//!
//! Header, little-endian: magic `KINGMEDB`, format version (u32), kind (u32:
//! 1 values, 2 conversion distances), slice name (16 bytes, zero-padded),
//! position count (u64), data length in bytes (u64), FNV-1a 64 checksum of
//! the data (u64), 8 reserved zero bytes. Files are written to `NAME.*.tmp`,
//! synced, then renamed: a file with the final name is always complete.

use super::Material;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The format version written and accepted.
pub const FORMAT_VERSION: u32 = 1;
pub(super) const MAGIC: &[u8; 8] = b"KINGMEDB";
pub(super) const HEADER_LEN: usize = 64;

/// What a slice file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Win, draw or loss, 2 bits per position.
    Values,
    /// Plies to conversion, one byte per position.
    Conversion,
}

impl Kind {
    pub(super) const fn code(self) -> u32 {
        match self {
            Kind::Values => 1,
            Kind::Conversion => 2,
        }
    }

    /// The file name extension.
    #[must_use]
    pub const fn extension(self) -> &'static str {
        match self {
            Kind::Values => "wld",
            Kind::Conversion => "dtc",
        }
    }

    /// Data bytes for `positions` positions.
    #[must_use]
    pub const fn data_len(self, positions: u64) -> u64 {
        match self {
            Kind::Values => positions.div_ceil(4),
            Kind::Conversion => positions,
        }
    }
}

/// A slice file that can't be used; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// Shorter or longer than its header says.
    #[error("{path}: truncated or padded: {found} bytes, expected {expected}")]
    Size {
        /// The file.
        path: PathBuf,
        /// Length from the header and slice.
        expected: u64,
        /// Length on disk.
        found: u64,
    },
    /// Not a kingme database file, or from another format version or slice.
    #[error("{path}: bad header: {reason}")]
    Header {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A block of a compact file does not match its checksum, or does not
    /// decode.
    #[error("{path}: corrupted block {block}")]
    Block {
        /// The file.
        path: PathBuf,
        /// The block.
        block: u64,
    },
    /// The data does not match the checksum in the header.
    #[error("{path}: corrupted: checksum {found:016x}, header says {expected:016x}")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// From the header.
        expected: u64,
        /// Of the data read.
        found: u64,
    },
}

/// FNV-1a 64 of `data`, computed 8 lanes at a time and folded (fast on long data).
#[must_use]
pub fn checksum(data: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    let mut lanes = [BASIS; 8];
    let chunks = data.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (l, b) in lanes.iter_mut().zip(c) {
            *l = (*l ^ u64::from(*b)).wrapping_mul(PRIME);
        }
    }
    let mut h = BASIS;
    for l in lanes.iter().chain(std::iter::once(&(data.len() as u64))) {
        for b in l.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }
    for b in tail {
        h = (h ^ u64::from(*b)).wrapping_mul(PRIME);
    }
    h
}

/// The path of `mat`'s file of `kind` in `dir`.
#[must_use]
pub fn path(dir: &Path, mat: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{mat}.{}", kind.extension()))
}

/// Packs values (one 2-bit code per byte) four to a byte.
#[must_use]
pub fn pack(values: &[u8]) -> Vec<u8> {
    values
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |acc, (i, v)| acc | ((v & 3) << (2 * i)))
        })
        .collect()
}

/// The 2-bit code of position `i` in packed data.
#[inline]
#[must_use]
pub fn unpack(data: &[u8], i: u64) -> u8 {
    (data[(i >> 2) as usize] >> ((i & 3) * 2)) & 3
}

/// A header with its first 32 bytes (magic, `version`, `kind`, slice name)
/// filled in.
pub(super) fn ident(mat: Material, kind: Kind, version: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&version.to_le_bytes());
    h[12..16].copy_from_slice(&kind.code().to_le_bytes());
    let name = mat.to_string();
    h[16..16 + name.len()].copy_from_slice(name.as_bytes());
    h
}

fn header(kind: Kind, mat: Material, positions: u64, data: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = ident(mat, kind, FORMAT_VERSION);
    h[32..40].copy_from_slice(&positions.to_le_bytes());
    h[40..48].copy_from_slice(&(data.len() as u64).to_le_bytes());
    h[48..56].copy_from_slice(&checksum(data).to_le_bytes());
    h
}

/// Writes `mat`'s file of `kind` into `dir`: to a temporary name, synced, then
/// renamed into place.
pub fn write(dir: &Path, mat: Material, kind: Kind, data: &[u8]) -> Result<PathBuf, FileError> {
    let positions = mat.positions();
    debug_assert_eq!(kind.data_len(positions), data.len() as u64);
    write_parts(
        dir,
        mat,
        kind,
        [&header(kind, mat, positions, data)[..], data],
    )
}

/// Writes `mat`'s file of `kind` into `dir` from `parts`, in order: to a
/// temporary name, synced, then renamed into place (a file with the final
/// name is always complete).
pub(super) fn write_parts<'a>(
    dir: &Path,
    mat: Material,
    kind: Kind,
    parts: impl IntoIterator<Item = &'a [u8]>,
) -> Result<PathBuf, FileError> {
    let dest = path(dir, mat, kind);
    let tmp = dest.with_extension(format!("{}.tmp", kind.extension()));
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FileError::Io { path, source }
    };
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    let mut w = io::BufWriter::new(&mut f);
    let written = parts
        .into_iter()
        .try_for_each(|p| w.write_all(p))
        .and_then(|()| w.flush());
    drop(w);
    written.and_then(|()| f.sync_all()).map_err(io_err(&tmp))?;
    drop(f);
    fs::rename(&tmp, &dest).map_err(io_err(&dest))?;
    if let Ok(d) = File::open(dir) {
        // make the rename durable; not every platform can sync a directory
        let _ = d.sync_all();
    }
    Ok(dest)
}

/// The little-endian u32 at `at` of `b` (the caller has checked the length).
pub(super) fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The little-endian u64 at `at` of `b` (the caller has checked the length).
pub(super) fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Checks the first 32 bytes of a header: magic, a version among
/// `versions`, `kind`, slice name; returns the version, or an error that says
/// what is wrong.
pub(super) fn check_ident(
    h: &[u8],
    mat: Material,
    kind: Kind,
    versions: &[u32],
) -> Result<u32, String> {
    let u32_at = |o: usize| le_u32(h, o);
    if &h[0..8] != MAGIC {
        return Err("not a kingme database file".into());
    }
    let version = u32_at(8);
    if !versions.contains(&version) {
        return Err(format!(
            "format version {version}, expected {versions:?} (this kingme reads {FORMAT_VERSION} and {:?})",
            super::compact::COMPACT_VERSIONS
        ));
    }
    if u32_at(12) != kind.code() {
        return Err(format!("kind {}, expected {}", u32_at(12), kind.code()));
    }
    let name = mat.to_string();
    let stored = &h[16..32];
    if &stored[..name.len()] != name.as_bytes() || stored[name.len()..].iter().any(|b| *b != 0) {
        return Err(format!(
            "slice '{}', expected {name}",
            String::from_utf8_lossy(stored).trim_end_matches('\0')
        ));
    }
    Ok(version)
}

/// The format version in the header of the file at `path` (1: full, 3 or
/// 4: compact); `None` when it has no kingme header.
pub fn version_of(path: &Path) -> Result<Option<u32>, FileError> {
    let io_err = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = crate::files::open_regular(path).map_err(io_err)?;
    let mut h = [0u8; 12];
    match f.read_exact(&mut h) {
        Ok(()) if &h[0..8] == MAGIC => Ok(Some(le_u32(&h, 8))),
        Ok(()) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(io_err(e)),
    }
}

/// Reads and checks `mat`'s file of `kind` at `path`: header, size, checksum.
/// Returns the data.
pub fn read(path: &Path, mat: Material, kind: Kind) -> Result<Vec<u8>, FileError> {
    let io_err = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = crate::files::open_regular(path).map_err(io_err)?;
    let found = f.metadata().map_err(io_err)?.len();
    let positions = mat.positions();
    let data_len = kind.data_len(positions);
    let expected = HEADER_LEN as u64 + data_len;
    if found != expected {
        return Err(FileError::Size {
            path: path.to_path_buf(),
            expected,
            found,
        });
    }
    let mut h = [0u8; HEADER_LEN];
    f.read_exact(&mut h).map_err(io_err)?;
    let bad = |reason: String| FileError::Header {
        path: path.to_path_buf(),
        reason,
    };
    let u64_at = |o: usize| le_u64(&h, o);
    check_ident(&h, mat, kind, &[FORMAT_VERSION]).map_err(bad)?;
    if u64_at(32) != positions || u64_at(40) != data_len {
        return Err(bad(format!(
            "{} positions in {} bytes, expected {positions} in {data_len}",
            u64_at(32),
            u64_at(40)
        )));
    }
    let mut data = vec![0u8; data_len as usize];
    f.read_exact(&mut data).map_err(io_err)?;
    let sum = checksum(&data);
    if sum != u64_at(48) {
        return Err(FileError::Checksum {
            path: path.to_path_buf(),
            expected: u64_at(48),
            found: sum,
        });
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack() {
        let v = [0u8, 1, 2, 3, 2, 1];
        let p = pack(&v);
        assert_eq!(p.len(), 2);
        for (i, x) in v.iter().enumerate() {
            assert_eq!(unpack(&p, i as u64), *x);
        }
    }

    #[test]
    fn checksum_sees_one_flipped_bit() {
        let mut d = vec![7u8; 1001];
        let a = checksum(&d);
        d[500] ^= 1;
        assert_ne!(a, checksum(&d));
    }
}
