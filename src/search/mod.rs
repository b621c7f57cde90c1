//! Iterative-deepening principal variation search with a shared transposition
//! table, move ordering, repetition draws and exact win/loss scores.
//!
//! The search never prints: it reports through [`SearchReport`] callbacks,
//! which the [`crate::engine`] turns into events.
//!
//! - [`deepening`]: the root: iterative deepening, helper threads, the result.
//! - [`node`]: the alpha-beta (principal variation) search of one node, with
//!   late-move reductions, ProbCut and singular extensions.
//! - `leaves`: each thread's cache of the static scores of the leaves it
//!   evaluated.
//! - [`ordering`]: move-ordering keys, killer moves and the history table.
//! - `reductions`: how many plies a late quiet move's search loses.
//! - `singular`: whether the table's move stands alone, to extend it.
//! - [`time`]: when to stop: clock budgets and their stability scaling, time
//!   and node limits.
//! - [`stats`]: the counters a search keeps and the iterations it reports.
//! - [`tt`]: the transposition table shared by every search thread.

pub mod deepening;
mod leaves;
pub mod node;
pub mod ordering;
mod reductions;
mod score;
mod singular;
pub mod stats;
pub mod time;
pub mod tt;

use crate::board::Move;
use crate::eval;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

pub use deepening::search;
pub use score::{ParseScoreError, Score};
pub use stats::{Iteration, Stats};
pub use time::{clock_budget, Stability};

/// Larger than any score.
pub const INF: i32 = 32_000;
/// The score of a win at the root; a win in N plies scores `WIN - N`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// A database win found `ply` plies from the root scores `WIN - DB_WIN_PLIES - ply`:
/// certain, but further than any win the search itself sees, whose length it
/// does not know (the database knows the value, not the game's length).
pub const DB_WIN_PLIES: i32 = 500;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;

/// One node of the search tree, for the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceNode {
    /// Distance from the root.
    pub ply: u32,
    /// The move that led here (`None` at the root).
    pub mv: Option<Move>,
    /// Window on entry.
    pub alpha: i32,
    /// Window on entry.
    pub beta: i32,
    /// Value returned (side to move's view).
    pub value: i32,
    /// Moves left unsearched by a cut-off.
    pub pruned: Vec<Move>,
}

/// Where a search sends what it finds.
pub trait SearchReport {
    /// A completed iteration.
    fn iteration(&mut self, it: &Iteration);
    /// A traced node (only with a trace cap).
    fn trace(&mut self, node: TraceNode);
}

/// What one search runs with: its depth, node and time budgets (the
/// engine's reading of a `go`'s [`GoLimits`](crate::engine::GoLimits) at
/// the level), and the evaluation, threads and databases it uses.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Maximum nominal depth.
    pub depth: Option<u32>,
    /// Maximum nodes (main thread count).
    pub nodes: Option<u64>,
    /// Stop starting iterations after this.
    pub soft_time: Option<SoftTime>,
    /// Stop at once after this.
    pub hard_time: Option<Duration>,
    /// Leaf noise amplitude in centi-men (weaker levels).
    pub noise: i32,
    /// Seed for the noise.
    pub seed: u64,
    /// Emit at most this many trace nodes.
    pub trace: Option<u64>,
    /// Number of threads.
    pub threads: usize,
    /// How English positions are evaluated.
    pub eval: eval::Evaluator,
    /// Exact mini-checkers values to use below the root (perfect play).
    pub mini_table: Option<&'static crate::solve::MiniTablebase>,
    /// English endgame databases, probed in every position of at most
    /// `egdb_pieces` pieces (captures pending or not: the databases hold them all).
    pub egdb: Option<std::sync::Arc<crate::egdb::Tablebase>>,
    /// Most pieces of a position probed in `egdb` (0: none).
    pub egdb_pieces: u32,
    /// Report the best this many root moves per iteration (0 and 1: one line,
    /// the classic search).
    pub multipv: usize,
    /// Search only these root moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
    /// Centi-men a draw found by the search (repetition, forty moves, a
    /// database draw) is worth less than 0 to the root's side to move.
    pub contempt: i32,
}

/// When a search stops starting iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftTime {
    /// After this time, whatever the iterations found (a fixed move time).
    Fixed(Duration),
    /// After a game clock's budget for the move, stretched or shrunk by the
    /// iterations' [`Stability`] within the hard limit.
    Clock(Duration),
}

impl SoftTime {
    /// The time before any scaling.
    #[must_use]
    pub fn budget(self) -> Duration {
        match self {
            SoftTime::Fixed(t) | SoftTime::Clock(t) => t,
        }
    }

    /// The same kind of limit, `spent` earlier.
    #[must_use]
    pub fn saturating_sub(self, spent: Duration) -> SoftTime {
        match self {
            SoftTime::Fixed(t) => SoftTime::Fixed(t.saturating_sub(spent)),
            SoftTime::Clock(t) => SoftTime::Clock(t.saturating_sub(spent)),
        }
    }
}

impl SearchLimits {
    /// The score of a draw for the side to move `ply` plies below the root:
    /// the contempt below 0 for the root's side, above 0 for the other.
    #[inline]
    #[must_use]
    pub fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            -self.contempt
        } else {
            self.contempt
        }
    }
}

/// Flags shared between the controller and the search threads.
#[derive(Debug, Default)]
pub struct Control {
    /// Set to end the search (by the caller, or by the search itself when
    /// its limits are reached).
    pub stop: AtomicBool,
    /// Set by the caller only, with `stop`: the end was asked for (a
    /// sequence of searches on one control, a review, ends with it).
    pub requested: AtomicBool,
    /// While set, time limits are suspended (ponder / infinite).
    pub hold: AtomicBool,
    /// Microseconds since the start at which the clock started (ponderhit).
    pub clock_start_us: AtomicU64,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The best move (None if there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The last completed iteration, if any.
    pub last: Option<Iteration>,
    /// Final counters.
    pub stats: Stats,
    /// Total time.
    pub time: Duration,
}

/// The game history a search needs: positions since the last irreversible move
/// (the default: none, a position searched alone).
#[derive(Clone, Debug, Default)]
pub struct History {
    /// Hashes of earlier positions, oldest first, the root not included.
    pub hashes: Vec<u64>,
    /// Plies since the last capture or man move at the root.
    pub quiet: u32,
}
