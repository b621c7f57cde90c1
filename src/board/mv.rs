//! Moves and move lists.

use super::{Bitboard, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// A move: the piece's square, every landing square in order, and the set of
/// captured pieces. Two capture paths that take the same pieces and land on the
/// same square are different `Move`s (they differ in `path`), see [`Move::same_effect`].
/// A forfeited turn in mini-checkers is [`Move::PASS`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    /// Number of landing squares (1 for a quiet move or single jump; 0 for a pass).
    len: u8,
    captured: Bitboard,
    /// Landing squares, 5 bits each, first landing in the low bits.
    path: u64,
}

/// Most landing squares a move can hold.
pub const MAX_PATH: usize = 12;

impl Move {
    /// The forfeited turn of mini-checkers (`pass`).
    pub const PASS: Move = Move {
        from: 0xff,
        to: 0xff,
        len: 0,
        captured: Bitboard::EMPTY,
        path: 0,
    };

    /// A quiet one-step move.
    #[inline]
    #[must_use]
    pub const fn quiet(from: Square, to: Square) -> Move {
        Move {
            from: from.index(),
            to: to.index(),
            len: 1,
            captured: Bitboard::EMPTY,
            path: to.index() as u64,
        }
    }

    /// A capture from its parts: `path` packs `len` landing squares, 5 bits each.
    #[inline]
    #[must_use]
    pub(crate) const fn capture_raw(from: u8, to: u8, len: u8, captured: u32, path: u64) -> Move {
        Move {
            from,
            to,
            len,
            captured: Bitboard(captured),
            path,
        }
    }

    /// Builds a capture from the start square and the landing squares; the captured
    /// set is the squares jumped over, computed by the caller's geometry.
    #[must_use]
    pub fn capture(from: Square, landings: &[Square], captured: Bitboard) -> Move {
        let mut path = 0u64;
        for (i, s) in landings.iter().enumerate().take(MAX_PATH) {
            path |= (s.index() as u64) << (5 * i);
        }
        let to = landings.last().copied().unwrap_or(from);
        Move {
            from: from.index(),
            to: to.index(),
            len: landings.len().min(MAX_PATH) as u8,
            captured,
            path,
        }
    }

    /// Whether this is the mini-checkers `pass`.
    #[inline]
    #[must_use]
    pub const fn is_pass(self) -> bool {
        self.len == 0
    }

    /// The start square (meaningless for a pass).
    #[inline]
    #[must_use]
    pub const fn from(self) -> Square {
        Square::new_unchecked(self.from & 31)
    }

    /// The final square (meaningless for a pass).
    #[inline]
    #[must_use]
    pub const fn to(self) -> Square {
        Square::new_unchecked(self.to & 31)
    }

    /// The captured pieces (empty for a quiet move).
    #[inline]
    #[must_use]
    pub const fn captured(self) -> Bitboard {
        self.captured
    }

    /// Whether the move captures.
    #[inline]
    #[must_use]
    pub const fn is_capture(self) -> bool {
        self.captured.0 != 0
    }

    /// Landing squares in order; the last is [`Move::to`].
    pub fn landings(self) -> impl Iterator<Item = Square> {
        (0..self.len as u64)
            .map(move |i| Square::new_unchecked(((self.path >> (5 * i)) & 31) as u8))
    }

    /// Whether two moves have the same effect on the board (same start, end and
    /// captured set), even if their capture paths differ.
    #[inline]
    #[must_use]
    pub const fn same_effect(self, other: Move) -> bool {
        self.from == other.from && self.to == other.to && self.captured.0 == other.captured.0
    }

    /// A compact key unique per legal move of a position up to [`Move::same_effect`]
    /// (used by the transposition table and killers).
    #[inline]
    #[must_use]
    pub const fn key(self) -> u64 {
        (self.from as u64) | ((self.to as u64) << 8) | ((self.captured.0 as u64) << 16)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pass() {
            return f.write_str("pass");
        }
        write!(f, "{}", self.from())?;
        let sep = if self.is_capture() { 'x' } else { '-' };
        for s in self.landings() {
            write!(f, "{sep}{s}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

/// Capacity of a [`MoveList`].
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves, kept on the stack.
pub struct MoveList {
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl Clone for MoveList {
    fn clone(&self) -> MoveList {
        let mut l = MoveList::new();
        for &m in self.iter() {
            l.push(m);
        }
        l
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline]
    #[must_use]
    pub fn new() -> MoveList {
        MoveList {
            // SAFETY: an array of `MaybeUninit` needs no initialisation.
            moves: unsafe { MaybeUninit::<[MaybeUninit<Move>; MAX_MOVES]>::uninit().assume_init() },
            len: 0,
        }
    }

    /// Appends a move (ignored past [`MAX_MOVES`], which no real position reaches).
    #[inline]
    pub fn push(&mut self, m: Move) {
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the moves for which `f` is true, in order.
    pub fn retain(&mut self, mut f: impl FnMut(&Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self[i];
            if f(&m) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }

    /// Removes moves with the same effect as an earlier one (duplicate capture paths).
    pub fn dedup_effects(&mut self) {
        // two paths with the same effect need a loop: at least four jumps
        if !self.iter().any(|m| m.len >= 4) {
            return;
        }
        let mut j = 0;
        for i in 0..self.len {
            let m = self[i];
            if !self[..j].iter().any(|k| k.same_effect(m)) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`/`retain`/`dedup_effects`
        // and `MaybeUninit<Move>` has the layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }
}

impl std::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        // SAFETY: as in `deref`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
