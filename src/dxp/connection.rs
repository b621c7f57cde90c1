//! One DXP connection: its game, clock and search as a state machine that
//! consumes messages and search results and writes messages.

use super::board::{color_of, find_move, move_message, parse_board};
use super::message::{DxpMessage, DxpMove, GameReq, ParseDxpError, MAX_MESSAGE};
use super::DxpConfig;
use crate::board::{Color, Game, Move, Outcome, Position, Variant};
use crate::engine::{Engine, Event, Limits, SearchHandle};
use crate::server::framing::read_bounded;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a connection's loop consumes.
#[derive(Debug)]
pub(super) enum Input {
    Message(Result<DxpMessage, ParseDxpError>),
    Closed(&'static str),
    Search { id: u64, mv: Option<Move> },
}

/// Reads NUL-framed messages from `stream` into `tx` until EOF or an error.
pub(super) fn read_messages(stream: impl Read, tx: &SyncSender<Input>) {
    let read = read_bounded(io::BufReader::new(stream), 0, MAX_MESSAGE, |m| {
        let parsed = m.map_or(Err(ParseDxpError::TooLong), |m| DxpMessage::parse(&m));
        tx.send(Input::Message(parsed)).is_ok()
    });
    let why = match read {
        Ok(()) => "closed by peer",
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            "idle timeout"
        }
        Err(_) => "read error",
    };
    let _ = tx.send(Input::Closed(why));
}

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

/// Our search for a move; its move comes back as [`Input::Search`] with its `id`.
pub(super) struct Search {
    pub(super) id: u64,
    pub(super) handle: SearchHandle,
    /// Set when the search is called off: its move is no longer wanted.
    pub(super) cancelled: Arc<AtomicBool>,
}

pub(super) struct Connection {
    pub(super) config: Arc<DxpConfig>,
    pub(super) engine: Engine,
    pub(super) writer: TcpStream,
    pub(super) peer: SocketAddr,
    pub(super) last_write: Option<Instant>,
    pub(super) busy: bool,
    pub(super) game: Option<Match>,
    pub(super) search: Option<Search>,
    pub(super) next_id: u64,
    pub(super) tx: SyncSender<Input>,
}

impl Connection {
    fn send(&mut self, m: &DxpMessage) -> io::Result<()> {
        if let Some(t) = self.last_write {
            let gap = self.config.message_gap;
            let since = t.elapsed();
            if since < gap {
                std::thread::sleep(gap - since);
            }
        }
        let mut bytes = m.to_string().into_bytes();
        tracing::debug!(peer = %self.peer, "send {}", String::from_utf8_lossy(&bytes));
        bytes.push(0);
        self.writer.write_all(&bytes)?;
        self.writer.flush()?;
        self.last_write = Some(Instant::now());
        Ok(())
    }

    /// Calls off our search and waits for its thread; a move it already
    /// queued is recognised by its id and ignored.
    fn cancel_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.cancelled.store(true, Ordering::SeqCst);
            drop(s.handle);
        }
    }

    pub(super) fn handle(&mut self, input: Input) -> io::Result<bool> {
        match input {
            Input::Message(Ok(m)) => {
                tracing::debug!(peer = %self.peer, "recv {m}");
                self.message(m)?;
            }
            Input::Message(Err(e)) => {
                tracing::warn!(peer = %self.peer, error = %e, "bad DXP message ignored");
            }
            Input::Closed(why) => {
                tracing::info!(peer = %self.peer, why, "connection closed");
                return Ok(false);
            }
            Input::Search { id, mv } => self.search_done(id, mv)?,
        }
        Ok(true)
    }

    fn message(&mut self, m: DxpMessage) -> io::Result<()> {
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
                        self.send(&DxpMessage::GameEnd { reason, stop })?;
                    }
                    Some(_) => tracing::info!(peer = %self.peer, "game end confirmed"),
                    None => tracing::debug!(peer = %self.peer, "GAMEEND with no game"),
                }
                Ok(())
            }
            DxpMessage::BackReq { .. } => self.send(&DxpMessage::BackAcc { code: 1 }),
            DxpMessage::Chat(text) => {
                tracing::info!(peer = %self.peer, "chat: {text}");
                Ok(())
            }
            DxpMessage::GameAcc { .. } | DxpMessage::BackAcc { .. } => {
                tracing::debug!(peer = %self.peer, "unexpected message for a follower ignored");
                Ok(())
            }
        }
    }

    fn refuse(&mut self, code: u8, why: &str) -> io::Result<()> {
        tracing::info!(peer = %self.peer, code, why, "game request refused");
        let name = self.config.name.clone();
        self.send(&DxpMessage::GameAcc { name, code })
    }

    fn game_request(&mut self, r: &GameReq) -> io::Result<()> {
        if self.busy {
            return self.refuse(3, "too many games");
        }
        let start = match &r.setup {
            None => Position::startpos(Variant::English),
            Some((to_move, board)) => match parse_board(board, *to_move) {
                Ok(p) => p,
                Err(e) => return self.refuse(2, &e.to_string()),
            },
        };
        self.cancel_search();
        self.engine.new_game();
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
        self.send(&DxpMessage::GameAcc { name, code: 0 })?;
        self.next_turn()
    }

    /// After a move (or the start): end the game if it is over, else search if
    /// it is our turn.
    pub(super) fn next_turn(&mut self) -> io::Result<()> {
        let Some(g) = &mut self.game else {
            return Ok(());
        };
        if let Some(end) = g.game.result() {
            let reason = match end.outcome {
                Outcome::Win(c) if c == g.ours => 3,
                Outcome::Win(_) => 1,
                Outcome::Draw => 2,
            };
            g.ended = true;
            tracing::info!(peer = %self.peer, result = %end, "game over");
            return self.send(&DxpMessage::GameEnd { reason, stop: 0 });
        }
        if g.game.position().turn() != g.ours {
            return Ok(());
        }
        g.turn_start = Instant::now();
        let mut limits = Limits::default();
        match &g.clock {
            Some(c) => {
                let to_go = (c.moves > 0 && g.moves_made < u32::from(c.moves))
                    .then(|| u32::from(c.moves) - g.moves_made);
                limits.set_clock(c.left, None, to_go);
            }
            None => limits.movetime = self.config.movetime,
        }
        let id = self.next_id;
        self.next_id += 1;
        let tx = self.tx.clone();
        let cancelled = Arc::new(AtomicBool::new(false));
        let called_off = Arc::clone(&cancelled);
        let handle = self.engine.go(
            &g.game,
            limits,
            Box::new(move |ev| {
                if let Event::BestMove { mv, .. } = ev {
                    send_move(&tx, Input::Search { id, mv }, &called_off);
                }
            }),
        );
        self.search = Some(Search {
            id,
            handle,
            cancelled,
        });
        Ok(())
    }

    fn their_move(&mut self, mv: &DxpMove) -> io::Result<()> {
        let Some(g) = &mut self.game else {
            tracing::warn!(peer = %self.peer, "MOVE without a game ignored");
            return Ok(());
        };
        if g.ended || g.game.position().turn() == g.ours {
            tracing::warn!(peer = %self.peer, "MOVE out of turn ignored");
            return Ok(());
        }
        match find_move(g.game.position(), mv) {
            Ok(m) => {
                g.game.play_unchecked(m);
                self.next_turn()
            }
            Err(e) => {
                let legal: Vec<String> = g
                    .game
                    .position()
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                tracing::warn!(peer = %self.peer, error = %e, legal = %legal.join(" "), "game abandoned");
                g.ended = true;
                self.send(&DxpMessage::Chat(format!("kingme: {e}")))?;
                self.send(&DxpMessage::GameEnd { reason: 0, stop: 0 })
            }
        }
    }

    fn search_done(&mut self, id: u64, mv: Option<Move>) -> io::Result<()> {
        if self.search.as_ref().is_none_or(|s| s.id != id) {
            return Ok(());
        }
        self.search = None;
        let Some(g) = &mut self.game else {
            return Ok(());
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
                self.send(&DxpMessage::Move(move_message(m, seconds)))?;
                self.next_turn()
            }
            None => {
                g.ended = true;
                self.send(&DxpMessage::GameEnd { reason: 1, stop: 0 })
            }
        }
    }

    /// Calls off the search, if any, and waits for its thread.
    pub(super) fn finish(&mut self) {
        self.cancel_search();
    }
}

/// Queues a search's move for the connection loop. While the queue is full
/// (a peer flooding us), it retries until the move is taken or the search is
/// called off, so a connection waiting for a cancelled search never waits on
/// its own queue.
fn send_move(tx: &SyncSender<Input>, mut input: Input, cancelled: &AtomicBool) {
    loop {
        match tx.try_send(input) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => return,
            Err(TrySendError::Full(back)) => {
                if cancelled.load(Ordering::SeqCst) {
                    return;
                }
                input = back;
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}
