//! What a run reports (also its JSON summary): [`MatchReport`] for a match
//! of two engines given as `--engine-a`/`--engine-b`, [`TournamentReport`]
//! for engines given by name (`--engine NAME=SPEC`) and for merged shards,
//! whose `Display` is the summary the referee prints.

use crate::game::Score;
use crate::stats::{fmt_elo, Pentanomial, Sprt, SprtDecision, Wdl};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// One game in the match summary.
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

/// The result of a match of two engines (also its JSON summary).
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
    /// [`Progress`](crate::runner::Progress) while the match goes on, false
    /// in the one `run_match` returns.
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

/// One engine of a tournament.
#[derive(Clone, Debug, Serialize)]
pub struct EngineSummary {
    /// Its name.
    pub name: String,
    /// Where it lives.
    pub spec: String,
    /// Its options, `NAME=VALUE`.
    pub options: Vec<String>,
    /// Its own nodes a move, if it has a count of its own.
    pub nodes: Option<u64>,
}

/// One pairing's results, from its first engine's view.
#[derive(Clone, Debug, Serialize)]
pub struct PairingReport {
    /// The first engine's name.
    pub first: String,
    /// The second's.
    pub second: String,
    /// Games scheduled (in the part of the schedule reported).
    pub games_requested: usize,
    /// Games played.
    pub games: u32,
    /// The first engine's wins, draws and losses.
    pub wdl: Wdl,
    /// The first engine's pairs by points taken: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: Pentanomial,
    /// The first engine's score fraction.
    pub score: f64,
    /// Elo difference (first minus second) from the games; `null` when infinite.
    pub elo: Option<f64>,
    /// Lower end of its 95% interval.
    pub elo_low: Option<f64>,
    /// Upper end.
    pub elo_high: Option<f64>,
    /// Elo difference from the pairs, with its 95% interval.
    pub pair_elo: [Option<f64>; 3],
    /// Likelihood that the first engine is stronger.
    pub los: f64,
}

/// One line of the Elo table.
#[derive(Clone, Debug, Serialize)]
pub struct RatingRow {
    /// 1 for the best.
    pub rank: usize,
    /// The engine.
    pub name: String,
    /// Elo relative to the anchor; `null` for an engine without games.
    pub elo: Option<f64>,
    /// The 95% interval's lower end.
    pub elo_low: Option<f64>,
    /// Its upper end.
    pub elo_high: Option<f64>,
    /// Whether this engine is the anchor (at 0 by definition).
    pub anchor: bool,
    /// Games played.
    pub games: u32,
    /// Score fraction over them.
    pub score: f64,
}

/// The Elo table of all engines.
#[derive(Clone, Debug, Serialize)]
pub struct RatingTable {
    /// The engine at 0.
    pub anchor: String,
    /// Virtual draws added to every pairing that played.
    pub prior_draws: f64,
    /// Why there is no table (`rows` is then empty).
    pub error: Option<String>,
    /// Best first.
    pub rows: Vec<RatingRow>,
}

/// One game in the tournament summary.
#[derive(Clone, Debug, Serialize)]
pub struct TournamentGame {
    /// Its round.
    pub round: usize,
    /// Its pairing (an index into `pairings`).
    pub pairing: usize,
    /// The opening.
    pub opening: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// PDN result (`2-0` Black won, `0-2` White won, `1-1` draw).
    pub result: String,
    /// Why it ended.
    pub termination: String,
    /// Short reason key.
    pub termination_kind: String,
    /// Plies played.
    pub plies: usize,
}

/// The result of a tournament, or of merged shards (also its JSON summary).
#[derive(Clone, Debug, Serialize)]
pub struct TournamentReport {
    /// `gauntlet` or `round-robin`.
    pub tournament: String,
    /// The engines, in the order given.
    pub engines: Vec<EngineSummary>,
    /// The variant.
    pub variant: String,
    /// The time control.
    pub time_control: String,
    /// Opening order seed.
    pub seed: u64,
    /// The shards counted (`K/N`); empty for the whole schedule.
    pub shards: Vec<String>,
    /// Shards of the schedule that are not counted (merges only).
    pub missing_shards: Vec<String>,
    /// Games scheduled in the part reported.
    pub games_requested: usize,
    /// Games played.
    pub games: u32,
    /// Each pairing's results.
    pub pairings: Vec<PairingReport>,
    /// One Elo table for all the engines.
    pub ratings: RatingTable,
    /// SPRT parameters, if any (two engines only).
    pub sprt: Option<Sprt>,
    /// Its LLR over the pairs.
    pub llr: Option<f64>,
    /// Its decision.
    pub sprt_decision: Option<SprtDecision>,
    /// Whether the SPRT stopped the run early.
    pub stopped_early: bool,
    /// Whether the run was told to stop before its games were all played.
    pub interrupted: bool,
    /// Whether games are still to come.
    pub in_progress: bool,
    /// How games ended, by kind.
    pub terminations: BTreeMap<String, u32>,
    /// Faults (illegal moves, timeouts, crashes, refusals) by engine name.
    pub faults: BTreeMap<String, u32>,
    /// Whether this counts merged state files (not a run).
    pub merged: bool,
    /// Wall time in seconds (of this run; 0 for a merge).
    pub seconds: f64,
    /// Every game, by round.
    pub game_list: Vec<TournamentGame>,
}

fn elo_text(e: Option<f64>) -> String {
    e.map_or_else(|| "inf".to_string(), fmt_elo)
}

fn counts(map: &BTreeMap<String, u32>) -> String {
    let v: Vec<String> = map.iter().map(|(k, n)| format!("{k} {n}")).collect();
    v.join(", ")
}

/// The summary the referee prints: the engines, each pairing's W/D/L and
/// pairs, the Elo table, the SPRT, how the games ended.
impl fmt::Display for TournamentReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.engines {
            write!(f, "{}: {}", e.name, e.spec)?;
            if !e.options.is_empty() {
                write!(f, " ({})", e.options.join(", "))?;
            }
            if let Some(n) = e.nodes {
                write!(f, " [{n} nodes a move]")?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "{}, {} games of {} ({}, {})",
            self.tournament, self.games, self.games_requested, self.variant, self.time_control
        )?;
        if !self.shards.is_empty() {
            write!(f, ", shards {}", self.shards.join(" "))?;
        }
        if !self.missing_shards.is_empty() {
            write!(f, " (missing {})", self.missing_shards.join(" "))?;
        }
        writeln!(f)?;
        for p in &self.pairings {
            let (elo, lo, hi) = p.wdl.elo();
            let (pe, plo, phi) = p.pentanomial.elo();
            writeln!(
                f,
                "{} - {}: {} games, +{} ={} -{}  score {:.1}%  Elo {} [{}, {}]  pairs 0/0.5/1/1.5/2: {:?}  Elo {} [{}, {}] (per pair)",
                p.first,
                p.second,
                p.games,
                p.wdl.wins,
                p.wdl.draws,
                p.wdl.losses,
                100.0 * p.score,
                fmt_elo(elo),
                fmt_elo(lo),
                fmt_elo(hi),
                p.pentanomial.0,
                fmt_elo(pe),
                fmt_elo(plo),
                fmt_elo(phi),
            )?;
        }
        let r = &self.ratings;
        writeln!(
            f,
            "Elo, maximum likelihood over all games (draws half a point, {} virtual draw{} a pairing; 95% from the inverse Hessian), {} at 0:",
            r.prior_draws,
            if r.prior_draws == 1.0 { "" } else { "s" },
            r.anchor
        )?;
        if let Some(e) = &r.error {
            writeln!(f, "  none: {e}")?;
        }
        let width = r.rows.iter().map(|x| x.name.len()).max().unwrap_or(0);
        for row in &r.rows {
            let interval = if row.anchor {
                "(anchor)".to_string()
            } else {
                format!("[{}, {}]", elo_text(row.elo_low), elo_text(row.elo_high))
            };
            match row.elo {
                Some(e) => writeln!(
                    f,
                    "{:>3}. {:<width$} {:>7} {interval:<18} games {}  score {:.1}%",
                    row.rank,
                    row.name,
                    fmt_elo(e),
                    row.games,
                    100.0 * row.score
                )?,
                None => writeln!(f, "{:>3}. {:<width$} no games", row.rank, row.name)?,
            }
        }
        if let (Some(t), Some(llr), Some(d)) = (self.sprt, self.llr, self.sprt_decision) {
            let (lo, hi) = t.bounds();
            writeln!(
                f,
                "SPRT elo0={} elo1={} alpha={} beta={} (per pair): LLR {llr:.2} [{lo:.2}, {hi:.2}] -> {d:?}{}",
                t.elo0,
                t.elo1,
                t.alpha,
                t.beta,
                if self.stopped_early { " (stopped early)" } else { "" }
            )?;
        }
        if self.interrupted {
            writeln!(
                f,
                "interrupted after {} of {} games",
                self.games, self.games_requested
            )?;
        }
        writeln!(f, "endings: {}", counts(&self.terminations))?;
        if !self.faults.is_empty() {
            writeln!(f, "faults: {}", counts(&self.faults))?;
        }
        if self.merged {
            write!(f, "merged {} state files", self.shards.len().max(1))
        } else {
            write!(f, "time: {:.1} s", self.seconds)
        }
    }
}
