//! `kingme-referee`: engine-vs-engine matches (the default) and `load`, a bounded
//! load test of one server.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kingme::protocol::{Token, TOKEN_ENV};
use kingme::Variant;
use kingme_referee::game::{GameRecord, TimeControl};
use kingme_referee::load::{run_load, LoadConfig};
use kingme_referee::runner::{run_match, MatchConfig, MatchReport, Progress};
use kingme_referee::stats::{fmt_elo, Sprt};
use kingme_referee::EngineSpec;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "kingme-referee",
    version,
    about = "Referee engine-vs-engine checkers matches over the kingme protocol",
    args_conflicts_with_subcommands = true,
    after_help = "Example:\n  kingme-referee --engine-a 'cmd:kingme' --engine-b tcp:127.0.0.1:7777 \\\n    --option-a Level=max --option-b Level=hard --games 100 --movetime 100 \\\n    --pdn games.pdn --json summary.json"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    play: MatchArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Hammer one server with concurrent sessions (loopback only) and print latencies.
    Load(LoadArgs),
}

#[derive(Args, Debug)]
struct MatchArgs {
    /// Engine A: tcp:HOST:PORT or cmd:"PROGRAM ARGS". Results are from A's view.
    #[arg(long, value_name = "SPEC")]
    engine_a: Option<String>,
    /// Engine B: tcp:HOST:PORT or cmd:"PROGRAM ARGS".
    #[arg(long, value_name = "SPEC")]
    engine_b: Option<String>,
    /// Token for engine A when it is a server started with --token (sent as `auth`).
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token_a: Option<Token>,
    /// Token for engine B when it is a server started with --token.
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token_b: Option<Token>,
    /// An option for engine A (repeatable), e.g. Level=easy.
    #[arg(long, value_name = "NAME=VALUE")]
    option_a: Vec<String>,
    /// An option for engine B (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    option_b: Vec<String>,
    /// Games to play (each opening twice, colours swapped).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Time per move in milliseconds (`go movetime`).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Game clock instead: SECONDS+INCREMENT per side, e.g. 10+0.1.
    #[arg(long, value_name = "SECONDS+INC", conflicts_with = "movetime")]
    tc: Option<String>,
    /// Nodes per move instead (`go nodes`): the same searches whatever the
    /// machine's speed, to compare evaluations without their speed.
    #[arg(long, value_name = "N", conflicts_with_all = ["movetime", "tc"])]
    nodes: Option<u64>,
    /// english (ACF 3-move ballots) or mini (all 0-2 ply openings).
    #[arg(long, default_value = "english")]
    variant: String,
    /// Games played at once (each with its own connections).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Stop early by SPRT: ELO0,ELO1 (alpha = beta = 0.05).
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// A game reaching this many plies is adjudicated a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// End a game as soon as it reaches a position the endgame databases in
    /// DIR know (every slice of its piece count present), with their result.
    #[arg(long, value_name = "DIR")]
    adjudicate_egdb: Option<std::path::PathBuf>,
    /// Seed for the opening order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Grace in ms beyond the allowed time before an engine loses on time.
    #[arg(long, default_value_t = 1000)]
    margin: u64,
    /// Write every game here (PDN).
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// Write the summary here (JSON).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct LoadArgs {
    /// The server, HOST:PORT on loopback.
    #[arg(long, default_value = "127.0.0.1:7777")]
    addr: String,
    /// Token for a server started with --token (sent as `auth` on every connection).
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token: Option<Token>,
    /// Concurrent sessions.
    #[arg(long, default_value_t = 20)]
    sessions: usize,
    /// Seconds to run.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Most operations per session.
    #[arg(long, default_value_t = 1000)]
    max_ops: usize,
    /// movetime of the timed searches, ms.
    #[arg(long, default_value_t = 20)]
    movetime: u64,
    /// Time allowed beyond movetime (or after stop) before an answer counts as missing, ms.
    #[arg(long, default_value_t = 5000)]
    grace: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also send what a hostile client would (server files and devices as
    /// options, many spellings of one directory, big tables, long perfts,
    /// one-sided clocks, random bytes), and time a well-behaved client.
    #[arg(long)]
    hostile: bool,
    /// The server's process id, to report its memory (Linux).
    #[arg(long, value_name = "PID")]
    server_pid: Option<u32>,
    /// Write the report here (JSON).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

fn parse_option(s: &str) -> Result<(String, String)> {
    let (k, v) = s
        .split_once('=')
        .with_context(|| format!("option '{s}': expected NAME=VALUE"))?;
    if k.trim().is_empty() {
        bail!("option '{s}': empty name");
    }
    Ok((k.trim().to_string(), v.trim().to_string()))
}

fn parse_tc(s: &str) -> Result<TimeControl> {
    let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
    let secs = |t: &str| -> Result<u64> {
        let v: f64 = t
            .parse()
            .with_context(|| format!("--tc {s}: expected SECONDS+INC, e.g. 10+0.1"))?;
        if !(0.0..=86_400.0).contains(&v) {
            bail!("--tc {s}: times must be from 0 to 86400 seconds");
        }
        Ok((v * 1000.0).round() as u64)
    };
    let (base_ms, inc_ms) = (secs(base)?, secs(inc)?);
    if base_ms == 0 && inc_ms == 0 {
        bail!("--tc {s}: no time at all");
    }
    Ok(TimeControl::Clock { base_ms, inc_ms })
}

fn parse_sprt(s: &str) -> Result<Sprt> {
    let (a, b) = s
        .split_once(',')
        .with_context(|| format!("--sprt {s}: expected ELO0,ELO1"))?;
    let (e0, e1): (f64, f64) = (
        a.trim().parse().context("--sprt: ELO0")?,
        b.trim().parse().context("--sprt: ELO1")?,
    );
    if e0 >= e1 {
        bail!("--sprt {s}: ELO0 must be below ELO1");
    }
    Ok(Sprt::new(e0, e1))
}

/// The progress bar, and the JSON summary rewritten after every game.
struct Bar {
    bar: ProgressBar,
    json: Option<PathBuf>,
    /// Whether writing the JSON failed once (reported then, not tried again).
    json_failed: bool,
}

impl Progress for Bar {
    fn game(&mut self, r: &GameRecord, report: &MatchReport) {
        let wdl = &report.wdl;
        let (elo, _, _) = wdl.elo();
        let mut msg = format!(
            "A +{} ={} -{}  {:.1}%  Elo {}",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            100.0 * wdl.score(),
            fmt_elo(elo)
        );
        if let Some(l) = report.llr {
            msg.push_str(&format!("  LLR {l:.2}"));
        }
        if let Some(side) = r.termination.fault() {
            self.bar.println(format!(
                "game {}: {} ({side} at fault)",
                r.round, r.termination
            ));
        }
        self.bar.set_message(msg);
        self.bar.inc(1);
        if let (Some(p), false) = (&self.json, self.json_failed) {
            if let Err(e) = write_json(p, report) {
                self.bar.println(format!("kingme-referee: {e:#}"));
                self.json_failed = true;
            }
        }
    }
}

/// Writes the summary to `path` through a temporary file beside it, so that a
/// reader never sees half a file.
fn write_json(path: &Path, report: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(report)? + "\n";
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

/// Ctrl-C (or SIGTERM) once: start no more games, finish those under way and
/// report; twice: quit at once (the PDN and JSON hold every finished game).
fn interrupt_on_signal() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if seen.swap(true, Ordering::Relaxed) {
            eprintln!("kingme-referee: stopped");
            std::process::exit(130);
        }
        eprintln!("kingme-referee: finishing the games under way (Ctrl-C again to quit now)");
    })
    .context("installing the Ctrl-C handler")?;
    Ok(flag)
}

fn print_report(r: &MatchReport) {
    println!("A: {}", r.engine_a);
    println!("B: {}", r.engine_b);
    println!(
        "{} games ({}, {}): A +{} ={} -{}  score {:.1}%",
        r.games,
        r.variant,
        r.time_control,
        r.wdl.wins,
        r.wdl.draws,
        r.wdl.losses,
        100.0 * r.score
    );
    let (elo, lo, hi) = r.wdl.elo();
    println!(
        "Elo difference (A - B): {} [{}, {}] (95%)  LOS {:.1}%",
        fmt_elo(elo),
        fmt_elo(lo),
        fmt_elo(hi),
        100.0 * r.los
    );
    if r.pentanomial.pairs() > 0 {
        let (elo, lo, hi) = r.pentanomial.elo();
        println!(
            "pairs by A's points 0/0.5/1/1.5/2: {:?}  Elo {} [{}, {}] (95%, per pair)",
            r.pentanomial.0,
            fmt_elo(elo),
            fmt_elo(lo),
            fmt_elo(hi)
        );
    }
    if r.interrupted {
        println!(
            "interrupted after {} of {} games",
            r.games, r.games_requested
        );
    }
    if let (Some(t), Some(llr), Some(d)) = (r.sprt, r.llr, r.sprt_decision) {
        let (lo, hi) = t.bounds();
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={} (per pair): LLR {llr:.2} [{lo:.2}, {hi:.2}] -> {d:?}{}",
            t.elo0,
            t.elo1,
            t.alpha,
            t.beta,
            if r.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        );
    }
    let ends: Vec<String> = r
        .terminations
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    println!("endings: {}", ends.join(", "));
    if !r.faults.is_empty() {
        let f: Vec<String> = r.faults.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("faults: {}", f.join(", "));
    }
    println!("time: {:.1} s", r.seconds);
}

fn run_match_cli(a: MatchArgs) -> Result<()> {
    let spec = |s: Option<String>, flag: &str| -> Result<EngineSpec> {
        let s =
            s.with_context(|| format!("{flag} is required ({})", kingme_referee::spec::ACCEPTED))?;
        s.parse().with_context(|| flag.to_string())
    };
    let variant: Variant = a.variant.parse()?;
    let tc = match (&a.tc, a.movetime, a.nodes) {
        (Some(t), _, _) => parse_tc(t)?,
        (None, Some(ms), _) if ms > 0 => TimeControl::MoveTime(ms),
        (None, Some(_), _) => bail!("--movetime must be positive"),
        (None, None, Some(n)) if n > 0 => TimeControl::Nodes(n),
        (None, None, Some(_)) => bail!("--nodes must be positive"),
        (None, None, None) => bail!("give --movetime MS, --tc SECONDS+INC or --nodes N"),
    };
    if a.games == 0 {
        bail!("--games must be positive");
    }
    let cfg = MatchConfig {
        engine_a: spec(a.engine_a, "--engine-a")?.with_token(a.token_a),
        engine_b: spec(a.engine_b, "--engine-b")?.with_token(a.token_b),
        options_a: a
            .option_a
            .iter()
            .map(|s| parse_option(s))
            .collect::<Result<_>>()?,
        options_b: a
            .option_b
            .iter()
            .map(|s| parse_option(s))
            .collect::<Result<_>>()?,
        games: a.games,
        variant,
        tc,
        concurrency: a.concurrency.clamp(1, 256),
        sprt: a.sprt.as_deref().map(parse_sprt).transpose()?,
        max_plies: a.max_plies.max(1),
        egdb: match &a.adjudicate_egdb {
            None => None,
            Some(dir) => {
                let mut tb = kingme::egdb::Tablebase::new();
                tb.add_directory(dir)
                    .with_context(|| "--adjudicate-egdb".to_string())?;
                if tb.max_pieces() == 0 {
                    bail!(
                        "--adjudicate-egdb {}: no complete endgame database there",
                        dir.display()
                    );
                }
                Some(std::sync::Arc::new(tb))
            }
        },
        seed: a.seed,
        margin: Duration::from_millis(a.margin),
        setup_timeout: Duration::from_secs(10),
        pdn: a.pdn.clone(),
        event: "kingme-referee match".into(),
        interrupt: Some(interrupt_on_signal()?),
    };
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(cfg.games as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut progress = Bar {
        bar,
        json: a.json.clone(),
        json_failed: false,
    };
    let report = run_match(&cfg, &mut progress)?;
    progress.bar.finish_and_clear();
    print_report(&report);
    if let Some(p) = &a.json {
        write_json(p, &report)?;
    }
    Ok(())
}

fn run_load_cli(a: LoadArgs) -> Result<()> {
    if !(0.0..=600.0).contains(&a.seconds) {
        bail!("--seconds must be from 0 to 600");
    }
    let cfg = LoadConfig {
        addr: a.addr,
        token: a.token,
        sessions: a.sessions,
        duration: Duration::from_secs_f64(a.seconds),
        max_ops: a.max_ops,
        movetime_ms: a.movetime,
        grace: Duration::from_millis(a.grace),
        seed: a.seed,
        hostile: a.hostile,
        server_pid: a.server_pid,
    };
    let r = run_load(&cfg)?;
    println!(
        "{} sessions, {:.1} s: {} connects ({} reconnects), {} searches, {} stops, {} bad lines",
        r.sessions, r.seconds, r.connects, r.reconnects, r.searches, r.stops, r.bad_lines
    );
    println!(
        "go->bestmove overrun ms: p50 {:.1} p99 {:.1} max {:.1} (n={})",
        r.go_overrun_ms.p50, r.go_overrun_ms.p99, r.go_overrun_ms.max, r.go_overrun_ms.count
    );
    println!(
        "stop->bestmove ms: p50 {:.1} p99 {:.1} max {:.1} (n={})",
        r.stop_ms.p50, r.stop_ms.p99, r.stop_ms.max, r.stop_ms.count
    );
    if a.hostile {
        println!(
            "hostile lines answered: {}; well-behaved isready->readyok ms: p50 {:.1} p99 {:.1} max {:.1} (n={})",
            r.hostile_lines, r.probe_ms.p50, r.probe_ms.p99, r.probe_ms.max, r.probe_ms.count
        );
    }
    if let (Some(a), Some(b)) = (r.server_rss_start_mib, r.server_rss_peak_mib) {
        println!("server memory: {a:.1} MiB at the start, {b:.1} MiB at the peak");
    }
    if r.errors.is_empty() {
        println!("errors: 0");
    } else {
        let e: Vec<String> = r.errors.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        println!("errors: {} ({})", r.error_count(), e.join(", "));
    }
    if let Some(p) = &a.json {
        write_json(p, &r)?;
    }
    if r.error_count() > 0 {
        bail!("{} errors", r.error_count());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Load(a)) => run_load_cli(a),
        None => run_match_cli(cli.play),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kingme-referee: {e:#}");
            ExitCode::FAILURE
        }
    }
}
