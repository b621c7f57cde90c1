//! What a search reports: [`Event`]s, and the [`Info`] of an iteration.

use crate::board::Move;
use crate::perft::PerftInterrupted;
use crate::search::{Iteration, Score, Stats, TraceNode};
use std::time::Duration;

/// Statistics of one iteration, as the protocol's `info` line shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// With MultiPV above 1, this line's rank (1 = best); `None` otherwise.
    pub multipv: Option<u32>,
    /// Score from the side to move's view.
    pub score: Score,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Cut-offs where the engine's side was to move.
    pub prunes_max: u64,
    /// Cut-offs where the opponent was to move.
    pub prunes_min: u64,
    /// Usable transposition table hits.
    pub tt_hits: u64,
    /// Endgame database probes that gave a value.
    pub egdb_probes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since `go`.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
}

impl Default for Info {
    /// Depth 0, a score of 0, no counts, no moves.
    fn default() -> Info {
        Info {
            depth: 0,
            seldepth: 0,
            multipv: None,
            score: Score::Eval(0),
            nodes: 0,
            prunes_max: 0,
            prunes_min: 0,
            tt_hits: 0,
            egdb_probes: 0,
            nps: 0,
            time: Duration::ZERO,
            pv: Vec::new(),
        }
    }
}

impl Info {
    /// Cut-offs in total.
    #[must_use]
    pub fn prunes(&self) -> u64 {
        self.prunes_max + self.prunes_min
    }

    /// The line of a result (`depth`, `multipv`, `score`, `pv`) with the
    /// search's statistics so far.
    pub(super) fn new(line: &Iteration, stats: &Stats, time: Duration) -> Info {
        let secs = time.as_secs_f64().max(1e-6);
        Info {
            depth: line.depth,
            seldepth: stats.seldepth,
            multipv: line.multipv,
            score: line.score,
            nodes: stats.nodes,
            prunes_max: stats.prunes_max,
            prunes_min: stats.prunes_min,
            tt_hits: stats.tt_hits,
            egdb_probes: stats.egdb_probes,
            nps: (stats.nodes as f64 / secs) as u64,
            time,
            pv: line.pv.clone(),
        }
    }

    /// The line of a book move: its book value and depth, no search.
    #[must_use]
    pub fn of_book_move(mv: Move, score: Score, depth: u32) -> Info {
        Info {
            depth,
            seldepth: depth,
            score,
            pv: vec![mv],
            ..Info::default()
        }
    }

    pub(super) fn from_iteration(it: &Iteration) -> Info {
        Info::new(it, &it.stats, it.time)
    }
}

/// The callback a search reports through.
pub(super) type OnEvent = Box<dyn FnMut(Event) + Send>;

/// What a search reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A completed iteration, and a final summary before `BestMove`.
    Info(Info),
    /// One node of the search tree (only with `GoLimits::trace`).
    Trace(TraceNode),
    /// The answer: exactly one per search. `mv` is `None` only without a legal move.
    BestMove {
        /// The move to play.
        mv: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
    },
    /// The move comes from the opening book: sent instead of any `Info`,
    /// just before its `BestMove`.
    Book {
        /// The book move.
        mv: Move,
        /// Its value in the book, for the player making it.
        score: Score,
        /// Plies below the move its value comes from.
        depth: u32,
    },
    /// One move judged by [`Engine::review`](super::Engine::review), as soon
    /// as it is judged.
    Reviewed(Box<crate::review::MoveReview>),
    /// The answer of a review: exactly one, after its `Reviewed` events.
    ReviewDone(super::review::ReviewEnd),
    /// The answer of [`Engine::perft`](super::Engine::perft): exactly one per count.
    Perft {
        /// Plies counted.
        depth: u32,
        /// The leaf count, or why the count gave up.
        leaves: Result<u64, PerftInterrupted>,
        /// Time since the count started.
        time: Duration,
    },
}
