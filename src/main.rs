//! The `kingme` command line: the engine on stdio (default), and tools.

use clap::{Args, Parser, Subcommand};
use kingme::board::{Position, Variant};
use kingme::perft::{self, Counting};
use std::process::ExitCode;
use std::time::Instant;

mod egdb_cli;

#[derive(Parser, Debug)]
#[command(
    name = "kingme",
    version,
    about = "A checkers engine: English draughts (8x8) and mini-checkers (6x6)",
    after_help = "With no command, kingme speaks the kingme protocol on stdin/stdout \
(protocol/PROTOCOL.md; type `help`).\n\n\
Levels (setoption name Level value ...):\n  \
easy    2 plies with random noise: a beginner can win\n  \
medium  5 plies with a little noise\n  \
hard    up to 12 plies, no noise\n  \
max     everything (default); mini-checkers is played perfectly from the solved game\n\n\
With no limit on `go`, a move takes 0.2 s, 0.3 s, 0.5 s or 1 s by level."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

/// With no subcommand: the engine on stdio, or a TCP server with `--listen`.
#[derive(Args, Debug)]
struct ServeArgs {
    /// Serve the protocol over TCP on this address (e.g. 127.0.0.1:7777) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Clients must send `auth TOKEN` before anything else (one word of visible
    /// characters). Prefer KINGME_TOKEN or --token-file: a command line is
    /// visible to every user of the machine.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "KINGME_TOKEN",
        hide_env_values = true
    )]
    token: Option<kingme::protocol::Token>,
    /// Read the token from this file (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<std::path::PathBuf>,
    /// TCP: connections served at once (one more gets an error line).
    #[arg(long, default_value_t = kingme::server::tcp::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// TCP: connections served at once from one client address.
    #[arg(long, default_value_t = 32)]
    max_per_address: usize,
    /// TCP: searches running at once across all clients [default: cores - 1, at least 1].
    #[arg(long)]
    max_searches: Option<usize>,
    /// TCP: close a connection after this many seconds without input.
    #[arg(long, default_value_t = 600)]
    idle_timeout: u64,
    /// TCP: stop any one search (go infinite and analyze included) after this
    /// many seconds; 0 for no limit.
    #[arg(long, value_name = "SECONDS", default_value_t = kingme::server::tcp::DEFAULT_MAX_SEARCH_TIME.as_secs())]
    max_search_time: u64,
    /// TCP: largest Hash (MiB) a client may set.
    #[arg(long, default_value_t = 64)]
    max_hash: usize,
    /// TCP: the sum of all sessions' Hash, in MiB [default: 1024 or a quarter
    /// of physical memory, whichever is less].
    #[arg(long, value_name = "MIB")]
    hash_budget: Option<usize>,
    #[command(flatten)]
    files: kingme::server::OperatorFiles,
    /// Longest accepted line in bytes.
    #[arg(long, default_value_t = kingme::server::MAX_LINE)]
    max_line: usize,
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

fn run_server(a: &ServeArgs) -> Result<(), String> {
    use kingme::server;
    use std::time::Duration;
    let token = a.token()?;
    let defaults = a.files.defaults()?;
    let Some(addr) = &a.listen else {
        server::init_logging("warn");
        let config = kingme::protocol::SessionConfig {
            token,
            defaults,
            ..Default::default()
        };
        return server::stdio::run(config, a.max_line).map_err(|e| e.to_string());
    };
    server::init_logging("info");
    let mut config = server::ServerConfig {
        max_connections: a.max_connections.max(1),
        max_per_address: a.max_per_address.max(1),
        idle_timeout: Duration::from_secs(a.idle_timeout),
        max_line: a.max_line,
        ..Default::default()
    };
    if let Some(n) = a.max_searches {
        config.max_searches = n;
    }
    if let Some(b) = a.hash_budget {
        config.hash_budget_mib = b.max(1);
    }
    config.session.token = token;

    config.session.max_hash_mib = a.max_hash.min(config.hash_budget_mib).max(1);
    config.session.default_hash_mib = Some(16.min(config.session.max_hash_mib));
    config.session.max_search_time =
        (a.max_search_time > 0).then(|| Duration::from_secs(a.max_search_time));
    a.files.apply_to(&mut config.session)?;
    let open = config.session.token.is_none();
    server::run_tcp(addr, config, |local| {
        if !local.ip().is_loopback() && open {
            eprintln!(
                "WARNING: kingme is listening on {local}, reachable from other machines, \
                 WITHOUT a token: anyone who can connect can use this machine's CPU. \
                 Use --token SECRET, or bind 127.0.0.1."
            );
        }
        eprintln!("kingme listening on {local}");
    })
    .map_err(|e| format!("{addr}: {e}"))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count leaf nodes of the move tree, one line per depth from 1 to DEPTH.
    Perft(PerftArgs),
    /// Count leaf nodes under each root move at DEPTH.
    Divide(PerftArgs),
    /// Search fixed positions to fixed depths (one thread, fresh tables) and print
    /// the node signature and speed.
    Bench {
        /// Add this to every bench depth (negative for a quicker run).
        #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
        depth_delta: i32,
        /// Probe the endgame databases in this directory (the signature is
        /// taken without).
        #[arg(long, value_name = "DIR")]
        egdb: Option<String>,
    },
    /// Solve a mini-checkers position exactly: its value and each move's value.
    Solve(SolveArgs),
    /// Speak Scan's Hub protocol on stdin/stdout (for pydraughts' HubEngine and
    /// Hub GUIs). Nothing is written to stderr.
    Hub,
    /// Play DXP (DamExchange) games over TCP as the follower, e.g. against
    /// pydraughts' DXPEngine (English, squares 1-32).
    Dxp(DxpArgs),
    /// English endgame databases: build, probe, verify, stats, plan.
    #[command(subcommand)]
    Egdb(egdb_cli::EgdbCommand),
    /// Play self-play games of English and write their positions as training data
    /// for `kingme train` (format: src/datagen/record.rs).
    Datagen(DatagenArgs),
    /// Fit the learned evaluation's weights to `kingme datagen` data and write a
    /// weights file (EvalFile); see src/eval/EVAL.md.
    Train(TrainArgs),
}

/// `builtin`, `hand` or a weights file, as the EvalFile option takes.
fn evaluator_of(text: &str) -> Result<kingme::eval::Evaluator, String> {
    use kingme::eval::{EnglishWeights, Evaluator, LearnedWeights};
    Ok(match text {
        "builtin" => Evaluator::default(),
        "hand" => Evaluator::Hand(EnglishWeights::default()),
        path => Evaluator::Learned(std::sync::Arc::new(
            LearnedWeights::load(std::path::Path::new(path)).map_err(|e| e.to_string())?,
        )),
    })
}

fn progress_bar(len: u64, quiet: bool, template: &str) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[derive(Args, Debug)]
struct DatagenArgs {
    /// The data file to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: std::path::PathBuf,
    /// Stop after this many positions.
    #[arg(long, default_value_t = 100_000)]
    positions: u64,
    /// Search nodes per move.
    #[arg(long, default_value_t = 4000)]
    nodes: u64,
    /// Threads playing games [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of openings, random plies and noise.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies played after each ballot: from 0 up to this many.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Leaf noise amplitude in centi-men.
    #[arg(long, default_value_t = 8)]
    noise: i32,
    /// The evaluation that plays: builtin, hand, or a weights file.
    #[arg(long, default_value = "builtin", value_name = "EVAL")]
    eval: String,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn run_datagen(a: &DatagenArgs) -> Result<(), String> {
    use kingme::datagen::{self, DatagenConfig};
    if a.out.exists() && !a.force {
        return Err(format!(
            "{} exists (use --force to overwrite it)",
            a.out.display()
        ));
    }
    let cfg = DatagenConfig {
        positions: a.positions,
        nodes: a.nodes.max(1),
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
        seed: a.seed,
        random_plies: a.random_plies,
        noise: a.noise.clamp(0, 1000),
        eval: evaluator_of(&a.eval)?,
        ..Default::default()
    };
    let partial = a.out.with_extension("partial");
    let file =
        std::fs::File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let bar = progress_bar(
        cfg.positions,
        a.quiet,
        "{elapsed_precise} [{bar:30}] {pos}/{len} positions, {msg} (eta {eta})",
    );
    let stop = std::sync::atomic::AtomicBool::new(false);
    let t = Instant::now();
    let summary = datagen::run(&cfg, &mut out, &stop, |s| {
        bar.set_position(s.positions);
        bar.set_message(format!(
            "{} games (+{} ={} -{})",
            s.games, s.results[0], s.results[1], s.results[2]
        ));
    })
    .map_err(|e| format!("{}: {e}", partial.display()))?;
    bar.finish_and_clear();
    drop(out);
    std::fs::rename(&partial, &a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    println!(
        "datagen {} positions {} games {} (black +{} draws ={} white +{}) eval {} nodes {} seed {} time {:.1}s",
        a.out.display(),
        summary.positions,
        summary.games,
        summary.results[0],
        summary.results[1],
        summary.results[2],
        cfg.eval.describe(),
        cfg.nodes,
        cfg.seed,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Args, Debug)]
struct TrainArgs {
    /// Data files written by `kingme datagen`.
    #[arg(long = "data", value_name = "FILE", required = true, num_args = 1..)]
    data: Vec<std::path::PathBuf>,
    /// The weights file to write.
    #[arg(long, value_name = "FILE")]
    out: std::path::PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 30)]
    epochs: u32,
    /// Positions per mini-batch.
    #[arg(long, default_value_t = 4096)]
    batch: usize,
    /// Adam step size at the start (centi-men); it falls linearly to a tenth.
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// Share of the game result in the target (the rest is the search score), 0 to 1.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Centi-men per unit of the logistic [default: fitted to the data].
    #[arg(long)]
    scale: Option<f64>,
    /// Starting weights: material (a man 100, a king 150), builtin, or a weights file.
    #[arg(long, default_value = "material", value_name = "WEIGHTS")]
    init: String,
    /// Generation number recorded in the weights file.
    #[arg(long, default_value_t = 1)]
    generation: u32,
    /// Seed of the shuffling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No per-epoch lines.
    #[arg(long)]
    quiet: bool,
}

fn run_train(a: &TrainArgs) -> Result<(), String> {
    use kingme::eval::LearnedWeights;
    use kingme::train::{self, TrainConfig};
    if !(0.0..=1.0).contains(&a.lambda) {
        return Err(format!("--lambda {} is not between 0 and 1", a.lambda));
    }
    if a.scale.is_some_and(|k| !(k.is_finite() && k > 0.0)) || !(a.lr.is_finite() && a.lr > 0.0) {
        return Err("--scale and --lr must be positive numbers".into());
    }
    let init = match a.init.as_str() {
        "material" => train::material_start(),
        "builtin" => (*LearnedWeights::builtin()).clone(),
        path => LearnedWeights::load(std::path::Path::new(path)).map_err(|e| e.to_string())?,
    };
    let t = Instant::now();
    let mut records = Vec::new();
    for f in &a.data {
        records.extend(kingme::datagen::record::read_file(f).map_err(|e| e.to_string())?);
    }
    if records.len() < 100 {
        return Err(format!(
            "{} positions is too little data to train on",
            records.len()
        ));
    }
    eprintln!(
        "train: {} positions from {} file(s) read in {:.1}s",
        records.len(),
        a.data.len(),
        t.elapsed().as_secs_f64()
    );
    let cfg = TrainConfig {
        epochs: a.epochs,
        batch: a.batch.max(1),
        lr: a.lr,
        lambda: a.lambda,
        scale: a.scale,
        generation: a.generation,
        seed: a.seed,
        ..Default::default()
    };
    let bar = progress_bar(
        u64::from(cfg.epochs),
        a.quiet,
        "{elapsed_precise} [{bar:30}] epoch {pos}/{len} {msg} (eta {eta})",
    );
    let (weights, k) = train::train(&records, &cfg, &init, |r| {
        bar.set_position(u64::from(r.epoch));
        bar.set_message(format!(
            "loss {:.5} held-out {:.5}",
            r.train_loss, r.holdout_loss
        ));
        if !a.quiet {
            bar.suspend(|| {
                eprintln!(
                    "epoch {} loss {:.5} held-out {:.5}",
                    r.epoch, r.train_loss, r.holdout_loss
                );
            });
        }
    });
    bar.finish_and_clear();
    weights.save(&a.out).map_err(|e| e.to_string())?;
    println!(
        "train {} generation {} checksum {:016x} scale {:.1} positions {} epochs {} time {:.1}s",
        a.out.display(),
        weights.generation,
        weights.checksum(),
        k,
        records.len(),
        cfg.epochs,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Args, Debug)]
struct DxpArgs {
    /// Address to listen on (loopback by default: DXP has no authentication).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:27531")]
    listen: String,
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
    #[arg(long, default_value_t = 4)]
    max_games: usize,
    /// Close a connection after this many seconds without a message.
    #[arg(long, default_value_t = 900)]
    idle_timeout: u64,
}

fn run_dxp(a: &DxpArgs) -> Result<(), String> {
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
        max_games: a.max_games.max(1),
        idle_timeout: Duration::from_secs(a.idle_timeout),
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
    .map_err(|e| format!("{}: {e}", a.listen))
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// Rules to use: english or mini.
    #[arg(long, default_value = "english")]
    variant: Variant,
    /// Start from this PDN FEN instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Count duplicate capture paths (same start, end and captures) once.
    #[arg(long)]
    distinct: bool,
    /// Size in MiB of a table of subtree counts (0: no table, plain bulk counting).
    /// Ignored with --distinct.
    #[arg(long, default_value_t = 0)]
    hash: usize,
    /// Depth in plies (1-30).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=30))]
    depth: u32,
}

fn position_of(a: &PerftArgs) -> Result<Position, String> {
    match &a.fen {
        Some(f) => Position::from_fen(a.variant, f).map_err(|e| e.to_string()),
        None => Ok(Position::startpos(a.variant)),
    }
}

fn run_perft(a: &PerftArgs, split: bool) -> Result<(), String> {
    let pos = position_of(a)?;
    let counting = if a.distinct {
        Counting::Distinct
    } else {
        Counting::AllPaths
    };
    let mut table = if a.hash > 0 && !a.distinct {
        Some(perft::PerftTable::try_new(a.hash).map_err(|e| e.to_string())?)
    } else {
        None
    };
    println!(
        "# variant {} fen {} ({})",
        a.variant,
        pos,
        counting.describe()
    );
    if split {
        let t = Instant::now();
        let (mut moves, mut total) = (0, 0);
        perft::divide_each(&pos, a.depth, counting, table.as_mut(), |m, n, _| {
            println!("{m} {n}");
            moves += 1;
            total += n;
        });
        println!(
            "moves {moves} total {total} time {:.3}s",
            t.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    for d in 1..=a.depth {
        let t = Instant::now();
        let n = if d < 3 {
            match table.as_mut() {
                Some(tb) => perft::perft_with_table(&pos, d, tb),
                None => perft::perft(&pos, d, counting),
            }
        } else {
            // split at the root, to say how far a long count has got
            let mut n = 0;
            perft::divide_each(&pos, d, counting, table.as_mut(), |_, count, left| {
                n += count;
                let secs = t.elapsed().as_secs_f64();
                if secs >= 2.0 && left > 0 {
                    let moves = if left == 1 { "move" } else { "moves" };
                    eprintln!("info perft {d}: {left} root {moves} left, {secs:.1}s");
                }
            });
            n
        };
        let secs = t.elapsed().as_secs_f64();
        println!(
            "perft {d} {n} time {secs:.3}s leaves/s {:.1}M",
            n as f64 / secs.max(1e-9) / 1e6
        );
    }
    Ok(())
}

#[derive(Args, Debug)]
struct SolveArgs {
    /// Rules to use: only mini can be solved.
    #[arg(long, default_value = "mini")]
    variant: Variant,
    /// Solve this PDN FEN instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Threads building the table (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
}

fn run_solve(a: &SolveArgs) -> Result<(), String> {
    use kingme::solve::MiniTablebase;
    // RUST_LOG=kingme=debug shows the build's phases
    kingme::server::init_logging("warn");
    if a.variant != Variant::Mini {
        return Err(format!(
            "variant {} can't be solved: only mini is small enough",
            a.variant
        ));
    }
    let pos = match &a.fen {
        Some(f) => Position::from_fen(a.variant, f).map_err(|e| e.to_string())?,
        None => Position::startpos(a.variant),
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = a.threads {
        pool = pool.num_threads(usize::from(n));
    }
    let pool = pool
        .build()
        .map_err(|e| format!("can't start the threads: {e}"))?;
    let t = Instant::now();
    let table = pool.install(|| MiniTablebase::build(&mut |_| {}));
    let built = t.elapsed();
    // a position the start can't reach is solved on top of the table
    let value = table.value(&pos);
    println!(
        "value {value} fen {pos} positions {} threads {} table {:.1}MB build {:.3}s time {:.3}s",
        table.len(),
        pool.current_num_threads(),
        table.table_bytes() as f64 / 1e6,
        built.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    for (m, v) in table.move_values(&pos) {
        println!("{m} {v}");
    }
    Ok(())
}

fn run_bench(depth_delta: i32, egdb: Option<&str>) -> Result<(), String> {
    let t = Instant::now();
    let rows = kingme::bench::run_with_egdb(depth_delta, egdb)?;
    let mut nodes = 0;
    let mut searching = std::time::Duration::ZERO;
    for r in &rows {
        println!(
            "{} depth {} nodes {} time {:.3}s best {} fen {}",
            r.variant,
            r.depth,
            r.nodes,
            r.time.as_secs_f64(),
            r.best,
            r.fen
        );
        nodes += r.nodes;
        searching += r.time;
    }
    if egdb.is_some() {
        // opening and reading the databases is not search time
        println!(
            "databases opened and read in {:.3}s",
            (t.elapsed().saturating_sub(searching)).as_secs_f64()
        );
    }
    let secs = searching.as_secs_f64();
    println!(
        "nodes {nodes} time {secs:.3}s nps {:.0}",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // one clear line (clap's first paragraph, e.g. the error and the
            // missing arguments under it), then a pointer to --help
            let text = e.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let first = if first.is_empty() {
                "error: bad arguments".to_string()
            } else {
                first.join(" ")
            };
            eprintln!("{first} (see kingme --help)");
            return ExitCode::from(2);
        }
    };
    let res = match cli.command {
        Some(Command::Perft(a)) => run_perft(&a, false),
        Some(Command::Divide(a)) => run_perft(&a, true),
        Some(Command::Bench { depth_delta, egdb }) => run_bench(depth_delta, egdb.as_deref()),
        Some(Command::Solve(a)) => run_solve(&a),
        Some(Command::Hub) => kingme::hub::run().map_err(|e| e.to_string()),
        Some(Command::Dxp(a)) => run_dxp(&a),
        Some(Command::Egdb(c)) => egdb_cli::run(c),
        Some(Command::Datagen(a)) => run_datagen(&a),
        Some(Command::Train(a)) => run_train(&a),
        None => run_server(&cli.serve),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
