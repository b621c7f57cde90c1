//! `kingme train`: fitting the learned evaluation to datagen data.

use super::progress_bar;
use clap::Args;
use std::time::Instant;

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
    /// Adam step size at the start (centi-men); it falls linearly to a tenth.
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// Share of the game result in the target (the rest is the search score), 0 to 1.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Centi-men per unit of the logistic [default: fitted to the data].
    #[arg(long)]
    scale: Option<f64>,
    /// Starting weights: material (a man 100, a king 150), builtin, or a weights file.
    #[arg(long, default_value = "material", value_name = "WEIGHTS")]
    init: String,
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
    use kingme::eval::LearnedWeights;
    use kingme::train::{self, TrainConfig};
    if !(0.0..=1.0).contains(&a.lambda) {
        return Err(format!("--lambda {} is not between 0 and 1", a.lambda));
    }
    if a.scale.is_some_and(|k| !(k.is_finite() && k > 0.0)) || !(a.lr.is_finite() && a.lr > 0.0) {
        return Err("--scale and --lr must be positive numbers".into());
    }
    let init = match a.init.as_str() {
        "material" => train::material_start(),
        "builtin" => (*LearnedWeights::builtin()).clone(),
        path => LearnedWeights::load(std::path::Path::new(path)).map_err(|e| e.to_string())?,
    };
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
    let cfg = TrainConfig {
        epochs: a.epochs,
        batch: a.batch.max(1),
        lr: a.lr,
        lambda: a.lambda,
        scale: a.scale,
        generation: a.generation,
        seed: a.seed,
        ..Default::default()
    };
    let bar = progress_bar(
        u64::from(cfg.epochs),
        a.quiet,
        "{elapsed_precise} [{bar:30}] epoch {pos}/{len} {msg} (eta {eta})",
    );
    let (weights, k) = train::train(&records, &cfg, &init, |r| {
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
    });
    bar.finish_and_clear();
    weights.save(&a.out).map_err(|e| e.to_string())?;
    println!(
        "train {} generation {} checksum {:016x} scale {:.1} positions {} epochs {} time {:.1}s",
        a.out.display(),
        weights.generation,
        weights.checksum(),
        k,
        records.len(),
        cfg.epochs,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
