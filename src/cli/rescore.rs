//! `kingme rescore`: a data file's positions labelled again by a deeper search.

use super::{budget, open_output, LabelArgs};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct RescoreArgs {
    /// The data file whose positions are searched again (`kingme datagen` output).
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The data file to write: the same positions and results, the new scores
    /// (refused if it exists, unless --append or --force).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Search nodes per position.
    #[arg(long, default_value_t = 100_000)]
    nodes: u64,
    /// Rescore only the first N positions of --data [default: all].
    #[arg(long, value_name = "N")]
    positions: Option<usize>,
    /// Rescore the K-th of N contiguous parts of those positions (K from 1 to
    /// N); `kingme merge-data` joins the N files into the unsharded run's.
    #[arg(long, value_name = "K/N")]
    shard: Option<kingme::shard::Shard>,
    /// Transposition table per thread, MiB.
    #[arg(long, default_value_t = kingme::engine::DEFAULT_HASH_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=kingme::engine::MAX_HASH_MIB as u64))]
    hash: u64,
    #[command(flatten)]
    run: LabelArgs,
}

/// How many records of `out` are already the rescoring of the first ones of
/// `cfg.shard`'s part of `input`; a whole rescoring's header is brought up
/// to date with `input` (a continuation may rescore more of it).
fn already_done(
    out: &Path,
    input: &[kingme::datagen::Record],
    cfg: &kingme::datagen::rescore::RescoreConfig,
) -> Result<usize, String> {
    use kingme::datagen::record;
    record::cut_torn_record(out).map_err(|e| e.to_string())?;
    let (header, done) = record::read(out).map_err(|e| e.to_string())?;
    let want = cfg.header(input);
    let part = cfg.shard.part_of(input);
    let same_job = if header.is_v1() {
        cfg.shard.is_whole()
    } else if cfg.shard.is_whole() {
        header.source == want.source && header.shard.is_whole()
    } else {
        header == want
    };
    let same = same_job
        && done.len() <= part.len()
        && done
            .iter()
            .zip(part)
            .all(|(a, b)| (a.position, a.result) == (b.position, b.result));
    if !same {
        let what = if cfg.shard.is_whole() {
            String::new()
        } else {
            format!(" of shard {}", cfg.shard)
        };
        return Err(format!(
            "{}: its records are not a rescoring of the first positions{what} of the data given",
            out.display()
        ));
    }
    if !header.is_v1() && header != want {
        std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .and_then(|mut f| record::rewrite_header(&mut f, &want))
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(done.len())
}

pub(crate) fn run_rescore(a: &RescoreArgs) -> Result<(), String> {
    use kingme::datagen::{record, rescore};
    let continued = a.run.continues(&a.out)?;
    // every argument is checked before the output is touched
    let mut input = record::read_file(&a.data).map_err(|e| e.to_string())?;
    input.truncate(a.positions.unwrap_or(usize::MAX));
    let cfg = rescore::RescoreConfig {
        nodes: a.nodes.max(1),
        depth: a.run.depth,
        egdb: a.run.tablebase()?,
        threads: a.run.threads(),
        eval: a.run.evaluator()?,
        hash_mib: usize::try_from(a.hash).unwrap_or(kingme::engine::DEFAULT_HASH_MIB),
        shard: a.shard.unwrap_or_default(),
    };
    let done = if continued {
        already_done(&a.out, &input, &cfg)?
    } else {
        0
    };
    let mut out = open_output(&a.out, continued)?;
    let part = cfg.shard.part_of(&input).len();
    let bar = a.run.progress_bar(
        part as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} positions (eta {eta})",
    );
    bar.set_position(done as u64);
    let stop = super::stop_on_signal();
    let t = Instant::now();
    let written = rescore::run(&cfg, &input, done, &mut out, stop, |n| {
        bar.set_position(n as u64);
    })
    .map_err(|e| format!("{}: {e}", a.out.display()))?;
    bar.finish_and_clear();
    drop(out);
    let per_position = budget(cfg.nodes, cfg.depth);
    let shard = if cfg.shard.is_whole() {
        String::new()
    } else {
        let r = cfg.shard.part(input.len() as u64);
        format!(" shard {} (records {}..{})", cfg.shard, r.start, r.end)
    };
    println!(
        "rescore {} positions {} (+{} this run) from {}{shard} eval {} {per_position} egdb {} time {:.1}s",
        a.out.display(),
        written,
        written - done,
        a.data.display(),
        cfg.eval.describe(),
        cfg.egdb.as_ref().map_or(0, |tb| tb.max_pieces()),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
