//! A perfect index of mini positions within a material class.
//!
//! A class is the number of men of the side to move and of the other side.
//! Its positions are numbered densely: the mover's men, ranked among all sets
//! of that many of the 18 squares, then the other side's men, ranked among
//! the squares left. Positions whose mover has the same men are neighbours,
//! so the children of positions that share the side not moving, whose men
//! become the child's mover's men, lie close together.
//!
//! Sets are ranked in colexicographic order (the set `{p1 < p2 < ...}` has
//! rank `C(p1, 1) + C(p2, 2) + ...`), with tables over the two 9-square
//! halves of the board.

#[cfg(test)]
use super::key::join;
use super::key::{split, FULL, SQUARES};

/// `BINOMIAL[n][k]` = C(n, k) for n ≤ 18.
static BINOMIAL: [[u32; SQUARES + 1]; SQUARES + 1] = binomials();

const fn binomials() -> [[u32; SQUARES + 1]; SQUARES + 1] {
    let mut t = [[0; SQUARES + 1]; SQUARES + 1];
    let mut n = 0;
    while n <= SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// The colex rank of the squares 0-8 set in the index.
static RANK_LOW: [u32; 512] = rank_low();
/// The colex rank contribution of the squares 9-17 set in the first index,
/// given how many lower squares are set (the second index).
static RANK_HIGH: [[u32; 10]; 512] = rank_high();

const fn rank_low() -> [u32; 512] {
    let mut t = [0; 512];
    let mut x = 0;
    while x < 512 {
        let (mut p, mut j, mut r) = (0, 0, 0);
        while p < 9 {
            if x >> p & 1 == 1 {
                j += 1;
                r += BINOMIAL[p][j];
            }
            p += 1;
        }
        t[x] = r;
        x += 1;
    }
    t
}

const fn rank_high() -> [[u32; 10]; 512] {
    let mut t = [[0; 10]; 512];
    let mut x = 0;
    while x < 512 {
        let mut below = 0;
        while below < 10 {
            let (mut p, mut j, mut r) = (0, below, 0);
            while p < 9 {
                if x >> p & 1 == 1 {
                    j += 1;
                    if j <= SQUARES {
                        r += BINOMIAL[p + 9][j];
                    }
                }
                p += 1;
            }
            t[x][below] = r;
            below += 1;
        }
        x += 1;
    }
    t
}

/// `COMPRESS[x][m]`: the bits of `x` at the squares set in `m`, packed down
/// (6-square pieces of a board).
static COMPRESS: [[u8; 64]; 64] = compress_table();

const fn compress_table() -> [[u8; 64]; 64] {
    let mut t = [[0; 64]; 64];
    let mut x = 0;
    while x < 64 {
        let mut m = 0;
        while m < 64 {
            let (mut p, mut out, mut r) = (0, 0, 0u8);
            while p < 6 {
                if m >> p & 1 == 1 {
                    if x >> p & 1 == 1 {
                        r |= 1 << out;
                    }
                    out += 1;
                }
                p += 1;
            }
            t[x][m] = r;
            m += 1;
        }
        x += 1;
    }
    t
}

/// The colex rank of a set of squares among the sets of as many squares.
#[inline(always)]
pub(super) fn rank(set: u32) -> u32 {
    let low = set & 511;
    RANK_LOW[low as usize] + RANK_HIGH[(set >> 9) as usize][low.count_ones() as usize]
}

/// A set of squares to pack other sets onto: its three 6-square pieces and
/// where each piece's packed bits start.
#[derive(Clone, Copy)]
pub(super) struct Packing {
    pieces: [u32; 3],
    shifts: [u32; 3],
}

impl Packing {
    /// Packing onto the squares of `mask`.
    #[inline(always)]
    pub(super) fn new(mask: u32) -> Packing {
        let (m0, m1) = (mask & 63, (mask >> 6) & 63);
        let (n0, n1) = (m0.count_ones(), m1.count_ones());
        Packing {
            pieces: [m0, m1, (mask >> 12) & 63],
            shifts: [0, n0, n0 + n1],
        }
    }

    /// The bits of `x` at the squares of the mask, packed down.
    #[inline(always)]
    pub(super) fn compress(&self, x: u32) -> u32 {
        let piece = |k: usize| {
            u32::from(COMPRESS[((x >> (6 * k)) & 63) as usize][self.pieces[k] as usize])
                << self.shifts[k]
        };
        piece(0) | piece(1) | piece(2)
    }
}

/// The bits of `x` at the squares of `mask`, packed down.
#[inline(always)]
fn compress(x: u32, mask: u32) -> u32 {
    Packing::new(mask).compress(x)
}

/// The most men a side may have in a class.
pub(super) const MAX_SIDE: usize = 12;
/// Classes: `(MAX_SIDE + 1)²`, numbered by [`class_of`].
pub(super) const CLASSES: usize = (MAX_SIDE + 1) * (MAX_SIDE + 1);

/// The class number of `us` men for the mover against `them`.
#[inline(always)]
pub(super) const fn class_number(us: usize, them: usize) -> usize {
    us * (MAX_SIDE + 1) + them
}

/// The men of the mover and of the other side of class number `class`.
#[inline(always)]
pub(super) const fn class_sides(class: usize) -> (usize, usize) {
    (class / (MAX_SIDE + 1), class % (MAX_SIDE + 1))
}

/// The positions of class number `class`: C(18, us) · C(18 - us, them).
pub(super) fn class_size(class: usize) -> usize {
    let (us, them) = class_sides(class);
    BINOMIAL[SQUARES][us] as usize * block(us, them)
}

/// The positions of class (`us`, `them`) that share the mover's men.
#[inline(always)]
pub(super) fn block(us: usize, them: usize) -> usize {
    BINOMIAL[SQUARES - us][them] as usize
}

/// The class number and index of a key (at most [`MAX_SIDE`] men a side).
#[inline(always)]
pub(super) fn locate(key: u64) -> (usize, usize) {
    let (us, them) = split(key);
    let (nu, nt) = (us.count_ones() as usize, them.count_ones() as usize);
    let index = rank(us) as usize * block(nu, nt) + rank(compress(them, !us & FULL)) as usize;
    (class_number(nu, nt), index)
}

/// [`locate`] for any key: `None` when a side has more than [`MAX_SIDE`]
/// men, so that no class holds it.
#[inline(always)]
pub(super) fn locate_checked(key: u64) -> Option<(usize, usize)> {
    let (us, them) = split(key);
    (us.count_ones() as usize <= MAX_SIDE && them.count_ones() as usize <= MAX_SIDE)
        .then(|| locate(key))
}

/// The set of `k` squares (of 18) with colex rank `r`.
#[cfg(test)]
fn unrank(mut r: u32, k: usize) -> u32 {
    let mut set = 0;
    for j in (1..=k).rev() {
        let mut p = j - 1;
        while p < SQUARES && BINOMIAL[p + 1][j] <= r {
            p += 1;
        }
        r -= BINOMIAL[p][j];
        set |= 1 << p;
    }
    set
}

/// The key at `index` of class (`us`, `them`): the inverse of [`locate`].
#[cfg(test)]
pub(super) fn key_at(us: usize, them: usize, index: usize) -> u64 {
    let b = block(us, them);
    let ours = unrank(u32::try_from(index / b).expect("small"), us);
    let packed = unrank(u32::try_from(index % b).expect("small"), them);
    // spread the packed bits over the squares not ours
    let (mut theirs, mut free, mut i) = (0, !ours & FULL, 0);
    while free != 0 {
        let sq = free.trailing_zeros();
        free &= free - 1;
        if packed >> i & 1 == 1 {
            theirs |= 1 << sq;
        }
        i += 1;
    }
    join(ours, theirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_numbered_densely_and_both_ways() {
        // small classes in full, by brute force over the boards
        for (us, them) in [
            (0, 0),
            (1, 0),
            (0, 2),
            (1, 1),
            (2, 1),
            (1, 3),
            (3, 2),
            (2, 2),
        ] {
            let size = class_size(class_number(us, them));
            let mut hit = vec![false; size];
            for ours in 0..=FULL {
                if ours.count_ones() as usize != us {
                    continue;
                }
                let free = !ours & FULL;
                let mut theirs = free;
                // every subset of the free squares with `them` men
                loop {
                    if theirs.count_ones() as usize == them {
                        let key = join(ours, theirs);
                        let (c, i) = locate(key);
                        assert_eq!(c, class_number(us, them));
                        assert!(i < size, "{us} {them}: {i} >= {size}");
                        assert!(!hit[i], "{us} {them}: {i} twice");
                        hit[i] = true;
                        assert_eq!(key_at(us, them, i), key);
                    }
                    if theirs == 0 {
                        break;
                    }
                    theirs = (theirs - 1) & free;
                }
            }
            assert!(hit.iter().all(|&h| h), "{us} {them}: not dense");
        }
        assert_eq!(class_size(class_number(6, 6)), 18_564 * 924);
    }

    #[test]
    fn large_classes_round_trip() {
        for (us, them) in [(6, 6), (6, 5), (4, 6), (9, 9), (12, 6)] {
            let size = class_size(class_number(us, them));
            for i in [0, 1, size / 3, size / 2 + 7, size - 1] {
                let key = key_at(us, them, i);
                assert_eq!(locate(key), (class_number(us, them), i), "{us} {them} {i}");
            }
        }
    }
}
