//! The compact map from mini position keys (see [`key`](super::key)) to
//! values: an open-addressing table.

use super::GameValue;

/// An open-addressing map from position keys to packed values, one `u64` a
/// slot (`key << 16 | value`, 0 for empty), linear probing, any number of
/// slots, at most 80% full.
#[derive(Clone)]
pub(super) struct Table {
    pub(super) slots: Vec<u64>,
    pub(super) len: usize,
}

impl Table {
    const MIN_SLOTS: usize = 64;

    pub(super) fn new() -> Table {
        Table::with_capacity(0)
    }

    /// A table that holds `n` values without growing.
    pub(super) fn with_capacity(n: usize) -> Table {
        Table {
            slots: vec![0; Self::slots_for(n)],
            len: 0,
        }
    }

    pub(super) fn slots_for(n: usize) -> usize {
        (n + n / 4 + 1).max(Self::MIN_SLOTS)
    }

    #[inline(always)]
    pub(super) fn home(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((u128::from(h) * self.slots.len() as u128) >> 64) as usize
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<GameValue> {
        self.get_from(self.home(key), key)
    }

    /// [`Table::get`] from `key`'s home slot `home`, already computed.
    #[inline]
    pub(super) fn get_from(&self, home: usize, key: u64) -> Option<GameValue> {
        self.get_packed_from(home, key).map(GameValue::unpack)
    }

    /// The packed value of `key` (see [`GameValue::pack`]), from its home
    /// slot `home`, already computed.
    #[inline]
    pub(super) fn get_packed_from(&self, home: usize, key: u64) -> Option<u16> {
        let n = self.slots.len();
        let mut i = home;
        loop {
            let e = self.slots[i];
            if e == 0 {
                return None;
            }
            if e >> 16 == key {
                return Some(e as u16);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// Asks the CPU to start loading `key`'s home slot.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: u64) {
        self.prefetch_slot(self.home(key));
    }

    /// Asks the CPU to start loading slot `i`.
    #[inline(always)]
    pub(super) fn prefetch_slot(&self, i: usize) {
        prefetch(&self.slots[i]);
    }

    /// Inserts a key known to be absent.
    #[inline]
    pub(super) fn insert_new(&mut self, key: u64, v: GameValue) {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.resize(self.slots.len() * 2);
        }
        self.place((key << 16) | u64::from(v.pack()));
        self.len += 1;
    }

    #[inline]
    pub(super) fn place(&mut self, entry: u64) {
        let n = self.slots.len();
        let mut i = self.home(entry >> 16);
        while self.slots[i] != 0 {
            i += 1;
            if i == n {
                i = 0;
            }
        }
        self.slots[i] = entry;
    }

    pub(super) fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, vec![0; slots]);
        for e in old {
            if e != 0 {
                self.place(e);
            }
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u64>()
    }
}

/// Asks the CPU to start loading `x` (a hint: nothing on other targets).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    prefetch_at(std::ptr::from_ref(x));
}

/// Asks the CPU to start loading the cache line at `at`, which need not
/// point into anything (a prefetch never faults).
#[inline(always)]
pub(super) fn prefetch_at<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint that never faults, and SSE is
        // part of every x86_64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
