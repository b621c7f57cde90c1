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
//! - [`runner`]: a match: concurrent games, running score, SPRT stop, PDN out.
//! - [`stats`]: Elo with a 95% interval, LOS, the GSPRT log-likelihood ratio.
//! - [`pdn`]: writing and reading PDN game records.
//! - [`load`]: many concurrent sessions hammering one server, with latencies;
//!   [`load_report`]: what it measured.

pub mod engine;
pub mod game;
pub mod load;
pub mod load_report;
pub use kingme::openings;
pub mod pdn;
pub mod runner;
pub mod spec;
pub mod stats;

pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{GameRecord, Side, Termination, TimeControl};
pub use runner::{MatchConfig, MatchReport};
