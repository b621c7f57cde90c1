//! A network server's policy for its sessions: the token a client must send
//! first, the search slots every session shares (more searches wait in a
//! fair queue), the longest search, and the hash budget every session's
//! table is reserved from. One [`ServerPolicy`] per server; each session
//! gets its own [`SessionPolicy`] from it.

use super::budget::{HashBudget, Reservation};
use crate::frontend::{OverBudget, Policy, SlotGrant};
use crate::protocol::Token;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, TryAcquireError};

/// What a server's sessions share; each field unset means no such check.
/// The default checks nothing (a local session with no token).
#[derive(Clone, Debug, Default)]
pub struct ServerPolicy {
    /// When set, `auth <token>` must come first.
    pub token: Option<Token>,
    /// Searches running at once across all sessions.
    pub search_slots: Option<Arc<Semaphore>>,
    /// The cap on the sum of the sessions' tables.
    pub hash_budget: Option<Arc<HashBudget>>,
    /// Longest any one search may run; the driver stops it then.
    pub max_search_time: Option<Duration>,
}

impl ServerPolicy {
    /// One new session's policy: not yet authenticated (when there is a
    /// token), holding nothing of the hash budget.
    #[must_use]
    pub fn session(&self) -> SessionPolicy {
        SessionPolicy {
            authed: self.token.is_none(),
            server: self.clone(),
            reservation: None,
        }
    }

    /// Closes the search slots: queued searches answer at once, and no new
    /// search starts (at shutdown).
    pub fn close_slots(&self) {
        if let Some(s) = &self.search_slots {
            s.close();
        }
    }

    /// `shutdown`, then the slots closed (queued searches answer at once).
    pub fn closing_slots_after(
        &self,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> impl std::future::Future<Output = ()> {
        let policy = self.clone();
        async move {
            shutdown.await;
            policy.close_slots();
        }
    }
}

/// One session's share of a [`ServerPolicy`]: whether its client has
/// authenticated, and the part of the hash budget its table holds
/// (released when the session is dropped).
#[derive(Debug)]
pub struct SessionPolicy {
    server: ServerPolicy,
    authed: bool,
    reservation: Option<Reservation>,
}

impl Policy for SessionPolicy {
    fn awaits_auth(&self) -> bool {
        !self.authed
    }

    fn authenticate(&mut self, word: &str) -> bool {
        self.authed = self.authed
            || self
                .server
                .token
                .as_ref()
                .is_some_and(|t| same_secret(t.as_str(), word));
        self.authed
    }

    fn search_slot(&self) -> SlotGrant {
        let Some(slots) = &self.server.search_slots else {
            return SlotGrant::Now(None);
        };
        match Arc::clone(slots).try_acquire_owned() {
            Ok(permit) => SlotGrant::Now(Some(Box::new(permit))),
            Err(TryAcquireError::NoPermits) => SlotGrant::Busy,
            Err(TryAcquireError::Closed) => SlotGrant::Closed,
        }
    }

    fn slot_queue(&self) -> Option<Arc<Semaphore>> {
        self.server.search_slots.clone()
    }

    fn max_search_time(&self) -> Option<Duration> {
        self.server.max_search_time
    }

    fn hold_hash(&mut self, mib: Option<usize>) -> Result<Option<usize>, OverBudget> {
        let before = self.reservation.as_ref().map(Reservation::mib);
        let Some(budget) = &self.server.hash_budget else {
            return Ok(before);
        };
        match (mib, &mut self.reservation) {
            (None, _) => self.reservation = None,
            (Some(mib), Some(r)) => r.resize(mib)?,
            (Some(mib), None) => self.reservation = Some(budget.reserve(mib)?),
        }
        Ok(before)
    }
}

/// Compares secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut diff = a.len() ^ b.len();
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0xff);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_in_once_it_sends_the_token() {
        let server = ServerPolicy {
            token: Some("s3cret".parse().unwrap()),
            ..ServerPolicy::default()
        };
        let mut p = server.session();
        assert!(p.awaits_auth());
        assert!(!p.authenticate("s3cre"));
        assert!(!p.authenticate("s3cret!"));
        assert!(p.awaits_auth());
        assert!(p.authenticate("s3cret"));
        assert!(!p.awaits_auth());
        assert!(!ServerPolicy::default().session().awaits_auth());
    }

    #[test]
    fn slots_are_granted_until_busy_and_refused_once_closed() {
        let server = ServerPolicy {
            search_slots: Some(Arc::new(Semaphore::new(1))),
            ..ServerPolicy::default()
        };
        let a = server.session();
        let b = server.session();
        let held = match a.search_slot() {
            SlotGrant::Now(Some(t)) => t,
            other => panic!("{other:?}"),
        };
        assert!(matches!(b.search_slot(), SlotGrant::Busy));
        drop(held);
        assert!(matches!(b.search_slot(), SlotGrant::Now(Some(_))));
        server.close_slots();
        assert!(matches!(b.search_slot(), SlotGrant::Closed));
        assert!(matches!(
            ServerPolicy::default().session().search_slot(),
            SlotGrant::Now(None)
        ));
    }

    #[test]
    fn each_session_holds_its_share_of_the_hash_budget_until_dropped() {
        let budget = HashBudget::new(40);
        let server = ServerPolicy {
            hash_budget: Some(Arc::clone(&budget)),
            ..ServerPolicy::default()
        };
        let mut a = server.session();
        let mut b = server.session();
        assert_eq!(a.hold_hash(Some(30)), Ok(None));
        assert_eq!(
            b.hold_hash(Some(16)),
            Err(OverBudget {
                asked: 16,
                free: 10,
                total: 40
            })
        );
        assert_eq!(a.hold_hash(Some(20)), Ok(Some(30)));
        assert_eq!(b.hold_hash(Some(16)), Ok(None));
        assert_eq!(budget.used(), 36);
        assert_eq!(b.hold_hash(None), Ok(Some(16)));
        assert_eq!(budget.used(), 20);
        drop(a);
        assert_eq!(budget.used(), 0);
    }
}
