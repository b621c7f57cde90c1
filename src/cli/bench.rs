//! `kingme bench`: the search signature.

use std::time::Instant;

pub(crate) fn run_bench(
    depth_delta: i32,
    egdb: Option<&str>,
    eval: Option<&str>,
) -> Result<(), String> {
    let t = Instant::now();
    let rows = kingme::bench::run_with(depth_delta, egdb, eval)?;
    let mut nodes = 0;
    let mut searching = std::time::Duration::ZERO;
    for r in &rows {
        println!(
            "{} depth {} nodes {} time {:.3}s best {} fen {}",
            r.variant,
            r.depth,
            r.nodes,
            r.time.as_secs_f64(),
            r.best,
            r.fen
        );
        nodes += r.nodes;
        searching += r.time;
    }
    if egdb.is_some() {
        // opening and reading the databases is not search time
        println!(
            "databases opened and read in {:.3}s",
            (t.elapsed().saturating_sub(searching)).as_secs_f64()
        );
    }
    let secs = searching.as_secs_f64();
    println!(
        "nodes {nodes} time {secs:.3}s nps {:.0}",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
