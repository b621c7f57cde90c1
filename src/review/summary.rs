//! A review's figures: for each side of a game, and for each player over
//! the games of a file.

use super::judge::MoveReview;
use super::verdict::Verdict;
use crate::board::Color;

/// One side's figures over the moves judged (the total to the
/// ten-thousandth, never NaN: `Eq` holds).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SideSummary {
    /// Moves judged.
    pub moves: usize,
    /// Expected result lost over those moves, in total.
    pub total_loss: f64,
    /// Moves of each verdict, in [`Verdict::ALL`]'s order.
    pub counts: [usize; 5],
}

impl Eq for SideSummary {}

/// `x` to the ten-thousandth.
fn rounded(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl SideSummary {
    /// The figures of `side`'s moves among `reviews`.
    #[must_use]
    pub fn of(reviews: &[MoveReview], side: Color) -> SideSummary {
        let mut s = SideSummary::default();
        for r in reviews.iter().filter(|r| r.mover == side) {
            s.add(r);
        }
        s
    }

    /// Counts one more move.
    pub fn add(&mut self, r: &MoveReview) {
        self.moves += 1;
        self.total_loss = rounded(self.total_loss + r.loss);
        self.counts[r.verdict as usize] += 1;
    }

    /// Adds another summary's moves.
    pub fn merge(&mut self, other: &SideSummary) {
        self.moves += other.moves;
        self.total_loss = rounded(self.total_loss + other.total_loss);
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }

    /// Average expected result lost per move (0 without moves).
    #[must_use]
    pub fn average_loss(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.total_loss / self.moves as f64
        }
    }

    /// Moves with this verdict.
    #[must_use]
    pub fn count(&self, v: Verdict) -> usize {
        self.counts[v as usize]
    }
}

/// A player's figures over the games of a file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PlayerSummary {
    /// The player's name (the game's `Black` or `White` tag).
    pub name: String,
    /// Games in which the player's moves were judged.
    pub games: usize,
    /// The moves' figures.
    pub moves: SideSummary,
}

impl PlayerSummary {
    /// Adds one game's figures to the player named `name` in `players`
    /// (appended if new, keeping first-seen order).
    pub fn add_game(players: &mut Vec<PlayerSummary>, name: &str, side: &SideSummary) {
        if side.moves == 0 {
            return;
        }
        let i = match players.iter().position(|p| p.name == name) {
            Some(i) => i,
            None => {
                players.push(PlayerSummary {
                    name: name.to_string(),
                    ..PlayerSummary::default()
                });
                players.len() - 1
            }
        };
        players[i].games += 1;
        players[i].moves.merge(side);
    }
}
