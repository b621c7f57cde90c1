//! The session: one client's game, options and search, as a state machine that
//! consumes lines and engine events and produces [`Response`]s. Transports
//! (stdio, TCP) only move bytes; everything the protocol means happens here.

use super::budget::{HashBudget, Reservation};
use super::command::{Command, GoParams, ParseCommandError, StartPos};
use super::events::{self, EventSender, Events};
use super::options::{self, OptionKind, OptionValue, Registry};
use super::response::{Refusal, Response, PROTOCOL_VERSION};
use super::token::Token;
use crate::board::{Game, Move, Position, Variant};
use crate::engine::{
    self, Engine, EngineOption, Event, Limits, Phase, Score, SearchSlot, SlotToken, Stopped,
};
use crate::files::FileAccess;
use crate::perft::PerftInterrupted;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

mod setoption;

/// How the greeting of a server with a token ends.
pub const AUTH_REQUEST: &str = "; send auth <token> first";

/// What a session allows; transports fill it in.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// When set, `auth <token>` must come first.
    pub token: Option<Token>,
    /// Largest `Hash` a client may set, in MiB.
    pub max_hash_mib: usize,
    /// `Hash` of a new session, in MiB (at most `max_hash_mib`).
    pub default_hash_mib: Option<usize>,
    /// Largest `Threads` a client may set.
    pub max_threads: usize,
    /// Whether the client may set `EGDBCache`, the process-wide cache every
    /// session shares (a network client may not: the operator sets it).
    pub process_options: bool,
    /// Deepest `perft`.
    pub max_perft_depth: u32,
    /// Most leaves one `perft` may count.
    pub max_perft_leaves: u64,
    /// Longest any one search may run (`go infinite` and `analyze`
    /// included); the transport stops it then. `None`: no limit.
    pub max_search_time: Option<Duration>,
    /// Which server files the client may name (`EvalFile`, `EGDBPath`).
    pub files: FileAccess,
    /// Options every new session's engine starts with (the operator's
    /// `--eval-file`, `--egdb`), before the client's own.
    pub defaults: Vec<EngineOption>,
    /// The server-wide cap on the sessions' tables; `None` for no cap.
    pub hash_budget: Option<Arc<HashBudget>>,
    /// Largest `go trace N`.
    pub max_trace_nodes: u64,
    /// A global cap on concurrent searches; `None` for no cap.
    pub search_slots: Option<Arc<Semaphore>>,
    /// The options the session offers (kingme's own: [`options::REGISTRY`]).
    pub registry: Registry,
}

impl Default for SessionConfig {
    /// The limits of a local (stdio) session: the engine's own maxima, no auth, no cap.
    fn default() -> Self {
        SessionConfig {
            token: None,
            max_hash_mib: engine::MAX_HASH_MIB as usize,
            default_hash_mib: None,
            max_threads: engine::MAX_THREADS as usize,
            process_options: true,
            max_perft_depth: 20,
            max_perft_leaves: u64::MAX,
            max_search_time: None,
            files: FileAccess::Any,
            defaults: Vec::new(),
            hash_budget: None,
            max_trace_nodes: 100_000,
            search_slots: None,
            registry: options::REGISTRY,
        }
    }
}

/// Whether a session (kingme or Hub) goes on after an input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// `quit` or the end of input: close after writing the replies (and, for
    /// a kingme session, after the running search's `bestmove`, which
    /// [`Session::handle_line`] has already asked for).
    Quit,
}

/// Why a search runs: for `go` (report `bestmove`), to answer `play` (also
/// play it), or for `hint` (say the move and the last score seen, don't play).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Purpose {
    Go,
    Reply,
    Hint(Option<Score>),
    /// `perft N`: answered by its count instead of a move.
    Perft(u32),
}

/// One client's protocol state: its game, its engine and options, its search.
pub struct Session {
    config: SessionConfig,
    /// Created on first need, so idle sessions cost no hash table.
    engine: Option<Engine>,
    game: Game,
    reply: bool,
    authed: bool,
    search: SearchSlot<Purpose>,
    /// The running search was stopped for reaching that limit.
    overtime: bool,
    /// `readyok`s to send once the running perft has answered.
    ready_owed: usize,
    /// This session's share of the server's hash budget.
    hash_reservation: Option<Reservation>,
    events: EventSender,
}

impl Session {
    /// A session in the English start position, and the events its searches send.
    #[must_use]
    pub fn new(config: SessionConfig) -> (Session, Events) {
        let (tx, rx) = events::channel();
        let authed = config.token.is_none();
        (
            Session {
                config,
                engine: None,
                game: Game::new(Variant::English),
                reply: false,
                authed,
                search: SearchSlot::new(),
                overtime: false,
                ready_owed: 0,
                hash_reservation: None,
                events: tx,
            },
            rx,
        )
    }

    /// The first line a network client sees: a note for people.
    #[must_use]
    pub fn greeting(&self) -> Response {
        let mut s = format!(
            "kingme {} (protocol {PROTOCOL_VERSION}): type help for commands, board to see the game",
            env!("CARGO_PKG_VERSION")
        );
        if !self.authed {
            s.push_str(AUTH_REQUEST);
        }
        Response::InfoString(s)
    }

    /// Whether the client has authenticated (or needs not).
    #[must_use]
    pub fn is_authed(&self) -> bool {
        self.authed
    }

    /// When the running search reaches the longest a search may run here
    /// ([`SessionConfig::max_search_time`]); `None` when no limit is due.
    #[must_use]
    pub fn search_deadline(&self) -> Option<Instant> {
        let max = self.config.max_search_time?;
        if self.overtime || self.search.phase() != Phase::Searching {
            return None;
        }
        Some(self.search.started()? + max)
    }

    /// The running search reached [`Session::search_deadline`]: says so and
    /// stops it (its answer follows as usual).
    pub fn search_overtime(&mut self, out: &mut Vec<Response>) {
        let max = self.config.max_search_time.unwrap_or_default();
        self.overtime = true;
        out.push(Response::InfoString(format!(
            "this server ends any search after {} s; stopping it",
            max.as_secs_f64()
        )));
        self.stop(out);
    }

    /// Whether a search is running or queued (so a `bestmove` is owed).
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.search.is_busy()
    }

    /// The semaphore to wait on when the session's search is queued for a slot.
    #[must_use]
    pub fn queued_on(&self) -> Option<Arc<Semaphore>> {
        match self.search.phase() {
            Phase::Queued => self.config.search_slots.clone(),
            _ => None,
        }
    }

    /// Answers a line the transport cut short because it exceeded `max` bytes.
    pub fn handle_overlong(&mut self, max: usize, out: &mut Vec<Response>) {
        out.push(Response::Error(format!(
            "line too long (more than {max} bytes); ignored"
        )));
    }

    /// Handles one line (without its line ending; a trailing CR is ignored).
    pub fn handle_line(&mut self, line: &[u8], out: &mut Vec<Response>) -> Flow {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(text) = std::str::from_utf8(line) else {
            out.push(Response::Error("the line is not valid UTF-8".into()));
            return Flow::Continue;
        };
        let cmd = match text.parse::<Command>() {
            Ok(c) => c,
            Err(ParseCommandError::Empty) => return Flow::Continue,
            Err(e) => {
                out.push(Response::Error(e.to_string()));
                return Flow::Continue;
            }
        };
        tracing::debug!(command = %cmd.redacted(), "command");
        self.handle_command(cmd, out)
    }

    /// Handles a parsed command.
    pub fn handle_command(&mut self, cmd: Command, out: &mut Vec<Response>) -> Flow {
        if !self.authed {
            return match cmd {
                Command::Auth(t) => {
                    if self
                        .config
                        .token
                        .as_ref()
                        .is_some_and(|k| same_secret(k.as_str(), t.as_str()))
                    {
                        self.authed = true;
                        out.push(Response::AuthOk);
                        Flow::Continue
                    } else {
                        out.push(Response::Refused(Refusal::BadToken));
                        Flow::Quit
                    }
                }
                Command::Quit => Flow::Quit,
                _ => {
                    out.push(Response::Refused(Refusal::NotAuthenticated));
                    Flow::Continue
                }
            };
        }
        match cmd {
            // a count answers before the readyok that follows it, as when
            // perft ran in line
            Command::IsReady if matches!(self.search.context(), Some(Purpose::Perft(_))) => {
                self.ready_owed += 1;
            }
            Command::IsReady => out.push(Response::ReadyOk),
            Command::Quit => {
                self.stop(out);
                return Flow::Quit;
            }
            Command::Stop => self.stop(out),
            Command::PonderHit => self.ponderhit(),
            _ if self.is_searching() => out.push(Response::Refused(Refusal::Busy)),
            Command::Hello { uci } => self.hello(uci, out),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref(), out),
            Command::NewGame { variant } => {
                let v = variant.unwrap_or(self.game.variant());
                self.new_game(v);
            }
            Command::Position { start, moves } => self.position(start, &moves, out),
            Command::Go(p) => self.go(p, out),
            Command::Analyze(n) => self.analyze(n, out),
            Command::Hint => self.hint(out),
            Command::Help => out.push(Response::Help(self.config.registry)),
            Command::Board => out.push(Response::Board {
                database: {
                    let pos = *self.game.position();
                    self.engine().database_value(&pos)
                },
                diagram: self.game.position().diagram(),
                fen: self.game.position().to_fen(),
                turn: self.game.position().turn(),
                last: self.game.moves().last().copied(),
                result: self.game.result(),
            }),
            Command::Moves => {
                let mut moves: Vec<Move> =
                    self.game.position().legal_moves().iter().copied().collect();
                // Stable for people and tests: by start square, then the path.
                moves.sort_by_key(|m| {
                    let path: Vec<u32> = m.landings().map(|s| s.number()).collect();
                    (!m.is_pass(), m.from().number(), path)
                });
                let values = self.exact_values(&moves);
                out.push(Response::Moves(moves));
                if !values.is_empty() {
                    out.push(Response::Values(values));
                }
            }
            Command::Play(text) => self.play(&text, out),
            Command::Undo => match self.game.undo() {
                Some(m) => out.push(Response::Undone(m)),
                None => out.push(Response::Error("undo: no move to take back".into())),
            },
            Command::Perft(d) => {
                if d > self.config.max_perft_depth {
                    out.push(Response::Error(format!(
                        "perft: depth {d} is over this session's limit of {}",
                        self.config.max_perft_depth
                    )));
                } else {
                    self.start_search(Limits::default(), Purpose::Perft(d), out);
                }
            }
            Command::Eval => {
                let pos = *self.game.position();
                let s = self.engine().evaluate(&pos);
                out.push(Response::Eval(s));
            }
            Command::Auth(_) => out.push(Response::AuthOk),
        }
        Flow::Continue
    }

    /// Turns one engine event into lines; a `bestmove` ends the search.
    pub fn handle_event(&mut self, ev: Event, out: &mut Vec<Response>) {
        if self.search.phase() != Phase::Searching {
            tracing::warn!(?ev, "engine event without a search");
            return;
        }
        match ev {
            Event::Info(i) => {
                if let Some(Purpose::Hint(score)) = self.search.context_mut() {
                    if i.multipv.unwrap_or(1) == 1 {
                        *score = Some(i.score);
                    }
                }
                out.push(Response::Info(i));
            }
            Event::Book { mv, score, depth } => {
                if let Some(Purpose::Hint(hint)) = self.search.context_mut() {
                    *hint = Some(score);
                }
                out.push(Response::InfoString(format!(
                    "book {mv} score {score} depth {depth}"
                )));
            }
            Event::Trace(t) => out.push(Response::Trace(t)),
            Event::BestMove { mv, ponder } => {
                if let Some(purpose) = self.search.answer() {
                    self.finish(purpose, mv, ponder, out);
                }
            }
            Event::Perft {
                depth,
                leaves,
                time,
            } => {
                if self.search.answer().is_some() {
                    out.push(match leaves {
                        Ok(nodes) => Response::Perft { depth, nodes, time },
                        Err(PerftInterrupted::OverBudget(n)) => Response::Error(format!(
                            "perft: over this session's limit of {n} leaves; stopped"
                        )),
                        Err(e) => Response::Error(format!("perft: {e}")),
                    });
                    self.pay_ready(out);
                }
            }
        }
    }

    /// The input has ended (EOF): a held search (`infinite`, `ponder`) is
    /// stopped; a limited one runs to its end. The transport then drains events
    /// while [`Session::is_searching`].
    pub fn input_closed(&mut self, out: &mut Vec<Response>) {
        if self.search.is_held() || self.search.phase() == Phase::Queued {
            self.stop(out);
        }
    }

    /// Stops the search, if any; its `bestmove` follows as an event (or at once
    /// when it was only queued).
    pub fn stop(&mut self, out: &mut Vec<Response>) {
        if let Stopped::Unstarted(purpose) = self.search.stop() {
            // Never started: answer with the best move by static evaluation.
            let mv = self.quick_move();
            self.finish(purpose, mv, None, out);
        }
    }

    /// A search slot was granted to the queued search: start it.
    pub fn slot_granted(&mut self, permit: OwnedSemaphorePermit, out: &mut Vec<Response>) {
        if let Some((limits, purpose)) = self.search.take_queued() {
            out.push(Response::InfoString(
                "search slot granted; searching".into(),
            ));
            self.launch(limits, purpose, Some(permit));
        }
    }

    fn new_game(&mut self, variant: Variant) {
        self.game = Game::new(variant);
        if let Some(e) = &mut self.engine {
            e.new_game(variant);
        }
    }

    fn position(&mut self, start: StartPos, moves: &[String], out: &mut Vec<Response>) {
        let variant = self.game.variant();
        let pos = match start {
            StartPos::Start => Position::startpos(variant),
            StartPos::Fen(f) => match Position::from_fen(variant, &f) {
                Ok(p) => p,
                Err(e) => {
                    out.push(Response::Error(format!(
                        "position: {e} (variant {variant})"
                    )));
                    return;
                }
            },
        };
        let mut game = Game::from_position(pos);
        for (i, m) in moves.iter().enumerate() {
            if let Err(e) = game.play_text(m) {
                out.push(Response::Error(format!("position: move {}: {e}", i + 1)));
                return;
            }
        }
        self.game = game;
    }

    fn go(&mut self, p: GoParams, out: &mut Vec<Response>) {
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
    fn analyze(&mut self, lines: Option<u32>, out: &mut Vec<Response>) {
        if self.answered_game_over(false, out) {
            return;
        }
        let option = self.engine().options().multipv;
        let n = lines.map_or(if option > 1 { option } else { 3 }, |n| n as usize);
        let limits = Limits {
            infinite: true,
            multipv: Some(n),
            ..Limits::default()
        };
        self.start_search(limits, Purpose::Go, out);
    }

    /// `hint`: a search as `go` with no limit would run (one line), answered
    /// by `hint <move> score <score>` instead of `bestmove`.
    fn hint(&mut self, out: &mut Vec<Response>) {
        if self.answered_game_over(true, out) {
            return;
        }
        let limits = Limits {
            multipv: Some(1),
            ..Limits::default()
        };
        self.start_search(limits, Purpose::Hint(None), out);
    }

    /// The exact value of each of `moves` for the player making it, where
    /// the engine knows it, in the order of `moves`.
    fn exact_values(&mut self, moves: &[Move]) -> Vec<(Move, Score)> {
        if moves.is_empty() {
            return Vec::new();
        }
        let pos = *self.game.position();
        let values = self.engine().move_values(&pos);
        moves
            .iter()
            .filter_map(|m| values.iter().find(|(vm, _)| vm == m).copied())
            .collect()
    }

    fn play(&mut self, text: &str, out: &mut Vec<Response>) {
        if let Some(end) = self.game.result() {
            out.push(Response::Error(format!("play: the game is over: {end}")));
            return;
        }
        match self.game.play_text(text) {
            Ok(m) => out.push(Response::Played(m)),
            Err(e) => {
                out.push(Response::Error(format!("play: {e}")));
                return;
            }
        }
        if let Some(end) = self.game.result() {
            out.push(Response::GameOver(end));
        } else if self.reply {
            self.start_search(Limits::default(), Purpose::Reply, out);
        }
    }

    fn ponderhit(&mut self) {
        self.search.ponderhit();
    }

    fn start_search(&mut self, limits: Limits, purpose: Purpose, out: &mut Vec<Response>) {
        // made now, on the caller's blocking thread: a queued search starts
        // later from the transport's async loop, which must not read files
        let _ = self.engine();
        let slot = match &self.config.search_slots {
            None => None,
            Some(sem) => match Arc::clone(sem).try_acquire_owned() {
                Ok(p) => Some(p),
                Err(TryAcquireError::NoPermits) => {
                    out.push(Response::InfoString(
                        "queued: every search slot is busy; the search starts when one frees (stop answers at once)"
                            .into(),
                    ));
                    self.search.queue(limits, purpose);
                    return;
                }
                Err(TryAcquireError::Closed) => {
                    out.push(Response::Error("the server is shutting down".into()));
                    return;
                }
            },
        };
        self.launch(limits, purpose, slot);
    }

    fn launch(&mut self, limits: Limits, purpose: Purpose, slot: Option<OwnedSemaphorePermit>) {
        let on_event = self.events.on_event();
        let game = self.game.clone();
        let budget = self.config.max_perft_leaves;
        let handle = match purpose {
            Purpose::Perft(depth) => self
                .engine()
                .perft(game.position(), depth, budget, on_event),
            _ => self.engine().go(&game, limits.clone(), on_event),
        };
        self.overtime = false;
        self.search
            .start(handle, purpose, slot.map(|p| Box::new(p) as SlotToken));
    }

    fn finish(
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
    fn pay_ready(&mut self, out: &mut Vec<Response>) {
        for _ in 0..std::mem::take(&mut self.ready_owed) {
            out.push(Response::ReadyOk);
        }
    }

    /// The legal move with the best static evaluation (for a search stopped before
    /// it could start).
    /// Makes no engine (it may run on an async worker, and a new engine may
    /// read files): without one, the default evaluation judges.
    fn quick_move(&mut self) -> Option<Move> {
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
mod tests;
