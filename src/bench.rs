//! `kingme bench`: fixed positions searched to fixed depths on one thread with
//! fresh tables. The node total is a signature of search behaviour.

use crate::board::{Game, Position, Variant};
use crate::engine::{Engine, EngineOption, Event, GoLimits};
use std::time::{Duration, Instant};

/// The node total of [`run`]`(0)`: the search signature. A change to the
/// search that moves it updates it here (and says why in the commit);
/// `tests/bench_signature.rs` fails until it does.
pub const SIGNATURE: u64 = 2_106_199;

/// The bench's table size in MiB, whatever the engine's default: the
/// signature and the speed figures stay comparable across that default.
pub const HASH_MIB: usize = 16;

/// Positions and depths searched by the bench.
pub const POSITIONS: &[(Variant, &str, u32)] = &[
    (
        Variant::English,
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        15,
    ),
    (
        Variant::English,
        "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9",
        14,
    ),
    (
        Variant::English,
        "B:W18,19,21,23,24,26,27,29,30,31,32:B1,2,3,5,6,7,9,10,11,12,14",
        14,
    ),
    (
        Variant::English,
        "W:W14,18,22,25,26,27,29,30:B1,3,5,6,9,11,12,15",
        16,
    ),
    (Variant::English, "B:WK14,K22,27:B3,K9,12", 20),
    (Variant::Mini, "B:W13,14,15,16,17,18:B1,2,3,4,5,6", 12),
    (Variant::Mini, "W:W10,13,15,16,17:B2,4,5,7,8", 12),
];

/// One bench line.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// The position.
    pub fen: String,
    /// Variant.
    pub variant: Variant,
    /// Depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// Best move found.
    pub best: String,
}

/// Runs the bench; `depth_delta` shifts every depth (negative for a quick run).
/// No endgame database is probed: the signature does not depend on one.
#[must_use]
pub fn run(depth_delta: i32) -> Vec<BenchRow> {
    run_with(depth_delta, None, None).unwrap_or_default()
}

/// Runs the bench probing the endgame databases of directory `egdb` (none
/// when `None`) with the English evaluation `eval` (as the `EvalFile` option
/// names it; the default when `None`); an error when either can't be opened.
pub fn run_with(
    depth_delta: i32,
    egdb: Option<&str>,
    eval: Option<&str>,
) -> Result<Vec<BenchRow>, String> {
    let mut rows = Vec::new();
    for &(variant, fen, depth) in POSITIONS {
        // a bad position would change the signature without a word: refuse it
        let pos = Position::from_fen(variant, fen)
            .unwrap_or_else(|e| panic!("bench position {fen} ({variant}): {e}"));
        let depth = (depth as i32 + depth_delta).max(1) as u32;
        let mut engine = Engine::new();
        // heuristic search only: the exact mini table would make the signature
        // depend on whether its background build has finished
        let _ = engine.set(EngineOption::MiniTable(false));
        // the bench's own size, whatever the engine's default
        engine
            .set(EngineOption::Hash(HASH_MIB))
            .map_err(|e| e.to_string())?;
        if let Some(name) = eval {
            crate::protocol::set_option(&mut engine, "EvalFile", name)
                .map_err(|e| e.to_string())?;
        }
        match egdb {
            None => {
                let _ = engine.set(EngineOption::EgdbPieces(0));
            }
            Some(dir) => {
                crate::protocol::set_option(&mut engine, "EGDBPath", dir)
                    .map_err(|e| e.to_string())?;
                // every file in memory before the clock starts, so that the
                // figures are the same from run to run
                if let Some(tb) = engine.tablebase() {
                    tb.preload(tb.max_pieces());
                }
            }
        }
        let game = Game::from_position(pos);
        let t = Instant::now();
        let events = engine.search_blocking(
            &game,
            GoLimits {
                depth: Some(depth),
                ..Default::default()
            },
        );
        let time = t.elapsed();
        let mut nodes = 0;
        let mut best = String::from("none");
        for e in events {
            match e {
                Event::Info(i) => nodes = i.nodes,
                Event::BestMove { mv: Some(m), .. } => best = m.to_string(),
                _ => {}
            }
        }
        rows.push(BenchRow {
            fen: fen.to_string(),
            variant,
            depth,
            nodes,
            time,
            best,
        });
    }
    Ok(rows)
}
