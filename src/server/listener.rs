//! The accept loop of every TCP server (kingme `--listen`, `kingme dxp`), in
//! the shape of mini-redis: a semaphore caps the connections served at once
//! (one more is handed to a refusal task), a broadcast tells every handler to
//! shut down, and an mpsc whose closing says every handler is done.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, Semaphore};
use tokio::time::{sleep, timeout};

/// A connection handler's view of the server shutting down.
#[derive(Debug)]
pub struct Shutdown(broadcast::Receiver<()>);

impl Shutdown {
    /// Completes when the server shuts down (at once if it already has).
    pub async fn recv(&mut self) {
        // the sender is dropped, never used to send: every outcome means shutdown
        let _ = self.0.recv().await;
    }
}

/// How the accept loop treats a connection.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once.
    pub max_connections: usize,
    /// How long handlers get to close after shutdown.
    pub grace: Duration,
}

/// Accepts connections on `listener` until `shutdown` completes. Each one is
/// served by `handle` on its own task while fewer than `max_connections` are;
/// one more goes to `refuse` (which should answer briefly and close). Then
/// tells every handler and waits (up to `grace`) for them to end. A failed
/// accept (out of descriptors, say) is logged and retried; errors of one
/// connection never reach this loop.
pub async fn serve<H, HF, R, RF>(
    listener: TcpListener,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    handle: H,
    refuse: R,
) where
    H: Fn(TcpStream, SocketAddr, Shutdown) -> HF,
    HF: Future<Output = ()> + Send + 'static,
    R: Fn(TcpStream, SocketAddr) -> RF,
    RF: Future<Output = ()> + Send + 'static,
{
    let (notify_shutdown, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let conns = Arc::new(Semaphore::new(limits.max_connections));
    let accept = async {
        loop {
            let (socket, peer) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            match Arc::clone(&conns).try_acquire_owned() {
                Ok(permit) => {
                    let served = handle(socket, peer, Shutdown(notify_shutdown.subscribe()));
                    let done = done_tx.clone();
                    tokio::spawn(async move {
                        tracing::info!(%peer, "connected");
                        served.await;
                        tracing::info!(%peer, "closed");
                        drop(permit);
                        drop(done);
                    });
                }
                Err(_) => {
                    let max = limits.max_connections;
                    tracing::warn!(%peer, max, "refused: too many connections");
                    tokio::spawn(refuse(socket, peer));
                }
            }
        }
    };
    tokio::select! {
        () = accept => {}
        () = shutdown => tracing::info!("shutting down"),
    }
    drop(notify_shutdown);
    drop(done_tx);
    drop(listener);
    if timeout(limits.grace, done_rx.recv()).await.is_err() {
        tracing::warn!(grace = ?limits.grace, "some connections did not close in time");
    }
}
