//! Positions reached while building the mini table: the marks of the
//! positions seen, and the lists of new ones each layer hands on.

use super::index::locate;
use super::key;
use super::keymoves::{self, Mover, Next, Out};
use super::memo::prefetch_at;
use super::zeroed::Zeroed;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

/// The layers a layer's children can be in: the next one (regular moves) and
/// four with a man fewer (captures).
pub(super) const TARGETS: usize = 5;
/// How many positions ahead the forward sweep asks for the marks it reads.
pub(super) const AHEAD: usize = 16;

/// Marks `key` as reached in `seen` (by class); returns its list entry if
/// it was new.
#[inline(always)]
pub(super) fn mark(seen: &[Option<Zeroed<AtomicU64>>], key: u64) -> Option<u64> {
    let (class, i) = locate(key);
    let words = seen[class].as_ref().expect("a child's class has room");
    set_new(&words[i / 64], 1 << (i % 64)).then(|| entry(key, i))
}

/// Asks the CPU to start loading the marks of the children by regular moves
/// of the position with key `key` (which all lie in one block of their
/// class, shared by the positions with the same men for the side not
/// moving).
#[inline(always)]
pub(super) fn prefetch_marks(seen: &[Option<Zeroed<AtomicU64>>], key: u64) {
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
pub(super) const INDEX_SHIFT: u32 = 38;

/// The list entry of the position with key `key` and index `index` in its
/// class: the key, and above it the index.
#[inline(always)]
pub(super) fn entry(key: u64, index: usize) -> u64 {
    key | (index as u64) << INDEX_SHIFT
}

/// The key and the index of a list entry.
#[inline(always)]
pub(super) fn unentry(entry: u64) -> (u64, usize) {
    (
        entry & ((1 << INDEX_SHIFT) - 1),
        (entry >> INDEX_SHIFT) as usize,
    )
}

/// Sets `bit` of `word`; returns whether it was clear (the locked operation
/// only when a plain load says so: most children were reached before).
#[inline(always)]
pub(super) fn set_new(word: &AtomicU64, bit: u64) -> bool {
    word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
}

/// Keys per block of a list of children.
pub(super) const BLOCK: usize = 4096;

/// Blocks of [`BLOCK`] keys' room, reused from layer to layer: the build
/// touches fresh memory only as its lists grow, which on a virtual machine
/// costs more than filling them.
#[derive(Default)]
pub(super) struct Blocks(Mutex<Vec<Vec<u64>>>);

impl Blocks {
    /// An empty block.
    pub(super) fn take(&self) -> Vec<u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(BLOCK))
    }

    /// Takes back `blocks`, emptied.
    pub(super) fn give(&self, blocks: impl IntoIterator<Item = Vec<u64>>) {
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
pub(super) struct Found<'a> {
    pub(super) lists: [Vec<Vec<u64>>; TARGETS],
    pub(super) passes: Vec<u64>,
    pub(super) blocks: &'a Blocks,
}

impl<'a> Found<'a> {
    /// Nothing found yet; blocks come from `blocks`.
    pub(super) fn new(blocks: &'a Blocks) -> Found<'a> {
        Found {
            lists: Default::default(),
            passes: Vec::new(),
            blocks,
        }
    }

    /// Adds the children of `parents` not reached before, marking them in
    /// `seen`. (The marks a parent's children read lie close together, as
    /// the parents are sorted: asking for them ahead of time gains nothing.)
    pub(super) fn expand(
        mut self,
        seen: &[Option<Zeroed<AtomicU64>>],
        parents: &[AtomicU64],
    ) -> Found<'a> {
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
    pub(super) fn push(&mut self, target: usize, entry: u64) {
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
