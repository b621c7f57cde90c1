//! kingme-referee: engine-vs-engine matches and load tests for engines that speak
//! the kingme protocol (`protocol/PROTOCOL.md`), over TCP or stdio.
//!
//! # Layout
//!
//! - [`spec`]: the engines the referee plays, `tcp:HOST:PORT` or
//!   `cmd:"PROGRAM ARGS"` ([`EngineSpec`]; an engine in its own process is
//!   refused when read).
//! - [`engine`]: one engine connection to such an engine: handshake,
//!   options, `position`/`go`/`bestmove` with a deadline.
//! - [`openings`]: the ACF 3-move ballot deck (156) for English, the 0-2 ply
//!   openings for mini-checkers.
//! - [`game`]: one refereed game: every move checked with the kingme rules, the
//!   clock kept, faults (illegal move, timeout, crash) scored as losses.
//! - [`schedule`]: what defines a run (engines, tournament, games, openings,
//!   limits, seed), the games it is made of, and its shards.
//! - [`runner`]: a run of a schedule: concurrent games, the state file kept,
//!   SPRT stop, PDN out; a match of two engines is one.
//! - [`standings`]: the count of a run as games come in, and the reports made
//!   from it ([`report`]: the match and tournament summaries).
//! - [`state`]: the state file a run resumes from.
//! - [`merge`]: shard states counted as one run.
//! - [`stats`]: Elo with a 95% interval, LOS, the GSPRT log-likelihood ratio.
//! - [`rating`]: one Elo table for many engines, by maximum likelihood.
//! - [`pdn`]: writing and reading PDN game records.
//! - [`load`]: many concurrent sessions hammering one server, with latencies;
//!   [`load_report`]: what it measured.

pub mod engine;
pub mod game;
pub mod load;
pub mod load_report;
pub use kingme::openings;
pub mod merge;
pub mod pdn;
pub mod rating;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod spec;
pub mod standings;
pub mod state;
pub mod stats;

pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{GameRecord, Side, Termination, TimeControl};
pub use runner::{MatchConfig, MatchReport};
