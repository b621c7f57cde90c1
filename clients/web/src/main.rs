//! `kingme-web`: serves the browser board and bridges each tab to a kingme
//! session (in-process, or a kingme TCP server with `--engine tcp:HOST:PORT`).

use anyhow::Context;
use clap::Parser;
use kingme::protocol::TOKEN_ENV;
use kingme_web::{EngineSpec, Key, WebConfig};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// A browser board for kingme: open the printed URL.
#[derive(Parser, Debug)]
#[command(name = "kingme-web", version, about)]
struct Args {
    /// Address to serve the page on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Where sessions run: `inprocess`, or `tcp:HOST:PORT` for a kingme server
    /// (`kingme --listen HOST:PORT`).
    #[arg(long, default_value = "inprocess")]
    engine: EngineSpec,
    /// Token for a kingme server started with --token (sent as `auth` for each tab).
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    engine_token: Option<kingme::protocol::Token>,
    /// Browser tabs served at once.
    #[arg(long, default_value_t = kingme::server::DEFAULT_MAX_CONNECTIONS)]
    max_sessions: usize,
    /// In-process searches running at once (default: the number of cores).
    #[arg(long)]
    max_searches: Option<usize>,
    /// Close an in-process tab's session after this many seconds without a message
    /// from the tab (never during a search).
    #[arg(long, default_value_t = kingme_web::DEFAULT_IDLE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// Also serve the board under this host name or address (besides localhost,
    /// 127.x.x.x and [::1]); repeatable. Requests naming any other host are refused.
    #[arg(long, value_name = "NAME", value_parser = kingme_web::host_name)]
    allow_host: Vec<String>,
    /// Require the per-launch key in the printed URL even on loopback (it is
    /// always required when listening beyond loopback).
    #[arg(long)]
    require_key: bool,
    #[command(flatten)]
    files: kingme::server::OperatorFiles,
    /// Stop any one in-process search (analysis included) after this many
    /// seconds; 0 for no limit.
    #[arg(long, value_name = "SECONDS", default_value_t = kingme::server::tcp::DEFAULT_MAX_SEARCH_TIME.as_secs())]
    max_search_time: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if std::env::var_os(kingme::engine::MINI_TABLE_ENV).is_some_and(|v| v == "off") {
        kingme::engine::allow_mini_table(false);
    }
    kingme::server::init_logging("warn");
    let mut config = WebConfig {
        engine: args.engine.with_token(args.engine_token),
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        max_sessions: args.max_sessions.max(1),
        allowed_hosts: args.allow_host,
        ..WebConfig::default()
    };
    if let Some(n) = args.max_searches {
        config.max_searches = n.max(1);
    }
    args.files
        .apply_to(&mut config.session)
        .map_err(anyhow::Error::msg)?;
    config.policy.max_search_time =
        (args.max_search_time > 0).then(|| std::time::Duration::from_secs(args.max_search_time));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("kingme-web")
        .build()
        .context("starting the runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("binding {}", args.listen))?;
        let local = listener.local_addr()?;
        if !local.ip().is_loopback() {
            eprintln!(
                "WARNING: kingme-web is listening on {local}, reachable from other machines: \
                 anyone with the URL below (it holds the key) can use this machine's CPU. \
                 Bind 127.0.0.1 unless you mean it."
            );
            if local.ip().is_unspecified() && config.allowed_hosts.is_empty() {
                eprintln!(
                    "kingme-web: other machines must name this one by a host given \
                     with --allow-host NAME"
                );
            }
        }
        let named = config.allowed_hosts.clone();
        if !local.ip().is_loopback() || args.require_key {
            config.key = Some(Key::generate().context("generating the key")?);
        }
        // An address can't be rebound like a name: the one bound is served as itself.
        let shown = match local.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), local.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), local.port())
            }
            ip => {
                if !ip.is_loopback() {
                    config.allowed_hosts.push(ip.to_string());
                }
                local
            }
        };
        let query = config
            .key
            .as_ref()
            .map(|k| format!("?key={}", k.as_str()))
            .unwrap_or_default();
        let engine = match &config.engine {
            EngineSpec::InProcess => "in-process engine".to_string(),
            spec => format!("engine at {spec}"),
        };
        println!("kingme-web: open http://{shown}/{query} in a browser ({engine}; Ctrl-C to stop)");
        for name in named.iter().filter(|n| **n != shown.ip().to_string()) {
            let name = if name.contains(':') {
                format!("[{name}]")
            } else {
                name.clone()
            };
            println!("kingme-web: or http://{name}:{}/{query}", local.port());
        }
        kingme_web::serve(listener, config, kingme::server::shutdown_signal())
            .await
            .context("serving")
    })
}
