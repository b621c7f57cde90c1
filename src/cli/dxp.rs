//! `kingme dxp`: DXP games over TCP as the follower.

use clap::Args;

#[derive(Args, Debug)]
pub(crate) struct DxpArgs {
    /// Address to listen on (loopback by default: DXP has no authentication).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:27531")]
    listen: String,
    /// Serve an address other machines can reach: anyone who can connect
    /// may play (without it, kingme dxp refuses to listen beyond loopback).
    #[arg(long)]
    no_auth: bool,
    /// Playing strength: easy, medium, hard or max.
    #[arg(long, default_value = "max")]
    level: String,
    /// Transposition table per game, in MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Search threads per game.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Milliseconds per move when the game request sets no clock
    /// [default: the level's think time].
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Games played at once; more requests are refused.
    #[arg(long, default_value_t = kingme::dxp::DEFAULT_MAX_GAMES)]
    max_games: usize,
    #[command(flatten)]
    limits: kingme::server::ServerLimitArgs,
    /// Close a connection after this many seconds without a message.
    #[arg(long, default_value_t = kingme::dxp::DEFAULT_IDLE_TIMEOUT.as_secs())]
    idle_timeout: u64,
}

pub(crate) fn run_dxp(a: &DxpArgs) -> Result<(), String> {
    use kingme::protocol::parse_option;
    use std::time::Duration;
    let options = [
        ("Level", a.level.clone()),
        ("Hash", a.hash.to_string()),
        ("Threads", a.threads.to_string()),
    ]
    .into_iter()
    .map(|(n, v)| parse_option(n, &v))
    .collect::<Result<Vec<_>, _>>()
    .map_err(|e| e.to_string())?;
    let config = kingme::dxp::DxpConfig {
        options,
        movetime: a.movetime.map(Duration::from_millis),
        limits: a.limits.limits(a.max_games),
        idle_timeout: Duration::from_secs(a.idle_timeout),
        no_auth: a.no_auth,
        ..Default::default()
    };
    config.validate().map_err(|e| e.to_string())?;
    kingme::server::init_logging("info");
    kingme::dxp::run(&a.listen, config, |local| {
        if !local.ip().is_loopback() {
            eprintln!(
                "WARNING: kingme dxp is listening on {local}, reachable from other machines; \
                 DXP has no authentication. Bind 127.0.0.1 unless you mean it."
            );
        }
        eprintln!("kingme dxp listening on {local}");
    })
    .map_err(|e| e.to_string())
}
