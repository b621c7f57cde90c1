//! `kingme egdb ...`: build, probe, verify, list and count the endgame databases.

use clap::{Args, Subcommand};
use kingme::board::{Position, Variant};
use kingme::egdb::{self, file, index, verify, Material, ProbeError, Tablebase, Wdl};
use kingme::rng::SplitMix64;
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

mod build;
mod dir;
use build::{run_build, BuildArgs};
use dir::dir_of;
pub use dir::DirArg;

#[derive(Subcommand, Debug)]
pub enum EgdbCommand {
    /// Build the databases by retrograde analysis (restartable).
    Build(BuildArgs),
    /// Print `FEN win|draw|loss|unknown` for each FEN (arguments, or stdin lines).
    Probe(ProbeArgs),
    /// Check every slice file and the values' consistency with the rules.
    Verify(VerifyArgs),
    /// Print each slice's counts of wins, draws and losses.
    Stats(DirArg),
    /// List the slices of N pieces in build order, with sizes and dependencies.
    Plan(PlanArgs),
    /// Time probes of random positions of every slice (ns per probe).
    Bench(BenchArgs),
    /// Turn version 1 slice files, or compact ones of an older version, into
    /// compact files of the current version, each checked against its
    /// originals (restartable: current slices are skipped).
    Convert(ConvertArgs),
    /// Put the compact files of the slices of up to N pieces (or a selection) into one pack
    /// file (the set built into kingme is one).
    Pack(PackArgs),
}

#[derive(Args, Debug)]
pub struct PackArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Every slice of at most N pieces.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pieces: u32,
    /// Only the slices of at least P pieces.
    #[arg(long, value_name = "P", default_value_t = 2)]
    from_pieces: u32,
    /// Only the slices with at most K kings (both sides together).
    #[arg(long, value_name = "K", default_value_t = 24)]
    max_kings: u32,
    /// The pack file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Write the compact files here [default: DIR itself, replacing each
    /// slice's files once its compact ones are written and checked].
    #[arg(long, value_name = "OUT")]
    out: Option<PathBuf>,
    /// Compare K positions spread over each slice with the originals [default: all].
    #[arg(long, value_name = "K")]
    sample: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Positions (PDN FEN); with none, one per line from stdin.
    fens: Vec<String>,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Check K random positions of each slice that has more, instead of all.
    #[arg(long, value_name = "K")]
    sample: Option<u64>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Positions probed (drawn at random from every slice, half of them seen from the other side).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    probes: usize,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Slices of at most N pieces.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pieces: u32,
    /// One JSON array (name, pieces, positions, bytes, depends) instead of lines.
    #[arg(long)]
    json: bool,
}

fn open(dir: &PathBuf) -> Result<Tablebase, String> {
    let mut tb = Tablebase::new();
    tb.add_directory(dir).map_err(|e| e.to_string())?;
    Ok(tb)
}

pub fn run(cmd: EgdbCommand) -> Result<(), String> {
    match cmd {
        EgdbCommand::Build(a) => run_build(a),
        EgdbCommand::Probe(a) => run_probe(a),
        EgdbCommand::Verify(a) => run_verify(a),
        EgdbCommand::Stats(a) => run_stats(a),
        EgdbCommand::Plan(a) => {
            run_plan(a);
            Ok(())
        }
        EgdbCommand::Bench(a) => run_bench(a),
        EgdbCommand::Convert(a) => run_convert(a),
        EgdbCommand::Pack(a) => run_pack(a),
    }
}

fn run_convert(a: ConvertArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    let out = a.out.clone().unwrap_or_else(|| dir.clone());
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let source = open(&dir)?;
    let slices = source.slices();
    if slices.is_empty() {
        return Err(format!("no database slices in {}", dir.display()));
    }
    let bar = crate::cli::progress_bar(
        slices.iter().map(|m| m.positions()).sum(),
        a.quiet,
        "{msg:14} [{bar:30}] {human_pos}/{human_len} positions, {elapsed} elapsed, eta {eta}",
    );
    let t = Instant::now();
    let (mut before, mut after) = ((0u64, 0u64), (0u64, 0u64));
    let (mut done, mut kept) = (0, 0);
    for m in &slices {
        bar.set_message(m.to_string());
        if egdb::convert::is_compact(&out, *m) {
            kept += 1;
        } else {
            let tb = || {
                let mut tb = Tablebase::new();
                let _ = tb.add_directory(&out);
                let _ = tb.add_directory(&dir);
                tb
            };
            let c = if egdb::convert::is_older_compact(&dir, *m) {
                egdb::convert::upgrade_slice(&dir, &out, *m, a.sample, &source, tb)
            } else {
                egdb::convert::convert_slice(&dir, &out, *m, a.sample, tb)
            }
            .map_err(|e| e.to_string())?;
            bar.suspend(|| {
                println!(
                    "{m} {} + {} -> {} + {} bytes, {} positions checked",
                    c.before.0, c.before.1, c.after.0, c.after.1, c.checked
                );
            });
            before = (before.0 + c.before.0, before.1 + c.before.1);
            after = (after.0 + c.after.0, after.1 + c.after.1);
            done += 1;
        }
        bar.inc(m.positions());
    }
    bar.finish_and_clear();
    println!(
        "converted {done} slices, kept {kept} compact, into {} ({:.1}s): values {} -> {} bytes, distances {} -> {} bytes",
        out.display(),
        t.elapsed().as_secs_f64(),
        before.0,
        after.0,
        before.1,
        after.1
    );
    Ok(())
}

fn run_pack(a: PackArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    let slices = egdb::pack::selection(a.from_pieces, a.pieces, a.max_kings);
    if slices.is_empty() {
        return Err(format!(
            "no slice of {} to {} pieces with at most {} kings",
            a.from_pieces, a.pieces, a.max_kings
        ));
    }
    let w = egdb::pack::write(&dir, &slices, &a.out).map_err(|e| e.to_string())?;
    println!(
        "packed {} slices of {} to {} pieces (at most {} kings) from {} into {}: {} bytes, checksum {:016x}",
        w.slices,
        a.from_pieces,
        a.pieces,
        a.max_kings,
        dir.display(),
        a.out.display(),
        w.bytes,
        w.checksum
    );
    Ok(())
}

fn run_probe(a: ProbeArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    let tb = open(&dir)?;
    if tb.slices().is_empty() {
        eprintln!("warning: no database slices in {}", dir.display());
    }
    let mut reported = HashSet::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut answer = |fen: &str| -> std::io::Result<()> {
        let fen = fen.trim();
        if fen.is_empty() {
            return Ok(());
        }
        let pos = match Position::from_fen(Variant::English, fen) {
            Ok(p) => p,
            Err(e) => return writeln!(out, "error {e}"),
        };
        if let Err(why) = pos.validate() {
            return writeln!(out, "error bad FEN '{fen}': {why}");
        }
        let word = match tb.probe_wdl(&pos) {
            Ok(v) => v.word(),
            Err(e) => {
                if let ProbeError::File(f) = &e {
                    if reported.insert(f.to_string()) {
                        eprintln!("error: {f}");
                    }
                }
                "unknown"
            }
        };
        writeln!(out, "{fen} {word}")
    };
    let res = if a.fens.is_empty() {
        std::io::stdin()
            .lock()
            .lines()
            .try_for_each(|l| answer(&l?))
    } else {
        a.fens.iter().try_for_each(|f| answer(f))
    };
    res.map_err(|e| format!("output: {e}"))
}

fn run_verify(a: VerifyArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    let tb = open(&dir)?;
    let slices = tb.slices();
    if slices.is_empty() {
        return Err(format!("no database slices in {}", dir.display()));
    }
    let t = Instant::now();
    let mut failed = 0;
    let mut checked = 0u64;
    for m in &slices {
        match verify::verify_slice(&tb, &dir, *m, a.sample) {
            Ok(n) => {
                checked += n;
                println!("{m} ok {n}");
            }
            Err(e) => {
                failed += 1;
                println!("{m} FAILED {e}");
            }
        }
    }
    println!(
        "verified {} slices, {checked} positions checked, {failed} failed ({:.1}s); all slices of up to {} pieces present",
        slices.len(),
        t.elapsed().as_secs_f64(),
        tb.max_pieces()
    );
    if failed > 0 {
        return Err(format!("{failed} slices failed verification"));
    }
    Ok(())
}

fn run_stats(a: DirArg) -> Result<(), String> {
    let dir = dir_of(&a)?;
    let tb = open(&dir)?;
    let mut bad = 0;
    let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
    println!("slice wins draws losses max-conversion-plies");
    for m in tb.slices() {
        match verify::slice_stats(&tb, &dir, m) {
            Ok(s) => {
                println!(
                    "{m} {} {} {} {}",
                    s.wins, s.draws, s.losses, s.max_conversion
                );
                (w, d, l) = (w + s.wins, d + s.draws, l + s.losses);
            }
            Err(e) => {
                bad += 1;
                println!("{m} error {e}");
            }
        }
    }
    println!("total {w} {d} {l}");
    if bad > 0 {
        return Err(format!("{bad} slices unreadable"));
    }
    Ok(())
}

fn run_plan(a: PlanArgs) {
    let slices = egdb::plan(a.pieces);
    let bytes = |m: Material| {
        let n = m.positions();
        file::Kind::Values.data_len(n) + file::Kind::Conversion.data_len(n) + 128
    };
    if a.json {
        let items: Vec<String> = slices
            .iter()
            .map(|m| {
                let deps: Vec<String> = m.dependencies().iter().map(|d| format!("\"{d}\"")).collect();
                format!(
                    "{{\"name\":\"{m}\",\"pieces\":{},\"positions\":{},\"bytes\":{},\"depends\":[{}]}}",
                    m.pieces(),
                    m.positions(),
                    bytes(*m),
                    deps.join(",")
                )
            })
            .collect();
        println!("[{}]", items.join(",\n"));
    } else {
        for m in &slices {
            let deps: Vec<String> = m.dependencies().iter().map(ToString::to_string).collect();
            println!("{m} {} {} {}", m.positions(), bytes(*m), deps.join(","));
        }
        let total: u64 = slices.iter().map(|m| m.positions()).sum();
        let b: u64 = slices.iter().map(|m| bytes(*m)).sum();
        eprintln!("{} slices, {total} positions, {b} bytes", slices.len());
    }
}

fn run_bench(a: BenchArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    let tb = open(&dir)?;
    let slices = tb.slices();
    if slices.is_empty() || a.probes == 0 {
        return Err(format!("no database slices in {}", dir.display()));
    }
    // Load every slice first: the figures are for probes, not file reads.
    let t = Instant::now();
    for m in &slices {
        tb.check_slice(*m).map_err(|e| e.to_string())?;
    }
    let bytes = tb.preload(12);
    let load = t.elapsed();
    let mut rng = SplitMix64(a.seed);
    let mut positions = Vec::with_capacity(a.probes);
    while positions.len() < a.probes {
        let m = slices[(rng.next_u64() % slices.len() as u64) as usize];
        let ix = index::SliceIndex::new(m);
        let Some(p) = ix.position(rng.next_u64() % ix.len()) else {
            continue;
        };
        positions.push(if rng.next_u64() & 1 == 0 {
            p
        } else {
            index::mirror(&p)
        });
    }
    let time = |f: &dyn Fn(&kingme::board::Position) -> Option<Wdl>| {
        let t = Instant::now();
        let mut counts = [0u64; 4];
        for p in &positions {
            counts[match f(p) {
                Some(Wdl::Win) => 0,
                Some(Wdl::Draw) => 1,
                Some(Wdl::Loss) => 2,
                None => 3,
            }] += 1;
        }
        (t.elapsed(), counts)
    };
    println!(
        "{} slices (all of up to {} pieces) in {}; files loaded and checked in {:.2}s ({:.1} MB)",
        slices.len(),
        tb.max_pieces(),
        dir.display(),
        load.as_secs_f64(),
        bytes as f64 / 1e6
    );
    let report = |what: &str, (d, c): (std::time::Duration, [u64; 4])| {
        println!(
            "{what}: {} probes in {:.3}s, {:.0} ns/probe (win {} draw {} loss {} failed {})",
            positions.len(),
            d.as_secs_f64(),
            d.as_nanos() as f64 / positions.len() as f64,
            c[0],
            c[1],
            c[2],
            c[3]
        );
    };
    report("wdl", time(&|p| tb.probe_wdl(p).ok()));
    // The first distance probes also read the distance files: time a second pass.
    let _ = time(&|p| tb.probe_dtc(p).ok().map(|(v, _)| v));
    report(
        "wdl+distance",
        time(&|p| tb.probe_dtc(p).ok().map(|(v, _)| v)),
    );
    Ok(())
}
