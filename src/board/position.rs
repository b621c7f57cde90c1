//! A position: the pieces, the side to move, and its Zobrist key.

use super::variant::crown_row;
use super::zobrist::{self, piece_key, set_key};
use super::{Bitboard, ByColor, Color, Move, MoveList, Piece, Role, Rules, Square, Variant};
use crate::with_rules;
use std::fmt;

/// A board position of either variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    variant: Variant,
    pieces: ByColor<Bitboard>,
    kings: Bitboard,
    turn: Color,
    hash: u64,
}

/// How a finished game ended, seen from the position where it ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Outcome {
    /// This side won.
    Win(Color),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The PDN result string from Black's point of view first (`2-0`, `0-2`, `1-1`),
    /// as English PDN writes it.
    #[must_use]
    pub const fn pdn(self) -> &'static str {
        match self {
            Outcome::Win(Color::Black) => "2-0",
            Outcome::Win(Color::White) => "0-2",
            Outcome::Draw => "1-1",
        }
    }
}

impl Position {
    /// The standard start position of `variant` (Black to move).
    #[must_use]
    pub fn startpos(variant: Variant) -> Position {
        let (black, white) = match variant {
            Variant::English => (0x0000_0fff, 0xfff0_0000),
            Variant::Mini => (0b111_111, 0b111_111 << 12),
        };
        Position::from_parts(
            variant,
            Bitboard(black),
            Bitboard(white),
            Bitboard::EMPTY,
            Color::Black,
        )
    }

    /// A position from its parts (no validation; see [`Position::validate`]).
    #[must_use]
    pub fn from_parts(
        variant: Variant,
        black: Bitboard,
        white: Bitboard,
        kings: Bitboard,
        turn: Color,
    ) -> Position {
        let mut p = Position {
            variant,
            pieces: ByColor { black, white },
            kings,
            turn,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    /// The Zobrist key computed from scratch.
    #[must_use]
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in Color::ALL {
            h ^= set_key(c, Role::Man, (self.pieces[c] & !self.kings).0);
            h ^= set_key(c, Role::King, (self.pieces[c] & self.kings).0);
        }
        if self.turn == Color::White {
            h ^= zobrist::WHITE_TO_MOVE;
        }
        h
    }

    /// The variant this position belongs to.
    #[inline]
    #[must_use]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The side to move.
    #[inline]
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The pieces of `color`.
    #[inline]
    #[must_use]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.pieces[color]
    }

    /// All kings of both colours.
    #[inline]
    #[must_use]
    pub const fn kings(&self) -> Bitboard {
        self.kings
    }

    /// Whether `m` (a move of this position) is irreversible: a capture, a
    /// man's move or a pass (mini: after a pass the other side must move, and
    /// every mini move is a man's), the moves that reset the count of quiet
    /// moves and end a distance to conversion.
    #[inline]
    #[must_use]
    pub fn is_irreversible(&self, m: Move) -> bool {
        m.is_capture() || m.is_pass() || !self.kings.contains(m.from())
    }

    /// The men of `color`.
    #[inline]
    #[must_use]
    pub fn men(&self, color: Color) -> Bitboard {
        self.pieces[color] & !self.kings
    }

    /// The kings of `color`.
    #[inline]
    #[must_use]
    pub fn kings_of(&self, color: Color) -> Bitboard {
        self.pieces[color] & self.kings
    }

    /// Every occupied square.
    #[inline]
    #[must_use]
    pub fn occupied(&self) -> Bitboard {
        self.pieces.black | self.pieces.white
    }

    /// The Zobrist key, maintained incrementally.
    #[inline]
    #[must_use]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.pieces.black.contains(sq) {
            Color::Black
        } else if self.pieces.white.contains(sq) {
            Color::White
        } else {
            return None;
        };
        let role = if self.kings.contains(sq) {
            Role::King
        } else {
            Role::Man
        };
        Some(Piece { color, role })
    }

    /// The same pieces with `turn` to move.
    #[must_use]
    pub fn with_turn(&self, turn: Color) -> Position {
        let mut p = *self;
        if p.turn != turn {
            p.turn = turn;
            p.hash ^= zobrist::WHITE_TO_MOVE;
        }
        p
    }

    /// The position before the side that just moved stepped a king from
    /// `from` to `to` (a retro-move, as a database builder walks back): that
    /// side's king on `to` goes back to the empty square `from`, and it is
    /// that side's turn again.
    #[must_use]
    pub fn before_king_step(&self, from: Square, to: Square) -> Position {
        let them = !self.turn;
        let (f, t) = (1u32 << from.index(), 1u32 << to.index());
        debug_assert!(self.pieces[them].0 & self.kings.0 & t != 0);
        debug_assert!(self.occupied().0 & f == 0);
        let mut p = *self;
        p.pieces[them].0 ^= f | t;
        p.kings.0 ^= f | t;
        p.turn = them;
        p.hash ^= zobrist::WHITE_TO_MOVE
            ^ piece_key(them, Role::King, from.index())
            ^ piece_key(them, Role::King, to.index());
        p
    }

    /// Legal moves as a player sees them: captures if any, duplicate capture paths
    /// (same start, end and captured set) merged into one.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// [`Position::legal_moves`] into `list` (cleared first): no list is
    /// returned, so none is copied (a list is a few KB).
    #[inline]
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        self.legal_moves_all_paths_into(list);
        if self.variant == Variant::English {
            list.dedup_effects();
        }
    }

    /// Legal moves with every capture path listed (perft's convention).
    #[must_use]
    pub fn legal_moves_all_paths(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_all_paths_into(&mut list);
        list
    }

    /// Whether `m` is one of the legal moves (up to capture path).
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves_all_paths().contains(&m)
    }

    /// The result if the game is over in this position by the rules of its variant
    /// (repetition and move-count draws are the [`super::Game`]'s business).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.variant {
            Variant::English => {
                if self.legal_moves_all_paths().is_empty() {
                    Some(Outcome::Win(!self.turn))
                } else {
                    None
                }
            }
            Variant::Mini => {
                let (b, w) = (self.pieces.black.count(), self.pieces.white.count());
                if b == 0 || w == 0 || self.legal_moves_all_paths().is_empty() {
                    Some(match b.cmp(&w) {
                        std::cmp::Ordering::Greater => Outcome::Win(Color::Black),
                        std::cmp::Ordering::Less => Outcome::Win(Color::White),
                        std::cmp::Ordering::Equal => Outcome::Draw,
                    })
                } else {
                    None
                }
            }
        }
    }

    /// Plays `m`, assumed legal here; keeps the hash up to date.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        with_rules!(self.variant, R => self.apply::<R, true>(m));
    }

    /// The position after `m`, assumed legal.
    #[inline]
    #[must_use]
    pub fn after(&self, m: Move) -> Position {
        let mut p = *self;
        p.play_unchecked(m);
        p
    }

    /// Moves a piece of the side to move from `from` to `to` (bits), removing the
    /// `captured` pieces (none for a quiet move) and crowning a man that ends on
    /// its last row; the key is left stale (perft only). `from` may equal `to`
    /// (a king's capture loop).
    #[inline(always)]
    pub(crate) fn play_unhashed<R: Rules>(&mut self, from: u32, to: u32, captured: u32) {
        let us = self.turn;
        self.turn = !us;
        self.pieces[!us].0 &= !captured;
        self.pieces[us].0 = (self.pieces[us].0 & !from) | to;
        let kings = self.kings.0 & !captured;
        self.kings.0 = if kings & from != 0 {
            (kings & !from) | to
        } else if R::KINGS_AND_MULTI_JUMPS && to & crown_row::<R>(us) != 0 {
            kings | to
        } else {
            kings
        };
    }

    /// Plays `m` with rules `R` (must match the variant). With `HASH` false the
    /// key is left stale (perft only).
    #[inline(always)]
    pub(crate) fn apply<R: Rules, const HASH: bool>(&mut self, m: Move) {
        let us = self.turn;
        self.turn = !us;
        if HASH {
            self.hash ^= zobrist::WHITE_TO_MOVE;
        }
        if m.is_pass() {
            return;
        }
        let from = 1u32 << m.from().index();
        let to = 1u32 << m.to().index();
        let was_king = self.kings.0 & from != 0;
        let own = &mut self.pieces[us].0;
        *own = (*own & !from) | to;
        let cap = m.captured().0;
        let crowned = R::KINGS_AND_MULTI_JUMPS && !was_king && to & crown_row::<R>(us) != 0;
        if HASH {
            let role = if was_king { Role::King } else { Role::Man };
            self.hash ^= piece_key(us, role, m.from().index());
            let new_role = if was_king || crowned {
                Role::King
            } else {
                Role::Man
            };
            self.hash ^= piece_key(us, new_role, m.to().index());
            if cap != 0 {
                self.hash ^= set_key(!us, Role::King, cap & self.kings.0);
                self.hash ^= set_key(!us, Role::Man, cap & !self.kings.0);
            }
        }
        if cap != 0 {
            self.pieces[!us].0 &= !cap;
        }
        if was_king {
            self.kings.0 = (self.kings.0 & !from & !cap) | to;
        } else {
            self.kings.0 &= !cap;
            if crowned {
                self.kings.0 |= to;
            }
        }
    }

    /// Checks the invariants a FEN or hand-made position must satisfy.
    pub fn validate(&self) -> Result<(), &'static str> {
        // Computed in u64: `(1 << 32) as u32 - 1` overflows (a panic in debug builds).
        let all = Bitboard(((1u64 << self.variant.squares()) - 1) as u32);
        if (self.pieces.black & self.pieces.white).any() {
            return Err("a square holds pieces of both colours");
        }
        if ((self.pieces.black | self.pieces.white) & !all).any() {
            return Err("a piece is off the board");
        }
        if (self.kings & !(self.pieces.black | self.pieces.white)).any() {
            return Err("a king on an empty square");
        }
        match self.variant {
            Variant::Mini => {
                if self.kings.any() {
                    return Err("mini-checkers has no kings");
                }
            }
            Variant::English => {
                let bottom = with_rules!(self.variant, R => R::BOTTOM);
                let top = with_rules!(self.variant, R => R::TOP);
                if (self.men(Color::Black).0 & bottom) != 0 {
                    return Err("a black man on black's crowning row (29-32) must be a king");
                }
                if (self.men(Color::White).0 & top) != 0 {
                    return Err("a white man on white's crowning row (1-4) must be a king");
                }
                if self.pieces.black.count() > 12 || self.pieces.white.count() > 12 {
                    return Err("more than 12 pieces of one colour");
                }
            }
        }
        Ok(())
    }

    /// An ASCII diagram with square numbers, for people.
    #[must_use]
    pub fn diagram(&self) -> String {
        let n = self.variant.size();
        let mut s = String::new();
        let border = format!("  +{}+\n", "-".repeat(n as usize * 4 - 1));
        s.push_str(&border);
        for row in 0..n {
            s.push_str("  |");
            for col in 0..n {
                let cell = match self.variant.index_at(row, col) {
                    None => "   ".to_string(),
                    Some(i) => {
                        let sq = Square::new_unchecked(i);
                        match self.piece_at(sq) {
                            Some(p) => format!(" {} ", p.symbol()),
                            None => format!("{:>3}", sq.number()),
                        }
                    }
                };
                s.push_str(&cell);
                s.push(if col + 1 < n { ' ' } else { '|' });
            }
            s.push('\n');
        }
        s.push_str(&border);
        s
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.variant, self)
    }
}
