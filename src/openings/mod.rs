//! Openings: the ACF 3-move ballot deck for English, and every opening of at most
//! two plies for mini-checkers: the starts of referee matches (each played twice,
//! colours swapped) and of `kingme datagen` games.

use crate::{Position, Variant};
use std::collections::BTreeMap;

/// The 3-move ballots as shipped by pydraughts 0.6.7 (MIT; credits Ed Gilbert).
const BALLOTS_JSON: &str = include_str!("3move_english.json");

/// In pydraughts' `standard` list but barred in the ACF's 156-opening deck
/// (see `README.md` beside this file).
pub const BARRED_EXTRA: &[&str] = &["026 09-13 24-19 10-15"];

/// A start for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// A short name: `ACF 001 9-13 21-17 5-9`, `mini 11-14 16-12`, `start`.
    pub name: String,
    /// The moves that lead to the position from the standard start.
    pub moves: Vec<String>,
    /// The position the game starts from.
    pub position: Position,
}

impl Opening {
    /// Whether this is the standard start position (no FEN needed).
    #[must_use]
    pub fn is_startpos(&self) -> bool {
        self.moves.is_empty() && self.position == Position::startpos(self.position.variant())
    }
}

/// Why the ballot data can't be used.
#[derive(Debug, thiserror::Error)]
pub enum BallotError {
    /// The embedded JSON is malformed.
    #[error("ballot data: {0}")]
    Json(#[from] serde_json::Error),
    /// A ballot's moves or FEN don't agree with the rules.
    #[error("ballot '{name}': {detail}")]
    Bad {
        /// The ballot key.
        name: String,
        /// What is wrong.
        detail: String,
    },
}

#[derive(serde::Deserialize)]
struct BallotFile {
    all: BTreeMap<String, String>,
    standard: Vec<String>,
}

/// Strips the leading zero of `09-13`.
fn plain(m: &str) -> String {
    m.split('-')
        .map(|s| s.trim_start_matches('0'))
        .collect::<Vec<_>>()
        .join("-")
}

/// The ACF 3-move deck: 156 ballots in deck order, each replayed from the start
/// with the kingme rules and checked against the FEN in the data.
pub fn acf_deck() -> Result<Vec<Opening>, BallotError> {
    let file: BallotFile = serde_json::from_str(BALLOTS_JSON)?;
    let mut deck = Vec::new();
    for key in &file.standard {
        if BARRED_EXTRA.contains(&key.as_str()) {
            continue;
        }
        let bad = |detail: String| BallotError::Bad {
            name: key.clone(),
            detail,
        };
        let fen = file.all.get(key).ok_or_else(|| bad("no FEN".into()))?;
        let mut words = key.split_whitespace();
        let number = words.next().ok_or_else(|| bad("empty".into()))?;
        let moves: Vec<String> = words.map(plain).collect();
        let mut pos = Position::startpos(Variant::English);
        for m in &moves {
            let mv = pos.parse_move(m).map_err(|e| bad(e.to_string()))?;
            pos = pos.after(mv);
        }
        let given = Position::from_fen(Variant::English, fen).map_err(|e| bad(e.to_string()))?;
        if given != pos {
            return Err(bad(format!(
                "FEN {fen} is not the position after the moves"
            )));
        }
        deck.push(Opening {
            name: format!("ACF {number} {}", moves.join(" ")),
            moves,
            position: pos,
        });
    }
    Ok(deck)
}

/// Mini-checkers: the start position, every 1-ply and every 2-ply opening
/// (1 + 5 + 25 = 31), in move-generation order.
#[must_use]
pub fn mini_openings() -> Vec<Opening> {
    let start = Position::startpos(Variant::Mini);
    let mut out = vec![Opening {
        name: "start".into(),
        moves: Vec::new(),
        position: start,
    }];
    let mut frontier = vec![(Vec::<String>::new(), start)];
    for _ply in 0..2 {
        let mut next = Vec::new();
        for (moves, pos) in &frontier {
            if pos.outcome().is_some() {
                continue;
            }
            for &m in pos.legal_moves().iter() {
                let mut mv = moves.clone();
                mv.push(m.to_string());
                let p = pos.after(m);
                out.push(Opening {
                    name: format!("mini {}", mv.join(" ")),
                    moves: mv.clone(),
                    position: p,
                });
                next.push((mv, p));
            }
        }
        frontier = next;
    }
    out
}

/// The openings for a variant.
pub fn for_variant(variant: Variant) -> Result<Vec<Opening>, BallotError> {
    match variant {
        Variant::English => acf_deck(),
        Variant::Mini => Ok(mini_openings()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acf_deck_has_156_checked_ballots() {
        let deck = acf_deck().expect("ballots agree with the rules");
        assert_eq!(deck.len(), 156);
        assert_eq!(deck[0].name, "ACF 001 9-13 21-17 5-9");
        assert_eq!(deck[155].name, "ACF 174 12-16 24-20 10-15");
        assert!(deck.iter().all(|o| o.moves.len() == 3));
        assert!(!deck.iter().any(|o| o.name.starts_with("ACF 026 ")));
        // After three moves it is White's turn in every ballot.
        assert!(deck
            .iter()
            .all(|o| o.position.turn() == crate::Color::White));
    }

    #[test]
    fn mini_has_31_openings() {
        let o = mini_openings();
        assert_eq!(o.len(), 31);
        assert_eq!(o.iter().filter(|o| o.moves.len() == 1).count(), 5);
        assert_eq!(o.iter().filter(|o| o.moves.len() == 2).count(), 25);
    }
}
