//! Time management: the budget a game clock allows one move, and the checks
//! that end a search on its time or node limit.

use super::node::{Shared, Worker};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Time limits (soft, hard) for a move under a game clock.
#[must_use]
pub fn clock_budget(left: Duration, inc: Duration, movestogo: Option<u32>) -> (Duration, Duration) {
    let overhead = Duration::from_millis(30);
    let mtg = movestogo.unwrap_or(30).clamp(1, 60);
    let usable = left.saturating_sub(overhead);
    let alloc = usable / mtg + inc * 3 / 4;
    let hard_cap = if movestogo == Some(1) {
        usable * 4 / 5
    } else {
        usable / 3
    };
    let hard = (alloc * 3).min(hard_cap).max(Duration::from_millis(1));
    let soft = (alloc / 2).min(hard);
    (soft, hard)
}

impl Shared<'_> {
    pub(super) fn out_of_time(&self) -> bool {
        if self.control.hold.load(Ordering::Relaxed) {
            return false;
        }
        if let Some(h) = self.limits.hard_time {
            let since = self.start.elapsed().as_micros() as u64;
            let clock = self.control.clock_start_us.load(Ordering::Relaxed);
            return since.saturating_sub(clock) >= h.as_micros() as u64;
        }
        false
    }
    pub(super) fn clock_elapsed(&self) -> Duration {
        let since = self.start.elapsed();
        since.saturating_sub(Duration::from_micros(
            self.control.clock_start_us.load(Ordering::Relaxed),
        ))
    }
}

impl Worker<'_, '_> {
    /// Publishes the node count and sets `stopped` when the search must end.
    pub(super) fn poll(&mut self) {
        let delta = self.stats.nodes - self.flushed;
        self.sh.total_nodes.fetch_add(delta, Ordering::Relaxed);
        self.flushed = self.stats.nodes;
        if self.sh.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.main {
            let over_nodes = self.sh.limits.nodes.is_some_and(|n| self.stats.nodes >= n)
                && !self.sh.control.hold.load(Ordering::Relaxed);
            if over_nodes || self.sh.out_of_time() {
                self.sh.control.stop.store(true, Ordering::Relaxed);
                self.stopped = true;
            }
        }
    }
}
