//! The DXP server: the shared [`listener`] (a task per connection, up to
//! [`DxpConfig::max_games`]; one more has its game request refused), each
//! connection's [`Connection`] driven by one loop; searches run on engine
//! threads.

use super::codec::DxpCodec;
use super::connection::{Connection, Input};
use super::message::DxpMessage;
use crate::engine::{Engine, EngineError, EngineOption, SearchSlot};
use crate::server::listener::{self, Shutdown};
use crate::server::shutdown_signal;
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{timeout, Instant};
use tokio_util::codec::Framed;

/// Settings of the DXP server.
#[derive(Clone, Debug)]
pub struct DxpConfig {
    /// Our name in GAMEACC.
    pub name: String,
    /// Engine options applied to every connection's engine (`Level`, `Hash`, `Threads`).
    pub options: Vec<EngineOption>,
    /// Time per move when GAMEREQ sets no clock (`None`: the level's default).
    pub movetime: Option<Duration>,
    /// Games (connections) played at once; one more has its game request
    /// refused (GAMEACC code 3) and is closed.
    pub max_games: usize,
    /// Close a connection after this long without a message from the peer.
    pub idle_timeout: Duration,
    /// A connection that has not had a game accepted this long after
    /// connecting is closed (it holds a game slot).
    pub handshake_timeout: Duration,
    /// Least time between two messages on one connection.
    pub message_gap: Duration,
}

impl Default for DxpConfig {
    fn default() -> Self {
        DxpConfig {
            name: "kingme".into(),
            options: Vec::new(),
            movetime: None,
            max_games: 4,
            idle_timeout: Duration::from_secs(900),
            handshake_timeout: Duration::from_secs(30),
            message_gap: Duration::from_millis(30),
        }
    }
}

impl DxpConfig {
    /// Checks the engine options by applying them to a fresh engine.
    pub fn validate(&self) -> Result<(), EngineError> {
        let mut e = Engine::new();
        self.options.iter().try_for_each(|o| e.set(o.clone()))
    }
}

/// Serves one connection until the peer closes it, goes idle, stops reading,
/// or the server shuts down. Our search's answers are read before messages.
async fn handle(
    socket: TcpStream,
    peer: SocketAddr,
    config: Arc<DxpConfig>,
    mut shutdown: Shutdown,
) {
    let _ = socket.set_nodelay(true);
    let mut framed = Framed::new(socket, DxpCodec::default());
    let mut engine = Engine::new();
    for o in &config.options {
        if let Err(e) = engine.set(o.clone()) {
            tracing::warn!(error = %e, "engine option ignored");
        }
    }
    let (answers, mut answered) = mpsc::channel(16);
    let idle = config.idle_timeout.max(Duration::from_millis(1));
    let config_handshake = config.handshake_timeout;
    let gap = config.message_gap;
    let mut conn = Connection {
        config,
        engine,
        peer,
        game: None,
        search: SearchSlot::new(),
        answers,
        out: Vec::new(),
        closing: false,
    };
    let handshake_at = Instant::now() + config_handshake;
    let mut last_input = Instant::now();
    let mut last_write: Option<Instant> = None;
    // until a game is accepted, the handshake deadline applies
    let mut accepted = false;
    let why = 'serve: loop {
        for m in std::mem::take(&mut conn.out) {
            // pydraughts reads one message per recv(): one write each, paced
            if let Some(t) = last_write {
                tokio::time::sleep_until(t + gap).await;
            }
            match timeout(idle, framed.send(&m)).await {
                Ok(Ok(())) => last_write = Some(Instant::now()),
                Ok(Err(_)) => break 'serve "write error",
                Err(_) => break 'serve "write timeout",
            }
        }
        if conn.closing {
            break "game request refused";
        }
        let input = tokio::select! {
            biased;
            Some((id, mv)) = answered.recv() => Input::Search { id, mv },
            frame = framed.next() => match frame {
                Some(Ok(m)) => {
                    last_input = Instant::now();
                    Input::Message(m)
                }
                Some(Err(_)) => break "read error",
                None => break "closed by peer",
            },
            () = tokio::time::sleep_until(last_input + idle) => break "idle timeout",
            () = tokio::time::sleep_until(handshake_at), if !accepted => break "no game request in time",
            () = shutdown.recv() => break "server shutting down",
        };
        conn.handle(input);
        accepted |= conn.game.is_some();
    };
    tracing::info!(%peer, why, "connection closed");
    drop(framed);
    // calling the search off joins its thread: off the async workers
    let _ = tokio::task::spawn_blocking(move || conn.finish()).await;
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

/// Accepts DXP connections on `listener` until `shutdown` completes, up to
/// [`DxpConfig::max_games`] at once; then ends every connection's game (and
/// search) and waits (up to 5 s) for them to close.
pub async fn serve(listener: TcpListener, config: DxpConfig, shutdown: impl Future<Output = ()>) {
    let config = Arc::new(config);
    let limits = listener::Limits {
        max_connections: config.max_games.max(1),
        max_per_address: config.max_games.max(1),
        grace: Duration::from_secs(5),
    };
    let name = config.name.clone();
    listener::serve(
        listener,
        limits,
        shutdown,
        |socket, peer, shutdown| handle(socket, peer, Arc::clone(&config), shutdown),
        move |socket, _, _| refuse(socket, name.clone()),
    )
    .await;
}

/// `kingme dxp`: binds `addr`, tells `bound` the address (the CLI prints it,
/// and warns when it is reachable from other machines), and serves until
/// SIGINT or SIGTERM.
pub fn run(addr: &str, config: DxpConfig, bound: impl FnOnce(SocketAddr)) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("kingme-dxp")
        .build()?;
    rt.block_on(async move {
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        bound(local);
        serve(listener, config, shutdown_signal()).await;
        Ok(())
    })
}
