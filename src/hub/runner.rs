//! Running a Hub session on stdin and stdout, with the server's stdio driver.

use super::HubSession;
use crate::server::stdio::{serve_session, spawn_reader};
use crate::server::MAX_LINE;
use std::io::{BufRead, Write};

/// Runs a session on the lines of `input` (read on a thread of its own; lines
/// over [`MAX_LINE`] are answered by an error), writing to `out`, until
/// `quit` or the end of input (after which a running limited search still
/// finishes and writes its `done`).
pub fn serve(input: impl BufRead + Send + 'static, out: impl Write) -> std::io::Result<()> {
    let lines = spawn_reader(move || input, MAX_LINE)?;
    let (session, events) = HubSession::new();
    serve_session(session, events.into_inner(), lines, out)
}

/// `kingme hub`: a Hub session on stdin and stdout. Panic messages are
/// silenced: stderr must stay empty, as pydraughts reads it as protocol.
pub fn run() -> std::io::Result<()> {
    std::panic::set_hook(Box::new(|_| {}));
    let lines = spawn_reader(|| std::io::stdin().lock(), MAX_LINE)?;
    let (session, events) = HubSession::new();
    serve_session(
        session,
        events.into_inner(),
        lines,
        std::io::stdout().lock(),
    )
}
