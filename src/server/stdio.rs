//! The stdio transport: one session on stdin/stdout (the default `kingme`
//! mode, and `kingme hub`). Stdin is read on a plain thread feeding a bounded
//! channel.

use super::codec::Line;
use super::driver::{drive, AtEnd, DriveConfig, Driven, Inbound, Transport};
use super::framing::read_bounded;
use crate::frontend::Policy;
use crate::protocol::{Session, SessionConfig};
use std::fmt::Display;
use std::io::{BufRead, Write};
use std::marker::PhantomData;
use tokio::sync::mpsc;

/// Reads `input` as lines of at most `max` bytes into `tx` until EOF.
pub fn read_lines(input: impl BufRead, tx: &mpsc::Sender<Line>, max: usize) {
    let read = read_bounded(input, b'\n', max, |l| {
        tx.blocking_send(l.map_or(Line::TooLong { max }, Line::Text))
            .is_ok()
    });
    if let Err(e) = read {
        tracing::warn!(error = %e, "input");
    }
}

/// Reads the input that `open` gives (stdin, say) on a thread of its own, as
/// lines of at most `max` bytes.
pub fn spawn_reader<R: BufRead>(
    open: impl FnOnce() -> R + Send + 'static,
    max: usize,
) -> std::io::Result<mpsc::Receiver<Line>> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::Builder::new()
        .name("kingme-stdin".into())
        .spawn(move || read_lines(open(), &tx, max))?;
    Ok(rx)
}

/// Serves one kingme session on stdin and stdout until `quit` or EOF, as
/// `policy` allows (a local user's [`crate::frontend::Local`], or a policy
/// with only a token). On EOF a running limited search finishes and its
/// `bestmove` is written first.
pub fn run(config: SessionConfig, policy: Box<dyn Policy>, max_line: usize) -> std::io::Result<()> {
    let lines = spawn_reader(|| std::io::stdin().lock(), max_line)?;
    serve(config, policy, lines, std::io::stdout().lock())
}

/// Drives a kingme session from `lines` to `out` (the body of [`run`], usable
/// with any line source and writer).
pub fn serve(
    config: SessionConfig,
    policy: Box<dyn Policy>,
    lines: mpsc::Receiver<Line>,
    out: impl Write,
) -> std::io::Result<()> {
    let (session, events) = Session::with_policy(config, policy);
    serve_session(session, events.into_inner(), lines, out)
}

/// Drives `session` (whose searches report on `events`) from `lines` to
/// `out`, one output per line, on a runtime of its own: no greeting, no
/// timeouts, and at the end of input a limited search still answers.
pub fn serve_session<S, W>(
    session: S,
    events: mpsc::Receiver<S::Event>,
    lines: mpsc::Receiver<Line>,
    out: W,
) -> std::io::Result<()>
where
    S: Driven<Input = Line>,
    S::Output: Display,
    W: Write,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let config = DriveConfig {
        greet: false,
        idle_timeout: None,
        auth_timeout: None,
        write_timeout: None,
        at_end: AtEnd::Finish,
        close_grace: None,
    };
    let transport = Stdio {
        lines,
        out,
        output: PhantomData,
    };
    rt.block_on(drive(
        transport,
        session,
        events,
        config,
        std::future::pending(),
    ));
    tracing::debug!("stdio session closed");
    Ok(())
}

/// Lines from a channel (fed by the stdin thread), outputs to a writer.
struct Stdio<W, O> {
    lines: mpsc::Receiver<Line>,
    out: W,
    output: PhantomData<fn(O)>,
}

impl<W: Write, O: Display> Transport for Stdio<W, O> {
    type In = Line;
    type Out = O;

    async fn read(&mut self) -> Inbound<Line> {
        match self.lines.recv().await {
            Some(line) => Inbound::Lines(vec![line]),
            None => Inbound::Ended,
        }
    }

    /// Writes the outputs, one per line, and flushes.
    async fn write(&mut self, outputs: Vec<O>) -> std::io::Result<()> {
        for o in outputs {
            writeln!(self.out, "{o}")?;
        }
        self.out.flush()
    }
}
