//! The TCP transport: the shared [`listener`](super::listener) accepting
//! connections, each a [`Session`](crate::protocol::Session) driven by the
//! shared [`driver`](super::driver) over lines framed by [`KingmeCodec`].

use super::codec::KingmeCodec;
use super::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use super::listener;
use crate::protocol::{Refusal, Response, SessionConfig};
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::timeout;
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
    let slots = Arc::new(Semaphore::new(config.max_searches.max(1)));
    config.session.search_slots = Some(Arc::clone(&slots));
    let limits = listener::Limits {
        max_connections: config.max_connections,
        grace: Duration::from_secs(5),
    };
    let drive_config = DriveConfig {
        session: config.session.clone(),
        greet: true,
        max_line: config.max_line,
        idle_timeout: Some(config.idle_timeout),
        write_timeout: Some(config.write_timeout),
        at_end: AtEnd::Stop,
        close_grace: Some(Duration::from_secs(5)),
    };
    let shutdown = async move {
        shutdown.await;
        // queued searches answer at once
        slots.close();
    };
    let max = config.max_connections;
    listener::serve(
        listener,
        limits,
        shutdown,
        |socket, _peer, mut shutdown| {
            let _ = socket.set_nodelay(true);
            let framed = Framed::new(socket, KingmeCodec::new(drive_config.max_line));
            drive(TcpLines(framed), drive_config.clone(), async move {
                shutdown.recv().await
            })
        },
        move |socket, _peer| refuse(socket, max),
    )
    .await;
    Ok(())
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

/// A TCP connection framed in protocol lines.
struct TcpLines(Framed<TcpStream, KingmeCodec>);

impl Transport for TcpLines {
    async fn read(&mut self) -> Inbound {
        match self.0.next().await {
            Some(Ok(line)) => Inbound::Lines(vec![line]),
            Some(Err(e)) => Inbound::Failed(e.to_string()),
            None => Inbound::Ended,
        }
    }

    async fn write(&mut self, responses: Vec<Response>) -> std::io::Result<()> {
        for r in responses {
            self.0.feed(r.to_string()).await?;
        }
        self.0.flush().await
    }
}
