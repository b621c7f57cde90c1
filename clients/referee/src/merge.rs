//! `kingme-referee merge`: the state files of the shards of one schedule
//! counted as one run. The W/D/L, the pairs, the Elo table and the SPRT are
//! decided on the merged games (the SPRT on all their pairs at once: the
//! shards played their parts without stopping). States of other schedules,
//! two copies of one shard, and a state of the whole schedule merged with
//! others are refused.

use crate::schedule::Shard;
use crate::standings::{Finished, RatingSettings, Standings};
use crate::state::{RunState, StateError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why states can't be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A state can't be read.
    #[error(transparent)]
    State(#[from] StateError),
    /// No state given.
    #[error("no state file to merge")]
    NoStates,
    /// No such file.
    #[error("{}: no such state file", .0.display())]
    Missing(PathBuf),
    /// Two states of different schedules.
    #[error("{} and {} are runs of different schedules ({})", .first.display(), .other.display(), .differences.join("; "))]
    OtherSchedule {
        /// The first state given.
        first: PathBuf,
        /// The one that differs.
        other: PathBuf,
        /// What differs (`there` is `other`'s, `here` the first's).
        differences: Vec<String>,
    },
    /// Two copies of one shard.
    #[error("{} and {} are both shard {shard}: each shard is merged once", .first.display(), .other.display())]
    SameShard {
        /// One.
        first: PathBuf,
        /// The other.
        other: PathBuf,
        /// The shard.
        shard: Shard,
    },
    /// A state of the whole schedule with others (their games would count twice).
    #[error("{} holds the whole schedule, not a shard: it merges with no other state", .0.display())]
    Whole(PathBuf),
    /// Shards of different splits.
    #[error("{} is shard {} and {} shard {}: shards of one split (one N) merge", .first.display(), .first_shard, .other.display(), .other_shard)]
    OtherSplit {
        /// One state.
        first: PathBuf,
        /// Its shard.
        first_shard: Shard,
        /// Another.
        other: PathBuf,
        /// Its shard.
        other_shard: Shard,
    },
}

/// Merged states.
#[derive(Debug)]
pub struct Merged {
    /// The count of all their games.
    pub standings: Standings,
    /// The PDN `Event` of the run.
    pub event: String,
}

/// Merges the states at `paths` (see the module's doc).
pub fn merge(paths: &[PathBuf], ratings: RatingSettings) -> Result<Merged, MergeError> {
    let mut states: Vec<(&Path, RunState)> = Vec::with_capacity(paths.len());
    for p in paths {
        let s = RunState::load(p)?.ok_or_else(|| MergeError::Missing(p.clone()))?;
        states.push((p.as_path(), s));
    }
    let Some((first_path, first)) = states.first() else {
        return Err(MergeError::NoStates);
    };
    let mut by_shard: BTreeMap<u32, &Path> = BTreeMap::new();
    for (path, s) in &states {
        let differences = first.schedule.differences(&s.schedule);
        if !differences.is_empty() {
            return Err(MergeError::OtherSchedule {
                first: first_path.to_path_buf(),
                other: path.to_path_buf(),
                differences,
            });
        }
        match (s.shard, first.shard) {
            (None, _) | (_, None) if states.len() > 1 => {
                let whole = if s.shard.is_none() { path } else { first_path };
                return Err(MergeError::Whole(whole.to_path_buf()));
            }
            (Some(a), Some(b)) if a.count() != b.count() => {
                return Err(MergeError::OtherSplit {
                    first: first_path.to_path_buf(),
                    first_shard: b,
                    other: path.to_path_buf(),
                    other_shard: a,
                });
            }
            (Some(a), _) => {
                if let Some(other) = by_shard.insert(a.index(), path) {
                    return Err(MergeError::SameShard {
                        first: other.to_path_buf(),
                        other: path.to_path_buf(),
                        shard: a,
                    });
                }
            }
            (None, _) => {}
        }
    }
    let (shards, missing) = match first.shard {
        None => (Vec::new(), Vec::new()),
        Some(s) => {
            let all = (1..=s.count()).map(|index| Shard::new(index, s.count()).expect("K <= N"));
            all.partition(|x| by_shard.contains_key(&x.index()))
        }
    };
    let mut standings = Standings::new(
        first.schedule.clone(),
        first.labels.clone(),
        shards,
        missing,
        ratings,
        None,
    );
    for (path, s) in &states {
        for g in &s.games {
            let (slot, record) = g
                .record(&s.schedule)
                .map_err(|detail| StateError::BadGame {
                    path: path.to_path_buf(),
                    round: g.round,
                    detail,
                })?;
            let date = g.date.clone();
            standings.add(Finished { slot, record, date }, false);
        }
    }
    standings.decide_on_all_pairs();
    standings.in_progress = false;
    Ok(Merged {
        standings,
        event: first.event.clone(),
    })
}
