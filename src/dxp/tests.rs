//! Unit tests of the DXP follower.

use super::connection::{Connection, Input, Match};
use super::*;
use crate::board::{Color, Game, Position, Variant};
use crate::engine::{Engine, Fault};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// A connection to `client`'s peer, in a game where we play Black from the
/// start, whose next search fails as `fault` says.
fn faulty_connection(fault: Fault) -> (Connection, Client, Receiver<Input>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let client = Client::connect(l.local_addr().unwrap());
    let (stream, peer) = l.accept().unwrap();
    let (tx, rx) = sync_channel(8);
    let mut engine = Engine::new();
    engine.set_option("Level", "easy").unwrap();
    engine.inject_fault(fault);
    let conn = Connection {
        config: Arc::new(DxpConfig::default()),
        engine,
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
        next_id: 7,
        tx,
    };
    (conn, client, rx)
}

fn failed_search_still_moves(fault: Fault) {
    let (mut conn, mut client, rx) = faulty_connection(fault);
    conn.next_turn().unwrap();
    let input = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(
        matches!(input, Input::Search { id: 7, mv: Some(_) }),
        "{input:?}"
    );
    assert!(conn.handle(input).unwrap());
    assert!(conn.search.is_none());
    let m = client.recv();
    let DxpMessage::Move(dm) = DxpMessage::parse(m.as_bytes()).unwrap() else {
        panic!("{m}")
    };
    assert!(find_move(&Position::startpos(Variant::English), &dm).is_ok());
    std::thread::sleep(Duration::from_millis(50));
    assert!(rx.try_recv().is_err(), "a second move from one search");
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
