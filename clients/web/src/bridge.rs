//! One browser tab (one WebSocket) to one kingme session.
//!
//! The page sends protocol lines as WebSocket text messages (one or several
//! lines per message); the bridge answers with text messages holding one or
//! more protocol lines. What the page sends is checked before it reaches the
//! session: binary messages, messages over [`MAX_MESSAGE`] and lines over
//! [`MAX_LINE`] get an `error` line and are otherwise ignored; a message over
//! [`crate::MAX_FRAME`] can't be read at all and closes the socket (code 1009).
//!
//! In-process, the tab is one more transport of the engine's session driver
//! ([`kingme::server::driver`]), the loop its TCP server runs: lines go to the
//! session, engine events and replies come back, a queued search waits for a
//! slot. When the tab goes away the session is dropped on a blocking thread,
//! which stops its search and joins the search thread, before the tab stops
//! counting in [`crate::Stats`].

use crate::config::{Shared, MAX_FRAME, MAX_LINE, MAX_MESSAGE};
use crate::engine::EngineSpec;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use kingme::protocol::{Refusal, Response, Session, Token, AUTH_REQUEST};
use kingme::server::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use kingme::server::Line;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_util::codec::{Framed, LinesCodec, LinesCodecError};

/// Longest line accepted from a kingme TCP server (a `board` or `help` reply
/// is several lines; a long PV fits easily).
const MAX_ENGINE_LINE: usize = 64 * 1024;

/// What one WebSocket read amounts to.
enum WsRead {
    /// A text message: protocol lines.
    Text(String),
    /// Something to refuse with this `error` text; the socket stays open.
    Refuse(String),
    /// Nothing to do (ping, pong).
    Nothing,
    /// The tab closed (close frame or end of stream).
    Closed,
    /// The socket failed (a message over the frame cap, a protocol violation).
    Failed(String),
}

fn classify(msg: Option<Result<Message, axum::Error>>) -> WsRead {
    match msg {
        Some(Ok(Message::Text(t))) if t.len() > MAX_MESSAGE => WsRead::Refuse(format!(
            "message too long ({} bytes; at most {MAX_MESSAGE}); ignored",
            t.len()
        )),
        Some(Ok(Message::Text(t))) => WsRead::Text(t.as_str().to_owned()),
        Some(Ok(Message::Binary(b))) => WsRead::Refuse(format!(
            "binary message ({} bytes) ignored: send protocol lines as text",
            b.len()
        )),
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => WsRead::Nothing,
        Some(Ok(Message::Close(_))) | None => WsRead::Closed,
        Some(Err(e)) => WsRead::Failed(e.to_string()),
    }
}

/// The lines of a text message: split at LF, a CR before it dropped, the empty
/// piece after a final LF left out.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_terminator('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
}

fn error_line(text: impl Into<String>) -> String {
    Response::Error(text.into()).to_string()
}

/// Serves one tab until it closes, the session quits or the server shuts down.
pub(crate) async fn run(mut socket: WebSocket, shared: Arc<Shared>) {
    let Ok(permit) = Arc::clone(&shared.tabs).try_acquire_owned() else {
        let max = shared.config.max_sessions;
        tracing::warn!(max, "refused a tab: too many sessions");
        let msg = error_line(format!("server full ({max} sessions); try again later"));
        let _ = timeout(Duration::from_secs(2), async {
            socket.send(Message::Text(msg.into())).await?;
            socket.send(close(close_code::AGAIN, "server full")).await
        })
        .await;
        return;
    };
    shared.stats.sessions.fetch_add(1, Ordering::SeqCst);
    tracing::info!(sessions = shared.stats.sessions(), "tab connected");
    match &shared.config.engine {
        EngineSpec::InProcess => in_process(socket, &shared).await,
        EngineSpec::Tcp { addr, token } => over_tcp(socket, &shared, addr, token.as_ref()).await,
    }
    shared.stats.sessions.fetch_sub(1, Ordering::SeqCst);
    tracing::info!(sessions = shared.stats.sessions(), "tab closed");
    drop(permit);
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

/// Sends `text` (one or more lines), giving up after the write timeout.
async fn send_text(socket: &mut WebSocket, text: String, wait: Duration) -> Result<(), String> {
    match timeout(wait, socket.send(Message::Text(text.into()))).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("write timed out".into()),
    }
}

/// After a read failure: say why if the socket still takes it, then close.
async fn fail(socket: &mut WebSocket, why: &str) {
    tracing::debug!(error = why, "tab read failed");
    let too_big =
        why.contains("too long") || why.contains("too big") || why.contains("Space limit");
    let _ = timeout(Duration::from_secs(1), async {
        let text = if too_big {
            error_line(format!(
                "message too big (over {} bytes); closing",
                MAX_FRAME
            ))
        } else {
            error_line(format!("bad WebSocket data ({why}); closing"))
        };
        socket.send(Message::Text(text.into())).await?;
        let code = if too_big {
            close_code::SIZE
        } else {
            close_code::PROTOCOL
        };
        socket.send(close(code, "bad message")).await
    })
    .await;
}

/// A tab's WebSocket as a transport of the engine's session driver: each
/// text message is one or more lines, and all the responses of one step go
/// out in one message.
struct Tab {
    socket: WebSocket,
    write_timeout: Duration,
}

impl Transport for Tab {
    type In = Line;
    type Out = Response;

    async fn read(&mut self) -> Inbound<Line> {
        match classify(self.socket.next().await) {
            WsRead::Text(text) => Inbound::Lines(
                lines(&text)
                    .map(|l| {
                        if l.len() > MAX_LINE {
                            Line::TooLong { max: MAX_LINE }
                        } else {
                            Line::Text(l.as_bytes().to_vec())
                        }
                    })
                    .collect(),
            ),
            WsRead::Refuse(why) => Inbound::Refused(why),
            WsRead::Nothing => Inbound::Nothing,
            // The tab is gone: nobody reads a bestmove, so don't wait for one.
            WsRead::Closed => Inbound::Gone,
            WsRead::Failed(why) => Inbound::Failed(why),
        }
    }

    async fn write(&mut self, responses: Vec<Response>) -> std::io::Result<()> {
        let text = responses
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        send_text(&mut self.socket, text, self.write_timeout)
            .await
            .map_err(std::io::Error::other)
    }

    async fn close(&mut self) {
        let _ = timeout(
            Duration::from_secs(1),
            self.socket.send(close(close_code::NORMAL, "bye")),
        )
        .await;
    }

    async fn fail(&mut self, why: String) {
        fail(&mut self.socket, &why).await;
    }
}

/// Drives a [`kingme::protocol::Session`] in this process with the engine's
/// own session driver, as its TCP server does.
async fn in_process(socket: WebSocket, shared: &Shared) {
    let config = DriveConfig {
        greet: true,
        idle_timeout: Some(shared.config.idle_timeout),
        auth_timeout: None,
        write_timeout: None,
        at_end: AtEnd::Stop,
        close_grace: Some(Duration::from_secs(5)),
    };
    let tab = Tab {
        socket,
        write_timeout: shared.config.write_timeout,
    };
    let mut shutdown = shared.shutdown.clone();
    let shutdown = async move {
        // A dropped sender (a server without shutdown) just ends the watch.
        while shutdown.changed().await.is_ok() {
            if *shutdown.borrow() {
                return;
            }
        }
        std::future::pending::<()>().await;
    };
    let policy = Box::new(shared.config.policy.session());
    let (session, events) = Session::with_policy(shared.config.session.clone(), policy);
    drive(tab, session, events.into_inner(), config, shutdown).await;
}

/// Tells the tab why its engine connection failed, and closes it.
async fn give_up(socket: &mut WebSocket, why: String, reason: &'static str, wait: Duration) {
    let _ = send_text(socket, error_line(why), wait).await;
    let _ = socket.send(close(close_code::ERROR, reason)).await;
}

/// Why the bridge could not authenticate to the engine.
enum AuthFail {
    /// The server refused the token.
    Refused(String),
    /// Anything else (an error line, a closed or failed connection, no answer).
    Failed(String),
}

/// Sends `auth TOKEN` and waits for `authok`, passing the server's greeting on to
/// the tab (without its request for a token, which the bridge has answered); the
/// token itself never reaches the tab.
async fn authenticate(
    engine: &mut Framed<TcpStream, LinesCodec>,
    socket: &mut WebSocket,
    token: &str,
    wait: Duration,
) -> Result<(), AuthFail> {
    engine
        .send(format!("auth {token}"))
        .await
        .map_err(|e| AuthFail::Failed(format!("failed: {e}")))?;
    let answer = timeout(Duration::from_secs(5), async {
        while let Some(line) = engine.next().await {
            let l = match line {
                Ok(l) => l,
                Err(e) => return Err(AuthFail::Failed(format!("failed: {e}"))),
            };
            match l.trim().parse::<Response>() {
                Ok(Response::AuthOk) => return Ok(()),
                Ok(Response::InfoString(note)) => {
                    let note = note.strip_suffix(AUTH_REQUEST).unwrap_or(&note);
                    let greeting = Response::InfoString(note.to_string()).to_string();
                    let _ = send_text(socket, greeting, wait).await;
                }
                Ok(Response::Refused(Refusal::BadToken)) => {
                    return Err(AuthFail::Refused(format!("refused the token: {l}")));
                }
                _ => return Err(AuthFail::Failed(format!("answered auth with: {l}"))),
            }
        }
        Err(AuthFail::Failed("closed the connection".to_string()))
    })
    .await;
    answer.unwrap_or_else(|_| Err(AuthFail::Failed("did not answer auth within 5 s".into())))
}

/// Relays lines between the tab and a kingme TCP server; closing either side
/// closes the other (the server then stops the session's search).
async fn over_tcp(mut socket: WebSocket, shared: &Shared, addr: &str, token: Option<&Token>) {
    let wait = shared.config.write_timeout;
    let stream = match timeout(Duration::from_secs(5), TcpStream::connect(addr)).await {
        Ok(Ok(s)) => s,
        failed => {
            let why = match failed {
                Ok(Err(e)) => e.to_string(),
                _ => "timed out".to_string(),
            };
            let msg = format!("cannot reach the engine at {addr}: {why}");
            give_up(&mut socket, msg, "engine unreachable", wait).await;
            return;
        }
    };
    let _ = stream.set_nodelay(true);
    let mut engine = Framed::new(stream, LinesCodec::new_with_max_length(MAX_ENGINE_LINE));
    if let Some(token) = token {
        if let Err(fail) = authenticate(&mut engine, &mut socket, token.as_str(), wait).await {
            let (why, reason) = match fail {
                AuthFail::Refused(why) => (why, "engine refused the token"),
                AuthFail::Failed(why) => (why, "engine failed"),
            };
            give_up(
                &mut socket,
                format!("the engine at {addr} {why}"),
                reason,
                wait,
            )
            .await;
            return;
        }
    }
    let mut shutdown = shared.shutdown.clone();
    let mut watching = true;
    loop {
        tokio::select! {
            msg = socket.next() => {
                let mut replies = Vec::new();
                match classify(msg) {
                    WsRead::Text(text) => {
                        for line in lines(&text) {
                            if line.len() > MAX_LINE {
                                replies.push(error_line(format!(
                                    "line too long (more than {MAX_LINE} bytes); ignored"
                                )));
                            } else if let Err(e) = engine.feed(line.to_owned()).await {
                                tracing::debug!(error = %e, "engine write failed");
                                return;
                            }
                        }
                        if let Err(e) = SinkExt::<String>::flush(&mut engine).await {
                            tracing::debug!(error = %e, "engine write failed");
                            return;
                        }
                    }
                    WsRead::Refuse(why) => replies.push(error_line(why)),
                    WsRead::Nothing => {}
                    WsRead::Closed => return,
                    WsRead::Failed(why) => {
                        fail(&mut socket, &why).await;
                        return;
                    }
                }
                if !replies.is_empty() && send_text(&mut socket, replies.join("\n"), wait).await.is_err() {
                    return;
                }
            }
            line = engine.next() => {
                let text = match line {
                    Some(Ok(l)) => l,
                    Some(Err(LinesCodecError::MaxLineLengthExceeded)) => {
                        error_line("the engine sent an overlong line; dropped")
                    }
                    Some(Err(e)) => {
                        let msg = error_line(format!("connection to the engine failed: {e}"));
                        let _ = send_text(&mut socket, msg, wait).await;
                        let _ = socket.send(close(close_code::ERROR, "engine failed")).await;
                        return;
                    }
                    None => {
                        let _ = socket.send(close(close_code::NORMAL, "engine closed")).await;
                        return;
                    }
                };
                if send_text(&mut socket, text, wait).await.is_err() {
                    return;
                }
            }
            changed = shutdown.changed(), if watching => {
                if changed.is_err() {
                    watching = false;
                } else if *shutdown.borrow() {
                    let msg = Response::InfoString("server shutting down".into()).to_string();
                    let _ = send_text(&mut socket, msg, wait).await;
                    let _ = socket.send(close(close_code::AWAY, "shutting down")).await;
                    return;
                }
            }
        }
    }
}
