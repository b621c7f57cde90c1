//! `GameValue`: win, draw or loss for the side to move, and plies to the end.

use std::cmp::Ordering;
use std::fmt;

/// Who wins with best play, from the point of view of the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ValueKind {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl ValueKind {
    /// The lower-case word: `win`, `draw` or `loss`.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            ValueKind::Win => "win",
            ValueKind::Draw => "draw",
            ValueKind::Loss => "loss",
        }
    }
}

/// The exact value of a mini-checkers position for the side to move: the
/// result with best play and the number of plies (a `pass` is a ply) until
/// the game ends.
///
/// With best play the winner ends the game as soon as it can and the loser
/// makes it last as long as it can. A draw's `plies` is a convention: the
/// length of the shortest line to the end in which neither side ever plays a
/// move that gives up the draw (both sides prefer the shorter draw).
///
/// The order is "better for the side to move": a win sooner > a win later >
/// a shorter draw > a longer draw > a loss later > a loss sooner. So the value
/// of a position is the greatest of its moves' values.
///
/// Displays as `win 17`, `draw 30`, `loss 12`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GameValue {
    /// The result for the side to move.
    pub kind: ValueKind,
    /// Plies to the end of the game with best play.
    pub plies: u32,
}

impl GameValue {
    /// The side to move wins in `plies` plies.
    #[must_use]
    pub const fn win(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Win,
            plies,
        }
    }

    /// A draw, the game ending in `plies` plies.
    #[must_use]
    pub const fn draw(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Draw,
            plies,
        }
    }

    /// The side to move loses in `plies` plies.
    #[must_use]
    pub const fn loss(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Loss,
            plies,
        }
    }

    /// The same value seen by the other side (win and loss swap, plies stay).
    #[must_use]
    pub const fn flipped(self) -> GameValue {
        let kind = match self.kind {
            ValueKind::Win => ValueKind::Loss,
            ValueKind::Draw => ValueKind::Draw,
            ValueKind::Loss => ValueKind::Win,
        };
        GameValue {
            kind,
            plies: self.plies,
        }
    }

    /// The value of a move for the side that plays it, given `self`, the value
    /// of the position after the move (from the opponent's point of view).
    #[must_use]
    pub const fn before_move(self) -> GameValue {
        let v = self.flipped();
        GameValue {
            kind: v.kind,
            plies: v.plies + 1,
        }
    }

    /// The value of a finished game with `ours` pieces for the side to move and
    /// `theirs` for the other: more pieces wins, equal is a draw, 0 plies.
    #[must_use]
    pub const fn finished(ours: u32, theirs: u32) -> GameValue {
        if ours > theirs {
            GameValue::win(0)
        } else if ours < theirs {
            GameValue::loss(0)
        } else {
            GameValue::draw(0)
        }
    }

    /// Whether the side to move wins.
    #[must_use]
    pub const fn is_win(self) -> bool {
        matches!(self.kind, ValueKind::Win)
    }

    /// Whether the game is drawn.
    #[must_use]
    pub const fn is_draw(self) -> bool {
        matches!(self.kind, ValueKind::Draw)
    }

    /// Whether the side to move loses.
    #[must_use]
    pub const fn is_loss(self) -> bool {
        matches!(self.kind, ValueKind::Loss)
    }

    /// Packs into 16 bits for the tables (kind in the top two bits, never 0).
    pub(super) const fn pack(self) -> u16 {
        let k = match self.kind {
            ValueKind::Loss => 1u16,
            ValueKind::Draw => 2,
            ValueKind::Win => 3,
        };
        (k << 14) | (self.plies as u16 & 0x3fff)
    }

    pub(super) const fn unpack(p: u16) -> GameValue {
        let plies = (p & 0x3fff) as u32;
        match p >> 14 {
            3 => GameValue::win(plies),
            2 => GameValue::draw(plies),
            _ => GameValue::loss(plies),
        }
    }
}

/// [`GameValue::before_move`] on a packed value: win and loss swap (kinds 3
/// and 1), a draw (2) stays, one ply more.
#[inline(always)]
pub(super) fn packed_before_move(p: u16) -> u16 {
    ((4 - (p >> 14)) << 14) | ((p & 0x3fff) + 1)
}

/// A number that orders packed values as [`GameValue`] orders them: by kind
/// (loss 1 < draw 2 < win 3), then sooner wins and draws, later losses.
#[inline(always)]
pub(super) fn packed_order(p: u16) -> u16 {
    let plies = p & 0x3fff;
    (p & 0xc000) | if p >> 14 == 1 { plies } else { 0x3fff - plies }
}

impl Ord for GameValue {
    fn cmp(&self, other: &GameValue) -> Ordering {
        use ValueKind::{Draw, Loss, Win};
        let rank = |k: ValueKind| match k {
            Loss => 0,
            Draw => 1,
            Win => 2,
        };
        match (self.kind, other.kind) {
            (Win, Win) | (Draw, Draw) => other.plies.cmp(&self.plies),
            (Loss, Loss) => self.plies.cmp(&other.plies),
            (a, b) => rank(a).cmp(&rank(b)),
        }
    }
}

impl PartialOrd for GameValue {
    fn partial_cmp(&self, other: &GameValue) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for GameValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.word(), self.plies)
    }
}

#[cfg(test)]
mod packed_tests {
    use super::*;

    fn all_values() -> Vec<GameValue> {
        (0..200)
            .flat_map(|p| [GameValue::win(p), GameValue::draw(p), GameValue::loss(p)])
            .collect()
    }

    /// The build's arithmetic on packed values is GameValue's own.
    #[test]
    fn packed_values_move_and_order_as_game_values_do() {
        let all = all_values();
        for &v in &all {
            assert_eq!(GameValue::unpack(v.pack()), v);
            assert_eq!(
                GameValue::unpack(packed_before_move(v.pack())),
                v.before_move(),
                "{v}"
            );
            for &w in &all {
                assert_eq!(
                    packed_order(v.pack()).cmp(&packed_order(w.pack())),
                    v.cmp(&w),
                    "{v} against {w}"
                );
            }
        }
    }
}
