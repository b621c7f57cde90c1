//! Game review: every move of a finished game judged by the engine, and
//! proven where the endgame databases or the solved mini game know both
//! positions around it.
//!
//! - [`verdict`]: the expected result a score stands for (through the
//!   evaluation's scale `K`), the [`Thresholds`] that turn a loss into a
//!   [`Verdict`], and the [`Exact`] verdict in the databases' words.
//! - `judge`: one game reviewed ([`review_game`]) through a
//!   [`PositionSearch`] and [`ExactValues`], into [`MoveReview`]s.
//! - `exact`: the [`Oracle`] of exact values (databases, mini table).
//! - `summary`: each side's and each player's figures.
//! - [`json`]: the review as JSON, its schema and reader; `pdn`: the game
//!   annotated as PDN.

mod exact;
pub mod json;
mod judge;
mod pdn;
mod summary;
pub mod verdict;

pub use exact::Oracle;
pub use judge::{
    review_game, ExactValues, MoveReview, NoExactValues, Order, ParseSidesError, PositionSearch,
    ReviewSettings, Searched, Sides,
};
pub use pdn::{annotated_game, annotated_movetext};
pub use summary::{PlayerSummary, SideSummary};
pub use verdict::{expected, Exact, Thresholds, Verdict};
