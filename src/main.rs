//! The `kingme` command line: the engine on stdio (default), and tools.

use clap::{Parser, Subcommand};
use cli::datagen::DatagenArgs;
use cli::dxp::DxpArgs;
use cli::endings::EndingsArgs;
use cli::merge::MergeArgs;
use cli::perft::PerftArgs;
use cli::rescore::RescoreArgs;
use cli::serve::ServeArgs;
use cli::solve::SolveArgs;
use cli::train::TrainArgs;
use std::process::ExitCode;

mod cli;

#[derive(Parser, Debug)]
#[command(
    name = "kingme",
    version,
    about = "A checkers engine: English draughts (8x8) and mini-checkers (6x6)",
    after_help = format!(
        "With no command, kingme speaks the kingme protocol on stdin/stdout \
(protocol/PROTOCOL.md; type `help`).\n\n\
Levels (setoption name Level value ...; the time is a move's when `go` gives no limit):\n{}",
        kingme::engine::levels_help()
    )
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

/// With no subcommand: the engine on stdio, or a TCP server with `--listen`.
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
        /// The English evaluation, as the EvalFile option takes (the signature
        /// is the default's).
        #[arg(long, value_name = "EVAL")]
        eval: Option<String>,
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
    Egdb(cli::egdb::EgdbCommand),
    /// English opening books: build, probe, stats, verify, dump, learn, merge.
    #[command(subcommand)]
    Book(cli::book::BookCommand),
    /// Play self-play games of English and write their positions as training data
    /// for `kingme train` (format: src/datagen/record.rs).
    Datagen(DatagenArgs),
    /// Fit the pattern weights (or, with --model network, the network) to
    /// `kingme datagen` data and write its file (EvalFile); see src/eval/EVAL.md.
    Train(TrainArgs),
    /// Search the positions of a `kingme datagen` file again, deeper, and write
    /// them with the new scores (same positions and results) as training data.
    Rescore(RescoreArgs),
    /// Join data files into one: every shard of one `kingme datagen` or
    /// `kingme rescore` run (the unsharded run's file), or whole files.
    MergeData(MergeArgs),
    /// Write positions the endgame databases know, each labelled by its exact
    /// value, reached by random plies from a `kingme datagen` file's late
    /// positions: training data for what the engine evaluates past the
    /// databases it probes.
    Endings(EndingsArgs),
    /// Review the games of a PDN file: every move judged by the engine (best,
    /// good, inaccuracy, mistake, blunder), exactly where the databases or the
    /// solved mini game know; a table, and --json and --pdn files.
    Review(cli::review::ReviewArgs),
}

/// `builtin`, `hand` or a weights file, as the EvalFile option takes.
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
    if std::env::var_os(kingme::engine::MINI_TABLE_ENV).is_some_and(|v| v == "off") {
        kingme::engine::allow_mini_table(false);
    }
    let res = match cli.command {
        Some(Command::Perft(a)) => cli::perft::run_perft(&a, false),
        Some(Command::Divide(a)) => cli::perft::run_perft(&a, true),
        Some(Command::Bench {
            depth_delta,
            egdb,
            eval,
        }) => cli::bench::run_bench(depth_delta, egdb.as_deref(), eval.as_deref()),
        Some(Command::Solve(a)) => cli::solve::run_solve(&a),
        Some(Command::Hub) => kingme::hub::run().map_err(|e| e.to_string()),
        Some(Command::Dxp(a)) => cli::dxp::run_dxp(&a),
        Some(Command::Egdb(c)) => cli::egdb::run(c),
        Some(Command::Book(c)) => cli::book::run(c),
        Some(Command::Datagen(a)) => cli::datagen::run_datagen(&a),
        Some(Command::Train(a)) => cli::train::run_train(&a),
        Some(Command::Rescore(a)) => cli::rescore::run_rescore(&a),
        Some(Command::MergeData(a)) => cli::merge::run_merge(&a),
        Some(Command::Endings(a)) => cli::endings::run_endings(&a),
        Some(Command::Review(a)) => cli::review::run_review(&a),
        None => cli::serve::run_server(&cli.serve),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
