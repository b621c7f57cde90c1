//! The book file: its bytes, written and checked.
//!
//! All integers little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `KMBOOK\r\n` |
//! | 8 | 4 | format version: [`VERSION`], or [`VERSION_SHARD`] for a shard's book |
//! | 12 | 4 | variant: 0 = English |
//! | 16 | 4 | entry (position) count |
//! | 20 | 4 | move count |
//! | 24 | 4 | search depth of the leaves |
//! | 28 | 4 | drop-out weight: centi-men a ply of depth is worth |
//! | 32 | 8 | seed of the build |
//! | 40 | 8 | checksum: 64-bit FNV-1a, in lanes, of everything after the header |
//! | 48 | 16 | version 1: zero; version 2: the shard K (u32), of N (u32), 8 zero bytes |
//!
//! Version 2 is the book of one shard of a build (`kingme book build
//! --shard K/N`: the roots of that part); a whole book is written as
//! version 1, so the files of earlier builds stay as they were.
//!
//! Then the entries, [`ENTRY_BYTES`] each, sorted by (key, black, white,
//! kings, turn): the position's Zobrist key (u64), its black pieces, white
//! pieces and kings (u32 bitboards each), the index of its first move (u32),
//! the side to move (u8: 0 Black, 1 White), its move count (u8), two zero
//! bytes. A position's moves follow each other, in entry order.
//!
//! Then the moves, [`MOVE_BYTES`] each: from and to squares (u8 each, 0-31),
//! the depth of the value (u8: plies searched below the move, book plies
//! included), flags (u8: bit 0, the position the move reaches is in the
//! book), the value (i16: the search's internal score for the player making
//! the move; above 29,000 a win, below -29,000 a loss), two zero bytes, the
//! squares captured (u32 bitboard).
//!
//! A file whose size, checksum, order or fields disagree with this is
//! refused as a whole, never read as wrong moves. Files are written through
//! [`crate::checked_file`], whole or not at all.

use crate::board::{Bitboard, Color, Move, Position, Variant};
use crate::checked_file::reader::{u32_at, u64_at};
use crate::checked_file::{Checksum, FileError, Format, PastTheEnd};
use crate::shard::Shard;
use std::path::Path;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"KMBOOK\r\n";
/// The format version of a whole book.
pub const VERSION: u32 = 1;
/// The format version of a shard's book, which records the shard.
pub const VERSION_SHARD: u32 = 2;
/// Header size in bytes.
pub const HEADER_BYTES: usize = 64;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 28;
/// Bytes of one move.
pub const MOVE_BYTES: usize = 12;
/// Flag of a move whose resulting position is in the book.
pub const FLAG_IN_BOOK: u8 = 1;

/// The book format.
const BOOK: Format = Format {
    magic: MAGIC,
    what: "book",
    versions: &[VERSION, VERSION_SHARD],
    checksum: Checksum::Fnv1aLanes,
};

/// Data of the book `path` that breaks the format's rules.
pub(super) fn not_a_book(path: &Path, reason: &str) -> FileError {
    FileError::content(path, format!("not a kingme book ({reason})"))
}

/// The build parameters a book records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookParams {
    /// Search depth of the leaves.
    pub depth: u32,
    /// Centi-men one ply of depth is worth when choosing what to expand.
    pub dropout: u32,
    /// Seed of the build (breaks ties between equally urgent positions).
    pub seed: u64,
}

/// One stored move, as in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawMove {
    /// Start square (0-31).
    pub from: u8,
    /// Final square (0-31).
    pub to: u8,
    /// Plies below the move that its value comes from.
    pub depth: u8,
    /// [`FLAG_IN_BOOK`] or 0.
    pub flags: u8,
    /// The search's internal score for the player making the move.
    pub value: i16,
    /// Squares captured.
    pub captured: u32,
}

impl RawMove {
    /// The move of `legal` this stands for (up to the capture path).
    #[must_use]
    pub fn find_in(&self, legal: &[Move]) -> Option<Move> {
        legal.iter().copied().find(|m| {
            m.from().index() == self.from
                && m.to().index() == self.to
                && m.captured().0 == self.captured
        })
    }
}

/// One stored position and its moves, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawEntry {
    /// The position.
    pub pos: Position,
    /// Its moves.
    pub moves: Vec<RawMove>,
}

/// The sort key of a position in the file.
#[must_use]
pub fn sort_key(pos: &Position) -> (u64, u32, u32, u32, u8) {
    (
        pos.hash(),
        pos.pieces(Color::Black).0,
        pos.pieces(Color::White).0,
        pos.kings().0,
        turn_byte(pos.turn()),
    )
}

fn turn_byte(c: Color) -> u8 {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// The checksum a header stores of the data after it: 64-bit FNV-1a in lanes.
#[must_use]
pub fn checksum(data: &[u8]) -> u64 {
    BOOK.sum(data)
}

/// The bytes of a whole book of `entries` (any order; sorted here).
#[must_use]
pub fn encode(params: &BookParams, entries: &[RawEntry]) -> Vec<u8> {
    encode_shard(params, Shard::WHOLE, entries)
}

/// The bytes of the book of `shard` of a build, of `entries` (any order;
/// sorted here): version 1 for the whole build, else version 2.
#[must_use]
pub fn encode_shard(params: &BookParams, shard: Shard, entries: &[RawEntry]) -> Vec<u8> {
    let mut order: Vec<&RawEntry> = entries.iter().collect();
    order.sort_by_key(|e| sort_key(&e.pos));
    let n_moves: usize = entries.iter().map(|e| e.moves.len()).sum();
    let mut body = Vec::with_capacity(entries.len() * ENTRY_BYTES + n_moves * MOVE_BYTES);
    let mut first = 0u32;
    for e in &order {
        let (key, black, white, kings, turn) = sort_key(&e.pos);
        body.extend_from_slice(&key.to_le_bytes());
        body.extend_from_slice(&black.to_le_bytes());
        body.extend_from_slice(&white.to_le_bytes());
        body.extend_from_slice(&kings.to_le_bytes());
        body.extend_from_slice(&first.to_le_bytes());
        body.push(turn);
        body.push(e.moves.len() as u8);
        body.extend_from_slice(&[0, 0]);
        first += e.moves.len() as u32;
    }
    for e in &order {
        for m in &e.moves {
            body.extend_from_slice(&[m.from, m.to, m.depth, m.flags]);
            body.extend_from_slice(&m.value.to_le_bytes());
            body.extend_from_slice(&[0, 0]);
            body.extend_from_slice(&m.captured.to_le_bytes());
        }
    }
    let version = if shard.is_whole() {
        VERSION
    } else {
        VERSION_SHARD
    };
    let mut h = BOOK.header(version);
    h.u32(0)
        .u32(entries.len() as u32)
        .u32(n_moves as u32)
        .u32(params.depth)
        .u32(params.dropout)
        .u64(params.seed)
        .u64(checksum(&body));
    if !shard.is_whole() {
        h.u32(shard.index()).u32(shard.count());
    }
    let mut out = h.finish(HEADER_BYTES);
    out.extend_from_slice(&body);
    out
}

/// The `u32` at `at` of a whole entry, move or header.
fn word(b: &[u8], at: usize) -> u32 {
    u32_at(b, at).expect("inside a whole entry, move or header")
}

/// The `u64` at `at` of a whole entry or header.
fn long(b: &[u8], at: usize) -> u64 {
    u64_at(b, at).expect("inside a whole entry or header")
}

/// A checked view of a book's bytes.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// Build parameters.
    pub params: BookParams,
    /// The part of a build the book holds ([`Shard::WHOLE`]: all of it).
    pub shard: Shard,
    entries: &'a [u8],
    moves: &'a [u8],
    len: usize,
}

impl<'a> View<'a> {
    /// Checks `bytes` as a whole (header, size, checksum, order, fields);
    /// `path` names the file in errors.
    pub fn new(bytes: &'a [u8], path: &str) -> Result<View<'a>, FileError> {
        let path = Path::new(path);
        let short = |e: PastTheEnd| e.in_file(path);
        let (version, mut r) = BOOK.open(bytes, path)?;
        let variant = r.u32().map_err(short)?;
        let len = r.u32().map_err(short)? as usize;
        let n_moves = r.u32().map_err(short)? as usize;
        r.skip(16).map_err(short)?; // depth, drop-out weight, seed
        let expected = r.u64().map_err(short)?;
        let shard = if version == VERSION_SHARD {
            let (k, n) = (r.u32().map_err(short)?, r.u32().map_err(short)?);
            match Shard::new(k, n) {
                Ok(s) if !s.is_whole() => s,
                _ => return Err(FileError::header(path, format!("shard {k}/{n}"))),
            }
        } else {
            Shard::WHOLE
        };
        let reserved = r.take(HEADER_BYTES - r.position()).map_err(short)?;
        if variant != 0 {
            return Err(FileError::header(
                path,
                format!("variant {variant}, expected English (0)"),
            ));
        }
        let want = HEADER_BYTES + len * ENTRY_BYTES + n_moves * MOVE_BYTES;
        if bytes.len() != want {
            return Err(FileError::size(path, want as u64, bytes.len() as u64));
        }
        if reserved.iter().any(|&b| b != 0) {
            return Err(FileError::header(
                path,
                "reserved header bytes are not zero",
            ));
        }
        BOOK.verify(path, expected, &bytes[HEADER_BYTES..])?;
        let view = View::trusted(bytes);
        debug_assert_eq!(view.shard, shard);
        view.check_fields(n_moves)
            .map_err(|reason| not_a_book(path, &reason))?;
        Ok(view)
    }

    /// A view of bytes that [`View::new`] accepted before (the header is
    /// read again, nothing else is checked).
    pub(super) fn trusted(bytes: &'a [u8]) -> View<'a> {
        let len = word(bytes, 16) as usize;
        let split = HEADER_BYTES + len * ENTRY_BYTES;
        let shard = match word(bytes, 8) {
            VERSION_SHARD => Shard::new(word(bytes, 48), word(bytes, 52)).unwrap_or(Shard::WHOLE),
            _ => Shard::WHOLE,
        };
        View {
            params: BookParams {
                depth: word(bytes, 24),
                dropout: word(bytes, 28),
                seed: long(bytes, 32),
            },
            shard,
            entries: &bytes[HEADER_BYTES..split],
            moves: &bytes[split..],
            len,
        }
    }

    /// Entries in order, moves contiguous, positions well-formed, keys right.
    fn check_fields(&self, n_moves: usize) -> Result<(), String> {
        let mut next_move = 0usize;
        let mut prev = None;
        for i in 0..self.len {
            let e = &self.entries[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES];
            let first = word(e, 20) as usize;
            let count = e[25] as usize;
            if first != next_move || e[26] != 0 || e[27] != 0 {
                return Err(format!("entry {i}: its moves are not where they belong"));
            }
            next_move += count;
            let pos = self
                .position(i)
                .ok_or_else(|| format!("entry {i}: not a position"))?;
            let key = sort_key(&pos);
            if key.0 != long(e, 0) {
                return Err(format!("entry {i}: key does not match its position"));
            }
            if prev.is_some_and(|p| p >= key) {
                return Err(format!("entry {i}: out of order"));
            }
            prev = Some(key);
        }
        if next_move != n_moves {
            return Err(format!(
                "the entries hold {next_move} moves, the header says {n_moves}"
            ));
        }
        for j in 0..n_moves {
            let m = self.raw_move(j);
            if m.from > 31 || m.to > 31 || m.flags & !FLAG_IN_BOOK != 0 {
                return Err(format!("move {j}: bad squares or flags"));
            }
            let z = &self.moves[j * MOVE_BYTES + 6..j * MOVE_BYTES + 8];
            if z != [0, 0] {
                return Err(format!("move {j}: reserved bytes are not zero"));
            }
        }
        Ok(())
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the book holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn entry(&self, i: usize) -> &'a [u8] {
        &self.entries[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES]
    }

    /// The position of entry `i`, if its fields make one.
    #[must_use]
    pub fn position(&self, i: usize) -> Option<Position> {
        let e = self.entry(i);
        let (black, white, kings) = (word(e, 8), word(e, 12), word(e, 16));
        let turn = match e[24] {
            0 => Color::Black,
            1 => Color::White,
            _ => return None,
        };
        let pos = Position::from_parts(
            Variant::English,
            Bitboard(black),
            Bitboard(white),
            Bitboard(kings),
            turn,
        );
        pos.validate().ok().map(|()| pos)
    }

    fn raw_move(&self, j: usize) -> RawMove {
        let m = &self.moves[j * MOVE_BYTES..(j + 1) * MOVE_BYTES];
        RawMove {
            from: m[0],
            to: m[1],
            depth: m[2],
            flags: m[3],
            value: i16::from_le_bytes([m[4], m[5]]),
            captured: word(m, 8),
        }
    }

    /// The moves of entry `i`.
    #[must_use]
    pub fn moves(&self, i: usize) -> Vec<RawMove> {
        let e = self.entry(i);
        let first = word(e, 20) as usize;
        (first..first + e[25] as usize)
            .map(|j| self.raw_move(j))
            .collect()
    }

    /// The entry of `pos`, by binary search.
    #[must_use]
    pub fn find(&self, pos: &Position) -> Option<usize> {
        if pos.variant() != Variant::English {
            return None;
        }
        let want = sort_key(pos);
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let e = self.entry(mid);
            let key = (long(e, 0), word(e, 8), word(e, 12), word(e, 16), e[24]);
            match key.cmp(&want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Every entry, decoded.
    #[must_use]
    pub fn entries(&self) -> Vec<RawEntry> {
        (0..self.len)
            .filter_map(|i| {
                Some(RawEntry {
                    pos: self.position(i)?,
                    moves: self.moves(i),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_book_is_written_back_byte_for_byte() {
        let shipped: &[u8] = include_bytes!("english.kmb");
        let view = View::new(shipped, "english.kmb").unwrap();
        assert!(view.len() > 1000);
        assert!(encode(&view.params, &view.entries()) == shipped);
    }
}
