//! [`PatternWeights`]: the weights of the pattern evaluation, and its sum.

use super::features::{for_each_feature, Oriented, FEATURES, PHASES};
use crate::board::Position;

/// Weights are stored in centi-men times this.
pub const SCALE: i32 = 16;

/// The weights of the English pattern evaluation: two per feature.
#[derive(Clone, PartialEq, Eq)]
pub struct PatternWeights {
    /// Which training round made these weights.
    pub generation: u32,
    /// Per feature: full-board and bare-board weight, in centi-men times [`SCALE`].
    pub w: Vec<[i16; 2]>,
}

impl PatternWeights {
    /// All-zero weights.
    #[must_use]
    pub fn zero() -> PatternWeights {
        PatternWeights {
            generation: 0,
            w: vec![[0; 2]; FEATURES],
        }
    }

    /// The evaluation of an English `pos` for its side to move, in centi-men.
    #[inline]
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let o = Oriented::new(pos);
        let (mut full, mut bare) = (0i32, 0i32);
        let w = &self.w[..];
        for_each_feature(&o, |i, x| {
            // SAFETY-free bounds: `i < FEATURES == w.len()` by construction
            let [a, b] = w[i];
            full += x * i32::from(a);
            bare += x * i32::from(b);
        });
        let phase = o.pieces().min(PHASES);
        (full * phase + bare * (PHASES - phase)) / (PHASES * SCALE)
    }
}
