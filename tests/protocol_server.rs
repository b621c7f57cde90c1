//! The TCP server: many sessions at once, limits, auth, queueing, stop latency,
//! a telnet-style client, disconnects and shutdown leaving no search thread.

mod common;

use common::{expect_line, server_with, until, Conn, Server, Tcp, LINE_TIMEOUT};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[test]
fn two_hundred_sessions_each_get_one_bestmove_per_go() {
    let server = Server::start(common::test_server_config());
    let addr = server.addr;
    let t = Instant::now();
    let clients: Vec<_> = (0..200)
        .map(|i| {
            std::thread::spawn(move || {
                let mut c = Tcp::connect_greeted(addr);
                if i % 2 == 1 {
                    c.send("newgame mini");
                    // Heuristic play: the exact table takes 20 s to build.
                    c.send("setoption name MiniTable value false");
                }
                let mut bestmoves = 0;
                for go in ["go depth 3", "go movetime 20", "go nodes 500"] {
                    c.send(go);
                    let (before, _) = until(&mut c, "bestmove ");
                    bestmoves += 1;
                    for l in &before {
                        assert!(
                            l.starts_with("info "),
                            "session {i}: unexpected line {l} after {go}"
                        );
                    }
                }
                // Nothing owed or pending: the next line answers isready.
                c.send("isready");
                let (before, _) = until(&mut c, "readyok");
                assert!(before.is_empty(), "session {i}: extra lines {before:?}");
                bestmoves
            })
        })
        .collect();
    let total: usize = clients.into_iter().map(|h| h.join().expect("client")).sum();
    assert_eq!(total, 600);
    eprintln!(
        "200 sessions x 3 searches over TCP: {:.2} s",
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn stop_latency_over_tcp() {
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    let mut lat: Vec<Duration> = (0..40)
        .map(|_| common::stop_latency(&mut c, "go infinite", "info depth", Duration::ZERO))
        .collect();
    lat.sort();
    let p50 = lat[lat.len() / 2];
    let p99 = lat[lat.len() * 99 / 100];
    eprintln!(
        "stop -> bestmove over TCP: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        lat[lat.len() - 1].as_secs_f64() * 1e3
    );
    // A loaded 2-core machine (the 200-session test beside it) slows a
    // stop; one that never came would fail by far.
    assert!(p50 < Duration::from_millis(100), "p50 {p50:?}");
}

#[test]
fn search_slots_queue_fairly_and_stop_answers_a_queued_go() {
    let server = server_with(|c| c.limits.max_searches = 1);
    let mut a = Tcp::connect_greeted(server.addr);
    let mut b = Tcp::connect_greeted(server.addr);
    a.send("go infinite");
    until(&mut a, "info depth");
    b.send("go depth 2");
    let (_, q) = until(&mut b, "info string queued");
    assert!(q.contains("queued"), "{q}");
    a.send("stop");
    until(&mut a, "bestmove ");
    until(&mut b, "info string search slot granted");
    let (before, _) = until(&mut b, "bestmove ");
    assert!(
        before.iter().all(|l| l.starts_with("info depth")),
        "{before:?}"
    );
    // A queued search stopped before it starts still gets its one bestmove.
    a.send("go infinite");
    until(&mut a, "info depth");
    b.send("go depth 2");
    until(&mut b, "info string queued");
    b.send("stop");
    let (_, bm) = until(&mut b, "bestmove ");
    assert_ne!(bm, "bestmove none");
    a.send("stop");
    until(&mut a, "bestmove ");
    for c in [&mut a, &mut b] {
        c.send("isready");
        let (before, _) = until(c, "readyok");
        assert!(before.is_empty(), "{before:?}");
    }
}

#[test]
fn connection_limit_refuses_with_an_error_line() {
    let server = server_with(|c| c.limits.max_connections = 2);
    let (_a, _b, mut c) = common::two_and_a_third(&server);
    expect_line(&mut c, "error server full (2 connections); try again later");
    assert_eq!(c.recv(LINE_TIMEOUT), None, "closed after the error");
}

#[test]
fn idle_connections_are_closed() {
    // Long enough that a client slowed by a loaded machine between the
    // greeting and `isready` is not closed first.
    let server = server_with(|c| c.idle_timeout = Duration::from_secs(2));
    let mut c = Tcp::connect_greeted(server.addr);
    c.send("isready");
    expect_line(&mut c, "readyok");
    expect_line(&mut c, "error idle for 2s; closing");
    assert_eq!(c.recv(LINE_TIMEOUT), None);
}

#[test]
fn a_token_must_come_first() {
    let server = server_with(|c| c.token = Some("s3cret".parse().unwrap()));
    let mut c = Tcp::connect_greeted(server.addr);
    c.send("isready");
    expect_line(&mut c, "error not authenticated: send auth <token> first");
    c.send("auth s3cret");
    expect_line(&mut c, "authok");
    c.send("isready");
    expect_line(&mut c, "readyok");
    let mut d = Tcp::connect_greeted(server.addr);
    d.send("auth guess");
    expect_line(&mut d, "error bad token; closing");
    assert_eq!(d.recv(LINE_TIMEOUT), None);
}

/// A telnet-ish client: IAC negotiation bytes, CRLF line ends; plays a mini game
/// with `play` while the engine replies, until the game ends.
#[test]
fn telnet_client_plays_a_mini_game() {
    let server = Server::start(common::test_server_config());
    let mut s = TcpStream::connect(server.addr).expect("connect");
    s.set_read_timeout(Some(LINE_TIMEOUT)).ok();
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    let mut raw = Vec::new();
    let mut line = |r: &mut BufReader<TcpStream>| -> String {
        raw.clear();
        r.read_until(b'\n', &mut raw).expect("read");
        String::from_utf8(raw.clone()).expect("utf-8")
    };
    let greeting = line(&mut r);
    assert!(greeting.contains("help"), "{greeting}");
    // IAC DO ECHO, IAC WILL SUPPRESS-GO-AHEAD, IAC SB NAWS ... IAC SE, then text.
    s.write_all(b"\xff\xfd\x01\xff\xfb\x03\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0setoption name Variant value mini\r\n")
        .expect("write");
    s.write_all(b"setoption name MiniTable value false\r\nsetoption name Level value easy\r\n")
        .expect("write");
    s.write_all(b"setoption name Reply value on\r\nisready\r\n")
        .expect("write");
    assert_eq!(
        line(&mut r),
        "readyok\r\n",
        "CRLF answers to a telnet client"
    );
    let mut plies = 0;
    let mut over = None;
    while over.is_none() && plies < 80 {
        s.write_all(b"moves\r\n").expect("write");
        let moves = line(&mut r);
        let first = moves
            .trim_end()
            .split(' ')
            .nth(1)
            .expect("a move")
            .to_string();
        assert_ne!(first, "none", "the game should be over already");
        s.write_all(format!("play {first}\r\n").as_bytes())
            .expect("write");
        assert_eq!(line(&mut r), format!("played {first}\r\n"));
        plies += 1;
        loop {
            let l = line(&mut r);
            assert!(l.ends_with("\r\n"), "{l:?}");
            if l.starts_with("gameover ") {
                over = Some(l);
                break;
            }
            if l.starts_with("bestmove ") {
                plies += 1;
                // The engine's move may end the game.
                s.write_all(b"isready\r\n").expect("write");
                let n = line(&mut r);
                if n.starts_with("gameover ") {
                    over = Some(n);
                    line(&mut r);
                }
                break;
            }
            assert!(l.starts_with("info "), "{l:?}");
        }
    }
    let over = over.expect("a mini game ends within 80 plies");
    assert!(over.starts_with("gameover "), "{over}");
    s.write_all(b"board\r\n").expect("write");
    let mut saw_result = false;
    for _ in 0..14 {
        if line(&mut r).starts_with("gameover ") {
            saw_result = true;
            break;
        }
    }
    assert!(saw_result, "the board shows the result");
    s.write_all(b"quit\r\n").expect("write");
    let mut rest = Vec::new();
    let _ = r.read_to_end(&mut rest);
}

/// The names of the threads of process `pid` (Linux).
fn thread_names(pid: u32) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
        .map(|s| s.trim().to_string())
        .collect()
}

/// A `kingme --listen 127.0.0.1:0` process and its address (the caller waits on it).
#[allow(clippy::zombie_processes)]
fn spawn_server(extra: &[&str]) -> (std::process::Child, std::net::SocketAddr) {
    let mut child = common::kingme_listen("127.0.0.1:0")
        .args(extra)
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("spawn");
    let addr = common::listen::listening_address(&mut child);
    (child, addr)
}

fn wait_until(what: &str, f: impl FnMut() -> bool) {
    common::wait_until(what, Duration::from_secs(10), f);
}

#[test]
#[cfg(target_os = "linux")]
fn disconnect_mid_search_leaves_no_search_thread() {
    let (mut child, addr) = spawn_server(&[]);
    let pid = child.id();
    let searching = || {
        thread_names(pid)
            .iter()
            .filter(|n| n.starts_with("kingme-search"))
            .count()
    };
    for _ in 0..3 {
        let mut c = Tcp::connect_greeted(addr);
        c.send("go infinite");
        until(&mut c, "info depth");
        assert!(searching() >= 1, "a search thread runs");
        drop(c);
        wait_until("search thread ends after disconnect", || searching() == 0);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
#[cfg(unix)]
fn sigterm_stops_searches_and_exits_cleanly() {
    let (mut child, addr) = spawn_server(&[]);
    let mut c = Tcp::connect_greeted(addr);
    c.send("go infinite");
    until(&mut c, "info depth");
    let t = Instant::now();
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success());
    let (before, _) = until(&mut c, "bestmove ");
    assert!(
        before
            .iter()
            .any(|l| l == "info string server shutting down"),
        "{before:?}"
    );
    assert_eq!(c.recv(LINE_TIMEOUT), None, "closed after shutdown");
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status}");
    eprintln!(
        "SIGTERM -> bestmove -> exit: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
}

#[test]
fn stdio_eof_finishes_a_limited_search() {
    let mut c = common::StdioChild::spawn(&[]);
    c.send("go depth 4");
    c.close_stdin();
    let (before, _) = until(&mut c, "bestmove ");
    assert!(before.iter().all(|l| l.starts_with("info ")), "{before:?}");
    let status = c.child.wait().expect("wait");
    assert!(status.success());
}

#[test]
fn a_non_loopback_bind_without_token_warns_loudly() {
    let mut child = common::kingme_listen("0.0.0.0:0")
        .arg("--no-auth")
        .env("RUST_LOG", "off")
        .spawn()
        .expect("spawn");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut first = String::new();
    let n = err.read_line(&mut first).unwrap_or(0);
    let _ = child.kill();
    let _ = child.wait();
    assert!(n > 0 && first.starts_with("WARNING:"), "{first:?}");
    assert!(first.contains("--token"), "{first}");
}

#[test]
fn quit_mid_search_sends_the_bestmove_then_closes() {
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    c.send("go infinite");
    until(&mut c, "info depth");
    c.send("quit");
    until(&mut c, "bestmove ");
    assert_eq!(c.recv(LINE_TIMEOUT), None, "closed after quit");
    let mut s = common::StdioChild::spawn(&[]);
    s.send("go infinite");
    until(&mut s, "info depth");
    s.send("quit");
    until(&mut s, "bestmove ");
    assert!(s.child.wait().expect("wait").success());
}
