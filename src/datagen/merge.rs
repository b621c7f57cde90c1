//! `kingme merge-data`: data files joined into one.
//!
//! Every input is checked before anything is written (its header, a whole
//! number of records), and every record as it is copied (a legal position);
//! a torn or corrupt input is refused by name, and the output, written
//! atomically, is then as it was.
//!
//! Inputs that are shards (their headers say `K/N`, N > 1) must be the N
//! shards of one job, each given once and finished: the same source, seed,
//! N, whole size and input fingerprint; a datagen shard must have played all
//! its games, a rescore shard must hold all its records. They are joined in
//! the order K = 1, …, N, whatever the order given, under the whole job's
//! header (shard 1/1, a datagen run's next game its number of games). A
//! datagen run writes a position once, so the join of its shards leaves out
//! a position an earlier shard wrote: the merge of a run's shards is then
//! the file of the run unsharded, byte for byte. Rescored records are all
//! kept: the merge of a rescoring's shards is the unsharded rescoring's file.
//!
//! Inputs that are not shards are joined in the order given, every record
//! kept, under their header if they all have the same one, else one of the
//! source and seed they share (unknown and 0 where they differ).

use super::record::{self, DataError, Header, Record, Source, RECORD_LEN};
use crate::checked_file::{write_atomically_with, FileError};
use crate::shard::{self, Shard, ShardSetError};
use std::collections::HashSet;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Why a merge wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// An input that can't be read, or is torn or corrupt.
    #[error(transparent)]
    Input(#[from] DataError),
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] FileError),
    /// No input.
    #[error("no data file to merge")]
    Empty,
    /// Not every shard of one job once.
    #[error(transparent)]
    Shards(#[from] ShardSetError),
    /// An input not of the job the first shard is a part of.
    #[error("{path}: not a shard of the job {first} is a shard of ({reason})")]
    OtherJob {
        /// The input.
        path: String,
        /// The first shard given.
        first: String,
        /// What differs.
        reason: String,
    },
    /// A shard whose run stopped before its end.
    #[error("{path}: shard {shard} is not finished ({reason}); continue it with --append")]
    Unfinished {
        /// The input.
        path: String,
        /// Its shard.
        shard: Shard,
        /// How far it went.
        reason: String,
    },
}

/// What a merge wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeSummary {
    /// The output's header.
    pub header: Header,
    /// Records written.
    pub positions: u64,
    /// Positions left out because an earlier datagen shard wrote them.
    pub repeats: u64,
}

/// An input, its header read and its size checked.
struct Input {
    path: PathBuf,
    name: String,
    header: Header,
    records: u64,
}

impl Input {
    fn open(path: &Path) -> Result<Input, DataError> {
        let name = path.display().to_string();
        let io = |source| DataError::Io {
            path: name.clone(),
            source,
        };
        let mut f = std::fs::File::open(path).map_err(io)?;
        let len = f.metadata().map_err(io)?.len();
        let mut start = Vec::with_capacity(record::HEADER_LEN);
        (&mut f)
            .take(record::HEADER_LEN as u64)
            .read_to_end(&mut start)
            .map_err(io)?;
        let header = Header::parse(&start, &name)?;
        let body = len.saturating_sub(header.byte_len() as u64);
        if body % RECORD_LEN as u64 != 0 {
            return Err(DataError::Bad {
                path: name,
                reason: format!(
                    "torn: {body} bytes after the header is not a whole number of \
                     {RECORD_LEN}-byte records"
                ),
            });
        }
        Ok(Input {
            path: path.to_path_buf(),
            name,
            header,
            records: body / RECORD_LEN as u64,
        })
    }

    /// Copies its records, each checked, to `out`, leaving out those whose
    /// keys `seen` holds when there is a `seen`; returns the records written.
    fn copy(
        &self,
        out: &mut dyn Write,
        mut seen: Option<&mut HashSet<u64>>,
        out_path: &Path,
    ) -> Result<u64, MergeError> {
        let io = |source| DataError::Io {
            path: self.name.clone(),
            source,
        };
        let mut r = BufReader::with_capacity(1 << 16, std::fs::File::open(&self.path).map_err(io)?);
        std::io::copy(
            &mut (&mut r).take(self.header.byte_len() as u64),
            &mut std::io::sink(),
        )
        .map_err(io)?;
        let mut written = 0;
        let mut b = [0u8; RECORD_LEN];
        for i in 0..self.records {
            r.read_exact(&mut b).map_err(io)?;
            let rec = Record::from_bytes(&b).ok_or_else(|| DataError::Bad {
                path: self.name.clone(),
                reason: format!("record {i} is not a legal position"),
            })?;
            if let Some(seen) = seen.as_deref_mut() {
                if !seen.insert(rec.position.hash()) {
                    continue;
                }
            }
            out.write_all(&b).map_err(|e| FileError::io(out_path, e))?;
            written += 1;
        }
        Ok(written)
    }
}

/// The inputs in the order they are joined and the output's header.
fn plan(inputs: Vec<Input>) -> Result<(Vec<Input>, Header), MergeError> {
    let first = inputs.first().ok_or(MergeError::Empty)?;
    let sharded = |i: &Input| !i.header.shard.is_whole();
    if !sharded(first) {
        if let Some(s) = inputs.iter().find(|i| sharded(i)) {
            return Err(ShardSetError::Mixed {
                first: first.name.clone(),
                first_shard: first.header.shard,
                other: s.name.clone(),
                other_shard: s.header.shard,
            }
            .into());
        }
        let h = first.header;
        let header = if inputs.iter().all(|i| i.header == h) {
            Header { version: 2, ..h }
        } else {
            let all = |same: &dyn Fn(&Header) -> bool| inputs.iter().all(|i| same(&i.header));
            Header::new(
                if all(&|o| o.source == h.source) {
                    h.source
                } else {
                    Source::Unknown
                },
                if all(&|o| o.seed == h.seed) {
                    h.seed
                } else {
                    0
                },
            )
        };
        return Ok((inputs, header));
    }
    let job = first.header;
    let first_name = first.name.clone();
    let order = shard::in_order(
        &inputs
            .iter()
            .map(|i| (i.header.shard, i.name.as_str()))
            .collect::<Vec<_>>(),
    )?;
    for i in &inputs {
        let h = i.header;
        let differs = [
            (
                h.source != job.source,
                format!("{}, not {}", h.source, job.source),
            ),
            (
                h.seed != job.seed,
                format!("seed {}, not {}", h.seed, job.seed),
            ),
            (
                h.whole != job.whole,
                format!("a job of {}, not {}", h.whole, job.whole),
            ),
            (h.input != job.input, "another input".to_string()),
        ];
        if let Some((_, reason)) = differs.into_iter().find(|(d, _)| *d) {
            return Err(MergeError::OtherJob {
                path: i.name.clone(),
                first: first_name,
                reason,
            });
        }
        let part = h.shard.part(job.whole);
        let unfinished = match h.source {
            Source::Games if h.next_game != part.end => Some(format!(
                "its games are {}..{}, it stopped before game {}",
                part.start, part.end, h.next_game
            )),
            Source::Rescored if i.records != part.end - part.start => Some(format!(
                "{} of its {} records",
                i.records,
                part.end - part.start
            )),
            _ => None,
        };
        if let Some(reason) = unfinished {
            return Err(MergeError::Unfinished {
                path: i.name.clone(),
                shard: h.shard,
                reason,
            });
        }
    }
    let header = Header {
        version: 2,
        shard: Shard::WHOLE,
        next_game: if job.source == Source::Games {
            job.whole
        } else {
            0
        },
        ..job
    };
    let mut slots: Vec<Option<Input>> = inputs.into_iter().map(Some).collect();
    let ordered = order.into_iter().filter_map(|i| slots[i].take()).collect();
    Ok((ordered, header))
}

/// Joins the data files `inputs` into `out` (the module's doc says how).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary, MergeError> {
    let opened = inputs
        .iter()
        .map(|p| Input::open(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (inputs, header) = plan(opened)?;
    // a datagen run's shards: what the run leaves out, the merge does
    let dedup = header.source == Source::Games && !inputs[0].header.shard.is_whole();
    let mut seen = HashSet::new();
    let mut positions = 0;
    let mut offered = 0;
    write_atomically_with(out, |w| -> Result<(), MergeError> {
        w.write_all(&header.to_bytes())
            .map_err(|e| FileError::io(out, e))?;
        for i in &inputs {
            offered += i.records;
            positions += i.copy(w, dedup.then_some(&mut seen), out)?;
        }
        Ok(())
    })?;
    Ok(MergeSummary {
        header,
        positions,
        repeats: offered - positions,
    })
}
