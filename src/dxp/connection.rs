//! One DXP connection: its game, clock and search as a state machine that
//! consumes messages and search answers and produces messages. It does no
//! I/O: the server's [driver](crate::server::driver) runs it, and the DXP
//! transport reads, writes and paces the messages.

use super::board::{color_of, find_move, move_message, parse_board};
use super::config::DxpConfig;
use super::message::{DxpMessage, DxpMove, GameReq, ParseDxpError};
use crate::board::{join_or_none, Color, Game, Move, Outcome, Position, Variant};
use crate::engine::{Engine, Event, GoLimits, Phase, SearchId, SearchSlot, SlotToken};
use crate::frontend::{Flow, Policy, SlotGrant};
use crate::server::driver::{Driven, Notice};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// The DXP version this follower speaks (`R01...`).
pub(super) const DXP_VERSION: u8 = 1;

/// What a connection consumes.
#[derive(Debug)]
pub(super) enum Input {
    /// A message from the peer, or why it could not be read.
    Message(Result<DxpMessage, ParseDxpError>),
    /// The answer of our search `id`.
    Search { id: SearchId, mv: Option<Move> },
}

/// Where our searches send their answers.
pub(super) type Answers = mpsc::Sender<(SearchId, Option<Move>)>;

pub(super) struct Clock {
    pub(super) left: Duration,
    /// Moves to make in the time (0: all of them).
    pub(super) moves: u16,
}

pub(super) struct Match {
    pub(super) game: Game,
    pub(super) ours: Color,
    pub(super) clock: Option<Clock>,
    pub(super) moves_made: u32,
    /// When our current turn began.
    pub(super) turn_start: Instant,
    /// We sent GAMEEND and wait for its echo.
    pub(super) ended: bool,
}

pub(super) struct Connection {
    pub(super) config: Arc<DxpConfig>,
    pub(super) engine: Engine,
    pub(super) peer: SocketAddr,
    pub(super) game: Option<Match>,
    /// Our search for a move; its answer comes back as [`Input::Search`].
    pub(super) search: SearchSlot<()>,
    pub(super) answers: Answers,
    /// Messages to send, in order.
    pub(super) out: Vec<DxpMessage>,
    /// Close the connection once `out` is written (a refused request).
    pub(super) closing: bool,
    /// A game has been accepted on this connection (until then the
    /// handshake deadline applies).
    pub(super) accepted: bool,
    /// What the server allows this connection: a search slot for each of
    /// our searches, and its engine's share of the hash budget (held until
    /// the connection is dropped).
    pub(super) policy: Box<dyn Policy>,
}

impl Connection {
    fn send(&mut self, m: DxpMessage) {
        tracing::debug!(peer = %self.peer, "send {m}");
        self.out.push(m);
    }

    /// Calls off our search; its thread is waited for on a blocking thread
    /// when a runtime runs this (never on an async worker), here otherwise. An
    /// answer it already sent is recognised by its id and ignored.
    fn cancel_search(&mut self) {
        let Some(handle) = self.search.cancel() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => drop(rt.spawn_blocking(move || drop(handle))),
            Err(_) => drop(handle),
        }
    }

    /// Handles one input; the messages to send are left in `out`.
    pub(super) fn handle(&mut self, input: Input) {
        match input {
            Input::Message(Ok(m)) => {
                tracing::debug!(peer = %self.peer, "recv {m}");
                self.message(m);
            }
            Input::Message(Err(ParseDxpError::Field {
                kind: "GAMEREQ", ..
            })) if self.game.is_none() => {
                // the peer waits for an answer: refuse, then close
                self.refuse(2, "malformed GAMEREQ");
                self.closing = true;
            }
            Input::Message(Err(e)) => {
                tracing::warn!(peer = %self.peer, error = %e, "bad DXP message ignored");
            }
            Input::Search { id, mv } => self.search_done(id, mv),
        }
    }

    fn message(&mut self, m: DxpMessage) {
        match m {
            DxpMessage::GameReq(r) => self.game_request(&r),
            DxpMessage::Move(mv) => self.their_move(&mv),
            DxpMessage::GameEnd { reason, stop } => {
                match self.game.take() {
                    Some(g) if !g.ended => {
                        self.cancel_search();
                        // echo, from our side: their loss is our win
                        let reason = match reason {
                            1 => 3,
                            3 => 1,
                            r => r,
                        };
                        tracing::info!(peer = %self.peer, reason, "game ended by the peer");
                        self.send(DxpMessage::GameEnd { reason, stop });
                    }
                    Some(_) => tracing::info!(peer = %self.peer, "game end confirmed"),
                    None => tracing::debug!(peer = %self.peer, "GAMEEND with no game"),
                }
            }
            DxpMessage::BackReq { .. } => self.send(DxpMessage::BackAcc { code: 1 }),
            DxpMessage::Chat(text) => tracing::info!(peer = %self.peer, "chat: {text}"),
            DxpMessage::GameAcc { .. } | DxpMessage::BackAcc { .. } => {
                tracing::debug!(peer = %self.peer, "unexpected message for a follower ignored");
            }
        }
    }

    fn refuse(&mut self, code: u8, why: &str) {
        tracing::info!(peer = %self.peer, code, why, "game request refused");
        let name = self.config.name.clone();
        self.send(DxpMessage::GameAcc { name, code });
    }

    fn game_request(&mut self, r: &GameReq) {
        if r.version != DXP_VERSION {
            self.refuse(1, "wrong protocol version");
            self.closing = true;
            return;
        }
        let start = match &r.setup {
            None => Position::startpos(Variant::English),
            Some((to_move, board)) => match parse_board(board, *to_move) {
                Ok(p) => p,
                Err(e) => return self.refuse(2, &e.to_string()),
            },
        };
        self.cancel_search();
        self.engine.new_game(Variant::English);
        let clock = (r.minutes > 0).then(|| Clock {
            left: Duration::from_secs(u64::from(r.minutes) * 60),
            moves: r.moves,
        });
        self.game = Some(Match {
            game: Game::from_position(start),
            ours: color_of(r.follower),
            clock,
            moves_made: 0,
            turn_start: Instant::now(),
            ended: false,
        });
        tracing::info!(
            peer = %self.peer, initiator = %r.name, ours = %color_of(r.follower),
            minutes = r.minutes, moves = r.moves, "game accepted"
        );
        let name = self.config.name.clone();
        self.send(DxpMessage::GameAcc { name, code: 0 });
        self.accepted = true;
        self.next_turn();
    }

    /// After a move (or the start): end the game if it is over, else search if
    /// it is our turn.
    pub(super) fn next_turn(&mut self) {
        let Some(g) = &mut self.game else {
            return;
        };
        if let Some(end) = g.game.result() {
            let reason = match end.outcome {
                Outcome::Win(c) if c == g.ours => 3,
                Outcome::Win(_) => 1,
                Outcome::Draw => 2,
            };
            g.ended = true;
            tracing::info!(peer = %self.peer, result = %end, "game over");
            return self.send(DxpMessage::GameEnd { reason, stop: 0 });
        }
        if g.game.position().turn() != g.ours {
            return;
        }
        g.turn_start = Instant::now();
        let mut limits = GoLimits::default();
        match &g.clock {
            Some(c) => {
                let to_go = (c.moves > 0 && g.moves_made < u32::from(c.moves))
                    .then(|| u32::from(c.moves) - g.moves_made);
                limits.set_clock(c.left, None, to_go);
            }
            None => limits.movetime = self.config.movetime,
        }
        match self.policy.search_slot() {
            SlotGrant::Now(slot) => self.launch(limits, slot),
            SlotGrant::Busy => {
                tracing::debug!(peer = %self.peer, "every search slot is busy; our search waits");
                self.search.queue(limits, ());
            }
            SlotGrant::Closed => tracing::info!(peer = %self.peer, "shutting down: no search"),
        }
    }

    /// Starts our search for a move in the current game, holding `slot`
    /// until it ends.
    fn launch(&mut self, limits: GoLimits, slot: Option<SlotToken>) {
        let Some(g) = &self.game else {
            return;
        };
        let id = self.search.next_id();
        let answers = self.answers.clone();
        let handle = self.engine.go(
            &g.game,
            limits,
            Box::new(move |ev| {
                if let Event::BestMove { mv, .. } = ev {
                    // at most one answer per search, and the loop reads them
                    // before anything else: a full queue means a gone loop
                    let _ = answers.try_send((id, mv));
                }
            }),
        );
        self.search.start(handle, (), slot);
    }

    fn their_move(&mut self, mv: &DxpMove) {
        let Some(g) = &mut self.game else {
            tracing::warn!(peer = %self.peer, "MOVE without a game ignored");
            return;
        };
        if g.ended || g.game.position().turn() == g.ours {
            tracing::warn!(peer = %self.peer, "MOVE out of turn ignored");
            return;
        }
        match find_move(g.game.position(), mv) {
            Ok(m) => {
                g.game.play_unchecked(m);
                self.next_turn();
            }
            Err(e) => {
                let legal = join_or_none(g.game.position().legal_moves().iter());
                tracing::warn!(peer = %self.peer, error = %e, legal = %legal, "game abandoned");
                g.ended = true;
                self.send(DxpMessage::Chat(format!("kingme: {e}")));
                self.send(DxpMessage::GameEnd { reason: 0, stop: 0 });
            }
        }
    }

    fn search_done(&mut self, id: SearchId, mv: Option<Move>) {
        if self.search.answer_of(id).is_none() {
            return;
        }
        let Some(g) = &mut self.game else {
            return;
        };
        let spent = g.turn_start.elapsed();
        if let Some(c) = &mut g.clock {
            c.left = c.left.saturating_sub(spent);
        }
        match mv.filter(|&m| g.game.position().is_legal(m)) {
            Some(m) => {
                g.game.play_unchecked(m);
                g.moves_made += 1;
                let seconds = spent.as_secs().min(9999) as u16;
                self.send(DxpMessage::Move(move_message(m, seconds)));
                self.next_turn();
            }
            None => {
                g.ended = true;
                self.send(DxpMessage::GameEnd { reason: 1, stop: 0 });
            }
        }
    }
}

/// A DXP connection as the server's driver runs it: messages in and out, our
/// searches' answers as its events, the handshake deadline as the
/// authentication timeout. DXP has no words for the driver's notices.
impl Driven for Connection {
    type Input = Result<DxpMessage, ParseDxpError>;
    type Output = DxpMessage;
    type Event = (SearchId, Option<Move>);

    fn handle(&mut self, input: Self::Input, out: &mut Vec<DxpMessage>) -> Flow {
        Connection::handle(self, Input::Message(input));
        out.append(&mut self.out);
        if self.closing {
            Flow::Quit
        } else {
            Flow::Continue
        }
    }

    fn handle_event(&mut self, (id, mv): Self::Event, out: &mut Vec<DxpMessage>) {
        Connection::handle(self, Input::Search { id, mv });
        out.append(&mut self.out);
    }

    fn notice(&self, _notice: Notice) -> Option<DxpMessage> {
        None
    }

    fn is_searching(&self) -> bool {
        self.search.is_busy()
    }

    fn is_authed(&self) -> bool {
        self.accepted
    }

    fn queued_on(&self) -> Option<Arc<Semaphore>> {
        match self.search.phase() {
            Phase::Queued => self.policy.slot_queue(),
            _ => None,
        }
    }

    /// A search slot is free: our queued search starts.
    fn slot_granted(&mut self, permit: OwnedSemaphorePermit, out: &mut Vec<DxpMessage>) {
        if let Some((limits, ())) = self.search.take_queued() {
            self.launch(limits, Some(Box::new(permit)));
        }
        out.append(&mut self.out);
    }

    /// The peer has closed: our search is called off.
    fn input_closed(&mut self, _out: &mut Vec<DxpMessage>) {
        self.cancel_search();
    }

    fn stop(&mut self, _out: &mut Vec<DxpMessage>) {
        self.cancel_search();
    }
}
