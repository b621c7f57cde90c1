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

    /// Whether a limit applies to a search with `turn` to move (else the
    /// level's default think time does): a clock counts only for the side to
    /// move, so `go wtime T` with Black to move still ends.
    #[must_use]
    pub fn has_limit_for(&self, turn: Color) -> bool {
        let clock = match turn {
            Color::Black => self.btime,
            Color::White => self.wtime,
        };
        self.depth.is_some()
            || self.nodes.is_some()
            || self.movetime.is_some()
            || clock.is_some()
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
            } else if !limits.has_limit_for(pos.turn()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock for the side not to move only (or a GUI sending one clock)
    /// still gives the search a time limit.
    #[test]
    fn a_clock_of_the_other_side_only_falls_back_to_the_default_time() {
        let opts = EngineOptions::default();
        let start = Position::startpos(Variant::English); // Black to move
        let ms = Duration::from_millis;
        let other = Limits {
            wtime: Some(ms(1000)),
            ..Limits::default()
        };
        let sl = opts.search_limits(&other, &start);
        assert_eq!(sl.hard_time, Some(opts.level.default_movetime()));
        let own = Limits {
            btime: Some(ms(1000)),
            ..Limits::default()
        };
        let sl = opts.search_limits(&own, &start);
        assert!(sl.hard_time.is_some_and(|t| t < ms(1000)), "{sl:?}");
        let depth = Limits {
            depth: Some(3),
            wtime: Some(ms(1000)),
            ..Limits::default()
        };
        assert_eq!(opts.search_limits(&depth, &start).hard_time, None);
    }
}
