//! The search signature: `kingme bench` must search exactly the node total
//! recorded in `kingme::bench::SIGNATURE`, as Stockfish's CI checks its bench.
//! A change to search, ordering, evaluation or the table that moves the count
//! fails here until the recorded figure is updated (with the reason in the
//! commit message).

#[test]
fn bench_node_total_is_the_recorded_signature() {
    let rows = kingme::bench::run(0);
    assert_eq!(
        rows.len(),
        kingme::bench::POSITIONS.len(),
        "every bench position searched"
    );
    assert!(rows.iter().all(|r| r.nodes > 0), "{rows:?}");
    let total: u64 = rows.iter().map(|r| r.nodes).sum();
    assert_eq!(
        total,
        kingme::bench::SIGNATURE,
        "the bench signature moved: update kingme::bench::SIGNATURE if the change is meant"
    );
}
