//! The network evaluation (NNUE): a small network over the board whose first
//! layer is kept per search thread and updated incrementally from one
//! evaluated position to the next. One file a part, as in Stockfish's
//! `nnue/`:
//!
//! - [`features`]: the feature set: per *perspective* (Black's and
//!   White's), the perspective's men and kings and the opponent's men and
//!   kings, by square, with the board turned so that the perspective's men
//!   always move the same way ([`INPUTS`] = 128), and the input bucket (who
//!   has kings) that selects the first layer's rows;
//! - [`transformer`]: the feature transformer's weights, the first layer
//!   ([`FeatureRows`]);
//! - [`accumulator`]: its sums (`i16`), per perspective, and their
//!   incremental update;
//! - [`dense`]: the dense layers: both perspectives' sums clipped to
//!   0..[`QA`] and put side to move first, then two dense layers (`i16`
//!   weights, `i32` sums, clipped) and one output, one set of them per
//!   bucket of piece counts; the first dense layer runs on bytes (`u8`
//!   inputs, `i8` weights) where its weights fit, with the same sums;
//! - [`network`]: [`Network`], the weights, and the evaluation of a position;
//! - [`cache`]: [`EvalCache`], a search thread's accumulator;
//! - [`mod@file`]: the weights file (`.kmn`) and the shipped network;
//! - [`random`]: networks of pseudo-random weights, for tests;
//! - [`kernels`]: the integer arithmetic, with a runtime AVX2 path.
//!
//! The units of the integers are declared here. The trainer
//! (`crate::train::network`) has its own quantised forward pass, and the
//! test suite holds the two to the same scores.

pub mod accumulator;
pub mod cache;
pub mod dense;
pub mod features;
pub mod file;
pub mod kernels;
// the `Network` type's file, as Stockfish's `nnue/network.cpp`
#[allow(clippy::module_inception)]
pub mod network;
pub mod random;
pub mod transformer;

pub use accumulator::Accumulator;
pub use cache::EvalCache;
pub use dense::{bucket, MAX_BUCKETS, MAX_DENSE};
pub use features::{
    for_each_input, for_each_member, input_bucket, input_index, Boards, INPUTS, MAX_INPUT_BUCKETS,
    MAX_PIECES,
};
pub use network::Network;
pub use transformer::{FeatureRows, MAX_HIDDEN};

/// An activation of 1.0 is this integer (the clip of every layer).
pub const QA: i32 = 127;
/// A dense weight of 1.0 is this integer; dense sums are divided by it.
pub const QB: i32 = 256;
/// log2 of [`QB`].
pub const QB_SHIFT: u32 = 8;
/// Scores beyond this are clipped (far from the search's win scores).
pub const MAX_SCORE: i32 = 10_000;
