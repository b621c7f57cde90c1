//! A session's searches: `go`, `analyze`, `hint`, `perft` and `Reply`'s
//! answer to `play`; the slot its server grants (or the queue it waits
//! in), the longest it may run, and how each one's answer is written.

use super::{Purpose, Session};
use crate::board::Move;
use crate::engine::{GoLimits, Phase, Score, SlotToken};
use crate::frontend::SlotGrant;
use crate::protocol::command::{GoParams, ReviewParams};
use crate::protocol::Response;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

impl Session {
    /// When the running search reaches the longest a search may run here
    /// ([`crate::frontend::Policy::max_search_time`]); `None` when no limit
    /// is due.
    #[must_use]
    pub fn search_deadline(&self) -> Option<Instant> {
        let max = self.policy.max_search_time()?;
        if self.overtime || self.search.phase() != Phase::Searching {
            return None;
        }
        Some(self.search.started()? + max)
    }

    /// The running search reached [`Session::search_deadline`]: says so and
    /// stops it (its answer follows as usual).
    pub fn search_overtime(&mut self, out: &mut Vec<Response>) {
        let max = self.policy.max_search_time().unwrap_or_default();
        self.overtime = true;
        out.push(Response::InfoString(format!(
            "this server ends any search after {} s; stopping it",
            max.as_secs_f64()
        )));
        self.stop(out);
    }

    /// The semaphore to wait on when the session's search is queued for a slot.
    #[must_use]
    pub fn queued_on(&self) -> Option<Arc<Semaphore>> {
        match self.search.phase() {
            Phase::Queued => self.policy.slot_queue(),
            _ => None,
        }
    }

    /// A search slot was granted to the queued search: start it.
    pub fn slot_granted(&mut self, permit: OwnedSemaphorePermit, out: &mut Vec<Response>) {
        if let Some((limits, purpose)) = self.search.take_queued() {
            out.push(Response::InfoString(
                "search slot granted; searching".into(),
            ));
            self.launch(limits, purpose, Some(Box::new(permit)));
        }
    }

    pub(super) fn go(&mut self, p: GoParams, out: &mut Vec<Response>) {
        let pos = *self.game.position();
        let mut seen: Vec<Move> = Vec::with_capacity(p.searchmoves.len());
        let limits = p.try_map_moves(|text| match pos.parse_move(&text) {
            Ok(m) if seen.contains(&m) => Err(format!("go: searchmoves: {m} is given twice")),
            Ok(m) => {
                seen.push(m);
                Ok(m)
            }
            Err(e) => Err(format!("go: searchmoves: {e}")),
        });
        let limits = match limits {
            Ok(l) => l,
            Err(e) => {
                out.push(Response::Error(e));
                return;
            }
        };
        if let Some(t) = limits.trace {
            if t > self.config.max_trace_nodes {
                out.push(Response::Error(format!(
                    "go: trace is capped at {} nodes in this session",
                    self.config.max_trace_nodes
                )));
                return;
            }
        }
        if self.answered_game_over(false, out) {
            return;
        }
        if let Some(n) = self.engine().notice_before_search(&pos) {
            out.push(Response::InfoString(n));
        }
        self.start_search(limits, Purpose::Go, out);
    }

    /// When the game is over, answers a search request at once (`gameover`,
    /// then `bestmove none`, or `hint none` for a hint) and returns true.
    fn answered_game_over(&self, hint: bool, out: &mut Vec<Response>) -> bool {
        let Some(end) = self.game.result() else {
            return false;
        };
        out.push(Response::GameOver(end));
        out.push(if hint {
            Response::Hint {
                mv: None,
                score: None,
            }
        } else {
            Response::BestMove {
                mv: None,
                ponder: None,
            }
        });
        true
    }

    /// `analyze [N]`: `go infinite` with N lines.
    pub(super) fn analyze(&mut self, lines: Option<u32>, out: &mut Vec<Response>) {
        if self.answered_game_over(false, out) {
            return;
        }
        let option = self.engine().options().multipv;
        let n = lines.map_or(if option > 1 { option } else { 3 }, |n| n as usize);
        let limits = GoLimits {
            infinite: true,
            multipv: Some(n),
            ..GoLimits::default()
        };
        self.start_search(limits, Purpose::Go, out);
    }

    /// `hint`: a search as `go` with no limit would run (one line), answered
    /// by `hint <move> score <score>` instead of `bestmove`.
    pub(super) fn hint(&mut self, out: &mut Vec<Response>) {
        if self.answered_game_over(true, out) {
            return;
        }
        let limits = GoLimits {
            multipv: Some(1),
            ..GoLimits::default()
        };
        self.start_search(limits, Purpose::Hint(None), out);
    }

    /// `perft N`, within this session's depth limit.
    pub(super) fn perft(&mut self, depth: u32, out: &mut Vec<Response>) {
        if depth > self.config.max_perft_depth {
            out.push(Response::Error(format!(
                "perft: depth {depth} is over this session's limit of {}",
                self.config.max_perft_depth
            )));
        } else {
            self.start_search(GoLimits::default(), Purpose::Perft(depth), out);
        }
    }

    /// `review ...`: every move of the game judged, one search a position
    /// (one search for the server's slots and time limit).
    pub(super) fn review(&mut self, p: &ReviewParams, out: &mut Vec<Response>) {
        let n = self.game.moves().len();
        if n == 0 {
            out.push(Response::Error(
                "review: the game has no moves; send position ... moves ... first".into(),
            ));
            return;
        }
        out.push(Response::InfoString(format!(
            "review of {n} moves, {} positions",
            n + 1
        )));
        self.start_search(p.limits(), Purpose::Review(p.side), out);
    }

    /// Starts a search now, or queues it when its server has no slot free.
    pub(super) fn start_search(
        &mut self,
        limits: GoLimits,
        purpose: Purpose,
        out: &mut Vec<Response>,
    ) {
        // made now, on the caller's blocking thread: a queued search starts
        // later from the transport's async loop, which must not read files
        let _ = self.engine();
        match self.policy.search_slot() {
            SlotGrant::Now(slot) => self.launch(limits, purpose, slot),
            SlotGrant::Busy => {
                out.push(Response::InfoString(
                    "queued: every search slot is busy; the search starts when one frees (stop answers at once)"
                        .into(),
                ));
                self.search.queue(limits, purpose);
            }
            SlotGrant::Closed => {
                out.push(Response::Error("the server is shutting down".into()));
            }
        }
    }

    fn launch(&mut self, limits: GoLimits, purpose: Purpose, slot: Option<SlotToken>) {
        let on_event = self.events.on_event();
        let game = self.game.clone();
        let budget = self.config.max_perft_leaves;
        let handle = match purpose {
            Purpose::Perft(depth) => self
                .engine()
                .perft(game.position(), depth, budget, on_event),
            Purpose::Review(sides) => {
                let settings = crate::review::ReviewSettings {
                    sides,
                    ..crate::review::ReviewSettings::default()
                };
                self.engine().review(&game, limits, settings, on_event)
            }
            _ => self.engine().go(&game, limits.clone(), on_event),
        };
        self.overtime = false;
        self.search.start(handle, purpose, slot);
    }

    pub(super) fn finish(
        &mut self,
        purpose: Purpose,
        mv: Option<Move>,
        ponder: Option<Move>,
        out: &mut Vec<Response>,
    ) {
        if let Purpose::Hint(score) = purpose {
            out.push(Response::Hint { mv, score });
            return;
        }
        if let Purpose::Review(_) = purpose {
            out.push(Response::ReviewDone(crate::engine::ReviewEnd::default()));
            return;
        }
        if let Purpose::Perft(_) = purpose {
            out.push(Response::Error("perft: stopped before it started".into()));
            self.pay_ready(out);
            return;
        }
        out.push(Response::BestMove { mv, ponder });
        if purpose == Purpose::Reply {
            match mv {
                Some(m) if self.game.position().is_legal(m) => {
                    self.game.play_unchecked(m);
                    if let Some(end) = self.game.result() {
                        out.push(Response::GameOver(end));
                    }
                }
                Some(m) => out.push(Response::Error(format!(
                    "internal: the engine's move {m} is not legal here; not played"
                ))),
                None => {
                    if let Some(end) = self.game.result() {
                        out.push(Response::GameOver(end));
                    }
                }
            }
        }
    }

    /// The `readyok`s held back while a perft ran.
    pub(super) fn pay_ready(&mut self, out: &mut Vec<Response>) {
        for _ in 0..std::mem::take(&mut self.ready_owed) {
            out.push(Response::ReadyOk);
        }
    }

    /// The legal move with the best static evaluation (for a search stopped before
    /// it could start).
    /// Makes no engine (it may run on an async worker, and a new engine may
    /// read files): without one, the default evaluation judges.
    pub(super) fn quick_move(&mut self) -> Option<Move> {
        let pos = *self.game.position();
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        let default_eval = crate::eval::Evaluator::default();
        let eval = self
            .engine
            .as_ref()
            .map_or(&default_eval, |e| &e.options().eval);
        moves
            .into_iter()
            .max_by_key(|&m| -Score::Eval(eval.evaluate(&pos.after(m))))
    }
}
