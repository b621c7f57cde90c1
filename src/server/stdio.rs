//! The stdio transport: one session on stdin/stdout (the default `kingme` mode).
//! Stdin is read on a plain thread feeding a bounded channel.

use super::codec::Line;
use super::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use super::framing::read_bounded;
use crate::protocol::{Response, SessionConfig};
use std::io::{BufRead, Write};
use tokio::sync::mpsc;

/// Reads `input` as lines of at most `max` bytes into `tx` until EOF.
fn read_lines(input: impl BufRead, tx: &mpsc::Sender<Line>, max: usize) {
    let read = read_bounded(input, b'\n', max, |l| {
        tx.blocking_send(l.map_or(Line::TooLong, Line::Text))
            .is_ok()
    });
    if let Err(e) = read {
        tracing::warn!(error = %e, "input");
    }
}

/// Serves one session on stdin and stdout until `quit` or EOF. On EOF a running
/// limited search finishes and its `bestmove` is written first.
pub fn run(config: SessionConfig, max_line: usize) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::Builder::new()
        .name("kingme-stdin".into())
        .spawn(move || read_lines(std::io::stdin().lock(), &tx, max_line))?;
    let stdout = std::io::stdout();
    serve(config, max_line, rx, stdout.lock())
}

/// Drives a session from `lines` to `out` (the body of [`run`], usable with
/// any line source and writer).
pub fn serve(
    config: SessionConfig,
    max_line: usize,
    lines: mpsc::Receiver<Line>,
    out: impl Write,
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let config = DriveConfig {
        session: config,
        greet: false,
        max_line,
        idle_timeout: None,
        auth_timeout: None,
        write_timeout: None,
        at_end: AtEnd::Finish,
        close_grace: None,
    };
    rt.block_on(drive(Stdio { lines, out }, config, std::future::pending()));
    tracing::debug!("stdio session closed");
    Ok(())
}

/// Lines from a channel (fed by the stdin thread), responses to a writer.
struct Stdio<W> {
    lines: mpsc::Receiver<Line>,
    out: W,
}

impl<W: Write> Transport for Stdio<W> {
    async fn read(&mut self) -> Inbound {
        match self.lines.recv().await {
            Some(line) => Inbound::Lines(vec![line]),
            None => Inbound::Ended,
        }
    }

    /// Writes the responses, one per line, and flushes.
    async fn write(&mut self, responses: Vec<Response>) -> std::io::Result<()> {
        for r in responses {
            writeln!(self.out, "{r}")?;
        }
        self.out.flush()
    }
}
