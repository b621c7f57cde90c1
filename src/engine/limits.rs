//! The limits of one `go`, and how they (and the level) become the search's
//! limits: depth caps, noise, and the time a clock allows.

use super::{mini_table, EngineOptions, Level, MAX_MULTIPV};
use crate::board::{Color, Position, Variant};
use crate::search::{self, SearchLimits};
use std::time::Duration;

/// Limits of one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Black's clock.
    pub btime: Option<Duration>,
    /// White's clock.
    pub wtime: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Emit the search tree as trace events, at most this many nodes.
    pub trace: Option<u64>,
    /// Lines per iteration for this search, instead of the `MultiPV` option.
    pub multipv: Option<usize>,
    /// Search only these root moves (empty: all).
    pub searchmoves: Vec<crate::board::Move>,
}

impl Limits {
    /// Sets a game clock read the same for both sides (Hub and DXP send one
    /// reading): `left` on the mover's clock, `inc` per move, `movestogo`
    /// moves to the next time control.
    pub fn set_clock(&mut self, left: Duration, inc: Option<Duration>, movestogo: Option<u32>) {
        self.btime = Some(left);
        self.wtime = Some(left);
        self.binc = inc;
        self.winc = inc;
        self.movestogo = movestogo;
    }

    /// Whether any limit is given (else the level's default think time applies).
    #[must_use]
    pub fn has_limit(&self) -> bool {
        self.depth.is_some()
            || self.nodes.is_some()
            || self.movetime.is_some()
            || self.wtime.is_some()
            || self.btime.is_some()
            || self.infinite
            || self.ponder
    }
}

impl EngineOptions {
    /// Whether a search of `pos` plays from the solved mini-checkers table
    /// (mini-checkers at level max, with MiniTable on).
    pub(super) fn plays_from_mini_table(&self, pos: &Position) -> bool {
        pos.variant() == Variant::Mini && self.level == Level::Max && self.mini_table
    }

    /// Turns protocol limits into search limits for the side to move.
    pub(super) fn search_limits(&self, limits: &Limits, pos: &Position) -> SearchLimits {
        let mut sl = SearchLimits {
            depth: limits.depth,
            nodes: limits.nodes,
            noise: self.level.noise(),
            seed: if self.level.noise() > 0 {
                rand_seed()
            } else {
                0
            },
            trace: limits.trace,
            threads: self.threads,
            multipv: limits
                .multipv
                .unwrap_or(self.multipv)
                .clamp(1, MAX_MULTIPV as usize),
            searchmoves: limits.searchmoves.clone(),
            eval: self.eval.clone(),
            mini_table: if self.plays_from_mini_table(pos) {
                mini_table()
            } else {
                None
            },
            ..Default::default()
        };
        if let Some(d) = self.level.max_depth() {
            sl.depth = Some(sl.depth.map_or(d, |x| x.min(d)));
        }
        if let Some(mt) = limits.movetime {
            let hard = mt
                .saturating_sub(Duration::from_millis(3))
                .max(Duration::from_millis(1));
            sl.hard_time = Some(hard);
            sl.soft_time = Some(hard);
        } else {
            let (left, inc) = match pos.turn() {
                Color::Black => (limits.btime, limits.binc),
                Color::White => (limits.wtime, limits.winc),
            };
            if let Some(left) = left {
                let (soft, hard) =
                    search::clock_budget(left, inc.unwrap_or_default(), limits.movestogo);
                sl.soft_time = Some(soft);
                sl.hard_time = Some(hard);
            } else if !limits.has_limit() {
                let mt = self.level.default_movetime();
                sl.hard_time = Some(mt);
                sl.soft_time = Some(mt);
            }
        }
        sl
    }
}

/// A seed that differs from process to process (for the weaker levels' noise).
fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    h.finish()
}
