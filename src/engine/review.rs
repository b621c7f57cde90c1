//! A game review as one search of the engine: every position of the game
//! searched on one thread with one table and one stop, each move reported
//! as it is judged ([`crate::review`]).

use super::answer::{self, Answer, AnswerGuard};
use super::{history_of, Engine, Event, GoLimits, Level, SearchHandle};
use crate::board::{Color, Game, Variant};
use crate::egdb::Tablebase;
use crate::review::{
    self, MoveReview, Oracle, PositionSearch, ReviewSettings, Searched, SideSummary,
};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, Iteration, SearchReport, TraceNode};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How a review ended: whether every move was judged, and each side's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ReviewEnd {
    /// Every move of the sides asked for was judged (not stopped).
    pub complete: bool,
    /// Black's figures.
    pub black: SideSummary,
    /// White's figures.
    pub white: SideSummary,
}

impl ReviewEnd {
    /// The figures of the moves reviewed.
    #[must_use]
    pub fn of(reviews: &[MoveReview], complete: bool) -> ReviewEnd {
        ReviewEnd {
            complete,
            black: SideSummary::of(reviews, Color::Black),
            white: SideSummary::of(reviews, Color::White),
        }
    }
}

/// A search that reports nothing while it runs.
struct Quiet;

impl SearchReport for Quiet {
    fn iteration(&mut self, _: &Iteration) {}
    fn trace(&mut self, _: TraceNode) {}
}

/// Searches the review's positions at full strength, one table for all.
struct ReviewSearch {
    options: super::EngineOptions,
    limits: GoLimits,
    egdb: Option<Arc<Tablebase>>,
    tt: Arc<TranspositionTable>,
    control: Arc<Control>,
}

impl PositionSearch for ReviewSearch {
    fn search(&mut self, game: &Game) -> Option<Searched> {
        // the previous search's own end is forgotten, a stop asked for is not
        self.control.stop.store(false, Ordering::SeqCst);
        if self.control.requested.load(Ordering::SeqCst) {
            return None;
        }
        let pos = game.position();
        let sl = super::limits_with(&self.options, self.egdb.as_ref(), &self.limits, pos);
        self.tt.new_search();
        let res = search::search(
            pos,
            &history_of(game),
            &sl,
            &self.tt,
            &self.control,
            &mut Quiet,
        );
        // a search cut short by stop is not a verdict
        if self.control.requested.load(Ordering::SeqCst) {
            return None;
        }
        let last = res.last?;
        Some(Searched {
            best: res.best,
            score: last.score,
            depth: last.depth,
            pv: last.pv,
            nodes: res.stats.nodes,
            time: std::time::Duration::from_millis(res.time.as_millis() as u64),
        })
    }
}

impl Engine {
    /// The exact values this engine knows for `variant`: its endgame
    /// databases (English) or the solved table (mini-checkers, built now
    /// if it may be and is not yet).
    pub fn oracle(&mut self, variant: Variant) -> Oracle {
        let mut o = self.oracle_without_mini(variant);
        if self.uses_mini_table(variant) {
            o.mini = Some(super::prepare_mini_table());
        }
        o
    }

    fn oracle_without_mini(&mut self, variant: Variant) -> Oracle {
        match variant {
            Variant::English => Oracle {
                egdb: self.tablebase(),
                pieces: self.options.egdb_pieces,
                mini: None,
            },
            Variant::Mini => Oracle::default(),
        }
    }

    fn uses_mini_table(&self, variant: Variant) -> bool {
        variant == Variant::Mini && self.options.mini_table && super::mini::mini_table_allowed()
    }

    /// Reviews `game` on a new thread: each position searched with `limits`
    /// at full strength (the level's limits and noise and the opening book
    /// left out), one [`Event::Reviewed`] per move judged as it is judged,
    /// then exactly one [`Event::ReviewDone`]. Stopping it ends the review
    /// with the moves judged so far. The solved mini table, when needed, is
    /// built first, on the review's thread.
    pub fn review(
        &mut self,
        game: &Game,
        limits: GoLimits,
        settings: ReviewSettings,
        on_event: Box<dyn FnMut(Event) + Send>,
    ) -> SearchHandle {
        let mut oracle = self.oracle_without_mini(game.variant());
        let build_mini = self.uses_mini_table(game.variant());
        let mut options = self.options.clone();
        options.level = Level::Max;
        let control = Arc::new(Control::default());
        let mut searcher = ReviewSearch {
            options,
            limits,
            egdb: if game.variant() == Variant::English {
                self.tablebase()
            } else {
                None
            },
            tt: self.table(),
            control: Arc::clone(&control),
        };
        let settings = ReviewSettings {
            scale: self.options.eval.result_scale(),
            ..settings
        };
        let answer = Answer::for_review(on_event);
        let guard = AnswerGuard(Arc::clone(&answer));
        let game = game.clone();
        let thread = std::thread::Builder::new()
            .name("kingme-review".into())
            .spawn(move || {
                if build_mini {
                    oracle.mini = Some(super::prepare_mini_table());
                }
                let mut on_move = |r: &MoveReview| {
                    answer::lock(&guard.0).send(Event::Reviewed(Box::new(r.clone())));
                };
                let reviews =
                    review::review_game(&game, &settings, &mut searcher, &oracle, &mut on_move);
                let complete = !searcher.control.requested.load(Ordering::SeqCst);
                answer::lock(&guard.0).send(Event::ReviewDone(ReviewEnd::of(&reviews, complete)));
            });
        SearchHandle::spawned(control, &answer, thread)
    }
}
