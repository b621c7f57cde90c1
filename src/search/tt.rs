//! The transposition table: shared by all search threads, lock-free
//! (each entry stores `key ^ data` beside `data`, so a torn write reads as a miss).

use std::sync::atomic::{AtomicU64, Ordering};

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

/// A fixed-size table of search results keyed by Zobrist hash.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    mask: usize,
}

impl TranspositionTable {
    /// A table of about `mib` MiB (rounded down to a power of two entries, at least 1024).
    #[must_use]
    pub fn new(mib: usize) -> TranspositionTable {
        let bytes = mib.max(1) * 1024 * 1024;
        let mut n = (bytes / std::mem::size_of::<Slot>()).next_power_of_two();
        if n * std::mem::size_of::<Slot>() > bytes {
            n /= 2;
        }
        let n = n.max(1024);
        let slots = (0..n)
            .map(|_| Slot {
                check: AtomicU64::new(0),
                data: AtomicU64::new(0),
            })
            .collect();
        TranspositionTable { slots, mask: n - 1 }
    }

    /// Size in MiB.
    #[must_use]
    pub fn size_mib(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>() / (1024 * 1024)
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for s in &self.slots {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }

    /// Hints the processor to fetch the slot of `key` into cache ahead of a probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = std::ptr::from_ref(&self.slots[key as usize & self.mask]).cast::<i8>();
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
        let s = &self.slots[key as usize & self.mask];
        let data = s.data.load(Ordering::Relaxed);
        let check = s.check.load(Ordering::Relaxed);
        if data == 0 || check ^ data != key {
            return None;
        }
        let score = (data & 0xffff) as u16 as i16 as i32;
        let depth = ((data >> 16) & 0xff) as u8 as i8 as i32;
        let bound = match (data >> 24) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        let move_index = ((data >> 32) & 0xff) as u8;
        Some(Entry {
            score,
            depth,
            bound,
            move_index,
        })
    }

    /// Stores an entry (always replaces, unless the slot holds a deeper result for the same key).
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let s = &self.slots[key as usize & self.mask];
        if let Some(old) = self.probe(key) {
            if old.depth > e.depth && e.bound != Bound::Exact {
                return;
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
            | ((e.move_index as u64) << 32);
        s.data.store(data, Ordering::Relaxed);
        s.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of slots in use.
    #[must_use]
    pub fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        self.slots[..n]
            .iter()
            .filter(|s| s.data.load(Ordering::Relaxed) != 0)
            .count() as u32
            * 1000
            / n as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_probe_round_trip() {
        let tt = TranspositionTable::new(1);
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
}
