//! Positions, colours and moves in pydraughts' English DXP dialect.

use super::message::{DxpColor, DxpMove};
use crate::board::{
    format_square_text, parse_square_text, Bitboard, Color, Move, ParseSquareTextError,
    PieceLetters, Position, Square, Variant,
};

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

/// DXP's letters in the English dialect: `w`/`W` a Black man/king, `z`/`Z` a
/// White man/king, `e` empty.
pub const DXP_LETTERS: PieceLetters = PieceLetters {
    black_man: 'w',
    black_king: 'W',
    white_man: 'z',
    white_king: 'Z',
    empty: 'e',
};

/// Reads a GAMEREQ set-up board with `to_move` to play.
pub fn parse_board(board: &str, to_move: DxpColor) -> Result<Position, DxpGameError> {
    parse_square_text(Variant::English, board, DXP_LETTERS, color_of(to_move)).map_err(
        |e| match e {
            ParseSquareTextError::Length { found, .. } => DxpGameError::BoardSize(found),
            ParseSquareTextError::Piece { found, .. } => DxpGameError::Piece(found),
            ParseSquareTextError::Invalid(reason) => DxpGameError::Invalid(reason),
        },
    )
}

/// Writes an English position as a GAMEREQ board and the side to move.
#[must_use]
pub fn format_board(pos: &Position) -> (DxpColor, String) {
    (dxp_color(pos.turn()), format_square_text(pos, DXP_LETTERS))
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
    pos.find_move(from, to, set).ok_or_else(illegal)
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
