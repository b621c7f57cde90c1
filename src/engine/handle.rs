//! The handle of a running search: stop it, release a ponder, wait for it.

use crate::search::Control;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// A running search: stop it, release a ponder, or wait for it. Dropping it
/// stops and joins the search thread.
pub struct SearchHandle {
    pub(super) control: Arc<Control>,
    pub(super) start: Instant,
    pub(super) thread: Option<JoinHandle<()>>,
}

impl SearchHandle {
    /// The handle of a search whose thread `spawned` started; when none
    /// could be started, the search answers now with its fallback.
    pub(super) fn spawned(
        control: Arc<Control>,
        answer: &super::answer::SharedAnswer,
        spawned: std::io::Result<JoinHandle<()>>,
    ) -> SearchHandle {
        let thread = match spawned {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::error!(error = %e, "no search thread; answering with the fallback");
                super::answer::lock(answer).answer_with_fallback();
                None
            }
        };
        SearchHandle {
            control,
            start: Instant::now(),
            thread,
        }
    }

    /// Asks the search to end now; it still sends its `BestMove`.
    pub fn stop(&self) {
        self.control.hold.store(false, Ordering::SeqCst);
        self.control.requested.store(true, Ordering::SeqCst);
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// When the search started.
    #[must_use]
    pub fn started(&self) -> Instant {
        self.start
    }

    /// Whether the search is held (`infinite`, or `ponder` before
    /// `ponderhit`): it ends only when stopped.
    #[must_use]
    pub fn is_held(&self) -> bool {
        self.control.hold.load(Ordering::SeqCst)
    }

    /// The opponent played the expected move: the ponder search goes on as a normal one.
    pub fn ponderhit(&self) {
        let us = self.start.elapsed().as_micros() as u64;
        self.control.clock_start_us.store(us, Ordering::SeqCst);
        self.control.hold.store(false, Ordering::SeqCst);
    }

    /// Blocks until the search ends by itself.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SearchHandle {
    fn drop(&mut self) {
        self.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
