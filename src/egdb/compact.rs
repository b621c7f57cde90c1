//! The compact slice files (format versions 3 and 4): the same names as version 1
//! (`NAME.wld`, `NAME.dtc`), compressed in blocks of [`VALUE_BLOCK`] or
//! [`DISTANCE_BLOCK`] positions and read through a memory map, so that engines on one machine
//! share the page cache and start-up reads only headers and indexes.
//!
//! Positions whose value a probe finds by a small search ([`left_out`]),
//! and indices that stand for no position, are "don't care": they take
//! whatever value makes the data most compressible. In the conversion file,
//! draws and positions with a capture pending are don't care (a draw's
//! distance is 0, a capture's 1).
//!
//! Layout, little-endian: a 64-byte header (the shared start of
//! [`super::file`]: magic `KINGMEDB`, version 3 or 4, kind, slice name; then
//! position count (u64), positions per block (u32), block count (u32), data
//! length (u64), FNV-1a 64 checksum of the index, in lanes (u64)); the index:
//! block count + 1 data offsets (u32), then a checksum (u32, the low half of
//! the block's FNV-1a 64 in lanes) per block; then the blocks. A block's
//! checksum is checked the first time it is read: a corrupt block is an
//! error for its probes, never a wrong value.
//!
//! Every block is one zstd frame: a values block holds the value codes of
//! [`VALUE_BLOCK`] positions at 2 bits each, a conversion block the
//! distances of [`DISTANCE_BLOCK`] positions at a byte each; both decode to
//! [`DECODED_BYTES`] bytes, kept in the process-wide [`cache`].
//!
//! Version 4 (written now) keeps in a conversion file only the distances of
//! wins of at least [`SHORT_WIN`] plies: a shorter win is stored as 0 and a
//! loss is don't care, both found by a small search at probe time
//! (`probe/conversion.rs`). Version 3 files, whose conversion files hold
//! every win's and loss's distance, are still read; their values files are
//! the same as version 4's.

use super::cache::{self, DECODED_BYTES};
use super::file::{self, Kind, COMPACT, COMPACT_VERSION, HEADER_LEN};
use super::{Material, Wdl};
use crate::board::{MoveList, Position};
use crate::checked_file::reader::u32_at;
use crate::checked_file::{write_atomically, FileError, PastTheEnd, Reader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// In a version 4 conversion file, the shortest win whose distance is
/// stored; a shorter win is stored as 0.
pub const SHORT_WIN: u8 = 8;

/// The byte a version 4 conversion file stores for a position of value
/// `code` (a value code) at `distance` plies from conversion.
#[must_use]
pub fn stored_distance(code: u8, distance: u8) -> u8 {
    if code != Wdl::Win.code() {
        DONT_CARE
    } else if distance < SHORT_WIN {
        0
    } else {
        distance
    }
}

/// Positions per block of a values file.
pub const VALUE_BLOCK: u64 = 4 * DECODED_BYTES as u64;

/// Positions per block of a conversion file.
pub const DISTANCE_BLOCK: u64 = DECODED_BYTES as u64;

/// Positions per block of a file of `kind`.
#[must_use]
pub const fn block_positions(kind: Kind) -> u64 {
    match kind {
        Kind::Values => VALUE_BLOCK,
        Kind::Conversion => DISTANCE_BLOCK,
    }
}

/// A position a probe never reads from the file (its value comes from a
/// search, or it is no position at all).
pub const DONT_CARE: u8 = 0xff;

/// Why a position is left out of a compact values file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// The side to move must capture: its value is the best capture's, each
    /// capture leading into a smaller slice.
    Capture,
    /// The opponent threatens a capture, and every move of the side to move
    /// leads either to a capture for the opponent or to a position without a
    /// threat (so stored): its value is the best move's, read one ply on.
    Threat,
}

/// Whether `pos` (English, in its slice's orientation) is left out of a
/// compact values file, and why. The file's writer and its probes use this
/// one test, so a probe never reads a position the writer left out.
#[must_use]
pub fn left_out(pos: &Position) -> Option<LeftOut> {
    if pos.must_capture() {
        return Some(LeftOut::Capture);
    }
    if !pos.threatened() {
        return None;
    }
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    let all_resolved = moves.iter().all(|&m| {
        let child = pos.after(m);
        child.must_capture() || !child.threatened()
    });
    all_resolved.then_some(LeftOut::Threat)
}

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

/// One block decoded (at most [`DECODED_BYTES`]), by a decoder kept per thread
/// (making one costs about as much as a small block's decoding); `None` when
/// the frame is not a valid block.
fn decompress(block: &[u8]) -> Option<Arc<[u8]>> {
    thread_local! {
        static DECODER: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    DECODER.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        let mut out = Vec::with_capacity(DECODED_BYTES);
        match d.as_mut() {
            Some(dec) => dec.decompress_to_buffer(block, &mut out).ok()?,
            None => {
                return zstd::bulk::decompress(block, DECODED_BYTES)
                    .ok()
                    .map(Arc::from)
            }
        };
        Some(Arc::from(out))
    })
}

/// zstd level of the conversion blocks.
const DISTANCE_LEVEL: i32 = 12;

/// zstd level of the value blocks: the smallest output within half a
/// percent, at about half the compression time of the top levels.
const VALUE_LEVEL: i32 = 15;

/// `codes` with each [`DONT_CARE`] replaced by the value before it (the
/// first known one at the start), so that runs grow.
fn filled(codes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut last = codes.iter().copied().find(|&c| c != DONT_CARE).unwrap_or(0);
    codes.iter().map(move |&c| {
        if c != DONT_CARE {
            last = c;
        }
        last
    })
}

/// Encodes one block of value codes (0 to 2, or [`DONT_CARE`]; at most
/// [`VALUE_BLOCK`] of them).
pub fn encode_values(codes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut packed = vec![0u8; codes.len().div_ceil(4)];
    for (i, c) in filled(codes).enumerate() {
        packed[i / 4] |= (c & 3) << (2 * (i % 4));
    }
    zstd::bulk::compress(&packed, VALUE_LEVEL)
}

/// The value code of position `i` of a decoded values block.
#[inline]
#[must_use]
pub fn value_at(decoded: &[u8], i: usize) -> Option<u8> {
    decoded.get(i / 4).map(|b| (b >> (2 * (i % 4))) & 3)
}

/// Encodes one block of conversion distances ([`DONT_CARE`] where a probe
/// never reads one).
pub fn encode_distances(dist: &[u8]) -> std::io::Result<Vec<u8>> {
    let filled: Vec<u8> = filled(dist).collect();
    zstd::bulk::compress(&filled, DISTANCE_LEVEL)
}

fn short_checksum(block: &[u8]) -> u32 {
    COMPACT.sum(block) as u32
}

/// Writes `mat`'s compact file of `kind` into `dir` from its encoded
/// `blocks`, whole or not at all.
pub fn write(
    dir: &Path,
    mat: Material,
    kind: Kind,
    blocks: &[Vec<u8>],
) -> Result<PathBuf, FileError> {
    let data_len: u64 = blocks.iter().map(|b| b.len() as u64).sum();
    let dest = file::path(dir, mat, kind);
    let too_big = || {
        FileError::header(
            &dest,
            format!("{data_len} bytes of blocks: over the format's 4 GiB"),
        )
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
    let mut h = file::ident(&COMPACT, mat, kind, COMPACT_VERSION);
    h.u64(mat.positions())
        .u32(block_positions(kind) as u32)
        .u32(blocks.len() as u32)
        .u64(data_len)
        .u64(COMPACT.sum(&index));
    let h = h.finish(HEADER_LEN);
    let parts = [&h[..], &index[..]]
        .into_iter()
        .chain(blocks.iter().map(Vec::as_slice));
    write_atomically(&dest, parts)?;
    Ok(dest)
}

/// The compact header's own fields, after the shared start.
struct Fields {
    positions: u64,
    per_block: u32,
    blocks: u32,
    data_len: u64,
    index_sum: u64,
}

impl Fields {
    fn read(r: &mut Reader<'_>) -> Result<Fields, PastTheEnd> {
        Ok(Fields {
            positions: r.u64()?,
            per_block: r.u32()?,
            blocks: r.u32()?,
            data_len: r.u64()?,
            index_sum: r.u64()?,
        })
    }
}

/// Where a compact file's bytes are.
enum Bytes {
    /// A file mapped into memory.
    Mapped(memmap2::Mmap),
    /// Inside the program (the sets built into kingme).
    Static(&'static [u8]),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Static(s) => s,
        }
    }
}

/// An open compact file: mapped, its header and index checked.
pub struct Compact {
    map: Bytes,
    path: PathBuf,
    kind: Kind,
    /// Positions in the slice.
    positions: u64,
    /// The file's format version (one of [`file::COMPACT_VERSIONS`]).
    version: u32,
    blocks: usize,
    /// Where the checksums start.
    sums_at: usize,
    /// Where the blocks start.
    data_at: usize,
    /// One bit a block: its checksum has been checked.
    checked: Vec<AtomicU64>,
    /// This file's number in the keys of the block cache.
    id: u64,
}

/// The next file number for the block cache's keys.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

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
        let io_err = |e| FileError::io(path, e);
        let f = crate::files::open_regular(path).map_err(io_err)?;
        // SAFETY: the map is read-only. A file changed underneath by another
        // process is caught by the block checksums as far as they reach; the
        // builder and `convert` only ever replace files by renaming.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(io_err)?;
        Compact::new(Bytes::Mapped(map), path, mat, kind)
    }

    /// `mat`'s compact file of `kind` held in the program, its header and
    /// index checked; `name` stands for it in errors.
    pub fn from_static(
        bytes: &'static [u8],
        name: &Path,
        mat: Material,
        kind: Kind,
    ) -> Result<Compact, FileError> {
        Compact::new(Bytes::Static(bytes), name, mat, kind)
    }

    fn new(map: Bytes, path: &Path, mat: Material, kind: Kind) -> Result<Compact, FileError> {
        let bad = |reason: String| FileError::header(path, reason);
        if map.len() < HEADER_LEN {
            return Err(FileError::size(path, HEADER_LEN as u64, map.len() as u64));
        }
        let (version, mut r) = file::check_ident(&COMPACT, &map[..HEADER_LEN], path, mat, kind)?;
        let Fields {
            positions: stored,
            per_block: stored_per_block,
            blocks: stored_blocks,
            data_len,
            index_sum,
        } = Fields::read(&mut r).map_err(|e| e.in_file(path))?;
        let positions = mat.positions();
        let per_block = block_positions(kind);
        let blocks = positions.div_ceil(per_block);
        if stored != positions
            || u64::from(stored_per_block) != per_block
            || u64::from(stored_blocks) != blocks
        {
            return Err(bad(format!(
                "{stored} positions in {stored_blocks} blocks of {stored_per_block}, expected {positions} in {blocks} of {per_block}"
            )));
        }
        let blocks = blocks as usize;
        let index_len = 8 * blocks + 4;
        let expected = ((HEADER_LEN + index_len) as u64).saturating_add(data_len);
        if map.len() as u64 != expected {
            return Err(FileError::size(path, expected, map.len() as u64));
        }
        let index = &map[HEADER_LEN..HEADER_LEN + index_len];
        COMPACT.verify(path, index_sum, index)?;
        let c = Compact {
            path: path.to_path_buf(),
            kind,
            positions,
            version,
            blocks,
            sums_at: HEADER_LEN + 4 * (blocks + 1),
            data_at: HEADER_LEN + index_len,
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
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

    /// The index's `u32` at `at` (inside the index, checked at open).
    fn u32_at(&self, at: usize) -> u32 {
        u32_at(&self.map, at).expect("inside the index, whose length is checked at open")
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
        let decode = || {
            let block = self.block(b)?;
            decompress(block)
                .filter(|d| d.len() == DECODED_BYTES || b + 1 == self.blocks)
                .ok_or_else(corrupt)
        };
        cache::with_block(self.id << 32 | b as u64, decode, |decoded| {
            match self.kind {
                Kind::Values => value_at(decoded, at as usize),
                Kind::Conversion => decoded.get(at as usize).copied(),
            }
        })?
        .ok_or_else(corrupt)
    }

    /// Reads every block (checking its checksum), so that later probes find
    /// the file in memory; returns its size in bytes.
    pub fn warm(&self) -> Result<u64, FileError> {
        for b in 0..self.blocks {
            self.block(b)?;
        }
        Ok(self.map.len() as u64)
    }

    /// Whether this is a conversion file holding only the distances of wins
    /// of at least [`SHORT_WIN`] plies (version 4; see [`stored_distance`]).
    #[must_use]
    pub fn long_wins_only(&self) -> bool {
        self.kind == Kind::Conversion && self.version >= 4
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
    fn values_round_trip_and_dont_cares_join_runs() {
        let mut state = 7u64;
        let mut codes = Vec::new();
        for k in 0..VALUE_BLOCK {
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
            let enc = encode_values(c).unwrap();
            let dec = zstd::bulk::decompress(&enc, DECODED_BYTES).unwrap();
            assert_eq!(dec.len(), len.div_ceil(4));
            for (i, &v) in c.iter().enumerate() {
                let got = value_at(&dec, i).expect("in the block");
                if v != DONT_CARE {
                    assert_eq!(got, v, "position {i} of {len}");
                }
            }
            assert_eq!(value_at(&dec, 4 * dec.len()), None);
        }
        let with = encode_values(&[DONT_CARE, 2, DONT_CARE, 2, 2, 0, DONT_CARE, 1]).unwrap();
        let dec = zstd::bulk::decompress(&with, DECODED_BYTES).unwrap();
        let got: Vec<u8> = (0..8).map(|i| value_at(&dec, i).unwrap()).collect();
        assert_eq!(
            got,
            [2, 2, 2, 2, 2, 0, 0, 1],
            "a don't-care takes the value before it"
        );
    }

    #[test]
    fn a_position_left_out_is_resolved_by_what_is_stored() {
        // every child of a threat position left out is a capture or stored
        let mut state = 11u64;
        let mut threats = 0;
        for _ in 0..3000 {
            let pos = random_position(&mut state);
            let why = left_out(&pos);
            assert_eq!(why == Some(LeftOut::Capture), pos.must_capture());
            if why == Some(LeftOut::Threat) {
                assert!(pos.threatened());
                threats += 1;
                for &m in pos.legal_moves().iter() {
                    let c = pos.after(m);
                    assert!(
                        left_out(&c) != Some(LeftOut::Threat),
                        "{} -> {}",
                        pos.to_fen(),
                        c.to_fen()
                    );
                }
            }
        }
        assert!(threats > 10, "only {threats} threat positions left out");
    }

    /// A random English position of 2 to 6 pieces with men off the crowning rows.
    fn random_position(state: &mut u64) -> Position {
        use crate::board::{Bitboard, Color, Variant};
        let mut next = |m: u64| {
            *state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*state >> 33) % m
        };
        let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
        let n = 2 + next(5);
        for k in 0..n {
            loop {
                let sq = next(32) as u32;
                let bit = 1u32 << sq;
                if (black | white) & bit != 0 {
                    continue;
                }
                let is_black = k % 2 == 0;
                let king = next(2) == 0;
                if !king && !(4..28).contains(&sq) {
                    continue;
                }
                if is_black {
                    black |= bit;
                } else {
                    white |= bit;
                }
                if king {
                    kings |= bit;
                }
                break;
            }
        }
        let turn = if next(2) == 0 {
            Color::Black
        } else {
            Color::White
        };
        Position::from_parts(
            Variant::English,
            Bitboard(black),
            Bitboard(white),
            Bitboard(kings),
            turn,
        )
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
