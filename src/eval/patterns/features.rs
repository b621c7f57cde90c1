//! The features of the English pattern evaluation, seen from the side to move.
//!
//! A position is first turned so that the side to move plays down the board
//! (towards square 32), as Black does: a White-to-move position is rotated half a
//! turn (square `i` becomes `31 - i`) and the colours are swapped. Every feature is
//! then about "us" (the side to move) and "them", and one weight table serves both
//! colours.
//!
//! The features, in the order of their indices:
//! - **Windows**: nine 4x4 blocks of the board (rows and columns starting at 0, 2
//!   or 4), each holding 8 playable squares; the contents of a window (each square
//!   empty, ours or theirs, kings counted as pieces) index one of `3^8 = 6561`
//!   weights of that window.
//! - **King squares**: one weight per square for our kings, one for theirs.
//! - **Scalars**, each a count: men and kings of each side, quiet moves of each
//!   side, rows advanced by each side's men, men close to crowning with a free
//!   path (weighted by closeness), kings that cannot move, and a constant (the
//!   value of having the move).
//!
//! Every feature has two weights, one for a full board and one for a bare one;
//! the evaluation mixes them by the number of pieces on the board ([`PHASES`]).

use crate::board::{Color, English, Position, Rules};

/// Number of windows.
pub const WINDOWS: usize = 9;
/// Weights per window: each of its 8 squares empty, ours or theirs.
pub const WINDOW_STATES: usize = 6561;
/// First king-square feature (ours, then theirs).
pub const KING_SQUARES: usize = WINDOWS * WINDOW_STATES;
/// First scalar feature.
pub const SCALARS: usize = KING_SQUARES + 64;
/// The scalar features, in index order from [`SCALARS`].
pub const SCALAR_NAMES: [&str; 13] = [
    "men_us",
    "men_them",
    "kings_us",
    "kings_them",
    "mobility_us",
    "mobility_them",
    "advance_us",
    "advance_them",
    "runaway_us",
    "runaway_them",
    "trapped_kings_us",
    "trapped_kings_them",
    "tempo",
];
/// Number of features.
pub const FEATURES: usize = SCALARS + SCALAR_NAMES.len();
/// The number of pieces at which only the full-board weights count; with fewer
/// pieces the bare-board weights take a growing share.
pub const PHASES: i32 = 24;

/// Index of the first scalar of each kind, for readers of [`SCALAR_NAMES`].
const MEN: usize = SCALARS;
const KINGS: usize = SCALARS + 2;
const MOBILITY: usize = SCALARS + 4;
const ADVANCE: usize = SCALARS + 6;
const RUNAWAY: usize = SCALARS + 8;
const TRAPPED: usize = SCALARS + 10;
const TEMPO: usize = SCALARS + 12;

/// A position turned so that the side to move plays down the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Oriented {
    /// The side to move's pieces.
    pub us: u32,
    /// The other side's pieces.
    pub them: u32,
    /// Kings of both sides.
    pub kings: u32,
}

impl Oriented {
    /// `pos` seen from its side to move (English positions only).
    #[inline]
    #[must_use]
    pub fn new(pos: &Position) -> Oriented {
        let (b, w, k) = (
            pos.pieces(Color::Black).0,
            pos.pieces(Color::White).0,
            pos.kings().0,
        );
        match pos.turn() {
            Color::Black => Oriented {
                us: b,
                them: w,
                kings: k,
            },
            Color::White => Oriented {
                us: w.reverse_bits(),
                them: b.reverse_bits(),
                kings: k.reverse_bits(),
            },
        }
    }

    /// Pieces on the board.
    #[inline]
    #[must_use]
    pub fn pieces(&self) -> i32 {
        (self.us | self.them).count_ones() as i32
    }
}

/// `T3[b]`: the 8 bits of `b` read as base-3 digits (0 or 1 each).
static T3: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u16;
        let mut p = 1u16;
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                v += p;
            }
            p *= 3;
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// Shift that brings window `w`'s first square to bit 0: each of its four rows
/// holds two consecutive squares.
const WINDOW_SHIFT: [u32; WINDOWS] = [0, 1, 2, 8, 9, 10, 16, 17, 18];

/// The 8 squares of the window at bit 0 (bits 0, 1, 4, 5, 8, 9, 12, 13) packed into one byte.
#[inline(always)]
fn window_byte(b: u32, shift: u32) -> usize {
    let x = (b >> shift) & 0x3333;
    let x = (x | (x >> 2)) & 0x0f0f;
    ((x | (x >> 4)) & 0xff) as usize
}

/// Squares from which a man of ours (moving down) on `sq` could be stopped.
const fn cone_down(sq: u32) -> u32 {
    let (row, col) = (sq / 4, 2 * (sq % 4) + 1 - (sq / 4) % 2);
    let mut m = 0u32;
    let mut r = row + 1;
    while r < 8 {
        let dist = (r - row) as i32;
        let mut c = col as i32 - dist - 1;
        while c <= col as i32 + dist + 1 {
            if c >= 0 && c < 8 && (r as i32 + c) % 2 == 1 {
                m |= 1 << (r * 4 + c as u32 / 2);
            }
            c += 1;
        }
        r += 1;
    }
    m
}

static CONE_DOWN: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = cone_down(i as u32);
        i += 1;
    }
    t
};

/// Quiet steps of men moving down and of kings, onto `empty`.
#[inline(always)]
fn steps_down(men: u32, kings: u32, empty: u32) -> i32 {
    type R = English;
    let all = men | kings;
    ((R::down_left(all) & empty).count_ones()
        + (R::down_right(all) & empty).count_ones()
        + (R::up_left(kings) & empty).count_ones()
        + (R::up_right(kings) & empty).count_ones()) as i32
}

/// Kings in `kings` with no empty neighbour.
#[inline(always)]
fn trapped(kings: u32, empty: u32) -> i32 {
    type R = English;
    let mut n = 0;
    let mut kb = kings;
    while kb != 0 {
        let b = kb & kb.wrapping_neg();
        kb ^= b;
        if (R::down_left(b) | R::down_right(b) | R::up_left(b) | R::up_right(b)) & empty == 0 {
            n += 1;
        }
    }
    n
}

/// Rows advanced by men moving down, and their runaway value (4 for a man one row
/// from crowning with nothing of the other side's in the cone ahead, down to 1
/// three rows away).
#[inline(always)]
fn advance_down(men: u32, other: u32) -> (i32, i32) {
    let mut adv = 0;
    let mut run = 0;
    let mut bits = men;
    while bits != 0 {
        let sq = bits.trailing_zeros();
        bits &= bits - 1;
        let row = (sq / 4) as i32;
        adv += row;
        if row >= 4 && CONE_DOWN[sq as usize] & other == 0 {
            run += row - 3;
        }
    }
    (adv, run)
}

/// Calls `f(index, count)` for every feature of `o` with a non-zero count.
#[inline(always)]
pub fn for_each_feature(o: &Oriented, mut f: impl FnMut(usize, i32)) {
    for (w, &shift) in WINDOW_SHIFT.iter().enumerate() {
        let idx =
            T3[window_byte(o.us, shift)] as usize + 2 * T3[window_byte(o.them, shift)] as usize;
        f(w * WINDOW_STATES + idx, 1);
    }
    let (us_men, us_kings) = (o.us & !o.kings, o.us & o.kings);
    let (them_men, them_kings) = (o.them & !o.kings, o.them & o.kings);
    let mut k = us_kings;
    while k != 0 {
        f(KING_SQUARES + k.trailing_zeros() as usize, 1);
        k &= k - 1;
    }
    let mut k = them_kings;
    while k != 0 {
        f(KING_SQUARES + 32 + k.trailing_zeros() as usize, 1);
        k &= k - 1;
    }
    let empty = !(o.us | o.them);
    // their men move up: seen rotated, they move down like ours
    let (them_men_r, them_kings_r, us_r) = (
        them_men.reverse_bits(),
        them_kings.reverse_bits(),
        o.us.reverse_bits(),
    );
    let empty_r = empty.reverse_bits();
    let scalars = [
        (MEN, us_men.count_ones() as i32),
        (MEN + 1, them_men.count_ones() as i32),
        (KINGS, us_kings.count_ones() as i32),
        (KINGS + 1, them_kings.count_ones() as i32),
        (MOBILITY, steps_down(us_men, us_kings, empty)),
        (MOBILITY + 1, steps_down(them_men_r, them_kings_r, empty_r)),
        (TRAPPED, trapped(us_kings, empty)),
        (TRAPPED + 1, trapped(them_kings, empty)),
        (TEMPO, 1),
    ];
    for (i, v) in scalars {
        if v != 0 {
            f(i, v);
        }
    }
    let (adv, run) = advance_down(us_men, o.them);
    let (adv_t, run_t) = advance_down(them_men_r, us_r);
    for (i, v) in [
        (ADVANCE, adv),
        (ADVANCE + 1, adv_t),
        (RUNAWAY, run),
        (RUNAWAY + 1, run_t),
    ] {
        if v != 0 {
            f(i, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Variant;

    fn features(fen: &str) -> Vec<(usize, i32)> {
        let pos = Position::from_fen(Variant::English, fen).unwrap();
        let mut v = Vec::new();
        for_each_feature(&Oriented::new(&pos), |i, x| v.push((i, x)));
        v.sort_unstable();
        v
    }

    #[test]
    fn a_position_and_its_mirror_with_the_other_side_to_move_agree() {
        // rotating the board and swapping colours and turn changes nothing for the mover
        for fen in [
            "B:W18,19,21,23,24,26,27,29,30,31,32:B1,2,3,5,6,7,9,10,11,12,14",
            "W:WK14,K22,27:B3,K9,12",
        ] {
            let pos = Position::from_fen(Variant::English, fen).unwrap();
            let b = pos.pieces(Color::Black).0.reverse_bits();
            let w = pos.pieces(Color::White).0.reverse_bits();
            let k = pos.kings().0.reverse_bits();
            let mirror = Position::from_parts(
                Variant::English,
                crate::board::Bitboard(w),
                crate::board::Bitboard(b),
                crate::board::Bitboard(k),
                !pos.turn(),
            );
            assert_eq!(features(fen), features(&mirror.to_string()), "{fen}");
        }
    }

    #[test]
    fn the_start_has_the_counts_a_person_finds() {
        let f = features("B:W21-32:B1-12");
        let get = |i: usize| f.iter().find(|x| x.0 == i).map_or(0, |x| x.1);
        assert_eq!(get(MEN), 12);
        assert_eq!(get(MEN + 1), 12);
        assert_eq!(get(KINGS), 0);
        // Black's men on 9-12 step to 13-16: 7 moves; White's likewise
        assert_eq!(get(MOBILITY), 7);
        assert_eq!(get(MOBILITY + 1), 7);
        // rows advanced: 4 men on each of rows 0, 1, 2
        assert_eq!(get(ADVANCE), 12);
        assert_eq!(get(ADVANCE + 1), 12);
        assert_eq!(get(TEMPO), 1);
        // the top-left window holds Black's 1, 5, 9 and White's nothing:
        // squares 1,2 / 5,6 / 9,10 / 13,14 (bits 0,1,4,5,8,9,12,13) -> ours on 6 of 8
        assert_eq!(f[0], (T3[0b0011_1111] as usize, 1));
        assert_eq!(f.iter().filter(|x| x.0 < KING_SQUARES).count(), WINDOWS);
    }

    #[test]
    fn a_runaway_counts_and_a_blocked_man_does_not() {
        // Black man on 22 (row 5) with nothing ahead: runaway 2; White man on 11 is far
        let f = features("B:W11:B22");
        let get = |i: usize| f.iter().find(|x| x.0 == i).map_or(0, |x| x.1);
        assert_eq!(get(RUNAWAY), 2);
        // White's man on 11 (row 2) needs 2 more rows: rotated it is on row 5 too
        assert_eq!(get(RUNAWAY + 1), 2);
        let g = features("B:W26,11:B22");
        let get = |i: usize| g.iter().find(|x| x.0 == i).map_or(0, |x| x.1);
        assert_eq!(get(RUNAWAY), 0);
    }
}
