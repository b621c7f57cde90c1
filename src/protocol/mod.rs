//! The kingme protocol (`protocol/PROTOCOL.md`): a UCI-like line protocol.
//!
//! - [`Command`]: what a client sends, parsed by a nom grammar (`FromStr`) and
//!   written back canonically (`Display`).
//! - [`Response`]: what the engine sends, rendered by `Display`.
//! - [`options`]: the engine's option table (its home is
//!   [`crate::engine::option_table`]), re-exported for the protocol's users.
//! - [`Session`]: one client's game, options and search as a state machine that
//!   turns lines and engine events into responses, asking its server's
//!   [`Policy`](crate::frontend::Policy) what it may do. The stdio and TCP
//!   transports in [`crate::server`] both drive it.
//! - [`Token`]: the secret `auth` sends.

mod command;
mod parse;
mod response;
mod response_parse;
mod response_review;
mod session;
mod token;

pub use crate::engine::option_table as options;
/// The events a [`Session`]'s searches send, as [`Session::new`] returns them.
pub use crate::frontend::Events;
pub use command::{
    Command, GoParams, ParseCommandError, ReviewParams, StartPos, MAX_ANALYZE_LINES, MAX_GO_DEPTH,
    MAX_PERFT_DEPTH, REVIEW_DEFAULT_MOVETIME_MS,
};
pub use options::{
    parse_bool, parse_option, set_option, OptionDecl, OptionError, OptionKind, OptionValue,
    Registry, REGISTRY,
};
pub use parse::shorten;
pub use response::{help_text, help_text_for, Refusal, Response, PROTOCOL_VERSION};
pub use response_parse::ParseResponseError;
pub use session::{Session, SessionConfig, AUTH_REQUEST};
pub use token::{Token, TokenError, MAX_TOKEN, TOKEN_ENV};
