//! The network's feature set: which pieces on which squares turn which
//! inputs on, per *perspective* (Black's and White's): the perspective's
//! men and kings and the opponent's men and kings, by square, with the board
//! turned so that the perspective's men always move the same way
//! ([`INPUTS`] = 128); and the input bucket, which set of first-layer rows
//! a position's inputs select (by who has kings).

use crate::board::{Color, Position};

/// Inputs of one perspective: 4 kinds of piece on 32 squares.
pub const INPUTS: usize = 128;
/// Most pieces on an English board (twelve a side).
pub const MAX_PIECES: usize = 24;
/// Most sets of first-layer rows (input buckets) a network may have.
pub const MAX_INPUT_BUCKETS: usize = 3;

/// Which of `input_buckets` sets of first-layer rows computes the
/// accumulator of `boards`, by who has kings: with 1, always the one; with 2,
/// no kings (0) or some (1); with 3, no kings (0), kings of one side only (1),
/// kings of both sides (2). The same for both perspectives.
#[inline]
#[must_use]
pub fn input_bucket(boards: &Boards, input_buckets: usize) -> usize {
    let [_, black_kings, _, white_kings] = boards.0;
    let sides = usize::from(black_kings != 0) + usize::from(white_kings != 0);
    sides.min(input_buckets.saturating_sub(1))
}

/// The four piece boards a perspective sees, as stored in positions:
/// Black's men, Black's kings, White's men, White's kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Boards(pub [u32; 4]);

impl Boards {
    /// The piece boards of `pos`.
    #[inline]
    #[must_use]
    pub fn of(pos: &Position) -> Boards {
        Boards([
            pos.men(Color::Black).0,
            pos.kings_of(Color::Black).0,
            pos.men(Color::White).0,
            pos.kings_of(Color::White).0,
        ])
    }

    /// Pieces on the board.
    #[inline]
    #[must_use]
    pub fn pieces(&self) -> u32 {
        self.0.iter().map(|b| b.count_ones()).sum()
    }

    /// The pieces as one set of Black's input indices: bit `f` is input `f`
    /// in Black's view ([`input_index`]).
    #[inline]
    #[must_use]
    pub fn black_inputs(&self) -> u128 {
        let [a, b, c, d] = self.0.map(u128::from);
        a | b << 32 | c << 64 | d << 96
    }
}

/// The input index, in `perspective`'s view, of a piece of board `kind`
/// (as in [`Boards`]) on bit `bit` (square `bit + 1`).
#[inline]
#[must_use]
pub fn input_index(perspective: Color, kind: usize, bit: u32) -> usize {
    match perspective {
        // Black's men move towards higher squares already
        Color::Black => kind * 32 + bit as usize,
        // White's view: the board turned half a turn, the colours swapped
        Color::White => ((kind + 2) & 3) * 32 + (31 - bit) as usize,
    }
}

/// Calls `f` with the input index of every piece of `boards` in `perspective`'s view.
#[inline]
pub fn for_each_input(boards: &Boards, perspective: Color, mut f: impl FnMut(usize)) {
    for_each_member(boards.black_inputs(), |i| {
        f(input_index(perspective, i / 32, (i % 32) as u32));
    });
}

/// Calls `f` with every member of `set` (bit `i` is `i`), lowest first.
#[inline(always)]
pub fn for_each_member(mut set: u128, mut f: impl FnMut(usize)) {
    while set != 0 {
        f(set.trailing_zeros() as usize);
        set &= set - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Variant;

    #[test]
    fn input_buckets_follow_who_has_kings() {
        let of = |fen: &str| {
            Boards::of(&Position::from_fen(Variant::English, fen).expect("a valid FEN"))
        };
        let none = of("B:W21,22:B1,2");
        let black = of("B:W21,22:BK1,2");
        let white = of("W:WK21,22:B1,2");
        let both = of("B:WK21,22:BK1,2");
        for (boards, three, two) in [(none, 0, 0), (black, 1, 1), (white, 1, 1), (both, 2, 1)] {
            assert_eq!(input_bucket(&boards, 1), 0);
            assert_eq!(input_bucket(&boards, 2), two);
            assert_eq!(input_bucket(&boards, 3), three);
        }
    }

    #[test]
    fn each_perspective_sees_its_own_men_as_the_first_kind() {
        let p = Position::from_fen(Variant::English, "B:W32,K20:B1,K5").unwrap();
        let b = Boards::of(&p);
        let mut black = Vec::new();
        for_each_input(&b, Color::Black, |i| black.push(i));
        black.sort_unstable();
        // Black man on 1 (bit 0), Black king on 5, White king on 20, White man on 32
        assert_eq!(black, vec![0, 32 + 4, 64 + 31, 96 + 19]);
        // the same inputs as one set
        let set = b.black_inputs();
        assert_eq!(set.count_ones(), 4);
        assert!(black.iter().all(|&f| set >> f & 1 == 1));
        let mut white = Vec::new();
        for_each_input(&b, Color::White, |i| white.push(i));
        white.sort_unstable();
        // White's man on 32 is its own man on the turned square 1
        assert_eq!(white, vec![0, 32 + 12, 64 + 31, 96 + 27]);
    }
}
