//! The one `BestMove` every search owes its caller, sent even when the search
//! thread panics or cannot be started.

use super::Event;
use crate::board::Move;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a search's events go, and whether its `BestMove` has gone.
pub(super) struct Answer {
    on_event: Box<dyn FnMut(Event) + Send>,
    /// Played when the search fails: the first legal move (`None`: there is none).
    fallback: Option<Move>,
    answered: bool,
}

/// An [`Answer`] shared by the search thread and the caller of `go`.
pub(super) type SharedAnswer = Arc<Mutex<Answer>>;

impl Answer {
    pub(super) fn new(
        on_event: Box<dyn FnMut(Event) + Send>,
        fallback: Option<Move>,
    ) -> SharedAnswer {
        Arc::new(Mutex::new(Answer {
            on_event,
            fallback,
            answered: false,
        }))
    }

    /// Passes `ev` on; nothing follows the `BestMove`, and only one is sent.
    pub(super) fn send(&mut self, ev: Event) {
        if self.answered {
            return;
        }
        self.answered = matches!(ev, Event::BestMove { .. });
        (self.on_event)(ev);
    }

    /// Sends the fallback move if no `BestMove` has been sent.
    pub(super) fn answer_with_fallback(&mut self) {
        let mv = self.fallback;
        self.send(Event::BestMove { mv, ponder: None });
    }
}

/// Locks an answer, even one whose lock a panicking search thread poisoned.
pub(super) fn lock(answer: &SharedAnswer) -> MutexGuard<'_, Answer> {
    answer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Owned by the search thread: however the thread ends (returning or
/// unwinding from a panic), an unanswered search gets its fallback move.
pub(super) struct AnswerGuard(pub(super) SharedAnswer);

impl Drop for AnswerGuard {
    fn drop(&mut self) {
        if std::thread::panicking() {
            tracing::error!("the search thread panicked; answering with the first legal move");
        }
        // a callback that panics again must not abort the process mid-unwind
        let _ = catch_unwind(AssertUnwindSafe(|| lock(&self.0).answer_with_fallback()));
    }
}
