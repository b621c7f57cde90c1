//! The review as JSON (`kingme review --json`), schema version
//! [`JSON_VERSION`]; the same structs read it back.
//!
//! ```json
//! { "format": "kingme-review", "version": 1,
//!   "settings": { "limits": "movetime 100", "sides": "both", "order": "backward",
//!                 "thresholds": [0.03, 0.07, 0.15], "scale": 160.0, "eval": "network (...)" },
//!   "games": [ { "game": 1, "variant": "english", "fen": null,
//!                "tags": [["Black", "kingme"], ["White", "cake"]], "result": "1-1",
//!                "complete": true,
//!                "moves": [ { "ply": 0, "number": 1, "mover": "black", "played": "11-15",
//!                             "best": "11-15", "best_score": "cp 23", "played_score": "cp 23",
//!                             "loss": 0.0, "verdict": "best", "forced": false, "exact": false,
//!                             "note": null, "depth": 7, "nodes": 2048, "time_ms": 1,
//!                             "pv": ["11-15", "22-18"], "engine": "+0.25/12 0.20s" } ],
//!                "black": { "moves": 3, "lost": 0.0201, "average_loss": 0.0067, "best": 2,
//!                           "good": 1, "inaccuracy": 0, "mistake": 0, "blunder": 0 },
//!                "white": { ... } } ],
//!   "errors": [ { "game": 2, "message": "move 7 (15x24): ..." } ],
//!   "players": [ { "name": "kingme", "games": 1, "summary": { ... } } ] }
//! ```
//!
//! Scores are written as the protocol writes them (`cp 23`, `win 5`,
//! `loss 5`, `draw`), moves in the game's notation, `ply` counts from 0,
//! `number` is the PDN move number, `engine` is the comment the game's PDN
//! had after the move (what the engine that played it reported), `note`
//! the exact verdict in words.

use super::judge::MoveReview;
use super::summary::{PlayerSummary, SideSummary};
use super::verdict::Verdict;
use crate::board::pdn::PdnGame;
use crate::board::{Color, Game, Move, Variant};
use crate::search::Score;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The value of `format`.
pub const JSON_FORMAT: &str = "kingme-review";
/// The schema's version.
pub const JSON_VERSION: u32 = 1;

/// A whole review file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewFile {
    /// Always [`JSON_FORMAT`].
    pub format: String,
    /// [`JSON_VERSION`].
    pub version: u32,
    /// How the review judged.
    pub settings: JsonSettings,
    /// The games reviewed, in file order.
    pub games: Vec<JsonGame>,
    /// The games that could not be reviewed.
    pub errors: Vec<JsonError>,
    /// Each player's figures over the games.
    pub players: Vec<JsonPlayer>,
}

/// How the review judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonSettings {
    /// Each position's search limits, as `go` takes them.
    pub limits: String,
    /// `black`, `white` or `both`.
    pub sides: String,
    /// `backward` or `forward`.
    pub order: String,
    /// Inaccuracy, mistake and blunder thresholds.
    pub thresholds: [f64; 3],
    /// The evaluation's scale `K`.
    pub scale: f64,
    /// The evaluation, as the engine describes it.
    pub eval: String,
}

/// One game's review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonGame {
    /// The game's number in the file, from 1.
    pub game: usize,
    /// `english` or `mini`.
    pub variant: String,
    /// The start's FEN, when the game did not start from the start.
    pub fen: Option<String>,
    /// The PDN tags, in file order.
    pub tags: Vec<[String; 2]>,
    /// The result (`2-0`, `0-2`, `1-1`, `*`).
    pub result: String,
    /// Every move asked for was judged.
    pub complete: bool,
    /// The moves judged, in game order.
    pub moves: Vec<JsonMove>,
    /// Black's figures.
    pub black: JsonSide,
    /// White's figures.
    pub white: JsonSide,
}

/// One move's review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct JsonMove {
    pub ply: usize,
    pub number: usize,
    pub mover: String,
    pub played: String,
    pub best: String,
    pub best_score: String,
    pub played_score: String,
    pub loss: f64,
    pub verdict: String,
    pub forced: bool,
    pub exact: bool,
    pub note: Option<String>,
    pub depth: u32,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
    pub engine: Option<String>,
}

/// One side's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct JsonSide {
    pub moves: usize,
    pub lost: f64,
    pub average_loss: f64,
    pub best: usize,
    pub good: usize,
    pub inaccuracy: usize,
    pub mistake: usize,
    pub blunder: usize,
}

/// A game that was not reviewed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonError {
    /// The game's number in the file, from 1.
    pub game: usize,
    /// Why.
    pub message: String,
}

/// A player's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonPlayer {
    /// The name in the games' tags.
    pub name: String,
    /// Games with the player's moves judged.
    pub games: usize,
    /// The moves' figures.
    pub summary: JsonSide,
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

impl JsonMove {
    /// The JSON of `r`, a move of a game whose first mover is `first`, with
    /// the comment the game's PDN had after the move.
    #[must_use]
    pub fn of(r: &MoveReview, first: Color, engine: Option<&str>) -> JsonMove {
        JsonMove {
            ply: r.ply,
            number: r.move_number(first),
            mover: color_word(r.mover).into(),
            played: r.played.to_string(),
            best: r.best.to_string(),
            best_score: r.best_score.to_string(),
            played_score: r.played_score.to_string(),
            loss: r.loss,
            verdict: r.verdict.to_string(),
            forced: r.forced,
            exact: r.exact,
            note: r.exact_verdict().map(|e| e.words()),
            depth: r.depth,
            nodes: r.nodes,
            time_ms: r.time.as_millis() as u64,
            pv: r.pv.iter().map(ToString::to_string).collect(),
            engine: engine.map(str::to_string),
        }
    }

    /// The review this stands for, its moves read in `variant`.
    pub fn review(&self, variant: Variant) -> Result<MoveReview, String> {
        let mv =
            |t: &str| Move::from_text(variant, t).map_err(|e| format!("ply {}: {e}", self.ply));
        let score = |t: &str| {
            t.parse::<Score>()
                .map_err(|e| format!("ply {}: {e}", self.ply))
        };
        let (best_score, played_score) = (score(&self.best_score)?, score(&self.played_score)?);
        Ok(MoveReview {
            ply: self.ply,
            mover: match self.mover.as_str() {
                "black" => Color::Black,
                "white" => Color::White,
                other => return Err(format!("ply {}: mover '{other}'", self.ply)),
            },
            played: mv(&self.played)?,
            best: mv(&self.best)?,
            best_score,
            played_score,
            loss: self.loss,
            verdict: self
                .verdict
                .parse::<Verdict>()
                .map_err(|e| format!("ply {}: {e}", self.ply))?,
            exact: self.exact,
            forced: self.forced,
            depth: self.depth,
            pv: self.pv.iter().map(|t| mv(t)).collect::<Result<_, _>>()?,
            nodes: self.nodes,
            time: Duration::from_millis(self.time_ms),
        })
    }
}

impl JsonGame {
    /// The JSON of game `number` of a file: its PDN record, the game
    /// replayed, its moves' reviews, each side's figures and whether the
    /// review was complete.
    #[must_use]
    pub fn of(
        number: usize,
        pdn: &PdnGame,
        game: &Game,
        reviews: &[MoveReview],
        sides: [&SideSummary; 2],
        complete: bool,
    ) -> JsonGame {
        let first = game.start().turn();
        JsonGame {
            game: number,
            variant: game.variant().to_string(),
            fen: pdn.tag("FEN").map(str::to_string),
            tags: pdn
                .tags
                .iter()
                .map(|(k, v)| [k.clone(), v.clone()])
                .collect(),
            result: pdn.result_text().to_string(),
            complete,
            moves: reviews
                .iter()
                .map(|r| {
                    let said = pdn.comments.get(r.ply).and_then(|c| c.as_deref());
                    JsonMove::of(r, first, said)
                })
                .collect(),
            black: JsonSide::of(sides[0]),
            white: JsonSide::of(sides[1]),
        }
    }
}

impl JsonSide {
    /// The JSON of one side's figures.
    #[must_use]
    pub fn of(s: &SideSummary) -> JsonSide {
        JsonSide {
            moves: s.moves,
            lost: s.total_loss,
            average_loss: (s.average_loss() * 10_000.0).round() / 10_000.0,
            best: s.count(Verdict::Best),
            good: s.count(Verdict::Good),
            inaccuracy: s.count(Verdict::Inaccuracy),
            mistake: s.count(Verdict::Mistake),
            blunder: s.count(Verdict::Blunder),
        }
    }
}

impl JsonPlayer {
    /// The JSON of a player's figures.
    #[must_use]
    pub fn of(p: &PlayerSummary) -> JsonPlayer {
        JsonPlayer {
            name: p.name.clone(),
            games: p.games,
            summary: JsonSide::of(&p.moves),
        }
    }
}
