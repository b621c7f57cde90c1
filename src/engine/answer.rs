//! The one answer every search owes its caller (`BestMove`, or a review's
//! `ReviewDone`), sent even when the search thread panics or cannot be
//! started.

use super::Event;
use crate::board::Move;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a search's events go, and whether its `BestMove` has gone.
pub(super) struct Answer {
    on_event: Box<dyn FnMut(Event) + Send>,
    /// Sent when the search fails: the first legal move as the `BestMove`,
    /// or an empty `ReviewDone`.
    fallback: Event,
    answered: bool,
}

/// An [`Answer`] shared by the search thread and the caller of `go`.
pub(super) type SharedAnswer = Arc<Mutex<Answer>>;

impl Answer {
    pub(super) fn new(
        on_event: Box<dyn FnMut(Event) + Send>,
        fallback: Option<Move>,
    ) -> SharedAnswer {
        Answer::with_fallback(
            on_event,
            Event::BestMove {
                mv: fallback,
                ponder: None,
            },
        )
    }

    /// The answer of a review: a failed one ends with an empty `ReviewDone`.
    pub(super) fn for_review(on_event: Box<dyn FnMut(Event) + Send>) -> SharedAnswer {
        Answer::with_fallback(
            on_event,
            Event::ReviewDone(super::review::ReviewEnd::default()),
        )
    }

    fn with_fallback(on_event: Box<dyn FnMut(Event) + Send>, fallback: Event) -> SharedAnswer {
        Arc::new(Mutex::new(Answer {
            on_event,
            fallback,
            answered: false,
        }))
    }

    /// Passes `ev` on; nothing follows the answer, and only one is sent.
    pub(super) fn send(&mut self, ev: Event) {
        if self.answered {
            return;
        }
        self.answered = matches!(ev, Event::BestMove { .. } | Event::ReviewDone(_));
        (self.on_event)(ev);
    }

    /// Sends the fallback answer if none has been sent.
    pub(super) fn answer_with_fallback(&mut self) {
        let ev = self.fallback.clone();
        self.send(ev);
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
