//! Malformed lines: each gets exactly one `error ...` line and the session
//! keeps working (in process and over TCP, where line limits and bytes that are
//! not UTF-8 meet the codec).

mod common;

use common::{Conn, InProcess, Server, Tcp, LINE_TIMEOUT};
use kingme::protocol::SessionConfig;

/// Lines that must each be answered by one error line, with no other effect.
fn bad_lines() -> Vec<Vec<u8>> {
    let text = [
        "foo",
        "GOO depth 3",
        "go depth",
        "go depth -1",
        "go depth 128",
        "go depth 3 extra",
        "go nodes 0",
        "go nodes 18446744073709551616",
        "go movetime",
        "go movetime abc",
        "go movetime 99999999999999999999999",
        "go wtime x",
        "go wtime 99999999999999999999",
        "go movestogo 0",
        "go trace",
        "go trace 1000000000",
        "go infinite infinite",
        "go depth 1 nodes",
        "position",
        "position startpos moves 11-15 11-15",
        "position startpos moves 99-100",
        "position startpos moves 11",
        "position startpos moves abc",
        "position fen",
        "position fen B:W33:B1",
        "position fen B:W1:B1",
        "position fen Q:W21:B1",
        "position fen B:W20,21,22,23,24,25,26,27,28,29,30,31,32:B1",
        "position fen B:W5-1:B9",
        "position fen B:W21:B29",
        "position banana",
        "position startpos moves 11-15 22-18 15x22 25x18 bogus",
        "setoption",
        "setoption name",
        "setoption name Hash value",
        "setoption name Hash value -5",
        "setoption name Hash value 99999999999999999999",
        "setoption name Threads value 0",
        "setoption name Nope value 1",
        "setoption name Ponder value maybe",
        "setoption name Variant value chess",
        "setoption value 5",
        "setoption name Reply",
        "newgame chess",
        "newgame english mini",
        "play",
        "play 11-15 22-18",
        "play 11-16-20",
        "play 33-37",
        "play pass",
        "play 9x18",
        "perft",
        "perft -1",
        "perft 99",
        "perft 4294967296",
        "undo",
        "isready now",
        "quit now",
        "stop now",
        "kingme please",
        "uci 2",
        "eval 3",
        "board big",
        "moves all",
        "help me",
        "auth",
        "\u{202e}go",
        "ponderhit now",
        "go ponder ponder",
        "position fen B:W21:B1 moves 1-5 1-5",
    ];
    let mut v: Vec<Vec<u8>> = text.iter().map(|s| s.as_bytes().to_vec()).collect();
    v.push(b"\xfe\xfd go".to_vec());
    v.push(b"\xc3\x28 board".to_vec());
    v.push(b"go\0depth 3".to_vec());
    v.push(b"\x01".to_vec());
    v.push(b"\x1b[A".to_vec());
    v.push(b"isready\xc3".to_vec());
    v.push(vec![b'a'; 1 << 20]);
    let mut long_go = b"go depth ".to_vec();
    long_go.extend(std::iter::repeat_n(b'9', 1 << 20));
    v.push(long_go);
    v
}

/// Commands that are fine when idle but refused while a search runs.
const MID_SEARCH: [&str; 11] = [
    "board",
    "play 11-15",
    "position startpos",
    "go depth 1",
    "setoption name Hash value 2",
    "newgame",
    "undo",
    "perft 1",
    "eval",
    "moves",
    "kingme",
];

/// Sends `line`, then `isready`; returns the lines before `readyok`.
fn answer(c: &mut dyn Conn, line: &[u8]) -> Vec<String> {
    let mut bytes = line.to_vec();
    bytes.extend_from_slice(b"\nisready\n");
    c.send_raw(&bytes);
    let mut got = Vec::new();
    loop {
        match c.recv(LINE_TIMEOUT) {
            Some(l) if l == "readyok" => return got,
            Some(l) => got.push(l),
            None => panic!(
                "no readyok after {:?}",
                String::from_utf8_lossy(&line[..line.len().min(60)])
            ),
        }
    }
}

fn check_table(c: &mut dyn Conn) {
    let lines = bad_lines();
    assert!(lines.len() >= 50, "the table has {} lines", lines.len());
    for line in &lines {
        let got = answer(c, line);
        let shown = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
        assert_eq!(got.len(), 1, "{shown:?} answered by {got:?}");
        assert!(
            got[0].starts_with("error "),
            "{shown:?} answered by {got:?}"
        );
    }
    // Still working, and still in the start position.
    // (the time is the machine's: any whole number of milliseconds)
    let perft = answer(c, b"perft 2");
    assert_eq!(perft.len(), 1, "{perft:?}");
    let time = perft[0].strip_prefix("perft depth 2 nodes 49 time ");
    assert!(time.is_some_and(|t| t.parse::<u64>().is_ok()), "{perft:?}");
    // Mid-search: everything but stop, ponderhit, isready and quit is refused.
    c.send("go infinite");
    for line in MID_SEARCH {
        let got: Vec<String> = answer(c, line.as_bytes())
            .into_iter()
            .filter(|l| !l.starts_with("info "))
            .collect();
        assert_eq!(got.len(), 1, "{line:?} mid-search answered by {got:?}");
        assert!(
            got[0].starts_with("error busy"),
            "{line:?} mid-search: {got:?}"
        );
    }
    c.send("stop");
    loop {
        let l = c.recv(LINE_TIMEOUT).expect("bestmove after stop");
        if l.starts_with("bestmove ") {
            break;
        }
        assert!(l.starts_with("info "), "unexpected {l}");
    }
    assert_eq!(
        answer(c, b"moves"),
        ["moves 9-13 9-14 10-14 10-15 11-15 11-16 12-16"]
    );
}

#[test]
fn malformed_lines_in_process() {
    let mut c = InProcess::new(SessionConfig {
        max_trace_nodes: 10_000,
        ..SessionConfig::default()
    });
    check_table(&mut c);
}

#[test]
fn malformed_lines_over_tcp() {
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    check_table(&mut c);
}

#[test]
fn malformed_lines_over_stdio() {
    let mut c = common::StdioChild::spawn(&[]);
    check_table(&mut c);
}
