//! `kingme datagen`: self-play games of English that become training data for the
//! pattern weights and the network (`kingme train`).
//!
//! Each game starts from an ACF 3-move ballot followed by a few random plies, then
//! both sides play kingme's search at a fixed node budget (or depth) with a
//! little leaf noise. Every position without a capture pending is kept with the
//! search score and, once the game is over, its result ([`record`] has the file
//! format); a position already written in the run is not written again. A game
//! ends by the rules (no move, threefold repetition, the 40-move rule), when it
//! reaches a position the endgame databases know (its exact value is the game's
//! result: every position before it leads there), when a search finds a forced
//! win, when one side's score stays above [`DatagenConfig::adjudicate`] for eight
//! plies, or as a draw after [`DatagenConfig::max_plies`].
//!
//! Games are numbered 0, 1, 2, …: game `g`'s start, random plies and noise
//! come from the seed and `g` alone, and its searches start from an empty
//! table, so a game is the same in every run that plays it, on any thread.
//! Games are played on several threads and written in their numbers' order,
//! so a run's file depends on its seed and settings, not on the threads.
//! A run plays games from the first until it has its positions, or only
//! those numbered below [`DatagenConfig::games`]; a shard
//! ([`DatagenConfig::shard`]) plays one contiguous range of those, so the
//! shards of a run, joined in order by [`merge`], are the run's file.
//!
//! A run may continue a file ([`Existing`]): its positions count towards the
//! total and are not written again, and it goes on from the next game the
//! file's header names (a game played again writes nothing: its positions
//! are in the file), so a run stopped and continued writes the file of one
//! that never stopped.
//!
//! [`rescore`] labels a data file's positions again by a deeper search.

pub mod endings;
pub mod merge;
pub mod record;
pub mod rescore;

use crate::board::{Game, Outcome, Position};
use crate::egdb::Tablebase;
use crate::eval::Evaluator;
use crate::openings;
use crate::rng::SplitMix64;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Control, Iteration, Score, SearchLimits, SearchReport, TraceNode};
use crate::shard::Shard;
pub use record::Record;
use record::{Header, Source, SCORE_CLAMP};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

/// What a datagen run plays.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// Stop after this many positions (written ones: a repeat does not
    /// count, so a run whose games cannot give this many goes on until
    /// stopped or `games` ends it).
    pub positions: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Depth per move instead of nodes.
    pub depth: Option<u32>,
    /// The endgame databases that end games and give their results (and that
    /// the searches probe).
    pub egdb: Option<Arc<Tablebase>>,
    /// Threads playing games.
    pub threads: usize,
    /// Seed of the openings, random plies and noise.
    pub seed: u64,
    /// The positions games start from, one drawn at random per game before
    /// the random plies; empty: the 3-move ballots.
    pub starts: Vec<Position>,
    /// Random plies after the start position: 0 up to this many.
    pub random_plies: u32,
    /// Leaf noise amplitude (centi-men).
    pub noise: i32,
    /// The evaluation both sides play with.
    pub eval: Evaluator,
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// Score (centi-men) that, held by one side for eight plies, wins the game.
    pub adjudicate: i32,
    /// Transposition table per thread, MiB.
    pub hash_mib: usize,
    /// Play only the games numbered below this (those of the whole run, all
    /// its shards together); `None`: as many as `positions` takes.
    pub games: Option<u64>,
    /// The part of the games this run plays: the `K`-th of `N` contiguous
    /// ranges of the game numbers below `games` (which a shard needs).
    pub shard: Shard,
}

impl Default for DatagenConfig {
    fn default() -> Self {
        DatagenConfig {
            positions: 100_000,
            nodes: 4000,
            depth: None,
            egdb: None,
            threads: 1,
            seed: 1,
            starts: Vec::new(),
            random_plies: 4,
            noise: 8,
            eval: Evaluator::default(),
            max_plies: 300,
            adjudicate: 500,
            hash_mib: 4,
            games: None,
            shard: Shard::WHOLE,
        }
    }
}

impl DatagenConfig {
    /// The numbers of the games this run may play: its shard's range.
    fn game_numbers(&self) -> std::io::Result<Range<u64>> {
        match self.games {
            Some(g) => Ok(self.shard.part(g)),
            None if self.shard.is_whole() => Ok(0..u64::MAX),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a shard of a datagen run needs the run's number of games",
            )),
        }
    }

    /// The header of a new file of this run.
    #[must_use]
    pub fn header(&self) -> Header {
        Header {
            shard: self.shard,
            whole: self.games.unwrap_or(0),
            next_game: self.game_numbers().map_or(0, |r| r.start),
            ..Header::new(Source::Games, self.seed)
        }
    }
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: u64,
    /// Positions in the file (those of the file continued included).
    pub positions: u64,
    /// Games won by Black, drawn, won by White.
    pub results: [u64; 3],
    /// Positions left out because the run had written them already.
    pub duplicates: u64,
    /// Games ended by the endgame databases.
    pub by_egdb: u64,
    /// The number of the next game: the file holds the games below it (a
    /// caller keeps it in the file's header, [`record::rewrite_header`]).
    pub next_game: u64,
}

/// The file a run continues: its positions' count and keys, and its next
/// game; the default is a new file.
#[derive(Clone, Debug, Default)]
pub struct Existing {
    /// Positions in it.
    pub positions: u64,
    /// Their Zobrist keys.
    pub keys: HashSet<u64>,
    /// The first game to play: the file holds the games below it.
    pub next_game: u64,
    /// Whether there is a file (with its header) to continue.
    pub continued: bool,
}

impl Existing {
    /// A file holding `records` after its header, continued from game 0 (the
    /// games it holds are played again and write nothing).
    #[must_use]
    pub fn of(records: &[Record]) -> Existing {
        Existing {
            positions: records.len() as u64,
            keys: records.iter().map(|r| r.position.hash()).collect(),
            next_game: 0,
            continued: true,
        }
    }

    /// A file with `header` and `records`, continued from the next game its
    /// header names.
    #[must_use]
    pub fn of_file(header: &Header, records: &[Record]) -> Existing {
        Existing {
            next_game: header.next_game,
            ..Existing::of(records)
        }
    }
}

/// The generator of game `g`'s start, random plies and noise.
fn game_rng(seed: u64, g: u64) -> SplitMix64 {
    let base = SplitMix64(seed).next_u64();
    SplitMix64(SplitMix64(base ^ g).next_u64())
}

/// How a game ended, and whether the databases ended it.
struct Played {
    outcome: Outcome,
    kept: Vec<(Position, i16)>,
    by_egdb: bool,
}

struct Silent;

impl SearchReport for Silent {
    fn iteration(&mut self, _: &Iteration) {}
    fn trace(&mut self, _: TraceNode) {}
}

/// A one-thread search of `nodes` (or to `depth`) with `eval`, probing `egdb`:
/// the search that labels a position.
fn labelling_search(
    nodes: u64,
    depth: Option<u32>,
    egdb: Option<&Arc<Tablebase>>,
    eval: &Evaluator,
) -> SearchLimits {
    SearchLimits {
        nodes: depth.is_none().then_some(nodes),
        depth,
        egdb: egdb.cloned(),
        egdb_pieces: egdb.map_or(0, |tb| tb.max_pieces()),
        threads: 1,
        eval: eval.clone(),
        ..Default::default()
    }
}

/// A search's score as a data file stores it: centi-men for the side to
/// move, a found win or loss at ±[`SCORE_CLAMP`].
fn label_of(score: Option<Score>) -> i32 {
    match score {
        Some(Score::Win(_)) => SCORE_CLAMP,
        Some(Score::Loss(_)) => -SCORE_CLAMP,
        Some(Score::Eval(s)) => s.clamp(-SCORE_CLAMP + 1, SCORE_CLAMP - 1),
        Some(Score::Draw) | None => 0,
    }
}

/// The outcome of one game and its positions with their search scores.
fn play_game(
    cfg: &DatagenConfig,
    rng: &mut SplitMix64,
    deck: &[Position],
    tt: &TranspositionTable,
) -> Option<Played> {
    let mut game = Game::from_position(deck[(rng.next_u64() % deck.len() as u64) as usize]);
    for _ in 0..rng.next_u64() % (u64::from(cfg.random_plies) + 1) {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    if game.result().is_some() {
        return None;
    }
    tt.clear();
    let mut kept = Vec::new();
    let mut leader_streak = (None, 0u32);
    let mut by_egdb = false;
    let outcome = loop {
        if let Some(end) = game.result() {
            break end.outcome;
        }
        if let Some(o) = cfg
            .egdb
            .as_deref()
            .and_then(|tb| tb.outcome(game.position()))
        {
            by_egdb = true;
            break o;
        }
        if game.moves().len() >= cfg.max_plies {
            break Outcome::Draw;
        }
        let pos = *game.position();
        tt.new_search();
        let limits = SearchLimits {
            noise: cfg.noise,
            seed: rng.next_u64(),
            ..labelling_search(cfg.nodes, cfg.depth, cfg.egdb.as_ref(), &cfg.eval)
        };
        let hist = crate::engine::history_of(&game);
        let res = search::search(&pos, &hist, &limits, tt, &Control::default(), &mut Silent);
        let best = res.best?;
        let score = label_of(res.last.map(|l| l.score));
        if !pos.must_capture() {
            kept.push((pos, score as i16));
        }
        if score.abs() == SCORE_CLAMP {
            let winner = if score > 0 { pos.turn() } else { !pos.turn() };
            break Outcome::Win(winner);
        }
        let leader = if score >= cfg.adjudicate {
            Some(pos.turn())
        } else if score <= -cfg.adjudicate {
            Some(!pos.turn())
        } else {
            None
        };
        leader_streak = match (leader, leader_streak) {
            (Some(l), (Some(p), n)) if l == p => (Some(l), n + 1),
            (l, _) => (l, u32::from(l.is_some())),
        };
        if let (Some(l), 8..) = leader_streak {
            break Outcome::Win(l);
        }
        game.play_unchecked(best);
    };
    Some(Played {
        outcome,
        kept,
        by_egdb,
    })
}

/// Plays games in order until `out` holds `cfg.positions` positions,
/// `existing` ones (already in `out`, after its header) included, or until
/// the run's games are played; writes the header first when there is no
/// file to continue. `progress` is called after each game. `stop` ends the
/// run early: no game starts after it, and the games in flight are still
/// written.
pub fn run(
    cfg: &DatagenConfig,
    out: &mut impl Write,
    existing: Existing,
    stop: &AtomicBool,
    mut progress: impl FnMut(&DatagenSummary),
) -> std::io::Result<DatagenSummary> {
    let numbers = cfg.game_numbers()?;
    let deck: Vec<Position> = if cfg.starts.is_empty() {
        openings::acf_deck()
            .map_err(std::io::Error::other)?
            .into_iter()
            .map(|o| o.position)
            .collect()
    } else {
        cfg.starts.clone()
    };
    if !existing.continued {
        cfg.header().write(out)?;
        out.flush()?;
    }
    if let Some(tb) = &cfg.egdb {
        // searches probe only what is read (they never wait for a file): all
        // of it, so that a run does not depend on when files were read
        tb.preload(tb.max_pieces());
    }
    let mut seen = existing.keys;
    let first = existing.next_game.clamp(numbers.start, numbers.end);
    let tables = (0..cfg.threads.max(1))
        .map(|_| TranspositionTable::try_new(cfg.hash_mib).map_err(std::io::Error::other))
        .collect::<std::io::Result<Vec<_>>>()?;
    let next = AtomicU64::new(first);
    let mut summary = DatagenSummary {
        positions: existing.positions,
        next_game: first,
        ..DatagenSummary::default()
    };
    // set once the file has its positions: no game starts after it
    let enough = AtomicBool::new(summary.positions >= cfg.positions);
    let (tx, rx) = mpsc::sync_channel::<(u64, Option<Played>)>(64);
    std::thread::scope(|scope| -> std::io::Result<()> {
        for (t, tt) in tables.into_iter().enumerate() {
            let tx = tx.clone();
            let (deck, next, enough, end) = (&deck, &next, &enough, numbers.end);
            std::thread::Builder::new()
                .name(format!("kingme-datagen-{t}"))
                .spawn_scoped(scope, move || {
                    while !enough.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
                        let g = next.fetch_add(1, Ordering::Relaxed);
                        if g >= end {
                            break;
                        }
                        let played = play_game(cfg, &mut game_rng(cfg.seed, g), deck, &tt);
                        if tx.send((g, played)).is_err() {
                            break;
                        }
                    }
                })?;
        }
        drop(tx);
        // games finished out of order wait here for the ones before them
        let mut waiting = BTreeMap::new();
        for (g, played) in rx {
            waiting.insert(g, played);
            while !enough.load(Ordering::Relaxed) {
                let Some(played) = waiting.remove(&summary.next_game) else {
                    break;
                };
                summary.next_game += 1;
                if let Some(played) = played {
                    write_game(&played, out, &mut seen, &mut summary)?;
                }
                if summary.positions >= cfg.positions {
                    enough.store(true, Ordering::Relaxed);
                }
                progress(&summary);
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(summary)
}

/// Writes the positions of `played` that `seen` does not hold yet, and
/// counts the game.
fn write_game(
    played: &Played,
    out: &mut impl Write,
    seen: &mut HashSet<u64>,
    summary: &mut DatagenSummary,
) -> std::io::Result<()> {
    let result = record::result_of(played.outcome);
    for (position, score) in &played.kept {
        if !seen.insert(position.hash()) {
            summary.duplicates += 1;
            continue;
        }
        let r = Record {
            position: *position,
            result,
            score: *score,
        };
        out.write_all(&r.to_bytes())?;
        summary.positions += 1;
    }
    out.flush()?;
    summary.games += 1;
    summary.by_egdb += u64::from(played.by_egdb);
    summary.results[2 - result as usize] += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(bytes: &[u8]) -> Vec<Record> {
        record::parse(bytes, "the output").expect("a whole data file of legal positions")
    }

    fn config(positions: u64) -> DatagenConfig {
        let mut tb = Tablebase::new();
        tb.add_builtin().expect("the built-in databases");
        DatagenConfig {
            positions,
            nodes: 200,
            // no adjudication by score: games run into the databases
            adjudicate: 100_000,
            egdb: Some(Arc::new(tb)),
            ..DatagenConfig::default()
        }
    }

    #[test]
    fn games_end_in_the_databases_and_no_position_is_written_twice() {
        let cfg = config(1200);
        let stop = AtomicBool::new(false);
        let mut out = Vec::new();
        let s = run(&cfg, &mut out, Existing::default(), &stop, |_| {}).unwrap();
        let recs = records(&out);
        assert_eq!(recs.len() as u64, s.positions);
        assert!(s.positions >= 1200, "{s:?}");
        assert!(s.by_egdb > 0, "{s:?}");
        // the databases' positions are never data: the search never evaluates them
        assert!(recs.iter().all(|r| r.position.occupied().count() > 5));
        let keys: HashSet<u64> = recs.iter().map(|r| r.position.hash()).collect();
        assert_eq!(keys.len(), recs.len(), "a position written twice");

        // the same seed, one thread: the same bytes
        let mut again = Vec::new();
        run(&cfg, &mut again, Existing::default(), &stop, |_| {}).unwrap();
        assert!(again == out, "two runs with one seed differ");
    }

    #[test]
    fn games_start_from_the_given_positions() {
        // the start position is in no ballot: every game begins there
        let start = Position::startpos(crate::Variant::English);
        let cfg = DatagenConfig {
            starts: vec![start],
            random_plies: 0,
            ..config(60)
        };
        let mut out = Vec::new();
        run(
            &cfg,
            &mut out,
            Existing::default(),
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
        assert_eq!(records(&out)[0].position, start);
        let mut ballots = Vec::new();
        let stop = AtomicBool::new(false);
        run(
            &config(60),
            &mut ballots,
            Existing::default(),
            &stop,
            |_| {},
        )
        .unwrap();
        assert!(records(&ballots).iter().all(|r| r.position != start));
    }

    #[test]
    fn a_continued_file_keeps_its_positions_and_gets_new_ones() {
        let stop = AtomicBool::new(false);
        let mut out = Vec::new();
        run(&config(150), &mut out, Existing::default(), &stop, |_| {}).unwrap();
        let first = records(&out);
        let existing = Existing::of(&first);
        let before = out.len();
        let s = run(&config(400), &mut out, existing, &stop, |_| {}).unwrap();
        let all = records(&out);
        assert_eq!(all.len() as u64, s.positions);
        assert!(all.len() >= 400 && out.len() > before, "{s:?}");
        assert_eq!(&all[..first.len()], &first[..]);
        let keys: HashSet<u64> = all.iter().map(|r| r.position.hash()).collect();
        assert_eq!(keys.len(), all.len(), "the continuation repeats a position");
    }

    #[test]
    fn the_file_does_not_depend_on_the_threads() {
        let stop = AtomicBool::new(false);
        let mut one = Vec::new();
        run(&config(300), &mut one, Existing::default(), &stop, |_| {}).unwrap();
        let mut three = Vec::new();
        let cfg = DatagenConfig {
            threads: 3,
            ..config(300)
        };
        let s = run(&cfg, &mut three, Existing::default(), &stop, |_| {}).unwrap();
        assert!(s.positions >= 300, "{s:?}");
        assert!(three == one, "three threads wrote another file than one");
    }

    #[test]
    fn shards_play_disjoint_ranges_of_the_games_that_join_into_the_whole_run() {
        let whole_run = |shard| DatagenConfig {
            positions: u64::MAX,
            games: Some(5),
            shard,
            ..config(0)
        };
        let stop = AtomicBool::new(false);
        let mut all = Vec::new();
        let s = run(
            &whole_run(Shard::WHOLE),
            &mut all,
            Existing::default(),
            &stop,
            |_| {},
        )
        .unwrap();
        assert_eq!((s.games, s.next_game), (5, 5), "{s:?}");
        let all = records(&all);
        let mut parts = Vec::new();
        for k in 1..=2 {
            let mut out = Vec::new();
            let shard = Shard::new(k, 2).unwrap();
            let s = run(
                &whole_run(shard),
                &mut out,
                Existing::default(),
                &stop,
                |_| {},
            )
            .unwrap();
            // games 0 and 1, then 2, 3 and 4
            assert_eq!(
                (s.games, s.next_game),
                ([2, 3][k as usize - 1], [2, 5][k as usize - 1])
            );
            let (header, recs) = record::parse_file(&out, "shard").unwrap();
            assert_eq!((header.shard, header.whole), (shard, 5));
            parts.push(recs);
        }
        // the first shard's games are the whole run's first games; the
        // second's, less what the first wrote, are the rest
        assert_eq!(&all[..parts[0].len()], &parts[0][..]);
        let first: HashSet<u64> = parts[0].iter().map(|r| r.position.hash()).collect();
        let rest: Vec<Record> = parts[1]
            .iter()
            .filter(|r| !first.contains(&r.position.hash()))
            .copied()
            .collect();
        assert_eq!(&all[parts[0].len()..], &rest[..]);
        // a shard needs the run's games
        let no_games = DatagenConfig {
            games: None,
            ..whole_run(Shard::new(1, 2).unwrap())
        };
        let err = run(
            &no_games,
            &mut Vec::new(),
            Existing::default(),
            &stop,
            |_| {},
        );
        assert_eq!(err.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    }
}
