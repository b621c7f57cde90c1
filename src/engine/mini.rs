//! The engine's policy for the solved mini-checkers table: whether this
//! process may build it (set at the edge, from [`MINI_TABLE_ENV`] say),
//! starting its build in the background, and a search waiting for it.

use crate::search::{self, Control};
use crate::solve::MiniTablebase;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The environment variable with which a user turns the build off (`off`);
/// read by the programs, not by the library.
pub const MINI_TABLE_ENV: &str = "KINGME_MINI_TABLE";

static ALLOWED: AtomicBool = AtomicBool::new(true);

/// Whether this process may build the mini table (it may unless told not to).
pub fn allow_mini_table(allowed: bool) {
    ALLOWED.store(allowed, Ordering::Relaxed);
}

/// Whether the mini table may be built.
pub(super) fn mini_table_allowed() -> bool {
    ALLOWED.load(Ordering::Relaxed)
}

/// The exact mini-checkers table if it is built. Otherwise the first call starts
/// building it on a background thread (once per process; README gives its
/// cost), unless [`allow_mini_table`] said not to.
#[must_use]
pub fn mini_table() -> Option<&'static MiniTablebase> {
    if let Some(t) = MiniTablebase::try_global() {
        return Some(t);
    }
    if mini_table_allowed() {
        MiniTablebase::prepare_in_background();
    }
    None
}

/// Builds the exact mini-checkers table now (blocking) so that searches at level
/// `max` play mini-checkers perfectly from the first move.
pub fn prepare_mini_table() -> &'static MiniTablebase {
    MiniTablebase::global()
}

/// On the search thread, before a timed search at level max in mini-checkers:
/// waits for the table being built, for at most half the move's time (taken
/// off the move's time) or until the search is stopped, so that the first
/// moves are perfect too when the table is ready in time.
pub(super) fn wait_for_mini_table(sl: &mut search::SearchLimits, control: &Control) {
    let Some(hard) = sl.hard_time else {
        return;
    };
    let start = Instant::now();
    let budget = hard / 2;
    while !control.stop.load(Ordering::Relaxed) && start.elapsed() < budget {
        if let Some(t) = MiniTablebase::try_global() {
            sl.mini_table = Some(t);
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let waited = start.elapsed();
    sl.hard_time = Some(hard.saturating_sub(waited));
    sl.soft_time = sl.soft_time.map(|s| s.saturating_sub(waited));
}
