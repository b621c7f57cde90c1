//! A pack: the compact files of several slices in one file, and the packs
//! built into kingme ([`builtin`]): every slice of up to [`BUILTIN_PIECES`]
//! pieces, so that the engine plays exact endgames with no set-up step, and
//! the slices of [`BUILTIN_PARTIAL_PIECES`] pieces with at most
//! [`BUILTIN_PARTIAL_KINGS`] king (the ones late middlegames reach first).
//!
//! Layout, little-endian: a 32-byte header (magic `KMEGPACK`, version (u32),
//! entry count (u32), FNV-1a 64 checksum of the directory, in lanes (u64),
//! data length (u64)); the directory, one 40-byte entry per file (slice name, NUL-padded
//! to 16 bytes; kind (0 values, 1 conversion) and 7 zero bytes; offset and
//! length in the data (u64 each)); the data: the compact files, each with
//! its own header, index and block checksums.

use super::file::{self, Kind, COMPACT_VERSION};
use super::{FileError, Material};
use crate::checked_file::{write_atomically, Checksum, Format, PastTheEnd, Reader};
use std::path::Path;
use std::sync::OnceLock;

/// The pack format's version.
pub const PACK_VERSION: u32 = 1;

/// The pack format.
const PACK: Format = Format {
    magic: b"KMEGPACK",
    what: "database pack",
    versions: &[PACK_VERSION],
    checksum: Checksum::Fnv1aLanes,
};

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
        Err(e) => Err(FileError::header(Path::new(BUILTIN_NAME), e.to_string())),
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
    let bad = |reason: String| FileError::header(path, reason);
    let short = |e: PastTheEnd| e.in_file(path);
    if bytes.len() < HEADER {
        return Err(FileError::size(path, HEADER as u64, bytes.len() as u64));
    }
    let (_, mut r) = PACK.open(bytes, path)?;
    let count = r.u32().map_err(short)? as usize;
    let dir_sum = r.u64().map_err(short)?;
    let data_len = r.u64().map_err(short)?;
    let dir_end = HEADER + count * ENTRY;
    let expected = (dir_end as u64).saturating_add(data_len);
    if bytes.len() as u64 != expected {
        return Err(FileError::size(path, expected, bytes.len() as u64));
    }
    let dir = &bytes[HEADER..dir_end];
    PACK.verify(path, dir_sum, dir)?;
    let data = &bytes[dir_end..];
    dir.chunks(ENTRY)
        .map(|e| {
            let mut r = Reader::new(e);
            let name = r.take(16).map_err(short)?;
            let name = std::str::from_utf8(name)
                .map(|n| n.trim_end_matches('\0'))
                .map_err(|_| bad("a slice name is not text".into()))?;
            let slice: Material = name
                .parse()
                .map_err(|_| bad(format!("'{name}' is not a slice name")))?;
            let kind = match r.u8().map_err(short)? {
                0 => Kind::Values,
                1 => Kind::Conversion,
                k => return Err(bad(format!("{name}: kind {k}"))),
            };
            r.skip(7).map_err(short)?;
            let (at, len) = (r.u64().map_err(short)?, r.u64().map_err(short)?);
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
/// `out` (written whole or not at all).
pub fn write(dir: &Path, slices: &[Material], out: &Path) -> Result<Written, FileError> {
    let mut entries = Vec::new();
    let mut data = Vec::new();
    for &m in slices {
        for kind in [Kind::Values, Kind::Conversion] {
            let path = file::path(dir, m, kind);
            match file::version_of(&path)? {
                Some(v) if file::is_compact_version(v) => {}
                v => {
                    return Err(FileError::header(
                        &path,
                        format!(
                            "format version {}, a pack holds compact files (version {COMPACT_VERSION}): \
                             kingme egdb convert makes them",
                            v.unwrap_or(0)
                        ),
                    ))
                }
            }
            let bytes = std::fs::read(&path).map_err(|e| FileError::io(&path, e))?;
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
    let mut h = PACK.header(PACK_VERSION);
    h.u32((entries.len() / ENTRY) as u32)
        .u64(PACK.sum(&entries))
        .u64(data.len() as u64);
    let mut all = h.finish(HEADER);
    all.reserve(entries.len() + data.len());
    all.extend_from_slice(&entries);
    all.extend_from_slice(&data);
    write_atomically(out, [&all[..]])?;
    Ok(Written {
        slices: slices.len(),
        bytes: all.len() as u64,
        checksum: PACK.sum(&all),
    })
}

#[cfg(test)]
mod tests {
    use super::super::compact;
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

    /// The blocks of the compact file `bytes`, as its index cuts them.
    fn blocks_of(bytes: &[u8]) -> Vec<Vec<u8>> {
        use crate::checked_file::reader::u32_at;
        let at = |o: usize| u32_at(bytes, o).expect("inside the header and index") as usize;
        let n = at(44);
        let data = super::file::HEADER_LEN + 8 * n + 4;
        (0..n)
            .map(|b| {
                let (from, to) = (at(64 + 4 * b), at(64 + 4 * (b + 1)));
                bytes[data + from..data + to].to_vec()
            })
            .collect()
    }

    #[test]
    fn the_writers_give_back_the_builtin_packs_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("kingme-pack-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (pack, name) in [(BUILTIN, "5.kmeg"), (BUILTIN_PARTIAL, "6k1.kmeg")] {
            let files = parse(pack, Path::new(name)).unwrap();
            for f in &files {
                let written = compact::write(&dir, f.slice, f.kind, &blocks_of(f.bytes)).unwrap();
                assert!(
                    std::fs::read(&written).unwrap() == f.bytes,
                    "{}",
                    written.display()
                );
            }
            let slices: Vec<Material> = files
                .iter()
                .filter(|f| f.kind == Kind::Values)
                .map(|f| f.slice)
                .collect();
            let out = dir.join(name);
            let w = write(&dir, &slices, &out).unwrap();
            assert_eq!(w.bytes, pack.len() as u64);
            assert!(std::fs::read(&out).unwrap() == pack, "{name}");
        }
        let _ = std::fs::remove_dir_all(&dir);
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
