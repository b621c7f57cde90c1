//! DXP (DamExchange) follower over TCP: `kingme dxp --listen 127.0.0.1:27531`.
//!
//! The initiator (e.g. pydraughts' `DXPEngine`) connects and sends GAMEREQ;
//! we answer GAMEACC, then MOVE messages alternate until a GAMEEND, which the
//! other side echoes. One connection plays one game at a time, with its own
//! engine; several connections play at once up to a limit (beyond it GAMEREQ
//! is refused with code 3).
//!
//! English dialect (pydraughts'): squares 01-32 in moves; a set-up position is
//! 32 characters where character `k` (1-based) is square `33 - k`, `w`/`W` a
//! Black man/king, `z`/`Z` a White man/king, `e` empty; in colour fields
//! (follower, side to move, BACKREQ) `Z` is Black and `W` is White. The DXP
//! standard is 10x10; other board sizes are refused with GAMEACC code 2.
//!
//! Every message goes out in its own write, at least [`DxpConfig::message_gap`]
//! after the previous one: pydraughts reads one `recv()` per message and loses
//! a second message that arrives with the first. The clock from GAMEREQ is
//! kept (our thinking time, from the moment it is our turn to our MOVE); with
//! no clock each move gets [`DxpConfig::movetime`]. Takebacks are declined
//! (`K1`), chat is logged, and bad messages are logged and ignored.

pub mod message;

use crate::board::{Bitboard, Color, Game, Move, Outcome, Position, Square, Variant};
use crate::engine::{Engine, EngineError, Event, Limits, SearchHandle};
pub use message::{DxpColor, DxpMessage, DxpMove, GameReq, ParseDxpError, MAX_MESSAGE};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Settings of the DXP server.
#[derive(Clone, Debug)]
pub struct DxpConfig {
    /// Our name in GAMEACC.
    pub name: String,
    /// Engine options applied to every connection's engine (`Level`, `Hash`, `Threads`).
    pub options: Vec<(String, String)>,
    /// Time per move when GAMEREQ sets no clock (`None`: the level's default).
    pub movetime: Option<Duration>,
    /// Games played at once.
    pub max_games: usize,
    /// Close a connection after this long without a message from the peer.
    pub idle_timeout: Duration,
    /// Least time between two messages on one connection.
    pub message_gap: Duration,
}

impl Default for DxpConfig {
    fn default() -> Self {
        DxpConfig {
            name: "kingme".into(),
            options: Vec::new(),
            movetime: None,
            max_games: 4,
            idle_timeout: Duration::from_secs(900),
            message_gap: Duration::from_millis(30),
        }
    }
}

impl DxpConfig {
    /// Checks the engine options by applying them to a fresh engine.
    pub fn validate(&self) -> Result<(), EngineError> {
        let mut e = Engine::new();
        self.options
            .iter()
            .try_for_each(|(n, v)| e.set_option(n, v))
    }
}

/// A GAMEREQ position or move that doesn't fit the English game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DxpGameError {
    /// Not a 32-square board.
    #[error("board of {0} squares: only English (32) is played")]
    BoardSize(usize),
    /// A character other than `w W z Z e`.
    #[error("board character '{0}' is not one of w W z Z e")]
    Piece(char),
    /// Well-formed but not a legal set-up.
    #[error("bad position: {0}")]
    Invalid(&'static str),
    /// A MOVE that is not legal here.
    #[error("illegal move {from}-{to} capturing {captured:?}")]
    IllegalMove {
        /// Start square.
        from: u8,
        /// End square.
        to: u8,
        /// Captured squares.
        captured: Vec<u8>,
    },
}

/// The colour a colour field stands for (English dialect: `Z` Black, `W` White).
#[must_use]
pub fn color_of(c: DxpColor) -> Color {
    match c {
        DxpColor::Z => Color::Black,
        DxpColor::W => Color::White,
    }
}

/// The colour field for `c`.
#[must_use]
pub fn dxp_color(c: Color) -> DxpColor {
    match c {
        Color::Black => DxpColor::Z,
        Color::White => DxpColor::W,
    }
}

/// Reads a GAMEREQ set-up board with `to_move` to play.
pub fn parse_board(board: &str, to_move: DxpColor) -> Result<Position, DxpGameError> {
    let chars: Vec<char> = board.chars().collect();
    if chars.len() != 32 {
        return Err(DxpGameError::BoardSize(chars.len()));
    }
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    for (k, &c) in chars.iter().enumerate() {
        let bit = 1u32 << (31 - k);
        match c {
            'w' => black |= bit,
            'W' => {
                black |= bit;
                kings |= bit;
            }
            'z' => white |= bit,
            'Z' => {
                white |= bit;
                kings |= bit;
            }
            'e' => {}
            other => return Err(DxpGameError::Piece(other)),
        }
    }
    let pos = Position::from_parts(
        Variant::English,
        Bitboard(black),
        Bitboard(white),
        Bitboard(kings),
        color_of(to_move),
    );
    pos.validate().map_err(DxpGameError::Invalid)?;
    Ok(pos)
}

/// Writes an English position as a GAMEREQ board and the side to move.
#[must_use]
pub fn format_board(pos: &Position) -> (DxpColor, String) {
    let board = (1..=32u32)
        .rev()
        .map(|n| {
            let sq = Square::from_number(n).expect("1..=32");
            let king = pos.kings().contains(sq);
            match (pos.piece_at(sq).map(|p| p.color), king) {
                (Some(Color::Black), false) => 'w',
                (Some(Color::Black), true) => 'W',
                (Some(Color::White), false) => 'z',
                (Some(Color::White), true) => 'Z',
                (None, _) => 'e',
            }
        })
        .collect();
    (dxp_color(pos.turn()), board)
}

/// Finds the legal move a MOVE message describes.
pub fn find_move(pos: &Position, m: &DxpMove) -> Result<Move, DxpGameError> {
    let illegal = || DxpGameError::IllegalMove {
        from: m.from,
        to: m.to,
        captured: m.captured.clone(),
    };
    let sq = |n: u8| Square::from_number(u32::from(n)).ok_or_else(illegal);
    let (from, to) = (sq(m.from)?, sq(m.to)?);
    let mut set = Bitboard::EMPTY;
    for &c in &m.captured {
        set = set.with(sq(c)?);
    }
    if set.count() as usize != m.captured.len() {
        return Err(illegal());
    }
    pos.legal_moves()
        .iter()
        .copied()
        .find(|l| !l.is_pass() && l.from() == from && l.to() == to && l.captured() == set)
        .ok_or_else(illegal)
}

/// The MOVE message for `m`.
#[must_use]
pub fn move_message(m: Move, seconds: u16) -> DxpMove {
    DxpMove {
        seconds,
        from: m.from().number() as u8,
        to: m.to().number() as u8,
        captured: m.captured().map(|s| s.number() as u8).collect(),
    }
}

/// How long a connection waits for input before checking on its search.
const TICK: Duration = Duration::from_millis(200);

/// What a connection's loop consumes.
#[derive(Debug)]
enum Input {
    Message(Result<DxpMessage, ParseDxpError>),
    Closed(&'static str),
    Search { id: u64, mv: Option<Move> },
}

/// Reads NUL-framed messages from `stream` into `tx` until EOF or an error.
fn read_messages(mut stream: impl Read, tx: &SyncSender<Input>) {
    let mut buf = [0u8; 1024];
    let mut msg: Vec<u8> = Vec::with_capacity(MAX_MESSAGE);
    let mut discarding = false;
    let why = loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break "closed by peer",
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                break "idle timeout"
            }
            Err(_) => break "read error",
        };
        for &b in &buf[..n] {
            if b == 0 {
                if !discarding {
                    let parsed = DxpMessage::parse(&msg);
                    if tx.send(Input::Message(parsed)).is_err() {
                        return;
                    }
                }
                msg.clear();
                discarding = false;
            } else if !discarding {
                if msg.len() == MAX_MESSAGE {
                    discarding = true;
                    msg.clear();
                    if tx
                        .send(Input::Message(Err(ParseDxpError::TooLong)))
                        .is_err()
                    {
                        return;
                    }
                } else {
                    msg.push(b);
                }
            }
        }
    };
    let _ = tx.send(Input::Closed(why));
}

struct Clock {
    left: Duration,
    /// Moves to make in the time (0: all of them).
    moves: u16,
}

struct Match {
    game: Game,
    ours: Color,
    clock: Option<Clock>,
    moves_made: u32,
    /// When our current turn began.
    turn_start: Instant,
    /// We sent GAMEEND and wait for its echo.
    ended: bool,
}

struct Search {
    id: u64,
    handle: SearchHandle,
}

struct Connection {
    config: Arc<DxpConfig>,
    engine: Engine,
    writer: TcpStream,
    peer: SocketAddr,
    last_write: Option<Instant>,
    busy: bool,
    game: Option<Match>,
    search: Option<Search>,
    /// Stopped searches whose final event hasn't arrived yet.
    retired: Vec<Search>,
    /// A tick found the search thread finished without its move queued.
    finished_seen: bool,
    next_id: u64,
    tx: SyncSender<Input>,
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

    fn cancel_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.handle.stop();
            self.retired.push(s);
        }
    }

    fn handle(&mut self, input: Input) -> io::Result<bool> {
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
    fn next_turn(&mut self) -> io::Result<()> {
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
                limits.btime = Some(c.left);
                limits.wtime = Some(c.left);
                if c.moves > 0 && g.moves_made < u32::from(c.moves) {
                    limits.movestogo = Some(u32::from(c.moves) - g.moves_made);
                }
            }
            None => limits.movetime = self.config.movetime,
        }
        let id = self.next_id;
        self.next_id += 1;
        let tx = self.tx.clone();
        let handle = self.engine.go(
            &g.game,
            limits,
            Box::new(move |ev| {
                if let Event::BestMove { mv, .. } = ev {
                    let _ = tx.send(Input::Search { id, mv });
                }
            }),
        );
        self.search = Some(Search { id, handle });
        self.finished_seen = false;
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
        if let Some(i) = self.retired.iter().position(|s| s.id == id) {
            self.retired.swap_remove(i);
            return Ok(());
        }
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

    /// Called when no input came for [`TICK`]: a search thread that ended
    /// without its move (it can't be spawned, or it panicked) is found on two
    /// ticks in a row (the channel drained in between), and the first legal
    /// move is played for it so the game goes on.
    fn tick(&mut self) -> io::Result<()> {
        self.retired.retain(|s| !s.handle.is_finished());
        let Some(s) = &self.search else {
            self.finished_seen = false;
            return Ok(());
        };
        if !s.handle.is_finished() {
            self.finished_seen = false;
            return Ok(());
        }
        if !self.finished_seen {
            self.finished_seen = true;
            return Ok(());
        }
        self.finished_seen = false;
        let id = s.id;
        let mv = self
            .game
            .as_ref()
            .and_then(|g| g.game.position().legal_moves().first().copied());
        tracing::warn!(peer = %self.peer, "the search ended without a move: playing the first legal move");
        self.search_done(id, mv)
    }

    /// Stops every search and waits (reading the channel) for their last events.
    fn finish(&mut self, rx: &Receiver<Input>) {
        self.cancel_search();
        while !self.retired.is_empty() {
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(Input::Search { id, .. }) => self.retired.retain(|s| s.id != id),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        self.retired.clear();
    }
}

fn serve_connection(stream: TcpStream, config: Arc<DxpConfig>, busy: bool) -> io::Result<()> {
    let peer = stream.peer_addr()?;
    stream.set_nodelay(true)?;
    let reader = stream.try_clone()?;
    let idle = config.idle_timeout.max(Duration::from_millis(1));
    reader.set_read_timeout(Some(idle))?;
    // a peer that stops reading can't hold this thread forever
    stream.set_write_timeout(Some(idle))?;
    let (tx, rx) = sync_channel(64);
    let reader_tx = tx.clone();
    std::thread::Builder::new()
        .name("kingme-dxp-read".into())
        .spawn(move || read_messages(reader, &reader_tx))?;
    let mut engine = Engine::new();
    for (n, v) in &config.options {
        if let Err(e) = engine.set_option(n, v) {
            tracing::warn!(error = %e, "engine option ignored");
        }
    }
    tracing::info!(%peer, "connected");
    let mut conn = Connection {
        config,
        engine,
        writer: stream,
        peer,
        last_write: None,
        busy,
        game: None,
        search: None,
        retired: Vec::new(),
        finished_seen: false,
        next_id: 0,
        tx,
    };
    let result = loop {
        let step = match rx.recv_timeout(TICK) {
            Ok(input) => conn.handle(input),
            Err(RecvTimeoutError::Timeout) => conn.tick().map(|()| true),
            Err(RecvTimeoutError::Disconnected) => break Ok(()),
        };
        match step {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    conn.finish(&rx);
    let _ = conn.writer.shutdown(Shutdown::Both);
    result
}

/// Accepts DXP connections on `listener` forever, each served on its own thread.
pub fn serve(listener: TcpListener, config: DxpConfig) -> io::Result<()> {
    let config = Arc::new(config);
    let active = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        let n = active.fetch_add(1, Ordering::SeqCst);
        let busy = n >= config.max_games;
        let (config, active) = (Arc::clone(&config), Arc::clone(&active));
        let spawned = std::thread::Builder::new()
            .name("kingme-dxp".into())
            .spawn(move || {
                if let Err(e) = serve_connection(stream, config, busy) {
                    tracing::info!(error = %e, "connection ended with an error");
                }
                active.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread for a connection");
        }
    }
}

/// `kingme dxp`: binds `addr`, says where on stderr, and serves forever.
pub fn run(addr: &str, config: DxpConfig) -> io::Result<()> {
    let listener = TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    if !local.ip().is_loopback() {
        eprintln!(
            "WARNING: kingme dxp is listening on {local}, reachable from other machines; \
             DXP has no authentication. Bind 127.0.0.1 unless you mean it."
        );
    }
    eprintln!("kingme dxp listening on {local}");
    serve(listener, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_board_matches_pydraughts() {
        let start = Position::startpos(Variant::English);
        let (c, board) = format_board(&start);
        assert_eq!(c, DxpColor::Z);
        assert_eq!(board, "zzzzzzzzzzzzeeeeeeeewwwwwwwwwwww");
        assert_eq!(parse_board(&board, c).unwrap(), start);
    }

    #[test]
    fn kings_and_colours() {
        // pydraughts: Board('english', fen='W:WK10,22:B3,K14') gives mColor W and this board
        let pos = Position::from_fen(Variant::English, "W:WK10,22:B3,K14").unwrap();
        let (c, board) = format_board(&pos);
        assert_eq!(
            (c, board.as_str()),
            (DxpColor::W, "eeeeeeeeeezeeeeeeeWeeeZeeeeeewee")
        );
        assert_eq!(parse_board(&board, c).unwrap(), pos);
    }

    #[test]
    fn bad_boards() {
        let z = DxpColor::Z;
        assert_eq!(parse_board("", z), Err(DxpGameError::BoardSize(0)));
        assert_eq!(
            parse_board(&"e".repeat(50), z),
            Err(DxpGameError::BoardSize(50))
        );
        assert_eq!(
            parse_board(&"b".repeat(32), z),
            Err(DxpGameError::Piece('b'))
        );
        assert!(matches!(
            parse_board(&"w".repeat(32), z),
            Err(DxpGameError::Invalid(_))
        ));
        assert!(parse_board(&"é".repeat(32), z).is_err());
    }

    #[test]
    fn moves_both_ways() {
        let pos = Position::from_fen(Variant::English, "W:W26:B22,14,1").unwrap();
        let m = pos.legal_moves()[0];
        let dm = move_message(m, 3);
        assert_eq!(DxpMessage::Move(dm.clone()).to_string(), "M00032610021422");
        assert_eq!(find_move(&pos, &dm).unwrap(), m);
        let reversed = DxpMove {
            captured: vec![22, 14],
            ..dm.clone()
        };
        assert_eq!(find_move(&pos, &reversed).unwrap(), m);
        for bad in [
            vec![22],
            vec![22, 22],
            vec![22, 14, 1],
            vec![0, 14],
            vec![99, 14],
        ] {
            let d = DxpMove {
                captured: bad,
                ..dm.clone()
            };
            assert!(find_move(&pos, &d).is_err());
        }
    }

    /// A client on a loopback socket, reading whole messages.
    struct Client {
        s: TcpStream,
        buf: Vec<u8>,
    }

    impl Client {
        fn connect(addr: SocketAddr) -> Client {
            let s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            Client { s, buf: Vec::new() }
        }
        fn send_raw(&mut self, b: &[u8]) {
            self.s.write_all(b).unwrap();
        }
        fn send(&mut self, m: &str) {
            self.send_raw(format!("{m}\0").as_bytes());
        }
        fn recv(&mut self) -> String {
            loop {
                if let Some(i) = self.buf.iter().position(|&b| b == 0) {
                    let m: Vec<u8> = self.buf.drain(..=i).collect();
                    return String::from_utf8(m[..i].to_vec()).unwrap();
                }
                let mut b = [0u8; 256];
                let n = self.s.read(&mut b).unwrap();
                assert!(n > 0, "closed");
                self.buf.extend_from_slice(&b[..n]);
            }
        }
    }

    fn server(max_games: usize) -> SocketAddr {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let config = DxpConfig {
            options: vec![("Level".into(), "easy".into()), ("Hash".into(), "1".into())],
            movetime: Some(Duration::from_millis(20)),
            max_games,
            message_gap: Duration::from_millis(1),
            ..Default::default()
        };
        std::thread::spawn(move || serve(l, config));
        addr
    }

    const REQ_BLACK: &str =
        "R01DXP Client                      Z000000BZzzzzzzzzzzzzeeeeeeeewwwwwwwwwwww";

    #[test]
    fn plays_a_game_over_tcp() {
        let addr = server(2);
        let mut c = Client::connect(addr);
        // junk first: ignored
        c.send("Xjunk");
        c.send_raw(&[b'C'; 300]);
        c.send_raw(b"\0");
        c.send(REQ_BLACK);
        assert_eq!(c.recv(), format!("A{:<32}0", "kingme"));
        let mut game = Game::new(Variant::English);
        let mut plies = 0;
        loop {
            let m = c.recv();
            if m.starts_with('E') {
                c.send(&m);
                break;
            }
            let DxpMessage::Move(dm) = DxpMessage::parse(m.as_bytes()).unwrap() else {
                panic!("{m}")
            };
            let ours = find_move(game.position(), &dm).unwrap();
            game.play_unchecked(ours);
            plies += 1;
            if game.result().is_some() {
                assert!(c.recv().starts_with('E'));
                break;
            }
            // reply with the first legal move
            let reply = game.position().legal_moves()[0];
            game.play_unchecked(reply);
            c.send(&DxpMessage::Move(move_message(reply, 0)).to_string());
            plies += 1;
            assert!(plies < 400);
        }
        assert!(plies > 0);
        c.send("B001Z");
        assert_eq!(c.recv(), "K1");
        // another game on the same connection, the peer to move this time
        c.send(&REQ_BLACK.replacen('Z', "W", 1));
        assert!(c.recv().ends_with('0'));
        c.send("M0000091400");
        assert!(c.recv().starts_with('M'));
    }

    #[test]
    fn refuses_other_boards_and_extra_games() {
        let addr = server(1);
        let mut a = Client::connect(addr);
        let ten = format!("R01{:<32}W000000BW{}", "x", "e".repeat(50));
        a.send(&ten);
        assert!(a.recv().ends_with('2'));
        // follower White: Black (the client) moves first, so no move from us yet
        a.send(&REQ_BLACK.replacen('Z', "W", 1));
        assert!(a.recv().ends_with('0'));
        a.send("M0000111500"); // 11-15
        let reply = a.recv();
        assert!(reply.starts_with('M'), "{reply}");
        // a second connection over the limit is refused
        let mut b = Client::connect(addr);
        b.send(REQ_BLACK);
        assert!(b.recv().ends_with('3'));
        // an illegal move abandons the game
        a.send("M0000010500");
        assert!(a.recv().starts_with('C'));
        assert_eq!(a.recv(), "E00");
    }

    #[test]
    fn a_search_that_dies_silently_still_moves() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = Client::connect(l.local_addr().unwrap());
        let (stream, peer) = l.accept().unwrap();
        let (tx, _rx) = sync_channel(8);
        let mut conn = Connection {
            config: Arc::new(DxpConfig::default()),
            engine: Engine::new(),
            writer: stream,
            peer,
            last_write: None,
            busy: false,
            game: Some(Match {
                game: Game::new(Variant::English),
                ours: Color::Black,
                clock: None,
                moves_made: 0,
                turn_start: Instant::now(),
                ended: false,
            }),
            search: None,
            retired: Vec::new(),
            finished_seen: false,
            next_id: 7,
            tx,
        };
        // a search whose move never reaches the connection, as if its thread panicked
        let limits = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        let g = conn.game.as_ref().unwrap().game.clone();
        let handle = conn.engine.go(&g, limits, Box::new(|_| {}));
        conn.search = Some(Search { id: 7, handle });
        for _ in 0..100 {
            if conn.search.is_none() {
                break;
            }
            conn.tick().unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(conn.search.is_none());
        let m = client.recv();
        let DxpMessage::Move(dm) = DxpMessage::parse(m.as_bytes()).unwrap() else {
            panic!("{m}")
        };
        assert!(find_move(g.position(), &dm).is_ok());
    }

    #[test]
    fn game_end_from_the_peer_is_echoed() {
        let addr = server(2);
        let mut c = Client::connect(addr);
        c.send(&REQ_BLACK.replacen('Z', "W", 1));
        assert!(c.recv().ends_with('0'));
        c.send("E11");
        assert_eq!(c.recv(), "E31");
    }
}
