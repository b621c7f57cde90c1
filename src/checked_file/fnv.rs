//! FNV-1a 64 (Fowler, Noll, Vo), the checksum of every kingme file: plain,
//! and in eight interleaved lanes folded into one (the same strength, several
//! times faster on long data).

/// The FNV-1a 64 offset basis.
const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV-1a 64 prime.
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// One FNV-1a step: `h` with byte `b` mixed in.
#[inline(always)]
const fn step(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(PRIME)
}

/// FNV-1a 64 of `data`, byte by byte.
#[must_use]
pub fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(BASIS, |h, &b| step(h, b))
}

/// FNV-1a 64 in 8 lanes: byte `i` of each 8-byte chunk goes to lane `i`;
/// then the lanes' little-endian bytes and the length, and last the bytes
/// after the last whole chunk, go through one more FNV-1a 64.
#[must_use]
pub fn fnv1a_lanes(data: &[u8]) -> u64 {
    let mut lanes = [BASIS; 8];
    let chunks = data.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (l, &b) in lanes.iter_mut().zip(c) {
            *l = step(*l, b);
        }
    }
    let mut h = BASIS;
    for l in lanes.iter().chain(std::iter::once(&(data.len() as u64))) {
        for b in l.to_le_bytes() {
            h = step(h, b);
        }
    }
    tail.iter().fold(h, |h, &b| step(h, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fnv1a_matches_the_published_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn either_sees_one_flipped_bit_and_the_length() {
        for sum in [fnv1a, fnv1a_lanes] {
            let mut d = vec![7u8; 1001];
            let a = sum(&d);
            d[500] ^= 1;
            assert_ne!(a, sum(&d));
            d[500] ^= 1;
            assert_eq!(a, sum(&d));
            assert_ne!(sum(&d[..1000]), sum(&d[..999]));
        }
    }

    #[test]
    fn lanes_fold_the_lanes_then_the_length_then_the_tail() {
        let d: Vec<u8> = (0..19u8).collect();
        let mut lanes = [BASIS; 8];
        for (i, &b) in d[..16].iter().enumerate() {
            lanes[i % 8] = step(lanes[i % 8], b);
        }
        let mut folded = Vec::new();
        for l in lanes {
            folded.extend_from_slice(&l.to_le_bytes());
        }
        folded.extend_from_slice(&19u64.to_le_bytes());
        folded.extend_from_slice(&d[16..]);
        assert_eq!(fnv1a_lanes(&d), fnv1a(&folded));
    }
}
