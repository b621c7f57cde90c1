//! Safe by default: `kingme --listen` and `kingme dxp` on an address other
//! machines can reach refuse to start without authentication (a token, or
//! for DXP nothing) unless `--no-auth` says to serve anyone; with a token or
//! `--no-auth` they start. Every server binds port 0 and is reached on
//! 127.0.0.1 only; every child is killed when its test ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a child gets to exit or to say where it listens.
const WAIT: Duration = Duration::from_secs(20);

/// A child process killed and waited for when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `kingme ARGS` with no token in its environment, stderr piped.
fn spawn(args: &[&str]) -> Killed {
    Killed(
        Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .env_remove("KINGME_TOKEN")
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kingme"),
    )
}

/// Waits for `child` to exit on its own; its status and stderr.
fn exit_of(mut child: Killed) -> (std::process::ExitStatus, String) {
    let mut err = child.0.stderr.take().unwrap();
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "still running: it started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut text = String::new();
    err.read_to_string(&mut text).unwrap();
    (status, text)
}

/// The stderr lines of `child` up to `prefix` ADDR, and the port of ADDR
/// on 127.0.0.1.
fn listening(child: &mut Killed, prefix: &str) -> (Vec<String>, SocketAddr) {
    let mut err = BufReader::new(child.0.stderr.take().unwrap());
    let mut before = Vec::new();
    loop {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "no address printed: {before:?}"
        );
        if let Some(a) = line.trim().strip_prefix(prefix) {
            let bound: SocketAddr = a.parse().unwrap();
            std::thread::spawn(move || {
                let _ = err.read_to_end(&mut Vec::new());
            });
            return (before, SocketAddr::from(([127, 0, 0, 1], bound.port())));
        }
        before.push(line.trim().to_string());
    }
}

/// The first line a kingme server sends on a new connection.
fn greeting(addr: SocketAddr) -> String {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    line.trim().to_string()
}

#[test]
fn an_open_listen_beyond_loopback_is_refused_with_how_to_allow_it() {
    let (status, err) = exit_of(spawn(&["--listen", "0.0.0.0:0"]));
    assert!(!status.success(), "{status}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    let line = lines[0];
    assert!(line.contains("refusing to listen on 0.0.0.0"), "{line}");
    assert!(line.contains("--token"), "{line}");
    assert!(line.contains("--no-auth"), "{line}");
}

#[test]
fn with_a_token_it_listens_beyond_loopback_and_asks_for_it() {
    let mut child = spawn(&["--listen", "0.0.0.0:0", "--token", "s3cret"]);
    let (before, addr) = listening(&mut child, "kingme listening on ");
    assert!(before.is_empty(), "no warning with a token: {before:?}");
    let g = greeting(addr);
    assert!(g.ends_with("send auth <token> first"), "{g}");
}

#[test]
fn with_no_auth_it_listens_beyond_loopback_and_warns() {
    let mut child = spawn(&["--listen", "0.0.0.0:0", "--no-auth"]);
    let (before, addr) = listening(&mut child, "kingme listening on ");
    assert!(
        before.iter().any(|l| l.starts_with("WARNING:")),
        "{before:?}"
    );
    let g = greeting(addr);
    assert!(g.starts_with("info string kingme"), "{g}");
    assert!(!g.contains("auth"), "{g}");
}

#[test]
fn on_loopback_it_listens_without_a_token() {
    let mut child = spawn(&["--listen", "127.0.0.1:0"]);
    let (before, addr) = listening(&mut child, "kingme listening on ");
    assert!(before.is_empty(), "{before:?}");
    assert!(greeting(addr).starts_with("info string kingme"));
}

#[test]
fn dxp_beyond_loopback_needs_no_auth() {
    let (status, err) = exit_of(spawn(&["dxp", "--listen", "0.0.0.0:0"]));
    assert!(!status.success(), "{status}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("refusing to listen on 0.0.0.0"), "{err}");
    assert!(err.contains("--no-auth"), "{err}");

    let mut child = spawn(&["dxp", "--listen", "0.0.0.0:0", "--no-auth"]);
    let (_, addr) = listening(&mut child, "kingme dxp listening on ");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    s.write_all(b"R01DXP Client                      Z000000BZzzzzzzzzzzzzeeeeeeeewwwwwwwwwwww\0")
        .unwrap();
    // GAMEACC: `A`, our name in 32 characters, the code, then NUL
    let mut reply = [0u8; 35];
    s.read_exact(&mut reply).unwrap();
    assert_eq!(&reply[..1], b"A", "the game request is answered");
    assert_eq!(&reply[33..], b"0\0", "and accepted");
}
