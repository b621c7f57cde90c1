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

use super::index::{class_number, class_sides, class_size, locate, locate_checked, CLASSES};
use super::key;
use super::keymoves::{self, Mover, Next, Out};
use super::memo::{prefetch, prefetch_at};
use super::value::{packed_before_move, packed_order};
use super::zeroed::{Arena, Run, Zeroed};
use super::GameValue;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The most men a layer may hold (the start position's 12).
const MAX_MEN: usize = 12;
/// The largest advancement of 12 men.
const MAX_ADVANCEMENT: usize = 60;
const ADVANCEMENTS: usize = MAX_ADVANCEMENT + 1;
const LAYERS: usize = (MAX_MEN + 1) * ADVANCEMENTS;
/// The layers a layer's children can be in: the next one (regular moves) and
/// four with a man fewer (captures).
const TARGETS: usize = 5;
/// How many positions ahead the forward sweep asks for the marks it reads.
const AHEAD: usize = 16;
/// Positions a thread takes at a time.
const CHUNK: usize = 2048;

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

/// Marks `key` as reached in `seen` (by class); returns its list entry if
/// it was new.
#[inline(always)]
fn mark(seen: &[Option<Zeroed<AtomicU64>>], key: u64) -> Option<u64> {
    let (class, i) = locate(key);
    let words = seen[class].as_ref().expect("a child's class has room");
    set_new(&words[i / 64], 1 << (i % 64)).then(|| entry(key, i))
}

/// Asks the CPU to start loading the marks of the children by regular moves
/// of the position with key `key` (which all lie in one block of their
/// class, shared by the positions with the same men for the side not
/// moving).
#[inline(always)]
fn prefetch_marks(seen: &[Option<Zeroed<AtomicU64>>], key: u64) {
    let (us, them) = key::split(key);
    if us == 0 || them == 0 {
        return;
    }
    let (class, base, len) = keymoves::step_block(key);
    if let Some(words) = &seen[class] {
        // a line of eight words at a time (a hint: no bounds to check)
        for w in (base / 64..(base + len).div_ceil(64)).step_by(8) {
            prefetch_at(words.as_ptr().wrapping_add(w));
        }
    }
}

/// Where a list entry keeps the index of its position in its class.
const INDEX_SHIFT: u32 = 38;

/// The list entry of the position with key `key` and index `index` in its
/// class: the key, and above it the index.
#[inline(always)]
fn entry(key: u64, index: usize) -> u64 {
    key | (index as u64) << INDEX_SHIFT
}

/// The key and the index of a list entry.
#[inline(always)]
fn unentry(entry: u64) -> (u64, usize) {
    (
        entry & ((1 << INDEX_SHIFT) - 1),
        (entry >> INDEX_SHIFT) as usize,
    )
}

/// Sets `bit` of `word`; returns whether it was clear (the locked operation
/// only when a plain load says so: most children were reached before).
#[inline(always)]
fn set_new(word: &AtomicU64, bit: u64) -> bool {
    word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
}

/// Keys per block of a list of children.
const BLOCK: usize = 4096;

/// Blocks of [`BLOCK`] keys' room, reused from layer to layer: the build
/// touches fresh memory only as its lists grow, which on a virtual machine
/// costs more than filling them.
#[derive(Default)]
struct Blocks(Mutex<Vec<Vec<u64>>>);

impl Blocks {
    /// An empty block.
    fn take(&self) -> Vec<u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(BLOCK))
    }

    /// Takes back `blocks`, emptied.
    fn give(&self, blocks: impl IntoIterator<Item = Vec<u64>>) {
        let mut pool = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        pool.extend(blocks.into_iter().map(|mut b| {
            b.clear();
            b
        }));
    }
}

/// The children of part of a layer not reached before, by target (each a list
/// of blocks), and the keys the turn passes to (which are in the layer
/// itself).
struct Found<'a> {
    lists: [Vec<Vec<u64>>; TARGETS],
    passes: Vec<u64>,
    blocks: &'a Blocks,
}

impl<'a> Found<'a> {
    /// Nothing found yet; blocks come from `blocks`.
    fn new(blocks: &'a Blocks) -> Found<'a> {
        Found {
            lists: Default::default(),
            passes: Vec::new(),
            blocks,
        }
    }

    /// Adds the children of `parents` not reached before, marking them in
    /// `seen`. (The marks a parent's children read lie close together, as
    /// the parents are sorted: asking for them ahead of time gains nothing.)
    fn expand(mut self, seen: &[Option<Zeroed<AtomicU64>>], parents: &[AtomicU64]) -> Found<'a> {
        let mut out = Out::new();
        let mut mover = Mover::new();
        // the men of the side not moving of the last position looked ahead at
        let them = |key: &AtomicU64| key::split(unentry(key.load(Relaxed)).0).1;
        let mut ahead = parents.get(AHEAD - 1).map_or(0, them);
        for (j, key) in parents.iter().enumerate() {
            // the marks the positions a little ahead will read, where the
            // men of the side not moving change
            if let Some(next) = parents.get(j + AHEAD) {
                let next = unentry(next.load(Relaxed)).0;
                if key::split(next).1 != ahead {
                    ahead = key::split(next).1;
                    prefetch_marks(seen, next);
                }
            }
            match mover.next::<true>(unentry(key.load(Relaxed)).0, &mut out) {
                Next::Moves { count, .. } => {
                    let words = seen[out.class].as_ref().expect("a child's class has room");
                    for ((&c, &row), &i) in
                        out.keys[..count].iter().zip(&out.taken_row).zip(&out.index)
                    {
                        let i = i as usize;
                        if set_new(&words[i / 64], 1 << (i % 64)) {
                            self.push(usize::from(row), entry(c, i));
                        }
                    }
                }
                Next::Pass(p) => self.passes.push(p),
                Next::Over => {}
            }
        }
        self
    }

    /// Adds `entry` to the list of target `target`.
    #[inline(always)]
    fn push(&mut self, target: usize, entry: u64) {
        let list = &mut self.lists[target];
        match list.last_mut() {
            Some(block) if block.len() < BLOCK => block.push(entry),
            _ => {
                let mut block = self.blocks.take();
                block.push(entry);
                list.push(block);
            }
        }
    }
}

/// The first and second radix digits of a key's men of the side not moving.
#[inline(always)]
fn them_digits(key: u64) -> (usize, usize) {
    (((key >> 27) & 511) as usize, ((key >> 18) & 511) as usize)
}

/// The longest run of equal high digits sorted by comparison rather than by
/// counting (whose 512 counters cost more than a short run).
const SMALL_RUN: usize = 128;

/// The work space of [`Sorter::sort_by_them`], kept from layer to layer.
#[derive(Default)]
struct Sorter {
    /// For each list, where its keys of each high digit go.
    starts: Vec<u32>,
}

impl Sorter {
    /// Writes the keys of `lists` to `out` (as long as all of them), sorted
    /// by the men of the side not moving, on all threads: first by the high
    /// digit, then each run of equal high digits in place by the low one.
    fn sort_by_them(&mut self, lists: &[Vec<u64>], out: &[AtomicU64]) {
        let n = out.len();
        if n < 4 * CHUNK {
            let mut all: Vec<u64> = lists.iter().flatten().copied().collect();
            all.sort_unstable_by_key(|&k| (k >> 18) & 0x3_ffff);
            for (o, k) in out.iter().zip(all) {
                o.store(k, Relaxed);
            }
            return;
        }
        // each list's count of each high digit, then the runs of each digit,
        // then each list's place in them (list by list: the counts of one
        // list are contiguous)
        let starts = &mut self.starts;
        starts.clear();
        starts.resize(lists.len() * 512, 0);
        starts
            .par_chunks_mut(512)
            .zip(lists)
            .for_each(|(count, list)| {
                for &k in list {
                    count[them_digits(k).0] += 1;
                }
            });
        let mut runs = [0u32; 513];
        for count in starts.chunks(512) {
            for (total, &c) in runs[1..].iter_mut().zip(count) {
                *total += c;
            }
        }
        for d in 0..512 {
            runs[d + 1] += runs[d];
        }
        debug_assert_eq!(runs[512] as usize, n, "the output is as long as the lists");
        let mut at: [u32; 512] = runs[..512].try_into().expect("512 digits");
        for start in starts.chunks_mut(512) {
            for (place, at) in start.iter_mut().zip(&mut at) {
                (*place, *at) = (*at, *at + *place);
            }
        }
        lists
            .par_iter()
            .zip(starts.par_chunks(512))
            .for_each(|(list, start)| {
                let mut start: [u32; 512] = start.try_into().expect("512 digits");
                for &k in list {
                    let d = them_digits(k).0;
                    out[start[d] as usize].store(k, Relaxed);
                    start[d] += 1;
                }
            });
        // the digits in groups of about equal numbers of keys, one task each
        let mut groups = vec![0];
        for d in 1..512 {
            if (runs[d] - runs[groups[groups.len() - 1]]) as usize >= n / 32 {
                groups.push(d);
            }
        }
        groups.push(512);
        groups.par_windows(2).for_each_init(Vec::new, |keys, w| {
            for d in w[0]..w[1] {
                sort_by_low_digit(&out[runs[d] as usize..runs[d + 1] as usize], keys);
            }
        });
    }
}

/// Sorts `run` by the low digit of the men of the side not moving, through
/// `keys` (any room; it is reused from run to run).
fn sort_by_low_digit(run: &[AtomicU64], keys: &mut Vec<u64>) {
    keys.clear();
    keys.extend(run.iter().map(|k| k.load(Relaxed)));
    if run.len() <= SMALL_RUN {
        keys.sort_unstable_by_key(|&k| them_digits(k).1);
        for (r, &k) in run.iter().zip(keys.iter()) {
            r.store(k, Relaxed);
        }
        return;
    }
    let mut count = [0u32; 513];
    for &k in keys.iter() {
        count[them_digits(k).1 + 1] += 1;
    }
    for i in 1..513 {
        count[i] += count[i - 1];
    }
    for &k in keys.iter() {
        let low = &mut count[them_digits(k).1];
        run[*low as usize].store(k, Relaxed);
        *low += 1;
    }
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
