//! The pattern evaluation (Scan's idea, for 8x8): about 59,000 features of
//! the board seen from the side to move, two weights each (a full board and
//! a bare one), mixed by the number of pieces. The weights are fitted by
//! `kingme train` (`crate::train::patterns`; see `EVAL.md`).
//!
//! - [`features`]: what it sees (windows, king squares, counts);
//! - [`weights`]: [`PatternWeights`], the weights and the sum;
//! - [`mod@file`]: the weights file (`.kmw`) and the shipped weights.

pub mod features;
pub mod file;
pub mod weights;

pub use weights::{PatternWeights, SCALE};
