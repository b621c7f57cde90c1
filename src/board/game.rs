//! A game: a start position and the moves played, with undo, repetition and the
//! 40-move rule.

use super::{Move, Outcome, ParseMoveError, Position, Variant};
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EndReason {
    /// The side to move has no legal move (English: it loses).
    NoMoves,
    /// A side has no pieces left (mini).
    NoPieces,
    /// Neither side can move (mini): more pieces wins.
    Blocked,
    /// The same position with the same side to move occurred three times.
    Repetition,
    /// 40 moves by each side without a capture or a man move (English).
    FortyMoves,
}

/// A finished game's result and the reason.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct GameEnd {
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why the game ended.
    pub reason: EndReason,
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Win(c) => write!(f, "{c} wins")?,
            Outcome::Draw => write!(f, "draw")?,
        }
        let why = match self.reason {
            EndReason::NoMoves => "the side to move has no legal move",
            EndReason::NoPieces => "a side has no pieces left",
            EndReason::Blocked => "neither side can move; more pieces wins",
            EndReason::Repetition => "threefold repetition",
            EndReason::FortyMoves => "40 moves each without a capture or man move",
        };
        write!(f, " ({why})")
    }
}

/// Plies without a capture or a man move after which the game is drawn (English).
pub const FORTY_MOVE_PLIES: u32 = 80;

/// A game record.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start; `positions[i]` follows `moves[i - 1]`.
    positions: Vec<Position>,
    moves: Vec<Move>,
    /// Plies since the last capture or man move, per position.
    quiet: Vec<u32>,
}

impl Game {
    /// A new game from the standard start of `variant`.
    #[must_use]
    pub fn new(variant: Variant) -> Game {
        Game::from_position(Position::startpos(variant))
    }

    /// A new game from `start`.
    #[must_use]
    pub fn from_position(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            quiet: vec![0],
        }
    }

    /// The variant being played.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.positions[0].variant()
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.positions.last().expect("never empty")
    }

    /// Every position so far, the start first and the current last.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The moves played.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plies since the last capture or man move.
    #[must_use]
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet.last().expect("never empty")
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) -> Result<(), ParseMoveError> {
        if !self.position().is_legal(m) {
            return Err(ParseMoveError::Illegal {
                text: m.to_string(),
                legal: super::notation::join_or_none(self.position().legal_moves().iter()),
            });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Reads a move in the current position and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, ParseMoveError> {
        let m = self.position().parse_move(text)?;
        self.play_unchecked(m);
        Ok(m)
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        let pos = *self.position();
        let q = if pos.is_irreversible(m) {
            0
        } else {
            self.quiet_plies() + 1
        };
        self.positions.push(pos.after(m));
        self.moves.push(m);
        self.quiet.push(q);
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.quiet.pop();
        Some(m)
    }

    /// How many times the current position (with the same side to move) has occurred.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let cur = self.position();
        self.positions.iter().filter(|p| *p == cur).count()
    }

    /// The result if the game is over: by the rules, by threefold repetition, or by
    /// the 40-move rule (English).
    #[must_use]
    pub fn result(&self) -> Option<GameEnd> {
        let pos = self.position();
        if let Some(outcome) = pos.outcome() {
            let reason = match pos.variant() {
                Variant::English => EndReason::NoMoves,
                Variant::Mini => {
                    if pos.pieces(super::Color::Black).is_empty()
                        || pos.pieces(super::Color::White).is_empty()
                    {
                        EndReason::NoPieces
                    } else {
                        EndReason::Blocked
                    }
                }
            };
            return Some(GameEnd { outcome, reason });
        }
        if self.repetitions() >= 3 {
            return Some(GameEnd {
                outcome: Outcome::Draw,
                reason: EndReason::Repetition,
            });
        }
        if pos.variant() == Variant::English && self.quiet_plies() >= FORTY_MOVE_PLIES {
            return Some(GameEnd {
                outcome: Outcome::Draw,
                reason: EndReason::FortyMoves,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pass (mini) resets the count of quiet plies, as the search counts it.
    #[test]
    fn a_pass_is_irreversible() {
        // Black's man on 16 is on its last row and cannot move; White's on 5 can.
        let pos = Position::from_fen(Variant::Mini, "B:W5:B16").unwrap();
        let pass = pos.legal_moves()[0];
        assert!(pass.is_pass());
        assert!(pos.is_irreversible(pass));
        let mut game = Game::from_position(pos);
        game.play(pass).unwrap();
        assert_eq!(game.quiet_plies(), 0);
    }
}
