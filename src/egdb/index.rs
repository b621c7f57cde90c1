//! Position ↔ index inside one slice.
//!
//! An index is, most significant first: the black men (a combination of the 28
//! squares 1-28 where a black man can stand), the white men (of squares 5-32),
//! the black kings (of the squares the men leave free), the white kings (of the
//! squares left after that), and the side to move (Black 0, White 1). Each
//! combination is ranked in the combinatorial number system. One set of men
//! with every placement of the kings and both sides to move is a *block*:
//! kings' moves stay in their block, men's moves leave it for good.
//!
//! Black and white men may both claim a square of 5-28; such indices stand for
//! no position (a small waste, the price of a fast, simple index).

use super::Material;
use crate::board::{Bitboard, Color, Position, Variant};

/// `BINOM[n][k]` = n choose k, for n ≤ 32, k ≤ 12.
const BINOM: [[u64; 13]; 33] = {
    let mut t = [[0u64; 13]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 12 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// n choose k (0 when k > n).
#[inline]
#[must_use]
pub(crate) const fn binom(n: u32, k: u32) -> u64 {
    BINOM[n as usize][k as usize]
}

/// Squares a black man can stand on (1-28) and a white man can (5-32).
const BLACK_MEN_SQUARES: u32 = 0x0fff_ffff;
const WHITE_MEN_SQUARES: u32 = 0xffff_fff0;

/// The combinatorial rank of a set of small numbers (bits of `set`).
#[inline]
fn rank(mut set: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        let s = set.trailing_zeros();
        set &= set - 1;
        r += binom(s, i);
        i += 1;
    }
    r
}

/// The set of `k` small numbers of rank `r` (inverse of [`rank`]).
#[inline]
fn unrank(mut r: u64, k: u32) -> u32 {
    let mut set = 0;
    // each element is below the one found before it (at first: 32)
    let mut above = 32;
    for i in (1..=k).rev() {
        // the largest c with binom(c, i) <= r; binom(i - 1, i) = 0 always is
        let (mut lo, mut hi) = (i - 1, above);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if binom(mid, i) <= r {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        r -= binom(lo, i);
        set |= 1 << lo;
        above = lo;
    }
    set
}

/// `set` with the squares of `removed` squeezed out (each square numbered
/// among the squares not in `removed`); `set` and `removed` are disjoint.
#[inline]
fn squeeze(set: u32, removed: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if bmi2::available() {
        // SAFETY: the CPU has BMI2, checked just above
        return unsafe { bmi2::pext(set, !removed) };
    }
    squeeze_portable(set, removed)
}

/// [`squeeze`] without BMI2.
#[inline]
fn squeeze_portable(set: u32, removed: u32) -> u32 {
    let mut out = 0;
    let mut s = set;
    while s != 0 {
        let sq = s.trailing_zeros();
        s &= s - 1;
        let below = removed & ((1u32 << sq) - 1);
        out |= 1 << (sq - below.count_ones());
    }
    out
}

/// Inverse of [`squeeze`]: numbers among the squares not in `removed` back to squares.
#[inline]
fn spread(set: u32, removed: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if bmi2::available() {
        // SAFETY: the CPU has BMI2, checked just above
        return unsafe { bmi2::pdep(set, !removed) };
    }
    spread_portable(set, removed)
}

/// [`spread`] without BMI2.
#[inline]
fn spread_portable(set: u32, removed: u32) -> u32 {
    let mut out = 0;
    let mut free = !removed;
    // number of the lowest square still in `free`
    let mut next = 0;
    let mut s = set;
    while s != 0 {
        let n = s.trailing_zeros();
        s &= s - 1;
        for _ in next..n {
            free &= free - 1;
        }
        out |= free & free.wrapping_neg();
        free &= free - 1;
        next = n + 1;
    }
    out
}

/// The bit gather and scatter instructions of x86-64 CPUs with BMI2: each
/// is [`squeeze`] or [`spread`] in one instruction.
#[cfg(target_arch = "x86_64")]
mod bmi2 {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not asked yet, 1: no BMI2, 2: BMI2.
    static AVAILABLE: AtomicU8 = AtomicU8::new(0);

    /// Whether this CPU has BMI2.
    #[inline]
    pub(super) fn available() -> bool {
        match AVAILABLE.load(Ordering::Relaxed) {
            0 => {
                let has = std::arch::is_x86_feature_detected!("bmi2");
                AVAILABLE.store(1 + u8::from(has), Ordering::Relaxed);
                has
            }
            v => v == 2,
        }
    }

    /// The bits of `x` under `mask`, packed to the low end.
    #[target_feature(enable = "bmi2")]
    pub(super) unsafe fn pext(x: u32, mask: u32) -> u32 {
        std::arch::x86_64::_pext_u32(x, mask)
    }

    /// The low bits of `x` placed on the set bits of `mask`, in order.
    #[target_feature(enable = "bmi2")]
    pub(super) unsafe fn pdep(x: u32, mask: u32) -> u32 {
        std::arch::x86_64::_pdep_u32(x, mask)
    }
}

/// The index arithmetic of one slice.
#[derive(Clone, Copy, Debug)]
pub struct SliceIndex {
    mat: Material,
    wm_sets: u64,
    bk_sets: u64,
    wk_sets: u64,
    blocks: u64,
}

/// The men of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Men {
    /// Black men (bits).
    pub black: u32,
    /// White men (bits).
    pub white: u32,
}

impl Men {
    /// How far the men have come: the rows the black men have moved down plus
    /// the rows the white men have moved up. Every man's move adds one.
    #[must_use]
    pub fn progress(self) -> u32 {
        let rows = |mut b: u32, black: bool| {
            let mut t = 0;
            while b != 0 {
                let row = b.trailing_zeros() / 4;
                b &= b - 1;
                t += if black { row } else { 7 - row };
            }
            t
        };
        rows(self.black, true) + rows(self.white, false)
    }
}

impl SliceIndex {
    /// The index of the slice of `mat` (in the orientation given).
    #[must_use]
    pub fn new(mat: Material) -> SliceIndex {
        let free = 32 - u32::from(mat.bm) - u32::from(mat.wm);
        let bm_sets = binom(28, mat.bm.into());
        let wm_sets = binom(28, mat.wm.into());
        SliceIndex {
            mat,
            wm_sets,
            bk_sets: binom(free, mat.bk.into()),
            wk_sets: binom(free - u32::from(mat.bk), mat.wk.into()),
            blocks: bm_sets * wm_sets,
        }
    }

    /// The material.
    #[must_use]
    pub const fn material(&self) -> Material {
        self.mat
    }

    /// Indices in the slice.
    #[must_use]
    pub const fn len(&self) -> u64 {
        self.blocks * self.block_len()
    }

    /// Whether the slice has no index (never: a slice has at least one position).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of blocks (sets of men).
    #[must_use]
    pub const fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Indices in one block: every placement of the kings, both sides to move.
    #[must_use]
    pub const fn block_len(&self) -> u64 {
        self.bk_sets * self.wk_sets * 2
    }

    /// The men of block `b`, or `None` when black and white men would share a square.
    #[must_use]
    pub fn men(&self, b: u64) -> Option<Men> {
        let black = unrank(b / self.wm_sets, self.mat.bm.into());
        let white = unrank(b % self.wm_sets, self.mat.wm.into()) << 4;
        (black & white == 0).then_some(Men { black, white })
    }

    /// The index of `pos`, which must have this slice's material in this
    /// orientation.
    #[must_use]
    pub fn index(&self, pos: &Position) -> u64 {
        let bmen = pos.men(Color::Black).0;
        let wmen = pos.men(Color::White).0;
        debug_assert_eq!(Material::of(pos), self.mat);
        debug_assert!(bmen & !BLACK_MEN_SQUARES == 0 && wmen & !WHITE_MEN_SQUARES == 0);
        let block = rank(bmen) * self.wm_sets + rank(wmen >> 4);
        block * self.block_len() + self.index_in_block(pos)
    }

    /// The index of `pos` counted from the start of its block (the kings'
    /// placement and the side to move; [`SliceIndex::index`] less the block's start).
    #[inline]
    #[must_use]
    pub fn index_in_block(&self, pos: &Position) -> u64 {
        let men = pos.men(Color::Black).0 | pos.men(Color::White).0;
        let bk = pos.kings_of(Color::Black).0;
        let wk = pos.kings_of(Color::White).0;
        let kings = rank(squeeze(bk, men)) * self.wk_sets + rank(squeeze(wk, men | bk));
        kings * 2 + u64::from(pos.turn() == Color::White)
    }

    /// The position at index `i` of block `men` (`i` counted from the block's start).
    #[must_use]
    pub fn position_in_block(&self, men: Men, i: u64) -> Position {
        let k = i >> 1;
        let bk = spread(
            unrank(k / self.wk_sets, self.mat.bk.into()),
            men.black | men.white,
        );
        place_kings(men, bk, unrank(k % self.wk_sets, self.mat.wk.into()), i)
    }

    /// Every placement of the kings, unranked once for reading many
    /// positions of the slice ([`KingSets::position`], [`BlockPositions`]).
    #[must_use]
    pub fn king_sets(&self) -> KingSets {
        let sets = |n: u64, k: u8| (0..n).map(|r| unrank(r, k.into())).collect();
        KingSets {
            black: sets(self.bk_sets, self.mat.bk),
            white: sets(self.wk_sets, self.mat.wk),
        }
    }

    /// The position at index `i`, or `None` when the index stands for no position.
    #[must_use]
    pub fn position(&self, i: u64) -> Option<Position> {
        let men = self.men(i / self.block_len())?;
        Some(self.position_in_block(men, i % self.block_len()))
    }
}

/// Every placement of a slice's kings in index order, as numbers among
/// the squares left free (black kings: by the men; white kings: by the men
/// and black kings).
#[derive(Clone, Debug)]
pub struct KingSets {
    black: Vec<u32>,
    white: Vec<u32>,
}

impl KingSets {
    /// The position at index `i` of block `men`, as
    /// [`SliceIndex::position_in_block`] gives it.
    #[inline]
    #[must_use]
    pub fn position(&self, men: Men, i: u64) -> Position {
        let k = (i >> 1) as usize;
        let n = self.white.len();
        let bk = spread(self.black[k / n], men.black | men.white);
        place_kings(men, bk, self.white[k % n], i)
    }
}

/// The position of `men`, black kings on `bk`, white kings on the squares
/// `white` numbers among those left free, and the side to move of index `i`.
#[inline]
fn place_kings(men: Men, bk: u32, white: u32, i: u64) -> Position {
    let turn = if i & 1 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let wk = spread(white, men.black | men.white | bk);
    Position::from_parts(
        Variant::English,
        Bitboard(men.black | bk),
        Bitboard(men.white | wk),
        Bitboard(bk | wk),
        turn,
    )
}

/// The positions of one block, for reading all of them: the black kings'
/// squares are worked out once.
#[derive(Clone, Debug)]
pub struct BlockPositions<'a> {
    men: Men,
    /// The black kings' squares of each placement.
    black: Vec<u32>,
    /// The white kings' placements.
    white: &'a [u32],
}

impl<'a> BlockPositions<'a> {
    /// The positions of block `men` of the slice whose kings are `sets`.
    #[must_use]
    pub fn new(men: Men, sets: &'a KingSets) -> BlockPositions<'a> {
        let occ = men.black | men.white;
        BlockPositions {
            men,
            black: sets.black.iter().map(|&b| spread(b, occ)).collect(),
            white: &sets.white,
        }
    }

    /// The position at index `i` of the block, as
    /// [`SliceIndex::position_in_block`] gives it.
    #[inline]
    #[must_use]
    pub fn position(&self, i: u64) -> Position {
        let k = (i >> 1) as usize;
        let n = self.white.len();
        place_kings(self.men, self.black[k / n], self.white[k % n], i)
    }
}

/// A position turned round: squares `n` → `33 - n`, colours and side to move
/// swapped. It has the same value as `pos`.
#[must_use]
pub fn mirror(pos: &Position) -> Position {
    Position::from_parts(
        Variant::English,
        Bitboard(pos.pieces(Color::White).0.reverse_bits()),
        Bitboard(pos.pieces(Color::Black).0.reverse_bits()),
        Bitboard(pos.kings().0.reverse_bits()),
        !pos.turn(),
    )
}

impl Material {
    /// Positions in the slice of this (canonical) material, both sides to move,
    /// including indices that stand for no position.
    #[must_use]
    pub fn positions(self) -> u64 {
        SliceIndex::new(self).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_round_trip() {
        for k in 0..=4u32 {
            for r in 0..binom(28, k) {
                let s = unrank(r, k);
                assert_eq!(s.count_ones(), k);
                assert_eq!(rank(s), r);
            }
        }
    }

    #[test]
    fn unrank_inverts_rank_for_up_to_eight_of_32() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for k in 0..=8u32 {
            for step in 0..2000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // the first and last ranks, then random ones
                let r = match step {
                    0 => 0,
                    1 => binom(32, k) - 1,
                    _ => x % binom(32, k),
                };
                let s = unrank(r, k);
                assert_eq!(s.count_ones(), k, "{k} {r}");
                assert_eq!(rank(s), r, "{k} {r}");
            }
        }
    }

    #[test]
    fn spread_puts_the_nth_number_on_the_nth_free_square() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let removed = (x as u32) & (x >> 32) as u32;
            let free: Vec<u32> = (0..32).filter(|b| removed & (1 << b) == 0).collect();
            let set = ((x >> 17) as u32) & ((1u64 << free.len()) - 1) as u32;
            let want = (0..free.len())
                .filter(|&n| set & (1 << n) != 0)
                .fold(0u32, |o, n| o | 1 << free[n]);
            // the portable code and the one this CPU runs (BMI2 where it has it)
            assert_eq!(spread_portable(set, removed), want, "{set:#x} {removed:#x}");
            assert_eq!(spread(set, removed), want, "{set:#x} {removed:#x}");
            assert_eq!(squeeze_portable(want, removed), set);
            assert_eq!(squeeze(want, removed), set);
        }
    }

    #[test]
    fn squeeze_spread_round_trip() {
        let removed = 0b1011_0010;
        for set in [0u32, 1, 0b101, 0b1_0000_0001, 0x0f00_0000] {
            let sq = squeeze(spread(set, removed), removed);
            assert_eq!(sq, set);
        }
    }

    #[test]
    fn a_block_reads_its_positions_as_the_index_does() {
        let mut blocks = 0;
        for m in super::super::plan(4) {
            let ix = SliceIndex::new(m);
            let sets = ix.king_sets();
            for b in (0..ix.blocks()).step_by(7) {
                let Some(men) = ix.men(b) else { continue };
                let block = BlockPositions::new(men, &sets);
                for i in 0..ix.block_len() {
                    let want = ix.position_in_block(men, i);
                    assert_eq!(block.position(i), want, "{m} {b} {i}");
                    assert_eq!(sets.position(men, i), want, "{m} {b} {i}");
                    assert_eq!(ix.index_in_block(&want), i, "{m} {b} {want}");
                }
                blocks += 1;
            }
        }
        assert!(blocks > 100, "{blocks}");
    }

    #[test]
    fn every_index_round_trips() {
        for m in super::super::plan(3) {
            let ix = SliceIndex::new(m);
            let mut valid = 0;
            for i in 0..ix.len() {
                if let Some(p) = ix.position(i) {
                    assert!(p.validate().is_ok(), "{m} {i} {p}");
                    assert_eq!(Material::of(&p), m);
                    assert_eq!(ix.index(&p), i, "{m} {p}");
                    valid += 1;
                }
            }
            assert!(valid > 0);
        }
    }

    #[test]
    fn mirror_is_an_involution() {
        let p = Position::from_fen(Variant::English, "W:W20,K15:B12,K28").unwrap();
        let q = mirror(&p);
        assert_eq!(q.to_fen(), "B:WK5,21:B13,K18");
        assert_eq!(mirror(&q), p);
    }
}
