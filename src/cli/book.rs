//! `kingme book ...`: build, probe, count and verify opening books.

use super::{evaluator_of, progress_bar};
use clap::{Args, Subcommand};
use kingme::board::{Position, Variant};
use kingme::book::{self, stats, Book, BuildOptions};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build (or continue) a book by drop-out expansion from the start and
    /// every 3-move ballot; restartable: a build continues its --out file.
    Build(BuildArgs),
    /// Print the book's moves of each position (FEN arguments, or stdin lines)
    /// with their values and depths.
    Probe(ProbeArgs),
    /// Count the book's positions by plies from the roots and by ballot.
    Stats(BookArg),
    /// Check every entry: legal moves, all of them, in-book flags and values.
    Verify(BookArg),
    /// Print every entry, one line each: `FEN: move value depth, ...`, best first.
    Dump(BookArg),
    /// Learn from played games (PDN files): the move by which each English
    /// game left the book moves towards the game's result, for its player.
    Learn(LearnArgs),
    /// Join books into one: every shard of one build (`book build --shard`),
    /// or books built with the same --depth, --dropout and --seed.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub struct BookArg {
    /// The book file [default: the shipped book].
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The book to write; when it exists, the build continues it (with the
    /// same --depth, --dropout and --seed).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Stop when the book holds this many positions.
    #[arg(long, value_name = "N")]
    positions: Option<usize>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECS")]
    time: Option<u64>,
    /// Search depth of every position's moves.
    #[arg(long, default_value_t = 16)]
    depth: u32,
    /// Centi-men one ply of depth is worth when choosing the next position:
    /// lower grows the main lines deeper, higher looks at more side moves.
    #[arg(long, default_value_t = 20)]
    dropout: u32,
    /// Breaks ties between equally urgent positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Positions searched at once, one thread each [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// Transposition table per thread, MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Write the book at least this often, seconds.
    #[arg(long, default_value_t = 60)]
    save_every: u64,
    /// The evaluation the searches use: builtin, hand, or a weights file.
    #[arg(long, default_value = "builtin", value_name = "EVAL")]
    eval: String,
    /// Probe the endgame databases in this directory.
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Grow only the K-th of N contiguous parts of the roots (K from 1 to N;
    /// the budgets are the shard's); `kingme book merge` joins the N books.
    #[arg(long, value_name = "K/N")]
    shard: Option<kingme::shard::Shard>,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The book to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
    /// The books: every shard of one build (in any order), or books of the
    /// same parameters.
    #[arg(required = true, value_name = "IN")]
    inputs: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    book: BookArg,
    /// Positions (PDN FEN) or `startpos`; with none, one per line from stdin.
    fens: Vec<String>,
}

#[derive(Args, Debug)]
pub struct LearnArgs {
    #[command(flatten)]
    book: BookArg,
    /// The learned book to write (may be the --book file).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Centi-men the games can move a book move's value at most.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..=1000))]
    weight: u16,
    /// PDN files of played games (the referee's `--pdn`).
    #[arg(required = true, value_name = "PDN")]
    pdn: Vec<PathBuf>,
}

pub(crate) fn run(c: BookCommand) -> Result<(), String> {
    match c {
        BookCommand::Build(a) => run_build(&a),
        BookCommand::Probe(a) => run_probe(&a),
        BookCommand::Stats(a) => run_stats(&a),
        BookCommand::Verify(a) => run_verify(&a),
        BookCommand::Dump(a) => run_dump(&a),
        BookCommand::Learn(a) => run_learn(&a),
        BookCommand::Merge(a) => run_merge(&a),
    }
}

fn open(arg: &BookArg) -> Result<Arc<Book>, String> {
    match &arg.book {
        Some(p) => Book::open(p).map(Arc::new).map_err(|e| e.to_string()),
        None => Book::shipped().map_err(|e| e.to_string()),
    }
}

fn run_build(a: &BuildArgs) -> Result<(), String> {
    let threads = super::threads_or_all(a.threads);
    let egdb = match &a.egdb {
        Some(dir) => {
            let mut tb = kingme::egdb::Tablebase::new();
            tb.add_directory(dir)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            tb.preload(tb.max_pieces());
            Some(Arc::new(tb))
        }
        None => None,
    };
    let opts = BuildOptions {
        roots: book::roots(),
        depth: a.depth.clamp(1, 64),
        dropout: a.dropout,
        seed: a.seed,
        threads,
        positions: a.positions,
        time: a.time.map(Duration::from_secs),
        save_every: Duration::from_secs(a.save_every.max(1)),
        hash_mib: a.hash.clamp(1, 4096),
        eval: evaluator_of(&a.eval)?,
        egdb,
    };
    let bar = if let Some(n) = a.positions {
        progress_bar(
            n as u64,
            a.quiet,
            "{elapsed_precise} [{bar:30}] {pos}/{len} positions, {msg} (eta {eta})",
        )
    } else {
        let len = a.time.unwrap_or(0);
        progress_bar(
            len,
            a.quiet,
            "{elapsed_precise} [{bar:30}] {msg} (eta {eta})",
        )
    };
    let stop = super::stop_on_signal();
    let shard = a.shard.unwrap_or_default();
    let report = book::build_shard(&a.out, &opts, shard, stop, &mut |p| {
        if a.positions.is_some() {
            bar.set_position(p.positions as u64);
        } else {
            bar.set_position(p.elapsed.as_secs());
        }
        let rate = p.added as f64 / p.elapsed.as_secs_f64().max(1e-3) * 3600.0;
        bar.set_message(format!(
            "{} positions (+{} this run, {rate:.0}/h), last at ply {}{}",
            p.positions,
            p.added,
            p.plies,
            if p.saved { ", saved" } else { "" }
        ));
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let shard = if shard.is_whole() {
        String::new()
    } else {
        let r = shard.part(opts.roots.len() as u64);
        format!(" shard {shard} (roots {}..{})", r.start, r.end)
    };
    println!(
        "book {} positions {} (resumed {}, added {}) depth {} dropout {} seed {}{shard} time {:.1}s{}",
        a.out.display(),
        report.positions,
        report.resumed,
        report.added,
        opts.depth,
        opts.dropout,
        opts.seed,
        report.elapsed.as_secs_f64(),
        if report.complete {
            " (nothing left to expand)"
        } else {
            ""
        }
    );
    Ok(())
}

fn run_merge(a: &MergeArgs) -> Result<(), String> {
    super::check_output(&a.out, false, a.force)?;
    let r = book::merge(&a.inputs, &a.out).map_err(|e| e.to_string())?;
    println!(
        "book {} positions {} from {} books ({} held by more than one)",
        a.out.display(),
        r.positions,
        a.inputs.len(),
        r.shared
    );
    Ok(())
}

fn read_fens(fens: &[String]) -> Vec<String> {
    if fens.is_empty() {
        use std::io::BufRead;
        std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .filter(|l| !l.trim().is_empty())
            .collect()
    } else {
        fens.to_vec()
    }
}

/// `MOVE SCORE depth D[ book], ...`, best first.
fn moves_text(moves: &[kingme::book::BookMove]) -> String {
    moves
        .iter()
        .map(|m| {
            format!(
                "{} {} depth {}{}",
                m.mv,
                m.score,
                m.depth,
                if m.in_book { " book" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes `lines` to stdout, stopping quietly when the reader has left (a
/// closed pipe, as with `| head`).
fn print_lines(lines: impl IntoIterator<Item = String>) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for l in lines {
        if writeln!(out, "{l}").is_err() {
            return;
        }
    }
    let _ = out.flush();
}

fn run_dump(a: &BookArg) -> Result<(), String> {
    let book = open(a)?;
    let mut lines = Vec::new();
    for e in book.view().entries() {
        let moves = book.probe(&e.pos).ok_or_else(|| {
            format!(
                "{}: a stored move is not legal in {}",
                book.name(),
                e.pos.to_fen()
            )
        })?;
        lines.push(format!("{}: {}", e.pos.to_fen(), moves_text(&moves)));
    }
    print_lines(lines);
    Ok(())
}

fn run_probe(a: &ProbeArgs) -> Result<(), String> {
    let book = open(&a.book)?;
    let mut lines = Vec::new();
    for text in read_fens(&a.fens) {
        let text = text.trim();
        let pos = if text == "startpos" {
            Position::startpos(Variant::English)
        } else {
            Position::from_fen(Variant::English, text).map_err(|e| format!("{text}: {e}"))?
        };
        match book.probe(&pos) {
            None => lines.push(format!("{text}: not in the book")),
            Some(moves) => lines.push(format!("{text}: {}", moves_text(&moves))),
        }
    }
    print_lines(lines);
    Ok(())
}

fn run_stats(a: &BookArg) -> Result<(), String> {
    let book = open(a)?;
    let view = book.view();
    let roots = book::roots();
    let p = view.params;
    let mut lines = Vec::new();
    lines.push(format!(
        "{}: {} positions, depth {}, dropout {}, seed {}{}",
        book.name(),
        view.len(),
        p.depth,
        p.dropout,
        p.seed,
        if view.shard.is_whole() {
            String::new()
        } else {
            format!(", shard {}", view.shard)
        }
    ));
    let (plies, unreached) = stats::by_plies(&view, &roots);
    for (d, n) in plies.iter().enumerate() {
        lines.push(format!("plies {d:>2}: {n}"));
    }
    if unreached > 0 {
        lines.push(format!("not reached from a root: {unreached}"));
    }
    let deck = kingme::openings::acf_deck().map_err(|e| e.to_string())?;
    let per = stats::by_root(&view, &roots);
    lines.push(format!("start: {}", per[0]));
    for (o, n) in deck.iter().zip(&per[1..]) {
        lines.push(format!("{}: {n}", o.name));
    }
    print_lines(lines);
    Ok(())
}

fn run_verify(a: &BookArg) -> Result<(), String> {
    let book = open(a)?;
    let v = stats::verify(&book.view()).map_err(|e| format!("{}: {e}", book.name()))?;
    println!(
        "{}: ok, {} positions, {} moves ({} into the book), every move legal",
        book.name(),
        v.positions,
        v.moves,
        v.in_book
    );
    Ok(())
}

/// The English games of the PDN files, replayed; games that can't be
/// replayed or have no result are counted, not used.
fn read_games(files: &[PathBuf]) -> Result<(Vec<book::PlayedGame>, usize), String> {
    use kingme::board::pdn::parse_pdn;
    let mut games = Vec::new();
    let mut skipped = 0;
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        for g in parse_pdn(&text).map_err(|e| format!("{}: {e}", f.display()))? {
            let played = (g.variant() == Variant::English)
                .then(|| g.outcome().zip(g.replay().ok()))
                .flatten();
            match played {
                Some((outcome, game)) => games.push(book::PlayedGame {
                    start: *game.start(),
                    moves: game.moves().to_vec(),
                    outcome,
                }),
                None => skipped += 1,
            }
        }
    }
    Ok((games, skipped))
}

fn run_learn(a: &LearnArgs) -> Result<(), String> {
    let book = open(&a.book)?;
    let (games, skipped) = read_games(&a.pdn)?;
    let view = book.view();
    let (entries, report) = book::learn(view.entries(), &games, i32::from(a.weight));
    let bytes = book::file::encode_shard(&view.params, view.shard, &entries);
    kingme::checked_file::write_atomically(&a.out, [&bytes[..]]).map_err(|e| e.to_string())?;
    println!(
        "book {} learned from {} of {} games ({} without a result, not English or not replayable): {} moves changed, {} positions",
        a.out.display(),
        report.learned,
        report.games,
        skipped,
        report.moves_changed,
        entries.len()
    );
    Ok(())
}
