//! The stdio transport: one session on stdin/stdout (the default `kingme` mode).
//! Stdin is read on a plain thread feeding a bounded channel.

use super::codec::Line;
use super::framing::read_bounded;
use crate::protocol::{Flow, Response, Session, SessionConfig};
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

/// Writes responses, one per line, and flushes.
fn write_all(out: &mut impl Write, responses: &mut Vec<Response>) -> std::io::Result<()> {
    for r in responses.drain(..) {
        writeln!(out, "{r}")?;
    }
    out.flush()
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
    mut lines: mpsc::Receiver<Line>,
    mut out: impl Write,
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (mut session, mut events) = Session::new(config);
        let mut replies = Vec::new();
        let mut closing = false;
        loop {
            if closing && !session.is_searching() {
                break;
            }
            tokio::select! {
                line = lines.recv(), if !closing => match line {
                    Some(Line::Text(b)) => {
                        if session.handle_line(&b, &mut replies) == Flow::Quit {
                            closing = true;
                        }
                    }
                    Some(Line::TooLong) => session.handle_overlong(max_line, &mut replies),
                    None => {
                        session.input_closed(&mut replies);
                        closing = true;
                    }
                },
                Some(ev) = events.recv() => session.handle_event(ev, &mut replies),
            }
            if let Err(e) = write_all(&mut out, &mut replies) {
                tracing::debug!(error = %e, "stdout closed");
                break;
            }
        }
        tracing::debug!("stdio session closed");
        Ok(())
    })
}
