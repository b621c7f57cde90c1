//! The engine on stdio, or a TCP server with `--listen` (no subcommand).

use clap::Args;
use kingme::protocol::TOKEN_ENV;

#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    /// Serve the protocol over TCP on this address (e.g. 127.0.0.1:7777) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Clients must send `auth TOKEN` before anything else (one word of visible
    /// characters). Prefer KINGME_TOKEN or --token-file: a command line is
    /// visible to every user of the machine.
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token: Option<kingme::protocol::Token>,
    /// Read the token from this file (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<std::path::PathBuf>,
    /// TCP: serve an address other machines can reach with no token: anyone
    /// who can connect may use the engine (without a token or this flag,
    /// kingme refuses to listen beyond loopback).
    #[arg(long)]
    no_auth: bool,
    /// TCP: connections served at once (one more gets an error line).
    #[arg(long, default_value_t = kingme::server::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    #[command(flatten)]
    limits: kingme::server::ServerLimitArgs,
    /// TCP: close a connection after this many seconds without input.
    #[arg(long, default_value_t = kingme::server::tcp::DEFAULT_IDLE_TIMEOUT.as_secs())]
    idle_timeout: u64,
    /// TCP: stop any one search (go infinite and analyze included) after this
    /// many seconds; 0 for no limit.
    #[arg(long, value_name = "SECONDS", default_value_t = kingme::server::tcp::DEFAULT_MAX_SEARCH_TIME.as_secs())]
    max_search_time: u64,
    /// TCP: largest Hash (MiB) a client may set.
    #[arg(long, default_value_t = kingme::server::tcp::DEFAULT_MAX_HASH_MIB)]
    max_hash: usize,
    #[command(flatten)]
    files: kingme::server::OperatorFiles,
    /// Longest accepted line in bytes.
    #[arg(long, default_value_t = kingme::server::MAX_LINE)]
    max_line: usize,
    /// MiB of decoded endgame-database blocks kept in memory, one cache for
    /// the whole process (the option EGDBCache; network clients may not set it).
    #[arg(long, value_name = "MIB", default_value_t = kingme::engine::DEFAULT_EGDB_CACHE_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=kingme::engine::MAX_EGDB_CACHE_MIB as u64))]
    egdb_cache: u64,
}

impl ServeArgs {
    /// The token from --token, KINGME_TOKEN or --token-file.
    fn token(&self) -> Result<Option<kingme::protocol::Token>, String> {
        let Some(path) = &self.token_file else {
            return Ok(self.token.clone());
        };
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let line = text.lines().next().unwrap_or("").trim();
        line.parse()
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

pub(crate) fn run_server(a: &ServeArgs) -> Result<(), String> {
    use kingme::server;
    use std::time::Duration;
    let token = a.token()?;
    let defaults = a.files.defaults()?;
    kingme::egdb::cache::set_capacity((a.egdb_cache as usize) << 20);
    let Some(addr) = &a.listen else {
        server::init_logging("warn");
        let config = kingme::protocol::SessionConfig {
            defaults,
            ..Default::default()
        };
        // a local user: no caps, and authentication only when asked for
        let policy: Box<dyn kingme::frontend::Policy> = match token {
            None => Box::new(kingme::frontend::Local),
            Some(t) => Box::new(
                server::ServerPolicy {
                    token: Some(t),
                    ..Default::default()
                }
                .session(),
            ),
        };
        return server::stdio::run(config, policy, a.max_line).map_err(|e| e.to_string());
    };
    server::init_logging("info");
    let mut config = server::ServerConfig {
        limits: a.limits.limits(a.max_connections),
        idle_timeout: Duration::from_secs(a.idle_timeout),
        max_line: a.max_line,
        ..Default::default()
    };
    config.token = token;
    config.no_auth = a.no_auth;

    config.session.max_hash_mib = a.max_hash.min(config.limits.hash_budget_mib).max(1);
    config.session.default_hash_mib =
        Some(server::tcp::DEFAULT_SESSION_HASH_MIB.min(config.session.max_hash_mib));
    config.max_search_time =
        (a.max_search_time > 0).then(|| Duration::from_secs(a.max_search_time));
    a.files.apply_to(&mut config.session)?;
    let open = config.token.is_none();
    server::run_tcp(addr, config, |local| {
        if !local.ip().is_loopback() && open {
            eprintln!(
                "WARNING: kingme is listening on {local}, reachable from other machines, \
                 WITHOUT a token (--no-auth): anyone who can connect can use this \
                 machine's CPU. Use --token SECRET, or bind 127.0.0.1."
            );
        }
        eprintln!("kingme listening on {local}");
    })
    .map_err(|e| e.to_string())
}
