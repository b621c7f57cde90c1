//! One game reviewed: every position searched once (from the last to the
//! first by default), each move judged by the search of the position before
//! it and of the position after it, or exactly where both are known.

use super::verdict::{expected, Exact, Thresholds, Verdict};
use crate::board::{Color, Game, Move, Outcome, Position};
use crate::search::Score;
use std::time::Duration;

/// Which side's moves are judged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Sides {
    /// Black's moves.
    Black,
    /// White's moves.
    White,
    /// Every move.
    #[default]
    Both,
}

impl Sides {
    /// Whether `c`'s moves are judged.
    #[must_use]
    pub fn includes(self, c: Color) -> bool {
        match self {
            Sides::Both => true,
            Sides::Black => c == Color::Black,
            Sides::White => c == Color::White,
        }
    }
}

/// `black`, `white` or `both`.
impl std::fmt::Display for Sides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sides::Black => "black",
            Sides::White => "white",
            Sides::Both => "both",
        })
    }
}

/// A word that names no side.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad side '{0}': expected black, white or both")]
pub struct ParseSidesError(pub String);

impl std::str::FromStr for Sides {
    type Err = ParseSidesError;

    fn from_str(s: &str) -> Result<Sides, ParseSidesError> {
        match s.to_ascii_lowercase().as_str() {
            "black" => Ok(Sides::Black),
            "white" => Ok(Sides::White),
            "both" => Ok(Sides::Both),
            _ => Err(ParseSidesError(s.chars().take(40).collect())),
        }
    }
}

/// The order the positions are searched in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Order {
    /// From the last position to the first, so that what the table learned
    /// of later positions serves the earlier ones (analysis modes' order).
    #[default]
    Backward,
    /// From the first position to the last.
    Forward,
}

/// How a review judges.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ReviewSettings {
    /// Whose moves are judged.
    pub sides: Sides,
    /// The losses that make inaccuracies, mistakes and blunders.
    pub thresholds: Thresholds,
    /// The order the positions are searched in.
    pub order: Order,
    /// The evaluation's scale: centi-men per unit of the logistic that maps
    /// a score to an expected result.
    pub scale: f64,
}

impl Default for ReviewSettings {
    fn default() -> ReviewSettings {
        ReviewSettings {
            sides: Sides::Both,
            thresholds: Thresholds::default(),
            order: Order::Backward,
            scale: crate::eval::DEFAULT_RESULT_SCALE,
        }
    }
}

/// One position's search, as a review uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The best move (`None` without a legal move).
    pub best: Option<Move>,
    /// Its score, side to move's view.
    pub score: Score,
    /// The depth of that score.
    pub depth: u32,
    /// The line expected, from the best move.
    pub pv: Vec<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken (whole milliseconds).
    pub time: Duration,
}

/// Searches positions for a review.
pub trait PositionSearch {
    /// Searches the current position of `game` (its history counts for
    /// repetitions); `None` when the review was stopped.
    fn search(&mut self, game: &Game) -> Option<Searched>;
}

/// Exact values, where they are known.
pub trait ExactValues {
    /// The exact value of `pos` for its side to move ([`Score::Win`],
    /// [`Score::Loss`], [`Score::Draw`]), and a move that keeps it (`None`
    /// without a legal move); `None` where unknown.
    fn exact(&self, pos: &Position) -> Option<(Score, Option<Move>)>;
}

/// Knows nothing exactly.
pub struct NoExactValues;

impl ExactValues for NoExactValues {
    fn exact(&self, _: &Position) -> Option<(Score, Option<Move>)> {
        None
    }
}

/// The review of one move (its loss is never NaN: `Eq` holds).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// The move's index in the game (0: the first move).
    pub ply: usize,
    /// Who made it.
    pub mover: Color,
    /// The move played.
    pub played: Move,
    /// The best move.
    pub best: Move,
    /// The best move's value, mover's view.
    pub best_score: Score,
    /// The played move's value, mover's view.
    pub played_score: Score,
    /// Expected result lost by the move (0 to 1).
    pub loss: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// Both positions' values are known exactly: then `best_score` and
    /// `played_score` are those values ([`MoveReview::exact_verdict`]).
    pub exact: bool,
    /// The move was the only legal one.
    pub forced: bool,
    /// Depth of the search of the position before the move.
    pub depth: u32,
    /// The line the engine expected, from the best move.
    pub pv: Vec<Move>,
    /// Nodes of that search.
    pub nodes: u64,
    /// Time of that search.
    pub time: Duration,
}

impl Eq for MoveReview {}

impl MoveReview {
    /// The exact values' verdict, when both positions' values are known.
    #[must_use]
    pub fn exact_verdict(&self) -> Option<Exact> {
        self.exact.then_some(Exact {
            before: self.best_score,
            after: self.played_score,
        })
    }

    /// The move number as PDN counts it (Black's and White's moves share one).
    #[must_use]
    pub fn move_number(&self, first_to_move: Color) -> usize {
        let offset = usize::from(first_to_move == Color::White);
        (self.ply + offset) / 2 + 1
    }
}

/// A position's value for the review: searched, or known from the rules.
#[derive(Clone, Debug)]
struct Value {
    score: Score,
    search: Option<Searched>,
    /// The exact value and a move keeping it, where known (probed once).
    exact: Option<(Score, Option<Move>)>,
}

/// The value of a move for its mover, from the value of the position it
/// leads to: the other side's, one ply further.
fn through_move(child: Score) -> Score {
    match -child {
        Score::Win(n) if n != Score::DATABASE_PLIES => Score::Win(n + 1),
        Score::Loss(n) if n != Score::DATABASE_PLIES => Score::Loss(n + 1),
        s => s,
    }
}

/// The game as it stood before its move `i` (every earlier position in its
/// history).
fn prefix(game: &Game, i: usize) -> Game {
    let mut g = Game::from_position(*game.start());
    for &m in &game.moves()[..i] {
        g.play_unchecked(m);
    }
    g
}

/// The value of the game's last position when the game is over there.
fn end_value(game: &Game) -> Option<Score> {
    Some(match game.result()?.outcome {
        Outcome::Win(c) if c == game.position().turn() => Score::Win(0),
        Outcome::Win(_) => Score::Loss(0),
        Outcome::Draw => Score::Draw,
    })
}

/// Reviews `game`: each judged move is passed to `on_move` as soon as it is
/// judged (in search order), and all of them come back in game order. A
/// stopped review returns the moves judged so far.
pub fn review_game(
    game: &Game,
    settings: &ReviewSettings,
    searcher: &mut dyn PositionSearch,
    exact: &dyn ExactValues,
    on_move: &mut dyn FnMut(&MoveReview),
) -> Vec<MoveReview> {
    let moves = game.moves();
    let positions = game.positions();
    let n = moves.len();
    let judged: Vec<bool> = (0..n)
        .map(|i| settings.sides.includes(positions[i].turn()))
        .collect();
    let needed: Vec<bool> = (0..=n)
        .map(|i| (i < n && judged[i]) || (i > 0 && judged[i - 1]))
        .collect();
    let order: Vec<usize> = match settings.order {
        Order::Backward => (0..=n).rev().collect(),
        Order::Forward => (0..=n).collect(),
    };
    let mut values: Vec<Option<Value>> = vec![None; n + 1];
    let mut out = Vec::new();
    for i in order.into_iter().filter(|&i| needed[i]) {
        let value = match (i == n).then(|| end_value(game)).flatten() {
            // the rules' value is exact
            Some(score) => Value {
                score,
                search: None,
                exact: Some((score, None)),
            },
            None => match searcher.search(&prefix(game, i)) {
                Some(s) => Value {
                    score: s.score,
                    search: Some(s),
                    exact: exact.exact(&positions[i]),
                },
                None => break,
            },
        };
        values[i] = Some(value);
        // the moves into and out of position i, if both ends are known now
        for m in [i.checked_sub(1), Some(i)].into_iter().flatten() {
            if m < n && judged[m] {
                if let (Some(before), Some(after)) = (&values[m], &values[m + 1]) {
                    let r = judge(game, m, before, after, settings, exact);
                    on_move(&r);
                    out.push(r);
                }
            }
        }
    }
    out.sort_by_key(|r| r.ply);
    out
}

/// The review of move `m`, from the values of the positions around it.
fn judge(
    game: &Game,
    m: usize,
    before: &Value,
    after: &Value,
    settings: &ReviewSettings,
    exact: &dyn ExactValues,
) -> MoveReview {
    let pos = &game.positions()[m];
    let played = game.moves()[m];
    let search = before.search.clone().unwrap_or_else(|| Searched {
        best: Some(played),
        score: before.score,
        depth: 0,
        pv: Vec::new(),
        nodes: 0,
        time: Duration::ZERO,
    });
    let forced = pos.legal_moves().len() == 1;
    let searched_best = search.best.unwrap_or(played);
    let exact_value = match (before.exact, after.exact) {
        (Some((b, best)), Some((a, _))) => Some((
            Exact {
                before: b,
                after: through_move(a),
            },
            best,
        )),
        _ => None,
    };
    let (best, best_score, played_score, loss, verdict) = match exact_value {
        Some((e, exact_best)) => {
            // the engine's choice where it keeps the exact value
            let best = match exact.exact(&pos.after(searched_best)) {
                Some((v, _)) if through_move(v) == e.before => searched_best,
                _ => exact_best.unwrap_or(searched_best),
            };
            let loss = expected(e.before, settings.scale) - expected(e.after, settings.scale);
            let verdict = if forced { Verdict::Best } else { e.verdict() };
            (best, e.before, e.after, loss.max(0.0), verdict)
        }
        None => {
            let played_score = through_move(after.score);
            if forced || played == searched_best {
                (
                    searched_best,
                    search.score,
                    played_score,
                    0.0,
                    Verdict::Best,
                )
            } else {
                let loss = (expected(search.score, settings.scale)
                    - expected(played_score, settings.scale))
                .max(0.0);
                let verdict = settings.thresholds.verdict(loss);
                (searched_best, search.score, played_score, loss, verdict)
            }
        }
    };
    // to the ten-thousandth, as every output writes it
    let loss = (loss * 10_000.0).round() / 10_000.0;
    let pv = if best == searched_best {
        search.pv.clone()
    } else {
        vec![best]
    };
    MoveReview {
        ply: m,
        mover: pos.turn(),
        played,
        best,
        best_score,
        played_score,
        loss,
        verdict,
        exact: exact_value.is_some(),
        forced,
        depth: search.depth,
        pv,
        nodes: search.nodes,
        time: search.time,
    }
}
