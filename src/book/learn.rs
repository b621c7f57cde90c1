//! Book learning from played games: each game that left the book scores the
//! move it left by (the last book move played), for the player who made
//! it; a move's value moves towards its games' results, and the values are
//! backed up through the book again. A line the engine keeps losing sinks
//! below its alternatives; one it keeps winning rises.
//!
//! A move with `n` games, `w` won and `l` lost by its mover, is worth its
//! searched value plus `weight × (w − l) / (n + 1)` centi-men: one game
//! moves it by half the weight at most, many games by the weight at most.
//! Wins and losses found by the search stay as they are.

use super::file::RawEntry;
use super::tree::Tree;
use crate::board::{Move, Outcome, Position};
use crate::search::WIN_BOUND;
use std::collections::HashMap;

/// One played game: where it started, its moves, how it ended.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The first position.
    pub start: Position,
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The result.
    pub outcome: Outcome,
}

/// What learning did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnReport {
    /// Games given.
    pub games: usize,
    /// Games that left the book by a book move (the ones learned from).
    pub learned: usize,
    /// Book moves whose value changed.
    pub moves_changed: usize,
}

/// Games, wins and losses of a book move, for the player making it.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    games: i32,
    net: i32,
}

/// The book move by which `game` left the book: the position (in the book)
/// and the move played there, with the result for the player who moved.
fn exit_move(tree: &Tree, game: &PlayedGame) -> Option<(Position, Move, i32)> {
    let mut pos = game.start;
    let mut exit = None;
    for &mv in &game.moves {
        if tree.contains(&pos) {
            exit = Some((pos, mv));
        }
        pos = pos.after(mv);
    }
    let (pos, mv) = exit?;
    if tree.contains(&pos.after(mv)) {
        // the game ended inside the book
        return None;
    }
    let result = match game.outcome {
        Outcome::Draw => 0,
        Outcome::Win(c) if c == pos.turn() => 1,
        Outcome::Win(_) => -1,
    };
    Some((pos, mv, result))
}

/// `entries` (a book's) with the values of the moves that `games` left the
/// book by moved towards the games' results by up to `weight` centi-men,
/// and every value backed up again.
#[must_use]
pub fn learn(
    entries: Vec<RawEntry>,
    games: &[PlayedGame],
    weight: i32,
) -> (Vec<RawEntry>, LearnReport) {
    let mut tree = Tree::from_entries(entries);
    let mut tallies: HashMap<(Position, Move), Tally> = HashMap::new();
    let mut report = LearnReport {
        games: games.len(),
        ..LearnReport::default()
    };
    for g in games {
        if let Some((pos, mv, result)) = exit_move(&tree, g) {
            let t = tallies.entry((pos, mv)).or_default();
            t.games += 1;
            t.net += result;
            report.learned += 1;
        }
    }
    for ((pos, mv), t) in tallies {
        let shift = weight * t.net / (t.games + 1);
        if shift != 0 && tree.shift_leaf(&pos, mv, shift, WIN_BOUND) {
            report.moves_changed += 1;
        }
    }
    (tree.entries(), report)
}
