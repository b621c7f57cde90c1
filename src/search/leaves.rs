//! [`LeafCache`]: one search thread's memory of the static scores of the
//! leaves it evaluated, keyed by their full hash. Iterative deepening and
//! transpositions reach the same leaves again and again; a leaf found here
//! is not evaluated twice. The scores are the evaluation's own, so a search
//! visits the same nodes with or without it. Also the leaf score itself
//! ([`Worker::leaf_score`]): the cached evaluation plus the levels' noise.

use super::node::Worker;
use crate::board::Position;

/// Slots in a thread's cache: a power of two, small enough to stay near the
/// core (16 bytes each).
const SLOTS: usize = 1 << 15;

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    score: i32,
}

/// A direct-mapped table of (hash, static score) pairs.
pub(super) struct LeafCache {
    slots: Box<[Slot]>,
}

impl LeafCache {
    /// An empty cache: slot `i` holds a key whose low bits are not `i`, so
    /// no position's hash matches it.
    pub(super) fn new() -> LeafCache {
        LeafCache {
            slots: (0..SLOTS)
                .map(|i| Slot {
                    key: !(i as u64),
                    score: 0,
                })
                .collect(),
        }
    }

    #[inline(always)]
    fn index(hash: u64) -> usize {
        hash as usize & (SLOTS - 1)
    }

    /// The score stored for `hash`, if any.
    #[inline(always)]
    pub(super) fn get(&self, hash: u64) -> Option<i32> {
        let s = self.slots[Self::index(hash)];
        (s.key == hash).then_some(s.score)
    }

    /// Remembers `score` for `hash`, replacing what the slot held.
    #[inline(always)]
    pub(super) fn put(&mut self, hash: u64, score: i32) {
        self.slots[Self::index(hash)] = Slot { key: hash, score };
    }
}

impl Worker<'_, '_> {
    /// The static score of a leaf `pos` (key `hash`), with the search's noise.
    #[inline(always)]
    pub(super) fn leaf_score(&mut self, pos: &Position, hash: u64) -> i32 {
        let score = match self.leaves.get(hash) {
            Some(s) => s,
            None => {
                let s = self
                    .sh
                    .limits
                    .eval
                    .evaluate_cached(pos, &mut self.eval_cache);
                self.leaves.put(hash, s);
                s
            }
        };
        score + noise_of(hash, self.sh.limits.seed, self.sh.limits.noise)
    }
}

/// The weaker levels' leaf noise: a score in `-amp..=amp` fixed by the hash and seed.
fn noise_of(hash: u64, seed: u64, amp: i32) -> i32 {
    if amp == 0 {
        return 0;
    }
    let mut z = hash ^ seed;
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z ^= z >> 29;
    (z % (2 * amp as u64 + 1)) as i32 - amp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_cache_matches_no_hash_and_a_stored_one_is_found_until_replaced() {
        let mut c = LeafCache::new();
        for h in [0u64, 1, u64::MAX, !1, !(SLOTS as u64 - 1), 12345 << 15] {
            assert_eq!(c.get(h), None, "{h:#x}");
        }
        c.put(7, -42);
        assert_eq!(c.get(7), Some(-42));
        // another key of the same slot replaces it, and the first is then unknown
        let other = 7 | (1 << 40);
        assert_eq!(c.get(other), None);
        c.put(other, 5);
        assert_eq!(c.get(other), Some(5));
        assert_eq!(c.get(7), None);
        // a key of another slot leaves it alone
        c.put(8, 9);
        assert_eq!(c.get(other), Some(5));
    }
}
