//! The two rule sets and their board geometry, behind one trait.
//!
//! Code that must be fast is generic over [`Rules`] (monomorphised per variant);
//! everything else holds a runtime [`Variant`] and dispatches once with
//! [`with_rules!`](crate::with_rules).

use super::Color;
use std::fmt;
use std::str::FromStr;

/// Which game is played.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// English draughts / American checkers, 8x8, kings and multi-jumps.
    #[default]
    English,
    /// The 6x6 mini-checkers of the reference projects: forward only, single jumps, no kings.
    Mini,
}

/// Error for a variant name that is neither `english` nor `mini`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (expected english or mini)")]
pub struct ParseVariantError(pub String);

impl Variant {
    /// Both variants.
    pub const ALL: [Variant; 2] = [Variant::English, Variant::Mini];

    /// The protocol name, `english` or `mini`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::English => "english",
            Variant::Mini => "mini",
        }
    }

    /// Board side length (8 or 6).
    #[must_use]
    pub const fn size(self) -> u32 {
        match self {
            Variant::English => English::SIZE,
            Variant::Mini => Mini::SIZE,
        }
    }

    /// Number of playable squares (32 or 18).
    #[must_use]
    pub const fn squares(self) -> u32 {
        self.size() * self.size() / 2
    }

    /// Whether men are crowned (English).
    #[must_use]
    pub const fn has_kings(self) -> bool {
        matches!(self, Variant::English)
    }

    /// Row (0 = top) and column of square `index` (0-based).
    #[must_use]
    pub const fn row_col(self, index: u8) -> (u32, u32) {
        let w = self.size() / 2;
        let row = index as u32 / w;
        let k = index as u32 % w;
        let col = if row.is_multiple_of(2) {
            2 * k + 1
        } else {
            2 * k
        };
        (row, col)
    }

    /// The 0-based square index at (row, col), if that is a dark square on the board.
    #[must_use]
    pub const fn index_at(self, row: u32, col: u32) -> Option<u8> {
        let n = self.size();
        if row >= n || col >= n || (row + col).is_multiple_of(2) {
            return None;
        }
        Some((row * (n / 2) + col / 2) as u8)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseVariantError;
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "english" | "american" | "checkers" | "8x8" => Ok(Variant::English),
            "mini" | "minicheckers" | "mini-checkers" | "6x6" => Ok(Variant::Mini),
            _ => Err(ParseVariantError(s.to_string())),
        }
    }
}

const fn mask_where(size: u32, pred: u8) -> u32 {
    // pred: 0 = even rows, 1 = first square of odd rows (col 0),
    // 2 = last square of even rows (col size-1), 3 = top row, 4 = bottom row, 5 = all
    let w = size / 2;
    let mut m = 0u32;
    let mut i = 0;
    while i < w * size {
        let row = i / w;
        let k = i % w;
        let hit = match pred {
            0 => row.is_multiple_of(2),
            1 => !row.is_multiple_of(2) && k == 0,
            2 => row.is_multiple_of(2) && k == w - 1,
            3 => row == 0,
            4 => row == size - 1,
            _ => true,
        };
        if hit {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

/// A rule set with its geometry as constants, so generic code compiles to
/// straight-line shifts and masks for each board.
/// Crowning row of `color`'s men.
#[inline(always)]
pub(crate) fn crown_row<R: Rules>(color: Color) -> u32 {
    match color {
        Color::Black => R::BOTTOM,
        Color::White => R::TOP,
    }
}

pub trait Rules: Copy + Send + Sync + 'static {
    /// The runtime tag of this rule set.
    const VARIANT: Variant;
    /// Board side (8 or 6).
    const SIZE: u32;
    /// Squares per row.
    const W: u32 = Self::SIZE / 2;
    /// Every playable square.
    const ALL: u32 = mask_where(Self::SIZE, 5);
    /// Squares on even rows (0, 2, ...), whose first dark square is column 1.
    const EVEN: u32 = mask_where(Self::SIZE, 0);
    /// Squares on odd rows in column 0.
    const ODD_COL0: u32 = mask_where(Self::SIZE, 1);
    /// Squares on even rows in the last column.
    const EVEN_LAST: u32 = mask_where(Self::SIZE, 2);
    /// Top row (White's crowning row).
    const TOP: u32 = mask_where(Self::SIZE, 3);
    /// Bottom row (Black's crowning row).
    const BOTTOM: u32 = mask_where(Self::SIZE, 4);
    /// Whether men are crowned and may continue capturing (English).
    const KINGS_AND_MULTI_JUMPS: bool;

    /// One step down-left (towards higher numbers).
    #[inline(always)]
    fn down_left(b: u32) -> u32 {
        (((b & Self::EVEN) << Self::W) | ((b & !Self::EVEN & !Self::ODD_COL0) << (Self::W - 1)))
            & Self::ALL
    }
    /// One step down-right.
    #[inline(always)]
    fn down_right(b: u32) -> u32 {
        (((b & Self::EVEN & !Self::EVEN_LAST) << (Self::W + 1)) | ((b & !Self::EVEN) << Self::W))
            & Self::ALL
    }
    /// One step up-left (towards lower numbers).
    #[inline(always)]
    fn up_left(b: u32) -> u32 {
        ((b & Self::EVEN) >> Self::W) | ((b & !Self::EVEN & !Self::ODD_COL0) >> (Self::W + 1))
    }
    /// One step up-right.
    #[inline(always)]
    fn up_right(b: u32) -> u32 {
        ((b & Self::EVEN & !Self::EVEN_LAST) >> (Self::W - 1)) | ((b & !Self::EVEN) >> Self::W)
    }
}

/// English draughts rules (8x8).
#[derive(Clone, Copy, Debug, Default)]
pub struct English;

/// Mini-checkers rules (6x6).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mini;

impl Rules for English {
    const VARIANT: Variant = Variant::English;
    const SIZE: u32 = 8;
    const KINGS_AND_MULTI_JUMPS: bool = true;
}

impl Rules for Mini {
    const VARIANT: Variant = Variant::Mini;
    const SIZE: u32 = 6;
    const KINGS_AND_MULTI_JUMPS: bool = false;
}

/// Runs `$body` with the type alias `$R` bound to the [`Rules`] type of `$variant`.
#[macro_export]
macro_rules! with_rules {
    ($variant:expr, $R:ident => $body:expr) => {
        match $variant {
            $crate::board::Variant::English => {
                type $R = $crate::board::English;
                $body
            }
            $crate::board::Variant::Mini => {
                type $R = $crate::board::Mini;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step_by_coords(v: Variant, i: u8, dr: i32, dc: i32) -> u32 {
        let (r, c) = v.row_col(i);
        let (r, c) = (r as i32 + dr, c as i32 + dc);
        if r < 0 || c < 0 {
            return 0;
        }
        v.index_at(r as u32, c as u32).map_or(0, |j| 1 << j)
    }

    fn check<R: Rules>() {
        let v = R::VARIANT;
        for i in 0..v.squares() as u8 {
            let b = 1u32 << i;
            assert_eq!(R::down_left(b), step_by_coords(v, i, 1, -1), "{v} dl {i}");
            assert_eq!(R::down_right(b), step_by_coords(v, i, 1, 1), "{v} dr {i}");
            assert_eq!(R::up_left(b), step_by_coords(v, i, -1, -1), "{v} ul {i}");
            assert_eq!(R::up_right(b), step_by_coords(v, i, -1, 1), "{v} ur {i}");
        }
    }

    #[test]
    fn shifts_match_coordinates() {
        check::<English>();
        check::<Mini>();
    }

    #[test]
    fn numbering_matches_rules() {
        assert_eq!(Variant::English.row_col(0), (0, 1));
        assert_eq!(Variant::English.row_col(28), (7, 0));
        assert_eq!(Variant::Mini.row_col(2), (0, 5));
        assert_eq!(Variant::Mini.row_col(15), (5, 0));
    }
}
