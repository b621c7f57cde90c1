//! Mini-checkers moves made directly on table keys, for the layered build.
//!
//! A key holds the men of the side to move and of the other side, both seen
//! from the mover's side of the board (see [`key`](super::key)), so
//! the mover always moves "down" (towards higher squares) and only one colour's
//! moves ever need generating. A child key is folded the same way: the
//! opponent becomes the mover and the board is turned half a turn.
//!
//! Two numbers order the game: the men on the board, which only captures
//! lower, and the advancement (rows each man has come from its own first row,
//! summed over both sides), which a regular move raises by one and a pass
//! keeps. Both are the same for a key and its mirror image.
//!
//! Each child comes with its index in its material class (see
//! [`index`](super::index)), found from the parent's without ranking the
//! child afresh; a [`Mover`] keeps what positions with the same men for the
//! side not moving share.

use super::index::{block, class_number, rank, Packing};
use super::key::{join, split, turn_board, FULL};
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

/// Most children a position with at most 18 men can have.
pub(super) const MAX_KEY_CHILDREN: usize = 36;

/// The children of a position: their keys, their class (the same for all
/// of them: the moves are all captures or all regular moves) and their
/// indices in it (see [`index`](super::index)), and for each the row (1-4,
/// seen from the mover) of the man it captured, or 0 for a regular move.
pub(super) struct Out {
    pub(super) keys: [u64; MAX_KEY_CHILDREN],
    pub(super) class: usize,
    pub(super) index: [u32; MAX_KEY_CHILDREN],
    pub(super) taken_row: [u8; MAX_KEY_CHILDREN],
}

impl Out {
    pub(super) fn new() -> Out {
        Out {
            keys: [0; MAX_KEY_CHILDREN],
            class: 0,
            index: [0; MAX_KEY_CHILDREN],
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

/// The men of `men` that can step down-left (bits 0-17) and down-right
/// (bits 18-35) onto `empty`, one bit per move.
#[inline(always)]
fn step_moves(men: u32, empty: u32) -> u64 {
    let [(l0, _), (r0, _), (l1, _), (r1, _)] = steppers(men, empty);
    u64::from(l0 | l1) | u64::from(r0 | r1) << 18
}

/// The men of `men` that can jump down-left (bits 0-17) and down-right
/// (bits 18-35) over one of `them` onto `empty`, one bit per move.
#[inline(always)]
fn jump_moves(men: u32, them: u32, empty: u32) -> u64 {
    let [(l0, ..), (l1, ..), (r0, ..), (r1, ..)] = jumpers(men, them, empty);
    u64::from(l0 | l1) | u64::from(r0 | r1) << 18
}

/// A move of [`step_moves`] or [`jump_moves`] by its bit: the squares the man
/// leaves and reaches and the square of the man it takes (0 for a step),
/// all on the board turned for the child, and the row (seen from the mover)
/// of the man taken.
#[derive(Clone, Copy)]
struct MoveBits {
    from: u32,
    to: u32,
    taken: u32,
    /// The squares (0-17) of `from`, `to` and `taken`.
    from_square: u8,
    to_square: u8,
    taken_square: u8,
    taken_row: u8,
}

/// [`MoveBits`] of the 36 step bits and the 36 jump bits.
static STEPS: [MoveBits; 36] = move_bits(false);
static JUMPS: [MoveBits; 36] = move_bits(true);

/// The bit of square `sq` on the board turned half a turn.
const fn turned(sq: usize) -> u32 {
    1 << (17 - sq)
}

const fn move_bits(jump: bool) -> [MoveBits; 36] {
    let mut t = [MoveBits {
        from: 0,
        to: 0,
        taken: 0,
        from_square: 0,
        to_square: 0,
        taken_square: 0,
        taken_row: 0,
    }; 36];
    let mut bit = 0;
    while bit < 36 {
        let (from, right) = (bit % 18, bit >= 18);
        let even = (from / 3) % 2 == 0;
        // the step in each direction from each parity of row; a jump is two
        let step = match (even, right) {
            (true, false) => 3,
            (true, true) => 4,
            (false, false) => 2,
            (false, true) => 3,
        };
        let to = from
            + if jump {
                if right {
                    7
                } else {
                    5
                }
            } else {
                step
            };
        if to < 18 {
            t[bit] = MoveBits {
                from: turned(from),
                to: turned(to),
                taken: if jump { turned(from + step) } else { 0 },
                from_square: (17 - from) as u8,
                to_square: (17 - to) as u8,
                taken_square: if jump { (17 - from - step) as u8 } else { 0 },
                taken_row: if jump { ((from + step) / 3) as u8 } else { 0 },
            };
        }
        bit += 1;
    }
    t
}

/// Finds the children of positions one after another, keeping what the
/// next position shares with the last when the side not moving has the
/// same men and the mover as many (the build's lists are sorted by the men
/// of the side not moving, about 27 positions share them).
///
/// A child's index is found from the packed form of our men among the
/// squares not the opponent's (see [`index`](super::index)), computed once
/// per position: a move flips two of its bits, and a capture also frees the
/// square of the man taken, which inserts a bit.
pub(super) struct Mover {
    /// The men of the side not moving, and the number of the mover's men,
    /// that the rest is for (no men at all: nothing yet).
    them: u32,
    ours: u32,
    turned_them: u32,
    /// The squares the child's other side may be on (not the child's mover's).
    free: u32,
    /// For each square of the turned board, the squares of `free` below it.
    places: [u8; 18],
    /// `free`, ready to pack our men onto.
    packing: Packing,
    /// The squares a man of ours can jump from down-left and down-right,
    /// as far as the men of the side not moving say (one to take).
    jump_left: u32,
    jump_right: u32,
    /// The class of the children by steps, and the index of the first
    /// position of the block they lie in (the child's mover's men fixed).
    step_class: usize,
    step_base: u32,
    /// The class of the children by captures, and the size of each block
    /// of it (the child's mover's men differ by the man taken).
    jump_class: usize,
    jump_size: u32,
}

impl Mover {
    /// A mover that shares nothing yet.
    pub(super) fn new() -> Mover {
        Mover {
            them: 0,
            ours: 0,
            turned_them: 0,
            free: 0,
            places: [0; 18],
            packing: Packing::new(0),
            jump_left: 0,
            jump_right: 0,
            step_class: 0,
            step_base: 0,
            jump_class: 0,
            jump_size: 0,
        }
    }

    /// Makes the shared part fit `us` against `them` (neither empty).
    #[inline(always)]
    fn share(&mut self, us: u32, them: u32) {
        let ours = us.count_ones();
        if them == self.them && ours == self.ours {
            return;
        }
        let (theirs, ours_n) = (them.count_ones() as usize, ours as usize);
        self.them = them;
        self.ours = ours;
        self.turned_them = turn_board(them);
        self.free = !self.turned_them & FULL;
        for (square, place) in self.places.iter_mut().enumerate() {
            *place = (self.free & ((1 << square) - 1)).count_ones() as u8;
        }
        self.packing = Packing::new(self.free);
        let [(left0, ..), (left1, ..), (right0, ..), (right1, ..)] = jumpers(FULL, them, FULL);
        (self.jump_left, self.jump_right) = (left0 | left1, right0 | right1);
        let (step_class, step_base, _) = step_block(join(us, them));
        (self.step_class, self.step_base) = (step_class, step_base as u32);
        self.jump_class = class_number(theirs - 1, ours_n);
        self.jump_size = block(theirs - 1, ours_n) as u32;
    }

    /// The children of the position with key `key`, written to `out`: their
    /// class and indices, and with `KEYS` their keys and the rows of the men
    /// taken.
    #[inline]
    pub(super) fn next<const KEYS: bool>(&mut self, key: u64, out: &mut Out) -> Next {
        let mut n = 0;
        self.visit::<KEYS>(key, |child| {
            out.class = child.class;
            out.index[n] = child.index;
            if KEYS {
                out.keys[n] = child.key;
                out.taken_row[n] = child.taken_row;
            }
            n += 1;
        })
    }

    /// The children of the position with key `key`, each handed to `child`
    /// as it is found (with `KEYS`, with its key and the row of the man
    /// taken; without, those are 0).
    #[inline(always)]
    pub(super) fn visit<const KEYS: bool>(&mut self, key: u64, child: impl FnMut(Child)) -> Next {
        let (us, them) = split(key);
        if us == 0 || them == 0 {
            return Next::Over;
        }
        self.share(us, them);
        match self.moves::<KEYS>(us, them, child) {
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

    /// The moves of the mover `us` against `them`, each child handed to
    /// `child`.
    #[inline(always)]
    fn moves<const KEYS: bool>(&self, us: u32, them: u32, mut child: impl FnMut(Child)) -> Next {
        let empty = !(us | them) & FULL;
        // the child: the opponent to move, the board turned, so square i is 17 - i
        let turned_us = turn_board(us);
        let packed = self.packing.compress(turned_us);
        let mut n = 0;
        // down-left jumps land 5 squares on, down-right ones 7
        let mut bits = u64::from(us & self.jump_left & (empty >> 5))
            | u64::from(us & self.jump_right & (empty >> 7)) << 18;
        debug_assert_eq!(bits, jump_moves(us, them, empty));
        if bits != 0 {
            while bits != 0 {
                let m = JUMPS[bits.trailing_zeros() as usize];
                bits &= bits - 1;
                let mover = self.turned_them ^ m.taken;
                // the square freed is inserted in the packed form, and counts
                // below the squares above it
                let at = u32::from(self.places[usize::from(m.taken_square)]);
                let place = |square: u8| {
                    u32::from(self.places[usize::from(square)]) + u32::from(m.taken_square < square)
                };
                let low = (1 << at) - 1;
                let p = (packed & low | (packed & !low) << 1)
                    ^ 1 << place(m.from_square)
                    ^ 1 << place(m.to_square);
                child(Child {
                    class: self.jump_class,
                    index: rank(mover) * self.jump_size + rank(p),
                    key: if KEYS {
                        join(mover, turned_us ^ m.from ^ m.to)
                    } else {
                        0
                    },
                    taken_row: if KEYS { m.taken_row } else { 0 },
                });
                n += 1;
            }
            return Next::Moves {
                count: n,
                captures: true,
            };
        }
        bits = step_moves(us, empty);
        if bits == 0 {
            return Next::Over;
        }
        while bits != 0 {
            let m = STEPS[bits.trailing_zeros() as usize];
            bits &= bits - 1;
            let place = |square: u8| u32::from(self.places[usize::from(square)]);
            child(Child {
                class: self.step_class,
                index: self.step_base
                    + rank(packed ^ 1 << place(m.from_square) ^ 1 << place(m.to_square)),
                key: if KEYS {
                    join(self.turned_them, turned_us ^ m.from ^ m.to)
                } else {
                    0
                },
                taken_row: 0,
            });
            n += 1;
        }
        Next::Moves {
            count: n,
            captures: false,
        }
    }
}

/// A child found by [`Mover::visit`]: its class and index in it, its key,
/// and the row (1-4, seen from the mover) of the man taken, or 0 for a
/// regular move.
#[derive(Clone, Copy)]
pub(super) struct Child {
    pub(super) class: usize,
    pub(super) index: u32,
    pub(super) key: u64,
    pub(super) taken_row: u8,
}

/// Where the children of the position with key `key` by regular moves lie:
/// their class and the first index and length of the block of it that holds
/// them all (the child's mover's men are the men of the side not moving).
#[inline(always)]
pub(super) fn step_block(key: u64) -> (usize, usize, usize) {
    let (us, them) = split(key);
    let (theirs, ours) = (them.count_ones() as usize, us.count_ones() as usize);
    let len = block(theirs, ours);
    (
        class_number(theirs, ours),
        rank(turn_board(them)) as usize * len,
        len,
    )
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
pub(super) fn next(key: u64, out: &mut Out) -> Next {
    Mover::new().next::<true>(key, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mover_reused_finds_what_a_fresh_one_does() {
        // runs of keys with the same men for the side not moving, and with
        // as many men for the mover or not, as in the build's lists
        let mut x = 3u64;
        let mut random = move || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x >> 20
        };
        let mut mover = Mover::new();
        let (mut reused, mut fresh) = (Out::new(), Out::new());
        let mut moves = 0;
        for _ in 0..2_000 {
            let them = (random() as u32) & (random() as u32) & FULL;
            for _ in 0..8 {
                let us = (random() as u32) & (random() as u32) & !them & FULL;
                let key = join(us, them);
                let got = mover.next::<true>(key, &mut reused);
                assert_eq!(got, next(key, &mut fresh), "{key:#x}");
                if let Next::Moves { count, .. } = got {
                    assert_eq!(reused.class, fresh.class, "{key:#x}");
                    assert_eq!(reused.keys[..count], fresh.keys[..count], "{key:#x}");
                    assert_eq!(reused.index[..count], fresh.index[..count], "{key:#x}");
                    assert_eq!(
                        reused.taken_row[..count],
                        fresh.taken_row[..count],
                        "{key:#x}"
                    );
                    // regular moves' children lie in the block the position says
                    if let Next::Moves {
                        captures: false, ..
                    } = got
                    {
                        let (class, base, len) = step_block(key);
                        assert_eq!(fresh.class, class, "{key:#x}");
                        assert!(
                            fresh.index[..count]
                                .iter()
                                .all(|&i| (base..base + len).contains(&(i as usize))),
                            "{key:#x}"
                        );
                    }
                    // and without the keys, the same children
                    let mut bare = Out::new();
                    assert_eq!(mover.next::<false>(key, &mut bare), got);
                    assert_eq!(bare.index[..count], fresh.index[..count], "{key:#x}");
                    moves += 1;
                }
            }
        }
        assert!(moves > 5_000, "{moves}");
    }
}
