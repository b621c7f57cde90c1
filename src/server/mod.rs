//! Transports for the protocol: stdio (the default `kingme` mode) and TCP
//! (`kingme --listen ADDR`). Both drive the same [`crate::protocol::Session`]
//! with the same loop. And the policy of a network server.
//!
//! - [`driver`]: the loop driving a session over any [`driver::Transport`].
//! - [`ServerPolicy`]: a server's token, search slots, longest search and
//!   [`HashBudget`]; each session gets its [`SessionPolicy`], the
//!   [`Policy`](crate::frontend::Policy) the session asks.
//! - [`listener`]: the accept loop of every TCP server (a connection cap,
//!   graceful shutdown), kingme's and DXP's.
//! - [`ServerLimits`]: what every TCP server allows its clients together
//!   (connections in all and per address, searches at once, the hash
//!   budget), with the one statement of their defaults.
//! - [`check_exposure`]: safe by default: a server other machines can
//!   reach, with nothing to authenticate its clients, does not start
//!   without `--no-auth` ([`ListenError`]).
//! - [`stdio`], [`tcp`]: the two transports.
//! - [`OperatorFiles`]: the operator's file flags of every server front end
//!   (`--allow-files`, `--egdb`, `--eval-file`).
//! - [`EngineSpelling`]: where a client finds an engine (`inprocess`,
//!   `tcp:`, `cmd:`), one spelling for the referee and the web board, each
//!   of which takes only the kinds it can use ([`Accepted`]).
//! - [`framing`]: bounded records from a byte stream; `KingmeCodec`: TCP lines.

mod budget;
mod codec;
pub mod driver;
mod engine_spec;
mod exposure;
pub mod framing;
mod limits;
pub mod listener;
mod operator;
mod policy;
pub mod stdio;
pub mod tcp;

pub use budget::{HashBudget, Reservation};
pub use codec::{KingmeCodec, Line};
pub use engine_spec::{split_words, Accepted, EngineKind, EngineSpelling, ParseEngineSpecError};
pub use exposure::{check_exposure, ListenError, DXP_ALLOW, KINGME_ALLOW};
pub use limits::{
    cores, default_hash_budget_mib, default_max_searches, ServerLimitArgs, ServerLimits,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_ADDRESS,
};
pub use operator::OperatorFiles;
pub use policy::{ServerPolicy, SessionPolicy};
pub use tcp::{serve, ServerConfig};

use std::net::SocketAddr;

/// Default longest line in bytes (a long `position ... moves` fits easily),
/// for every front end: kingme's transports, Hub, the web bridge and the
/// referee's reader.
pub const MAX_LINE: usize = 16 * 1024;

/// Whether `addr` is `HOST:PORT` with a host and a port number: how clients
/// (the referee's and the web board's `tcp:HOST:PORT`) name a kingme server.
#[must_use]
pub fn is_host_port(addr: &str) -> bool {
    addr.rsplit_once(':')
        .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok())
}

/// Sends `tracing` logs to stderr, filtered by `RUST_LOG` (else `default`).
/// Never writes to stdout, which belongs to the protocol.
pub fn init_logging(default: &str) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Completes on SIGINT or SIGTERM (on SIGINT alone where SIGTERM cannot be
/// caught).
pub async fn shutdown_signal() {
    match Signals::new() {
        Ok(mut signals) => signals.next().await,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// SIGINT and SIGTERM, caught from the moment this is made (Ctrl-C alone
/// where there are no Unix signals). Made inside a tokio runtime.
pub struct Signals {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts catching both signals.
    ///
    /// # Errors
    /// When the runtime cannot register a handler.
    pub fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                int: signal(SignalKind::interrupt())?,
                term: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Signals {})
        }
    }

    /// Completes on the next SIGINT or SIGTERM.
    pub async fn next(&mut self) {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => {}
                _ = self.term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Binds `addr` on a new multi-thread runtime whose threads are named
/// `threads`, and runs `serve` with the listener and the address it got.
pub fn bind_and_run<F, Fut>(addr: &str, threads: &str, serve: F) -> Result<(), ListenError>
where
    F: FnOnce(tokio::net::TcpListener, SocketAddr) -> Fut,
    Fut: std::future::Future<Output = Result<(), ListenError>>,
{
    let io = |source| ListenError::Io {
        addr: addr.to_string(),
        source,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name(threads)
        .build()
        .map_err(io)?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(io)?;
        let local: SocketAddr = listener.local_addr().map_err(io)?;
        serve(listener, local).await
    })
}

/// Binds `addr` and, unless [`check_exposure`] refuses it (beyond loopback
/// with neither a token nor [`ServerConfig::no_auth`]), tells `bound` the
/// address (the CLI prints it, and warns when it is reachable from other
/// machines) and serves until SIGINT or SIGTERM.
pub fn run_tcp(
    addr: &str,
    config: ServerConfig,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), ListenError> {
    bind_and_run(addr, "kingme-net", |listener, local| async move {
        check_exposure(local, config.token.is_some(), config.no_auth, KINGME_ALLOW)?;
        if !local.ip().is_loopback() && config.token.is_none() {
            tracing::warn!(%local, "non-loopback bind without --token (--no-auth)");
        }
        tracing::info!(%local, max_connections = config.limits.max_connections, max_searches = config.limits.max_searches, "listening");
        bound(local);
        serve(listener, config, shutdown_signal())
            .await
            .map_err(|source| ListenError::Io {
                addr: addr.to_string(),
                source,
            })
    })
}
