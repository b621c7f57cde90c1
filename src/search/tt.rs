//! The transposition table: shared by all search threads, lock-free
//! (each entry stores `key ^ data` beside `data`, so a torn write reads as a miss).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a stored score means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// At least this value (a beta cut).
    Lower,
    /// At most this value (all moves failed low).
    Upper,
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Score, with win/loss distances relative to the stored node.
    pub score: i32,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// Kind of bound.
    pub bound: Bound,
    /// Index of the best move in the node's generated move list (255 = none).
    pub move_index: u8,
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Slots per bucket: one 64-byte cache line, so a probe costs one memory access.
const WAYS: usize = 4;

/// The slots a key may live in.
#[repr(align(64))]
struct Bucket([Slot; WAYS]);

/// Where the search generation sits in an entry's data word.
const GEN_SHIFT: u32 = 40;
const GEN_MASK: u64 = 0x3f;

/// There is not enough memory for a table of this size.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not enough memory for a {mib} MiB transposition table")]
pub struct TableAllocError {
    /// The size asked for.
    pub mib: usize,
}

/// A fixed-size table of search results keyed by Zobrist hash. Each key maps to
/// a bucket of `WAYS` slots; a new key replaces the least useful of them
/// (shallowest, from the oldest search).
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    mask: usize,
    generation: AtomicU8,
}

fn decode(data: u64) -> Entry {
    let score = (data & 0xffff) as u16 as i16 as i32;
    let depth = ((data >> 16) & 0xff) as u8 as i8 as i32;
    let bound = match (data >> 24) & 3 {
        0 => Bound::Exact,
        1 => Bound::Lower,
        _ => Bound::Upper,
    };
    let move_index = ((data >> 32) & 0xff) as u8;
    Entry {
        score,
        depth,
        bound,
        move_index,
    }
}

/// Asks the kernel to back the 2 MiB-aligned part of `len` bytes at `start`
/// (allocated, not yet touched) with huge pages, where it offers them on
/// request: a probe then rarely misses the TLB as well as the cache. Only a
/// hint; nothing changes where it is refused.
fn advise_huge_pages(start: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let from = (start as usize).next_multiple_of(HUGE);
        let to = (start as usize + len) / HUGE * HUGE;
        if to > from {
            // SAFETY: the range lies inside one live allocation of ours;
            // MADV_HUGEPAGE changes how it is backed, never its contents
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

impl TranspositionTable {
    /// A table of about `mib` MiB (rounded down to a power of two of buckets, at
    /// least 256 buckets), or an error when that much memory can't be had.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, TableAllocError> {
        let too_big = TableAllocError { mib };
        let bytes = mib.max(1).checked_mul(1024 * 1024).ok_or(too_big.clone())?;
        let size = std::mem::size_of::<Bucket>();
        let mut n = (bytes / size).next_power_of_two();
        if n * size > bytes {
            n /= 2;
        }
        let n = n.max(256);
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets.try_reserve_exact(n).map_err(|_| too_big)?;
        advise_huge_pages(buckets.as_ptr().cast(), n * size);
        buckets.extend((0..n).map(|_| {
            Bucket(std::array::from_fn(|_| Slot {
                check: AtomicU64::new(0),
                data: AtomicU64::new(0),
            }))
        }));
        Ok(TranspositionTable {
            buckets,
            mask: n - 1,
            generation: AtomicU8::new(0),
        })
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for b in &self.buckets {
            for s in &b.0 {
                s.check.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Marks the start of a new search: what older searches stored is replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(g.wrapping_add(1) & GEN_MASK as u8, Ordering::Relaxed);
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[key as usize & self.mask]
    }

    /// Hints the processor to fetch the bucket of `key` into cache ahead of a probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = std::ptr::from_ref(self.bucket(key)).cast::<i8>();
            // SAFETY: a prefetch has no architectural effect; `p` is a valid address.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if stored.
    #[inline]
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in &self.bucket(key).0 {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                return Some(decode(data));
            }
        }
        None
    }

    /// Stores an entry. The key's own slot is replaced unless it holds a deeper
    /// result (an exact result always replaces); a new key takes the slot that is
    /// empty, or else least useful: shallowest, counting each search of age as
    /// two plies.
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let gen = u64::from(self.generation.load(Ordering::Relaxed));
        let bucket = &self.bucket(key).0;
        let mut target = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 {
                if worst > i32::MIN {
                    target = i;
                    worst = i32::MIN;
                }
                continue;
            }
            if s.check.load(Ordering::Relaxed) ^ data == key {
                let old = decode(data);
                if old.depth > e.depth && e.bound != Bound::Exact {
                    return;
                }
                target = i;
                break;
            }
            let age = ((gen.wrapping_sub(data >> GEN_SHIFT)) & GEN_MASK) as i32;
            let value = decode(data).depth - 2 * age;
            if value < worst {
                target = i;
                worst = value;
            }
        }
        let b = match e.bound {
            Bound::Exact => 0u64,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let data = (e.score as i16 as u16 as u64)
            | ((e.depth.clamp(-128, 127) as i8 as u8 as u64) << 16)
            | (b << 24)
            | (1 << 26)
            | ((e.move_index as u64) << 32)
            | (gen << GEN_SHIFT);
        let s = &bucket[target];
        s.data.store(data, Ordering::Relaxed);
        s.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of slots in use.
    #[must_use]
    pub fn hashfull(&self) -> u32 {
        let n = self.buckets.len().min(250);
        let used = self.buckets[..n]
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|s| s.data.load(Ordering::Relaxed) != 0)
            .count();
        (used * 1000 / (n * WAYS)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_too_big_for_memory_is_an_error() {
        let mib = usize::MAX / 2;
        assert_eq!(
            TranspositionTable::try_new(mib).err(),
            Some(TableAllocError { mib })
        );
        // fits in the address computation, not in memory
        let mib = (isize::MAX as usize >> 20) / 2;
        assert!(TranspositionTable::try_new(mib).is_err());
    }

    #[test]
    fn store_probe_round_trip() {
        let tt = TranspositionTable::try_new(1).expect("1 MiB");
        let e = Entry {
            score: -1234,
            depth: 7,
            bound: Bound::Lower,
            move_index: 3,
        };
        tt.store(0xdead_beef_1234, e);
        let g = tt.probe(0xdead_beef_1234).unwrap();
        assert_eq!(
            (g.score, g.depth, g.bound, g.move_index),
            (-1234, 7, Bound::Lower, 3)
        );
        assert!(tt.probe(0xdead_beef_1235).is_none());
        tt.clear();
        assert!(tt.probe(0xdead_beef_1234).is_none());
    }

    fn at(depth: i32) -> Entry {
        Entry {
            score: depth * 10,
            depth,
            bound: Bound::Lower,
            move_index: 0,
        }
    }

    #[test]
    fn a_full_bucket_gives_up_its_least_useful_slot() {
        let tt = TranspositionTable::try_new(1).expect("1 MiB");
        // keys one table-length apart share a bucket
        let key = |j: u64| 0x1234_5678 + (j << 40);
        for (j, d) in [(0, 9), (1, 3), (2, 12), (3, 6)] {
            tt.store(key(j), at(d));
        }
        for j in 0..4 {
            assert!(
                tt.probe(key(j)).is_some(),
                "key {j} kept while there is room"
            );
        }
        // a fifth key takes the shallowest slot (depth 3)
        tt.store(key(4), at(5));
        assert!(tt.probe(key(1)).is_none());
        assert_eq!(tt.probe(key(4)).unwrap().depth, 5);
        // a key's own deeper result is not overwritten by a shallower bound...
        tt.store(key(2), at(4));
        assert_eq!(tt.probe(key(2)).unwrap().depth, 12);
        // ...but an exact one does replace it
        tt.store(
            key(2),
            Entry {
                bound: Bound::Exact,
                ..at(4)
            },
        );
        assert_eq!(tt.probe(key(2)).unwrap().bound, Bound::Exact);

        // after enough new searches, old deep results give way to new shallow ones
        for _ in 0..10 {
            tt.new_search();
        }
        tt.store(key(5), at(1));
        tt.store(key(6), at(1));
        let kept = (0..7).filter(|&j| tt.probe(key(j)).is_some()).count();
        assert_eq!(kept, 4);
        assert!(tt.probe(key(5)).is_some() && tt.probe(key(6)).is_some());
        assert_eq!(tt.hashfull(), 0, "the sample is the first buckets");
        tt.store(5, at(1));
        assert!(tt.hashfull() > 0);
    }
}
