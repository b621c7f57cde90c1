//! No log line, at any level, holds an `auth` token: every session of a server
//! started with a token is run with a TRACE subscriber capturing all output,
//! right and wrong tokens are sent over TCP, and the capture is searched.

mod common;

use common::{test_server_config, Conn, Server, Tcp};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SECRET: &str = "s3cret-Token-4242";
const WRONG: &str = "wrong-Token-7777";

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn until(conn: &mut Tcp, prefix: &str) -> Vec<String> {
    let mut seen = Vec::new();
    while let Some(l) = conn.recv(Duration::from_secs(20)) {
        let done = l.starts_with(prefix);
        seen.push(l);
        if done {
            return seen;
        }
    }
    panic!("no line starting with {prefix:?} in {seen:?}");
}

#[test]
fn tokens_never_reach_the_logs_at_trace_level() {
    let capture = Capture::default();
    let writer = capture.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let mut config = test_server_config();
    config.token = Some(SECRET.parse().unwrap());
    let mut server = Server::start(config);

    let mut good = Tcp::connect_greeted(server.addr);
    good.send(&format!("auth {SECRET}"));
    assert_eq!(until(&mut good, "authok"), ["authok"]);
    // a second auth once in, and a game, are logged as any other command
    good.send(&format!("auth {WRONG}"));
    good.send("isready");
    until(&mut good, "readyok");
    good.send("go depth 2");
    until(&mut good, "bestmove");

    let mut bad = Tcp::connect_greeted(server.addr);
    bad.send(&format!("auth {WRONG}"));
    let refused = until(&mut bad, "error");
    assert!(refused.last().unwrap().contains("token"), "{refused:?}");

    good.send("quit");
    server.shutdown();
    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("auth (token hidden)"),
        "the auth commands are logged, hidden: {logs}"
    );
    assert!(logs.contains("command=isready"), "{logs}");
    for secret in [SECRET, WRONG] {
        assert!(!logs.contains(secret), "a token in the logs: {logs}");
    }
}
