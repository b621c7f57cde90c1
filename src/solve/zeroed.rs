//! `Zeroed`: a large zero-filled array of atomics, backed by huge pages where
//! the system offers them.
//!
//! The layered build's arrays total a few hundred MB. Faulting them in 4 KiB
//! at a time costs more than the build's own work on a virtual machine; an
//! anonymous mapping marked for transparent huge pages faults in 2 MiB at a
//! time, and only where it is touched.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64};

/// An atomic integer whose all-zero bytes are the value 0.
///
/// # Safety
/// An implementor must be valid when all its bytes are zero.
pub(super) unsafe trait Zero: Sized {
    /// The value 0.
    fn zero() -> Self;
}

// SAFETY: an atomic integer has the layout of its integer.
unsafe impl Zero for AtomicU64 {
    fn zero() -> Self {
        AtomicU64::new(0)
    }
}

// SAFETY: as above.
unsafe impl Zero for AtomicU32 {
    fn zero() -> Self {
        AtomicU32::new(0)
    }
}

// SAFETY: as above.
unsafe impl Zero for AtomicU16 {
    fn zero() -> Self {
        AtomicU16::new(0)
    }
}

/// `len` zeroes of `T`, shared between threads (every access in the build
/// is relaxed: the threads meet only at the end of each parallel step).
pub(super) struct Zeroed<T: Zero> {
    /// The first element: the storage's, which does not move with it.
    values: NonNull<T>,
    len: usize,
    _storage: Storage<T>,
}

/// What holds a [`Zeroed`]'s elements (kept only to be dropped).
enum Storage<T: Zero> {
    #[cfg(target_os = "linux")]
    Mapped {
        _mapping: mapping::Mapping<T>,
    },
    Boxed {
        _boxed: Box<[T]>,
    },
}

// SAFETY: a `Zeroed` owns its elements like a `Box<[T]>` does.
unsafe impl<T: Zero + Send> Send for Zeroed<T> {}
// SAFETY: as above.
unsafe impl<T: Zero + Sync> Sync for Zeroed<T> {}

impl<T: Zero> Zeroed<T> {
    /// `len` zeroes.
    /// (An array smaller than a huge page is an ordinary allocation: a
    /// mapping would take a whole huge page as soon as it is touched.)
    pub(super) fn new(len: usize) -> Zeroed<T> {
        #[cfg(target_os = "linux")]
        if len.saturating_mul(std::mem::size_of::<T>()) >= mapping::HUGE {
            if let Some(m) = mapping::Mapping::zeroed(len) {
                return Zeroed {
                    values: m.first(),
                    len,
                    _storage: Storage::Mapped { _mapping: m },
                };
            }
        }
        let mut boxed: Box<[T]> = (0..len).map(|_| T::zero()).collect();
        Zeroed {
            values: NonNull::new(boxed.as_mut_ptr()).expect("a box is never null"),
            len,
            _storage: Storage::Boxed { _boxed: boxed },
        }
    }
}

impl<T: Zero> Deref for Zeroed<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `values` points to `len` initialised elements that live
        // as long as `_storage`, which `self` owns.
        unsafe { std::slice::from_raw_parts(self.values.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
mod mapping {
    use super::Zero;
    use std::ptr::NonNull;

    /// The huge page size the mapping is aligned to.
    pub(super) const HUGE: usize = 2 << 20;

    /// Values in a private anonymous mapping, aligned to 2 MiB and advised to
    /// use transparent huge pages.
    pub(in crate::solve) struct Mapping<T> {
        /// The whole mapping, as `mmap` returned it.
        base: NonNull<libc::c_void>,
        bytes: usize,
        /// The aligned values within it.
        values: NonNull<T>,
    }

    // SAFETY: the mapping is owned by this value alone, and `T` is an atomic,
    // which any thread may share.
    unsafe impl<T: Zero + Sync> Send for Mapping<T> {}
    // SAFETY: as above; shared access only hands out `&[T]`.
    unsafe impl<T: Zero + Sync> Sync for Mapping<T> {}

    impl<T: Zero> Mapping<T> {
        /// `len` zeroed values, or `None` if the system refuses the mapping.
        pub(super) fn zeroed(len: usize) -> Option<Mapping<T>> {
            let size = len
                .checked_mul(std::mem::size_of::<T>())?
                .max(1)
                .checked_next_multiple_of(HUGE)?;
            let bytes = size.checked_add(HUGE)?;
            // SAFETY: a fresh private anonymous mapping touches no existing
            // memory; the result is checked before use.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let offset = (base as usize).next_multiple_of(HUGE) - base as usize;
            // SAFETY: `offset + size <= bytes`, so the aligned range lies
            // within the mapping.
            let aligned = unsafe { base.cast::<u8>().add(offset) };
            // SAFETY: advice on a range of our own mapping; failure only
            // means small pages, so the result is ignored.
            unsafe { libc::madvise(aligned.cast(), size, libc::MADV_HUGEPAGE) };
            Some(Mapping {
                base: NonNull::new(base)?,
                bytes,
                values: NonNull::new(aligned.cast())?,
            })
        }

        /// The first of the mapping's `len` values, zero-filled by the
        /// kernel (valid, as `T: Zero`), aligned to 2 MiB; they live as long
        /// as `self`.
        pub(super) fn first(&self) -> NonNull<T> {
            self.values
        }
    }

    impl<T> Drop for Mapping<T> {
        fn drop(&mut self) {
            // SAFETY: `base` and `bytes` are exactly what `mmap` returned, and
            // no slice of it outlives `self`.
            unsafe { libc::munmap(self.base.as_ptr(), self.bytes) };
        }
    }
}

/// Blocks of zeroes of `T` (at least `BLOCK` each) handed out in runs that
/// are never given back, so that many small arrays share huge pages.
pub(super) struct Arena<T: Zero> {
    blocks: Vec<Zeroed<T>>,
    /// Values handed out from the last block.
    used: usize,
}

/// A run of values handed out by [`Arena::alloc`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Run {
    block: usize,
    start: usize,
    len: usize,
}

impl Run {
    /// The number of values.
    pub(super) fn len(self) -> usize {
        self.len
    }
}

impl<T: Zero> Arena<T> {
    /// Values per block.
    const BLOCK: usize = 8 << 20;

    /// An arena with no block yet.
    pub(super) fn new() -> Arena<T> {
        Arena {
            blocks: Vec::new(),
            used: 0,
        }
    }

    /// `len` zeroes, not shared with any other run.
    pub(super) fn alloc(&mut self, len: usize) -> Run {
        if self.blocks.last().is_none_or(|b| b.len() - self.used < len) {
            self.blocks.push(Zeroed::new(len.max(Self::BLOCK)));
            self.used = 0;
        }
        let run = Run {
            block: self.blocks.len() - 1,
            start: self.used,
            len,
        };
        self.used += len;
        run
    }

    /// The values of `run`.
    #[inline(always)]
    pub(super) fn get(&self, run: Run) -> &[T] {
        &self.blocks[run.block][run.start..run.start + run.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn arrays_start_zeroed_both_small_and_large() {
        for len in [0, 1, 1000, 3 << 20] {
            let z: Zeroed<AtomicU64> = Zeroed::new(len);
            assert_eq!(z.len(), len);
            assert!(z.iter().step_by(4093).all(|x| x.load(Relaxed) == 0));
            if let Some(last) = z.last() {
                last.store(7, Relaxed);
                assert_eq!(last.load(Relaxed), 7);
            }
        }
        let z: Zeroed<AtomicU16> = Zeroed::new(5 << 20);
        assert!(z.iter().step_by(4093).all(|x| x.load(Relaxed) == 0));
    }

    #[test]
    fn arena_runs_are_zeroed_and_disjoint() {
        let mut arena: Arena<AtomicU64> = Arena::new();
        // small runs share a block; a run larger than a block gets its own
        let runs: Vec<Run> = [10, 0, 5000, 9 << 20, 3, Arena::<AtomicU64>::BLOCK]
            .iter()
            .map(|&n| arena.alloc(n))
            .collect();
        for (i, &r) in runs.iter().enumerate() {
            let s = arena.get(r);
            assert_eq!(s.len(), r.len());
            assert!(s.iter().all(|x| x.load(Relaxed) == 0), "run {i} not zeroed");
            for x in s {
                x.store(i as u64 + 1, Relaxed);
            }
        }
        for (i, &r) in runs.iter().enumerate() {
            assert!(
                arena.get(r).iter().all(|x| x.load(Relaxed) == i as u64 + 1),
                "run {i} overlaps"
            );
        }
    }
}
