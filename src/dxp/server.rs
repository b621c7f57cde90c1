//! The DXP listener: one thread per connection, up to a number of games.

use super::connection::{read_messages, Connection};
use crate::engine::{Engine, EngineError};
use std::io;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::Duration;

/// Settings of the DXP server.
#[derive(Clone, Debug)]
pub struct DxpConfig {
    /// Our name in GAMEACC.
    pub name: String,
    /// Engine options applied to every connection's engine (`Level`, `Hash`, `Threads`).
    pub options: Vec<(String, String)>,
    /// Time per move when GAMEREQ sets no clock (`None`: the level's default).
    pub movetime: Option<Duration>,
    /// Games played at once.
    pub max_games: usize,
    /// Close a connection after this long without a message from the peer.
    pub idle_timeout: Duration,
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
            message_gap: Duration::from_millis(30),
        }
    }
}

impl DxpConfig {
    /// Checks the engine options by applying them to a fresh engine.
    pub fn validate(&self) -> Result<(), EngineError> {
        let mut e = Engine::new();
        self.options
            .iter()
            .try_for_each(|(n, v)| e.set_option(n, v))
    }
}

fn serve_connection(stream: TcpStream, config: Arc<DxpConfig>, busy: bool) -> io::Result<()> {
    let peer = stream.peer_addr()?;
    stream.set_nodelay(true)?;
    let reader = stream.try_clone()?;
    let idle = config.idle_timeout.max(Duration::from_millis(1));
    reader.set_read_timeout(Some(idle))?;
    // a peer that stops reading can't hold this thread forever
    stream.set_write_timeout(Some(idle))?;
    let (tx, rx) = sync_channel(64);
    let reader_tx = tx.clone();
    std::thread::Builder::new()
        .name("kingme-dxp-read".into())
        .spawn(move || read_messages(reader, &reader_tx))?;
    let mut engine = Engine::new();
    for (n, v) in &config.options {
        if let Err(e) = engine.set_option(n, v) {
            tracing::warn!(error = %e, "engine option ignored");
        }
    }
    tracing::info!(%peer, "connected");
    let mut conn = Connection {
        config,
        engine,
        writer: stream,
        peer,
        last_write: None,
        busy,
        game: None,
        search: None,
        next_id: 0,
        tx,
    };
    let result = loop {
        let Ok(input) = rx.recv() else {
            break Ok(());
        };
        let step = conn.handle(input);
        match step {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    conn.finish();
    let _ = conn.writer.shutdown(Shutdown::Both);
    result
}

/// Accepts DXP connections on `listener` forever, each served on its own thread.
pub fn serve(listener: TcpListener, config: DxpConfig) -> io::Result<()> {
    let config = Arc::new(config);
    let active = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        let n = active.fetch_add(1, Ordering::SeqCst);
        let busy = n >= config.max_games;
        let (config, counted) = (Arc::clone(&config), Arc::clone(&active));
        let spawned = std::thread::Builder::new()
            .name("kingme-dxp".into())
            .spawn(move || {
                if let Err(e) = serve_connection(stream, config, busy) {
                    tracing::info!(error = %e, "connection ended with an error");
                }
                counted.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            // the thread that would have counted this connection out never ran
            active.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!(error = %e, "no thread for a connection");
        }
    }
}

/// `kingme dxp`: binds `addr`, says where on stderr, and serves forever.
pub fn run(addr: &str, config: DxpConfig) -> io::Result<()> {
    let listener = TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    if !local.ip().is_loopback() {
        eprintln!(
            "WARNING: kingme dxp is listening on {local}, reachable from other machines; \
             DXP has no authentication. Bind 127.0.0.1 unless you mean it."
        );
    }
    eprintln!("kingme dxp listening on {local}");
    serve(listener, config)
}
