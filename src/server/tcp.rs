//! The TCP transport: the shared [`listener`] accepting connections, each a
//! [`Session`] driven by the shared [`driver`](super::driver) over lines
//! framed by [`KingmeCodec`].

use super::codec::{KingmeCodec, Line};
use super::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use super::limits::ServerLimits;
use super::listener::{self, Full};
use crate::protocol::{Refusal, Response, Session, SessionConfig, Token};
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;
use tokio_util::codec::Framed;

/// Limits and settings of a TCP server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Connections, searches and table memory for all clients together;
    /// a `setoption Hash` over the hash budget is refused.
    pub limits: ServerLimits,
    /// With a token, a client that has not sent `auth` within this time is
    /// closed.
    pub auth_timeout: Duration,
    /// Longest accepted line in bytes.
    pub max_line: usize,
    /// A connection with no input (and no search) for this long is closed.
    pub idle_timeout: Duration,
    /// A connection that can't take our output for this long is closed.
    pub write_timeout: Duration,
    /// When set, a client must send `auth <token>` first.
    pub token: Option<Token>,
    /// Serve clients beyond loopback with no token (`--no-auth`); without
    /// it, [`run_tcp`](super::run_tcp) refuses such an address.
    pub no_auth: bool,
    /// Longest any one search may run (`go infinite` and `analyze`
    /// included); `None`: no limit.
    pub max_search_time: Option<Duration>,
    /// What each session's commands allow (hash and thread caps, files...).
    pub session: SessionConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            limits: ServerLimits::default(),
            auth_timeout: Duration::from_secs(10),
            max_line: super::MAX_LINE,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            write_timeout: Duration::from_secs(30),
            token: None,
            no_auth: false,
            max_search_time: Some(DEFAULT_MAX_SEARCH_TIME),
            session: SessionConfig {
                max_hash_mib: DEFAULT_MAX_HASH_MIB,
                default_hash_mib: Some(DEFAULT_SESSION_HASH_MIB),
                max_threads: super::limits::cores(),
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

/// Default longest search a network client may run (`go infinite` included).
pub const DEFAULT_MAX_SEARCH_TIME: Duration = Duration::from_secs(300);

/// Default [`ServerConfig::idle_timeout`].
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// Default largest `Hash` a network client may set, in MiB.
pub const DEFAULT_MAX_HASH_MIB: usize = 64;

/// `Hash` of a new network session, in MiB (at most the largest allowed).
pub const DEFAULT_SESSION_HASH_MIB: usize = 16;

/// Most leaves a network client's `perft` may count.
pub const MAX_PERFT_LEAVES: u64 = 2_000_000_000;

/// Serves connections from `listener` until `shutdown` completes; then tells
/// every session, stops their searches and waits (up to 5 s) for them to close.
pub async fn serve(
    listener: TcpListener,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let policy = config
        .limits
        .policy(config.token.clone(), config.max_search_time);
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
    let shutdown = policy.closing_slots_after(shutdown);
    listener::serve(
        listener,
        config.limits,
        Duration::from_secs(5),
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
