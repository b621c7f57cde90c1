//! The search slot of one front end: whether its search is idle, queued for a
//! search permit, searching, or answered, and what the front end needs when
//! the answer comes.

use super::{GoLimits, SearchHandle};

/// Which search an answer belongs to: each search started in a slot gets the
/// next one, so an answer from a search the front end called off is ignored.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SearchId(u64);

/// Where a slot stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Phase {
    /// No search: none yet, or the last one answered or was called off.
    Idle,
    /// Waiting for a search permit; no thread runs yet.
    Queued,
    /// A search runs; its answer is owed.
    Searching,
}

/// What [`SearchSlot::stop`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped<T> {
    /// There was nothing to stop.
    Nothing,
    /// A queued search was dropped before it started: the caller answers for
    /// it now, with this context.
    Unstarted(T),
    /// The running search was asked to stop; its answer follows as an event.
    Stopping,
}

enum State<T> {
    Idle,
    Queued {
        limits: GoLimits,
        context: T,
    },
    Searching {
        id: SearchId,
        handle: SearchHandle,
        context: T,
        /// Released with the search.
        _permit: Option<SlotToken>,
    },
}

/// What a front end holds for as long as its search runs (a server's search
/// permit), dropped when the search ends; any type, so that the engine knows
/// none of the server's.
pub type SlotToken = Box<dyn std::any::Any + Send>;

/// One front end's search (kingme session, Hub, DXP): at most one at a time,
/// with the context (`T`) its answer is read in. A slot owes exactly one
/// answer for each search it queues or starts: from the search's `BestMove`,
/// or from the caller when [`SearchSlot::stop`] drops a queued one.
pub struct SearchSlot<T> {
    state: State<T>,
    next_id: u64,
}

impl<T> Default for SearchSlot<T> {
    fn default() -> Self {
        SearchSlot::new()
    }
}

impl<T> SearchSlot<T> {
    /// An idle slot.
    #[must_use]
    pub fn new() -> SearchSlot<T> {
        SearchSlot {
            state: State::Idle,
            next_id: 0,
        }
    }

    /// Where the slot stands.
    #[must_use]
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Idle => Phase::Idle,
            State::Queued { .. } => Phase::Queued,
            State::Searching { .. } => Phase::Searching,
        }
    }

    /// Whether an answer is owed (a search is queued or running).
    #[must_use]
    pub fn is_busy(&self) -> bool {
        matches!(self.phase(), Phase::Queued | Phase::Searching)
    }

    /// When the running search started (`None` when none runs).
    #[must_use]
    pub fn started(&self) -> Option<std::time::Instant> {
        match &self.state {
            State::Searching { handle, .. } => Some(handle.started()),
            _ => None,
        }
    }

    /// Whether the running search ends only when stopped (`infinite`, or a
    /// ponder not yet hit).
    #[must_use]
    pub fn is_held(&self) -> bool {
        matches!(&self.state, State::Searching { handle, .. } if handle.is_held())
    }

    /// The context of the queued or running search.
    #[must_use]
    pub fn context(&self) -> Option<&T> {
        match &self.state {
            State::Queued { context, .. } | State::Searching { context, .. } => Some(context),
            State::Idle => None,
        }
    }

    /// The context of the queued or running search, to update while it runs.
    pub fn context_mut(&mut self) -> Option<&mut T> {
        match &mut self.state {
            State::Queued { context, .. } | State::Searching { context, .. } => Some(context),
            State::Idle => None,
        }
    }

    /// The id the next search started in this slot will have (to tag its
    /// events before [`SearchSlot::start`] is called with its handle).
    #[must_use]
    pub fn next_id(&self) -> SearchId {
        SearchId(self.next_id)
    }

    /// Queues a search until a permit is granted ([`SearchSlot::take_queued`]).
    /// A search already queued or running is called off.
    pub fn queue(&mut self, limits: GoLimits, context: T) {
        self.state = State::Queued { limits, context };
    }

    /// The queued search's limits and context, to start it now; the slot is
    /// idle until [`SearchSlot::start`].
    pub fn take_queued(&mut self) -> Option<(GoLimits, T)> {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Queued { limits, context } => Some((limits, context)),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Records the search `handle` as this slot's search; `permit`, if any,
    /// is released with it. Returns its id, the one
    /// [`SearchSlot::next_id`] gave.
    pub fn start(
        &mut self,
        handle: SearchHandle,
        context: T,
        permit: Option<SlotToken>,
    ) -> SearchId {
        let id = SearchId(self.next_id);
        self.next_id += 1;
        self.state = State::Searching {
            id,
            handle,
            context,
            _permit: permit,
        };
        id
    }

    /// The running search has answered: the slot is answered, and the
    /// search's context comes back. `None` when no search runs (the answer
    /// is not owed).
    pub fn answer(&mut self) -> Option<T> {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Searching { context, .. } => Some(context),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Like [`SearchSlot::answer`], for an answer tagged with the id of its
    /// search: `None` unless that search is the one running.
    pub fn answer_of(&mut self, id: SearchId) -> Option<T> {
        match &self.state {
            State::Searching { id: running, .. } if *running == id => self.answer(),
            _ => None,
        }
    }

    /// Asks the search to end: a running one stops (its answer follows), a
    /// queued one is dropped and its context handed back to answer for it.
    pub fn stop(&mut self) -> Stopped<T> {
        match &mut self.state {
            State::Searching { handle, .. } => {
                handle.stop();
                Stopped::Stopping
            }
            State::Queued { .. } => match std::mem::replace(&mut self.state, State::Idle) {
                State::Queued { context, .. } => Stopped::Unstarted(context),
                _ => unreachable!("matched as queued"),
            },
            State::Idle => Stopped::Nothing,
        }
    }

    /// The opponent played the expected move: a pondering search goes on as
    /// a normal one (a queued one will start as one).
    pub fn ponderhit(&mut self) {
        match &mut self.state {
            State::Searching { handle, .. } => handle.ponderhit(),
            State::Queued { limits, .. } => limits.ponder = false,
            State::Idle => {}
        }
    }

    /// Calls the search off: its answer is no longer wanted, and the slot is
    /// idle. The running search's handle comes back, stopped, for the caller
    /// to drop (which joins its thread) where blocking is allowed.
    pub fn cancel(&mut self) -> Option<SearchHandle> {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Searching { handle, .. } => {
                handle.stop();
                Some(handle)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Game, Variant};
    use crate::engine::{Engine, EngineOption, Event, Level};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Starts a search that runs until stopped; its events go to the receiver.
    fn held_search(
        engine: &mut Engine,
        slot: &mut SearchSlot<&'static str>,
        context: &'static str,
    ) -> (SearchId, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel();
        let limits = GoLimits {
            infinite: true,
            ..GoLimits::default()
        };
        let handle = engine.go(
            &Game::new(Variant::Mini),
            limits.clone(),
            Box::new(move |e| {
                let _ = tx.send(e);
            }),
        );
        let id = slot.start(handle, context, None);
        (id, rx)
    }

    fn best_move(rx: &mpsc::Receiver<Event>) {
        loop {
            let ev = rx.recv_timeout(Duration::from_secs(20)).expect("an answer");
            if matches!(ev, Event::BestMove { .. }) {
                return;
            }
        }
    }

    #[test]
    fn a_search_runs_until_stopped_and_answers_once() {
        let mut engine = Engine::new();
        engine.set(EngineOption::Level(Level::Easy)).unwrap();
        let mut slot = SearchSlot::new();
        assert_eq!(slot.phase(), Phase::Idle);
        assert_eq!(slot.answer(), None, "no answer is owed when idle");
        let first = slot.next_id();
        let (id, rx) = held_search(&mut engine, &mut slot, "go");
        assert_eq!(id, first);
        assert_eq!(slot.phase(), Phase::Searching);
        assert!(slot.is_busy() && slot.is_held());
        assert_eq!(slot.context(), Some(&"go"));
        assert_eq!(slot.stop(), Stopped::Stopping);
        assert!(
            !slot.is_held() && slot.is_busy(),
            "stopping still owes the answer"
        );
        best_move(&rx);
        assert_eq!(slot.answer(), Some("go"));
        assert_eq!(slot.phase(), Phase::Idle);
        assert!(!slot.is_busy());
        assert_eq!(slot.answer(), None, "one answer per search");
        assert_eq!(slot.stop(), Stopped::Nothing);
        assert_ne!(slot.next_id(), id, "every search gets a new id");
    }

    #[test]
    fn a_queued_search_is_started_or_answered_by_the_caller() {
        let mut slot: SearchSlot<u8> = SearchSlot::new();
        let limits = GoLimits {
            ponder: true,
            ..GoLimits::default()
        };
        slot.queue(limits, 7);
        assert_eq!(slot.phase(), Phase::Queued);
        assert!(slot.is_busy() && !slot.is_held());
        slot.ponderhit();
        let (limits, context) = slot.take_queued().expect("queued");
        assert!(
            !limits.ponder,
            "a ponderhit while queued starts a normal search"
        );
        assert_eq!(context, 7);
        assert_eq!(slot.phase(), Phase::Idle);
        assert_eq!(slot.take_queued(), None);
        slot.queue(GoLimits::default(), 8);
        assert_eq!(slot.stop(), Stopped::Unstarted(8));
        assert_eq!(slot.phase(), Phase::Idle);
        assert_eq!(slot.cancel().map(|_| ()), None);
    }

    #[test]
    fn an_answer_from_a_cancelled_search_is_ignored() {
        let mut engine = Engine::new();
        engine.set(EngineOption::Level(Level::Easy)).unwrap();
        let mut slot = SearchSlot::new();
        let (old, _rx) = held_search(&mut engine, &mut slot, "old");
        drop(slot.cancel().expect("a running search"));
        assert_eq!(slot.phase(), Phase::Idle);
        let (new, rx) = held_search(&mut engine, &mut slot, "new");
        assert_eq!(slot.answer_of(old), None, "the old search's answer");
        assert_eq!(slot.phase(), Phase::Searching);
        slot.stop();
        best_move(&rx);
        assert_eq!(slot.answer_of(new), Some("new"));
        assert_eq!(slot.phase(), Phase::Idle);
    }
}
