//! Sorting a layer's list by the men of the side not moving (a radix sort
//! on two digits), so that the positions' children lie close together.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Positions a thread takes at a time.
pub(super) const CHUNK: usize = 2048;

/// The first and second radix digits of a key's men of the side not moving.
#[inline(always)]
pub(super) fn them_digits(key: u64) -> (usize, usize) {
    (((key >> 27) & 511) as usize, ((key >> 18) & 511) as usize)
}

/// The longest run of equal high digits sorted by comparison rather than by
/// counting (whose 512 counters cost more than a short run).
pub(super) const SMALL_RUN: usize = 128;

/// The work space of [`Sorter::sort_by_them`], kept from layer to layer.
#[derive(Default)]
pub(super) struct Sorter {
    /// For each list, where its keys of each high digit go.
    pub(super) starts: Vec<u32>,
}

impl Sorter {
    /// Writes the keys of `lists` to `out` (as long as all of them), sorted
    /// by the men of the side not moving, on all threads: first by the high
    /// digit, then each run of equal high digits in place by the low one.
    pub(super) fn sort_by_them(&mut self, lists: &[Vec<u64>], out: &[AtomicU64]) {
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
pub(super) fn sort_by_low_digit(run: &[AtomicU64], keys: &mut Vec<u64>) {
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
