//! Shared test plumbing for the protocol tests: connections to a session in
//! process, to a spawned `kingme` on stdio, and over TCP; transcript replay.
#![allow(dead_code)]

pub mod cli;
pub mod listen;

use kingme::protocol::{Events, Session, SessionConfig};
use kingme::server::{self, ServerConfig};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long to wait for one expected line.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// A client's view of a session: send lines, receive lines.
pub trait Conn {
    /// Sends one line (the connection adds the line ending).
    fn send(&mut self, line: &str);
    /// Sends raw bytes.
    fn send_raw(&mut self, bytes: &[u8]);
    /// The next line, or `None` after `timeout` or at the end.
    fn recv(&mut self, timeout: Duration) -> Option<String>;
}

/// A session driven directly, no transport.
pub struct InProcess {
    session: Session,
    events: Events,
    lines: VecDeque<String>,
}

impl InProcess {
    pub fn new(config: SessionConfig) -> InProcess {
        let (session, events) = Session::new(config);
        InProcess {
            session,
            events,
            lines: VecDeque::new(),
        }
    }
    fn push(&mut self, out: Vec<kingme::protocol::Response>) {
        for r in out {
            for l in r.to_string().split('\n') {
                self.lines.push_back(l.to_string());
            }
        }
    }
}

impl Conn for InProcess {
    fn send(&mut self, line: &str) {
        self.send_raw(line.as_bytes());
    }
    fn send_raw(&mut self, bytes: &[u8]) {
        let mut out = Vec::new();
        for line in bytes.split(|&b| b == b'\n') {
            self.session.handle_line(line, &mut out);
        }
        self.push(out);
    }
    fn recv(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(l) = self.lines.pop_front() {
                return Some(l);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let ev = self.events.recv_timeout(left)?;
            let mut out = Vec::new();
            self.session.handle_event(ev, &mut out);
            self.push(out);
        }
    }
}

/// Reads lines from `r` on a thread into a channel.
fn line_reader(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(r);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let s = String::from_utf8_lossy(&buf);
                    let s = s.trim_end_matches('\n').trim_end_matches('\r');
                    if tx.send(s.to_string()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// A spawned `kingme` process on stdin/stdout.
pub struct StdioChild {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl StdioChild {
    pub fn spawn(args: &[&str]) -> StdioChild {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn kingme");
        let stdin = child.stdin.take();
        let lines = line_reader(child.stdout.take().expect("stdout"));
        StdioChild {
            child,
            stdin,
            lines,
        }
    }
    /// Closes stdin (EOF for the engine).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Conn for StdioChild {
    fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }
    fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(s) = &mut self.stdin {
            let _ = s.write_all(bytes);
            let _ = s.flush();
        }
    }
    fn recv(&mut self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }
}

/// A TCP client.
pub struct Tcp {
    pub stream: TcpStream,
    lines: mpsc::Receiver<String>,
}

impl Tcp {
    pub fn connect(addr: SocketAddr) -> Tcp {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).ok();
        let lines = line_reader(stream.try_clone().expect("clone"));
        Tcp { stream, lines }
    }
    /// Connects and reads the greeting.
    pub fn connect_greeted(addr: SocketAddr) -> Tcp {
        let mut t = Tcp::connect(addr);
        let g = t.recv(LINE_TIMEOUT).expect("greeting");
        assert!(g.starts_with("info string kingme"), "greeting: {g}");
        t
    }
}

impl Conn for Tcp {
    fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }
    fn send_raw(&mut self, bytes: &[u8]) {
        let _ = self.stream.write_all(bytes);
    }
    fn recv(&mut self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }
}

/// An in-process TCP server on 127.0.0.1:0, shut down when dropped.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start(config: ServerConfig) -> Server {
        let (addr_tx, addr_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                addr_tx.send(l.local_addr().expect("addr")).expect("send");
                server::serve(l, config, async {
                    let _ = stop_rx.await;
                })
                .await
                .expect("serve");
            });
        });
        let addr = addr_rx.recv().expect("server address");
        Server {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
    /// Signals shutdown and waits for the server to finish.
    pub fn shutdown(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A small server config for tests: small hash, few search slots.
pub fn test_server_config() -> ServerConfig {
    let mut c = ServerConfig::default();
    c.session.default_hash_mib = Some(1);
    c.session.max_hash_mib = 16;
    c.limits.max_connections = 256;
    c.limits.max_per_address = 256;
    c
}

/// An in-process server with [`test_server_config`] as `change` leaves it.
pub fn server_with(change: impl FnOnce(&mut ServerConfig)) -> Server {
    let mut config = test_server_config();
    change(&mut config);
    Server::start(config)
}

/// Reads lines until one starts with `prefix`; returns the lines before it and it.
pub fn until(c: &mut dyn Conn, prefix: &str) -> (Vec<String>, String) {
    let mut before = Vec::new();
    loop {
        let l = c
            .recv(LINE_TIMEOUT)
            .unwrap_or_else(|| panic!("no '{prefix}' line; got {before:?}"));
        if l.starts_with(prefix) {
            return (before, l);
        }
        before.push(l);
    }
}

/// Sends `go`, waits for a line starting with `started` and then for `wait`,
/// and times `stop` to the `bestmove`.
pub fn stop_latency(c: &mut dyn Conn, go: &str, started: &str, wait: Duration) -> Duration {
    c.send(go);
    until(c, started);
    std::thread::sleep(wait);
    let t = Instant::now();
    c.send("stop");
    until(c, "bestmove");
    t.elapsed()
}

/// `kingme --listen ADDR` with no stdin or stdout and its stderr piped (for
/// [`listen::listening_address`]).
pub fn kingme_listen(addr: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kingme"));
    cmd.args(["--listen", addr])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Two greeted connections to `server`, then a third one (not greeted).
pub fn two_and_a_third(server: &Server) -> (Tcp, Tcp, Tcp) {
    let a = Tcp::connect_greeted(server.addr);
    let b = Tcp::connect_greeted(server.addr);
    (a, b, Tcp::connect(server.addr))
}

/// Asserts that the next line is `want`.
#[track_caller]
pub fn expect_line(c: &mut dyn Conn, want: &str) {
    assert_eq!(c.recv(LINE_TIMEOUT).as_deref(), Some(want));
}

/// Polls `done` every 20 ms until it holds; fails, naming `what`, after `within`.
#[track_caller]
pub fn wait_until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < within, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The move of the `BestMove` among a search's events.
pub fn best_move(events: &[kingme::engine::Event]) -> kingme::Move {
    events
        .iter()
        .find_map(|e| match e {
            kingme::engine::Event::BestMove { mv, .. } => *mv,
            _ => None,
        })
        .expect("a move")
}

/// `*` matches any run of characters; everything else literally.
pub fn glob(pat: &str, s: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    if parts.len() == 1 {
        return pat == s;
    }
    let Some(mut rest) = s.strip_prefix(parts[0]) else {
        return false;
    };
    for (i, p) in parts.iter().enumerate().skip(1) {
        if i == parts.len() - 1 {
            return rest.len() >= p.len() && rest.ends_with(p);
        }
        match rest.find(p) {
            Some(k) => rest = &rest[k + p.len()..],
            None => return false,
        }
    }
    true
}

/// One line of a transcript.
#[derive(Clone, Debug)]
pub enum Step {
    /// `> line`: send it.
    Send(String),
    /// `< pattern`: exactly one line matching.
    Expect(String),
    /// `<* pattern`: any number of lines matching (not matching the next `<`).
    Many(String),
}

/// Reads a transcript: `> `, `< `, `<* ` lines; `#` comments and blanks skipped.
pub fn parse_transcript(text: &str) -> Vec<Step> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            if let Some(r) = l.strip_prefix("<* ") {
                Step::Many(r.to_string())
            } else if let Some(r) = l.strip_prefix("< ") {
                Step::Expect(r.to_string())
            } else if let Some(r) = l.strip_prefix("> ") {
                Step::Send(r.to_string())
            } else if l == ">" {
                Step::Send(String::new())
            } else {
                panic!("bad transcript line: {l}")
            }
        })
        .collect()
}

/// Replays a transcript, then checks nothing else was said (isready -> readyok).
pub fn replay(conn: &mut dyn Conn, name: &str, text: &str) {
    let steps = parse_transcript(text);
    let mut peeked: Option<String> = None;
    let mut log: Vec<String> = Vec::new();
    let next = |conn: &mut dyn Conn, peeked: &mut Option<String>, log: &mut Vec<String>| {
        if let Some(l) = peeked.take() {
            return Some(l);
        }
        let l = conn.recv(LINE_TIMEOUT);
        if let Some(l) = &l {
            log.push(format!("< {l}"));
        }
        l
    };
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Send(l) => {
                log.push(format!("> {l}"));
                assert!(
                    peeked.is_none(),
                    "{name}: unexpected line before sending '{l}': {peeked:?}"
                );
                conn.send(l);
            }
            Step::Expect(p) => {
                let got = next(conn, &mut peeked, &mut log);
                match got {
                    Some(g) if glob(p, &g) => {}
                    other => panic!(
                        "{name}: step {i}: expected '{p}', got {other:?}\n--- log ---\n{}",
                        log.join("\n")
                    ),
                }
            }
            Step::Many(p) => {
                // Stop at a line the following '<*' or '<' patterns want.
                let mut later = Vec::new();
                for s in &steps[i + 1..] {
                    match s {
                        Step::Many(q) => later.push(q.clone()),
                        Step::Expect(q) => {
                            later.push(q.clone());
                            break;
                        }
                        Step::Send(_) => {
                            panic!("{name}: a '<*' line must be followed by a '<' line")
                        }
                    }
                }
                assert!(
                    matches!(
                        steps[i + 1..].iter().find(|s| !matches!(s, Step::Many(_))),
                        Some(Step::Expect(_))
                    ),
                    "{name}: a '<*' line must be followed by a '<' line"
                );
                while let Some(l) = next(conn, &mut peeked, &mut log) {
                    let ends = later.iter().any(|q| glob(q, &l));
                    if !glob(p, &l) || ends {
                        peeked = Some(l);
                        break;
                    }
                }
            }
        }
    }
    if let Some(l) = peeked {
        panic!(
            "{name}: unexpected line at the end: {l}\n{}",
            log.join("\n")
        );
    }
    conn.send("isready");
    let l = next(conn, &mut None, &mut log);
    assert_eq!(
        l.as_deref(),
        Some("readyok"),
        "{name}: extra output at the end\n{}",
        log.join("\n")
    );
}

/// Every transcript in protocol/transcripts, by name.
pub fn transcripts() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/transcripts");
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("transcripts dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).expect("read transcript"),
            )
        })
        .collect();
    v.sort();
    assert!(v.len() >= 5, "transcripts missing");
    v
}

/// The 3-piece English databases, built once per test process into a
/// directory named after `tag`.
pub fn three_piece_databases(tag: &str) -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("kingme-{tag}-egdb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        kingme::egdb::build(&kingme::egdb::BuildOptions {
            threads: 2,
            ..kingme::egdb::BuildOptions::new(d.clone(), 3)
        })
        .expect("build the 3-piece databases");
        d
    })
}

/// A fresh scratch directory for one test, made, by its canonical path.
pub fn scratch(tag: &str) -> std::path::PathBuf {
    let d = cli::temp_dir(tag);
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap()
}

/// Sends `line` then `isready`; returns the lines before `readyok`.
pub fn answer(c: &mut dyn Conn, line: &str) -> Vec<String> {
    c.send(line);
    c.send("isready");
    let mut got = Vec::new();
    loop {
        match c.recv(LINE_TIMEOUT) {
            Some(l) if l == "readyok" => return got,
            Some(l) => got.push(l),
            None => panic!("no readyok after {line:?}; got {got:?}"),
        }
    }
}

/// Resident memory of this process in KiB (0 where `/proc` does not say).
pub fn rss_kib() -> u64 {
    kingme::proc_info::kb("/proc/self/status", "VmRSS").unwrap_or(0)
}

/// Threads of this process with this name (search, perft, database preload).
pub fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == name)
                })
                .count()
        })
        .unwrap_or(0)
}
