//! The loop that drives a session for every transport (kingme over stdio,
//! TCP and the web bridge's WebSocket; Hub over stdio; DXP over TCP): input
//! in, search events and output out, a queued search waiting for its permit,
//! the idle and authentication timeouts, shutdown, and the close after
//! `quit` or the end of input. A transport only reads and writes; a session
//! ([`Driven`]) only turns input and events into output.

use super::codec::Line;
use crate::frontend::Flow;
use crate::protocol::{Response, Session};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, AcquireError, OwnedSemaphorePermit, Semaphore};
use tokio::time::{timeout, Instant};

/// One read from a transport.
#[derive(Debug)]
pub enum Inbound<I> {
    /// Inputs, in order (one WebSocket message may hold several lines).
    Lines(Vec<I>),
    /// Input the transport refuses, answered by [`Notice::Refused`].
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

/// What a transport does: read input, write output.
pub trait Transport {
    /// One input (a line; a DXP message).
    type In;
    /// One output.
    type Out;

    /// The next input (cancel-safe: a read dropped unfinished loses nothing).
    fn read(&mut self) -> impl Future<Output = Inbound<Self::In>>;

    /// Writes `out`, in order.
    fn write(&mut self, out: Vec<Self::Out>) -> impl Future<Output = std::io::Result<()>>;

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

/// What the driver itself tells a client, in the session's own words (or
/// not at all, where its protocol has no words for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The transport refused an input for this reason.
    Refused(String),
    /// The client did not authenticate in time; the session closes.
    NotAuthenticated,
    /// The client sent nothing for this long; the session closes.
    Idle(Duration),
    /// The server is shutting down; the search is stopped and the session closes.
    ShuttingDown,
}

/// A front end's session as the driver sees it: a state machine that turns
/// inputs and its searches' events into outputs, and says when it searches.
/// Its methods run on a blocking thread or between awaits, never while a
/// read is pending.
pub trait Driven: Send + 'static {
    /// One input.
    type Input: Send + 'static;
    /// One output.
    type Output: Send + 'static;
    /// What its searches report.
    type Event: Send + 'static;

    /// The first output a network client sees, if any.
    fn greeting(&self) -> Option<Self::Output> {
        None
    }

    /// Handles one input; [`Flow::Quit`] closes the session once its search
    /// has answered.
    fn handle(&mut self, input: Self::Input, out: &mut Vec<Self::Output>) -> Flow;

    /// Handles one event of its search.
    fn handle_event(&mut self, event: Self::Event, out: &mut Vec<Self::Output>);

    /// How the session says `notice`, if its protocol can.
    fn notice(&self, notice: Notice) -> Option<Self::Output>;

    /// Whether an answer is owed (a search runs or is queued).
    fn is_searching(&self) -> bool;

    /// Whether the client has authenticated (or needs not); until then the
    /// authentication timeout applies.
    fn is_authed(&self) -> bool {
        true
    }

    /// The semaphore its queued search waits on.
    fn queued_on(&self) -> Option<Arc<Semaphore>> {
        None
    }

    /// The queued search got its permit: start it.
    fn slot_granted(&mut self, permit: OwnedSemaphorePermit, out: &mut Vec<Self::Output>) {
        let _ = (permit, out);
    }

    /// When the running search has run as long as the session allows.
    fn search_deadline(&self) -> Option<std::time::Instant> {
        None
    }

    /// The running search reached [`Driven::search_deadline`]: stop it.
    fn search_overtime(&mut self, out: &mut Vec<Self::Output>) {
        let _ = out;
    }

    /// The input has ended ([`AtEnd::Finish`]): a held search is stopped,
    /// a limited one runs to its end.
    fn input_closed(&mut self, out: &mut Vec<Self::Output>);

    /// Stops the search, if any (its answer follows as an event, or at once).
    fn stop(&mut self, out: &mut Vec<Self::Output>);
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
    /// Start with the greeting (network clients).
    pub greet: bool,
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

/// Hands `inputs` to the session in order, up to a `quit`.
fn handle_inputs<S: Driven>(
    session: &mut S,
    inputs: Vec<S::Input>,
    out: &mut Vec<S::Output>,
) -> Flow {
    for input in inputs {
        if session.handle(input, out) == Flow::Quit {
            return Flow::Quit;
        }
    }
    Flow::Continue
}

type PermitWait = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

/// After shutdown, how long a stopped search gets to answer.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Serves `session` (whose searches report on `events`) on `transport` until
/// `quit`, the end of input, the idle timeout, a failed write, or `shutdown`
/// completes (then it says so, stops the search and closes after its answer).
/// The search's events are handled before input that arrived with them.
/// Dropping the session, which stops and joins its search thread, happens on
/// a blocking thread and is awaited: no search outlives its session.
pub async fn drive<S, T>(
    mut transport: T,
    mut session: S,
    mut events: mpsc::Receiver<S::Event>,
    config: DriveConfig,
    shutdown: impl Future<Output = ()>,
) where
    S: Driven,
    T: Transport<In = S::Input, Out = S::Output>,
{
    let mut out = Vec::new();
    if config.greet {
        out.extend(session.greeting());
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
            biased;
            Some(ev) = events.recv() => {
                session.handle_event(ev, &mut out);
                if !session.is_searching() {
                    // the engine has answered: the client's turn to think starts now
                    last_input = Instant::now();
                }
            }
            inbound = transport.read(), if !closing => {
                last_input = Instant::now();
                match inbound {
                    Inbound::Lines(inputs) => {
                        // an input may read a file or allocate a table: never
                        // on the async workers
                        let handled = tokio::task::spawn_blocking(move || {
                            let flow = handle_inputs(&mut session, inputs, &mut out);
                            (session, out, flow)
                        })
                        .await;
                        let Ok((s, o, flow)) = handled else {
                            tracing::error!("a session panicked handling its input; closing");
                            return;
                        };
                        session = s;
                        out = o;
                        if flow == Flow::Quit {
                            close(&mut closing, &mut close_deadline);
                        }
                    }
                    Inbound::Refused(why) => out.extend(session.notice(Notice::Refused(why))),
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
            permit = async { permit_wait.as_mut().expect("guarded").await }, if permit_wait.is_some() => {
                permit_wait = None;
                match permit {
                    Ok(p) => session.slot_granted(p, &mut out),
                    Err(_) => session.stop(&mut out),
                }
            }
            () = tokio::time::sleep_until(auth_at), if !closing && !session.is_authed() => {
                out.extend(session.notice(Notice::NotAuthenticated));
                close(&mut closing, &mut close_deadline);
            }
            () = tokio::time::sleep_until(search_at), if session.search_deadline().is_some() => {
                session.search_overtime(&mut out);
            }
            () = tokio::time::sleep_until(idle_at), if !closing && !session.is_searching() => {
                let idle = config.idle_timeout.unwrap_or_default();
                out.extend(session.notice(Notice::Idle(idle)));
                close(&mut closing, &mut close_deadline);
            }
            () = &mut shutdown, if !shutting_down => {
                shutting_down = true;
                out.extend(session.notice(Notice::ShuttingDown));
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

/// The kingme protocol's session, driven over stdio, TCP and the web bridge.
impl Driven for Session {
    type Input = Line;
    type Output = Response;
    type Event = crate::engine::Event;

    fn greeting(&self) -> Option<Response> {
        Some(Session::greeting(self))
    }

    fn handle(&mut self, input: Line, out: &mut Vec<Response>) -> Flow {
        match input {
            Line::Text(bytes) => self.handle_line(&bytes, out),
            Line::TooLong { max } => {
                self.handle_overlong(max, out);
                Flow::Continue
            }
        }
    }

    fn handle_event(&mut self, event: Self::Event, out: &mut Vec<Response>) {
        Session::handle_event(self, event, out);
    }

    fn notice(&self, notice: Notice) -> Option<Response> {
        Some(match notice {
            Notice::Refused(why) => Response::Error(why),
            Notice::NotAuthenticated => {
                Response::Error("not authenticated in time; closing".into())
            }
            Notice::Idle(idle) => Response::Error(format!("idle for {idle:?}; closing")),
            Notice::ShuttingDown => Response::InfoString("server shutting down".into()),
        })
    }

    fn is_searching(&self) -> bool {
        Session::is_searching(self)
    }

    fn is_authed(&self) -> bool {
        Session::is_authed(self)
    }

    fn queued_on(&self) -> Option<Arc<Semaphore>> {
        Session::queued_on(self)
    }

    fn slot_granted(&mut self, permit: OwnedSemaphorePermit, out: &mut Vec<Response>) {
        Session::slot_granted(self, permit, out);
    }

    fn search_deadline(&self) -> Option<std::time::Instant> {
        Session::search_deadline(self)
    }

    fn search_overtime(&mut self, out: &mut Vec<Response>) {
        Session::search_overtime(self, out);
    }

    fn input_closed(&mut self, out: &mut Vec<Response>) {
        Session::input_closed(self, out);
    }

    fn stop(&mut self, out: &mut Vec<Response>) {
        Session::stop(self, out);
    }
}
