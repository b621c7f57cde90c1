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
            if state.shard.is_some_and(|s| !s.holds(slot.pair())) {
                return Err(bad(format!("not in shard {}", state.shard.unwrap())));
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
