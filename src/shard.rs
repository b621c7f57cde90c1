//! [`Shard`]: the K-th of N parts of a long job (`--shard K/N`), so that N
//! machines share it: datagen's games, rescore's records, a book's roots.
//!
//! A job of `len` items is cut into N contiguous parts, the K-th holding the
//! items from ⌊(K−1)·len/N⌋ up to (not including) ⌊K·len/N⌋: the parts are
//! disjoint, differ in size by at most one item, and joined in the order
//! K = 1, 2, …, N they are the whole job in its own order. A job dealt
//! round-robin (the referee's opening pairs) takes instead the items `k`
//! with `k mod N = K − 1` ([`Shard::deals`]).

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// One part of a job cut into `count` parts; `index` from 1 to `count`.
/// Serialized as its text, `K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Why a `K/N` text or pair is not a shard.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseShardError {
    /// Not two whole numbers around a slash.
    #[error("`{0}` is not a shard K/N (for example 3/8)")]
    Syntax(String),
    /// K outside 1..=N.
    #[error("shard {index}/{count}: K must be from 1 to N")]
    OutOfRange {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
}

impl Shard {
    /// The whole job: part 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Part `index` of `count` (`index` from 1 to `count`).
    pub fn new(index: u32, count: u32) -> Result<Shard, ParseShardError> {
        if index == 0 || index > count {
            return Err(ParseShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// K, from 1 to [`Shard::count`].
    #[must_use]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// N, the number of parts.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.count
    }

    /// Whether item `k` (from 0) of a job dealt round-robin is this
    /// shard's: `k mod N = K − 1`.
    #[must_use]
    pub fn deals(self, k: usize) -> bool {
        k % self.count as usize == self.index as usize - 1
    }

    /// Whether this is the whole job (1/1).
    #[must_use]
    pub const fn is_whole(self) -> bool {
        self.count == 1
    }

    /// The items of this part of a job of `len` items.
    #[must_use]
    pub fn part(self, len: u64) -> Range<u64> {
        let at = |k: u32| (u128::from(len) * u128::from(k) / u128::from(self.count)) as u64;
        at(self.index - 1)..at(self.index)
    }

    /// This part of `items`.
    #[must_use]
    pub fn part_of<T>(self, items: &[T]) -> &[T] {
        let r = self.part(items.len() as u64);
        &items[r.start as usize..r.end as usize]
    }
}

/// Why named parts are not every shard of one job, each once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardSetError {
    /// One shard given twice.
    #[error("{second}: shard {shard} again (it is {first} too)")]
    Twice {
        /// The shard.
        shard: Shard,
        /// The first part that is it.
        first: String,
        /// The second.
        second: String,
    },
    /// Shards of the job missing.
    #[error("shards {missing} of {count} missing (every shard of the job is needed)")]
    Missing {
        /// Their numbers, `1, 4, 5`.
        missing: String,
        /// N.
        count: u32,
    },
    /// Parts of jobs cut differently (or a whole among shards).
    #[error("{other} is shard {other_shard}, {first} shard {first_shard}: not shards of one job")]
    Mixed {
        /// The first part.
        first: String,
        /// Its shard.
        first_shard: Shard,
        /// A part cut otherwise.
        other: String,
        /// Its shard.
        other_shard: Shard,
    },
}

/// The order K = 1, 2, …, N of `parts` (each a shard and the name it goes
/// by), which must be every shard of one job cut in N, each once.
pub fn in_order(parts: &[(Shard, &str)]) -> Result<Vec<usize>, ShardSetError> {
    let Some(&(first, first_name)) = parts.first() else {
        return Ok(Vec::new());
    };
    let n = first.count();
    let mut slots: Vec<Option<usize>> = vec![None; n as usize];
    for (i, &(s, name)) in parts.iter().enumerate() {
        if s.count() != n {
            return Err(ShardSetError::Mixed {
                first: first_name.to_string(),
                first_shard: first,
                other: name.to_string(),
                other_shard: s,
            });
        }
        let slot = &mut slots[s.index() as usize - 1];
        if let Some(earlier) = *slot {
            return Err(ShardSetError::Twice {
                shard: s,
                first: parts[earlier].1.to_string(),
                second: name.to_string(),
            });
        }
        *slot = Some(i);
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| slots[*k as usize - 1].is_none())
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(ShardSetError::Missing {
            missing: missing.join(", "),
            count: n,
        });
    }
    Ok(slots.into_iter().flatten().collect())
}

impl Default for Shard {
    fn default() -> Self {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ParseShardError;

    fn from_str(s: &str) -> Result<Shard, ParseShardError> {
        let syntax = || ParseShardError::Syntax(s.to_string());
        let (k, n) = s.trim().split_once('/').ok_or_else(syntax)?;
        let number = |t: &str| {
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u32>().ok())
                .flatten()
                .ok_or_else(syntax)
        };
        Shard::new(number(k)?, number(n)?)
    }
}

impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_disjoint_cover_the_job_in_order_and_differ_by_one_at_most() {
        for len in [0u64, 1, 7, 156, 157, 1000] {
            for n in 1..=9u32 {
                let parts: Vec<Range<u64>> = (1..=n)
                    .map(|k| Shard::new(k, n).unwrap().part(len))
                    .collect();
                assert_eq!(parts[0].start, 0);
                assert_eq!(parts[n as usize - 1].end, len);
                for w in parts.windows(2) {
                    assert_eq!(w[0].end, w[1].start, "len {len} n {n}");
                }
                let sizes: Vec<u64> = parts.iter().map(|r| r.end - r.start).collect();
                let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(hi - lo <= 1, "len {len} n {n}: {sizes:?}");
            }
        }
        // 10 items in 3 parts: 3, 3, 4
        let items: Vec<u32> = (0..10).collect();
        let got: Vec<&[u32]> = (1..=3)
            .map(|k| Shard::new(k, 3).unwrap().part_of(&items))
            .collect();
        assert_eq!(got, [&[0, 1, 2][..], &[3, 4, 5], &[6, 7, 8, 9]]);
        assert_eq!(Shard::WHOLE.part(u64::MAX), 0..u64::MAX);
    }

    #[test]
    fn shards_read_and_print_as_k_of_n_and_nonsense_is_refused() {
        let s: Shard = "3/8".parse().unwrap();
        assert_eq!((s.index(), s.count(), s.to_string()), (3, 8, "3/8".into()));
        assert!(!s.is_whole() && "1/1".parse::<Shard>().unwrap().is_whole());
        for bad in ["0/4", "5/4", "1/0"] {
            assert!(
                matches!(
                    bad.parse::<Shard>(),
                    Err(ParseShardError::OutOfRange { .. })
                ),
                "{bad}"
            );
        }
        for bad in [
            "",
            "3",
            "3/",
            "/8",
            "a/8",
            "-1/8",
            "3/8/9",
            "+3/8",
            "99999999999/2",
        ] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ParseShardError::Syntax(_))),
                "{bad}"
            );
        }
    }
}
