//! `kingme perft` and `kingme divide`: counting the move tree.

use clap::Args;
use kingme::board::{Position, Variant};
use kingme::perft::{self, Counting};
use std::time::Instant;

#[derive(Args, Debug)]
pub(crate) struct PerftArgs {
    /// Rules to use: english or mini.
    #[arg(long, default_value = "english")]
    variant: Variant,
    /// Start from this PDN FEN instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Count duplicate capture paths (same start, end and captures) once.
    #[arg(long)]
    distinct: bool,
    /// Size in MiB of a table of subtree counts (0: no table, plain bulk counting).
    /// Ignored with --distinct.
    #[arg(long, default_value_t = 0)]
    hash: usize,
    /// Depth in plies (1-30).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=30))]
    depth: u32,
}

pub(crate) fn position_of(a: &PerftArgs) -> Result<Position, String> {
    match &a.fen {
        Some(f) => Position::from_fen(a.variant, f).map_err(|e| e.to_string()),
        None => Ok(Position::startpos(a.variant)),
    }
}

pub(crate) fn run_perft(a: &PerftArgs, split: bool) -> Result<(), String> {
    let pos = position_of(a)?;
    let counting = if a.distinct {
        Counting::Distinct
    } else {
        Counting::AllPaths
    };
    let mut table = if a.hash > 0 && !a.distinct {
        Some(perft::PerftTable::try_new(a.hash).map_err(|e| e.to_string())?)
    } else {
        None
    };
    println!(
        "# variant {} fen {} ({})",
        a.variant,
        pos,
        counting.describe()
    );
    if split {
        let t = Instant::now();
        let (mut moves, mut total) = (0, 0);
        perft::divide_each(&pos, a.depth, counting, table.as_mut(), |m, n, _| {
            println!("{m} {n}");
            moves += 1;
            total += n;
        });
        println!(
            "moves {moves} total {total} time {:.3}s",
            t.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    for d in 1..=a.depth {
        let t = Instant::now();
        let n = if d < 3 {
            match table.as_mut() {
                Some(tb) => perft::perft_with_table(&pos, d, tb),
                None => perft::perft(&pos, d, counting),
            }
        } else {
            // split at the root, to say how far a long count has got
            let mut n = 0;
            perft::divide_each(&pos, d, counting, table.as_mut(), |_, count, left| {
                n += count;
                let secs = t.elapsed().as_secs_f64();
                if secs >= 2.0 && left > 0 {
                    let moves = if left == 1 { "move" } else { "moves" };
                    eprintln!("info perft {d}: {left} root {moves} left, {secs:.1}s");
                }
            });
            n
        };
        let secs = t.elapsed().as_secs_f64();
        println!(
            "perft {d} {n} time {secs:.3}s leaves/s {:.1}M",
            n as f64 / secs.max(1e-9) / 1e6
        );
    }
    Ok(())
}
