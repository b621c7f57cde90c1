//! The limits of one `go`, and how they (and the level) become the search's
//! limits: depth caps, noise, and the time a clock allows.

use super::{mini_table, EngineOptions, Level, MAX_MULTIPV};
use crate::board::{Color, Move, Position, Variant};
use crate::search::{self, SearchLimits, SoftTime};
use std::fmt;
use std::time::Duration;

/// The limits one `go` asks for (the client's request; the engine turns
/// them, with the level and the options, into the search's own
/// [`SearchLimits`]): its moves as the protocol sends them
/// (`GoLimits<String>`, the parsed command) or checked against the position
/// (`GoLimits<Move>`, what the engine searches with). The one list of
/// `go`'s limits: the parser, the command's text and the engine use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoLimits<M = Move> {
    /// `depth N`: iterations up to N plies.
    pub depth: Option<u32>,
    /// `nodes N`: stop after about N nodes.
    pub nodes: Option<u64>,
    /// `movetime MS`: think exactly this long.
    pub movetime: Option<Duration>,
    /// `wtime MS`: White's clock.
    pub wtime: Option<Duration>,
    /// `btime MS`: Black's clock.
    pub btime: Option<Duration>,
    /// `winc MS`: White's increment per move.
    pub winc: Option<Duration>,
    /// `binc MS`: Black's increment per move.
    pub binc: Option<Duration>,
    /// `movestogo N`: moves to the next time control.
    pub movestogo: Option<u32>,
    /// `infinite`: search until `stop`.
    pub infinite: bool,
    /// `ponder`: search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// `trace N`: report the search tree as trace events, at most N nodes.
    pub trace: Option<u64>,
    /// Lines per iteration for this search, instead of the `MultiPV` option
    /// (set by `analyze N`; no `go` argument).
    pub multipv: Option<usize>,
    /// `searchmoves <move> ...`: search only these root moves (empty: all).
    pub searchmoves: Vec<M>,
}

impl<M> Default for GoLimits<M> {
    fn default() -> Self {
        GoLimits {
            depth: None,
            nodes: None,
            movetime: None,
            wtime: None,
            btime: None,
            winc: None,
            binc: None,
            movestogo: None,
            infinite: false,
            ponder: false,
            trace: None,
            multipv: None,
            searchmoves: Vec::new(),
        }
    }
}

/// The words that name `go`'s limits, in the order the parser's error text
/// names them: the one list that text is made from.
pub const GO_KEYS: [&str; 12] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "trace",
    "searchmoves",
];

impl<M: fmt::Display> fmt::Display for GoLimits<M> {
    /// `go`'s arguments in canonical order (times in milliseconds), each
    /// preceded by a space.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Option<Duration>| d.map(|d| d.as_millis());
        let nums: [(&str, Option<u128>); 9] = [
            ("depth", self.depth.map(u128::from)),
            ("nodes", self.nodes.map(u128::from)),
            ("movetime", ms(self.movetime)),
            ("wtime", ms(self.wtime)),
            ("btime", ms(self.btime)),
            ("winc", ms(self.winc)),
            ("binc", ms(self.binc)),
            ("movestogo", self.movestogo.map(u128::from)),
            ("trace", self.trace.map(u128::from)),
        ];
        for (k, v) in nums {
            if let Some(v) = v {
                write!(f, " {k} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if self.ponder {
            f.write_str(" ponder")?;
        }
        if !self.searchmoves.is_empty() {
            f.write_str(" searchmoves")?;
            for m in &self.searchmoves {
                write!(f, " {m}")?;
            }
        }
        Ok(())
    }
}

impl<M> GoLimits<M> {
    /// The same limits with each of `searchmoves` turned by `f`; the first
    /// error stops.
    pub fn try_map_moves<N, E>(self, f: impl FnMut(M) -> Result<N, E>) -> Result<GoLimits<N>, E> {
        let searchmoves = self
            .searchmoves
            .into_iter()
            .map(f)
            .collect::<Result<_, _>>()?;
        Ok(GoLimits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime,
            wtime: self.wtime,
            btime: self.btime,
            winc: self.winc,
            binc: self.binc,
            movestogo: self.movestogo,
            infinite: self.infinite,
            ponder: self.ponder,
            trace: self.trace,
            multipv: self.multipv,
            searchmoves,
        })
    }

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
    pub(super) fn search_limits(&self, limits: &GoLimits, pos: &Position) -> SearchLimits {
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
            contempt: match pos.variant() {
                Variant::English => self.contempt,
                Variant::Mini => 0,
            },
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
            sl.soft_time = Some(SoftTime::Fixed(hard));
        } else {
            let (left, inc) = match pos.turn() {
                Color::Black => (limits.btime, limits.binc),
                Color::White => (limits.wtime, limits.winc),
            };
            if let Some(left) = left {
                let (soft, hard) =
                    search::clock_budget(left, inc.unwrap_or_default(), limits.movestogo);
                sl.soft_time = Some(SoftTime::Clock(soft));
                sl.hard_time = Some(hard);
            } else if !limits.has_limit_for(pos.turn()) {
                let mt = self.level.default_movetime();
                sl.hard_time = Some(mt);
                sl.soft_time = Some(SoftTime::Fixed(mt));
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
        let other = GoLimits {
            wtime: Some(ms(1000)),
            ..GoLimits::default()
        };
        let sl = opts.search_limits(&other, &start);
        assert_eq!(sl.hard_time, Some(opts.level.default_movetime()));
        let own = GoLimits {
            btime: Some(ms(1000)),
            ..GoLimits::default()
        };
        let sl = opts.search_limits(&own, &start);
        assert!(sl.hard_time.is_some_and(|t| t < ms(1000)), "{sl:?}");
        let depth = GoLimits {
            depth: Some(3),
            wtime: Some(ms(1000)),
            ..GoLimits::default()
        };
        assert_eq!(opts.search_limits(&depth, &start).hard_time, None);
    }
}
