//! The board's settings and what every request handler shares: the limits
//! of a tab's lines and messages, [`WebConfig`], the live counters.

use crate::access::Key;
use crate::engine::EngineSpec;
use kingme::protocol::SessionConfig;
use kingme::server::{HashBudget, ServerPolicy};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Semaphore};

/// Longest protocol line accepted from the page, in bytes (as the engine's own limit).
pub const MAX_LINE: usize = kingme::server::MAX_LINE;
/// Longest WebSocket message answered with an `error` line rather than read.
pub const MAX_MESSAGE: usize = 64 * 1024;
/// Longest WebSocket message (and frame) read at all; a bigger one closes the
/// socket with code 1009 (message too big).
pub const MAX_FRAME: usize = 1024 * 1024;

/// Default [`WebConfig::idle_timeout`].
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Settings of the web server.
#[derive(Clone, Debug)]
pub struct WebConfig {
    /// Where sessions run: [`EngineSpec::InProcess`], or a kingme TCP server
    /// (its token, if any, sent as `auth TOKEN` on each tab's connection).
    pub engine: EngineSpec,
    /// Tabs served at once; one more gets an `error` line and is closed.
    pub max_sessions: usize,
    /// In-process searches running at once; more wait in a fair queue.
    pub max_searches: usize,
    /// A tab that can't take our output for this long is closed.
    pub write_timeout: Duration,
    /// An in-process session with no message from its tab for this long, and no
    /// search running, is closed (a tab left open must not hold a session slot
    /// forever). Over TCP the engine server's own idle timeout applies.
    pub idle_timeout: Duration,
    /// What each in-process session's commands allow.
    pub session: SessionConfig,
    /// What the in-process sessions share: the hash budget of every tab,
    /// the longest search (its search slots are set by [`app`](crate::app) from
    /// `max_searches`).
    pub policy: ServerPolicy,
    /// Host names served besides loopback ones, as [`host_name`](crate::host_name) gives them.
    pub allowed_hosts: Vec<String>,
    /// The key every request must carry, if any.
    pub key: Option<Key>,
}

impl Default for WebConfig {
    /// The limits of the engine's own TCP server.
    fn default() -> Self {
        let tcp = kingme::server::ServerConfig::default();
        WebConfig {
            engine: EngineSpec::InProcess,
            max_sessions: tcp.limits.max_connections,
            max_searches: tcp.limits.max_searches,
            write_timeout: tcp.write_timeout,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            session: tcp.session,
            policy: ServerPolicy {
                hash_budget: Some(HashBudget::new(tcp.limits.hash_budget_mib)),
                max_search_time: tcp.max_search_time,
                ..ServerPolicy::default()
            },
            allowed_hosts: Vec::new(),
            key: None,
        }
    }
}

/// Live counters, for logs and tests.
#[derive(Debug, Default)]
pub struct Stats {
    pub(crate) sessions: AtomicUsize,
}

impl Stats {
    /// Tabs whose session is still open (a session counts until its search
    /// thread has been joined).
    #[must_use]
    pub fn sessions(&self) -> usize {
        self.sessions.load(Ordering::SeqCst)
    }
}

/// What every request handler shares.
pub(crate) struct Shared {
    pub(crate) config: WebConfig,
    pub(crate) stats: Arc<Stats>,
    pub(crate) tabs: Arc<Semaphore>,
    pub(crate) shutdown: watch::Receiver<bool>,
}
