//! `kingme solve`: the exact value of a mini-checkers position.

use clap::Args;
use kingme::board::{Position, Variant};
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct SolveArgs {
    /// Rules to use: only mini can be solved.
    #[arg(long, default_value = "mini")]
    variant: Variant,
    /// Solve this PDN FEN instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Threads building the table (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
}

pub(crate) fn run_solve(a: &SolveArgs) -> Result<(), String> {
    use kingme::solve::MiniTablebase;
    // RUST_LOG=kingme=debug shows the build's phases
    kingme::server::init_logging("warn");
    if a.variant != Variant::Mini {
        return Err(format!(
            "variant {} can't be solved: only mini is small enough",
            a.variant
        ));
    }
    let pos = match &a.fen {
        Some(f) => Position::from_fen(a.variant, f).map_err(|e| e.to_string())?,
        None => Position::startpos(a.variant),
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = a.threads {
        pool = pool.num_threads(usize::from(n));
    }
    let pool = pool
        .build()
        .map_err(|e| format!("can't start the threads: {e}"))?;
    let t = Instant::now();
    let table = pool.install(|| MiniTablebase::build(&mut |_| {}));
    let built = t.elapsed();
    // a position the start can't reach is solved on top of the table
    let value = table.value(&pos);
    println!(
        "value {value} fen {pos} positions {} threads {} table {:.1}MB build {:.3}s time {:.3}s",
        table.len(),
        pool.current_num_threads(),
        table.table_bytes() as f64 / 1e6,
        built.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    for (m, v) in table.move_values(&pos) {
        println!("{m} {v}");
    }
    Ok(())
}
