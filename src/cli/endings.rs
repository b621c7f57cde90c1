//! `kingme endings`: positions the endgame databases know, labelled exactly,
//! reached by random plies from a data file's late positions.

use super::{check_output, open_output, progress_bar, run_tablebase};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct EndingsArgs {
    /// The data files whose late positions start the walks (`kingme datagen` output).
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// The data file to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Endgame databases that label the positions, besides the 5 pieces built
    /// into kingme [default: $KINGME_EGDB, else ~/.local/share/kingme/egdb].
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    /// Walks from each input position.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    walks: u32,
    /// Input positions of at most this many pieces start walks.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=24))]
    from_pieces: u32,
    /// Keep positions of at least this many pieces [default: one more than
    /// the databases built into kingme].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=24))]
    min_pieces: Option<u32>,
    /// Drop a walk that knows no position after this many plies.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=200))]
    max_plies: u32,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub(crate) fn run_endings(a: &EndingsArgs) -> Result<(), String> {
    use kingme::datagen::{endings, record};
    check_output(&a.out, false, a.force)?;
    let mut input = Vec::new();
    for f in &a.data {
        input.extend(record::read_file(f).map_err(|e| e.to_string())?);
    }
    let dir = a.egdb.clone().or_else(kingme::egdb::default_dir);
    let tb = run_tablebase(dir.as_deref(), false)?.ok_or("no endgame databases")?;
    let cfg = endings::EndingsConfig {
        walks: a.walks,
        from_pieces: a.from_pieces,
        min_pieces: a
            .min_pieces
            .unwrap_or(kingme::egdb::pack::BUILTIN_PIECES + 1),
        max_plies: a.max_plies,
        seed: a.seed,
    };
    if tb.max_pieces() < cfg.min_pieces {
        return Err(format!(
            "the endgame databases{} know at most {} pieces: nothing of {} or more to label \
             (build them with `kingme egdb build --pieces {}`)",
            dir.map(|d| format!(" in {}", d.display()))
                .unwrap_or_default(),
            tb.max_pieces(),
            cfg.min_pieces,
            cfg.min_pieces
        ));
    }
    tb.preload(tb.probe_pieces());
    let mut out = open_output(&a.out, false)?;
    let werr = |e: std::io::Error| format!("{}: {e}", a.out.display());
    record::Header::new(record::Source::Endings, cfg.seed)
        .write(&mut out)
        .map_err(werr)?;
    let bar = progress_bar(
        input.len() as u64,
        a.quiet,
        "{elapsed_precise} [{bar:30}] {pos}/{len} input positions (eta {eta})",
    );
    let t = Instant::now();
    let summary = endings::run(
        &cfg,
        &tb,
        &input,
        |r| out.write_all(&r.to_bytes()),
        |n| bar.set_position(n as u64),
    )
    .map_err(werr)?;
    out.flush().map_err(werr)?;
    bar.finish_and_clear();
    println!(
        "endings {} positions {} (black +{} draws ={} white +{}) from {} input positions, {} walks, {} repeats, egdb {} seed {} time {:.1}s",
        a.out.display(),
        summary.kept,
        summary.results[0],
        summary.results[1],
        summary.results[2],
        input.len(),
        summary.walks,
        summary.repeats,
        tb.max_pieces(),
        cfg.seed,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
