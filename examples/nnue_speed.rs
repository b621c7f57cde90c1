//! Nanoseconds per evaluation: the network with its per-thread cache (each
//! position one move from the one before), the network computed afresh, and
//! the pattern evaluation, over the same 1000 positions of random games.
//!
//! `cargo run --release --example nnue_speed -- [NETWORK.kmn]` (the shipped
//! network when no file is named). A benchmark: it prints, it asserts nothing.

use kingme::eval::{EvalCache, Network};
use kingme::{Position, Variant};
use std::time::Instant;

fn main() {
    let net = match std::env::args().nth(1) {
        Some(path) => Network::load(std::path::Path::new(&path)).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        }),
        None => (*Network::builtin()).clone(),
    };
    let mut positions = Vec::new();
    let mut pos = Position::startpos(Variant::English);
    let mut r = 12345u64;
    while positions.len() < 1000 {
        let m = pos.legal_moves();
        if m.is_empty() {
            pos = Position::startpos(Variant::English);
            continue;
        }
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = m[((r >> 33) % m.len() as u64) as usize];
        let next = pos.after(mv);
        positions.push(next);
        pos = next;
    }
    let mut cache = EvalCache::new();
    let mut s = 0i64;
    let ns = ns_per_eval(&positions, 1000, &mut s, |p| cache.evaluate(&net, p) as i64);
    println!("cached: {ns:.1} ns/eval ({s})");
    let ns = ns_per_eval(&positions, 100, &mut s, |p| net.evaluate(p) as i64);
    println!("fresh: {ns:.1} ns/eval ({s})");
    let pw = kingme::eval::PatternWeights::builtin();
    let ns = ns_per_eval(&positions, 1000, &mut s, |p| pw.evaluate(p) as i64);
    println!("patterns: {ns:.1} ns/eval ({s})");
}

/// Nanoseconds per call of `eval`, called `rounds` times on each of
/// `positions`; its scores are added to `sum` (so no call is left out).
fn ns_per_eval(
    positions: &[Position],
    rounds: u32,
    sum: &mut i64,
    mut eval: impl FnMut(&Position) -> i64,
) -> f64 {
    let t = Instant::now();
    for _ in 0..rounds {
        for p in positions {
            *sum += eval(p);
        }
    }
    t.elapsed().as_nanos() as f64 / (f64::from(rounds) * positions.len() as f64)
}
