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
//!    positions are the distinct ones its parents reached, and are expanded
//!    in turn;
//! 2. backward (fewest men, most advanced first): every child of a layer's
//!    positions is already solved, so each value is the best of its moves.
//!
//! Each layer is split by key into [`SHARDS`] hash tables small enough for a
//! core's cache. The forward sweep sorts children into buckets by the table
//! they belong to, then fills each table from its bucket on its own thread;
//! the backward sweep solves a layer's tables on all threads, asking for a
//! batch of positions' child slots before reading any, so that the memory
//! reads overlap.

use super::keymoves::{self, Next, Out};
use super::memo::Table;
use super::GameValue;
use rayon::prelude::*;

/// The most men a layer may hold (the start position's 12).
const MAX_MEN: usize = 12;
/// The largest advancement of 12 men.
const MAX_ADVANCEMENT: usize = 60;
const ADVANCEMENTS: usize = MAX_ADVANCEMENT + 1;
const LAYERS: usize = (MAX_MEN + 1) * ADVANCEMENTS;
const SHARD_BITS: u32 = 3;
/// Hash tables per layer.
const SHARDS: usize = 1 << SHARD_BITS;
/// The layers a layer's children can be in: the next one (regular moves) and
/// four with a man fewer (captures).
const TARGETS: usize = 5;
/// Buckets of children: one per target layer and shard.
const BUCKETS: usize = TARGETS * SHARDS;

/// The layer of a key, or `None` for a position no layer holds.
#[inline(always)]
fn layer_of(key: u64) -> Option<usize> {
    let men = keymoves::men(key) as usize;
    let a = keymoves::advancement(key) as usize;
    (men <= MAX_MEN && a <= MAX_ADVANCEMENT).then_some(men * ADVANCEMENTS + a)
}

/// The shard of a key within its layer (independent of the slot a shard's
/// table gives it).
#[inline(always)]
fn shard_of(key: u64) -> usize {
    (key.wrapping_mul(0xd6e8_feb8_6659_fd93) >> (64 - SHARD_BITS)) as usize
}

/// The layers in the order the forward sweep visits them.
fn forward_order() -> impl DoubleEndedIterator<Item = usize> {
    (0..=MAX_MEN)
        .rev()
        .flat_map(|men| (0..ADVANCEMENTS).map(move |a| men * ADVANCEMENTS + a))
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

/// The bucket of a child of a position of `layer`, given the row of the man
/// it took (0 for a regular move): the capture layers come in that order.
#[inline(always)]
fn bucket_of(layer: usize, child: u64, taken_row: u8) -> usize {
    let target = usize::from(taken_row);
    debug_assert!(target < TARGETS);
    debug_assert_eq!(layer_of(child), Some(target_layer(layer, target)));
    target * SHARDS + shard_of(child)
}

/// [`GameValue::before_move`] on a packed value: win and loss swap (kinds 3
/// and 1), a draw (2) stays, one ply more.
#[inline(always)]
fn packed_before_move(p: u16) -> u16 {
    ((4 - (p >> 14)) << 14) | ((p & 0x3fff) + 1)
}

/// A number that orders packed values as [`GameValue`] orders them: by kind
/// (loss 1 < draw 2 < win 3), then sooner wins and draws, later losses.
#[inline(always)]
fn packed_order(p: u16) -> u16 {
    let plies = p & 0x3fff;
    (p & 0xc000) | if p >> 14 == 1 { plies } else { 0x3fff - plies }
}

/// The packed value of the best move among moves leading to children with
/// packed values `children` (each must be known: the backward sweep has
/// always solved a child before its parent).
#[inline(always)]
fn best_move_value(children: impl Iterator<Item = Option<u16>>) -> u16 {
    children
        .map(|v| {
            packed_before_move(v.expect("every child of a reachable position is in the table"))
        })
        .max_by_key(|&p| packed_order(p))
        .expect("at least one move")
}

/// The children of part of a layer, by bucket, and the keys the turn passes
/// to (which are in the layer itself).
struct Children {
    buckets: Vec<Vec<u64>>,
    passes: Vec<u64>,
}

impl Children {
    /// Room for the children of about `parents` positions without growing.
    fn with_capacity(parents: usize) -> Children {
        let buckets = (0..BUCKETS)
            .map(|b| {
                Vec::with_capacity(if b < SHARDS {
                    parents / 5
                } else {
                    parents / 32
                })
            })
            .collect();
        Children {
            buckets,
            passes: Vec::new(),
        }
    }

    /// Adds the children of `key`, a position of `layer`.
    fn add(&mut self, layer: usize, key: u64, out: &mut Out) {
        match keymoves::next(key, out) {
            Next::Moves { count, .. } => {
                for (&c, &row) in out.keys[..count].iter().zip(&out.taken_row) {
                    self.buckets[bucket_of(layer, c, row)].push(c);
                }
            }
            Next::Pass(p) => self.passes.push(p),
            Next::Over => {}
        }
    }
}

/// The keys in a shard table, in slot order.
fn keys(t: &Table) -> impl Iterator<Item = u64> + '_ {
    t.slots.iter().filter(|&&e| e != 0).map(|&e| e >> 16)
}

/// The values of every position reachable from one start position, in layers.
#[derive(Clone)]
pub(super) struct Layered {
    /// By layer, either empty or [`SHARDS`] tables.
    layers: Vec<Vec<Table>>,
    pub(super) len: usize,
}

impl Layered {
    /// A table that holds no position.
    pub(super) fn empty() -> Layered {
        Layered {
            layers: vec![Vec::new(); LAYERS],
            len: 0,
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
        // by layer and shard: the lists of keys that reached it
        let mut pending: Vec<Vec<Vec<Vec<u64>>>> = vec![vec![Vec::new(); SHARDS]; LAYERS];
        pending[first][shard_of(start)].push(vec![start]);
        let mut table = Layered::empty();
        for layer in forward_order() {
            table.gather(layer, &mut pending);
            progress(table.len);
        }
        let mut solved = 0;
        for layer in forward_order().rev() {
            solved += table.solve_layer(layer);
            progress(solved);
        }
        table
    }

    /// Forward sweep, one layer: its distinct positions from `pending`, then
    /// their children into `pending`.
    fn gather(&mut self, layer: usize, pending: &mut [Vec<Vec<Vec<u64>>>]) {
        let incoming = std::mem::take(&mut pending[layer]);
        if incoming.iter().all(Vec::is_empty) {
            return;
        }
        let mut shards: Vec<Table> = incoming
            .into_par_iter()
            .map(|lists| {
                let n: usize = lists.iter().map(Vec::len).sum();
                let mut t = Table::with_capacity(n / 2);
                for k in lists.into_iter().flatten() {
                    t.insert_absent(k);
                }
                t
            })
            .collect();
        let mut found: Vec<Children> = shards
            .par_iter()
            .map(|t| {
                let mut c = Children::with_capacity(t.len);
                let mut out = Out::new();
                for k in keys(t) {
                    c.add(layer, k, &mut out);
                }
                c
            })
            .collect();
        // The positions the turn passes to belong to this layer; the ones not
        // reached by a move are added and expanded here.
        let mut extra = Children::with_capacity(0);
        let mut out = Out::new();
        for p in found.iter().flat_map(|c| &c.passes) {
            if shards[shard_of(*p)].insert_absent(*p) {
                extra.add(layer, *p, &mut out);
            }
        }
        debug_assert!(extra.passes.is_empty(), "a pass is followed by a move");
        found.push(extra);
        for c in found {
            for (b, keys) in c.buckets.into_iter().enumerate() {
                if !keys.is_empty() {
                    pending[target_layer(layer, b / SHARDS)][b % SHARDS].push(keys);
                }
            }
        }
        self.len += shards.iter().map(|t| t.len).sum::<usize>();
        self.layers[layer] = shards;
    }

    /// Backward sweep, one layer: every position's value from its children's,
    /// which are all in layers solved before. Returns the positions solved.
    fn solve_layer(&mut self, layer: usize) -> usize {
        let mut shards = std::mem::take(&mut self.layers[layer]);
        let this = &*self;
        shards
            .par_iter_mut()
            .for_each(|t| this.solve_slots(layer, &mut t.slots));
        let n = shards.iter().map(|t| t.len).sum();
        self.layers[layer] = shards;
        n
    }

    /// Solves the positions in `slots` (of layer `layer`), a batch at a time:
    /// first every child's slot is found and asked for, then the values are
    /// read, so that the memory reads overlap.
    fn solve_slots(&self, layer: usize, slots: &mut [u64]) {
        const BATCH: usize = 16;
        let mut out = Out::new();
        // per position of the batch: its slot, the end of its probes, and its
        // value when it is known without them
        let mut batch_at: Vec<(usize, usize, Option<GameValue>)> = Vec::with_capacity(BATCH);
        let mut probes: Vec<(&Table, usize, u64)> = Vec::new();
        for batch in slots.chunks_mut(BATCH) {
            batch_at.clear();
            probes.clear();
            for (i, &slot) in batch.iter().enumerate() {
                if slot == 0 {
                    continue;
                }
                let key = slot >> 16;
                let known = match keymoves::next(key, &mut out) {
                    Next::Moves { count, .. } => {
                        for (&c, &row) in out.keys[..count].iter().zip(&out.taken_row) {
                            let t =
                                &self.layers[target_layer(layer, usize::from(row))][shard_of(c)];
                            debug_assert_eq!(layer_of(c), Some(target_layer(layer, row.into())));
                            let at = t.home(c);
                            t.prefetch_slot(at);
                            probes.push((t, at, c));
                        }
                        None
                    }
                    Next::Pass(p) => Some(self.after_pass(p)),
                    Next::Over => {
                        let (us, them) = keymoves::split(key);
                        Some(GameValue::finished(us.count_ones(), them.count_ones()))
                    }
                };
                batch_at.push((i, probes.len(), known));
            }
            let mut first = 0;
            for &(i, end, known) in &batch_at {
                let packed = known.map_or_else(
                    || {
                        best_move_value(
                            probes[first..end]
                                .iter()
                                .map(|&(t, at, c)| t.get_packed_from(at, c)),
                        )
                    },
                    GameValue::pack,
                );
                first = end;
                batch[i] = ((batch[i] >> 16) << 16) | u64::from(packed);
            }
        }
    }

    /// The value, for the side passing, of a pass to `key`.
    fn after_pass(&self, key: u64) -> GameValue {
        let mut out = Out::new();
        let Next::Moves { count, .. } = keymoves::next(key, &mut out) else {
            unreachable!("the turn passes only to a side that can move")
        };
        let value = best_move_value(
            out.keys[..count]
                .iter()
                .map(|&c| self.shard(c).and_then(|t| t.get_packed_from(t.home(c), c))),
        );
        GameValue::unpack(packed_before_move(value))
    }

    #[inline(always)]
    fn shard(&self, key: u64) -> Option<&Table> {
        let layer = self.layers.get(layer_of(key)?)?;
        layer.get(shard_of(key))
    }

    /// The value of `key`, if the table holds it.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<GameValue> {
        self.shard(key)?.get(key)
    }

    /// Asks the CPU to start loading `key`'s slot.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: u64) {
        if let Some(t) = self.shard(key) {
            t.prefetch(key);
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
        self.layers.iter().flatten().flat_map(keys)
    }

    /// Bytes of memory the tables occupy.
    pub(super) fn bytes(&self) -> usize {
        self.layers.iter().flatten().map(Table::bytes).sum()
    }
}
