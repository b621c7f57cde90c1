//! A run's state file (`--resume STATE`): JSON holding the schedule, the
//! shard, the engines' names and every finished game, whole enough to count
//! the run and write its PDN again. It is rewritten atomically (a temporary
//! file beside it, synced, renamed over it) after every finished game, so
//! that however the referee ends (Ctrl-C, SIGTERM, SIGKILL, a crash) the
//! file holds the games finished before, and a resumed run plays the rest.

use crate::game::{GameRecord, Termination};
use crate::schedule::{Schedule, Shard, Slot};
use kingme::board::Outcome;
use kingme::checked_file::{write_atomically, FileError};
use kingme::engine::MoveComment;
use kingme::Color;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the file says it is.
pub const FORMAT: &str = "kingme-referee state";
/// The version of its layout this referee writes and reads.
pub const VERSION: u32 = 1;

/// A run's state (see the module's doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// What defines the run.
    pub schedule: Schedule,
    /// The part of it this run plays; `None` for all of it.
    pub shard: Option<Shard>,
    /// The engines' names as the PDN writes them, by engine.
    pub labels: Vec<String>,
    /// The PDN's `Event` tag.
    pub event: String,
    /// Every finished game, by round.
    pub games: Vec<StoredGame>,
}

/// One finished game as the state keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredGame {
    /// Its round in the schedule.
    pub round: usize,
    /// Its pairing (an index into the schedule's pairings).
    pub pairing: usize,
    /// The PDN date (`YYYY.MM.DD`) it was played on.
    pub date: String,
    /// The opening's name.
    pub opening: String,
    /// The start position's FEN, `None` for the standard start.
    pub fen: Option<String>,
    /// The colour of the pairing's first engine, `black` or `white`.
    pub first_color: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The moves, in full notation.
    pub moves: Vec<String>,
    /// Each move's comment ([`MoveComment`]'s text).
    pub comments: Vec<String>,
    /// The PDN result: `2-0`, `0-2` or `1-1`.
    pub result: String,
    /// Why it ended.
    pub termination: Termination,
}

/// Why a state file can't be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Reading or writing it failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// Not JSON of this layout.
    #[error("{}: not a kingme-referee state file: {detail}", .path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Written by another version of the referee.
    #[error("{}: state format version {found}, this referee reads {VERSION}", .path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
    /// The file's schedule is not the one asked for.
    #[error("{} holds another schedule than this command line's ({}); give another state file, or the same options", .path.display(), .differences.join("; "))]
    OtherSchedule {
        /// The file.
        path: PathBuf,
        /// What differs, one field a line.
        differences: Vec<String>,
    },
    /// The file is another shard's.
    #[error("{} holds {}, not {}", .path.display(), shard_name(.there), shard_name(.here))]
    OtherShard {
        /// The file.
        path: PathBuf,
        /// The file's shard.
        there: Option<Shard>,
        /// The command line's.
        here: Option<Shard>,
    },
    /// A game the schedule does not have, or one that can't be read back.
    #[error("{}: game {round}: {detail}", .path.display())]
    BadGame {
        /// The file.
        path: PathBuf,
        /// Its round.
        round: usize,
        /// What is wrong.
        detail: String,
    },
}

fn shard_name(s: &Option<Shard>) -> String {
    s.map_or("the whole schedule".to_string(), |s| format!("shard {s}"))
}

fn color_name(c: Color) -> String {
    c.name().to_string()
}

fn outcome_of(result: &str) -> Option<Outcome> {
    match result {
        "2-0" => Some(Outcome::Win(Color::Black)),
        "0-2" => Some(Outcome::Win(Color::White)),
        "1-1" => Some(Outcome::Draw),
        _ => None,
    }
}

impl StoredGame {
    /// The state's record of `record`, played on `date` in `slot`.
    #[must_use]
    pub fn new(slot: Slot, record: &GameRecord, date: &str) -> StoredGame {
        StoredGame {
            round: slot.round,
            pairing: slot.pairing,
            date: date.to_string(),
            opening: record.opening.clone(),
            fen: record.fen.clone(),
            first_color: color_name(record.a_color),
            black: record.black.clone(),
            white: record.white.clone(),
            moves: record.moves.clone(),
            comments: record.comments.iter().map(ToString::to_string).collect(),
            result: record.outcome.pdn().to_string(),
            termination: record.termination.clone(),
        }
    }

    /// The game again, checked against `schedule` (its round, pairing,
    /// opening and colours); the error says what does not fit.
    pub fn record(&self, schedule: &Schedule) -> Result<(Slot, GameRecord), String> {
        let slot = schedule
            .slot(self.round)
            .ok_or_else(|| "no such round in the schedule".to_string())?;
        if slot.pairing != self.pairing {
            return Err(format!(
                "pairing {} where the schedule has {}",
                self.pairing, slot.pairing
            ));
        }
        let opening = &schedule.openings[schedule.opening_of(slot.pair())];
        if *opening != self.opening {
            return Err(format!(
                "opening '{}' where the schedule has '{opening}'",
                self.opening
            ));
        }
        if self.first_color != color_name(slot.first_color()) {
            return Err(format!(
                "the first engine {} where the schedule has it {}",
                self.first_color,
                slot.first_color().name()
            ));
        }
        let outcome =
            outcome_of(&self.result).ok_or_else(|| format!("result '{}'", self.result))?;
        if self.comments.len() > self.moves.len() {
            return Err("more comments than moves".into());
        }
        let comments = self
            .comments
            .iter()
            .map(|c| c.parse::<MoveComment>().map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((
            slot,
            GameRecord {
                round: self.round,
                variant: schedule.variant,
                opening: self.opening.clone(),
                fen: self.fen.clone(),
                a_color: slot.first_color(),
                black: self.black.clone(),
                white: self.white.clone(),
                moves: self.moves.clone(),
                comments,
                outcome,
                termination: self.termination.clone(),
            },
        ))
    }
}

impl RunState {
    /// A state with no game yet.
    #[must_use]
    pub fn new(
        schedule: Schedule,
        shard: Option<Shard>,
        labels: Vec<String>,
        event: String,
    ) -> RunState {
        RunState {
            format: FORMAT.to_string(),
            version: VERSION,
            schedule,
            shard,
            labels,
            event,
            games: Vec::new(),
        }
    }

    /// Reads `path`; `None` when there is no such file. Every game is
    /// checked against the file's own schedule and shard (once each).
    pub fn load(path: &Path) -> Result<Option<RunState>, StateError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(FileError::io(path, e).into()),
        };
        let malformed = |detail: String| StateError::Malformed {
            path: path.to_path_buf(),
            detail,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(malformed(format!("no \"format\": \"{FORMAT}\"")));
        }
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                return Err(StateError::Version {
                    path: path.to_path_buf(),
                    found: u32::try_from(v).unwrap_or(u32::MAX),
                })
            }
            None => return Err(malformed("no version".into())),
        }
        let state: RunState =
            serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
        if state.labels.len() != state.schedule.engines.len() {
            return Err(malformed("one name for each engine expected".into()));
        }
        let mut seen = std::collections::BTreeSet::new();
        for g in &state.games {
            let bad = |detail: String| StateError::BadGame {
                path: path.to_path_buf(),
                round: g.round,
                detail,
            };
            let (slot, _) = g.record(&state.schedule).map_err(bad)?;
            if let Some(shard) = state.shard.filter(|s| !s.deals(slot.pair())) {
                return Err(bad(format!("not in shard {shard}")));
            }
            if !seen.insert(g.round) {
                return Err(bad("finished twice".into()));
            }
        }
        Ok(Some(state))
    }

    /// Checks that this state (read from `path`) is the run of `schedule`
    /// and `shard`.
    pub fn check(
        &self,
        path: &Path,
        schedule: &Schedule,
        shard: Option<Shard>,
    ) -> Result<(), StateError> {
        let differences = schedule.differences(&self.schedule);
        if !differences.is_empty() {
            return Err(StateError::OtherSchedule {
                path: path.to_path_buf(),
                differences,
            });
        }
        if self.shard != shard {
            return Err(StateError::OtherShard {
                path: path.to_path_buf(),
                there: self.shard,
                here: shard,
            });
        }
        Ok(())
    }

    /// Adds a finished game, keeping the games by round.
    pub fn push(&mut self, game: StoredGame) {
        let at = self.games.partition_point(|g| g.round < game.round);
        self.games.insert(at, game);
    }

    /// Writes the state to `path` atomically (see the module's doc).
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let text = serde_json::to_string(self).map_err(|e| StateError::Malformed {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })? + "\n";
        write_atomically(path, [text.as_bytes()])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::schedule::{Entrant, TournamentKind};
    use kingme::Variant;
    use std::time::Duration;

    fn schedule() -> Schedule {
        Schedule {
            tournament: TournamentKind::Gauntlet,
            engines: ["a", "b", "c"]
                .iter()
                .map(|n| Entrant {
                    name: Some((*n).to_string()),
                    spec: "cmd:kingme".parse().unwrap(),
                    options: Vec::new(),
                    nodes: None,
                })
                .collect(),
            games: 4,
            variant: Variant::English,
            time_control: TimeControl::Nodes(100),
            seed: 1,
            max_plies: 300,
            adjudicate_egdb: None,
            sprt: None,
            openings: vec!["o1".into(), "o2".into()],
        }
    }

    /// A game goes into the state and comes back the same; one that does
    /// not fit the schedule (another opening or colour) is refused.
    #[test]
    fn games_come_back_as_they_went_in_and_misfits_are_refused() {
        let s = schedule();
        // round 7: pairing a-c's game 2 (pair 1: opening o2), a Black
        let slot = s.slot(7).unwrap();
        assert_eq!((slot.pairing, slot.game), (1, 2));
        let record = GameRecord {
            round: 7,
            variant: Variant::English,
            opening: "o2".into(),
            fen: Some("W:W21:B1".into()),
            a_color: Color::Black,
            black: "a".into(),
            white: "c".into(),
            moves: vec!["21-17".into(), "1-5".into()],
            comments: vec![
                MoveComment {
                    score: Some(kingme::engine::Score::Eval(-12)),
                    depth: Some(3),
                    book: false,
                    time: Some(Duration::from_millis(20)),
                },
                MoveComment {
                    time: Some(Duration::from_millis(10)),
                    ..MoveComment::default()
                },
            ],
            outcome: Outcome::Win(Color::White),
            termination: Termination::Repetition,
        };
        let stored = StoredGame::new(slot, &record, "2026.01.02");
        let text = serde_json::to_string(&stored).unwrap();
        let back: StoredGame = serde_json::from_str(&text).unwrap();
        let (slot2, again) = back.record(&s).unwrap();
        assert_eq!(slot2, slot);
        assert_eq!(again.moves, record.moves);
        assert_eq!(again.comments, record.comments);
        assert_eq!(again.outcome, record.outcome);
        assert_eq!(again.termination, record.termination);
        assert_eq!((again.black, again.white), (record.black, record.white));

        let mut wrong = stored.clone();
        wrong.opening = "o1".into();
        assert!(wrong.record(&s).unwrap_err().contains("opening 'o1'"));
        let mut wrong = stored.clone();
        wrong.first_color = "white".into();
        assert!(wrong.record(&s).is_err());
        let mut wrong = stored;
        wrong.round = 13;
        assert!(
            wrong.record(&s).is_err(),
            "3 pairings of 4 games: 12 rounds"
        );
    }
}
