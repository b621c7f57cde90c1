//! `kingme egdb build`: its options, progress bar and per-slice lines (time,
//! peak memory, bytes).

use super::dir::{dir_of, DirArg};
use clap::Args;
use kingme::egdb::{self, Material};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    dir: DirArg,
    /// Build every slice of at most N pieces.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pieces: u32,
    /// Build only this slice (e.g. bm1bk1wm0wk1); the slices it needs must be in DIR.
    #[arg(long, value_name = "NAME")]
    slice: Option<Material>,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "T", default_value_t = 0)]
    threads: usize,
    /// File format: compact (compressed blocks, the newest version) or full
    /// (version 1, every index stored).
    #[arg(long, value_name = "FORMAT", default_value = "compact", value_parser = ["compact", "full"])]
    format: String,
    /// Positions of each compact slice probed back and compared with the
    /// builder's values (0: none; all when the slice is smaller).
    #[arg(long, value_name = "K", default_value_t = 1_000_000)]
    check: u64,
    /// MiB of decoded blocks of the smaller compact slices kept in memory
    /// (a slice's captures and crownings probe them for every position).
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    cache: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub(super) fn run_build(a: BuildArgs) -> Result<(), String> {
    let dir = dir_of(&a.dir)?;
    egdb::cache::set_capacity((a.cache as usize) << 20);
    let t = Instant::now();
    let bar = crate::cli::progress_bar(
        0,
        a.quiet,
        "{msg:14} [{bar:30}] {human_pos}/{human_len} positions, {elapsed} elapsed, eta {eta}",
    );
    let opts = egdb::BuildOptions {
        slice: a.slice,
        threads: a.threads,
        format: if a.format == "full" {
            egdb::build::Format::Full
        } else {
            egdb::build::Format::Compact
        },
        check: a.check,
        ..egdb::BuildOptions::new(dir.clone(), a.pieces)
    };
    let quiet = a.quiet;
    let started = std::sync::Mutex::new(None);
    let report = egdb::build_reporting(&opts, &|p| {
        bar.set_length(p.total);
        bar.set_position(p.done);
        let mut started = started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if *started != Some(p.slice) {
            // each slice's peak memory is its own
            reset_peak_memory();
            *started = Some(p.slice);
            bar.set_message(p.slice.to_string());
        }
        if let Some(b) = p.built {
            let line = format!(
                "{} {} positions in {:.1}s, peak memory {}, values {} bytes, distances {} bytes",
                b.slice,
                b.slice.positions(),
                b.seconds,
                peak_memory().unwrap_or_else(|| "unknown".into()),
                b.bytes.0,
                b.bytes.1
            );
            // a bar that draws nothing (no terminal) would drop the line too
            if quiet || bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
        }
    });
    bar.finish_and_clear();
    let report = report.map_err(|e| e.to_string())?;
    let positions: u64 = report.built.iter().map(|m| m.positions()).sum();
    println!(
        "built {} slices ({positions} positions), kept {} complete, in {} ({:.1}s)",
        report.built.len(),
        report.kept.len(),
        dir.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The process's peak resident memory since the last reset (Linux:
/// `VmHWM`), as text.
fn peak_memory() -> Option<String> {
    let kb = kingme::proc_info::kb("/proc/self/status", "VmHWM")?;
    Some(if kb < 1_000_000 {
        format!("{:.0} MB", kb as f64 / 1e3)
    } else {
        format!("{:.1} GB", kb as f64 / 1e6)
    })
}

/// Starts a new peak of resident memory (Linux; elsewhere nothing).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
