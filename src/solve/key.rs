//! The key of a mini-checkers position in the solved tables: its men only
//! (mini has no kings), the side to move's in the low bits, both seen from
//! the mover's side of the board, so that a position with White to move and
//! its mirror image (board turned half a turn, colours swapped), which has
//! the same value, share one key. Every other module reads and writes keys
//! through these functions.

use crate::board::{Color, Position};

/// The board's squares.
pub(super) const SQUARES: usize = 18;
/// Every square of the board.
pub(super) const FULL: u32 = (1 << SQUARES) - 1;

/// The table key of a mini position: the men of the side to move in bits
/// 0-17 and the other side's in bits 18-35, both seen from Black's side of the
/// board (White's position is turned half a turn, square `i` to `17 - i`, which
/// maps the game onto itself with the colours swapped), and bit 37 set.
#[inline(always)]
pub(super) fn key_of(pos: &Position) -> u64 {
    let b = pos.pieces(Color::Black).0;
    let w = pos.pieces(Color::White).0;
    let (us, them) = match pos.turn() {
        Color::Black => (b, w),
        Color::White => (turn_board(w), turn_board(b)),
    };
    join(us, them)
}

/// Turns an 18-square mini bitboard half a turn (square `i` to `17 - i`).
#[inline(always)]
pub(super) fn turn_board(b: u32) -> u32 {
    // each 9-square half, turned, lands in the other half
    u32::from(TURN_HALF[(b & 511) as usize]) << 9 | u32::from(TURN_HALF[((b >> 9) & 511) as usize])
}

/// The 9-square halves of the board turned half a turn (bit `i` to `8 - i`).
static TURN_HALF: [u16; 512] = turn_halves();

const fn turn_halves() -> [u16; 512] {
    let mut t = [0; 512];
    let mut x = 0;
    while x < 512 {
        t[x] = ((x as u32).reverse_bits() >> 23) as u16;
        x += 1;
    }
    t
}

/// The marker bit every key carries, so that no key is 0.
const MARKER: u64 = 1 << 37;

/// The mover's men and the other side's men of a key.
#[inline(always)]
pub(super) fn split(key: u64) -> (u32, u32) {
    (
        (key & u64::from(FULL)) as u32,
        ((key >> SQUARES) & u64::from(FULL)) as u32,
    )
}

/// The key of the mover's men `us` and the other side's men `them`.
#[inline(always)]
pub(super) fn join(us: u32, them: u32) -> u64 {
    u64::from(us) | (u64::from(them) << 18) | MARKER
}

/// The men on the board of a key.
#[inline(always)]
pub(super) fn men(key: u64) -> u32 {
    let (us, them) = split(key);
    us.count_ones() + them.count_ones()
}

/// Rows 0-5 of the 18-square board.
const ROWS: [u32; 6] = [
    0b111,
    0b111 << 3,
    0b111 << 6,
    0b111 << 9,
    0b111 << 12,
    0b111 << 15,
];

/// The advancement of a key: each of the mover's men counts its row, each of
/// the other side's men counts its rows from the far end.
#[inline(always)]
pub(super) fn advancement(key: u64) -> u32 {
    let (us, them) = split(key);
    let mut a = 5 * them.count_ones();
    let mut r = 1;
    while r < 6 {
        a += r * (us & ROWS[r as usize]).count_ones();
        a -= r * (them & ROWS[r as usize]).count_ones();
        r += 1;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_by_table_turns_every_board() {
        for b in 0..=FULL {
            assert_eq!(turn_board(b), b.reverse_bits() >> 14, "{b:#x}");
        }
    }

    #[test]
    fn a_key_splits_into_the_men_it_joins() {
        let (us, them) = (0b101_000_011, 0b11 << 15);
        let key = join(us, them);
        assert_eq!(split(key), (us, them));
        assert_eq!(men(key), 6);
        assert_ne!(join(0, 0), 0, "no key is 0 (the empty slot)");
        // White to move: the mirror image of Black to move, one key
        let start = Position::startpos(crate::board::Variant::Mini);
        assert_eq!(key_of(&start), key_of(&start.with_turn(Color::White)));
    }
}
