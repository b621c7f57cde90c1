//! One search as its thread runs it: the job handed to the thread and the
//! reporter that turns the search's iterations into engine events.

use super::answer::{self, AnswerGuard, SharedAnswer};
use super::mini::wait_for_mini_table;
use super::{Event, Info};
use crate::board::Position;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History, Iteration, SearchReport, TraceNode};
use std::sync::Arc;

/// Turns a running search's iterations and trace nodes into events.
struct Reporter<'a> {
    answer: &'a SharedAnswer,
    /// A fault the unit tests inject: panic in the search, at the first iteration.
    panic_in_search: bool,
}

impl SearchReport for Reporter<'_> {
    fn iteration(&mut self, it: &Iteration) {
        assert!(
            !self.panic_in_search,
            "search made to panic (injected fault)"
        );
        answer::lock(self.answer).send(Event::Info(Info::from_iteration(it)));
    }
    fn trace(&mut self, node: TraceNode) {
        answer::lock(self.answer).send(Event::Trace(node));
    }
}

/// One search, as its thread runs it.
pub(super) struct SearchJob {
    pub(super) pos: Position,
    pub(super) hist: History,
    pub(super) sl: search::SearchLimits,
    pub(super) wait_for_table: bool,
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) control: Arc<Control>,
    /// The search thread panics (an injected fault).
    pub(super) panic_in_search: bool,
}

impl SearchJob {
    /// Searches and answers through `guard`: the iterations' infos, the last
    /// line with the whole search's statistics, then the best move (the
    /// guard answers if this panics).
    pub(super) fn run(mut self, guard: &AnswerGuard) {
        if self.wait_for_table {
            wait_for_mini_table(&mut self.sl, &self.control);
        }
        let mut rep = Reporter {
            answer: &guard.0,
            panic_in_search: self.panic_in_search,
        };
        let res = search::search(
            &self.pos,
            &self.hist,
            &self.sl,
            &self.tt,
            &self.control,
            &mut rep,
        );
        let mut answer = answer::lock(&guard.0);
        if let Some(last) = &res.last {
            answer.send(Event::Info(Info::new(last, &res.stats, res.time)));
        }
        answer.send(Event::BestMove {
            mv: res.best,
            ponder: res.ponder,
        });
    }
}
