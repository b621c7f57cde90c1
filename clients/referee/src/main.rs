//! `kingme-referee`: engine-vs-engine matches and tournaments (the default),
//! `merge` of shard states, and `load`, a bounded load test of one server.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kingme::protocol::{Token, TOKEN_ENV};
use kingme::Variant;
use kingme_referee::game::{GameRecord, TimeControl};
use kingme_referee::load::{run_load, LoadConfig};
use kingme_referee::merge::merge;
use kingme_referee::runner::{
    run_tournament, write_pdn, MatchReport, RatingSettings, Standings, TournamentConfig,
    TournamentProgress,
};
use kingme_referee::schedule::{Entrant, Schedule, Shard, TournamentKind};
use kingme_referee::stats::{fmt_elo, Sprt};
use kingme_referee::EngineSpec;
use std::io::IsTerminal;
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
    after_help = "Examples:\n  kingme-referee --engine-a 'cmd:kingme' --engine-b tcp:127.0.0.1:7777 \\\n    --option-a Level=max --option-b Level=hard --games 100 --movetime 100 \\\n    --pdn games.pdn --json summary.json\n  kingme-referee --engine max=cmd:kingme --engine hard=cmd:kingme --engine easy=cmd:kingme \\\n    --option max:Level=max --option hard:Level=hard --option easy:Level=easy \\\n    --games 20 --nodes 2000 --resume state.json --pdn games.pdn"
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
    /// Count the state files of a schedule's shards (--shard K/N --resume
    /// STATE) as one run: W/D/L, pairs, Elo table and SPRT on all their games.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// The shards' state files, one per shard.
    #[arg(required = true, value_name = "STATE")]
    states: Vec<PathBuf>,
    /// Write every game of the shards here (PDN, by round).
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// Write the merged summary here (JSON).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// The engine held at 0 in the Elo table (default: the first).
    #[arg(long, value_name = "NAME")]
    anchor: Option<String>,
    /// Virtual draws added to every pairing of the Elo table.
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    elo_prior: f64,
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
    /// An engine by name, instead of --engine-a/--engine-b: NAME=SPEC, the
    /// spec as --engine-a's (repeat: two engines or more). tcp: engines are
    /// sent KINGME_TOKEN's token when it is set.
    #[arg(long, value_name = "NAME=SPEC", conflicts_with_all = ["engine_a", "engine_b", "option_a", "option_b"])]
    engine: Vec<String>,
    /// An option for the --engine named NAME (repeatable), sent as
    /// `setoption name KEY value VALUE`, e.g. easy:Level=easy.
    #[arg(long = "option", value_name = "NAME:KEY=VALUE", requires = "engine")]
    engine_option: Vec<String>,
    /// Nodes a move for the --engine named NAME instead of --nodes' count
    /// (repeatable; with --nodes only), e.g. weak=50.
    #[arg(long, value_name = "NAME=N", requires_all = ["engine", "nodes"])]
    nodes_for: Vec<String>,
    /// Who plays whom among the --engine engines: round-robin (each against
    /// each, the default) or gauntlet (the first against each of the others).
    #[arg(long, value_name = "KIND", requires = "engine")]
    tournament: Option<String>,
    /// The --engine held at 0 in the Elo table (default: the first).
    #[arg(long, value_name = "NAME", requires = "engine")]
    anchor: Option<String>,
    /// Virtual draws added to every pairing of the Elo table (keeps a clean
    /// sweep finite; 0: the plain maximum likelihood).
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    elo_prior: f64,
    /// Games each pairing plays (each opening twice, colours swapped).
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
    /// Keep the run's state in STATE (JSON, rewritten after every game):
    /// when it exists, play only the games it lacks (the same schedule
    /// only), and write the PDN again from it before appending the new games.
    #[arg(long, value_name = "STATE")]
    resume: Option<PathBuf>,
    /// Play part K of N of the schedule: the opening pairs k with
    /// k mod N = K - 1, both colours, every pairing. An SPRT does not stop
    /// a shard; `kingme-referee merge` counts the shards' states together.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
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
    /// Engines given as --engine-a/--engine-b: the match's message and JSON.
    two: bool,
    /// Whether writing the JSON failed once (reported then, not tried again).
    json_failed: bool,
    /// Whether each game's standing goes to standard error as a plain line:
    /// a bar was asked for but standard error is not a terminal (a log).
    plain: bool,
}

impl Bar {
    /// A line above the bar; on standard error when the bar draws nothing
    /// (not a terminal), which would drop it.
    fn say(&self, line: String) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }
}

impl TournamentProgress for Bar {
    fn game(&mut self, r: &GameRecord, standings: &Standings) {
        let mut msg;
        if self.two {
            let report = standings.match_report();
            let wdl = &report.wdl;
            let (elo, _, _) = wdl.elo();
            msg = format!(
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
        } else {
            let table = standings.rating_table();
            msg = match table.rows.first() {
                Some(top) => format!(
                    "first: {} {}",
                    top.name,
                    top.elo.map_or_else(|| "?".to_string(), fmt_elo)
                ),
                None => String::new(),
            };
        }
        if let Some(side) = r.termination.fault() {
            self.say(format!(
                "game {}: {} ({side} at fault)",
                r.round, r.termination
            ));
        }
        let played = standings.games().len() as u64;
        if self.plain {
            let total = self.bar.length().unwrap_or(0);
            eprintln!(
                "{} game {played}/{total} {msg}",
                indicatif::FormattedDuration(self.bar.elapsed())
            );
        }
        self.bar.set_message(msg);
        self.bar.set_position(played);
        if let (Some(p), false) = (&self.json, self.json_failed) {
            let written = if self.two {
                write_json(p, &standings.match_report())
            } else {
                write_json(p, &standings.report())
            };
            if let Err(e) = written {
                self.say(format!("kingme-referee: {e:#}"));
                self.json_failed = true;
            }
        }
    }
}

/// Writes the summary to `path` atomically (a temporary file beside it,
/// renamed over it), so that a reader never sees half a file.
fn write_json(path: &Path, report: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(report)? + "\n";
    kingme::checked_file::write_atomically(path, [text.as_bytes()])?;
    Ok(())
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

/// The --engine engines: names checked, options attached, tokens from the
/// environment for servers.
fn named_engines(a: &MatchArgs) -> Result<Vec<Entrant>> {
    let token: Option<Token> = match std::env::var(TOKEN_ENV) {
        Ok(t) => Some(t.parse().with_context(|| TOKEN_ENV.to_string())?),
        Err(_) => None,
    };
    let mut engines: Vec<Entrant> = Vec::new();
    for e in &a.engine {
        let (name, spec) = e
            .split_once('=')
            .with_context(|| format!("--engine '{e}': expected NAME=SPEC, e.g. easy=cmd:kingme"))?;
        let name = name.trim();
        if name.is_empty() || name.contains(':') || name.chars().any(char::is_whitespace) {
            bail!("--engine '{e}': a name is one word without ':'");
        }
        if engines.iter().any(|x| x.name.as_deref() == Some(name)) {
            bail!("--engine '{e}': the name {name} is given twice");
        }
        let spec: EngineSpec = spec.parse().with_context(|| format!("--engine '{e}'"))?;
        engines.push(Entrant {
            name: Some(name.to_string()),
            spec: spec.with_token(token.clone()),
            options: Vec::new(),
            nodes: None,
        });
    }
    if engines.len() < 2 {
        bail!("--engine: give two engines or more (NAME=SPEC each)");
    }
    for o in &a.engine_option {
        let (name, kv) = o
            .split_once(':')
            .with_context(|| format!("--option '{o}': expected NAME:KEY=VALUE"))?;
        let names: Vec<String> = engines.iter().filter_map(|x| x.name.clone()).collect();
        let Some(engine) = engines.iter_mut().find(|x| x.name.as_deref() == Some(name)) else {
            bail!(
                "--option '{o}': no --engine named {name} (engines: {})",
                names.join(", ")
            );
        };
        engine
            .options
            .push(parse_option(kv).with_context(|| format!("--option '{o}'"))?);
    }
    for o in &a.nodes_for {
        let bad = || format!("--nodes-for '{o}': expected NAME=N with N a positive count");
        let (name, n) = o.split_once('=').with_context(bad)?;
        let n: u64 = n.trim().parse().ok().filter(|&n| n > 0).with_context(bad)?;
        let names: Vec<String> = engines.iter().filter_map(|x| x.name.clone()).collect();
        let Some(engine) = engines
            .iter_mut()
            .find(|x| x.name.as_deref() == Some(name.trim()))
        else {
            bail!(
                "--nodes-for '{o}': no --engine named {name} (engines: {})",
                names.join(", ")
            );
        };
        engine.nodes = Some(n);
    }
    Ok(engines)
}

/// The PDN `Event` of a run of named engines: its kind and its engines.
fn event_of(kind: TournamentKind, names: &[&str]) -> String {
    match (kind, names) {
        (_, [a, b]) => format!("kingme-referee: {a} vs {b}"),
        (TournamentKind::Gauntlet, [first, rest @ ..]) => {
            format!(
                "kingme-referee gauntlet: {first} against {}",
                rest.join(", ")
            )
        }
        _ => format!("kingme-referee {kind}: {}", names.join(", ")),
    }
}

fn run_match_cli(a: MatchArgs) -> Result<()> {
    let spec = |s: &Option<String>, flag: &str| -> Result<EngineSpec> {
        let s = s.as_ref().with_context(|| {
            format!(
                "{flag} is required, or --engine NAME=SPEC twice or more ({})",
                kingme_referee::spec::ACCEPTED
            )
        })?;
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
    if !(0.0..=1000.0).contains(&a.elo_prior) {
        bail!("--elo-prior must be from 0 to 1000 virtual draws");
    }
    let two = a.engine.is_empty();
    let (engines, kind) = if two {
        let entrant = |s: &Option<String>, flag, token: &Option<Token>, options: &[String]| {
            Ok::<_, anyhow::Error>(Entrant {
                name: None,
                spec: spec(s, flag)?.with_token(token.clone()),
                options: options
                    .iter()
                    .map(|s| parse_option(s))
                    .collect::<Result<_>>()?,
                nodes: None,
            })
        };
        (
            vec![
                entrant(&a.engine_a, "--engine-a", &a.token_a, &a.option_a)?,
                entrant(&a.engine_b, "--engine-b", &a.token_b, &a.option_b)?,
            ],
            TournamentKind::RoundRobin,
        )
    } else {
        let kind = match &a.tournament {
            Some(t) => t.parse().context("--tournament")?,
            None => TournamentKind::RoundRobin,
        };
        (named_engines(&a)?, kind)
    };
    let names: Vec<&str> = engines.iter().filter_map(|e| e.name.as_deref()).collect();
    let anchor = match &a.anchor {
        None => 0,
        Some(n) => names.iter().position(|x| x == n).with_context(|| {
            format!(
                "--anchor {n}: no --engine of that name (engines: {})",
                names.join(", ")
            )
        })?,
    };
    let sprt = a.sprt.as_deref().map(parse_sprt).transpose()?;
    if sprt.is_some() && kind.pairings(engines.len()).len() != 1 {
        bail!("--sprt needs exactly two engines (one pairing)");
    }
    let shard: Option<Shard> = a
        .shard
        .as_deref()
        .map(str::parse)
        .transpose()
        .context("--shard")?;
    let egdb = match &a.adjudicate_egdb {
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
    };
    let deck = Schedule::deck(variant, a.seed)?;
    let event = if two {
        "kingme-referee match".to_string()
    } else {
        event_of(kind, &names)
    };
    let schedule = Schedule {
        tournament: kind,
        engines,
        games: a.games,
        variant,
        time_control: tc,
        seed: a.seed,
        max_plies: a.max_plies.max(1),
        adjudicate_egdb: a.adjudicate_egdb.clone(),
        sprt,
        openings: Schedule::names(&deck),
    };
    let cfg = TournamentConfig {
        schedule,
        shard,
        egdb,
        concurrency: a.concurrency.clamp(1, 256),
        margin: Duration::from_millis(a.margin),
        setup_timeout: Duration::from_secs(10),
        pdn: a.pdn.clone(),
        state: a.resume.clone(),
        event,
        ratings: RatingSettings {
            anchor,
            prior_draws: a.elo_prior,
        },
        interrupt: Some(interrupt_on_signal()?),
    };
    let total = cfg.schedule.slots(shard).len();
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut progress = Bar {
        bar,
        json: a.json.clone(),
        two,
        json_failed: false,
        plain: !a.quiet && !std::io::stderr().is_terminal(),
    };
    let standings = run_tournament(&cfg, &mut progress)?;
    progress.bar.finish_and_clear();
    if two {
        let report = standings.match_report();
        print_report(&report);
        if let Some(p) = &a.json {
            write_json(p, &report)?;
        }
    } else {
        let report = standings.report();
        println!("{report}");
        if let Some(p) = &a.json {
            write_json(p, &report)?;
        }
    }
    Ok(())
}

fn run_merge_cli(a: MergeArgs) -> Result<()> {
    if !(0.0..=1000.0).contains(&a.elo_prior) {
        bail!("--elo-prior must be from 0 to 1000 virtual draws");
    }
    let ratings = RatingSettings {
        anchor: 0,
        prior_draws: a.elo_prior,
    };
    let mut merged = merge(&a.states, ratings)?;
    if let Some(n) = &a.anchor {
        let labels = merged.standings.labels();
        let anchor = labels.iter().position(|x| x == n).with_context(|| {
            format!(
                "--anchor {n}: no engine of that name (engines: {})",
                labels.join(", ")
            )
        })?;
        merged
            .standings
            .set_ratings(RatingSettings { anchor, ..ratings });
    }
    let report = merged.standings.report();
    println!("{report}");
    if let Some(p) = &a.pdn {
        write_pdn(p, merged.standings.games(), &merged.event)
            .with_context(|| format!("writing {}", p.display()))?;
    }
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
        Some(Command::Merge(a)) => run_merge_cli(a),
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
