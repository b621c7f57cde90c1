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
}
