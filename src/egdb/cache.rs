//! The process-wide cache of decoded compact blocks, bounded in bytes
//! (the engines' `EGDBCache` option): every open compact file of the process
//! shares it, as the open files themselves are shared.

use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// Bytes of one decoded block (values: 4 positions a byte; distances: one).
pub const DECODED_BYTES: usize = 16 * 1024;

/// The cache's size until [`set_capacity`] changes it.
pub const DEFAULT_CAPACITY: usize = 64 << 20;

/// One slot: the key of the block held, and its bytes.
type Slot = Mutex<Option<(u64, Arc<[u8]>)>>;

/// Decoded blocks by key (a file's number and a block number), one per slot:
/// a new block takes its slot from whatever block was there.
struct BlockCache {
    slots: RwLock<Vec<Slot>>,
}

static CACHE: BlockCache = BlockCache {
    slots: RwLock::new(Vec::new()),
};

fn slots_for(bytes: usize) -> Vec<Slot> {
    (0..(bytes / DECODED_BYTES).max(1))
        .map(|_| Mutex::new(None))
        .collect()
}

/// Sets the cache to hold at most `bytes` of decoded blocks (at least one
/// block); when the size changes, the blocks it held are dropped.
pub fn set_capacity(bytes: usize) {
    if capacity() == (bytes / DECODED_BYTES).max(1) * DECODED_BYTES {
        return;
    }
    let slots = slots_for(bytes);
    *CACHE.slots.write().unwrap_or_else(PoisonError::into_inner) = slots;
}

/// Bytes of decoded blocks the cache holds at most.
#[must_use]
pub fn capacity() -> usize {
    match CACHE
        .slots
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .len()
    {
        0 => DEFAULT_CAPACITY,
        n => n * DECODED_BYTES,
    }
}

/// The block of `key`, from the cache or from `decode` (which then takes its
/// slot). An error from `decode` is returned and nothing is kept.
pub fn get_or_decode<E>(
    key: u64,
    decode: impl FnOnce() -> Result<Arc<[u8]>, E>,
) -> Result<Arc<[u8]>, E> {
    {
        let empty = CACHE
            .slots
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty();
        if empty {
            let mut w = CACHE.slots.write().unwrap_or_else(PoisonError::into_inner);
            if w.is_empty() {
                *w = slots_for(DEFAULT_CAPACITY);
            }
        }
    }
    let slots = CACHE.slots.read().unwrap_or_else(PoisonError::into_inner);
    let slot = &slots[slot_of(key, slots.len())];
    if let Some((k, d)) = &*slot.lock().unwrap_or_else(PoisonError::into_inner) {
        if *k == key {
            return Ok(Arc::clone(d));
        }
    }
    let d = decode()?;
    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some((key, Arc::clone(&d)));
    Ok(d)
}

/// Blocks each thread read last, by key, direct-mapped: a thread that reads
/// one block again (a search or a build does, over and over) finds it here
/// without the shared cache's locks and counters. At most this many blocks
/// a thread, besides the shared cache's bound.
const RECENT: usize = 32;

/// A block held by key (`None`: nothing yet).
type Held = (u64, Option<Arc<[u8]>>);

thread_local! {
    static RECENTLY_READ: std::cell::RefCell<Vec<Held>> =
        std::cell::RefCell::new(vec![(0, None); RECENT]);
}

/// `read` applied to the block of `key`, taken from the blocks this thread
/// read last, else as [`get_or_decode`] gives it.
pub fn with_block<E, R>(
    key: u64,
    decode: impl FnOnce() -> Result<Arc<[u8]>, E>,
    read: impl FnOnce(&[u8]) -> R,
) -> Result<R, E> {
    RECENTLY_READ.with(|recent| {
        let mut recent = recent.borrow_mut();
        let slot = &mut recent[slot_of(key, RECENT)];
        if slot.0 == key {
            if let Some(block) = &slot.1 {
                return Ok(read(block));
            }
        }
        let block = get_or_decode(key, decode)?;
        let out = read(&block);
        *slot = (key, Some(block));
        Ok(out)
    })
}

/// The slot of `key` among `n` (a multiplicative hash, so that neighbouring
/// blocks of one file and the same block of two files spread).
fn slot_of(key: u64, n: usize) -> usize {
    ((key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % n as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_decoded_once_while_it_stays() {
        let calls = std::cell::Cell::new(0);
        let decode = || {
            calls.set(calls.get() + 1);
            Ok::<_, ()>(Arc::from(vec![7u8; 4]))
        };
        let key = 0xdead_beef_0000_0001;
        let a = get_or_decode(key, decode).unwrap();
        let b = get_or_decode(key, decode).unwrap();
        assert_eq!((&a[..], &b[..]), (&[7u8; 4][..], &[7u8; 4][..]));
        assert_eq!(calls.get(), 1, "decoded once");
        assert!(capacity() >= DECODED_BYTES);
        let err = get_or_decode::<&str>(0xdead_beef_0000_0002, || Err("corrupt"));
        assert_eq!(err.unwrap_err(), "corrupt");
    }

    #[test]
    fn a_block_read_again_by_a_thread_is_neither_decoded_nor_mixed_up() {
        let calls = std::cell::Cell::new(0);
        let calls = &calls;
        let block = |fill: u8| {
            move || {
                calls.set(calls.get() + 1);
                Ok::<_, ()>(Arc::from(vec![fill; 4]))
            }
        };
        // keys of one recent slot and of others, read in turns
        let keys: Vec<u64> = (1..=200u64).map(|k| 0xfeed_0000_0000_0000 | k).collect();
        for round in 0..3 {
            for (i, &k) in keys.iter().enumerate() {
                let got = with_block(k, block(i as u8), |b| b.to_vec()).unwrap();
                assert_eq!(got, vec![i as u8; 4], "round {round} key {k:#x}");
            }
        }
        let before = calls.get();
        let k = keys[7];
        for _ in 0..10 {
            assert_eq!(with_block(k, block(7), |b| b[0]).unwrap(), 7);
        }
        assert!(calls.get() <= before + 1, "read again without decoding");
        let err = with_block::<&str, ()>(0xfeed_0001_0000_0000, || Err("corrupt"), |_| ());
        assert_eq!(err.unwrap_err(), "corrupt");
    }
}
