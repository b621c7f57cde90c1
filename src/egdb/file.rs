//! The slice files, every version: their names (`NAME.wld`, values;
//! `NAME.dtc`, plies to conversion), their [`Kind`]s, the format versions,
//! and the 64-byte header's shared start.
//!
//! Header, little-endian: magic `KINGMEDB`, format version (u32), kind (u32:
//! 1 values, 2 conversion distances), slice name (16 bytes, zero-padded),
//! then 32 bytes of the version's own fields: version 1, the full files
//! ([`super::full`]); versions 3 and 4, the compact ones ([`super::compact`]).
//! Every version is written through [`crate::checked_file`]: a file with the
//! final name is always complete.

use super::Material;
use crate::checked_file::{self, Checksum, FileError, Format, HeaderWriter, Reader};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The full format's version ([`super::full`]).
pub const FULL_VERSION: u32 = 1;

/// The compact format's version, written by the builder and `convert`
/// ([`super::compact`]).
pub const COMPACT_VERSION: u32 = 4;

/// The compact format's versions read.
pub const COMPACT_VERSIONS: [u32; 2] = [3, COMPACT_VERSION];

/// Whether a file of format `version` is a compact one (either version).
#[must_use]
pub fn is_compact_version(version: u32) -> bool {
    COMPACT_VERSIONS.contains(&version)
}

/// The header's length in bytes (every version).
pub const HEADER_LEN: usize = 64;

/// Bytes of the shared start: magic, version, kind, slice name.
const IDENT_LEN: usize = 32;
/// Bytes of the slice name, zero-padded.
const NAME_LEN: usize = 16;

/// The full files' format.
pub(super) const FULL: Format = Format {
    magic: b"KINGMEDB",
    what: "database file",
    versions: &[FULL_VERSION],
    checksum: Checksum::Fnv1aLanes,
};

/// The compact files' format (the same magic).
pub(super) const COMPACT: Format = Format {
    versions: &COMPACT_VERSIONS,
    ..FULL
};

/// What a slice file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Win, draw or loss, 2 bits per position.
    Values,
    /// Plies to conversion, one byte per position.
    Conversion,
}

impl Kind {
    const fn code(self) -> u32 {
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

    /// Data bytes for `positions` positions (in a full file).
    #[must_use]
    pub const fn data_len(self, positions: u64) -> u64 {
        match self {
            Kind::Values => positions.div_ceil(4),
            Kind::Conversion => positions,
        }
    }
}

/// The path of `mat`'s file of `kind` in `dir`.
#[must_use]
pub fn path(dir: &Path, mat: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{mat}.{}", kind.extension()))
}

/// A header of `format` and `version` with its shared start (magic,
/// version, kind, slice name) written.
pub(super) fn ident(format: &Format, mat: Material, kind: Kind, version: u32) -> HeaderWriter {
    let mut h = format.header(version);
    h.u32(kind.code())
        .padded(mat.to_string().as_bytes(), NAME_LEN);
    debug_assert_eq!(h.len(), IDENT_LEN);
    h
}

/// Checks the shared start of the header `h` of file `path`: magic, a
/// version of `format`, `kind`, slice name; returns the version and a
/// reader at the version's own fields.
pub(super) fn check_ident<'a>(
    format: &Format,
    h: &'a [u8],
    path: &Path,
    mat: Material,
    kind: Kind,
) -> Result<(u32, Reader<'a>), FileError> {
    let (version, mut r) = format.open(h, path)?;
    let short = |e: checked_file::PastTheEnd| e.in_file(path);
    let code = r.u32().map_err(short)?;
    if code != kind.code() {
        return Err(FileError::header(
            path,
            format!("kind {code}, expected {}", kind.code()),
        ));
    }
    let name = mat.to_string();
    let stored = r.take(NAME_LEN).map_err(short)?;
    if &stored[..name.len()] != name.as_bytes() || stored[name.len()..].iter().any(|b| *b != 0) {
        return Err(FileError::header(
            path,
            format!(
                "slice '{}', expected {name}",
                String::from_utf8_lossy(stored).trim_end_matches('\0')
            ),
        ));
    }
    Ok((version, r))
}

/// The format version in the header of the file at `path` (1: full, 3 or
/// 4: compact); `None` when it has no kingme header.
pub fn version_of(path: &Path) -> Result<Option<u32>, FileError> {
    let mut f = crate::files::open_regular(path).map_err(|e| FileError::io(path, e))?;
    let mut h = [0u8; 12];
    match f.read_exact(&mut h) {
        Ok(()) if FULL.is(&h) => Ok(checked_file::reader::u32_at(&h, 8)),
        Ok(()) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(FileError::io(path, e)),
    }
}

/// The error for a file at `path` of a version this kingme does not read.
pub(super) fn unknown_version(path: &Path, found: u32) -> FileError {
    FileError::Version {
        path: path.to_path_buf(),
        found,
        reads: &[FULL_VERSION, COMPACT_VERSIONS[0], COMPACT_VERSIONS[1]],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_start_is_written_and_checked() {
        let mat: Material = "bm1bk0wm0wk1".parse().unwrap();
        let h = ident(&COMPACT, mat, Kind::Conversion, COMPACT_VERSION).finish(HEADER_LEN);
        assert_eq!(&h[..8], b"KINGMEDB");
        assert_eq!(&h[8..16], [4, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(&h[16..28], b"bm1bk0wm0wk1");
        let p = Path::new("x.dtc");
        let (v, r) = check_ident(&COMPACT, &h, p, mat, Kind::Conversion).unwrap();
        assert_eq!((v, r.position()), (COMPACT_VERSION, IDENT_LEN));
        let e = |k, m: &str| {
            check_ident(&COMPACT, &h, p, m.parse().unwrap(), k)
                .unwrap_err()
                .to_string()
        };
        assert!(e(Kind::Values, "bm1bk0wm0wk1").contains("kind 2, expected 1"));
        assert!(e(Kind::Conversion, "bm1bk0wm1wk0").contains("slice 'bm1bk0wm0wk1'"));
        let full = check_ident(&FULL, &h, p, mat, Kind::Conversion).unwrap_err();
        assert!(full.to_string().contains("version 4"), "{full}");
    }
}
