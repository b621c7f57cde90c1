//! The TCP transport: a listener accepting connections, each served by its own
//! task and [`Session`], in the shape of mini-redis (a connection semaphore, a
//! broadcast for shutdown, an mpsc whose closing says every handler is done).

use super::codec::{KingmeCodec, Line};
use crate::protocol::{Flow, Refusal, Response, Session, SessionConfig};
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, AcquireError, OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep, timeout, Instant};
use tokio_util::codec::Framed;

/// Limits and settings of a TCP server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Connections served at once; one more gets an error line and is closed.
    pub max_connections: usize,
    /// Searches running at once across all sessions (default: cores - 1, at
    /// least 1); more wait in a fair queue.
    pub max_searches: usize,
    /// Longest accepted line in bytes.
    pub max_line: usize,
    /// A connection with no input (and no search) for this long is closed.
    pub idle_timeout: Duration,
    /// A connection that can't take our output for this long is closed.
    pub write_timeout: Duration,
    /// What each session allows (token, hash and thread caps...); its
    /// `search_slots` is set by the server.
    pub session: SessionConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        ServerConfig {
            max_connections: 1024,
            // One core stays free for the network, so stop and isready are
            // answered at once even when every slot is searching.
            max_searches: cores.saturating_sub(1).max(1),
            max_line: super::MAX_LINE,
            idle_timeout: Duration::from_secs(600),
            write_timeout: Duration::from_secs(30),
            session: SessionConfig {
                max_hash_mib: 64,
                default_hash_mib: Some(16),
                max_threads: cores,
                max_perft_depth: 9,
                max_trace_nodes: 10_000,
                ..SessionConfig::default()
            },
        }
    }
}

/// Serves connections from `listener` until `shutdown` completes; then tells
/// every session, stops their searches and waits (up to 5 s) for them to close.
pub async fn serve(
    listener: TcpListener,
    mut config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    config.session.search_slots = Some(Arc::new(Semaphore::new(config.max_searches.max(1))));
    let (notify_shutdown, _) = broadcast::channel(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let config = Arc::new(config);
    let conns = Arc::new(Semaphore::new(config.max_connections));
    tokio::select! {
        res = accept_loop(&listener, &config, &conns, &notify_shutdown, &done_tx) => {
            if let Err(e) = &res {
                tracing::error!(error = %e, "accept loop failed");
            }
        }
        () = shutdown => tracing::info!("shutting down"),
    }
    if let Some(slots) = &config.session.search_slots {
        slots.close();
    }
    drop(notify_shutdown);
    drop(done_tx);
    drop(listener);
    if timeout(Duration::from_secs(5), done_rx.recv())
        .await
        .is_err()
    {
        tracing::warn!("some sessions did not close within 5 s");
    }
    Ok(())
}

async fn accept_loop(
    listener: &TcpListener,
    config: &Arc<ServerConfig>,
    conns: &Arc<Semaphore>,
    notify_shutdown: &broadcast::Sender<()>,
    done: &mpsc::Sender<()>,
) -> std::io::Result<()> {
    loop {
        let (socket, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: wait, don't die.
                tracing::warn!(error = %e, "accept failed");
                sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        match Arc::clone(conns).try_acquire_owned() {
            Ok(permit) => {
                let config = Arc::clone(config);
                let shutdown = notify_shutdown.subscribe();
                let done = done.clone();
                tokio::spawn(async move {
                    tracing::info!(%peer, "connected");
                    handle(socket, config, shutdown).await;
                    tracing::info!(%peer, "closed");
                    drop(permit);
                    drop(done);
                });
            }
            Err(_) => {
                let max = config.max_connections;
                tracing::warn!(%peer, max, "refused: too many connections");
                tokio::spawn(refuse(socket, max));
            }
        }
    }
}

/// Tells a client over the connection limit so, then closes.
async fn refuse(mut socket: TcpStream, max: usize) {
    use tokio::io::AsyncWriteExt;
    let line = format!("{}\n", Response::Refused(Refusal::ServerFull { max }));
    let _ = timeout(Duration::from_secs(2), async {
        socket.write_all(line.as_bytes()).await?;
        socket.shutdown().await
    })
    .await;
}

type SlotWait = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

/// Serves one connection. Errors end only this connection.
async fn handle(
    socket: TcpStream,
    config: Arc<ServerConfig>,
    mut shutdown: broadcast::Receiver<()>,
) {
    let peer: Option<SocketAddr> = socket.peer_addr().ok();
    let _ = socket.set_nodelay(true);
    let mut framed = Framed::new(socket, KingmeCodec::new(config.max_line));
    let (mut session, mut events) = Session::new(config.session.clone());
    let mut out = vec![session.greeting()];
    let mut slot_wait: Option<SlotWait> = None;
    let mut closing = false;
    let mut shutting_down = false;
    let mut last_input = Instant::now();
    let mut close_deadline = Instant::now();
    loop {
        if !out.is_empty() {
            let write = async {
                for r in out.drain(..) {
                    framed.feed(r.to_string()).await?;
                }
                framed.flush().await
            };
            match timeout(config.write_timeout, write).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    tracing::debug!(?peer, error = %e, "write failed");
                    break;
                }
                Err(_) => {
                    tracing::info!(?peer, "write timed out; closing");
                    break;
                }
            }
        }
        if closing && !session.is_searching() {
            break;
        }
        match (session.queued_on(), slot_wait.is_some()) {
            (Some(sem), false) => slot_wait = Some(Box::pin(sem.acquire_owned())),
            (None, true) => slot_wait = None,
            _ => {}
        }
        let idle_at = last_input + config.idle_timeout;
        tokio::select! {
            frame = framed.next(), if !closing => {
                last_input = Instant::now();
                match frame {
                    Some(Ok(Line::Text(bytes))) => {
                        if session.handle_line(&bytes, &mut out) == Flow::Quit {
                            closing = true;
                            close_deadline = Instant::now() + Duration::from_secs(5);
                        }
                    }
                    Some(Ok(Line::TooLong)) => {
                        let max = config.max_line;
                        session.handle_overlong(max, &mut out);
                    }
                    Some(Err(e)) => {
                        tracing::debug!(?peer, error = %e, "read failed");
                        break;
                    }
                    None => {
                        // EOF: stop any search; its bestmove is still written if
                        // the client only half-closed.
                        session.stop(&mut out);
                        closing = true;
                        close_deadline = Instant::now() + Duration::from_secs(5);
                    }
                }
            }
            Some(ev) = events.recv() => session.handle_event(ev, &mut out),
            permit = async { slot_wait.as_mut().expect("guarded").await }, if slot_wait.is_some() => {
                slot_wait = None;
                match permit {
                    Ok(p) => session.slot_granted(p, &mut out),
                    Err(_) => session.stop(&mut out),
                }
            }
            () = tokio::time::sleep_until(idle_at), if !closing && !session.is_searching() => {
                out.push(Response::Error(format!(
                    "idle for {:?}; closing",
                    config.idle_timeout
                )));
                closing = true;
            }
            _ = shutdown.recv(), if !shutting_down => {
                shutting_down = true;
                out.push(Response::InfoString("server shutting down".into()));
                session.stop(&mut out);
                closing = true;
                close_deadline = Instant::now() + Duration::from_secs(2);
            }
            () = tokio::time::sleep_until(close_deadline), if closing => {
                tracing::warn!(?peer, "search did not end in time after stop");
                break;
            }
        }
    }
    // Dropping the session stops and joins its search thread: do that off the
    // async workers, and wait, so no search outlives its connection.
    drop(framed);
    let _ = tokio::task::spawn_blocking(move || drop(session)).await;
}
