//! The DXP server: the shared [`listener`] (a task per connection, within
//! the same [`ServerLimits`] as kingme's TCP server; one more has its game
//! request refused), each connection's [`Connection`] run by the shared
//! [`driver`](crate::server::driver) over NUL-framed messages; searches run
//! on engine threads, as many at once as the limits' search slots, each
//! connection's table within their hash budget.

use super::codec::DxpCodec;
use super::config::DxpConfig;
use super::connection::Connection;
use super::message::{DxpMessage, ParseDxpError};
use crate::engine::{Engine, EngineOption, SearchSlot};
use crate::frontend::Policy;
use crate::server::driver::{drive, AtEnd, DriveConfig, Inbound, Transport};
use crate::server::listener::{self, Shutdown};
use crate::server::{bind_and_run, check_exposure, shutdown_signal, ListenError, DXP_ALLOW};
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{timeout, Instant};
use tokio_util::codec::Framed;

/// Serves one connection with the server's driver until the peer closes it,
/// goes idle, stops reading, has no game accepted in time, or the server
/// shuts down.
async fn handle(
    socket: TcpStream,
    peer: SocketAddr,
    config: Arc<DxpConfig>,
    mut policy: Box<dyn Policy>,
    mut shutdown: Shutdown,
) {
    let _ = socket.set_nodelay(true);
    let engine = new_engine(&config.options, policy.as_mut());
    let (answers, answered) = mpsc::channel(16);
    let idle = config.idle_timeout.max(Duration::from_millis(1));
    let drive_config = DriveConfig {
        greet: false,
        idle_timeout: Some(idle),
        auth_timeout: Some(config.handshake_timeout),
        write_timeout: Some(idle),
        at_end: AtEnd::Stop,
        close_grace: Some(Duration::from_secs(5)),
    };
    let transport = DxpFramed {
        framed: Framed::new(socket, DxpCodec::default()),
        gap: config.message_gap,
        last_write: None,
    };
    let conn = Connection {
        config,
        engine,
        peer,
        game: None,
        search: SearchSlot::new(),
        answers,
        out: Vec::new(),
        closing: false,
        accepted: false,
        policy,
    };
    drive(transport, conn, answered, drive_config, async move {
        shutdown.recv().await;
    })
    .await;
    tracing::info!(%peer, "connection closed");
}

/// A connection's engine with `options`, its table within what `policy`
/// lets it hold (the smallest table, outside the budget, when the budget is
/// spent: the connection limit bounds those).
pub(super) fn new_engine(options: &[EngineOption], policy: &mut dyn Policy) -> Engine {
    let mut engine = Engine::new();
    let mut hash = None;
    for o in options {
        if let EngineOption::Hash(mib) = o {
            hash = Some(*mib);
        } else if let Err(e) = engine.set(o.clone()) {
            tracing::warn!(error = %e, "engine option ignored");
        }
    }
    let wanted = hash.unwrap_or(engine.hash_mib());
    let granted = match policy.hold_hash(Some(wanted)) {
        Ok(_) => wanted,
        Err(e) => {
            tracing::warn!(error = %e, "the game's table is the smallest");
            1
        }
    };
    if hash.is_some() || granted != wanted {
        if let Err(e) = engine.set(EngineOption::Hash(granted)) {
            tracing::warn!(error = %e, "engine option ignored");
        }
    }
    engine
}

/// A TCP connection framed in DXP messages, written one per write and at
/// least [`DxpConfig::message_gap`] apart (pydraughts reads one message per
/// `recv()`).
struct DxpFramed {
    framed: Framed<TcpStream, DxpCodec>,
    gap: Duration,
    last_write: Option<Instant>,
}

impl Transport for DxpFramed {
    type In = Result<DxpMessage, ParseDxpError>;
    type Out = DxpMessage;

    async fn read(&mut self) -> Inbound<Self::In> {
        match self.framed.next().await {
            Some(Ok(m)) => Inbound::Lines(vec![m]),
            Some(Err(e)) => Inbound::Failed(e.to_string()),
            None => Inbound::Ended,
        }
    }

    async fn write(&mut self, out: Vec<DxpMessage>) -> std::io::Result<()> {
        for m in out {
            if let Some(t) = self.last_write {
                tokio::time::sleep_until(t + self.gap).await;
            }
            tracing::debug!("send {m}");
            self.framed.send(&m).await?;
            self.last_write = Some(Instant::now());
        }
        Ok(())
    }
}

/// Answers a connection over the limit: its game request gets GAMEACC code 3
/// (too many games), then the connection closes.
async fn refuse(socket: TcpStream, name: String) {
    let mut framed = Framed::new(socket, DxpCodec::default());
    let _ = timeout(Duration::from_secs(10), async {
        while let Some(m) = framed.next().await {
            if let Ok(Ok(DxpMessage::GameReq(_))) = m {
                let refusal = DxpMessage::GameAcc { name, code: 3 };
                let _ = framed.send(&refusal).await;
                break;
            }
        }
    })
    .await;
}

/// Accepts DXP connections on `listener` until `shutdown` completes, within
/// [`DxpConfig::limits`]; then ends every connection's game (and search)
/// and waits (up to 5 s) for them to close.
pub async fn serve(listener: TcpListener, config: DxpConfig, shutdown: impl Future<Output = ()>) {
    let config = Arc::new(config);
    let policy = config.limits.policy(None, None);
    let name = config.name.clone();
    let shutdown = policy.closing_slots_after(shutdown);
    listener::serve(
        listener,
        config.limits,
        Duration::from_secs(5),
        shutdown,
        |socket, peer, shutdown| {
            let session = Box::new(policy.session());
            handle(socket, peer, Arc::clone(&config), session, shutdown)
        },
        move |socket, _, _| refuse(socket, name.clone()),
    )
    .await;
}

/// `kingme dxp`: binds `addr` and, unless [`check_exposure`] refuses it
/// (beyond loopback without [`DxpConfig::no_auth`]), tells `bound` the
/// address (the CLI prints it, and warns when it is reachable from other
/// machines) and serves until SIGINT or SIGTERM.
pub fn run(
    addr: &str,
    config: DxpConfig,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), ListenError> {
    bind_and_run(addr, "kingme-dxp", |listener, local| async move {
        check_exposure(local, false, config.no_auth, DXP_ALLOW)?;
        bound(local);
        serve(listener, config, shutdown_signal()).await;
        Ok(())
    })
}
