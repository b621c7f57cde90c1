//! Unit tests of the DXP follower.

use super::connection::{Connection, Input, Match};
use super::*;
use crate::board::{Color, Game, Move, Position, Variant};
use crate::engine::fault::{self, Fault};
use crate::engine::Phase;
use crate::engine::{Engine, EngineOption, Level, SearchId, SearchSlot};
use crate::frontend::{Local, Policy};
use crate::server::driver::Driven;
use crate::server::ServerLimits;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc as tokio_mpsc;

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

/// A server on a runtime of its own thread, serving until the test ends.
fn server(max_games: usize) -> SocketAddr {
    server_with(DxpConfig {
        limits: games(max_games),
        ..Default::default()
    })
}

/// The default limits with `n` games at once.
fn games(n: usize) -> ServerLimits {
    ServerLimits {
        max_connections: n,
        ..ServerLimits::default()
    }
}

/// A server as [`server`] with `config`'s limits.
fn server_with(config: DxpConfig) -> SocketAddr {
    server_as(DxpConfig {
        options: vec![EngineOption::Level(Level::Easy), EngineOption::Hash(1)],
        movetime: Some(Duration::from_millis(20)),
        message_gap: Duration::from_millis(1),
        ..config
    })
}

/// A server with exactly `config`.
fn server_as(config: DxpConfig) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            serve(l, config, std::future::pending()).await;
        });
    });
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
fn plays_its_first_move_from_the_shipped_book() {
    // a search would take 30 s, longer than the client waits (20 s): the
    // move comes from the book (OwnBook is on by default), with no search
    let addr = server_as(DxpConfig {
        options: vec![EngineOption::Hash(1)],
        movetime: Some(Duration::from_secs(30)),
        message_gap: Duration::from_millis(1),
        limits: games(1),
        ..Default::default()
    });
    let mut c = Client::connect(addr);
    c.send(REQ_BLACK);
    assert!(c.recv().starts_with('A'));
    let m = c.recv();
    let DxpMessage::Move(dm) = DxpMessage::parse(m.as_bytes()).unwrap() else {
        panic!("{m}")
    };
    let start = Position::startpos(Variant::English);
    let played = find_move(&start, &dm).unwrap();
    let book = crate::book::Book::shipped().unwrap();
    let best = book.probe(&start).expect("the start is in the book")[0].mv;
    assert_eq!(played, best);
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
    // a second connection over the limit is refused, and closed
    let mut b = Client::connect(addr);
    b.send(REQ_BLACK);
    assert!(b.recv().ends_with('3'));
    assert_eq!(
        b.s.read(&mut [0u8; 8]).unwrap(),
        0,
        "closed after the refusal"
    );
    // an illegal move abandons the game
    a.send("M0000010500");
    assert!(a.recv().starts_with('C'));
    assert_eq!(a.recv(), "E00");
}

/// A connection in a game where we play Black from the start, whose next
/// search fails as `fault` says, and where its searches answer.
fn faulty_connection(fault: Fault) -> (Connection, tokio_mpsc::Receiver<(SearchId, Option<Move>)>) {
    let conn = playing_connection(Box::new(Local));
    fault::inject(fault);
    conn
}

/// A connection in a game where we play Black from the start, allowed what
/// `policy` allows, and where its searches answer.
fn playing_connection(
    policy: Box<dyn Policy>,
) -> (Connection, tokio_mpsc::Receiver<(SearchId, Option<Move>)>) {
    let (answers, answered) = tokio_mpsc::channel(8);
    let mut engine = Engine::new();
    engine.set(EngineOption::Level(Level::Easy)).unwrap();
    let conn = Connection {
        config: Arc::new(DxpConfig::default()),
        engine,
        peer: "127.0.0.1:9".parse().unwrap(),
        game: Some(Match {
            game: Game::new(Variant::English),
            ours: Color::Black,
            clock: None,
            moves_made: 0,
            turn_start: Instant::now(),
            ended: false,
        }),
        search: SearchSlot::new(),
        answers,
        out: Vec::new(),
        closing: false,
        accepted: true,
        policy,
    };
    (conn, answered)
}

fn recv_timeout<T>(rx: &mut tokio_mpsc::Receiver<T>, wait: Duration) -> Option<T> {
    let deadline = Instant::now() + wait;
    loop {
        if let Ok(x) = rx.try_recv() {
            return Some(x);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn failed_search_still_moves(fault: Fault) {
    let (mut conn, mut answered) = faulty_connection(fault);
    let first = conn.search.next_id();
    conn.next_turn();
    let (id, mv) = recv_timeout(&mut answered, Duration::from_secs(20)).unwrap();
    assert_eq!(id, first);
    assert!(mv.is_some());
    conn.handle(Input::Search { id, mv });
    assert!(!conn.search.is_busy());
    let [DxpMessage::Move(dm)] = conn.out.as_slice() else {
        panic!("{:?}", conn.out)
    };
    assert!(find_move(&Position::startpos(Variant::English), dm).is_ok());
    assert!(
        recv_timeout(&mut answered, Duration::from_millis(50)).is_none(),
        "a second move from one search"
    );
}

#[test]
fn a_search_that_panics_still_moves() {
    failed_search_still_moves(Fault::PanicInSearch);
}

#[test]
fn a_search_without_a_thread_still_moves() {
    failed_search_still_moves(Fault::NoThread);
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

#[test]
fn the_connection_cap_answers_the_extra_client_and_the_server_stays_up() {
    let addr = server(1);
    let mut a = Client::connect(addr);
    a.send(&REQ_BLACK.replacen('Z', "W", 1));
    assert!(a.recv().ends_with('0'));
    for _ in 0..3 {
        let mut extra = Client::connect(addr);
        extra.send(REQ_BLACK);
        assert!(extra.recv().ends_with('3'), "too many games");
    }
    // the first game goes on
    a.send("M0000111500");
    assert!(a.recv().starts_with('M'));
    drop(a);
    // its place frees once it has closed: a new client gets a game
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut c = Client::connect(addr);
        c.send(&REQ_BLACK.replacen('Z', "W", 1));
        let answer = c.recv();
        if answer.ends_with('0') {
            break;
        }
        assert!(answer.ends_with('3'), "{answer}");
        assert!(Instant::now() < deadline, "the place never freed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads until the server closes the connection; fails after `within`.
fn closed_within(c: &mut Client, within: Duration) {
    c.s.set_read_timeout(Some(within)).unwrap();
    let n = c.s.read(&mut [0u8; 64]).expect("closed, not timed out");
    assert_eq!(n, 0, "closed");
}

#[test]
fn a_malformed_or_wrong_version_request_is_refused_and_closed() {
    let addr = server(2);
    let mut a = Client::connect(addr);
    a.send("R01short");
    assert_eq!(a.recv(), format!("A{:<32}2", "kingme"));
    closed_within(&mut a, Duration::from_secs(5));
    let mut b = Client::connect(addr);
    b.send(&REQ_BLACK.replacen("R01", "R99", 1));
    assert_eq!(b.recv(), format!("A{:<32}1", "kingme"));
    closed_within(&mut b, Duration::from_secs(5));
    // the server still plays
    accepted_soon(addr);
}

/// A game request is accepted within a second (a closed connection's slot
/// frees just after the client sees the close).
fn accepted_soon(addr: SocketAddr) {
    let t = Instant::now();
    loop {
        let mut c = Client::connect(addr);
        c.send(REQ_BLACK);
        let reply = c.recv();
        if reply == format!("A{:<32}0", "kingme") {
            return;
        }
        assert_eq!(reply, format!("A{:<32}3", "kingme"));
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the slot never freed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_silent_connection_is_closed_at_the_handshake_deadline() {
    let addr = server_with(DxpConfig {
        limits: games(1),
        handshake_timeout: Duration::from_millis(300),
        ..Default::default()
    });
    let t = Instant::now();
    let mut silent = Client::connect(addr);
    closed_within(&mut silent, Duration::from_secs(5));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // its game slot is free again
    accepted_soon(addr);
}

mod caps;
