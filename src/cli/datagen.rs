//! `kingme datagen`: self-play games written as training data.

use super::{evaluator_of, progress_bar};
use clap::Args;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct DatagenArgs {
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

pub(crate) fn run_datagen(a: &DatagenArgs) -> Result<(), String> {
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
