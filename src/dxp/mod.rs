//! DXP (DamExchange) follower over TCP: `kingme dxp --listen 127.0.0.1:27531`.
//!
//! The initiator (e.g. pydraughts' `DXPEngine`) connects and sends GAMEREQ;
//! we answer GAMEACC, then MOVE messages alternate until a GAMEEND, which the
//! other side echoes. One connection plays one game at a time, with its own
//! engine; several connections play at once up to a limit, in all and from
//! one address (one more has its GAMEREQ refused with code 3 and is closed).
//! The server is the same tokio listener as kingme's TCP server with the
//! same [`ServerLimits`](crate::server::ServerLimits): a task per
//! connection, searches on engine threads up to the search-slot cap (more
//! wait their turn), every game's table within the hash budget, graceful
//! shutdown on SIGINT or SIGTERM, an idle timeout.
//!
//! English dialect (pydraughts'): squares 01-32 in moves; a set-up position is
//! 32 characters where character `k` (1-based) is square `33 - k`, `w`/`W` a
//! Black man/king, `z`/`Z` a White man/king, `e` empty; in colour fields
//! (follower, side to move, BACKREQ) `Z` is Black and `W` is White. The DXP
//! standard is 10x10; other board sizes are refused with GAMEACC code 2.
//!
//! Every message goes out in its own write, at least [`DxpConfig::message_gap`]
//! after the previous one: pydraughts reads one `recv()` per message and loses
//! a second message that arrives with the first. The clock from GAMEREQ is
//! kept (our thinking time, from the moment it is our turn to our MOVE); with
//! no clock each move gets [`DxpConfig::movetime`]. Takebacks are declined
//! (`K1`), chat is logged, and bad messages are logged and ignored.
//!
//! - [`message`]: the DXP messages, parsed and written.
//! - [`board`]: positions, colours and moves in pydraughts' English dialect.
//! - `codec`: NUL-ended messages on TCP.
//! - `connection`: one connection's game as a state machine (no I/O).
//! - `server`: the listener, the connection loop and the settings.

pub mod board;
mod codec;
mod config;
mod connection;
pub mod message;
mod server;

pub use board::{
    color_of, dxp_color, find_move, format_board, move_message, parse_board, DxpGameError,
};
pub use config::{DxpConfig, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_GAMES};
pub use message::{DxpColor, DxpMessage, DxpMove, GameReq, ParseDxpError, MAX_MESSAGE};
pub use server::{run, serve};

#[cfg(test)]
mod tests;
