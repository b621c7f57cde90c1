//! What every front end's session is made of, below the protocols (the
//! kingme session, Hub, DXP) and the transports that drive them, so that
//! each reaches it without going through another:
//!
//! - [`Flow`]: whether a session goes on after an input.
//! - [`events`]: the queue a session's searches report on, which never
//!   drops a search's answer.
//! - [`Policy`]: what a session asks of its server (authentication, search
//!   slots, the longest search, table memory); [`Local`] allows everything,
//!   and the network servers' own is [`crate::server::SessionPolicy`].

pub mod events;
mod policy;

pub use events::{EventSender, Events, EVENT_QUEUE};
pub use policy::{Local, OverBudget, Policy, SlotGrant};

/// Whether a session (kingme, Hub or DXP) goes on after an input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// `quit` or the end of input: close after writing the replies (and
    /// after the running search's answer, which the session has already
    /// asked for).
    Quit,
}
