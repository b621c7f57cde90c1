//! Scan's Hub protocol (version 2) on stdin/stdout: `kingme hub`, the way
//! pydraughts' `HubEngine` and other Hub GUIs drive an engine.
//!
//! ```text
//! hub                      -> id name=kingme version=.. author=".."
//!                             param name=variant value=english type=enum values="english mini"
//!                             param ... (every option with a Hub name)
//!                             wait
//! set-param name=N value=V    (the same names)
//! init                     -> ready
//! new-game
//! pos [start] [pos=<side><squares>] [moves="<hub moves>"]
//! level depth=N | nodes=N | move-time=S | [moves=N] time=S [inc=S] | infinite
//! go think|ponder|analyze  -> info depth=.. score=.. nodes=.. time=.. nps=.. egdb=.. pv=".."
//!                             (with multipv=N > 1: the best N moves each iteration,
//!                             one info line each with multipv=K after depth, best first)
//!                             done move=M [ponder=P]
//! ping -> pong, ponder-hit, stop, quit; at EOF a running limited search still reports
//! ```
//!
//! The parameters are the options of the one registry
//! ([`crate::engine::option_table::REGISTRY`]) that have a Hub name; the
//! Hub column of PROTOCOL.md's option table lists them.
//!
//! Positions and moves use pydraughts' English conventions (see [`wire`]).
//! Scores are in men (`score=0.35`); a win in N plies is `100 - N/100`, which
//! pydraughts reads as a forced win. Bad input gets `error message=".."` and is
//! otherwise ignored; unknown commands are ignored, as the protocol asks. Every
//! `go` gets exactly one `done`: `done move=0-0` when there is no move to give,
//! and after the error of a `go` that can't search (no position, or a search
//! already running, which still ends with its own `done`). A search that fails
//! answers too (see [`crate::engine::Engine::go`]). Nothing is ever written to
//! stderr.
//!
//! - [`wire`]: Hub's line syntax, positions and moves.
//! - `session`: `HubSession`, lines and search events in, lines out.
//! - `runner`: the session on stdin and stdout, driven by the server's
//!   [`driver`](crate::server::driver) like every other front end.

mod runner;
mod session;
pub mod wire;

pub use runner::{run, serve};
pub use session::{format_score, HubSession};

#[cfg(test)]
mod tests;
