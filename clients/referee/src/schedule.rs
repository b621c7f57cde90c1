//! What defines a run, and the games it is made of: the engines (names,
//! specs, options), the tournament (who plays whom), the games each pairing
//! plays, the openings in the order they are dealt, the limits and the seed.
//! A resumed run must agree with it, and a shard is a slice of it.
//!
//! The games, in the order they are numbered (rounds): for each opening pair
//! `k` in turn, for each pairing, the pairing's games `2k` and `2k + 1`:
//! both start from opening `k` of the shuffled deck (again from the top
//! after the last), the pairing's first engine Black in the first and White
//! in the second. With two engines this is the match of old: round `i + 1`
//! is game `i`.

use crate::game::TimeControl;
use crate::openings::{self, BallotError, Opening};
use crate::spec::EngineSpec;
use crate::stats::Sprt;
use kingme::rng::SplitMix64;
use kingme::{Color, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TournamentKind {
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

impl TournamentKind {
    /// The pairings of `engines` engines, `(first, second)` by index; the
    /// first engine's results are the pairing's.
    #[must_use]
    pub fn pairings(self, engines: usize) -> Vec<(usize, usize)> {
        match self {
            TournamentKind::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
            TournamentKind::RoundRobin => (0..engines)
                .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
                .collect(),
        }
    }

    /// `gauntlet` or `round-robin`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TournamentKind::Gauntlet => "gauntlet",
            TournamentKind::RoundRobin => "round-robin",
        }
    }
}

impl fmt::Display for TournamentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tournament kind that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tournament '{0}': expected gauntlet or round-robin")]
pub struct ParseTournamentError(String);

impl FromStr for TournamentKind {
    type Err = ParseTournamentError;
    fn from_str(s: &str) -> Result<TournamentKind, ParseTournamentError> {
        match s {
            "gauntlet" => Ok(TournamentKind::Gauntlet),
            "round-robin" | "roundrobin" => Ok(TournamentKind::RoundRobin),
            _ => Err(ParseTournamentError(s.to_string())),
        }
    }
}

/// One engine of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// The name given on the command line (`--engine NAME=SPEC`); `None`:
    /// named after its `id name` and options, as `--engine-a`/`--engine-b` are.
    pub name: Option<String>,
    /// Where it lives (a server's token is never written).
    #[serde(with = "as_text")]
    pub spec: EngineSpec,
    /// `setoption` pairs sent after the handshake.
    pub options: Vec<(String, String)>,
    /// Nodes a move of its own, instead of the time control's count (with
    /// a time control of nodes only).
    #[serde(default)]
    pub nodes: Option<u64>,
}

/// A run's definition (see the module's doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Who plays whom.
    pub tournament: TournamentKind,
    /// The engines, in the order given.
    pub engines: Vec<Entrant>,
    /// Games each pairing plays.
    pub games: usize,
    /// The rules.
    #[serde(with = "as_text")]
    pub variant: Variant,
    /// The limit of every move.
    pub time_control: TimeControl,
    /// The seed the deck is shuffled with.
    pub seed: u64,
    /// Games reaching this many plies are drawn.
    pub max_plies: usize,
    /// The endgame databases that adjudicate, if any.
    pub adjudicate_egdb: Option<PathBuf>,
    /// The SPRT that may stop the run (one pairing only).
    pub sprt: Option<Sprt>,
    /// The openings' names in the order they are dealt.
    pub openings: Vec<String>,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Its number in the whole schedule, from 1.
    pub round: usize,
    /// The pairing (an index into [`Schedule::pairings`]).
    pub pairing: usize,
    /// The pairing's game number, from 0.
    pub game: usize,
}

impl Slot {
    /// The opening pair it belongs to (the pairing's games `2k` and `2k + 1`).
    #[must_use]
    pub fn pair(&self) -> usize {
        self.game / 2
    }

    /// The colour of the pairing's first engine: Black in the pair's first
    /// game, White in its second.
    #[must_use]
    pub fn first_color(&self) -> Color {
        if self.game.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }
}

impl Schedule {
    /// The deck of `variant` shuffled by `seed`: every run's openings.
    pub fn deck(variant: Variant, seed: u64) -> Result<Vec<Opening>, BallotError> {
        let mut deck = openings::for_variant(variant)?;
        SplitMix64(seed).shuffle(&mut deck);
        Ok(deck)
    }

    /// The names of `deck`'s openings, for [`Schedule::openings`].
    #[must_use]
    pub fn names(deck: &[Opening]) -> Vec<String> {
        deck.iter().map(|o| o.name.clone()).collect()
    }

    /// Who plays whom, `(first, second)` by engine index.
    #[must_use]
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        self.tournament.pairings(self.engines.len())
    }

    /// Where opening pair `pair` starts: its index in [`Schedule::openings`].
    #[must_use]
    pub fn opening_of(&self, pair: usize) -> usize {
        pair % self.openings.len().max(1)
    }

    /// Every game of `shard` (the whole schedule for `None`), by round.
    #[must_use]
    pub fn slots(&self, shard: Option<Shard>) -> Vec<Slot> {
        let pairings = self.pairings().len();
        let mut out = Vec::with_capacity(pairings * self.games);
        let mut round = 0;
        for pair in 0..self.games.div_ceil(2) {
            for pairing in 0..pairings {
                for game in [2 * pair, 2 * pair + 1] {
                    if game >= self.games {
                        continue;
                    }
                    round += 1;
                    if shard.is_none_or(|s| s.deals(pair)) {
                        out.push(Slot {
                            round,
                            pairing,
                            game,
                        });
                    }
                }
            }
        }
        out
    }

    /// The game numbered `round`, if the schedule has one.
    #[must_use]
    pub fn slot(&self, round: usize) -> Option<Slot> {
        let pairings = self.pairings().len();
        if round == 0 || pairings == 0 || round > pairings * self.games {
            return None;
        }
        // full blocks of 2 games a pairing come first; a last odd game
        // gives a block of one a pairing
        let i = round - 1;
        let block = 2 * pairings;
        let pair = i / block;
        let in_block = i % block;
        let per = if 2 * pair + 1 < self.games { 2 } else { 1 };
        Some(Slot {
            round,
            pairing: in_block / per,
            game: 2 * pair + in_block % per,
        })
    }

    /// What differs between this schedule (`here`) and `there`, one line a
    /// field, e.g. `games: 8 there, 10 here`; empty when they agree.
    #[must_use]
    pub fn differences(&self, there: &Schedule) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{name}: {b} there, {a} here"));
            }
        };
        field(
            "tournament",
            self.tournament.to_string(),
            there.tournament.to_string(),
        );
        let engines = |s: &Schedule| {
            s.engines
                .iter()
                .map(Entrant::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        field("engines", engines(self), engines(there));
        field("games", self.games.to_string(), there.games.to_string());
        field(
            "variant",
            self.variant.name().into(),
            there.variant.name().into(),
        );
        field(
            "time control",
            self.time_control.to_string(),
            there.time_control.to_string(),
        );
        field("seed", self.seed.to_string(), there.seed.to_string());
        field(
            "max plies",
            self.max_plies.to_string(),
            there.max_plies.to_string(),
        );
        let egdb = |s: &Schedule| {
            s.adjudicate_egdb
                .as_ref()
                .map_or("none".to_string(), |p| p.display().to_string())
        };
        field("endgame databases", egdb(self), egdb(there));
        let sprt = |s: &Schedule| {
            s.sprt
                .map_or("none".to_string(), |t| format!("{},{}", t.elo0, t.elo1))
        };
        field("SPRT", sprt(self), sprt(there));
        if self.openings != there.openings {
            out.push("openings: another deck or order (another ballot deck or seed)".into());
        }
        out
    }
}

impl fmt::Display for Entrant {
    /// `NAME=SPEC (K=V, ...) [N nodes a move]`, or `SPEC (...)` when unnamed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            write!(f, "{n}=")?;
        }
        write!(f, "{}", self.spec)?;
        if !self.options.is_empty() {
            let o: Vec<String> = self
                .options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            write!(f, " ({})", o.join(", "))?;
        }
        if let Some(n) = self.nodes {
            write!(f, " [{n} nodes a move]")?;
        }
        Ok(())
    }
}

/// `--shard K/N`: the K-th of N disjoint parts of a schedule, the opening
/// pairs `k` with `k mod N = K - 1` ([`Shard::deals`]), every pairing's
/// games of them.
pub use kingme::shard::{ParseShardError, Shard};

/// Serde through a type's text (`Display` out, `FromStr` in).
mod as_text {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    pub fn serialize<T: Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        text.parse().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(engines: usize, kind: TournamentKind, games: usize) -> Schedule {
        Schedule {
            tournament: kind,
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
            sprt: None,
            openings: vec!["o1".into(), "o2".into(), "o3".into()],
        }
    }

    #[test]
    fn pairings_of_each_kind() {
        assert_eq!(
            TournamentKind::Gauntlet.pairings(4),
            [(0, 1), (0, 2), (0, 3)]
        );
        assert_eq!(
            TournamentKind::RoundRobin.pairings(4),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
        // two engines: one pairing either way
        assert_eq!(TournamentKind::Gauntlet.pairings(2), [(0, 1)]);
        assert_eq!(TournamentKind::RoundRobin.pairings(2), [(0, 1)]);
        assert_eq!("round-robin".parse(), Ok(TournamentKind::RoundRobin));
        assert!("swiss".parse::<TournamentKind>().is_err());
    }

    /// Every pairing plays `games` games, each opening pair once with each
    /// colour; the rounds run 1, 2, ... and `slot(round)` finds each.
    #[test]
    fn slots_cover_every_pairing_with_both_colours() {
        for games in [1, 2, 5, 8] {
            let s = schedule(3, TournamentKind::RoundRobin, games);
            let slots = s.slots(None);
            assert_eq!(slots.len(), 3 * games);
            for (i, slot) in slots.iter().enumerate() {
                assert_eq!(slot.round, i + 1);
                assert_eq!(s.slot(slot.round), Some(*slot), "{games} games");
            }
            assert_eq!(s.slot(slots.len() + 1), None);
            for p in 0..3 {
                let mine: Vec<&Slot> = slots.iter().filter(|x| x.pairing == p).collect();
                let numbers: Vec<usize> = mine.iter().map(|x| x.game).collect();
                assert_eq!(numbers, (0..games).collect::<Vec<_>>());
                for pair in mine.chunks(2).filter(|c| c.len() == 2) {
                    assert_eq!(pair[0].pair(), pair[1].pair());
                    assert_eq!(pair[0].first_color(), Color::Black);
                    assert_eq!(pair[1].first_color(), Color::White);
                }
            }
        }
        // two engines: round i + 1 is game i, as the match always numbered them
        let two = schedule(2, TournamentKind::RoundRobin, 6);
        assert!(two.slots(None).iter().all(|s| s.game + 1 == s.round));
        // the deck is dealt again from the top after its last opening
        assert_eq!(two.opening_of(3), 0);
    }

    /// The shards of a schedule are disjoint, together the whole, and keep
    /// each opening pair (both colours, every pairing) in one shard.
    #[test]
    fn shards_split_the_schedule_by_opening_pairs() {
        let s = schedule(3, TournamentKind::Gauntlet, 9);
        let all = s.slots(None);
        for count in 1..=6 {
            let mut seen = Vec::new();
            for index in 1..=count {
                let shard = Shard::new(index, count).unwrap();
                for slot in s.slots(Some(shard)) {
                    assert!(shard.deals(slot.pair()));
                    seen.push(slot);
                }
            }
            seen.sort_by_key(|x| x.round);
            assert_eq!(seen, all, "{count} shards");
        }
        assert_eq!("2/4".parse(), Ok(Shard::new(2, 4).unwrap()));
        for bad in ["0/4", "5/4", "4", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard::new(3, 8).unwrap().to_string(), "3/8");
    }

    #[test]
    fn differences_name_each_field() {
        let a = schedule(2, TournamentKind::RoundRobin, 8);
        assert!(a.differences(&a.clone()).is_empty());
        let mut b = a.clone();
        b.games = 10;
        b.seed = 2;
        b.engines[1].options.push(("Level".into(), "easy".into()));
        b.engines[0].nodes = Some(50);
        let d = a.differences(&b);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d.iter().any(|l| l.contains("[50 nodes a move]")), "{d:?}");
        assert!(d.contains(&"games: 10 there, 8 here".to_string()), "{d:?}");
        assert!(d.contains(&"seed: 2 there, 1 here".to_string()), "{d:?}");
        assert!(d
            .iter()
            .any(|l| l.starts_with("engines: ") && l.contains("Level=easy")));
        let json = serde_json::to_string(&b).unwrap();
        let back: Schedule = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b);
    }
}
