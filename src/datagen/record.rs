//! The training data format written by `kingme datagen` (and `kingme rescore`,
//! `kingme endings`, `kingme merge-data`) and read by `kingme train`.
//!
//! A data file (`.kmd`) is a header, then 16-byte records, all integers
//! little-endian. Records are appended as a run goes (a file is never
//! rewritten), so the file has no checksum; every record is checked when
//! read. Version 2 (magic `KMDATA02`) has a 64-byte header:
//!
//! | offset | bytes | header, version 2 |
//! |---|---|---|
//! | 0 | 8 | magic `KMDATA02` |
//! | 8 | 8 | seed of the run that wrote it (informative; rescore: 0) |
//! | 16 | 4 | what wrote the records ([`Source`]): 1 datagen's games, 2 rescore, 3 endings, 0 unknown (a join of several) |
//! | 20 | 4 | shard K: the part of the job the file holds (1 to N) |
//! | 24 | 4 | shards N: 1 when the file is the whole job |
//! | 28 | 4 | zero |
//! | 32 | 8 | the whole job's size: datagen the games of the run (`--games`; 0, no limit), rescore the records of its input |
//! | 40 | 8 | datagen: the number of the next game the run plays (the file holds the games below it; updated as the run goes) |
//! | 48 | 8 | rescore: FNV-1a 64, in lanes, of the input's records (the whole job's) |
//! | 56 | 8 | zero |
//!
//! Version 1 (magic `KMDATA01`) has a 16-byte header: the magic and the seed;
//! it reads as the whole job of an unknown source.
//!
//! | bytes | record: one position of a self-play game |
//! |---|---|
//! | 4 | Black's pieces, bit `i` = square `i + 1` |
//! | 4 | White's pieces |
//! | 4 | kings (of both colours) |
//! | 1 | side to move: 0 Black, 1 White |
//! | 1 | the game's result for Black: 2 win, 1 draw, 0 loss |
//! | 2 | search score for the side to move, centi-men, `i16`, wins clamped to ±[`SCORE_CLAMP`] |
//!
//! A game's records are written together, in the order played. Only positions
//! without a capture pending are written.

use crate::board::{Bitboard, Color, Outcome, Position, Variant};
use crate::shard::Shard;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The first bytes of a data file of version 2, the one written.
pub const MAGIC: &[u8; 8] = b"KMDATA02";
/// The first bytes of a data file of version 1.
pub const MAGIC_V1: &[u8; 8] = b"KMDATA01";
/// Bytes per record.
pub const RECORD_LEN: usize = 16;
/// Bytes of the header of version 2.
pub const HEADER_LEN: usize = 64;
/// Bytes of the header of version 1.
pub const HEADER_LEN_V1: usize = 16;
/// Search scores are clamped to this (a found win scores this).
pub const SCORE_CLAMP: i32 = 3000;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position (English).
    pub position: Position,
    /// The game's result for Black: 2 win, 1 draw, 0 loss.
    pub result: u8,
    /// The search score for the side to move, in centi-men.
    pub score: i16,
}

/// Why a data file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Reading failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The contents are not kingme training data.
    #[error("{path}: {reason}")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The result byte of a game that ended in `outcome` (for Black: 2 win, 1
/// draw, 0 loss).
#[must_use]
pub fn result_of(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Win(Color::Black) => 2,
        Outcome::Draw => 1,
        Outcome::Win(Color::White) => 0,
    }
}

impl Record {
    /// The result for the side to move: 1 win, 0.5 draw, 0 loss.
    #[must_use]
    pub fn result_for_mover(&self) -> f32 {
        let black = f32::from(self.result) / 2.0;
        match self.position.turn() {
            Color::Black => black,
            Color::White => 1.0 - black,
        }
    }

    /// The record's 16 bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; RECORD_LEN] {
        let p = &self.position;
        let mut b = [0u8; RECORD_LEN];
        b[0..4].copy_from_slice(&p.pieces(Color::Black).0.to_le_bytes());
        b[4..8].copy_from_slice(&p.pieces(Color::White).0.to_le_bytes());
        b[8..12].copy_from_slice(&p.kings().0.to_le_bytes());
        b[12] = u8::from(p.turn() == Color::White);
        b[13] = self.result;
        b[14..16].copy_from_slice(&self.score.to_le_bytes());
        b
    }

    /// A record from its bytes, checked: `None` if it cannot be a position.
    #[must_use]
    pub fn from_bytes(b: &[u8; RECORD_LEN]) -> Option<Record> {
        let u = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let (black, white, kings) = (u(0), u(4), u(8));
        if b[12] > 1 || b[13] > 2 || black & white != 0 || kings & !(black | white) != 0 {
            return None;
        }
        let turn = if b[12] == 0 {
            Color::Black
        } else {
            Color::White
        };
        let position = Position::from_parts(
            Variant::English,
            Bitboard(black),
            Bitboard(white),
            Bitboard(kings),
            turn,
        );
        position.validate().ok()?;
        Some(Record {
            position,
            result: b[13],
            score: i16::from_le_bytes([b[14], b[15]]),
        })
    }
}

/// What wrote a data file's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// Not said: a file of version 1, or a join of files of several sources.
    #[default]
    Unknown,
    /// `kingme datagen`'s self-play games.
    Games,
    /// `kingme rescore`: another file's positions with new scores.
    Rescored,
    /// `kingme endings`: positions the endgame databases label.
    Endings,
}

impl Source {
    fn code(self) -> u32 {
        match self {
            Source::Unknown => 0,
            Source::Games => 1,
            Source::Rescored => 2,
            Source::Endings => 3,
        }
    }

    fn from_code(c: u32) -> Option<Source> {
        Some(match c {
            0 => Source::Unknown,
            1 => Source::Games,
            2 => Source::Rescored,
            3 => Source::Endings,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Unknown => "data",
            Source::Games => "datagen games",
            Source::Rescored => "rescored positions",
            Source::Endings => "endings",
        })
    }
}

/// A data file's header (the module's doc has its bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version: 1 or 2 (the one written).
    pub version: u32,
    /// What wrote the records.
    pub source: Source,
    /// Seed of the run that wrote it.
    pub seed: u64,
    /// The part of the job the file holds.
    pub shard: Shard,
    /// The whole job's size: datagen the games (0: no limit), rescore the
    /// records of its input.
    pub whole: u64,
    /// Datagen: the number of the next game to play; the file holds the
    /// games below it.
    pub next_game: u64,
    /// Rescore: the fingerprint of its input's records ([`fingerprint`]).
    pub input: u64,
}

impl Header {
    /// The header of a new file of `source` written with `seed`: the whole
    /// job, its other fields zero.
    #[must_use]
    pub fn new(source: Source, seed: u64) -> Header {
        Header {
            version: 2,
            source,
            seed,
            shard: Shard::WHOLE,
            whole: 0,
            next_game: 0,
            input: 0,
        }
    }

    /// Its bytes, as version 2.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8..16].copy_from_slice(&self.seed.to_le_bytes());
        h[16..20].copy_from_slice(&self.source.code().to_le_bytes());
        h[20..24].copy_from_slice(&self.shard.index().to_le_bytes());
        h[24..28].copy_from_slice(&self.shard.count().to_le_bytes());
        h[32..40].copy_from_slice(&self.whole.to_le_bytes());
        h[40..48].copy_from_slice(&self.next_game.to_le_bytes());
        h[48..56].copy_from_slice(&self.input.to_le_bytes());
        h
    }

    /// Writes it (as version 2) at the start of a new data file.
    pub fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Bytes of this header in its file.
    #[must_use]
    pub fn byte_len(&self) -> usize {
        if self.version == 1 {
            HEADER_LEN_V1
        } else {
            HEADER_LEN
        }
    }

    /// Whether the header is the short one of version 1.
    #[must_use]
    pub fn is_v1(&self) -> bool {
        self.version == 1
    }

    /// The header at the start of `bytes` (which may go on past it); errors
    /// name the file as `name`.
    pub fn parse(bytes: &[u8], name: &str) -> Result<Header, DataError> {
        let bad = |reason: String| DataError::Bad {
            path: name.to_string(),
            reason,
        };
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[i..i + 8]);
            u64::from_le_bytes(b)
        };
        if bytes.len() >= HEADER_LEN_V1 && bytes.starts_with(MAGIC_V1) {
            return Ok(Header {
                version: 1,
                seed: u64_at(8),
                ..Header::new(Source::Unknown, 0)
            });
        }
        if !bytes.starts_with(MAGIC) {
            return Err(bad(
                "not kingme training data (no KMDATA02 or KMDATA01 magic)".into(),
            ));
        }
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "a header of {} bytes, version 2 has {HEADER_LEN}",
                bytes.len()
            )));
        }
        let source = Source::from_code(u32_at(16))
            .ok_or_else(|| bad(format!("bad header: source {}", u32_at(16))))?;
        let shard =
            Shard::new(u32_at(20), u32_at(24)).map_err(|e| bad(format!("bad header: {e}")))?;
        if u32_at(28) != 0 || u64_at(56) != 0 {
            return Err(bad("bad header: reserved bytes are not zero".into()));
        }
        Ok(Header {
            version: 2,
            source,
            seed: u64_at(8),
            shard,
            whole: u64_at(32),
            next_game: u64_at(40),
            input: u64_at(48),
        })
    }
}

/// The fingerprint of `records` a rescored file's header keeps of its input:
/// FNV-1a 64, in lanes, of their bytes.
#[must_use]
pub fn fingerprint(records: &[Record]) -> u64 {
    let bytes: Vec<u8> = records.iter().flat_map(|r| r.to_bytes()).collect();
    crate::checked_file::fnv::fnv1a_lanes(&bytes)
}

/// Writes `header` over the version-2 header of the data file `file`
/// (opened for writing, not appending), as a run goes (datagen's next game).
pub fn rewrite_header(file: &mut std::fs::File, header: &Header) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())
}

/// Cuts a record that a killed run left half-written at the end of the data
/// file at `path`; returns the bytes cut.
pub fn cut_torn_record(path: &Path) -> Result<u64, DataError> {
    let io = |source| DataError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    let mut magic = [0u8; 8];
    if f.read_exact(&mut magic).is_err() {
        return Ok(0);
    }
    let header = if &magic == MAGIC_V1 {
        HEADER_LEN_V1
    } else {
        HEADER_LEN
    } as u64;
    if len < header {
        return Ok(0);
    }
    let torn = (len - header) % RECORD_LEN as u64;
    if torn != 0 {
        f.set_len(len - torn).map_err(io)?;
    }
    Ok(torn)
}

/// The records of the data file at `path`, all checked.
pub fn read_file(path: &Path) -> Result<Vec<Record>, DataError> {
    read(path).map(|(_, records)| records)
}

/// The header and the records of the data file at `path`, all checked.
pub fn read(path: &Path) -> Result<(Header, Vec<Record>), DataError> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|source| DataError::Io {
            path: name.clone(),
            source,
        })?;
    parse_file(&bytes, &name)
}

/// The records of a data file's bytes, all checked; errors name the file as
/// `name`.
pub fn parse(bytes: &[u8], name: &str) -> Result<Vec<Record>, DataError> {
    parse_file(bytes, name).map(|(_, records)| records)
}

/// The header and the records of a data file's bytes, all checked; errors
/// name the file as `name`.
pub fn parse_file(bytes: &[u8], name: &str) -> Result<(Header, Vec<Record>), DataError> {
    let header = Header::parse(bytes, name)?;
    let records = parse_records(&bytes[header.byte_len()..], name)?;
    Ok((header, records))
}

/// The records of `body`, the bytes after a data file's header, all
/// checked; errors name the file as `name`.
pub fn parse_records(body: &[u8], name: &str) -> Result<Vec<Record>, DataError> {
    let bad = |reason: String| DataError::Bad {
        path: name.to_string(),
        reason,
    };
    if !body.len().is_multiple_of(RECORD_LEN) {
        return Err(bad(format!(
            "{} bytes after the header is not a whole number of {RECORD_LEN}-byte records",
            body.len()
        )));
    }
    body.chunks_exact(RECORD_LEN)
        .enumerate()
        .map(|(i, c)| {
            let c: &[u8; RECORD_LEN] = c.try_into().map_err(|_| bad("record".into()))?;
            Record::from_bytes(c).ok_or_else(|| bad(format!("record {i} is not a legal position")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_nonsense_is_refused() {
        let position = Position::from_fen(Variant::English, "W:WK14,K22,27:B3,K9,12").unwrap();
        let r = Record {
            position,
            result: 0,
            score: -123,
        };
        assert_eq!(Record::from_bytes(&r.to_bytes()), Some(r));
        assert_eq!(r.result_for_mover(), 1.0);
        let mut b = r.to_bytes();
        b[1] |= 1 << 5; // Black on White's king square 14 (bit 13)
        assert_eq!(Record::from_bytes(&b), None);
        let mut b = r.to_bytes();
        b[13] = 3;
        assert_eq!(Record::from_bytes(&b), None);
    }

    #[test]
    fn headers_of_both_versions_read_and_a_bad_one_is_refused_by_name() {
        let h = Header {
            shard: Shard::new(3, 8).unwrap(),
            whole: 1000,
            next_game: 500,
            input: 0x0123_4567_89ab_cdef,
            ..Header::new(Source::Games, 77)
        };
        let r = Record {
            position: Position::startpos(Variant::English),
            result: 1,
            score: 5,
        };
        let mut bytes = h.to_bytes().to_vec();
        bytes.extend_from_slice(&r.to_bytes());
        assert_eq!(&bytes[..8], b"KMDATA02");
        assert_eq!(parse_file(&bytes, "f").unwrap(), (h, vec![r]));
        // version 1: the magic and the seed, then the records
        let mut v1 = b"KMDATA01".to_vec();
        v1.extend_from_slice(&9u64.to_le_bytes());
        v1.extend_from_slice(&r.to_bytes());
        let (old, recs) = parse_file(&v1, "old").unwrap();
        assert!(old.is_v1() && old.shard.is_whole() && old.source == Source::Unknown);
        assert_eq!((old.seed, old.byte_len(), recs), (9, 16, vec![r]));
        // a shard of K 0, an unknown source, reserved bytes set, a cut header
        for (at, value) in [(20, 0u8), (16, 9), (30, 1), (60, 1)] {
            let mut b = bytes.clone();
            b[at] = value;
            let e = parse(&b, "bad.kmd").unwrap_err().to_string();
            assert!(e.starts_with("bad.kmd: bad header"), "{at}: {e}");
        }
        let e = parse(&bytes[..40], "cut.kmd").unwrap_err().to_string();
        assert!(e.starts_with("cut.kmd: ") && e.contains("header"), "{e}");
        let e = parse(b"KMDATA03 and more bytes", "new.kmd")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not kingme training data"), "{e}");
    }
}
