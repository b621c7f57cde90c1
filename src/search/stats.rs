//! The counters a search keeps and the iterations it reports.

use super::Score;
use crate::board::Move;
use std::time::Duration;

/// Counters kept by a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes visited.
    pub nodes: u64,
    /// Beta cut-offs where the root's side was to move (max nodes).
    pub prunes_max: u64,
    /// Beta cut-offs where the opponent was to move (min nodes).
    pub prunes_min: u64,
    /// Transposition table hits that gave a usable entry.
    pub tt_hits: u64,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Endgame database probes that gave a value.
    pub egdb_probes: u64,
}

impl Stats {
    pub(super) fn add(&mut self, o: &Stats) {
        self.nodes += o.nodes;
        self.prunes_max += o.prunes_max;
        self.prunes_min += o.prunes_min;
        self.tt_hits += o.tt_hits;
        self.seldepth = self.seldepth.max(o.seldepth);
        self.egdb_probes += o.egdb_probes;
    }
}

/// One finished iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Nominal depth.
    pub depth: u32,
    /// Score from the side to move's view.
    pub score: Score,
    /// Counters for the whole search so far (all threads).
    pub stats: Stats,
    /// Time since the search started.
    pub time: Duration,
    /// Principal variation, starting with the best move.
    pub pv: Vec<Move>,
    /// With several lines per iteration (MultiPV), this line's rank from 1;
    /// `None` for the classic one-line search.
    pub multipv: Option<u32>,
}
