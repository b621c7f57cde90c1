//! A session's game: `newgame`, `position`, `play` (and the engine's reply
//! when `Reply` is on), and what `moves` and `board` show of it.

use super::{Purpose, Session};
use crate::board::{Game, Move, Position, Variant};
use crate::engine::{GoLimits, Score};
use crate::protocol::command::StartPos;
use crate::protocol::Response;

impl Session {
    pub(super) fn new_game(&mut self, variant: Variant) {
        self.game = Game::new(variant);
        if let Some(e) = &mut self.engine {
            e.new_game(variant);
        }
    }

    pub(super) fn position(&mut self, start: StartPos, moves: &[String], out: &mut Vec<Response>) {
        let variant = self.game.variant();
        let pos = match start {
            StartPos::Start => Position::startpos(variant),
            StartPos::Fen(f) => match Position::from_fen(variant, &f) {
                Ok(p) => p,
                Err(e) => {
                    out.push(Response::Error(format!(
                        "position: {e} (variant {variant})"
                    )));
                    return;
                }
            },
        };
        let mut game = Game::from_position(pos);
        for (i, m) in moves.iter().enumerate() {
            if let Err(e) = game.play_text(m) {
                out.push(Response::Error(format!("position: move {}: {e}", i + 1)));
                return;
            }
        }
        self.game = game;
    }

    pub(super) fn play(&mut self, text: &str, out: &mut Vec<Response>) {
        if let Some(end) = self.game.result() {
            out.push(Response::Error(format!("play: the game is over: {end}")));
            return;
        }
        match self.game.play_text(text) {
            Ok(m) => out.push(Response::Played(m)),
            Err(e) => {
                out.push(Response::Error(format!("play: {e}")));
                return;
            }
        }
        if let Some(end) = self.game.result() {
            out.push(Response::GameOver(end));
        } else if self.reply {
            self.start_search(GoLimits::default(), Purpose::Reply, out);
        }
    }

    /// `board`: the diagram, the FEN, whose turn, the last move, the result,
    /// and the databases' value where they know it.
    pub(super) fn board(&mut self, out: &mut Vec<Response>) {
        let pos = *self.game.position();
        out.push(Response::Board {
            database: self.engine().database_value(&pos),
            diagram: pos.diagram(),
            fen: pos.to_fen(),
            turn: pos.turn(),
            last: self.game.moves().last().copied(),
            result: self.game.result(),
        });
    }

    /// `moves`: the legal moves, then their exact values where the engine
    /// knows them.
    pub(super) fn moves(&mut self, out: &mut Vec<Response>) {
        let mut moves: Vec<Move> = self.game.position().legal_moves().iter().copied().collect();
        // Stable for people and tests: by start square, then the path.
        moves.sort_by_key(|m| {
            let path: Vec<u32> = m.landings().map(|s| s.number()).collect();
            (!m.is_pass(), m.from().number(), path)
        });
        let values = self.exact_values(&moves);
        out.push(Response::Moves(moves));
        if !values.is_empty() {
            out.push(Response::Values(values));
        }
    }

    /// The exact value of each of `moves` for the player making it, where
    /// the engine knows it, in the order of `moves`.
    fn exact_values(&mut self, moves: &[Move]) -> Vec<(Move, Score)> {
        if moves.is_empty() {
            return Vec::new();
        }
        let pos = *self.game.position();
        let values = self.engine().move_values(&pos);
        moves
            .iter()
            .filter_map(|m| values.iter().find(|(vm, _)| vm == m).copied())
            .collect()
    }
}
