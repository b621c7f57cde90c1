//! The TCP transport: the shared [`listener`] accepting connections, each a
//! [`Session`] driven by the shared [`driver`](super::driver) over lines
//! framed by [`KingmeCodec`].

use super::budget::HashBudget;
use super::codec::{KingmeCodec, Line};
use super::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use super::listener::{self, Full};
use super::policy::ServerPolicy;
use crate::protocol::{Refusal, Response, Session, SessionConfig, Token};
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::net::SocketAddr;
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
    /// Connections served at once from one client address.
    pub max_per_address: usize,
    /// The sum of every session's `Hash`, in MiB; a `setoption Hash` over
    /// it is refused.
    pub hash_budget_mib: usize,
    /// With a token, a client that has not sent `auth` within this time is
    /// closed.
    pub auth_timeout: Duration,
    /// Searches running at once across all sessions (default: cores - 1, at
    /// least 1); more wait in a fair queue.
    pub max_searches: usize,
    /// Longest accepted line in bytes.
    pub max_line: usize,
    /// A connection with no input (and no search) for this long is closed.
    pub idle_timeout: Duration,
    /// A connection that can't take our output for this long is closed.
    pub write_timeout: Duration,
    /// When set, a client must send `auth <token>` first.
    pub token: Option<Token>,
    /// Longest any one search may run (`go infinite` and `analyze`
    /// included); `None`: no limit.
    pub max_search_time: Option<Duration>,
    /// What each session's commands allow (hash and thread caps, files...).
    pub session: SessionConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        ServerConfig {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_per_address: DEFAULT_MAX_CONNECTIONS,
            hash_budget_mib: default_hash_budget_mib(),
            auth_timeout: Duration::from_secs(10),
            // One core stays free for the network, so stop and isready are
            // answered at once even when every slot is searching.
            max_searches: cores.saturating_sub(1).max(1),
            max_line: super::MAX_LINE,
            idle_timeout: Duration::from_secs(600),
            write_timeout: Duration::from_secs(30),
            token: None,
            max_search_time: Some(DEFAULT_MAX_SEARCH_TIME),
            session: SessionConfig {
                max_hash_mib: 64,
                default_hash_mib: Some(16),
                max_threads: cores,
                process_options: false,
                max_perft_depth: 9,
                max_perft_leaves: MAX_PERFT_LEAVES,
                max_trace_nodes: 10_000,
                files: crate::files::FileAccess::Within(Vec::new()),
                ..SessionConfig::default()
            },
        }
    }
}

/// Default `max_connections`: with each session's default 16 MiB table, the
/// default hash budget holds every connection's table.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// Default longest search a network client may run (`go infinite` included).
pub const DEFAULT_MAX_SEARCH_TIME: Duration = Duration::from_secs(300);

/// Most leaves a network client's `perft` may count.
pub const MAX_PERFT_LEAVES: u64 = 2_000_000_000;

/// The default hash budget: 1024 MiB or a quarter of physical memory,
/// whichever is less.
#[must_use]
pub fn default_hash_budget_mib() -> usize {
    let quarter = physical_memory_mib().map_or(1024, |m| m / 4);
    quarter.clamp(16, 1024)
}

/// Physical memory in MiB, where the system says.
fn physical_memory_mib() -> Option<usize> {
    let kb = crate::proc_info::kb("/proc/meminfo", "MemTotal")?;
    usize::try_from(kb / 1024).ok()
}

/// Serves connections from `listener` until `shutdown` completes; then tells
/// every session, stops their searches and waits (up to 5 s) for them to close.
pub async fn serve(
    listener: TcpListener,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let policy = ServerPolicy {
        token: config.token.clone(),
        search_slots: Some(Arc::new(Semaphore::new(config.max_searches.max(1)))),
        hash_budget: Some(HashBudget::new(config.hash_budget_mib)),
        max_search_time: config.max_search_time,
    };
    let limits = listener::Limits {
        max_connections: config.max_connections,
        max_per_address: config.max_per_address,
        grace: Duration::from_secs(5),
    };
    let max_line = config.max_line;
    let session_config = config.session.clone();
    let drive_config = DriveConfig {
        greet: true,
        idle_timeout: Some(config.idle_timeout),
        auth_timeout: Some(config.auth_timeout),
        write_timeout: Some(config.write_timeout),
        at_end: AtEnd::Stop,
        close_grace: Some(Duration::from_secs(5)),
    };
    let server = policy.clone();
    let shutdown = async move {
        shutdown.await;
        // queued searches answer at once
        server.close_slots();
    };
    listener::serve(
        listener,
        limits,
        shutdown,
        |socket, _peer, mut shutdown| {
            let _ = socket.set_nodelay(true);
            let framed = Framed::new(socket, KingmeCodec::new(max_line));
            let (session, events) =
                Session::with_policy(session_config.clone(), Box::new(policy.session()));
            drive(
                TcpLines(framed),
                session,
                events.into_inner(),
                drive_config.clone(),
                async move { shutdown.recv().await },
            )
        },
        refuse,
    )
    .await;
    Ok(())
}

/// Tells a client over a connection limit so, then closes.
async fn refuse(mut socket: TcpStream, _peer: SocketAddr, full: Full) {
    use tokio::io::AsyncWriteExt;
    let refusal = match full {
        Full::Server { max } => Response::Refused(Refusal::ServerFull { max }),
        Full::Address { max } => Response::Error(format!(
            "too many connections from your address ({max}); try again later"
        )),
    };
    let line = format!("{refusal}\n");
    let _ = timeout(Duration::from_secs(2), async {
        socket.write_all(line.as_bytes()).await?;
        socket.shutdown().await
    })
    .await;
}

/// A TCP connection framed in protocol lines.
struct TcpLines(Framed<TcpStream, KingmeCodec>);

impl Transport for TcpLines {
    type In = Line;
    type Out = Response;

    async fn read(&mut self) -> Inbound<Line> {
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
