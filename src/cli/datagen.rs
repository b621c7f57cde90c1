//! `kingme datagen`: self-play games written as training data.

use super::{budget, open_output, LabelArgs};
use clap::Args;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct DatagenArgs {
    /// The data file to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: std::path::PathBuf,
    /// Stop after this many positions (those of a file continued with --append
    /// count).
    #[arg(long, default_value_t = 100_000)]
    positions: u64,
    /// Search nodes per move.
    #[arg(long, default_value_t = 4000)]
    nodes: u64,
    #[command(flatten)]
    run: LabelArgs,
    /// Seed of openings, random plies and noise.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies played after each start position: from 0 up to this many.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Start games from every position of this opening book as well as the
    /// ballots and the start (`shipped`: the book built into kingme).
    #[arg(long, value_name = "FILE|shipped")]
    book_starts: Option<std::path::PathBuf>,
    /// Leaf noise amplitude in centi-men.
    #[arg(long, default_value_t = 8)]
    noise: i32,
}

/// The book's roots (the start and the ballots), then every position of the
/// book not among them.
fn book_starts(path: &std::path::Path) -> Result<Vec<kingme::board::Position>, String> {
    use kingme::book::{self, Book};
    let book = if path.as_os_str() == "shipped" {
        Book::shipped().map_err(|e| e.to_string())?
    } else {
        std::sync::Arc::new(Book::open(path).map_err(|e| e.to_string())?)
    };
    let mut starts = book::roots();
    let mut seen: std::collections::HashSet<_> = starts.iter().copied().collect();
    for e in book.view().entries() {
        if seen.insert(e.pos) {
            starts.push(e.pos);
        }
    }
    Ok(starts)
}

pub(crate) fn run_datagen(a: &DatagenArgs) -> Result<(), String> {
    use kingme::datagen::{self, record, DatagenConfig, Existing};
    let continued = a.run.continues(&a.out)?;
    // every argument is checked before the file is touched
    let starts = match &a.book_starts {
        Some(book) => book_starts(book)?,
        None => Vec::new(),
    };
    let existing = if continued {
        record::cut_torn_record(&a.out).map_err(|e| e.to_string())?;
        Existing::of(&record::read_file(&a.out).map_err(|e| e.to_string())?)
    } else {
        Existing::default()
    };
    let cfg = DatagenConfig {
        positions: a.positions,
        nodes: a.nodes.max(1),
        depth: a.run.depth,
        egdb: a.run.tablebase()?,
        threads: a.run.threads(),
        seed: a.seed,
        starts,
        random_plies: a.random_plies,
        noise: a.noise.clamp(0, 1000),
        eval: a.run.evaluator()?,
        ..Default::default()
    };
    let mut out = open_output(&a.out, continued)?;
    let from = existing.positions;
    let bar = a.run.progress_bar(
        cfg.positions,
        "{elapsed_precise} [{bar:30}] {pos}/{len} positions, {msg} (eta {eta})",
    );
    let stop = super::stop_on_signal();
    let t = Instant::now();
    bar.set_position(from);
    let summary = datagen::run(&cfg, &mut out, existing, stop, |s| {
        bar.set_position(s.positions);
        bar.set_message(format!(
            "{} games (+{} ={} -{}, {} ended by databases), {} repeats left out",
            s.games, s.results[0], s.results[1], s.results[2], s.by_egdb, s.duplicates
        ));
    })
    .map_err(|e| format!("{}: {e}", a.out.display()))?;
    bar.finish_and_clear();
    drop(out);
    let per_move = budget(cfg.nodes, cfg.depth);
    println!(
        "datagen {} positions {} (+{} this run) games {} (black +{} draws ={} white +{}; {} ended by databases) repeats {} eval {} {per_move} egdb {} seed {} time {:.1}s",
        a.out.display(),
        summary.positions,
        summary.positions - from,
        summary.games,
        summary.results[0],
        summary.results[1],
        summary.results[2],
        summary.by_egdb,
        summary.duplicates,
        cfg.eval.describe(),
        cfg.egdb.as_ref().map_or(0, |tb| tb.max_pieces()),
        cfg.seed,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
