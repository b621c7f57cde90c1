//! Slices by material: [`Material`] (black men, black kings, white men, white
//! kings), its canonical orientation and name, and the build [`plan`].
//!
//! A position and its colour-reversed twin (board turned round, colours and
//! side to move swapped) have the same value, so one slice stores a material
//! and its twin; the slice is named after the canonical one of the two.

use crate::board::{Color, Position};
use std::fmt;
use std::str::FromStr;

/// How many men and kings each side has.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Material {
    /// Black men.
    pub bm: u8,
    /// Black kings.
    pub bk: u8,
    /// White men.
    pub wm: u8,
    /// White kings.
    pub wk: u8,
}

/// A slice name that is not of the form `bm1bk2wm0wk1`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad slice name '{0}' (expected e.g. bm1bk1wm0wk2: black men, black kings, white men, white kings)")]
pub struct ParseMaterialError(pub String);

impl Material {
    /// The material of `pos`.
    #[must_use]
    pub fn of(pos: &Position) -> Material {
        Material {
            bm: pos.men(Color::Black).count() as u8,
            bk: pos.kings_of(Color::Black).count() as u8,
            wm: pos.men(Color::White).count() as u8,
            wk: pos.kings_of(Color::White).count() as u8,
        }
    }

    /// Pieces on the board.
    #[must_use]
    pub const fn pieces(self) -> u32 {
        (self.bm + self.bk + self.wm + self.wk) as u32
    }

    /// Men on the board.
    #[must_use]
    pub const fn men(self) -> u32 {
        (self.bm + self.wm) as u32
    }

    /// The colour-reversed material.
    #[must_use]
    pub const fn mirrored(self) -> Material {
        Material {
            bm: self.wm,
            bk: self.wk,
            wm: self.bm,
            wk: self.bk,
        }
    }

    fn key(self) -> (u8, u8, u8, u8) {
        (self.bm + self.bk, self.bk, self.wm + self.wk, self.wk)
    }

    /// Whether this orientation is the one a slice is named and stored by
    /// (Black has at least as many pieces, then at least as many kings).
    #[must_use]
    pub fn is_canonical(self) -> bool {
        self.key() >= self.mirrored().key()
    }

    /// The canonical orientation of this material.
    #[must_use]
    pub fn canonical(self) -> Material {
        if self.is_canonical() {
            self
        } else {
            self.mirrored()
        }
    }

    /// Whether a database slice holds this material: both sides have a piece
    /// and no men are more than fit on a side's 28 squares.
    #[must_use]
    pub const fn is_storable(self) -> bool {
        self.bm + self.bk > 0 && self.wm + self.wk > 0 && self.bm <= 12 && self.wm <= 12
    }

    /// Bytes of the value file's data (2 bits per position).
    #[must_use]
    pub fn wld_bytes(self) -> u64 {
        self.positions().div_ceil(4)
    }

    /// The slices (canonical) that one move from a position of this slice can
    /// lead to, other than this slice itself: captures of any of the opponent's
    /// pieces and crownings, by either side.
    #[must_use]
    pub fn dependencies(self) -> Vec<Material> {
        let mut out = Vec::new();
        for m in [self, self.mirrored()] {
            // Black moves in `m` (White's moves are Black's in the mirror).
            for crown in [false, true] {
                if crown && m.bm == 0 {
                    continue;
                }
                for tm in 0..=m.wm {
                    for tk in 0..=m.wk {
                        if !crown && tm == 0 && tk == 0 {
                            continue;
                        }
                        let c = Material {
                            bm: m.bm - u8::from(crown),
                            bk: m.bk + u8::from(crown),
                            wm: m.wm - tm,
                            wk: m.wk - tk,
                        };
                        if c.is_storable() {
                            let c = c.canonical();
                            if c != self.canonical() && !out.contains(&c) {
                                out.push(c);
                            }
                        }
                    }
                }
            }
        }
        out.sort_by_key(|m| plan_key(*m));
        out
    }
}

fn plan_key(m: Material) -> (u32, u32, Material) {
    (m.pieces(), m.men(), m)
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bm{}bk{}wm{}wk{}", self.bm, self.bk, self.wm, self.wk)
    }
}

impl FromStr for Material {
    type Err = ParseMaterialError;
    fn from_str(s: &str) -> Result<Material, ParseMaterialError> {
        let err = || ParseMaterialError(s.chars().take(40).collect());
        let mut rest = s;
        let mut take = |tag: &str| -> Result<u8, ParseMaterialError> {
            let r = rest.strip_prefix(tag).ok_or_else(err)?;
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 || n > 2 {
                return Err(err());
            }
            let v: u8 = r[..n].parse().map_err(|_| err())?;
            rest = &r[n..];
            Ok(v)
        };
        let m = Material {
            bm: take("bm")?,
            bk: take("bk")?,
            wm: take("wm")?,
            wk: take("wk")?,
        };
        if !rest.is_empty() || !m.is_storable() || m.pieces() > 12 {
            return Err(err());
        }
        Ok(m)
    }
}

/// Every slice of at most `pieces` pieces, canonical, in build order: fewer
/// pieces first (captures lead there), then fewer men (crowning leads there).
/// Every slice's [`Material::dependencies`] come before it.
#[must_use]
pub fn plan(pieces: u32) -> Vec<Material> {
    let mut out = Vec::new();
    let n = pieces.min(12) as u8;
    for bm in 0..=n {
        for bk in 0..=n - bm {
            for wm in 0..=n - bm - bk {
                for wk in 0..=n - bm - bk - wm {
                    let m = Material { bm, bk, wm, wk };
                    if m.is_storable() && m.is_canonical() {
                        out.push(m);
                    }
                }
            }
        }
    }
    out.sort_by_key(|m| plan_key(*m));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in plan(5) {
            assert_eq!(m.to_string().parse::<Material>(), Ok(m));
        }
        assert!("bm1bk1wm0".parse::<Material>().is_err());
        assert!("bm0bk0wm0wk1".parse::<Material>().is_err());
        assert!("bm1bk1wm0wk1x".parse::<Material>().is_err());
    }

    #[test]
    fn plan_puts_dependencies_first() {
        let p = plan(5);
        for (i, m) in p.iter().enumerate() {
            for d in m.dependencies() {
                let j = p.iter().position(|x| *x == d).expect("dependency in plan");
                assert!(j < i, "{d} needed by {m} comes later");
            }
        }
        // 2 pieces: 1 vs 1 in four forms, less the mirrored duplicates
        assert_eq!(plan(2).len(), 3);
    }
}
