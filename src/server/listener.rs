//! The accept loop of every TCP server (kingme `--listen`, `kingme dxp`), in
//! the shape of mini-redis: a semaphore caps the connections served at once
//! (one more is handed to a refusal task), a broadcast tells every handler to
//! shut down, and an mpsc whose closing says every handler is done.

use super::limits::ServerLimits;
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
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

/// Why a connection is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The server serves `max` connections already.
    Server {
        /// The server's limit.
        max: usize,
    },
    /// The client's address has `max` connections already.
    Address {
        /// The limit per address.
        max: usize,
    },
}

/// The connections open per client address; an entry goes when its last
/// connection closes.
#[derive(Default)]
struct PerAddress(std::sync::Mutex<HashMap<IpAddr, usize>>);

/// One connection counted for its address until dropped.
struct AddressSlot(Arc<PerAddress>, IpAddr);

impl PerAddress {
    fn take(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<AddressSlot> {
        let mut m = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = m.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(AddressSlot(Arc::clone(self), ip))
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut m = self
            .0
             .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}

/// Accepts connections on `listener` until `shutdown` completes. Each one is
/// served by `handle` on its own task while fewer than the limits'
/// `max_connections` are (and fewer than `max_per_address` from its
/// address); one more goes to `refuse` with the reason (which should answer
/// briefly and close). Then tells every handler and waits (up to `grace`)
/// for them to end. A failed
/// accept (out of descriptors, say) is logged and retried; errors of one
/// connection never reach this loop.
pub async fn serve<H, HF, R, RF>(
    listener: TcpListener,
    limits: ServerLimits,
    grace: Duration,
    shutdown: impl Future<Output = ()>,
    handle: H,
    refuse: R,
) where
    H: Fn(TcpStream, SocketAddr, Shutdown) -> HF,
    HF: Future<Output = ()> + Send + 'static,
    R: Fn(TcpStream, SocketAddr, Full) -> RF,
    RF: Future<Output = ()> + Send + 'static,
{
    let (notify_shutdown, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let conns = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = Arc::new(PerAddress::default());
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
            let slot = Arc::clone(&conns)
                .try_acquire_owned()
                .map_err(|_| Full::Server {
                    max: limits.max_connections,
                })
                .and_then(|permit| {
                    let max = limits.max_per_address;
                    per_address
                        .take(peer.ip(), max)
                        .map(|a| (permit, a))
                        .ok_or(Full::Address { max })
                });
            match slot {
                Ok((permit, address)) => {
                    let served = handle(socket, peer, Shutdown(notify_shutdown.subscribe()));
                    let done = done_tx.clone();
                    tokio::spawn(async move {
                        tracing::info!(%peer, "connected");
                        served.await;
                        tracing::info!(%peer, "closed");
                        drop(address);
                        drop(permit);
                        drop(done);
                    });
                }
                Err(full) => {
                    tracing::warn!(%peer, ?full, "refused: too many connections");
                    tokio::spawn(refuse(socket, peer, full));
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
    if timeout(grace, done_rx.recv()).await.is_err() {
        tracing::warn!(?grace, "some connections did not close in time");
    }
}
