//! Mini-checkers moves made directly on table keys, for the layered build.
//!
//! A key holds the men of the side to move and of the other side, both seen
//! from the mover's side of the board (see [`key_of`](super::memo::key_of)), so
//! the mover always moves "down" (towards higher squares) and only one colour's
//! moves ever need generating. A child key is folded the same way: the
//! opponent becomes the mover and the board is turned half a turn.
//!
//! Two numbers order the game: the men on the board, which only captures
//! lower, and the advancement (rows each man has come from its own first row,
//! summed over both sides), which a regular move raises by one and a pass
//! keeps. Both are the same for a key and its mirror image.

use super::memo::turn_board;

/// The board's 18 squares.
const FULL: u32 = (1 << 18) - 1;
/// Rows 0, 2 and 4 (a man there steps to `+3` and `+4`), and rows 1 and 3
/// (steps to `+2` and `+3`; row 5 can't move).
const EVEN_ROWS: u32 = 0b111 | 0b111 << 6 | 0b111 << 12;
const ODD_ROWS: u32 = 0b111 << 3 | 0b111 << 9;
/// The first and the last square of each row.
const FIRST: u32 = 0b001_001_001_001_001_001;
const LAST: u32 = 0b100_100_100_100_100_100;
/// Rows 0-3, where a jump (two rows down) can start.
const JUMP_ROWS: u32 = (1 << 12) - 1;

/// Men of `men` that can step down-left / down-right onto `empty`: the
/// origins, and the distance to add for each parity of row.
#[inline(always)]
fn steppers(men: u32, empty: u32) -> [(u32, u32); 4] {
    [
        // even rows: down-left is +3, down-right +4 (not from the last square)
        (men & EVEN_ROWS & (empty >> 3), 3),
        (men & EVEN_ROWS & !LAST & (empty >> 4), 4),
        // odd rows: down-left +2 (not from the first square), down-right +3
        (men & ODD_ROWS & !FIRST & (empty >> 2), 2),
        (men & ODD_ROWS & (empty >> 3), 3),
    ]
}

/// Men of `men` that can jump over one of `them` onto `empty`: the origins,
/// the distance to the man jumped and the distance to the landing square.
#[inline(always)]
fn jumpers(men: u32, them: u32, empty: u32) -> [(u32, u32, u32); 4] {
    let men = men & JUMP_ROWS;
    [
        // down-left lands on +5, down-right on +7
        (men & EVEN_ROWS & !FIRST & (them >> 3) & (empty >> 5), 3, 5),
        (men & ODD_ROWS & !FIRST & (them >> 2) & (empty >> 5), 2, 5),
        (men & EVEN_ROWS & !LAST & (them >> 4) & (empty >> 7), 4, 7),
        (men & ODD_ROWS & !LAST & (them >> 3) & (empty >> 7), 3, 7),
    ]
}

/// The marker bit every key carries, so that no key is 0.
const MARKER: u64 = 1 << 37;

/// The mover's men and the other side's men of a key.
#[inline(always)]
pub(super) fn split(key: u64) -> (u32, u32) {
    ((key & 0x3_ffff) as u32, ((key >> 18) & 0x3_ffff) as u32)
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

/// Most children a position with at most 18 men can have.
pub(super) const MAX_KEY_CHILDREN: usize = 36;

/// The child keys of a position, and for each the row (1-4, seen from the
/// mover) of the man it captured, or 0 for a regular move.
pub(super) struct Out {
    pub(super) keys: [u64; MAX_KEY_CHILDREN],
    pub(super) taken_row: [u8; MAX_KEY_CHILDREN],
}

impl Out {
    pub(super) fn new() -> Out {
        Out {
            keys: [0; MAX_KEY_CHILDREN],
            taken_row: [0; MAX_KEY_CHILDREN],
        }
    }
}

/// What a position leads to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Next {
    /// This many moves, whose children were written (all captures or all
    /// regular moves: captures are compulsory).
    Moves { count: usize, captures: bool },
    /// No move, but the opponent has one: the turn passes to this key.
    Pass(u64),
    /// The game is over.
    Over,
}

/// The moves of the mover `us` against `them`, as child keys in `out`.
#[inline]
fn moves(us: u32, them: u32, out: &mut Out) -> Next {
    let empty = !(us | them) & FULL;
    // the child: the opponent to move, the board turned, so square i is 17 - i
    let (turned_us, turned_them) = (turn_board(us), turn_board(them));
    let mut n = 0;
    for (mut from, over, to) in jumpers(us, them, empty) {
        while from != 0 {
            let i = from.trailing_zeros();
            from &= from - 1;
            let moved = (1 << (17 - i)) | (1 << (17 - i - to));
            out.keys[n] = join(turned_them ^ (1 << (17 - i - over)), turned_us ^ moved);
            out.taken_row[n] = ((i + over) / 3) as u8;
            n += 1;
        }
    }
    if n > 0 {
        return Next::Moves {
            count: n,
            captures: true,
        };
    }
    for (mut from, to) in steppers(us, empty) {
        while from != 0 {
            let i = from.trailing_zeros();
            from &= from - 1;
            out.keys[n] = join(
                turned_them,
                turned_us ^ (1 << (17 - i)) ^ (1 << (17 - i - to)),
            );
            out.taken_row[n] = 0;
            n += 1;
        }
    }
    if n > 0 {
        Next::Moves {
            count: n,
            captures: false,
        }
    } else {
        Next::Over
    }
}

/// Whether the mover `us` has any move against `them`.
#[inline]
fn can_move(us: u32, them: u32) -> bool {
    let empty = !(us | them) & FULL;
    steppers(us, empty).iter().any(|&(from, _)| from != 0)
        || jumpers(us, them, empty)
            .iter()
            .any(|&(from, _, _)| from != 0)
}

/// The children of the position with key `key`, written to `out`.
#[inline]
pub(super) fn next(key: u64, out: &mut Out) -> Next {
    let (us, them) = split(key);
    if us == 0 || them == 0 {
        return Next::Over;
    }
    match moves(us, them, out) {
        Next::Over => {
            let (us2, them2) = (turn_board(them), turn_board(us));
            if can_move(us2, them2) {
                Next::Pass(join(us2, them2))
            } else {
                Next::Over
            }
        }
        found => found,
    }
}
