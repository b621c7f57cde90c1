//! The compact slice files (format version 2): the same names as version 1
//! (`NAME.wld`, `NAME.dtc`), compressed in blocks of [`VALUE_BLOCK`] or
//! [`DISTANCE_BLOCK`] positions and read through a memory map, so that engines on one machine
//! share the page cache and start-up reads only headers and indexes.
//!
//! Positions whose value a probe finds by a capture search (a capture
//! pending for the side to move), and indices that stand for no position,
//! are "don't care": they take whatever value makes the runs longest. In the
//! conversion file, draws are don't care as well (their distance is 0).
//!
//! Layout, little-endian: a 64-byte header (magic `KINGMEDB`, version 2,
//! kind, slice name, position count, positions per block (u32), block count
//! (u32), data length (u64), FNV-1a 64 checksum of the index); the index:
//! block count + 1 data offsets (u32), then a checksum (u32) per block; then
//! the blocks. A block's checksum is checked the first time it is read: a
//! corrupt block is an error for its probes, never a wrong value.
//!
//! Value blocks use a byte code in the manner of Chinook's databases: a byte
//! below 81 holds four positions in base 3; a byte from 81 holds a run of one
//! value, its length from [`RUN_LENGTHS`]. A probe decodes bytes up to its
//! position. Conversion blocks are zstd frames, decoded whole on a probe (the
//! engine reads distances only at the root) and kept in a few slots per file.

use super::file::{self, FileError, Kind, HEADER_LEN};
use super::Material;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The compact format's version.
pub const COMPACT_VERSION: u32 = 2;

/// Positions per block of a values file: a probe decodes up to a quarter of
/// this many bytes.
pub const VALUE_BLOCK: u64 = 4096;

/// Positions per block of a conversion file, decoded whole on a probe (a
/// multiple of [`VALUE_BLOCK`]).
pub const DISTANCE_BLOCK: u64 = 4 * VALUE_BLOCK;

/// Positions per block of a file of `kind`.
#[must_use]
pub const fn block_positions(kind: Kind) -> u64 {
    match kind {
        Kind::Values => VALUE_BLOCK,
        Kind::Conversion => DISTANCE_BLOCK,
    }
}

/// A position a probe never reads from the file (its value comes from a
/// capture search, or it is no position at all).
pub const DONT_CARE: u8 = 0xff;

/// Where index `i` (of a slice of `n` positions) is stored: every position
/// with Black to move, then every one with White to move. In the slice index
/// the side to move is the lowest bit, and neighbours with opposite sides to
/// move have opposite values; the compact order keeps them apart so that
/// runs form.
#[inline]
#[must_use]
pub const fn stored_at(i: u64, n: u64) -> u64 {
    (i >> 1) + (i & 1) * (n / 2)
}

/// The slice index stored at `j` (the inverse of [`stored_at`]).
#[inline]
#[must_use]
pub const fn index_at(j: u64, n: u64) -> u64 {
    let half = n / 2;
    if j < half {
        j << 1
    } else {
        ((j - half) << 1) | 1
    }
}

/// zstd level of the conversion blocks.
const ZSTD_LEVEL: i32 = 12;

/// Codes below this are four positions in base 3.
const LITERALS: u8 = 81;

/// Run lengths of the run codes (code `81 + 3 * k + value` is a run of
/// `RUN_LENGTHS[k]` positions of `value`), growing by about 15% a step so
/// that a whole block of one value takes a few bytes.
pub const RUN_LENGTHS: [u32; 58] = run_lengths();

const fn run_lengths() -> [u32; 58] {
    let mut t = [0u32; 58];
    let mut len = 4u64;
    let mut k = 0;
    while k < 58 {
        t[k] = len as u32;
        let next = len * 115 / 100;
        len = if next > len { next } else { len + 1 };
        k += 1;
    }
    t
}

/// Encodes one block of value codes (0 to 2, or [`DONT_CARE`]).
#[must_use]
pub fn encode_values(codes: &[u8]) -> Vec<u8> {
    let first = codes.iter().copied().find(|&c| c != DONT_CARE).unwrap_or(0);
    let mut filled = Vec::with_capacity(codes.len() + 3);
    let mut last = first;
    for &c in codes {
        if c != DONT_CARE {
            last = c;
        }
        filled.push(last);
    }
    let n = filled.len();
    filled.extend_from_slice(&[last; 3]);
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let v = filled[i];
        let run = filled[i..n].iter().take_while(|&&c| c == v).count();
        if run >= RUN_LENGTHS[0] as usize {
            let k = RUN_LENGTHS.partition_point(|&l| l as usize <= run) - 1;
            out.push(LITERALS + 3 * k as u8 + v);
            i += RUN_LENGTHS[k] as usize;
        } else {
            let q = &filled[i..i + 4];
            out.push(q[0] + 3 * q[1] + 9 * q[2] + 27 * q[3]);
            i += 4;
        }
    }
    out
}

/// The value code of position `i` of a block encoded by [`encode_values`];
/// `None` when the block ends first.
#[must_use]
pub fn decode_value(block: &[u8], i: u32) -> Option<u8> {
    let mut at = 0u32;
    for &b in block {
        if b < LITERALS {
            if i < at + 4 {
                let mut q = b;
                for _ in 0..(i - at) {
                    q /= 3;
                }
                return Some(q % 3);
            }
            at += 4;
        } else {
            let k = b - LITERALS;
            let len = *RUN_LENGTHS.get(usize::from(k / 3))?;
            if i < at + len {
                return Some(k % 3);
            }
            at += len;
        }
    }
    None
}

/// Encodes one block of conversion distances ([`DONT_CARE`] where a probe
/// never reads one).
pub fn encode_distances(dist: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut last = dist.iter().copied().find(|&d| d != DONT_CARE).unwrap_or(0);
    let filled: Vec<u8> = dist
        .iter()
        .map(|&d| {
            if d != DONT_CARE {
                last = d;
            }
            last
        })
        .collect();
    zstd::bulk::compress(&filled, ZSTD_LEVEL)
}

fn short_checksum(block: &[u8]) -> u32 {
    file::checksum(block) as u32
}

/// Writes `mat`'s compact file of `kind` into `dir` from its encoded
/// `blocks`: to a temporary name, synced, then renamed into place.
pub fn write(
    dir: &Path,
    mat: Material,
    kind: Kind,
    blocks: &[Vec<u8>],
) -> Result<PathBuf, FileError> {
    let data_len: u64 = blocks.iter().map(|b| b.len() as u64).sum();
    let too_big = || FileError::Header {
        path: file::path(dir, mat, kind),
        reason: format!("{data_len} bytes of blocks: over the format's 4 GiB"),
    };
    let mut index = Vec::with_capacity(8 * blocks.len() + 4);
    let mut offset = 0u64;
    for b in blocks {
        index.extend_from_slice(&u32::try_from(offset).map_err(|_| too_big())?.to_le_bytes());
        offset += b.len() as u64;
    }
    index.extend_from_slice(&u32::try_from(offset).map_err(|_| too_big())?.to_le_bytes());
    for b in blocks {
        index.extend_from_slice(&short_checksum(b).to_le_bytes());
    }
    let mut h = file::ident(mat, kind, COMPACT_VERSION);
    h[32..40].copy_from_slice(&mat.positions().to_le_bytes());
    h[40..44].copy_from_slice(&(block_positions(kind) as u32).to_le_bytes());
    h[44..48].copy_from_slice(&(blocks.len() as u32).to_le_bytes());
    h[48..56].copy_from_slice(&data_len.to_le_bytes());
    h[56..64].copy_from_slice(&file::checksum(&index).to_le_bytes());
    let parts = [&h[..], &index[..]]
        .into_iter()
        .chain(blocks.iter().map(Vec::as_slice));
    file::write_parts(dir, mat, kind, parts)
}

/// An open compact file: mapped, its header and index checked.
pub struct Compact {
    map: memmap2::Mmap,
    path: PathBuf,
    kind: Kind,
    /// Positions in the slice.
    positions: u64,
    blocks: usize,
    /// Where the checksums start.
    sums_at: usize,
    /// Where the blocks start.
    data_at: usize,
    /// One bit a block: its checksum has been checked.
    checked: Vec<AtomicU64>,
    /// Decoded conversion blocks, by block number modulo the slots.
    decoded: Vec<DecodedSlot>,
}

/// One decoded conversion block, by its number.
type DecodedSlot = Mutex<Option<(usize, Arc<[u8]>)>>;

/// Decoded blocks kept per conversion file: [`DISTANCE_BLOCK`] bytes each.
pub const DECODED_SLOTS: usize = 8;

impl std::fmt::Debug for Compact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compact")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("blocks", &self.blocks)
            .finish_non_exhaustive()
    }
}

impl Compact {
    /// Maps and checks `mat`'s compact file of `kind` at `path`: header,
    /// size, index checksum. Blocks are checked as they are first read.
    pub fn open(path: &Path, mat: Material, kind: Kind) -> Result<Compact, FileError> {
        let io_err = |source| FileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let f = crate::files::open_regular(path).map_err(io_err)?;
        // SAFETY: the map is read-only. A file changed underneath by another
        // process is caught by the block checksums as far as they reach; the
        // builder and `convert` only ever replace files by renaming.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(io_err)?;
        let bad = |reason: String| FileError::Header {
            path: path.to_path_buf(),
            reason,
        };
        if map.len() < HEADER_LEN {
            return Err(FileError::Size {
                path: path.to_path_buf(),
                expected: HEADER_LEN as u64,
                found: map.len() as u64,
            });
        }
        let h = &map[..HEADER_LEN];
        let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().expect("8 bytes"));
        file::check_ident(h, mat, kind, COMPACT_VERSION).map_err(bad)?;
        let positions = mat.positions();
        let per_block = block_positions(kind);
        let blocks = positions.div_ceil(per_block);
        if u64_at(32) != positions
            || u64::from(u32_at(40)) != per_block
            || u64::from(u32_at(44)) != blocks
        {
            return Err(bad(format!(
                "{} positions in {} blocks of {}, expected {positions} in {blocks} of {per_block}",
                u64_at(32),
                u32_at(44),
                u32_at(40)
            )));
        }
        let blocks = blocks as usize;
        let index_len = 8 * blocks + 4;
        let data_len = u64_at(48);
        let expected = (HEADER_LEN + index_len) as u64 + data_len;
        if map.len() as u64 != expected {
            return Err(FileError::Size {
                path: path.to_path_buf(),
                expected,
                found: map.len() as u64,
            });
        }
        let index = &map[HEADER_LEN..HEADER_LEN + index_len];
        let sum = file::checksum(index);
        if sum != u64_at(56) {
            return Err(FileError::Checksum {
                path: path.to_path_buf(),
                expected: u64_at(56),
                found: sum,
            });
        }
        let c = Compact {
            path: path.to_path_buf(),
            kind,
            positions,
            blocks,
            sums_at: HEADER_LEN + 4 * (blocks + 1),
            data_at: HEADER_LEN + index_len,
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            decoded: match kind {
                Kind::Values => Vec::new(),
                Kind::Conversion => (0..DECODED_SLOTS).map(|_| Mutex::new(None)).collect(),
            },
            map,
        };
        let mut prev = 0;
        for b in 0..=blocks {
            let o = c.offset(b);
            if o < prev || o > data_len {
                return Err(bad(format!("block {b} starts at {o}, out of order")));
            }
            prev = o;
        }
        if prev != data_len {
            return Err(bad(format!(
                "blocks end at {prev}, data is {data_len} bytes"
            )));
        }
        Ok(c)
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
    }

    fn offset(&self, b: usize) -> u64 {
        u64::from(self.u32_at(HEADER_LEN + 4 * b))
    }

    /// The bytes of block `b`, checked against its checksum on first use.
    fn block(&self, b: usize) -> Result<&[u8], FileError> {
        let (start, end) = (self.offset(b) as usize, self.offset(b + 1) as usize);
        let bytes = &self.map[self.data_at + start..self.data_at + end];
        let (word, bit) = (&self.checked[b / 64], 1u64 << (b % 64));
        if word.load(Ordering::Relaxed) & bit == 0 {
            let expected = self.u32_at(self.sums_at + 4 * b);
            if short_checksum(bytes) != expected {
                return Err(FileError::Block {
                    path: self.path.clone(),
                    block: b as u64,
                });
            }
            word.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// The stored code of the position of slice index `i` (a value code, or
    /// for a conversion file the distance); meaningless for a don't-care
    /// position.
    pub fn get(&self, i: u64) -> Result<u8, FileError> {
        let j = stored_at(i, self.positions);
        let per_block = block_positions(self.kind);
        let b = (j / per_block) as usize;
        let at = (j % per_block) as u32;
        let corrupt = || FileError::Block {
            path: self.path.clone(),
            block: b as u64,
        };
        if b >= self.blocks {
            return Err(corrupt());
        }
        let block = self.block(b)?;
        match self.kind {
            Kind::Values => decode_value(block, at).ok_or_else(corrupt),
            Kind::Conversion => {
                let slot = &self.decoded[b % DECODED_SLOTS];
                let lock = || {
                    slot.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                };
                let cached = match &*lock() {
                    Some((cb, d)) if *cb == b => Some(Arc::clone(d)),
                    _ => None,
                };
                let d = match cached {
                    Some(d) => d,
                    None => {
                        let d: Arc<[u8]> = zstd::bulk::decompress(block, DISTANCE_BLOCK as usize)
                            .map_err(|_| corrupt())?
                            .into();
                        *lock() = Some((b, Arc::clone(&d)));
                        d
                    }
                };
                d.get(at as usize).copied().ok_or_else(corrupt)
            }
        }
    }

    /// Reads every block (checking its checksum), so that later probes find
    /// the file in memory; returns its size in bytes.
    pub fn warm(&self) -> Result<u64, FileError> {
        for b in 0..self.blocks {
            self.block(b)?;
        }
        Ok(self.map.len() as u64)
    }

    /// The file's size in bytes.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Whether the file is empty (never: it has a header).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_order_is_a_permutation() {
        for n in [2u64, 6, 1000] {
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = stored_at(i, n);
                assert!(!seen[j as usize]);
                seen[j as usize] = true;
                assert_eq!(index_at(j, n), i);
            }
        }
    }

    #[test]
    fn run_lengths_grow_and_cover_a_block() {
        assert!(RUN_LENGTHS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(RUN_LENGTHS[0], 4);
        assert!(u64::from(RUN_LENGTHS[57]) >= VALUE_BLOCK);
        assert!(usize::from(LITERALS) + 3 * RUN_LENGTHS.len() <= 256);
    }

    #[test]
    fn values_round_trip_and_dont_cares_join_runs() {
        let mut state = 7u64;
        let mut codes = Vec::new();
        for k in 0..20_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (state >> 33) % 100;
            codes.push(match (k / 3000) % 3 {
                // long runs, noise, and runs broken by don't-cares
                0 => 1,
                1 => (r % 3) as u8,
                _ if r < 30 => DONT_CARE,
                _ => 2,
            });
        }
        for len in [1, 3, 4, 5, 4099, 16384, codes.len()] {
            let c = &codes[..len];
            let enc = encode_values(c);
            for (i, &v) in c.iter().enumerate() {
                let got = decode_value(&enc, i as u32).expect("in the block");
                if v != DONT_CARE {
                    assert_eq!(got, v, "position {i} of {len}");
                }
            }
            assert_eq!(
                decode_value(&enc, len.next_multiple_of(4) as u32 + 20_000),
                None
            );
        }
        let runs = encode_values(&[DONT_CARE, 2, DONT_CARE, 2, 2, 2, DONT_CARE, 2]);
        assert_eq!(runs.len(), 1, "don't-cares extend the run: {runs:?}");
    }

    #[test]
    fn distances_round_trip() {
        let d: Vec<u8> = (0..16384u32)
            .map(|i| {
                if i % 7 == 0 {
                    DONT_CARE
                } else {
                    (i % 50) as u8
                }
            })
            .collect();
        let enc = encode_distances(&d).unwrap();
        let dec = zstd::bulk::decompress(&enc, d.len()).unwrap();
        for (i, &x) in d.iter().enumerate() {
            if x != DONT_CARE {
                assert_eq!(dec[i], x);
            }
        }
    }
}
