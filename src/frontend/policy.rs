//! What a server decides for one of its sessions, apart from the game: who
//! may use it, when its searches may start and how long they may run, and
//! how much table memory it may hold. A session asks; the server's policy
//! ([`crate::server::SessionPolicy`]) answers; a local session gets
//! [`Local`], which allows everything.

use crate::engine::SlotToken;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// A session's questions to its server. Each session has its own (it holds
/// the session's authentication and its share of the server's memory).
pub trait Policy: Send + 'static {
    /// Whether the client has yet to authenticate: until then only `auth`
    /// and `quit` are served.
    fn awaits_auth(&self) -> bool;

    /// The word an `auth` line carried: `true` lets the client in, `false`
    /// refuses it (the session then closes).
    fn authenticate(&mut self, word: &str) -> bool;

    /// Whether a search may start now.
    fn search_slot(&self) -> SlotGrant;

    /// What a queued search waits on: the driver awaits a permit from it and
    /// hands it to the session.
    fn slot_queue(&self) -> Option<Arc<Semaphore>>;

    /// The longest one search may run (`go infinite` and `analyze`
    /// included); `None`: no limit.
    fn max_search_time(&self) -> Option<Duration>;

    /// Holds `mib` MiB of the server's table memory for this session's
    /// table instead of what it held (`None`: nothing), and returns what it
    /// held before; when `mib` does not fit, what it held is kept.
    fn hold_hash(&mut self, mib: Option<usize>) -> Result<Option<usize>, OverBudget>;
}

/// The answer to [`Policy::search_slot`].
#[derive(Debug)]
pub enum SlotGrant {
    /// Start now, holding this until the search ends (`None`: no cap).
    Now(Option<SlotToken>),
    /// Every slot is busy: queue the search until [`Policy::slot_queue`]
    /// grants a permit.
    Busy,
    /// The server is shutting down: no search starts.
    Closed,
}

/// Why a table size was refused: it does not fit the server's hash budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Hash {asked} MiB does not fit this server's hash budget ({free} of {total} MiB free); Hash is unchanged")]
pub struct OverBudget {
    /// The size asked for.
    pub asked: usize,
    /// What is free for it (its own reservation included).
    pub free: usize,
    /// The whole budget.
    pub total: usize,
}

/// The policy of a local session (stdio, tests): no authentication, no cap
/// on searches, their time or their tables.
#[derive(Clone, Copy, Debug, Default)]
pub struct Local;

impl Policy for Local {
    fn awaits_auth(&self) -> bool {
        false
    }

    fn authenticate(&mut self, _word: &str) -> bool {
        true
    }

    fn search_slot(&self) -> SlotGrant {
        SlotGrant::Now(None)
    }

    fn slot_queue(&self) -> Option<Arc<Semaphore>> {
        None
    }

    fn max_search_time(&self) -> Option<Duration> {
        None
    }

    fn hold_hash(&mut self, _mib: Option<usize>) -> Result<Option<usize>, OverBudget> {
        Ok(None)
    }
}
