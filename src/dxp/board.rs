//! Positions, colours and moves in pydraughts' English DXP dialect.

use super::message::{DxpColor, DxpMove};
use crate::board::{Bitboard, Color, Move, Position, Square, Variant};

/// A GAMEREQ position or move that doesn't fit the English game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DxpGameError {
    /// Not a 32-square board.
    #[error("board of {0} squares: only English (32) is played")]
    BoardSize(usize),
    /// A character other than `w W z Z e`.
    #[error("board character '{0}' is not one of w W z Z e")]
    Piece(char),
    /// Well-formed but not a legal set-up.
    #[error("bad position: {0}")]
    Invalid(&'static str),
    /// A MOVE that is not legal here.
    #[error("illegal move {from}-{to} capturing {captured:?}")]
    IllegalMove {
        /// Start square.
        from: u8,
        /// End square.
        to: u8,
        /// Captured squares.
        captured: Vec<u8>,
    },
}

/// The colour a colour field stands for (English dialect: `Z` Black, `W` White).
#[must_use]
pub fn color_of(c: DxpColor) -> Color {
    match c {
        DxpColor::Z => Color::Black,
        DxpColor::W => Color::White,
    }
}

/// The colour field for `c`.
#[must_use]
pub fn dxp_color(c: Color) -> DxpColor {
    match c {
        Color::Black => DxpColor::Z,
        Color::White => DxpColor::W,
    }
}

/// Reads a GAMEREQ set-up board with `to_move` to play.
pub fn parse_board(board: &str, to_move: DxpColor) -> Result<Position, DxpGameError> {
    let chars: Vec<char> = board.chars().collect();
    if chars.len() != 32 {
        return Err(DxpGameError::BoardSize(chars.len()));
    }
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    for (k, &c) in chars.iter().enumerate() {
        let bit = 1u32 << (31 - k);
        match c {
            'w' => black |= bit,
            'W' => {
                black |= bit;
                kings |= bit;
            }
            'z' => white |= bit,
            'Z' => {
                white |= bit;
                kings |= bit;
            }
            'e' => {}
            other => return Err(DxpGameError::Piece(other)),
        }
    }
    let pos = Position::from_parts(
        Variant::English,
        Bitboard(black),
        Bitboard(white),
        Bitboard(kings),
        color_of(to_move),
    );
    pos.validate().map_err(DxpGameError::Invalid)?;
    Ok(pos)
}

/// Writes an English position as a GAMEREQ board and the side to move.
#[must_use]
pub fn format_board(pos: &Position) -> (DxpColor, String) {
    let board = (1..=32u32)
        .rev()
        .map(|n| {
            let sq = Square::from_number(n).expect("1..=32");
            let king = pos.kings().contains(sq);
            match (pos.piece_at(sq).map(|p| p.color), king) {
                (Some(Color::Black), false) => 'w',
                (Some(Color::Black), true) => 'W',
                (Some(Color::White), false) => 'z',
                (Some(Color::White), true) => 'Z',
                (None, _) => 'e',
            }
        })
        .collect();
    (dxp_color(pos.turn()), board)
}

/// Finds the legal move a MOVE message describes.
pub fn find_move(pos: &Position, m: &DxpMove) -> Result<Move, DxpGameError> {
    let illegal = || DxpGameError::IllegalMove {
        from: m.from,
        to: m.to,
        captured: m.captured.clone(),
    };
    let sq = |n: u8| Square::from_number(u32::from(n)).ok_or_else(illegal);
    let (from, to) = (sq(m.from)?, sq(m.to)?);
    let mut set = Bitboard::EMPTY;
    for &c in &m.captured {
        set = set.with(sq(c)?);
    }
    if set.count() as usize != m.captured.len() {
        return Err(illegal());
    }
    pos.legal_moves()
        .iter()
        .copied()
        .find(|l| !l.is_pass() && l.from() == from && l.to() == to && l.captured() == set)
        .ok_or_else(illegal)
}

/// The MOVE message for `m`.
#[must_use]
pub fn move_message(m: Move, seconds: u16) -> DxpMove {
    DxpMove {
        seconds,
        from: m.from().number() as u8,
        to: m.to().number() as u8,
        captured: m.captured().map(|s| s.number() as u8).collect(),
    }
}
