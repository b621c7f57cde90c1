//! Pieces: a colour and a role.

use super::Color;

/// What a piece is: a man, or a crowned king (English only).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Role {
    /// Moves and captures forward only.
    Man,
    /// Moves and captures in all four diagonal directions.
    King,
}

/// A piece on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// Man or king.
    pub role: Role,
}

impl Piece {
    /// The one-letter board symbol: `b`/`w` for men, `B`/`W` for kings.
    #[must_use]
    pub const fn symbol(self) -> char {
        match (self.color, self.role) {
            (Color::Black, Role::Man) => 'b',
            (Color::Black, Role::King) => 'B',
            (Color::White, Role::Man) => 'w',
            (Color::White, Role::King) => 'W',
        }
    }
}
