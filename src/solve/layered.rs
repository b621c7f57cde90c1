//! `Layered`: the values of every mini position reachable from the start,
//! built layer by layer on all threads.
//!
//! A layer holds the positions with the same number of men and the same
//! advancement (see [`keymoves`](super::keymoves)). A regular move leads to the
//! next layer up in advancement, a capture to one of four layers with a man
//! fewer, and a pass stays in its layer but is followed by a move. So the
//! build is two sweeps over the layers:
//!
//! 1. forward, from the start (most men, least advanced first): each layer's
//!    positions are expanded, and the children not reached before are listed
//!    in their layers;
//! 2. backward (fewest men, most advanced first): every child of a layer's
//!    positions is already solved, so each value is the best of its moves.
//!
//! Positions are numbered densely within their material class (see
//! [`index`](super::index)): a bit per position marks the ones reached, and
//! an array holds their values, so there is no hashing and no probing.
//! Before a layer is expanded its list is sorted by the men of the side not
//! moving, whose children then lie close together in those arrays and whose
//! moves share much of their work (see [`Mover`]). A list entry carries the
//! position's index next to its key, found when the position was reached.

use super::index::{class_number, class_sides, class_size, locate_checked, CLASSES};
use super::key;
use super::keymoves::{self, Mover, Next, Out};
use super::layer_sort::{Sorter, CHUNK};
use super::memo::prefetch;
#[cfg(test)]
use super::reached::{entry, TARGETS};
use super::reached::{mark, unentry, Blocks, Found};
use super::value::{packed_before_move, packed_order};
use super::zeroed::{Arena, Run, Zeroed};
use super::GameValue;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The most men a layer may hold (the start position's 12).
const MAX_MEN: usize = 12;
/// The largest advancement of 12 men.
const MAX_ADVANCEMENT: usize = 60;
const ADVANCEMENTS: usize = MAX_ADVANCEMENT + 1;
const LAYERS: usize = (MAX_MEN + 1) * ADVANCEMENTS;

/// The layer of a key, or `None` for a position no layer holds.
#[inline(always)]
fn layer_of(key: u64) -> Option<usize> {
    let men = key::men(key) as usize;
    let a = key::advancement(key) as usize;
    (men <= MAX_MEN && a <= MAX_ADVANCEMENT).then_some(men * ADVANCEMENTS + a)
}

/// The layers in the order the forward sweep visits them: by men (most
/// first) and advancement (least first), skewed so that a layer comes soon
/// after the last one that can reach it. A layer of `m` men and advancement
/// `a` is reached by regular moves from advancement `a - 1` and by captures
/// from `m + 1` men and advancement `a - 1` to `a + 2`, so ordering by
/// `a + 3 (12 - m)` puts every parent first.
fn forward_order() -> impl DoubleEndedIterator<Item = usize> {
    const STEPS: usize = ADVANCEMENTS + 3 * MAX_MEN;
    (0..STEPS).flat_map(|step| {
        (0..=MAX_MEN).rev().filter_map(move |men| {
            let a = step.checked_sub(3 * (MAX_MEN - men))?;
            (a < ADVANCEMENTS).then_some(men * ADVANCEMENTS + a)
        })
    })
}

/// The first of the four layers a capture from `layer` can lead to: a man
/// fewer, and an advancement from 2 below to 1 above (the capturer gains 2,
/// the man taken had come 1 to 4 rows). Only meaningful for a layer with
/// two men or more.
#[inline(always)]
fn first_capture_layer(layer: usize) -> usize {
    layer.wrapping_sub(ADVANCEMENTS + 2)
}

/// The layer of target `target` (0: regular moves, 1-4: captures) of `layer`.
#[inline(always)]
fn target_layer(layer: usize, target: usize) -> usize {
    if target == 0 {
        layer + 1
    } else {
        first_capture_layer(layer) + target - 1
    }
}

/// The packed value of the best move among moves leading to children with
/// packed values `children` (each must be known: the backward sweep has
/// always solved a child before its parent).
#[inline(always)]
fn best_move_value(children: impl Iterator<Item = u16>) -> u16 {
    children
        .map(|v| {
            debug_assert_ne!(v, 0, "every child is solved before its parent");
            packed_before_move(v)
        })
        .max_by_key(|&p| packed_order(p))
        .expect("at least one move")
}

/// The positions of one material class that a game reaches, and their values.
struct Class {
    /// A bit per position of the class: reached.
    seen: Zeroed<AtomicU64>,
    /// Per word of `seen`: the bits set in the words before it.
    before: Zeroed<AtomicU32>,
    /// The packed value of each position reached, in index order (0 until
    /// solved).
    values: Zeroed<AtomicU16>,
}

impl Class {
    /// The class whose reached positions are the bits of `seen`, unsolved.
    fn new(seen: Zeroed<AtomicU64>) -> Class {
        let before: Zeroed<AtomicU32> = Zeroed::new(seen.len());
        let mut n = 0u32;
        for (w, b) in seen.iter().zip(before.iter()) {
            b.store(n, Relaxed);
            n += w.load(Relaxed).count_ones();
        }
        Class {
            seen,
            before,
            values: Zeroed::new(n as usize),
        }
    }

    /// Asks the CPU to start loading what [`Class::slot`] reads for `i`.
    #[inline(always)]
    fn prefetch_slot(&self, i: usize) {
        prefetch(&self.seen[i / 64]);
        prefetch(&self.before[i / 64]);
    }

    /// The value of position `i` if it was reached.
    #[inline(always)]
    fn slot(&self, i: usize) -> Option<&AtomicU16> {
        let word = self.seen.get(i / 64)?.load(Relaxed);
        let bit = 1 << (i % 64);
        (word & bit != 0).then(|| {
            &self.values[self.before[i / 64].load(Relaxed) as usize
                + (word & (bit - 1)).count_ones() as usize]
        })
    }
}

/// The values of every position reachable from one start position.
pub(super) struct Layered {
    /// By class number: the positions reached and their values.
    classes: Vec<Option<Class>>,
}

impl Layered {
    /// A table that holds no position.
    #[cfg(test)]
    pub(super) fn empty() -> Layered {
        Layered {
            classes: (0..CLASSES).map(|_| None).collect(),
        }
    }

    /// Solves every position reachable from the position with key `start`,
    /// calling `progress` with the positions found so far after each layer of
    /// the forward sweep and with the positions solved after each layer of the
    /// backward sweep.
    ///
    /// # Panics
    /// If `start` has more than 12 men (more than any mini game starts with).
    pub(super) fn build(start: u64, progress: &mut dyn FnMut(usize)) -> Layered {
        let first = layer_of(start).expect("a mini start position has at most 12 men");
        // every class a game from `start` can reach: no side gains men
        let (us, them) = key::split(start);
        let side = us.count_ones().max(them.count_ones()) as usize;
        let men = key::men(start) as usize;
        let reachable = |c: usize| {
            let (u, t) = class_sides(c);
            u <= side && t <= side && u + t <= men
        };
        let seen: Vec<Option<Zeroed<AtomicU64>>> = (0..CLASSES)
            .map(|c| reachable(c).then(|| Zeroed::new(class_size(c).div_ceil(64))))
            .collect();
        let mut len = 0;
        // by layer: the lists of positions reached (forward sweep), then all
        // of them, sorted (backward sweep)
        let mut pending: Vec<Vec<Vec<u64>>> = vec![Vec::new(); LAYERS];
        let mut arena = Arena::new();
        let mut layers: Vec<[Run; 2]> = vec![[Run::default(); 2]; LAYERS];
        let mut sorter = Sorter::default();
        let blocks = Blocks::default();
        // time spent sorting, and in each sweep (for the log)
        let began = Instant::now();
        let mut sorting = Duration::ZERO;
        let start = mark(&seen, start).expect("nothing is marked yet");
        pending[first].push(vec![start]);
        for layer in forward_order() {
            let lists = std::mem::take(&mut pending[layer]);
            if lists.is_empty() {
                continue;
            }
            let n = lists.iter().map(Vec::len).sum();
            let run = arena.alloc(n);
            let keys: &[AtomicU64] = arena.get(run);
            let sorted = Instant::now();
            sorter.sort_by_them(&lists, keys);
            sorting += sorted.elapsed();
            blocks.give(lists);
            let found: Vec<Found> = keys
                .par_chunks(CHUNK)
                .fold(
                    || Found::new(&blocks),
                    |found, part| found.expand(&seen, part),
                )
                .collect();
            // The positions the turn passes to belong to this layer; the ones
            // not reached by a move are added and expanded after the others.
            let passes: Vec<u64> = found
                .iter()
                .flat_map(|f| &f.passes)
                .filter_map(|&p| mark(&seen, p))
                .collect();
            let extra_run = arena.alloc(passes.len());
            for (slot, p) in arena.get(extra_run).iter().zip(passes) {
                slot.store(p, Relaxed);
            }
            let extra = Found::new(&blocks).expand(&seen, arena.get(extra_run));
            debug_assert!(extra.passes.is_empty(), "a pass is followed by a move");
            for f in found.into_iter().chain([extra]) {
                for (target, list) in f.lists.into_iter().enumerate() {
                    pending[target_layer(layer, target)].extend(list);
                }
            }
            len += run.len() + extra_run.len();
            progress(len);
            layers[layer] = [run, extra_run];
        }
        let forward = began.elapsed();
        let table = Layered {
            classes: seen
                .into_par_iter()
                .map(|seen| seen.map(Class::new))
                .collect(),
        };
        let backward = Instant::now();
        let mut solved = 0;
        for layer in forward_order().rev() {
            let [moved, passed] = layers[layer].map(|run| arena.get(run));
            if moved.is_empty() && passed.is_empty() {
                continue;
            }
            moved
                .par_chunks(CHUNK)
                .chain(passed.par_chunks(CHUNK))
                .for_each(|part| table.solve(part));
            solved += moved.len() + passed.len();
            progress(solved);
        }
        tracing::debug!(
            positions = len,
            forward_s = forward.as_secs_f64(),
            sorting_s = sorting.as_secs_f64(),
            backward_s = backward.elapsed().as_secs_f64(),
            "mini table built"
        );
        table
    }

    /// Solves `keys`, whose children are all solved, a batch at a time:
    /// first every value the batch reads or writes is found and asked for,
    /// then the values are computed, so that the memory reads overlap.
    fn solve(&self, keys: &[AtomicU64]) {
        const BATCH: usize = 32;
        let mut mover = Mover::new();
        // per position of the batch: its own place (in `reads` too, after its
        // children's), and its value when known without them
        let mut batch: Vec<(usize, Option<u16>)> = Vec::with_capacity(BATCH);
        let mut reads: Vec<(&Class, usize)> = Vec::new();
        let mut slots: Vec<&AtomicU16> = Vec::new();
        for part in keys.chunks(BATCH) {
            batch.clear();
            reads.clear();
            for key in part {
                let (key, own) = unentry(key.load(Relaxed));
                let found = mover.visit::<false>(key, |child| {
                    let class = self.class(child.class);
                    let i = child.index as usize;
                    class.prefetch_slot(i);
                    reads.push((class, i));
                });
                let known = match found {
                    Next::Moves { .. } => None,
                    Next::Pass(p) => Some(self.after_pass(p).pack()),
                    Next::Over => {
                        let (us, them) = key::split(key);
                        Some(GameValue::finished(us.count_ones(), them.count_ones()).pack())
                    }
                };
                let (us, them) = key::split(key);
                let class = self.class(class_number(
                    us.count_ones() as usize,
                    them.count_ones() as usize,
                ));
                class.prefetch_slot(own);
                reads.push((class, own));
                batch.push((reads.len() - 1, known));
            }
            slots.clear();
            slots.extend(reads.iter().map(|&(class, i)| {
                let slot = class
                    .slot(i)
                    .expect("every child of a reachable position is in the table");
                prefetch(slot);
                slot
            }));
            let mut first = 0;
            for &(own, known) in &batch {
                let packed = known.unwrap_or_else(|| {
                    best_move_value(slots[first..own].iter().map(|v| v.load(Relaxed)))
                });
                first = own + 1;
                slots[own].store(packed, Relaxed);
            }
        }
    }

    /// The class numbered `class`, which a game reaches.
    #[inline(always)]
    fn class(&self, class: usize) -> &Class {
        self.classes[class]
            .as_ref()
            .expect("a reached class has room")
    }

    /// The value, for the side passing, of a pass to `key`.
    fn after_pass(&self, key: u64) -> GameValue {
        let mut out = Out::new();
        let Next::Moves { count, .. } = keymoves::next(key, &mut out) else {
            unreachable!("the turn passes only to a side that can move")
        };
        let value = best_move_value(out.keys[..count].iter().map(|&c| {
            self.get_packed(c)
                .expect("every child of a reachable position is in the table")
        }));
        GameValue::unpack(packed_before_move(value))
    }

    /// The number of positions in the table.
    pub(super) fn len(&self) -> usize {
        self.classes.iter().flatten().map(|c| c.values.len()).sum()
    }

    /// The packed value of `key`, if the table holds it.
    #[inline(always)]
    fn get_packed(&self, key: u64) -> Option<u16> {
        let (class, i) = locate_checked(key)?;
        let v = self.classes[class].as_ref()?.slot(i)?.load(Relaxed);
        (v != 0).then_some(v)
    }

    /// The value of `key`, if the table holds it.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<GameValue> {
        self.get_packed(key).map(GameValue::unpack)
    }

    /// Asks the CPU to start loading what finding `key`'s value reads first.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: u64) {
        let Some((class, i)) = locate_checked(key) else {
            return;
        };
        if let Some(class) = &self.classes[class] {
            if i / 64 < class.seen.len() {
                class.prefetch_slot(i);
            }
        }
    }

    /// The packed-value helpers of the backward sweep, for the tests.
    #[cfg(test)]
    pub(super) fn packed_ops(p: u16) -> (u16, u16) {
        (packed_before_move(p), packed_order(p))
    }

    /// Every key in the table.
    #[cfg(test)]
    pub(super) fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.classes.iter().enumerate().flat_map(|(c, class)| {
            let (us, them) = class_sides(c);
            class.iter().flat_map(move |class| {
                class.seen.iter().enumerate().flat_map(move |(w, word)| {
                    let word = word.load(Relaxed);
                    (0..64)
                        .filter(move |b| word >> b & 1 == 1)
                        .map(move |b| super::index::key_at(us, them, w * 64 + b))
                })
            })
        })
    }

    /// Bytes of memory the table occupies.
    pub(super) fn bytes(&self) -> usize {
        self.classes
            .iter()
            .flatten()
            .map(|c| c.seen.len() * 8 + c.before.len() * 4 + c.values.len() * 2)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// List entries of keys spread over the board, from a simple generator,
    /// with indices as large as a class's.
    fn keys(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let key = key::join((x >> 20) as u32 & 0x3_ffff, (x >> 40) as u32 & 0x3_ffff);
                entry(key, (x % 17_153_136) as usize)
            })
            .collect()
    }

    #[test]
    fn entries_keep_the_key_and_the_index() {
        for e in keys(1000, 9) {
            let (key, index) = unentry(e);
            assert_eq!(entry(key, index), e);
            assert!(index < 17_153_136);
            assert_eq!(key >> 37, 1, "the key and its marker only");
        }
    }

    #[test]
    fn sorting_by_the_side_not_moving_keeps_every_key() {
        let mut sorter = Sorter::default();
        // both the small path and the radix path, lists of uneven lengths
        for (n, seed) in [
            (0, 1),
            (7, 2),
            (4 * CHUNK - 1, 3),
            (50_000, 4),
            (200_003, 5),
        ] {
            let all = keys(n, seed);
            let lists: Vec<Vec<u64>> = all.chunks(977).map(<[u64]>::to_vec).collect();
            let out: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            sorter.sort_by_them(&lists, &out);
            let got: Vec<u64> = out.iter().map(|k| k.load(Relaxed)).collect();
            // by the other side's men alone, whatever the index above them
            let them = |e: u64| key::split(unentry(e).0).1;
            assert!(
                got.windows(2).all(|w| them(w[0]) <= them(w[1])),
                "{n}: not sorted"
            );
            let (mut a, mut b) = (all.clone(), got);
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{n}: not the same keys");
        }
    }

    #[test]
    fn layers_come_after_every_layer_that_reaches_them() {
        let order: Vec<usize> = forward_order().collect();
        let mut at = vec![usize::MAX; LAYERS];
        for (i, &l) in order.iter().enumerate() {
            assert_eq!(at[l], usize::MAX, "layer {l} twice");
            at[l] = i;
        }
        assert!(at.iter().all(|&i| i != usize::MAX), "a layer is missing");
        for layer in 0..LAYERS {
            let (men, a) = (layer / ADVANCEMENTS, layer % ADVANCEMENTS);
            if a + 1 < ADVANCEMENTS {
                assert!(
                    at[layer] < at[target_layer(layer, 0)],
                    "regular move from {layer}"
                );
            }
            // a capture: a man fewer, advancement a - 2 to a + 1
            for target in 1..TARGETS {
                let after = (a + target).checked_sub(3).filter(|&b| b < ADVANCEMENTS);
                if let (true, Some(b)) = (men >= 2, after) {
                    let t = target_layer(layer, target);
                    assert_eq!(t, (men - 1) * ADVANCEMENTS + b);
                    assert!(at[layer] < at[t], "capture from {layer} to {t}");
                }
            }
        }
    }
}
