//! What a network server allows all its clients together, the same for
//! kingme's TCP server and DXP's: connections (in all and per address),
//! searches running at once, and the memory of every table. The defaults
//! here are the only statement of them: the command lines and the docs
//! take theirs from these.

use super::budget::HashBudget;
use super::policy::ServerPolicy;
use crate::protocol::Token;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Default [`ServerLimits::max_connections`]: with each session's default
/// 16 MiB table, the default hash budget holds every connection's table.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// Default [`ServerLimits::max_per_address`].
pub const DEFAULT_MAX_PER_ADDRESS: usize = 32;

/// A server's caps on all its clients together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Connections served at once; one more is refused and closed.
    pub max_connections: usize,
    /// Connections served at once from one client address (IP).
    pub max_per_address: usize,
    /// Searches running at once across all connections (default: cores - 1,
    /// at least 1); more wait in a fair queue.
    pub max_searches: usize,
    /// The sum of every connection's table (`Hash`), in MiB; a table over
    /// it is refused.
    pub hash_budget_mib: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_per_address: DEFAULT_MAX_PER_ADDRESS,
            max_searches: default_max_searches(),
            hash_budget_mib: default_hash_budget_mib(),
        }
    }
}

impl ServerLimits {
    /// The policy of one run of a server with these limits (its own search
    /// slots and hash budget), with `token` to require and the longest
    /// search.
    #[must_use]
    pub fn policy(&self, token: Option<Token>, max_search_time: Option<Duration>) -> ServerPolicy {
        ServerPolicy {
            token,
            search_slots: Some(Arc::new(Semaphore::new(self.max_searches.max(1)))),
            hash_budget: Some(HashBudget::new(self.hash_budget_mib)),
            max_search_time,
        }
    }
}

/// The flags of [`ServerLimits`] every TCP server shares (`kingme --listen`,
/// `kingme dxp`); each names its own connection cap.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServerLimitArgs {
    /// TCP: connections served at once from one client address.
    #[arg(long, default_value_t = DEFAULT_MAX_PER_ADDRESS)]
    pub max_per_address: usize,
    /// TCP: searches running at once across all clients [default: cores - 1, at least 1].
    #[arg(long)]
    pub max_searches: Option<usize>,
    /// TCP: the sum of all sessions' Hash, in MiB [default: 1024 or a quarter
    /// of physical memory, whichever is less].
    #[arg(long, value_name = "MIB")]
    pub hash_budget: Option<usize>,
}

impl ServerLimitArgs {
    /// The limits these flags set, with `max_connections` at once; what they
    /// leave out is [`ServerLimits::default`]'s. Every cap is at least 1.
    #[must_use]
    pub fn limits(&self, max_connections: usize) -> ServerLimits {
        let d = ServerLimits::default();
        ServerLimits {
            max_connections: max_connections.max(1),
            max_per_address: self.max_per_address.max(1),
            max_searches: self.max_searches.unwrap_or(d.max_searches).max(1),
            hash_budget_mib: self.hash_budget.unwrap_or(d.hash_budget_mib).max(1),
        }
    }
}

/// The default [`ServerLimits::max_searches`]: the number of cores less one,
/// at least 1. One core stays free for the network, so `stop` and
/// `isready` are answered at once even when every slot is searching.
#[must_use]
pub fn default_max_searches() -> usize {
    cores().saturating_sub(1).max(1)
}

/// The number of cores (1 where the system does not say).
#[must_use]
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default hash budget: 1024 MiB or a quarter of physical memory,
/// whichever is less.
#[must_use]
pub fn default_hash_budget_mib() -> usize {
    let quarter = physical_memory_mib().map_or(1024, |m| m / 4);
    quarter.clamp(16, 1024)
}

/// Physical memory in MiB, where the system says.
fn physical_memory_mib() -> Option<usize> {
    let kb = crate::proc_info::kb("/proc/meminfo", "MemTotal")?;
    usize::try_from(kb / 1024).ok()
}
