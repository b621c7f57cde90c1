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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, Variant};

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kingme-merge-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Records of distinct legal positions, numbered `0..n`.
    fn recs(n: usize) -> Vec<Record> {
        let fens = [
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
            "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,12,14,16",
            "B:WK14,K22,27,30:B3,K9,12,5",
            "B:W28,29,30:B5,6,7,20",
            "W:W28,29,30:B5,6,7,20",
            "W:WK14,K22,27:B3,K9,12",
        ];
        fens[..n]
            .iter()
            .enumerate()
            .map(|(i, f)| Record {
                position: Position::from_fen(Variant::English, f).unwrap(),
                result: (i % 3) as u8,
                score: i as i16 * 10,
            })
            .collect()
    }

    fn file_bytes(h: &Header, records: &[Record]) -> Vec<u8> {
        let mut b = h.to_bytes().to_vec();
        records
            .iter()
            .for_each(|r| b.extend_from_slice(&r.to_bytes()));
        b
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn games_shard(k: u32, n: u32, whole: u64) -> Header {
        let shard = Shard::new(k, n).unwrap();
        Header {
            shard,
            whole,
            next_game: shard.part(whole).end,
            ..Header::new(Source::Games, 7)
        }
    }

    #[test]
    fn a_runs_shards_join_in_order_less_what_an_earlier_shard_wrote() {
        let d = dir("games");
        let r = recs(5);
        // shard 2 reached position 1 too, which shard 1 wrote
        let one = write(&d, "1.kmd", &file_bytes(&games_shard(1, 2, 10), &r[..2]));
        let two = write(
            &d,
            "2.kmd",
            &file_bytes(&games_shard(2, 2, 10), &[r[2], r[1], r[3], r[4]]),
        );
        let out = d.join("all.kmd");
        let s = merge(&[two, one], &out).unwrap();
        let whole = Header {
            next_game: 10,
            whole: 10,
            ..Header::new(Source::Games, 7)
        };
        assert_eq!(std::fs::read(&out).unwrap(), file_bytes(&whole, &r));
        assert_eq!((s.header, s.positions, s.repeats), (whole, 5, 1));
    }

    #[test]
    fn rescored_shards_keep_every_record_and_whole_files_join_as_given() {
        let d = dir("rescored");
        let r = recs(3);
        let input = [r[0], r[1], r[0], r[2]];
        let job = |k| Header {
            shard: Shard::new(k, 2).unwrap(),
            whole: 4,
            input: 99,
            ..Header::new(Source::Rescored, 0)
        };
        let a = write(&d, "a.kmd", &file_bytes(&job(1), &input[..2]));
        let b = write(&d, "b.kmd", &file_bytes(&job(2), &input[2..]));
        let out = d.join("all.kmd");
        merge(&[b, a], &out).unwrap();
        let whole = Header {
            shard: Shard::WHOLE,
            ..job(1)
        };
        assert_eq!(std::fs::read(&out).unwrap(), file_bytes(&whole, &input));
        // whole files of two seeds: joined as given, repeats kept, the seed dropped
        let x = write(
            &d,
            "x.kmd",
            &file_bytes(&Header::new(Source::Games, 1), &r[..2]),
        );
        let y = write(
            &d,
            "y.kmd",
            &file_bytes(&Header::new(Source::Games, 2), &r[1..]),
        );
        let s = merge(&[y, x], &out).unwrap();
        let joined = [r[1], r[2], r[0], r[1]];
        assert_eq!(
            std::fs::read(&out).unwrap(),
            file_bytes(&Header::new(Source::Games, 0), &joined)
        );
        assert_eq!(s.repeats, 0);
    }

    #[test]
    fn torn_corrupt_twice_missing_unfinished_or_foreign_inputs_are_refused_by_name() {
        let d = dir("refused");
        let r = recs(4);
        let one = file_bytes(&games_shard(1, 2, 10), &r[..2]);
        let two = file_bytes(&games_shard(2, 2, 10), &r[2..]);
        let p1 = write(&d, "1.kmd", &one);
        let p2 = write(&d, "2.kmd", &two);
        let out = d.join("out.kmd");
        merge(&[p1.clone(), p2.clone()], &out).unwrap();
        let before = std::fs::read(&out).unwrap();
        let name = |p: &Path| p.display().to_string();
        let refused = |inputs: &[PathBuf]| merge(inputs, &out).unwrap_err().to_string();

        let mut torn = two.clone();
        torn.extend_from_slice(&[1, 2, 3]);
        let t = write(&d, "torn.kmd", &torn);
        let e = refused(&[p1.clone(), t.clone()]);
        assert!(e.contains(&name(&t)) && e.contains("torn"), "{e}");

        let mut corrupt = two.clone();
        corrupt[record::HEADER_LEN + RECORD_LEN + 12] = 7; // record 1: side to move 7
        let c = write(&d, "corrupt.kmd", &corrupt);
        let e = refused(&[p1.clone(), c.clone()]);
        assert!(e.contains(&name(&c)) && e.contains("record 1"), "{e}");

        let again = write(&d, "again.kmd", &one);
        let e = refused(&[p1.clone(), again.clone(), p2.clone()]);
        assert!(
            e.contains(&name(&p1)) && e.contains(&name(&again)) && e.contains("1/2 again"),
            "{e}"
        );

        let e = refused(std::slice::from_ref(&p2));
        assert!(e.contains("shards 1 of 2 missing"), "{e}");

        let unfinished = Header {
            next_game: 7,
            ..games_shard(2, 2, 10)
        };
        let u = write(&d, "unfinished.kmd", &file_bytes(&unfinished, &r[2..]));
        let e = refused(&[p1.clone(), u.clone()]);
        assert!(
            e.contains(&name(&u)) && e.contains("stopped before game 7") && e.contains("--append"),
            "{e}"
        );

        let seeded = Header {
            seed: 8,
            ..games_shard(2, 2, 10)
        };
        let s = write(&d, "seed8.kmd", &file_bytes(&seeded, &r[2..]));
        let e = refused(&[p1.clone(), s.clone()]);
        assert!(e.contains(&name(&s)) && e.contains("seed 8, not 7"), "{e}");

        let w = write(
            &d,
            "whole.kmd",
            &file_bytes(&Header::new(Source::Games, 7), &r),
        );
        let e = refused(&[w.clone(), p2.clone()]);
        assert!(
            e.contains(&name(&w)) && e.contains("not shards of one job"),
            "{e}"
        );

        // nothing written by a refused merge: the output as it was, no temporary left
        assert_eq!(std::fs::read(&out).unwrap(), before);
        let left = std::fs::read_dir(&d)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(left, 0);
        let _ = std::fs::remove_dir_all(&d);
    }
}
