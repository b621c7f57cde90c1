//! The DXP server's settings: names, engine options, clock, caps and timeouts.

use crate::engine::{Engine, EngineError, EngineOption};
use crate::server::ServerLimits;
use std::time::Duration;

/// Settings of the DXP server.
#[derive(Clone, Debug)]
pub struct DxpConfig {
    /// Our name in GAMEACC.
    pub name: String,
    /// Engine options applied to every connection's engine (`Level`, `Hash`, `Threads`).
    pub options: Vec<EngineOption>,
    /// Time per move when GAMEREQ sets no clock (`None`: the level's default).
    pub movetime: Option<Duration>,
    /// Games (connections) played at once (`max_connections`: one more has
    /// its game request refused with GAMEACC code 3 and is closed), games
    /// from one address, searches at once, and the hash budget every game's
    /// table is reserved from.
    pub limits: ServerLimits,
    /// Close a connection after this long without a message from the peer.
    pub idle_timeout: Duration,
    /// A connection that has not had a game accepted this long after
    /// connecting is closed (it holds a game slot).
    pub handshake_timeout: Duration,
    /// Least time between two messages on one connection.
    pub message_gap: Duration,
    /// Serve clients beyond loopback though DXP authenticates no one
    /// (`--no-auth`); without it, [`run`](super::run) refuses such an address.
    pub no_auth: bool,
}

impl Default for DxpConfig {
    fn default() -> Self {
        DxpConfig {
            name: "kingme".into(),
            options: Vec::new(),
            movetime: None,
            limits: ServerLimits {
                max_connections: DEFAULT_MAX_GAMES,
                ..ServerLimits::default()
            },
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            handshake_timeout: Duration::from_secs(30),
            message_gap: Duration::from_millis(30),
            no_auth: false,
        }
    }
}

/// Default games at once (the limits' `max_connections`).
pub const DEFAULT_MAX_GAMES: usize = 4;

/// Default [`DxpConfig::idle_timeout`].
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(900);

impl DxpConfig {
    /// Checks the engine options by applying them to a fresh engine.
    pub fn validate(&self) -> Result<(), EngineError> {
        let mut e = Engine::new();
        self.options.iter().try_for_each(|o| e.set(o.clone()))
    }
}
