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
    /// count) [default: 100000; with --games, no limit].
    #[arg(long, conflicts_with = "shard")]
    positions: Option<u64>,
    /// Play only the games numbered 0 to G-1 (with --shard, the shard's part
    /// of them).
    #[arg(long, value_name = "G")]
    games: Option<u64>,
    /// Play the K-th of N contiguous parts of the --games (K from 1 to N);
    /// `kingme merge-data` joins the N files into the unsharded run's.
    #[arg(long, value_name = "K/N", requires = "games")]
    shard: Option<kingme::shard::Shard>,
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

/// The file `out` to continue, checked against the run about to continue it
/// (whose new file would have `header`); a version-1 file has no header to
/// keep up to date, and is returned with `None`.
fn continued_file(
    out: &std::path::Path,
    header: &kingme::datagen::record::Header,
) -> Result<(kingme::datagen::Existing, Option<std::fs::File>), String> {
    use kingme::datagen::{record, Existing};
    record::cut_torn_record(out).map_err(|e| e.to_string())?;
    let (h, records) = record::read(out).map_err(|e| e.to_string())?;
    if h.is_v1() {
        if !header.shard.is_whole() {
            return Err(format!(
                "{}: a version-1 data file is no shard: continue it without --shard",
                out.display()
            ));
        }
        return Ok((Existing::of(&records), None));
    }
    let run = |h: &record::Header| {
        let games = match h.whole {
            0 => String::new(),
            g => format!(" --games {g}"),
        };
        let shard = match h.shard.is_whole() {
            true => String::new(),
            false => format!(" --shard {}", h.shard),
        };
        format!("{} of --seed {}{games}{shard}", h.source, h.seed)
    };
    if (h.source, h.seed, h.whole, h.shard)
        != (header.source, header.seed, header.whole, header.shard)
    {
        return Err(format!(
            "{} holds {}; continue it with those, or write a new file",
            out.display(),
            run(&h)
        ));
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    Ok((Existing::of_file(&h, &records), Some(file)))
}

pub(crate) fn run_datagen(a: &DatagenArgs) -> Result<(), String> {
    use kingme::datagen::{self, record, DatagenConfig, Existing};
    let continued = a.run.continues(&a.out)?;
    // every argument is checked before the file is touched
    let starts = match &a.book_starts {
        Some(book) => book_starts(book)?,
        None => Vec::new(),
    };
    let positions = a
        .positions
        .unwrap_or(if a.games.is_some() { u64::MAX } else { 100_000 });
    let cfg = DatagenConfig {
        positions,
        games: a.games,
        shard: a.shard.unwrap_or_default(),
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
    let header = cfg.header();
    let (existing, header_file) = if continued {
        continued_file(&a.out, &header)?
    } else {
        (Existing::default(), None)
    };
    let mut out = open_output(&a.out, continued)?;
    // the header names the next game as the run goes, so that a run stopped
    // anyhow is continued from there
    let mut header_file = match header_file {
        Some(f) => Some(f),
        None if !continued => Some(
            std::fs::OpenOptions::new()
                .write(true)
                .open(&a.out)
                .map_err(|e| format!("{}: {e}", a.out.display()))?,
        ),
        None => None,
    };
    let mut header_error = None;
    let from = existing.positions;
    // the bar counts the games when they are given, else the positions
    let games = cfg.games.map(|g| cfg.shard.part(g));
    let bar = match &games {
        Some(r) => a.run.progress_bar(
            r.end - r.start,
            "{elapsed_precise} [{bar:30}] {pos}/{len} games, {msg} (eta {eta})",
        ),
        None => a.run.progress_bar(
            cfg.positions,
            "{elapsed_precise} [{bar:30}] {pos}/{len} positions, {msg} (eta {eta})",
        ),
    };
    let at = |s: &datagen::DatagenSummary| match &games {
        Some(r) => s.next_game.clamp(r.start, r.end) - r.start,
        None => s.positions,
    };
    let stop = super::stop_on_signal();
    let t = Instant::now();
    bar.set_position(at(&datagen::DatagenSummary {
        positions: from,
        next_game: existing.next_game,
        ..Default::default()
    }));
    let summary = datagen::run(&cfg, &mut out, existing, stop, |s| {
        if let Some(f) = header_file.as_mut() {
            let h = record::Header {
                next_game: s.next_game,
                ..header
            };
            if let Err(e) = record::rewrite_header(f, &h) {
                header_error.get_or_insert(e);
            }
        }
        bar.set_position(at(s));
        bar.set_message(format!(
            "{} positions, {} games (+{} ={} -{}, {} ended by databases), {} repeats left out",
            s.positions, s.games, s.results[0], s.results[1], s.results[2], s.by_egdb, s.duplicates
        ));
    })
    .map_err(|e| format!("{}: {e}", a.out.display()))?;
    bar.finish_and_clear();
    drop(out);
    if let Some(e) = header_error {
        return Err(format!("{}: its header: {e}", a.out.display()));
    }
    let per_move = budget(cfg.nodes, cfg.depth);
    let shard = if cfg.shard.is_whole() {
        String::new()
    } else {
        format!(" shard {}", cfg.shard)
    };
    println!(
        "datagen {} positions {} (+{} this run) games {} (black +{} draws ={} white +{}; {} ended by databases) repeats {} eval {} {per_move} egdb {} seed {}{shard} next game {} time {:.1}s",
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
        summary.next_game,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
