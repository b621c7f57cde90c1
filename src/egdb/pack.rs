//! A pack: the compact files of several slices in one file, and the packs
//! built into kingme ([`builtin`]): every slice of up to [`BUILTIN_PIECES`]
//! pieces, so that the engine plays exact endgames with no set-up step, and
//! the slices of [`BUILTIN_PARTIAL_PIECES`] pieces with at most
//! [`BUILTIN_PARTIAL_KINGS`] king (the ones late middlegames reach first).
//!
//! Layout, little-endian: a 32-byte header (magic `KMEGPACK`, version (u32),
//! entry count (u32), FNV-1a 64 checksum of the directory, data length
//! (u64)); the directory, one 40-byte entry per file (slice name, NUL-padded
//! to 16 bytes; kind (0 values, 1 conversion) and 7 zero bytes; offset and
//! length in the data (u64 each)); the data: the compact files, each with
//! its own header, index and block checksums.

use super::compact::{self, COMPACT_VERSION};
use super::file::{self, FileError, Kind};
use super::Material;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const MAGIC: &[u8; 8] = b"KMEGPACK";

/// The pack format's version.
pub const PACK_VERSION: u32 = 1;

const HEADER: usize = 32;
const ENTRY: usize = 40;

/// Pieces of the slices built into kingme.
pub const BUILTIN_PIECES: u32 = 5;

/// Pieces of the slices built into kingme beyond the complete ones: those
/// with at most [`BUILTIN_PARTIAL_KINGS`] king.
pub const BUILTIN_PARTIAL_PIECES: u32 = 6;

/// Kings in the partial slices built into kingme.
pub const BUILTIN_PARTIAL_KINGS: u32 = 1;

/// The packs built into kingme: made by `kingme egdb build --pieces 6`, then
/// `kingme egdb pack --pieces 5` and `kingme egdb pack --pieces 6
/// --from-pieces 6 --max-kings 1` (see README).
static BUILTIN: &[u8] = include_bytes!("english5.kmeg");
static BUILTIN_PARTIAL: &[u8] = include_bytes!("english6k1.kmeg");

/// The name that stands for the built-in pack in errors.
pub const BUILTIN_NAME: &str = "<built into kingme>/english5.kmeg";
/// The name that stands for the built-in partial pack in errors.
pub const BUILTIN_PARTIAL_NAME: &str = "<built into kingme>/english6k1.kmeg";

/// One file of a pack.
#[derive(Clone, Copy, Debug)]
pub struct Packed {
    /// Its slice.
    pub slice: Material,
    /// Its kind.
    pub kind: Kind,
    /// Its bytes.
    pub bytes: &'static [u8],
}

/// The files of the packs built into kingme, their directories checked (each
/// file is checked as it is opened, as a file on disk is).
pub fn builtin() -> Result<&'static [Packed], FileError> {
    static PARSED: OnceLock<Result<Vec<Packed>, FileError>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        let mut all = parse(BUILTIN, Path::new(BUILTIN_NAME))?;
        all.extend(parse(BUILTIN_PARTIAL, Path::new(BUILTIN_PARTIAL_NAME))?);
        Ok(all)
    });
    match parsed {
        Ok(v) => Ok(v),
        Err(e) => Err(FileError::Header {
            path: PathBuf::from(BUILTIN_NAME),
            reason: e.to_string(),
        }),
    }
}

/// The slices of at least `from` and at most `pieces` pieces with at most
/// `max_kings` kings in all, in build order.
#[must_use]
pub fn selection(from: u32, pieces: u32, max_kings: u32) -> Vec<Material> {
    super::plan(pieces)
        .into_iter()
        .filter(|m| m.pieces() >= from && u32::from(m.bk + m.wk) <= max_kings)
        .collect()
}

/// The files of the pack `bytes` (called `path` in errors).
pub fn parse(bytes: &'static [u8], path: &Path) -> Result<Vec<Packed>, FileError> {
    let bad = |reason: String| FileError::Header {
        path: path.to_path_buf(),
        reason,
    };
    if bytes.len() < HEADER {
        return Err(FileError::Size {
            path: path.to_path_buf(),
            expected: HEADER as u64,
            found: bytes.len() as u64,
        });
    }
    let u32_at = |o: usize| file::le_u32(bytes, o);
    let u64_at = |o: usize| file::le_u64(bytes, o);
    if &bytes[..8] != MAGIC {
        return Err(bad("not a kingme database pack (bad magic)".into()));
    }
    if u32_at(8) != PACK_VERSION {
        return Err(bad(format!(
            "pack version {}, this kingme reads {PACK_VERSION}",
            u32_at(8)
        )));
    }
    let count = u32_at(12) as usize;
    let dir_end = HEADER + count * ENTRY;
    let expected = dir_end as u64 + u64_at(24);
    if bytes.len() as u64 != expected {
        return Err(FileError::Size {
            path: path.to_path_buf(),
            expected,
            found: bytes.len() as u64,
        });
    }
    let dir = &bytes[HEADER..dir_end];
    let sum = file::checksum(dir);
    if sum != u64_at(16) {
        return Err(FileError::Checksum {
            path: path.to_path_buf(),
            expected: u64_at(16),
            found: sum,
        });
    }
    let data = &bytes[dir_end..];
    dir.chunks(ENTRY)
        .map(|e| {
            let name = std::str::from_utf8(&e[..16])
                .map(|n| n.trim_end_matches('\0'))
                .map_err(|_| bad("a slice name is not text".into()))?;
            let slice: Material = name
                .parse()
                .map_err(|_| bad(format!("'{name}' is not a slice name")))?;
            let kind = match e[16] {
                0 => Kind::Values,
                1 => Kind::Conversion,
                k => return Err(bad(format!("{name}: kind {k}"))),
            };
            let (at, len) = (file::le_u64(e, 24), file::le_u64(e, 32));
            let end = at.checked_add(len).filter(|&end| end <= data.len() as u64);
            let Some(end) = end else {
                return Err(bad(format!("{name}: bytes {at}+{len} out of the pack")));
            };
            Ok(Packed {
                slice,
                kind,
                bytes: &data[at as usize..end as usize],
            })
        })
        .collect()
}

/// What [`fn@write`] packed.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    /// Slices packed.
    pub slices: usize,
    /// Bytes of the pack.
    pub bytes: u64,
    /// FNV-1a 64 checksum of the whole pack.
    pub checksum: u64,
}

/// Packs the compact files of `slices` (e.g. a [`selection`]) in `dir` into
/// `out` (written under a temporary name, synced, renamed).
pub fn write(dir: &Path, slices: &[Material], out: &Path) -> Result<Written, FileError> {
    let mut entries = Vec::new();
    let mut data = Vec::new();
    for &m in slices {
        for kind in [Kind::Values, Kind::Conversion] {
            let path = file::path(dir, m, kind);
            match file::version_of(&path)? {
                Some(v) if compact::is_compact_version(v) => {}
                v => {
                    return Err(FileError::Header {
                        path,
                        reason: format!(
                            "format version {}, a pack holds compact files (version {COMPACT_VERSION}): \
                             kingme egdb convert makes them",
                            v.unwrap_or(0)
                        ),
                    })
                }
            }
            let bytes = std::fs::read(&path).map_err(|source| FileError::Io {
                path: path.clone(),
                source,
            })?;
            let mut e = [0u8; ENTRY];
            let name = m.to_string();
            e[..name.len()].copy_from_slice(name.as_bytes());
            e[16] = u8::from(kind == Kind::Conversion);
            e[24..32].copy_from_slice(&(data.len() as u64).to_le_bytes());
            e[32..40].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
            entries.extend_from_slice(&e);
            data.extend_from_slice(&bytes);
        }
    }
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&PACK_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&((entries.len() / ENTRY) as u32).to_le_bytes());
    h[16..24].copy_from_slice(&file::checksum(&entries).to_le_bytes());
    h[24..32].copy_from_slice(&(data.len() as u64).to_le_bytes());
    let mut all = Vec::with_capacity(HEADER + entries.len() + data.len());
    all.extend_from_slice(&h);
    all.extend_from_slice(&entries);
    all.extend_from_slice(&data);
    let io = |source| FileError::Io {
        path: out.to_path_buf(),
        source,
    };
    let tmp = out.with_extension("kmeg.tmp");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(&all).map_err(io)?;
        f.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, out).map_err(io)?;
    Ok(Written {
        slices: slices.len(),
        bytes: all.len() as u64,
        checksum: file::checksum(&all),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_packs_hold_every_slice_of_five_pieces_and_the_partial_six_once() {
        let files = builtin().expect("the built-in packs open");
        let partial = selection(
            BUILTIN_PARTIAL_PIECES,
            BUILTIN_PARTIAL_PIECES,
            BUILTIN_PARTIAL_KINGS,
        );
        assert!(!partial.is_empty());
        assert!(partial.iter().all(|m| m.bk + m.wk <= 1 && m.pieces() == 6));
        let mut want: Vec<(Material, bool)> = super::super::plan(BUILTIN_PIECES)
            .into_iter()
            .chain(partial)
            .flat_map(|m| [(m, false), (m, true)])
            .collect();
        let mut got: Vec<(Material, bool)> = files
            .iter()
            .map(|p| (p.slice, p.kind == Kind::Conversion))
            .collect();
        want.sort_by_key(|&(m, k)| (m.to_string(), k));
        got.sort_by_key(|&(m, k)| (m.to_string(), k));
        assert_eq!(got, want);
    }

    #[test]
    fn a_damaged_pack_is_refused_naming_it() {
        let bytes = BUILTIN[..HEADER + 3 * ENTRY].to_vec();
        let name = Path::new("x.kmeg");
        let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
        let e = parse(leak(bytes), name).unwrap_err().to_string();
        assert!(e.contains("x.kmeg"), "{e}");
        let mut whole = BUILTIN.to_vec();
        whole[HEADER + 2] ^= 1;
        let e = parse(leak(whole), name).unwrap_err().to_string();
        assert!(e.contains("x.kmeg") && e.contains("corrupted"), "{e}");
        let mut v = BUILTIN.to_vec();
        v[8] = 9;
        let e = parse(leak(v), name).unwrap_err().to_string();
        assert!(e.contains("version 9"), "{e}");
    }
}
