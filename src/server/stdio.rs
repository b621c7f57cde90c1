//! The stdio transport: one session on stdin/stdout (the default `kingme` mode).
//! Stdin is read on a plain thread feeding a bounded channel.

use super::codec::Line;
use crate::protocol::{Flow, Response, Session, SessionConfig};
use std::io::{BufRead, Write};
use tokio::sync::mpsc;

/// Reads `input` as lines of at most `max` bytes (LF-terminated, the last one
/// possibly not) until EOF or a read error, handing each to `emit`: `Some(bytes)`
/// for a line, `None` for one that was too long (its bytes are skipped, never
/// buffered). Stops early when `emit` returns false.
pub fn read_bounded_lines(
    mut input: impl BufRead,
    max: usize,
    mut emit: impl FnMut(Option<Vec<u8>>) -> bool,
) {
    let mut line = Vec::new();
    let mut discarding = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(error = %e, "input");
                break;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() && !discarding {
                emit(Some(std::mem::take(&mut line)));
            }
            break;
        }
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !discarding {
            if line.len() + chunk.len() > max {
                discarding = true;
                line = Vec::new();
                if !emit(None) {
                    return;
                }
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline);
        input.consume(used);
        if newline {
            if !discarding && !emit(Some(std::mem::take(&mut line))) {
                return;
            }
            discarding = false;
        }
    }
}

/// Reads `input` as lines of at most `max` bytes into `tx` until EOF.
fn read_lines(input: impl BufRead, tx: &mpsc::Sender<Line>, max: usize) {
    read_bounded_lines(input, max, |l| {
        tx.blocking_send(l.map_or(Line::TooLong, Line::Text))
            .is_ok()
    });
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
