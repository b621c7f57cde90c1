//! Positions written one character per square, as Hub and DXP write them:
//! the first character is the highest-numbered square, the last is square 1,
//! and each protocol has its own letters for the pieces. The side to move is
//! not part of the text (each protocol writes it its own way).

use super::{Bitboard, Color, Position, Square, Variant};

/// The letters of one protocol's square-per-character positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceLetters {
    /// A black man.
    pub black_man: char,
    /// A black king.
    pub black_king: char,
    /// A white man.
    pub white_man: char,
    /// A white king.
    pub white_king: char,
    /// An empty square.
    pub empty: char,
}

impl PieceLetters {
    /// The letters in the order `black_man black_king white_man white_king empty`.
    fn list(self) -> [char; 5] {
        [
            self.black_man,
            self.black_king,
            self.white_man,
            self.white_king,
            self.empty,
        ]
    }
}

/// Why square text can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareTextError {
    /// Not one character per square of the variant.
    #[error("{found} squares, {variant} has {expected}")]
    Length {
        /// The variant being read.
        variant: Variant,
        /// Characters given.
        found: usize,
        /// Squares the variant has.
        expected: u32,
    },
    /// A character that is none of the letters.
    #[error("'{found}' is not one of {letters}")]
    Piece {
        /// The character.
        found: char,
        /// The letters accepted, blank-separated.
        letters: String,
    },
    /// Well-formed, but not a position of the variant.
    #[error("{0}")]
    Invalid(&'static str),
}

/// Reads `text` (one character per square of `variant`, in `letters`) as a
/// position with `turn` to move.
pub fn parse_square_text(
    variant: Variant,
    text: &str,
    letters: PieceLetters,
    turn: Color,
) -> Result<Position, ParseSquareTextError> {
    let n = variant.squares();
    let found = text.chars().count();
    if found != n as usize {
        return Err(ParseSquareTextError::Length {
            variant,
            found,
            expected: n,
        });
    }
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    for (k, c) in text.chars().enumerate() {
        // character k (0-based) is square number n - k, bit n - k - 1
        let bit = 1u32 << (n as usize - 1 - k);
        match c {
            _ if c == letters.black_man => black |= bit,
            _ if c == letters.black_king => {
                black |= bit;
                kings |= bit;
            }
            _ if c == letters.white_man => white |= bit,
            _ if c == letters.white_king => {
                white |= bit;
                kings |= bit;
            }
            _ if c == letters.empty => {}
            found => {
                let list: Vec<String> = letters.list().iter().map(char::to_string).collect();
                return Err(ParseSquareTextError::Piece {
                    found,
                    letters: list.join(" "),
                });
            }
        }
    }
    let pos = Position::from_parts(
        variant,
        Bitboard(black),
        Bitboard(white),
        Bitboard(kings),
        turn,
    );
    pos.validate().map_err(ParseSquareTextError::Invalid)?;
    Ok(pos)
}

/// Writes the squares of `pos` in `letters`, highest number first.
#[must_use]
pub fn format_square_text(pos: &Position, letters: PieceLetters) -> String {
    (1..=pos.variant().squares())
        .rev()
        .map(|number| {
            let sq = Square::from_number(number).expect("a square of the variant");
            let king = pos.kings().contains(sq);
            match (pos.piece_at(sq).map(|p| p.color), king) {
                (Some(Color::Black), false) => letters.black_man,
                (Some(Color::Black), true) => letters.black_king,
                (Some(Color::White), false) => letters.white_man,
                (Some(Color::White), true) => letters.white_king,
                (None, _) => letters.empty,
            }
        })
        .collect()
}
