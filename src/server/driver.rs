//! The loop that drives a [`Session`] for every transport (stdio, TCP, the
//! web bridge's WebSocket): lines in, engine events and responses out, a
//! queued search waiting for its permit, the idle timeout, shutdown, and the
//! close after `quit` or the end of input. A transport only reads and writes.

use super::codec::Line;
use crate::protocol::{Flow, Response, Session, SessionConfig};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::{AcquireError, OwnedSemaphorePermit};
use tokio::time::{timeout, Instant};

/// One read from a transport.
#[derive(Debug)]
pub enum Inbound {
    /// Input lines, in order (one WebSocket message may hold several).
    Lines(Vec<Line>),
    /// Input the transport refuses, answered by an `error` line with this text.
    Refused(String),
    /// Nothing for the session (a WebSocket ping, say).
    Nothing,
    /// The end of input: the session closes once its search has answered
    /// (see [`AtEnd`]).
    Ended,
    /// The peer is gone: close now, writing nothing more.
    Gone,
    /// The transport failed: [`Transport::fail`] says so if it still can,
    /// then the session closes.
    Failed(String),
}

/// What a transport does: read input, write responses.
pub trait Transport {
    /// The next input (cancel-safe: a read dropped unfinished loses nothing).
    fn read(&mut self) -> impl Future<Output = Inbound>;

    /// Writes `responses`, in order.
    fn write(&mut self, responses: Vec<Response>) -> impl Future<Output = std::io::Result<()>>;

    /// Says goodbye when the session closes normally (a WebSocket close frame).
    fn close(&mut self) -> impl Future<Output = ()> {
        async {}
    }

    /// Reports a failed read to the peer, if it can still be told.
    fn fail(&mut self, why: String) -> impl Future<Output = ()> {
        let _ = why;
        async {}
    }
}

/// What the end of input does to a running search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AtEnd {
    /// A limited search finishes and its `bestmove` is written; a held one
    /// (`infinite`, `ponder`) is stopped (stdio: a script piped in).
    Finish,
    /// Every search is stopped; its `bestmove` is written if the peer still
    /// reads (TCP: a client that half-closed).
    Stop,
}

/// How a transport's session is driven.
#[derive(Clone, Debug)]
pub struct DriveConfig {
    /// What the session allows.
    pub session: SessionConfig,
    /// Start with the greeting (network clients).
    pub greet: bool,
    /// Longest line, as the transport's reader enforces it (for the error line).
    pub max_line: usize,
    /// Close after this long with no input and no search.
    pub idle_timeout: Option<Duration>,
    /// With a token, close a client that has not authenticated this long
    /// after connecting.
    pub auth_timeout: Option<Duration>,
    /// Close when a write takes longer.
    pub write_timeout: Option<Duration>,
    /// What the end of input does.
    pub at_end: AtEnd,
    /// After `quit`, the end of input or the idle timeout, how long a search
    /// gets to answer (`None`: as long as it takes).
    pub close_grace: Option<Duration>,
}

/// Hands `lines` to the session in order, up to a `quit`.
fn handle_lines(
    session: &mut Session,
    lines: &[Line],
    max_line: usize,
    out: &mut Vec<Response>,
) -> Flow {
    for line in lines {
        let flow = match line {
            Line::Text(bytes) => session.handle_line(bytes, out),
            Line::TooLong => {
                session.handle_overlong(max_line, out);
                Flow::Continue
            }
        };
        if flow == Flow::Quit {
            return Flow::Quit;
        }
    }
    Flow::Continue
}

type PermitWait = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

/// After shutdown, how long a stopped search gets to answer.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Serves one session on `transport` until `quit`, the end of input, the idle
/// timeout, a failed write, or `shutdown` completes (then it says so, stops
/// the search and closes after its `bestmove`). Dropping the session, which
/// stops and joins its search thread, happens on a blocking thread and is
/// awaited: no search outlives its session.
pub async fn drive<T: Transport>(
    mut transport: T,
    config: DriveConfig,
    shutdown: impl Future<Output = ()>,
) {
    let (mut session, mut events) = Session::new(config.session.clone());
    let mut out = Vec::new();
    if config.greet {
        out.push(session.greeting());
    }
    let mut permit_wait: Option<PermitWait> = None;
    let mut closing = false;
    // far ahead until something starts the close
    let never = Instant::now() + Duration::from_secs(86400 * 365);
    let mut close_deadline = never;
    let mut last_input = Instant::now();
    let auth_at = config.auth_timeout.map_or(never, |t| Instant::now() + t);
    let grace = |d: Duration| Instant::now() + d;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut shutting_down = false;
    loop {
        if !out.is_empty() {
            let write = transport.write(std::mem::take(&mut out));
            let written = match config.write_timeout {
                Some(t) => timeout(t, write).await.unwrap_or_else(|_| {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "write timed out",
                    ))
                }),
                None => write.await,
            };
            if let Err(e) = written {
                tracing::debug!(error = %e, "write failed; closing");
                break;
            }
        }
        if closing && !session.is_searching() {
            transport.close().await;
            break;
        }
        match (session.queued_on(), permit_wait.is_some()) {
            (Some(sem), false) => permit_wait = Some(Box::pin(sem.acquire_owned())),
            (None, true) => permit_wait = None,
            _ => {}
        }
        let idle_at = config.idle_timeout.map_or(never, |t| last_input + t);
        let search_at = session.search_deadline().map_or(never, Instant::from_std);
        let close = |closing: &mut bool, deadline: &mut Instant| {
            *closing = true;
            *deadline = config.close_grace.map_or(never, grace);
        };
        tokio::select! {
            inbound = transport.read(), if !closing => {
                last_input = Instant::now();
                match inbound {
                    Inbound::Lines(lines) => {
                        // a line may read a file or allocate a table: never on
                        // the async workers
                        let max_line = config.max_line;
                        let handled = tokio::task::spawn_blocking(move || {
                            let flow = handle_lines(&mut session, &lines, max_line, &mut out);
                            (session, out, flow)
                        })
                        .await;
                        let Ok((s, o, flow)) = handled else {
                            tracing::error!("a session panicked handling a line; closing");
                            return;
                        };
                        session = s;
                        out = o;
                        if flow == Flow::Quit {
                            close(&mut closing, &mut close_deadline);
                        }
                    }
                    Inbound::Refused(why) => out.push(Response::Error(why)),
                    Inbound::Nothing => {}
                    Inbound::Ended => {
                        match config.at_end {
                            AtEnd::Finish => session.input_closed(&mut out),
                            AtEnd::Stop => session.stop(&mut out),
                        }
                        close(&mut closing, &mut close_deadline);
                    }
                    Inbound::Gone => break,
                    Inbound::Failed(why) => {
                        tracing::debug!(error = %why, "read failed");
                        transport.fail(why).await;
                        break;
                    }
                }
            }
            Some(ev) = events.recv() => {
                session.handle_event(ev, &mut out);
                if !session.is_searching() {
                    // the engine has answered: the client's turn to think starts now
                    last_input = Instant::now();
                }
            }
            permit = async { permit_wait.as_mut().expect("guarded").await }, if permit_wait.is_some() => {
                permit_wait = None;
                match permit {
                    Ok(p) => session.slot_granted(p, &mut out),
                    Err(_) => session.stop(&mut out),
                }
            }
            () = tokio::time::sleep_until(auth_at), if !closing && !session.is_authed() => {
                out.push(Response::Error("not authenticated in time; closing".into()));
                close(&mut closing, &mut close_deadline);
            }
            () = tokio::time::sleep_until(search_at), if session.search_deadline().is_some() => {
                session.search_overtime(&mut out);
            }
            () = tokio::time::sleep_until(idle_at), if !closing && !session.is_searching() => {
                let idle = config.idle_timeout.unwrap_or_default();
                out.push(Response::Error(format!("idle for {idle:?}; closing")));
                close(&mut closing, &mut close_deadline);
            }
            () = &mut shutdown, if !shutting_down => {
                shutting_down = true;
                out.push(Response::InfoString("server shutting down".into()));
                session.stop(&mut out);
                closing = true;
                close_deadline = grace(SHUTDOWN_GRACE);
            }
            () = tokio::time::sleep_until(close_deadline), if closing => {
                tracing::warn!("search did not end in time after stop");
                break;
            }
        }
    }
    drop(transport);
    let _ = tokio::task::spawn_blocking(move || drop(session)).await;
}
