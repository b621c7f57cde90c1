//! Zobrist keys for incremental position hashing.

use super::{Color, Role};

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn make_keys() -> [[u64; 32]; 4] {
    let mut keys = [[0u64; 32]; 4];
    let mut k = 0;
    let mut seed = 0x6b69_6e67_6d65_0001u64; // "kingme"
    while k < 4 {
        let mut s = 0;
        while s < 32 {
            seed = splitmix(seed);
            keys[k][s] = seed;
            s += 1;
        }
        k += 1;
    }
    keys
}

static PIECE_KEYS: [[u64; 32]; 4] = make_keys();

/// The key XORed in when White is to move.
pub const WHITE_TO_MOVE: u64 = 0x2f3c_9d1e_58a4_7b61;

/// The key of a piece of `color` and `role` on square `index`.
#[inline(always)]
#[must_use]
pub fn piece_key(color: Color, role: Role, index: u8) -> u64 {
    let k = match (color, role) {
        (Color::Black, Role::Man) => 0,
        (Color::White, Role::Man) => 1,
        (Color::Black, Role::King) => 2,
        (Color::White, Role::King) => 3,
    };
    PIECE_KEYS[k][(index & 31) as usize]
}

/// The XOR of the keys of every square in `set` for one kind of piece.
#[inline(always)]
#[must_use]
pub fn set_key(color: Color, role: Role, mut set: u32) -> u64 {
    let mut h = 0;
    while set != 0 {
        h ^= piece_key(color, role, set.trailing_zeros() as u8);
        set &= set - 1;
    }
    h
}
