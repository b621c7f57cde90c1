//! The count of a run as games come in (or as shards are merged): each
//! pairing's W/D/L and pairs, the SPRT, the finished games; and the reports
//! made from it ([`MatchReport`], [`TournamentReport`]).

use crate::game::{GameRecord, Score};
use crate::rating::{self, Head2Head};
use crate::report::{
    EngineSummary, GameSummary, MatchReport, PairingReport, RatingRow, RatingTable, TournamentGame,
    TournamentReport,
};
use crate::schedule::{Schedule, Shard, Slot};
use crate::stats::{Pentanomial, SprtDecision, Wdl};
use std::collections::BTreeMap;
use std::time::Instant;

/// A finished game and where it stands in the schedule.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Its place in the schedule.
    pub slot: Slot,
    /// The game.
    pub record: GameRecord,
    /// The PDN date it was played on.
    pub date: String,
}

/// How the Elo table is fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingSettings {
    /// The engine (by index) held at 0.
    pub anchor: usize,
    /// Virtual draws added to every pairing that played.
    pub prior_draws: f64,
}

/// One pairing's count, from its first engine's view.
#[derive(Clone, Debug, Default)]
struct PairingTally {
    wdl: Wdl,
    pairs: Pentanomial,
    /// The first engine's points in the finished game of each unfinished pair.
    half_pairs: BTreeMap<usize, f64>,
}

/// The count of a run (see the module's doc).
#[derive(Clone, Debug)]
pub struct Standings {
    schedule: Schedule,
    labels: Vec<String>,
    shards: Vec<Shard>,
    missing: Vec<Shard>,
    pairings: Vec<(usize, usize)>,
    /// Games scheduled per pairing in the part counted.
    requested: Vec<usize>,
    tallies: Vec<PairingTally>,
    ratings: RatingSettings,
    llr: Option<f64>,
    decision: Option<SprtDecision>,
    games: Vec<Finished>,
    started: Option<Instant>,
    /// The SPRT decided and no more games were started.
    pub stopped: bool,
    /// The run was told to stop.
    pub interrupted: bool,
    /// Games are still to come.
    pub in_progress: bool,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some((x * 10.0).round() / 10.0 + 0.0)
}

fn points(score: Score) -> f64 {
    match score {
        Score::Win => 1.0,
        Score::Draw => 0.5,
        Score::Loss => 0.0,
    }
}

impl Standings {
    /// An empty count of `shards` of `schedule` (all of it when empty;
    /// `missing` are shards of it not counted), with the engines named
    /// `labels`; `started` is when the run began (`None` for a merge).
    #[must_use]
    pub fn new(
        schedule: Schedule,
        labels: Vec<String>,
        shards: Vec<Shard>,
        missing: Vec<Shard>,
        ratings: RatingSettings,
        started: Option<Instant>,
    ) -> Standings {
        let pairings = schedule.pairings();
        let mut requested = vec![0; pairings.len()];
        let slots = if shards.is_empty() {
            schedule.slots(None)
        } else {
            let mut all: Vec<Slot> = shards
                .iter()
                .flat_map(|s| schedule.slots(Some(*s)))
                .collect();
            all.sort_by_key(|s| s.round);
            all
        };
        for s in &slots {
            requested[s.pairing] += 1;
        }
        Standings {
            tallies: vec![PairingTally::default(); pairings.len()],
            schedule,
            labels,
            shards,
            missing,
            pairings,
            requested,
            ratings,
            llr: None,
            decision: None,
            games: Vec::new(),
            started,
            stopped: false,
            interrupted: false,
            in_progress: true,
        }
    }

    /// Fits the Elo table with `ratings` from now on.
    pub fn set_ratings(&mut self, ratings: RatingSettings) {
        self.ratings = ratings;
    }

    /// The schedule counted.
    #[must_use]
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The engines' names.
    #[must_use]
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The finished games, by round.
    #[must_use]
    pub fn games(&self) -> &[Finished] {
        &self.games
    }

    /// Games scheduled in the part counted.
    #[must_use]
    pub fn requested(&self) -> usize {
        self.requested.iter().sum()
    }

    /// Counts a finished game; with `sequential`, the schedule's SPRT is
    /// updated as each pair finishes and frozen once it decides. True when
    /// the SPRT has decided.
    pub fn add(&mut self, finished: Finished, sequential: bool) -> bool {
        let p = points(finished.record.score());
        let t = &mut self.tallies[finished.slot.pairing];
        match finished.record.score() {
            Score::Win => t.wdl.wins += 1,
            Score::Draw => t.wdl.draws += 1,
            Score::Loss => t.wdl.losses += 1,
        }
        let pair = finished.slot.pair();
        let pair_done = match t.half_pairs.remove(&pair) {
            Some(other) => {
                t.pairs.add(other, p);
                true
            }
            None => {
                t.half_pairs.insert(pair, p);
                false
            }
        };
        let round = finished.slot.round;
        let at = self.games.partition_point(|g| g.slot.round < round);
        self.games.insert(at, finished);
        let sprt = self.schedule.sprt.filter(|_| self.pairings.len() == 1);
        match (sprt, sequential && pair_done) {
            // a decision stands: pairs finished after it (the games under
            // way when it came) count in the score but not in the test
            _ if self.decided() => true,
            (Some(t), true) => {
                let (l, d) = t.decide_pairs(&self.tallies[0].pairs);
                self.llr = Some(l);
                self.decision = Some(d);
                d != SprtDecision::Continue
            }
            _ => false,
        }
    }

    /// Whether the SPRT has decided.
    #[must_use]
    pub fn decided(&self) -> bool {
        self.decision.is_some_and(|d| d != SprtDecision::Continue)
    }

    /// The SPRT decided on all the pairs counted at once (a merge's: the
    /// shards played their games without stopping).
    pub fn decide_on_all_pairs(&mut self) {
        if let (Some(t), 1) = (self.schedule.sprt, self.pairings.len()) {
            let (l, d) = t.decide_pairs(&self.tallies[0].pairs);
            self.llr = Some(l);
            self.decision = Some(d);
        }
    }

    fn short(&self) -> bool {
        self.games.len() < self.requested()
    }

    fn seconds(&self) -> f64 {
        self.started.map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    /// How the games ended by kind, and the faults by `name` of the engine at fault.
    fn endings(
        &self,
        name: impl Fn(&Finished, crate::game::Side) -> String,
    ) -> (BTreeMap<String, u32>, BTreeMap<String, u32>) {
        let mut terminations = BTreeMap::new();
        let mut faults = BTreeMap::new();
        for g in &self.games {
            let t = &g.record.termination;
            *terminations.entry(t.key().to_string()).or_insert(0) += 1;
            if let Some(side) = t.fault() {
                *faults.entry(name(g, side)).or_insert(0) += 1;
            }
        }
        (terminations, faults)
    }

    /// The Elo table of all the engines.
    #[must_use]
    pub fn rating_table(&self) -> RatingTable {
        let results: Vec<Head2Head> = self
            .pairings
            .iter()
            .zip(&self.tallies)
            .map(|(&(first, second), t)| Head2Head {
                first,
                second,
                games: t.wdl.games(),
                points: f64::from(t.wdl.wins) + 0.5 * f64::from(t.wdl.draws),
            })
            .collect();
        let s = self.ratings;
        let mut table = RatingTable {
            anchor: self.labels.get(s.anchor).cloned().unwrap_or_default(),
            prior_draws: s.prior_draws,
            error: None,
            rows: Vec::new(),
        };
        match rating::fit(self.labels.len(), &results, s.anchor, s.prior_draws) {
            Err(e) => table.error = Some(e.to_string()),
            Ok(fitted) => {
                let mut rows: Vec<RatingRow> = fitted
                    .iter()
                    .map(|r| RatingRow {
                        rank: 0,
                        name: self.labels[r.engine].clone(),
                        elo: r.elo.and_then(finite),
                        elo_low: r.low.and_then(finite),
                        elo_high: r.high.and_then(finite),
                        anchor: r.engine == s.anchor,
                        games: r.games,
                        score: if r.games == 0 {
                            0.5
                        } else {
                            r.points / f64::from(r.games)
                        },
                    })
                    .collect();
                rows.sort_by(|a, b| {
                    let key = |r: &RatingRow| r.elo.unwrap_or(f64::NEG_INFINITY);
                    key(b).total_cmp(&key(a))
                });
                for (i, r) in rows.iter_mut().enumerate() {
                    r.rank = i + 1;
                }
                table.rows = rows;
            }
        }
        table
    }

    /// The report of the run so far, by engine name.
    #[must_use]
    pub fn report(&self) -> TournamentReport {
        let (terminations, faults) = self.endings(|g, side| {
            let (first, second) = self.pairings[g.slot.pairing];
            self.labels[if side == crate::game::Side::A {
                first
            } else {
                second
            }]
            .clone()
        });
        let short = self.short();
        TournamentReport {
            tournament: self.schedule.tournament.to_string(),
            engines: self
                .schedule
                .engines
                .iter()
                .zip(&self.labels)
                .map(|(e, name)| EngineSummary {
                    name: name.clone(),
                    spec: e.spec.to_string(),
                    options: e.options.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                    nodes: e.nodes,
                })
                .collect(),
            variant: self.schedule.variant.name().to_string(),
            time_control: self.schedule.time_control.to_string(),
            seed: self.schedule.seed,
            shards: self.shards.iter().map(ToString::to_string).collect(),
            missing_shards: self.missing.iter().map(ToString::to_string).collect(),
            games_requested: self.requested(),
            games: self.games.len() as u32,
            pairings: self
                .pairings
                .iter()
                .zip(&self.tallies)
                .zip(&self.requested)
                .map(|((&(a, b), t), &requested)| {
                    let (elo, lo, hi) = t.wdl.elo();
                    let (pe, plo, phi) = t.pairs.elo();
                    PairingReport {
                        first: self.labels[a].clone(),
                        second: self.labels[b].clone(),
                        games_requested: requested,
                        games: t.wdl.games(),
                        wdl: t.wdl,
                        pentanomial: t.pairs,
                        score: t.wdl.score(),
                        elo: finite(elo),
                        elo_low: finite(lo),
                        elo_high: finite(hi),
                        pair_elo: [finite(pe), finite(plo), finite(phi)],
                        los: t.wdl.los(),
                    }
                })
                .collect(),
            ratings: self.rating_table(),
            sprt: self.schedule.sprt,
            llr: self.llr,
            sprt_decision: self.decision,
            stopped_early: self.stopped && !self.interrupted && short,
            interrupted: self.interrupted && short,
            in_progress: self.in_progress,
            terminations,
            faults,
            merged: self.started.is_none(),
            seconds: self.seconds(),
            game_list: self
                .games
                .iter()
                .map(|g| TournamentGame {
                    round: g.slot.round,
                    pairing: g.slot.pairing,
                    opening: g.record.opening.clone(),
                    black: g.record.black.clone(),
                    white: g.record.white.clone(),
                    result: g.record.outcome.pdn().to_string(),
                    termination: g.record.termination.to_string(),
                    termination_kind: g.record.termination.key().to_string(),
                    plies: g.record.moves.len(),
                })
                .collect(),
        }
    }

    /// The report of the first pairing as a match of engine A (its first
    /// engine) against engine B: the whole run when two engines play.
    #[must_use]
    pub fn match_report(&self) -> MatchReport {
        let (terminations, faults) = self.endings(|_, side| side.to_string());
        let t = self.tallies.first().cloned().unwrap_or_default();
        let (elo, lo, hi) = t.wdl.elo();
        let short = self.short();
        let (a, b) = self.pairings.first().copied().unwrap_or((0, 1));
        let engine = |i: usize| {
            format!(
                "{} <{}>",
                self.labels.get(i).map_or("", String::as_str),
                self.schedule
                    .engines
                    .get(i)
                    .map_or(String::new(), |e| e.spec.to_string())
            )
        };
        MatchReport {
            engine_a: engine(a),
            engine_b: engine(b),
            variant: self.schedule.variant.name().to_string(),
            time_control: self.schedule.time_control.to_string(),
            games_requested: self.requested(),
            wdl: t.wdl,
            pentanomial: t.pairs,
            games: t.wdl.games(),
            score: t.wdl.score(),
            elo: finite(elo),
            elo_low: finite(lo),
            elo_high: finite(hi),
            los: t.wdl.los(),
            sprt: self.schedule.sprt,
            llr: self.llr,
            sprt_decision: self.decision,
            stopped_early: self.stopped && !self.interrupted && short,
            interrupted: self.interrupted && short,
            in_progress: self.in_progress,
            terminations,
            faults,
            seed: self.schedule.seed,
            seconds: self.seconds(),
            game_list: self
                .games
                .iter()
                .filter(|g| g.slot.pairing == 0)
                .map(|g| {
                    let r = &g.record;
                    GameSummary {
                        round: r.round,
                        opening: r.opening.clone(),
                        a_color: r.a_color.name().to_string(),
                        result: r.outcome.pdn().to_string(),
                        score: r.score(),
                        termination: r.termination.to_string(),
                        termination_kind: r.termination.key().to_string(),
                        plies: r.moves.len(),
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Termination, TimeControl};
    use crate::schedule::{Entrant, TournamentKind};
    use crate::stats::Sprt;
    use kingme::board::Outcome;
    use kingme::Variant;

    fn schedule(engines: usize, games: usize, sprt: Option<Sprt>) -> Schedule {
        Schedule {
            tournament: TournamentKind::RoundRobin,
            engines: (0..engines)
                .map(|i| Entrant {
                    name: Some(format!("e{i}")),
                    spec: "cmd:kingme".parse().unwrap(),
                    options: Vec::new(),
                    nodes: None,
                })
                .collect(),
            games,
            variant: Variant::English,
            time_control: TimeControl::Nodes(100),
            seed: 1,
            max_plies: 300,
            adjudicate_egdb: None,
            sprt,
            openings: vec!["o".into()],
        }
    }

    fn standings(s: Schedule) -> Standings {
        let labels = (0..s.engines.len()).map(|i| format!("e{i}")).collect();
        let settings = RatingSettings {
            anchor: 0,
            prior_draws: 0.0,
        };
        Standings::new(s, labels, Vec::new(), Vec::new(), settings, None)
    }

    /// Game `round` of `s`, won by the pairing's first engine (or lost, or drawn).
    fn finished(s: &Schedule, round: usize, first: Score) -> Finished {
        let slot = s.slot(round).unwrap();
        let c = slot.first_color();
        let outcome = match first {
            Score::Win => Outcome::Win(c),
            Score::Loss => Outcome::Win(!c),
            Score::Draw => Outcome::Draw,
        };
        Finished {
            slot,
            record: GameRecord {
                round,
                variant: Variant::English,
                opening: "o".into(),
                fen: None,
                a_color: c,
                black: String::new(),
                white: String::new(),
                moves: Vec::new(),
                comments: Vec::new(),
                outcome,
                termination: Termination::Repetition,
            },
            date: String::new(),
        }
    }

    /// Once the SPRT has decided, a pair finished afterwards (a game that was
    /// under way) counts in the score but does not reopen the test.
    #[test]
    fn the_sprt_decision_stands_after_the_games_under_way_finish() {
        let sprt = Sprt::new(0.0, 10.0);
        let s = schedule(2, 400, Some(sprt));
        let mut t = standings(s.clone());
        let mut round = 1;
        let decided = loop {
            let a = t.add(finished(&s, round, Score::Loss), true);
            let b = t.add(finished(&s, round + 1, Score::Loss), true);
            round += 2;
            assert!(!a, "no decision on half a pair");
            if b {
                break t.llr.unwrap();
            }
            assert!(round < 400, "losing every pair must reject");
        };
        assert_eq!(t.decision, Some(SprtDecision::H0));
        assert!(decided <= sprt.bounds().0);
        // the games under way: wins for A, which alone would lift the LLR
        for _ in 0..3 {
            assert!(t.add(finished(&s, round, Score::Win), true));
            assert!(t.add(finished(&s, round + 1, Score::Win), true));
            round += 2;
        }
        assert_eq!(t.decision, Some(SprtDecision::H0));
        assert_eq!(t.llr, Some(decided));
        assert_eq!(t.tallies[0].wdl.wins, 6);
        assert_eq!(t.tallies[0].pairs.pairs() as usize, (round - 1) / 2);
    }

    /// Three engines, each pairing counted apart from the first engine's
    /// view, faults charged to the engine at fault by name, and the table
    /// ordered by the results.
    #[test]
    fn a_round_robin_is_counted_per_pairing() {
        let s = schedule(3, 2, None);
        let mut t = standings(s.clone());
        // pairing 0 (e0-e1): e0 wins both; pairing 1 (e0-e2): drawn twice;
        // pairing 2 (e1-e2): e1 loses the first on an illegal move, wins the second
        for slot in s.slots(None) {
            let score = match slot.pairing {
                0 => Score::Win,
                1 => Score::Draw,
                _ if slot.game == 0 => Score::Loss,
                _ => Score::Win,
            };
            let mut f = finished(&s, slot.round, score);
            if slot.pairing == 2 && slot.game == 0 {
                f.record.termination = Termination::Illegal {
                    by: crate::game::Side::A,
                    text: "1-2".into(),
                    detail: "no".into(),
                };
            }
            t.add(f, true);
        }
        t.in_progress = false;
        let r = t.report();
        assert_eq!(r.games, 6);
        let wdl: Vec<(u32, u32, u32)> = r
            .pairings
            .iter()
            .map(|p| (p.wdl.wins, p.wdl.draws, p.wdl.losses))
            .collect();
        assert_eq!(wdl, [(2, 0, 0), (0, 2, 0), (1, 0, 1)]);
        assert_eq!(r.pairings[0].pentanomial.0, [0, 0, 0, 0, 1]);
        assert_eq!(r.pairings[2].pentanomial.0, [0, 0, 1, 0, 0]);
        assert_eq!(r.faults.get("e1"), Some(&1));
        // every engine scored off every other group: a finite maximum
        assert!(r.ratings.error.is_none(), "{:?}", r.ratings.error);
        let table = &r.ratings;
        assert_eq!(table.rows[0].name, "e0");
        assert!(table.rows[0].anchor && table.rows[0].elo == Some(0.0));
        assert!(table.rows[1].elo.unwrap() < 0.0);
        assert_eq!(table.rows.iter().map(|x| x.games).sum::<u32>(), 12);
        let text = r.to_string();
        assert!(text.contains("e0 - e1: 2 games, +2 =0 -0"), "{text}");
        assert!(text.contains("faults: e1 1"), "{text}");
    }
}
