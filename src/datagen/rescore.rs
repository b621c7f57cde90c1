//! `kingme rescore`: a data file's positions labelled again by a deeper search.
//!
//! Each record keeps its position and game result; its score becomes that of a
//! fresh search of the position alone (an empty table, no noise, no game
//! history) with the given evaluation and budget. Records are taken in order
//! and written in order, in chunks, so a run can be stopped and continued
//! (the output's records are the input's first ones) and its bytes do not
//! depend on the number of threads.
//!
//! A shard ([`RescoreConfig::shard`]) rescores one contiguous part of the
//! input: the shards' files joined in order ([`super::merge`]) are the file
//! of one run over the whole input, byte for byte.

use super::record::{self, Header, Record, Source};
use super::{label_of, labelling_search, Silent};
use crate::egdb::Tablebase;
use crate::eval::Evaluator;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, History};
use crate::shard::Shard;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Records searched between two writes of the output.
const CHUNK: usize = 256;

/// How a rescoring run searches.
#[derive(Clone, Debug)]
pub struct RescoreConfig {
    /// Nodes per position.
    pub nodes: u64,
    /// Depth per position instead of nodes.
    pub depth: Option<u32>,
    /// Endgame databases the searches probe.
    pub egdb: Option<Arc<Tablebase>>,
    /// Threads searching.
    pub threads: usize,
    /// The evaluation that searches.
    pub eval: Evaluator,
    /// Transposition table per thread, MiB.
    pub hash_mib: usize,
    /// The part of the input rescored: the `K`-th of `N` contiguous parts.
    pub shard: Shard,
}

impl Default for RescoreConfig {
    fn default() -> Self {
        RescoreConfig {
            nodes: 100_000,
            depth: None,
            egdb: None,
            threads: 1,
            eval: Evaluator::default(),
            hash_mib: crate::engine::DEFAULT_HASH_MIB,
            shard: Shard::WHOLE,
        }
    }
}

impl RescoreConfig {
    /// The header of the file that rescores `input` (the whole input, of
    /// which the shard rescores its part).
    #[must_use]
    pub fn header(&self, input: &[Record]) -> Header {
        Header {
            shard: self.shard,
            whole: input.len() as u64,
            input: record::fingerprint(input),
            ..Header::new(Source::Rescored, 0)
        }
    }
}

/// The score for the side to move of a search of `pos` alone, as a data
/// file stores it.
fn score_of(cfg: &RescoreConfig, pos: &crate::board::Position, tt: &TranspositionTable) -> i16 {
    tt.clear();
    let limits = labelling_search(cfg.nodes, cfg.depth, cfg.egdb.as_ref(), &cfg.eval);
    let hist = History::default();
    let res = search::search(pos, &hist, &limits, tt, &Control::default(), &mut Silent);
    label_of(res.last.map(|l| l.score)) as i16
}

/// Writes the records of `cfg.shard`'s part of `input` from the `done`-th
/// on, rescored, to `out` (which holds the part's first `done` already, after
/// its header; the header is written first when `done` is 0); returns the
/// part's records written. `progress` is called with the records written so
/// far after each chunk; `stop` ends the run after the chunk under way.
pub fn run(
    cfg: &RescoreConfig,
    input: &[Record],
    done: usize,
    out: &mut impl Write,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize),
) -> std::io::Result<usize> {
    if done == 0 {
        cfg.header(input).write(out)?;
    }
    let input = cfg.shard.part_of(input);
    if let Some(tb) = &cfg.egdb {
        // as datagen: every file read before the searches, so that a score
        // does not depend on when a file was read
        tb.preload(tb.max_pieces());
    }
    let threads = cfg.threads.max(1);
    let tables = (0..threads)
        .map(|_| TranspositionTable::try_new(cfg.hash_mib).map_err(std::io::Error::other))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut written = done.min(input.len());
    while written < input.len() && !stop.load(Ordering::Relaxed) {
        let chunk = &input[written..(written + CHUNK).min(input.len())];
        let next = AtomicUsize::new(0);
        let mut scores = vec![0i16; chunk.len()];
        let found: Vec<Vec<(usize, i16)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = tables
                .iter()
                .map(|tt| {
                    let next = &next;
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(r) = chunk.get(i) else { break };
                            mine.push((i, score_of(cfg, &r.position, tt)));
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a rescoring thread panicked"))
                .collect()
        });
        for (i, s) in found.into_iter().flatten() {
            scores[i] = s;
        }
        for (r, score) in chunk.iter().zip(scores) {
            out.write_all(&Record { score, ..*r }.to_bytes())?;
        }
        out.flush()?;
        written += chunk.len();
        progress(written);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, Variant};

    fn records(bytes: &[u8]) -> Vec<Record> {
        record::parse(bytes, "the output").expect("a whole data file of legal positions")
    }

    fn input() -> Vec<Record> {
        let fens = [
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
            "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,12,14,16",
            "B:WK14,K22,27,30:B3,K9,12,5",
            // Black to move, a man up with a free path to the crown
            "B:W28,29,30:B5,6,7,20",
        ];
        let mut v = Vec::new();
        for round in 0..(CHUNK / fens.len() + 2) {
            for f in fens {
                let position = Position::from_fen(Variant::English, f).unwrap();
                v.push(Record {
                    position,
                    result: (round % 3) as u8,
                    score: 7,
                });
            }
        }
        v
    }

    #[test]
    fn rescoring_keeps_positions_and_results_and_continues_where_it_stopped() {
        let cfg = RescoreConfig {
            nodes: 3000,
            hash_mib: 1,
            ..RescoreConfig::default()
        };
        let input = input();
        assert!(input.len() > CHUNK, "two chunks at least");
        let stop = AtomicBool::new(false);
        let mut one = Vec::new();
        let n = run(&cfg, &input, 0, &mut one, &stop, |_| {}).unwrap();
        assert_eq!(n, input.len());
        let got = records(&one);
        assert_eq!(got.len(), input.len());
        for (a, b) in got.iter().zip(&input) {
            assert_eq!((a.position, a.result), (b.position, b.result));
        }
        // each score is the search's of the position (alike for equal
        // positions), and the man up scores well above the balanced start
        for (i, r) in got.iter().enumerate() {
            assert_eq!(r.score, got[i % 4].score, "record {i}");
        }
        assert!(got[3].score > got[0].score + 50, "{:?}", &got[..4]);

        // two threads, and a run stopped after its first chunk then
        // continued: the same bytes
        let two = RescoreConfig { threads: 2, ..cfg };
        let mut parts = Vec::new();
        let stop_now = AtomicBool::new(false);
        let first = run(&two, &input, 0, &mut parts, &stop_now, |_| {
            stop_now.store(true, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(first, CHUNK);
        let n = run(&two, &input, first, &mut parts, &stop, |_| {}).unwrap();
        assert_eq!(n, input.len());
        assert!(parts == one, "threads or a restart changed the output");
    }
}
