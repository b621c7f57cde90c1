//! The exact game-theoretic value of mini-checkers positions.
//!
//! Every mini-checkers game ends (every real move advances a piece, and a
//! `pass` only happens when the opponent can move), so the game tree is a
//! finite DAG and its value is known exactly: win, draw or loss for the side to
//! move, and how many plies the game lasts with best play.
//!
//! - [`GameValue`] is such a value, ordered from the mover's point of view.
//! - [`MiniSolver`] solves positions on demand and remembers every value it found.
//! - [`MiniTablebase::global`] is a shared, read-only table of every position
//!   reachable from the start position, built on first use, which also answers
//!   for positions outside it (from a FEN, say).
//!
//! A position is identified by its black men, white men and side to move
//! (mini-checkers has no kings; the Zobrist key is not used), and a position
//! with White to move shares its entry with its mirror image (board turned half
//! a turn, colours swapped), which has the same value.
//!
//! The start position reaches [`START_POSITIONS`] positions. `MiniSolver`
//! solves them one by one (memoised negamax, one thread);
//! `MiniTablebase::build` solves them layer by layer (men on the board, then
//! advancement) on all threads, and keeps their values (`RESULTS.md` gives its time
//! and memory).
//!
//! - `value`: `GameValue`, a position's exact value.
//! - `key`: the key of a position in the tables (its men, folded onto the
//!   mover's side).
//! - `memo`: the compact map from keys to values.
//! - `keymoves`: the moves of a position made directly on its key.
//! - `index`: a dense numbering of the positions of each material class.
//! - `zeroed`: large zero-filled arrays on huge pages, for the build.
//! - `layered`: the layer-by-layer build of every reachable position;
//!   `reached`: its marks of the positions seen and lists of new ones;
//!   `layer_sort`: its sort of a layer's list.
//! - `solver`: `MiniSolver`, memoised negamax over the game DAG.
//! - `table`: `MiniTablebase`, the shared table of every reachable position.

mod index;
mod key;
mod keymoves;
mod layer_sort;
mod layered;
mod memo;
mod reached;
mod solver;
mod table;
mod value;
mod zeroed;

pub use solver::{MiniSolver, START_POSITIONS};
pub use table::MiniTablebase;
pub use value::{GameValue, ValueKind};

#[cfg(test)]
mod tests;
