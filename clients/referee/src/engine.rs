//! One engine connection speaking the kingme protocol: a TCP server
//! (`tcp:HOST:PORT`, with an `auth` token when the server wants one) or a program
//! spawned and spoken to over stdio (`cmd:"PROGRAM ARGS"`).
//!
//! A reader thread turns the engine's output into lines on a bounded channel, so
//! every wait has a deadline whatever the transport. A program's stderr is read
//! too, and its last lines are quoted when it disconnects (why it crashed).
//! Dropping an [`Engine`] closes the socket or kills the program.

pub use crate::spec::EngineSpec;
use kingme::engine::Score;
use kingme::protocol::{Refusal, Response, TOKEN_ENV};
use kingme::Variant;
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Longest engine line read (the engine's own line limit); a longer line is
/// skipped.
const MAX_LINE: usize = kingme::server::MAX_LINE;
use kingme::server::framing::read_bounded;
/// Lines buffered between the reader thread and the referee.
const CHANNEL_LINES: usize = 256;
/// Last lines of a program's stderr kept for a crash report.
const STDERR_LINES: usize = 6;
/// Longest stderr line kept, in characters.
const STDERR_LINE_CHARS: usize = 300;

/// What went wrong with an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The TCP connection could not be made.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The address.
        addr: String,
        /// The cause.
        source: io::Error,
    },
    /// The program could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The cause.
        source: io::Error,
    },
    /// The engine closed its output (crash, exit, disconnect).
    #[error("engine disconnected (end of output) while waiting for {what}{}", quote_stderr(.stderr))]
    Disconnected {
        /// What was awaited.
        what: &'static str,
        /// The program's last stderr lines (empty over TCP).
        stderr: Vec<String>,
    },
    /// No answer before the deadline.
    #[error("no {what} within {waited_ms} ms")]
    Timeout {
        /// What was awaited.
        what: &'static str,
        /// How long.
        waited_ms: u128,
    },
    /// Writing to the engine failed.
    #[error("cannot write to engine: {source}{}", quote_stderr(.stderr))]
    Write {
        /// The cause.
        source: io::Error,
        /// The program's last stderr lines (empty over TCP).
        stderr: Vec<String>,
    },
    /// The engine answered with an `error` line.
    #[error("engine error: {0}")]
    Rejected(String),
    /// The server refused the `auth` token (a wrong one).
    #[error("{addr} refused authentication: {reply}")]
    Auth {
        /// The address.
        addr: String,
        /// The server's answer.
        reply: String,
    },
}

fn quote_stderr(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    format!("; its stderr ended: {}", lines.join(" | "))
}

/// The end of a program's stderr, filled by a reader thread.
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
    /// The program closed its stderr.
    done: bool,
}

fn spawn_stderr_reader(input: impl Read + Send + 'static) -> Arc<Mutex<StderrTail>> {
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let keep = Arc::clone(&tail);
    let spawned = thread::Builder::new()
        .name("engine-stderr".into())
        .spawn(move || {
            read_lines(input, |line| {
                let line: String = line.chars().take(STDERR_LINE_CHARS).collect();
                if !line.trim().is_empty() {
                    let mut t = keep
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if t.lines.len() == STDERR_LINES {
                        t.lines.pop_front();
                    }
                    t.lines.push_back(line);
                }
                true
            });
            keep.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .done = true;
        });
    if spawned.is_err() {
        tail.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .done = true;
    }
    tail
}

/// The engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move text, as sent (`none` when the engine saw the game over).
    pub text: String,
    /// The score of the last `info` line before `bestmove` (the best line's,
    /// with MultiPV), from the mover's view; `None` when it sent none.
    pub score: Option<Score>,
    /// That `info` line's depth.
    pub depth: Option<u32>,
    /// The move came from the engine's opening book (an `info string book`
    /// line after the last `info`).
    pub book: bool,
}

/// The score and depth of an `info string book MOVE score SCORE depth N`
/// line (the protocol's book move), `None` for any other string.
fn book_line(text: &str) -> Option<(Option<Score>, Option<u32>)> {
    let rest = text.strip_prefix("book ")?;
    let (score, depth) = match rest.split_once(" score ") {
        Some((_, tail)) => match tail.rsplit_once(" depth ") {
            Some((s, d)) => (s.parse().ok(), d.trim().parse().ok()),
            None => (tail.parse().ok(), None),
        },
        None => (None, None),
    };
    Some((score, depth))
}

enum Transport {
    Tcp(TcpStream),
    Child(Child),
}

/// A live connection to one engine.
pub struct Engine {
    name: String,
    lines: Receiver<String>,
    writer: Box<dyn Write + Send>,
    transport: Transport,
    stderr: Option<Arc<Mutex<StderrTail>>>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine").field("name", &self.name).finish()
    }
}

/// A line read from an engine, without its line end (`\r` too): an engine
/// line over `MAX_LINE` bytes becomes an empty one (which the parsers skip),
/// never buffered.
fn line_text(line: Option<Vec<u8>>) -> String {
    let mut buf = line.unwrap_or_default();
    while matches!(buf.last(), Some(b'\r')) {
        buf.pop();
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Reads `input` to its end as bounded lines (the engine's own reader,
/// `kingme::server::framing`), handing each to `emit` until it returns false.
fn read_lines(input: impl Read, mut emit: impl FnMut(String) -> bool) {
    let _ = read_bounded(BufReader::new(input), b'\n', MAX_LINE, |l| {
        emit(line_text(l))
    });
}

fn spawn_reader(input: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::sync_channel(CHANNEL_LINES);
    thread::Builder::new()
        .name("engine-reader".into())
        .spawn(move || {
            read_lines(input, |line| tx.send(line).is_ok());
        })
        .expect("spawn reader thread");
    rx
}

impl Engine {
    /// Connects (or starts the program), sending `auth` when the spec has a token;
    /// no protocol handshake (see [`Engine::start`]).
    pub fn open(spec: &EngineSpec, connect_timeout: Duration) -> Result<Engine, EngineError> {
        match spec {
            EngineSpec::Tcp { addr, token } => {
                let err = |source| EngineError::Connect {
                    addr: addr.clone(),
                    source,
                };
                let sock = addr
                    .to_socket_addrs()
                    .map_err(err)?
                    .next()
                    .ok_or_else(|| err(io::Error::other("no address")))?;
                let stream = TcpStream::connect_timeout(&sock, connect_timeout).map_err(err)?;
                let _ = stream.set_nodelay(true);
                let reader = stream.try_clone().map_err(err)?;
                let writer = stream.try_clone().map_err(err)?;
                let mut e = Engine {
                    name: addr.clone(),
                    lines: spawn_reader(reader),
                    writer: Box::new(writer),
                    transport: Transport::Tcp(stream),
                    stderr: None,
                };
                if let Some(token) = token {
                    e.authenticate(addr, token.as_str(), connect_timeout)?;
                }
                Ok(e)
            }
            EngineSpec::Cmd { program, args } => {
                let mut command = Command::new(program);
                command
                    .args(args)
                    // the referee's own secret is none of the engine's business
                    .env_remove(TOKEN_ENV)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                // A process group of its own: Ctrl-C at the terminal stops the
                // referee (which lets the games under way finish), not its engines.
                #[cfg(unix)]
                std::os::unix::process::CommandExt::process_group(&mut command, 0);
                let mut child = command.spawn().map_err(|source| EngineError::Spawn {
                    program: program.clone(),
                    source,
                })?;
                let stdout = child.stdout.take().expect("piped stdout");
                let stdin = child.stdin.take().expect("piped stdin");
                let stderr = child.stderr.take().expect("piped stderr");
                Ok(Engine {
                    name: program.clone(),
                    lines: spawn_reader(stdout),
                    writer: Box::new(stdin),
                    transport: Transport::Child(child),
                    stderr: Some(spawn_stderr_reader(stderr)),
                })
            }
        }
    }

    /// Connects, sends `kingme` and reads the identity up to `kingmeok`, then sets
    /// each option and checks with `isready` that none was refused.
    pub fn start(
        spec: &EngineSpec,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<Engine, EngineError> {
        let mut e = Engine::open(spec, timeout)?;
        e.handshake(timeout)?;
        for (name, value) in options {
            e.send(&format!("setoption name {name} value {value}"))?;
        }
        e.sync(timeout)?;
        Ok(e)
    }

    /// The name the engine gave in `id name` (or its address before the handshake).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|source| EngineError::Write {
                source,
                stderr: self.last_stderr(),
            })
    }

    /// The next line, waiting until `deadline`.
    pub fn recv(&mut self, deadline: Instant, what: &'static str) -> Result<String, EngineError> {
        let start = Instant::now();
        let wait = deadline.saturating_duration_since(start);
        match self.lines.recv_timeout(wait) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                what,
                waited_ms: start.elapsed().as_millis(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(EngineError::Disconnected {
                what,
                stderr: self.last_stderr(),
            }),
        }
    }

    /// `kingme` ... `kingmeok`; keeps the `id name`.
    pub fn handshake(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("kingme")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.recv(deadline, "kingmeok")?;
            match line.parse::<Response>() {
                Ok(Response::HelloOk { uci: false }) => return Ok(()),
                Ok(Response::Id { key, value }) if key == "name" => self.name = value,
                Ok(Response::Error(_) | Response::Refused(_)) => {
                    return Err(EngineError::Rejected(line))
                }
                _ => {}
            }
        }
    }

    /// The program's last stderr lines, once it has closed stderr (waiting a
    /// little for that: its stdout may close first); empty over TCP.
    fn last_stderr(&self) -> Vec<String> {
        let Some(tail) = &self.stderr else {
            return Vec::new();
        };
        let deadline = Instant::now() + Duration::from_millis(300);
        loop {
            let t = tail
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if t.done || Instant::now() >= deadline {
                return t.lines.iter().cloned().collect();
            }
            drop(t);
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// `auth TOKEN` ... `authok` (`info` lines skipped). A refused token is an
    /// [`EngineError::Auth`]; any other error line (a full server...) is
    /// [`EngineError::Rejected`]. A server without tokens answers `authok` too.
    fn authenticate(
        &mut self,
        addr: &str,
        token: &str,
        timeout: Duration,
    ) -> Result<(), EngineError> {
        self.send(&format!("auth {token}"))?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.recv(deadline, "authok")?;
            match line.parse::<Response>() {
                Ok(Response::AuthOk) => return Ok(()),
                // the server's greeting
                Ok(Response::InfoString(_)) => {}
                Ok(Response::Refused(Refusal::BadToken)) => {
                    return Err(EngineError::Auth {
                        addr: addr.to_string(),
                        reply: line,
                    })
                }
                _ => return Err(EngineError::Rejected(line)),
            }
        }
    }

    /// `isready` ... `readyok`; an `error` line before it is returned as an error.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        let mut refused = None;
        loop {
            let line = self.recv(deadline, "readyok")?;
            match line.trim().parse::<Response>() {
                Ok(Response::ReadyOk) => {
                    return match refused {
                        Some(e) => Err(EngineError::Rejected(e)),
                        None => Ok(()),
                    };
                }
                Ok(Response::Error(_) | Response::Refused(_)) if refused.is_none() => {
                    refused = Some(line);
                }
                _ => {}
            }
        }
    }

    /// Sends `position` and `go`, and waits until `deadline` for `bestmove`,
    /// skipping `info` lines (moves read on the board of `variant`). An
    /// `error` line (a refused position or go) is an error. A `bestmove` whose
    /// move can't be read is returned as sent, for the referee to judge.
    pub fn search(
        &mut self,
        variant: Variant,
        position: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<BestMove, EngineError> {
        self.send(position)?;
        self.send(go)?;
        let mut best = BestMove {
            text: String::new(),
            score: None,
            depth: None,
            book: false,
        };
        loop {
            let line = self.recv(deadline, "bestmove")?;
            match Response::parse_in(variant, &line) {
                Ok(Response::BestMove { mv, .. }) => {
                    best.text = mv.map_or_else(|| "none".to_string(), |m| m.to_string());
                    return Ok(best);
                }
                Ok(Response::Error(_) | Response::Refused(_)) => {
                    return Err(EngineError::Rejected(line))
                }
                Ok(Response::Info(info)) if info.multipv.is_none_or(|k| k == 1) => {
                    best.depth = Some(info.depth);
                    best.score = Some(info.score);
                    best.book = false;
                }
                Ok(Response::InfoString(text)) => {
                    if let Some((score, depth)) = book_line(&text) {
                        best.score = score;
                        best.depth = depth;
                        best.book = true;
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    // a move we can't read still ends the search: the game judges it
                    let mut w = line.split_whitespace();
                    if w.next() == Some("bestmove") {
                        best.text = w.next().unwrap_or("none").to_string();
                        return Ok(best);
                    }
                }
            }
        }
    }

    /// Discards every line already received.
    pub fn drain(&mut self) {
        while self.lines.try_recv().is_ok() {}
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // not `send`: its error would wait for the program's stderr
        let _ = self
            .writer
            .write_all(b"quit\n")
            .and_then(|()| self.writer.flush());
        match &mut self.transport {
            Transport::Tcp(s) => {
                let _ = s.shutdown(Shutdown::Both);
            }
            Transport::Child(c) => {
                // Give the program a moment to exit on `quit`, then kill it.
                let until = Instant::now() + Duration::from_millis(200);
                loop {
                    match c.try_wait() {
                        Ok(Some(_)) => break,
                        Ok(None) if Instant::now() < until => {
                            thread::sleep(Duration::from_millis(10));
                        }
                        _ => {
                            let _ = c.kill();
                            let _ = c.wait();
                            break;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_lines_give_their_score_and_depth() {
        assert_eq!(
            book_line("book 11-15 score cp 22 depth 26"),
            Some((Some(Score::Eval(22)), Some(26)))
        );
        assert_eq!(
            book_line("book 9-13 score win 7 depth 3"),
            Some((Some(Score::Win(7)), Some(3)))
        );
        assert_eq!(book_line("book 11-15"), Some((None, None)));
        assert_eq!(book_line("searching"), None);
    }

    #[test]
    fn a_long_line_is_skipped_and_the_next_one_read() {
        let data = format!("{}\nok\r\nlast", "x".repeat(MAX_LINE + 10));
        let mut lines = Vec::new();
        read_lines(data.as_bytes(), |l| {
            lines.push(l);
            true
        });
        assert_eq!(lines, ["", "ok", "last"]);
    }
}
