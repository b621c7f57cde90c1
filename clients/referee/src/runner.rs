//! A match: games between engine A and engine B on `concurrency` worker threads,
//! each with its own pair of connections. Results come back to the calling
//! thread, which keeps the score, writes the PDN as games finish, reports progress
//! (with the report so far) and stops early when an SPRT decides or when told to.

use crate::engine::{Engine, EngineError, EngineSpec};
use crate::game::{play_game, GameRecord, GameSetup, Player, Score, TimeControl};
use crate::openings::{self, BallotError, Opening};
use crate::pdn;
use crate::stats::{Pentanomial, Sprt, SprtDecision, Wdl};
use kingme::rng::SplitMix64;
use kingme::{Color, Variant};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine A (results are from its point of view).
    pub engine_a: EngineSpec,
    /// Engine B.
    pub engine_b: EngineSpec,
    /// Options for A.
    pub options_a: Vec<(String, String)>,
    /// Options for B.
    pub options_b: Vec<(String, String)>,
    /// Games to play (an SPRT may stop earlier).
    pub games: usize,
    /// The rules.
    pub variant: Variant,
    /// Time per move or game clock.
    pub tc: TimeControl,
    /// Games played at once.
    pub concurrency: usize,
    /// Optional SPRT.
    pub sprt: Option<Sprt>,
    /// Longest game in plies (then a draw).
    pub max_plies: usize,
    /// Endgame databases that end a game as soon as it reaches a position they know.
    pub egdb: Option<std::sync::Arc<kingme::egdb::Tablebase>>,
    /// Seed for the opening order.
    pub seed: u64,
    /// Grace before a loss on time.
    pub margin: Duration,
    /// Limit for connecting, handshakes and `isready`.
    pub setup_timeout: Duration,
    /// Where to write the games.
    pub pdn: Option<PathBuf>,
    /// `Event` tag.
    pub event: String,
    /// Set from outside (a signal handler, say) to start no more games: the
    /// games under way finish and the report says `interrupted`.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// Why a match could not run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine could not be started or refused its options.
    #[error("engine {side} ({spec}): {source}")]
    Engine {
        /// `A` or `B`.
        side: &'static str,
        /// Its spec.
        spec: String,
        /// The cause.
        source: EngineError,
    },
    /// The opening data is bad.
    #[error(transparent)]
    Ballots(#[from] BallotError),
    /// The PDN file could not be written.
    #[error("PDN file {path}: {source}")]
    Pdn {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// One game in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// Game number.
    pub round: usize,
    /// The opening.
    pub opening: String,
    /// A's colour, `black` or `white`.
    pub a_color: String,
    /// PDN result (`2-0` Black won, `0-2` White won, `1-1` draw).
    pub result: String,
    /// A's result.
    pub score: Score,
    /// Why it ended.
    pub termination: String,
    /// Short reason key.
    pub termination_kind: String,
    /// Plies played.
    pub plies: usize,
}

/// The result of a match (also the JSON summary).
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// Engine A's name and spec.
    pub engine_a: String,
    /// Engine B's name and spec.
    pub engine_b: String,
    /// The variant.
    pub variant: String,
    /// The time control.
    pub time_control: String,
    /// Games asked for.
    pub games_requested: usize,
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// A's finished pairs (both games of one opening) by points taken: 0, 0.5, 1,
    /// 1.5, 2. The SPRT counts pairs.
    pub pentanomial: Pentanomial,
    /// Games played.
    pub games: u32,
    /// A's score fraction.
    pub score: f64,
    /// Elo difference (A minus B); `null` when infinite.
    pub elo: Option<f64>,
    /// Lower end of the 95% interval.
    pub elo_low: Option<f64>,
    /// Upper end of the 95% interval.
    pub elo_high: Option<f64>,
    /// Likelihood that A is stronger.
    pub los: f64,
    /// SPRT parameters, if any.
    pub sprt: Option<Sprt>,
    /// The LLR: at the decision once the SPRT has decided, else after the last pair.
    pub llr: Option<f64>,
    /// The SPRT's decision (kept once reached, whatever the games under way then add).
    pub sprt_decision: Option<SprtDecision>,
    /// Whether the SPRT stopped the match early.
    pub stopped_early: bool,
    /// Whether the match was told to stop (`MatchConfig::interrupt`) before its
    /// games were all played.
    pub interrupted: bool,
    /// Whether games are still to come: true in the reports given to
    /// [`Progress`] while the match goes on, false in the one `run_match` returns.
    pub in_progress: bool,
    /// How games ended, by kind.
    pub terminations: BTreeMap<String, u32>,
    /// Faults (illegal moves, timeouts, crashes, refusals) by engine.
    pub faults: BTreeMap<String, u32>,
    /// Opening order seed.
    pub seed: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Every game, by round.
    pub game_list: Vec<GameSummary>,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some((x * 10.0).round() / 10.0 + 0.0)
}

fn label(name: &str, options: &[(String, String)]) -> String {
    if options.is_empty() {
        name.to_string()
    } else {
        let o: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{name} ({})", o.join(", "))
    }
}

/// Progress of a match as games finish.
pub trait Progress {
    /// A game has finished; `report` is the match so far (`in_progress`).
    fn game(&mut self, record: &GameRecord, report: &MatchReport);
}

/// No progress output.
pub struct Quiet;

impl Progress for Quiet {
    fn game(&mut self, _: &GameRecord, _: &MatchReport) {}
}

/// The score as games come in.
#[derive(Default)]
struct Tally {
    wdl: Wdl,
    /// Games 2k-1 and 2k share an opening (see `schedule`).
    pairs: Pentanomial,
    /// A's points in the first finished game of each unfinished pair.
    half_pairs: BTreeMap<usize, f64>,
    /// The SPRT's log-likelihood ratio and decision, frozen once it decides.
    llr: Option<f64>,
    decision: Option<SprtDecision>,
    /// Finished games, by round.
    records: Vec<GameRecord>,
}

impl Tally {
    /// Counts a finished game; true when the SPRT has decided.
    fn add(&mut self, record: GameRecord, sprt: Option<&Sprt>) -> bool {
        let points = match record.score() {
            Score::Win => {
                self.wdl.wins += 1;
                1.0
            }
            Score::Draw => {
                self.wdl.draws += 1;
                0.5
            }
            Score::Loss => {
                self.wdl.losses += 1;
                0.0
            }
        };
        let pair = (record.round - 1) / 2;
        let pair_done = match self.half_pairs.remove(&pair) {
            Some(other) => {
                self.pairs.add(other, points);
                true
            }
            None => {
                self.half_pairs.insert(pair, points);
                false
            }
        };
        let at = self.records.partition_point(|r| r.round < record.round);
        self.records.insert(at, record);
        match (sprt, pair_done) {
            // a decision stands: pairs finished after it (the games under way
            // when it came) count in the score but not in the test
            _ if self.decision.is_some_and(|d| d != SprtDecision::Continue) => true,
            (Some(t), true) => {
                let (l, d) = t.decide_pairs(&self.pairs);
                self.llr = Some(l);
                self.decision = Some(d);
                d != SprtDecision::Continue
            }
            _ => false,
        }
    }
}

/// What a report needs besides the tally.
struct Heading<'a> {
    cfg: &'a MatchConfig,
    label_a: &'a str,
    label_b: &'a str,
    started: Instant,
}

impl Heading<'_> {
    fn report(
        &self,
        t: &Tally,
        stopped: bool,
        interrupted: bool,
        in_progress: bool,
    ) -> MatchReport {
        let cfg = self.cfg;
        let mut terminations = BTreeMap::new();
        let mut faults = BTreeMap::new();
        for r in &t.records {
            *terminations
                .entry(r.termination.key().to_string())
                .or_insert(0) += 1;
            if let Some(side) = r.termination.fault() {
                *faults.entry(side.to_string()).or_insert(0) += 1;
            }
        }
        let wdl = t.wdl;
        let (elo, lo, hi) = wdl.elo();
        let short = (wdl.games() as usize) < cfg.games;
        MatchReport {
            engine_a: format!("{} <{}>", self.label_a, cfg.engine_a),
            engine_b: format!("{} <{}>", self.label_b, cfg.engine_b),
            variant: cfg.variant.name().to_string(),
            time_control: cfg.tc.to_string(),
            games_requested: cfg.games,
            wdl,
            pentanomial: t.pairs,
            games: wdl.games(),
            score: wdl.score(),
            elo: finite(elo),
            elo_low: finite(lo),
            elo_high: finite(hi),
            los: wdl.los(),
            sprt: cfg.sprt,
            llr: t.llr,
            sprt_decision: t.decision,
            stopped_early: stopped && !interrupted && short,
            interrupted: interrupted && short,
            in_progress,
            terminations,
            faults,
            seed: cfg.seed,
            seconds: self.started.elapsed().as_secs_f64(),
            game_list: t
                .records
                .iter()
                .map(|r| GameSummary {
                    round: r.round,
                    opening: r.opening.clone(),
                    a_color: r.a_color.name().to_string(),
                    result: r.outcome.pdn().to_string(),
                    score: r.score(),
                    termination: r.termination.to_string(),
                    termination_kind: r.termination.key().to_string(),
                    plies: r.moves.len(),
                })
                .collect(),
        }
    }
}

/// Which opening and colours game `i` (0-based) gets: ballot `i / 2` of the
/// shuffled deck, A as Black in even games and as White in odd ones.
#[must_use]
pub fn schedule(deck: &[Opening], i: usize) -> (&Opening, Color) {
    let o = &deck[(i / 2) % deck.len()];
    (
        o,
        if i.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        },
    )
}

/// Plays the match.
pub fn run_match(
    cfg: &MatchConfig,
    progress: &mut dyn Progress,
) -> Result<MatchReport, MatchError> {
    let started = Instant::now();
    let mut deck = openings::for_variant(cfg.variant)?;
    SplitMix64(cfg.seed).shuffle(&mut deck);

    // Preflight: start both engines once, so a wrong spec or option stops the
    // match at once; these connections go to the first worker.
    let options = |o: &[(String, String)]| {
        let mut v = vec![("Variant".to_string(), cfg.variant.name().to_string())];
        v.extend(o.iter().cloned());
        v
    };
    let start = |side: &'static str, spec: &EngineSpec, opts: &[(String, String)]| {
        Engine::start(spec, &options(opts), cfg.setup_timeout).map_err(|source| {
            MatchError::Engine {
                side,
                spec: spec.to_string(),
                source,
            }
        })
    };
    let a = start("A", &cfg.engine_a, &cfg.options_a)?;
    let b = start("B", &cfg.engine_b, &cfg.options_b)?;
    let label_a = label(a.name(), &cfg.options_a);
    let label_b = label(b.name(), &cfg.options_b);
    let (label_a, label_b) = if label_a == label_b {
        (format!("{label_a} [A]"), format!("{label_b} [B]"))
    } else {
        (label_a, label_b)
    };
    let mut first = Some((a, b));

    let mut pdn_file = match &cfg.pdn {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).map_err(
            |source| MatchError::Pdn {
                path: p.display().to_string(),
                source,
            },
        )?)),
        None => None,
    };
    let date = pdn::today();

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let interrupted = || {
        cfg.interrupt
            .as_deref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    };
    let (tx, rx) = mpsc::channel::<GameRecord>();
    let heading = Heading {
        cfg,
        label_a: &label_a,
        label_b: &label_b,
        started,
    };
    let mut tally = Tally::default();
    let mut pdn_error = None;

    std::thread::scope(|scope| {
        for w in 0..cfg.concurrency.max(1) {
            let tx = tx.clone();
            let (next, stop, deck) = (&next, &stop, &deck);
            let mut players = [
                Player::new(cfg.engine_a.clone(), cfg.options_a.clone(), label_a.clone()),
                Player::new(cfg.engine_b.clone(), cfg.options_b.clone(), label_b.clone()),
            ];
            if let Some((a, b)) = first.take() {
                players[0].engine = Some(a);
                players[1].engine = Some(b);
            }
            std::thread::Builder::new()
                .name(format!("referee-{w}"))
                .spawn_scoped(scope, move || loop {
                    if stop.load(Ordering::Relaxed) || interrupted() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games {
                        break;
                    }
                    let (opening, a_color) = schedule(deck, i);
                    let setup = GameSetup {
                        round: i + 1,
                        variant: cfg.variant,
                        opening,
                        a_color,
                        tc: cfg.tc,
                        max_plies: cfg.max_plies,
                        egdb: cfg.egdb.as_deref(),
                        margin: cfg.margin,
                        setup_timeout: cfg.setup_timeout,
                    };
                    let record = play_game(&mut players, &setup);
                    if tx.send(record).is_err() {
                        break;
                    }
                })
                .expect("spawn worker thread");
        }
        drop(tx);
        for record in rx {
            if tally.add(record.clone(), cfg.sprt.as_ref()) {
                stop.store(true, Ordering::Relaxed);
            }
            if let Some(f) = &mut pdn_file {
                let text = pdn::write_game(&record, &cfg.event, &date);
                if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.flush()) {
                    pdn_error.get_or_insert(e);
                }
            }
            let stopped = stop.load(Ordering::Relaxed);
            progress.game(
                &record,
                &heading.report(&tally, stopped, interrupted(), true),
            );
        }
    });
    if let (Some(e), Some(p)) = (pdn_error, &cfg.pdn) {
        return Err(MatchError::Pdn {
            path: p.display().to_string(),
            source: e,
        });
    }

    Ok(heading.report(&tally, stop.load(Ordering::Relaxed), interrupted(), false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Termination;
    use kingme::board::Outcome;

    fn record(round: usize, a_wins: bool) -> GameRecord {
        GameRecord {
            round,
            variant: Variant::English,
            opening: String::new(),
            fen: None,
            a_color: Color::Black,
            black: "a".into(),
            white: "b".into(),
            moves: Vec::new(),
            comments: Vec::new(),
            outcome: Outcome::Win(if a_wins { Color::Black } else { Color::White }),
            termination: Termination::Repetition,
        }
    }

    /// Once the SPRT has decided, a pair finished afterwards (a game that was
    /// under way) counts in the score but does not reopen the test.
    #[test]
    fn the_sprt_decision_stands_after_the_games_under_way_finish() {
        let sprt = Sprt::new(0.0, 10.0);
        let mut t = Tally::default();
        let mut round = 1;
        let decided = loop {
            let a = t.add(record(round, false), Some(&sprt));
            let b = t.add(record(round + 1, false), Some(&sprt));
            round += 2;
            assert!(!a, "no decision on half a pair");
            if b {
                break t.llr.unwrap();
            }
            assert!(round < 1000, "losing every pair must reject");
        };
        assert_eq!(t.decision, Some(SprtDecision::H0));
        assert!(decided <= sprt.bounds().0);
        // the games under way: wins for A, which alone would lift the LLR
        for _ in 0..3 {
            assert!(t.add(record(round, true), Some(&sprt)));
            assert!(t.add(record(round + 1, true), Some(&sprt)));
            round += 2;
        }
        assert_eq!(t.decision, Some(SprtDecision::H0));
        assert_eq!(t.llr, Some(decided));
        assert_eq!(t.wdl.wins, 6);
        assert_eq!(t.pairs.pairs() as usize, (round - 1) / 2);
    }
}
