//! The training data format written by `kingme datagen` and read by `kingme train`.
//!
//! A data file (`.kmd`) is a 16-byte header, then 16-byte records, all integers
//! little-endian:
//!
//! | bytes | header |
//! |---|---|
//! | 8 | magic `KMDATA01` |
//! | 8 | seed of the run that wrote it (informative) |
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
use std::io::{Read, Write};
use std::path::Path;

/// The first bytes of a data file.
pub const MAGIC: &[u8; 8] = b"KMDATA01";
/// Bytes per record.
pub const RECORD_LEN: usize = 16;
/// Bytes of the header.
pub const HEADER_LEN: usize = 16;
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

/// The header of a data file written with `seed`.
#[must_use]
pub fn header(seed: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..].copy_from_slice(&seed.to_le_bytes());
    h
}

/// Writes the header to a new data file.
pub fn write_header(w: &mut impl Write, seed: u64) -> std::io::Result<()> {
    w.write_all(&header(seed))
}

/// Reads every record of a data file; a bad header, a partial last record or an
/// impossible position is an error naming the file.
/// Cuts a record that a killed run left half-written at the end of the data
/// file at `path`; returns the bytes cut.
pub fn cut_torn_record(path: &Path) -> Result<u64, DataError> {
    let io = |source| DataError::Io {
        path: path.display().to_string(),
        source,
    };
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    let body = len.saturating_sub(HEADER_LEN as u64);
    let torn = body % RECORD_LEN as u64;
    if len >= HEADER_LEN as u64 && torn != 0 {
        f.set_len(len - torn).map_err(io)?;
    }
    Ok(if len >= HEADER_LEN as u64 { torn } else { 0 })
}

/// The records of the data file at `path`, all checked.
pub fn read_file(path: &Path) -> Result<Vec<Record>, DataError> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|source| DataError::Io {
            path: name.clone(),
            source,
        })?;
    parse(&bytes, &name)
}

/// The records of a data file's bytes, all checked; errors name the file as
/// `name`.
pub fn parse(bytes: &[u8], name: &str) -> Result<Vec<Record>, DataError> {
    let bad = |reason: String| DataError::Bad {
        path: name.to_string(),
        reason,
    };
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(bad("not kingme training data (no KMDATA01 magic)".into()));
    }
    let body = &bytes[HEADER_LEN..];
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
}
