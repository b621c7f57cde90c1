//! A dark square, numbered as in `protocol/RULES.md` (1-based on the wire, 0-based inside).

use std::fmt;

/// A playable (dark) square. Inside it is a 0-based index; on the wire it is the
/// square number `index + 1` (1..=32 on 8x8, 1..=18 on 6x6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with 0-based index `index` (below 32).
    #[inline]
    #[must_use]
    pub const fn new_unchecked(index: u8) -> Square {
        Square(index)
    }

    /// The square with 0-based `index`, if it is below 32.
    #[must_use]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 32 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with the given 1-based number, if in 1..=32.
    #[must_use]
    pub const fn from_number(number: u32) -> Option<Square> {
        if number >= 1 && number <= 32 {
            Some(Square((number - 1) as u8))
        } else {
            None
        }
    }

    /// The 0-based index (bit position in a [`super::Bitboard`]).
    #[inline]
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The 1-based square number used in notation.
    #[inline]
    #[must_use]
    pub const fn number(self) -> u32 {
        self.0 as u32 + 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.number())
    }
}
