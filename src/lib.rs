//! kingme: a checkers engine for English draughts (8x8) and 6x6 mini-checkers.
//!
//! # Layout
//!
//! - [`board`]: the rules. `Bitboard`, `Square`, `Color`, `Piece`, `Move`,
//!   `MoveList`, `Position` (FEN in and out, Zobrist key), move notation, legal
//!   move generation per variant behind the [`board::Rules`] trait, and `Game`
//!   (history, undo, repetition, the 40-move rule, results).
//! - [`perft`]: move-tree counting, the check on move generation.
//! - [`solve`]: the exact value (win, draw or loss, and plies to the end) of
//!   any mini-checkers position: `GameValue`, `MiniSolver`, and the shared
//!   `MiniTablebase` of every position reachable from the start.
//! - [`protocol`]: the kingme line protocol (`protocol/PROTOCOL.md`): the nom
//!   parsed `Command`, the `Response` lines, and the transport-independent
//!   `Session` state machine.
//! - [`hub`]: Scan's Hub protocol on stdio (`kingme hub`) with pydraughts'
//!   English position and move conventions.
//! - [`dxp`]: a DamExchange follower over TCP (`kingme dxp`), in pydraughts'
//!   English dialect.
//! - [`server`]: the transports driving a `Session`: stdio (the default) and
//!   TCP (`--listen`), with line, connection, search and idle limits.
//!
//! Text goes in through `FromStr`/`parse_*` and out through `Display`.

pub mod board;
pub mod dxp;
pub mod hub;
pub mod perft;
pub mod protocol;
pub mod server;
pub mod solve;

pub use board::{Color, Game, Move, MoveList, Position, Square, Variant};
pub mod bench;
pub mod engine;
pub mod eval;
pub mod search;
