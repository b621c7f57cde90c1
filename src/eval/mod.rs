//! Static evaluation, in centi-men (100 = one man) from the side to move's point
//! of view.
//!
//! English positions are scored by an [`Evaluator`]: by default the
//! [`network`] (NNUE), or the [`patterns`], both trained by `kingme train`
//! (see `EVAL.md`), or the ten hand-set terms of [`hand`]. Mini-checkers
//! always uses its hand-set heuristic (the exact table takes over at level
//! max).

pub mod hand;
pub mod network;
pub mod patterns;

pub use hand::{evaluate_english, evaluate_mini, EnglishWeights, ParseWeightsError};
pub use network::{EvalCache, Network};
pub use patterns::PatternWeights;

use crate::checked_file::FileError;

use crate::board::{Position, Variant};
use std::path::Path;
use std::sync::Arc;

/// How English positions are evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum Evaluator {
    /// The pattern evaluation with these weights.
    Patterns(Arc<PatternWeights>),
    /// The hand-set terms with these weights.
    Hand(EnglishWeights),
    /// The network evaluation with these weights.
    Network(Arc<Network>),
}

/// Why an evaluation named by `EvalFile` could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EvalFileError {
    /// A pattern weights or network file was refused.
    #[error(transparent)]
    File(#[from] FileError),
    /// The file is neither.
    #[error("{0}: neither a kingme weights file (KMWEIGHT) nor a network (KMNETWRK)")]
    Unknown(String),
}

impl Default for Evaluator {
    /// The shipped network.
    fn default() -> Self {
        Evaluator::Network(Network::builtin())
    }
}

impl Evaluator {
    /// The evaluation of `pos` for its side to move.
    #[inline]
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match pos.variant() {
            Variant::English => match self {
                Evaluator::Patterns(w) => w.evaluate(pos),
                Evaluator::Hand(w) => evaluate_english(pos, w),
                Evaluator::Network(n) => n.evaluate(pos),
            },
            Variant::Mini => evaluate_mini(pos),
        }
    }

    /// [`Evaluator::evaluate`], with a search thread's `cache` (the network
    /// updates its first layer from the position evaluated before).
    #[inline]
    #[must_use]
    pub fn evaluate_cached(&self, pos: &Position, cache: &mut EvalCache) -> i32 {
        match (self, pos.variant()) {
            (Evaluator::Network(n), Variant::English) => cache.evaluate(n, pos),
            _ => self.evaluate(pos),
        }
    }

    /// The evaluation `EvalFile` names: `builtin` (the default: the shipped
    /// network), `network` (the same), `patterns` (the shipped pattern
    /// weights), `hand`, or a weights or network file (told apart by its magic).
    pub fn from_name(text: &str) -> Result<Evaluator, EvalFileError> {
        Ok(match text.trim() {
            "" | "builtin" => Evaluator::default(),
            "patterns" => Evaluator::Patterns(PatternWeights::builtin()),
            "network" => Evaluator::Network(Network::builtin()),
            "hand" => Evaluator::Hand(EnglishWeights::default()),
            path => {
                // a regular file only, and no more than the largest either format allows
                let max = patterns::file::FILE_LEN.max(Network::MAX_FILE_LEN);
                let bytes = crate::files::read_bounded(Path::new(path), max as u64)
                    .map_err(|e| FileError::io(Path::new(path), e))?;
                if network::file::FORMAT.is(&bytes) {
                    Evaluator::Network(Arc::new(Network::from_bytes(&bytes, path)?))
                } else if patterns::file::FORMAT.is(&bytes) {
                    Evaluator::Patterns(Arc::new(PatternWeights::from_bytes(&bytes, path)?))
                } else {
                    return Err(EvalFileError::Unknown(path.to_string()));
                }
            }
        })
    }

    /// The scale that maps this evaluation's scores to expected results:
    /// centi-men per unit of the logistic (`sigmoid(cp / scale)`), the `K`
    /// it was trained with. A network's file records its own; the patterns
    /// and the hand-set terms use [`DEFAULT_RESULT_SCALE`].
    #[must_use]
    pub fn result_scale(&self) -> f64 {
        match self {
            Evaluator::Network(n) => f64::from(n.scale),
            Evaluator::Patterns(_) | Evaluator::Hand(_) => DEFAULT_RESULT_SCALE,
        }
    }

    /// A short description: `patterns (generation N, checksum X)` (the
    /// patterns: the text the protocol has always reported), `hand` or
    /// `network (...)`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Evaluator::Patterns(w) => format!(
                "patterns (generation {}, checksum {:016x})",
                w.generation,
                w.checksum()
            ),
            Evaluator::Hand(_) => "hand".to_string(),
            Evaluator::Network(n) => n.describe(),
        }
    }
}

/// The scale of an evaluation whose file records none: the `K` fitted to
/// the shipped patterns' training data (src/eval/EVAL.md), rounded.
pub const DEFAULT_RESULT_SCALE: f64 = 160.0;

/// The evaluation of `pos` for its side to move, with the default evaluator.
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    Evaluator::default().evaluate(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    /// `pos` rotated half a turn with the colours and the turn swapped.
    fn mirror(pos: &Position) -> Position {
        let r = |b: crate::board::Bitboard| crate::board::Bitboard(b.0.reverse_bits());
        Position::from_parts(
            Variant::English,
            r(pos.pieces(Color::White)),
            r(pos.pieces(Color::Black)),
            r(pos.kings()),
            !pos.turn(),
        )
    }

    #[test]
    fn every_evaluator_scores_a_position_and_its_mirror_alike() {
        for e in [
            Evaluator::default(),
            Evaluator::Hand(EnglishWeights::default()),
        ] {
            for fen in [
                "B:W21-32:B1-12",
                "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9",
                "B:WK14,K22,27:B3,K9,12",
            ] {
                let p = Position::from_fen(Variant::English, fen).unwrap();
                assert_eq!(e.evaluate(&p), e.evaluate(&mirror(&p)), "{fen}");
            }
        }
    }
}
