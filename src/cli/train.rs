//! `kingme train`: fitting the pattern weights or the network to datagen data.

use super::progress_bar;
use clap::Args;
use kingme::datagen::record::Record;
use kingme::train::EpochReport;
use std::time::Instant;

/// What a fit wrote: its summary, checksum and `K`.
type Fitted = Result<(String, u64, f64), String>;

/// What `kingme train` fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Model {
    /// The pattern evaluation's weights.
    Patterns,
    /// The network evaluation.
    Network,
}

#[derive(Args, Debug)]
pub(crate) struct TrainArgs {
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
    /// What to train: the pattern weights (`.kmw`) or the network (`.kmn`).
    #[arg(long, value_enum, default_value_t = Model::Patterns)]
    model: Model,
    /// Adam step size at the start; it falls linearly to a tenth
    /// [default: 1.0 centi-men for patterns, 0.002 for the network].
    #[arg(long)]
    lr: Option<f64>,
    /// Share of the game result in the target (the rest is the search score), 0 to 1.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Centi-men per unit of the logistic [default: fitted to the data].
    #[arg(long)]
    scale: Option<f64>,
    /// Starting weights. Patterns: material (a man 100, a king 150), builtin, or a
    /// weights file. Network: random, builtin, or a network file [default: material
    /// for patterns, random for the network].
    #[arg(long, value_name = "WEIGHTS")]
    init: Option<String>,
    /// Network: accumulator width per perspective (a multiple of 16, at most 512).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Network: widths of the two dense layers (at most 64 each).
    #[arg(long, num_args = 2, value_names = ["L1", "L2"], default_values_t = [16, 32])]
    dense: Vec<usize>,
    /// Network: sets of dense layers, chosen by the number of pieces (1 to 8);
    /// from random weights each needs at least 1 training position in 1,000.
    #[arg(long, default_value_t = 1)]
    buckets: usize,
    /// Network: sets of first-layer rows, chosen by who has kings (1; 2: none,
    /// some; 3: none, one side's, both sides').
    #[arg(long, default_value_t = 1)]
    input_buckets: usize,
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

pub(crate) fn run_train(a: &TrainArgs) -> Result<(), String> {
    if !(0.0..=1.0).contains(&a.lambda) {
        return Err(format!("--lambda {} is not between 0 and 1", a.lambda));
    }
    if a.scale.is_some_and(|k| !(k.is_finite() && k > 0.0))
        || a.lr.is_some_and(|lr| !(lr.is_finite() && lr > 0.0))
    {
        return Err("--scale and --lr must be positive numbers".into());
    }
    use kingme::eval::network::{MAX_BUCKETS, MAX_DENSE, MAX_HIDDEN, MAX_INPUT_BUCKETS};
    let (h, l1, l2, b) = (a.hidden, a.dense[0], a.dense[1], a.buckets);
    let ib = a.input_buckets;
    if a.model == Model::Network && !kingme::eval::Network::evaluable(h, ib, l1, l2, b) {
        return Err(format!(
            "--hidden {h} --input-buckets {ib} --dense {l1} {l2} --buckets {b}: the accumulator is a multiple of 16 up to {MAX_HIDDEN}, input buckets 1 to {MAX_INPUT_BUCKETS}, each dense layer 1 to {MAX_DENSE}, buckets 1 to {MAX_BUCKETS}"
        ));
    }
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
    let bar = progress_bar(
        u64::from(a.epochs),
        a.quiet,
        "{elapsed_precise} [{bar:30}] epoch {pos}/{len} {msg} (eta {eta})",
    );
    let report = |r: &EpochReport| {
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
    };
    let (what, checksum, k) = match a.model {
        Model::Patterns => train_patterns(a, &records, report)?,
        Model::Network => train_network(a, &records, report)?,
    };
    bar.finish_and_clear();
    println!(
        "train {} {what} checksum {checksum:016x} target-K {k:.1} positions {} epochs {} time {:.1}s",
        a.out.display(),
        records.len(),
        a.epochs,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Fits the pattern weights and writes them.
fn train_patterns(a: &TrainArgs, data: &[Record], mut report: impl FnMut(&EpochReport)) -> Fitted {
    use kingme::eval::PatternWeights;
    use kingme::train::patterns::{self, TrainConfig};
    let init = match a.init.as_deref().unwrap_or("material") {
        "material" => patterns::material_start(),
        "builtin" => (*PatternWeights::builtin()).clone(),
        path => PatternWeights::load(std::path::Path::new(path)).map_err(|e| e.to_string())?,
    };
    let cfg = TrainConfig {
        epochs: a.epochs,
        batch: a.batch.max(1),
        lr: a.lr.unwrap_or(1.0),
        lambda: a.lambda,
        scale: a.scale,
        generation: a.generation,
        seed: a.seed,
        ..Default::default()
    };
    let (weights, k) = patterns::train(data, &cfg, &init, &mut report);
    weights.save(&a.out).map_err(|e| e.to_string())?;
    Ok((
        format!("patterns generation {}", weights.generation),
        weights.checksum(),
        k,
    ))
}

/// Fits the network and writes it.
fn train_network(a: &TrainArgs, data: &[Record], report: impl FnMut(&EpochReport)) -> Fitted {
    use kingme::eval::Network;
    use kingme::train::network::{self, NetConfig};
    let init = match a.init.as_deref().unwrap_or("random") {
        "random" => None,
        "builtin" => Some((*Network::builtin()).clone()),
        path => Some(Network::load(std::path::Path::new(path)).map_err(|e| e.to_string())?),
    };
    let cfg = NetConfig {
        epochs: a.epochs,
        batch: a.batch.max(1),
        lr: a.lr.unwrap_or(NetConfig::default().lr),
        lambda: a.lambda,
        scale: a.scale,
        generation: a.generation,
        seed: a.seed,
        hidden: a.hidden,
        input_buckets: a.input_buckets,
        l1: a.dense[0],
        l2: a.dense[1],
        buckets: a.buckets,
        ..Default::default()
    };
    let (net, k) = network::train(data, &cfg, init.as_ref(), report).map_err(|e| e.to_string())?;
    net.save(&a.out).map_err(|e| e.to_string())?;
    Ok((
        format!(
            "network generation {} {}",
            net.generation,
            net.architecture()
        ),
        net.checksum(),
        k,
    ))
}
