//! Transports for the protocol: stdio (the default `kingme` mode) and TCP
//! (`kingme --listen ADDR`). Both drive the same [`crate::protocol::Session`]
//! with the same loop.
//!
//! - [`driver`]: the loop driving a session over any [`driver::Transport`].
//! - [`listener`]: the accept loop of every TCP server (a connection cap,
//!   graceful shutdown), kingme's and DXP's.
//! - [`stdio`], [`tcp`]: the two transports.
//! - [`framing`]: bounded records from a byte stream; `KingmeCodec`: TCP lines.

mod codec;
pub mod driver;
pub mod framing;
pub mod listener;
pub mod stdio;
pub mod tcp;

pub use codec::{KingmeCodec, Line};
pub use tcp::{serve, ServerConfig};

use std::net::SocketAddr;

/// Default longest line in bytes (a long `position ... moves` fits easily).
pub const MAX_LINE: usize = 16 * 1024;

/// The engine options every session of a server starts with, from the
/// operator's `--eval-file FILE` and `--egdb DIR`: read and checked now, so
/// that a bad file is refused at start rather than in every session.
pub fn operator_defaults(
    eval_file: Option<&std::path::Path>,
    egdb: Option<&std::path::Path>,
) -> Result<Vec<crate::engine::EngineOption>, String> {
    use crate::protocol::parse_option;
    let mut defaults = Vec::new();
    if let Some(f) = eval_file {
        let text = f.to_string_lossy();
        defaults.push(parse_option("EvalFile", &text).map_err(|e| format!("--eval-file: {e}"))?);
    }
    if let Some(d) = egdb {
        let d = d
            .canonicalize()
            .map_err(|e| format!("--egdb {}: {e}", d.display()))?;
        let text = d.to_string_lossy();
        defaults.push(parse_option("EGDBPath", &text).map_err(|e| format!("--egdb: {e}"))?);
    }
    let mut engine = crate::engine::Engine::new();
    for o in &defaults {
        engine.set(o.clone()).map_err(|e| e.to_string())?;
    }
    Ok(defaults)
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

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// Binds `addr`, tells `bound` the address (the CLI prints it, and warns
/// when it is reachable from other machines), and serves until SIGINT or
/// SIGTERM.
pub fn run_tcp(
    addr: &str,
    config: ServerConfig,
    bound: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("kingme-net")
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local: SocketAddr = listener.local_addr()?;
        if !local.ip().is_loopback() && config.session.token.is_none() {
            tracing::warn!(%local, "non-loopback bind without --token");
        }
        tracing::info!(%local, max_connections = config.max_connections, max_searches = config.max_searches, "listening");
        bound(local);
        serve(listener, config, shutdown_signal()).await
    })
}
