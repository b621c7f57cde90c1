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
    let t = Instant::now();
    let mut s = 0i64;
    for _ in 0..1000 {
        for p in &positions {
            s += cache.evaluate(&net, p) as i64;
        }
    }
    let e = t.elapsed();
    println!("cached: {:.1} ns/eval ({s})", e.as_nanos() as f64 / 1e6);
    let t = Instant::now();
    for _ in 0..100 {
        for p in &positions {
            s += net.evaluate(p) as i64;
        }
    }
    println!(
        "fresh: {:.1} ns/eval ({s})",
        t.elapsed().as_nanos() as f64 / 1e5
    );
    let pw = kingme::eval::PatternWeights::builtin();
    let t = Instant::now();
    for _ in 0..1000 {
        for p in &positions {
            s += pw.evaluate(p) as i64;
        }
    }
    println!(
        "patterns: {:.1} ns/eval ({s})",
        t.elapsed().as_nanos() as f64 / 1e6
    );
}
