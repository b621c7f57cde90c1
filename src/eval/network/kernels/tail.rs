//! The network's last two layers together: the second dense layer over the
//! first one's activations, its activation and the output, from weights
//! also kept by input pair (eight rows of two inputs to a register), so
//! that the AVX2 kernel sums eight rows at once with no horizontal sums.

use super::lanes::{Aligned, Lanes};
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::{activate, dense, has_avx2};

/// The second dense layer's weights: rows of `width` values (as
/// [`Aligned`]), and the same values by input pair: for each group of
/// eight rows and each pair of inputs `2k, 2k + 1`, one lane holding the
/// eight rows' two weights in turn (when the rows come in whole groups of
/// eight and `width` is even).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairRows {
    wide: Aligned,
    pairs: Vec<Lanes>,
    width: usize,
}

impl PairRows {
    /// `v` holds rows of `width` values each.
    #[must_use]
    pub fn new(v: Vec<i16>, width: usize) -> PairRows {
        let rows = v.len().checked_div(width).unwrap_or(0);
        let mut pairs = Vec::new();
        if width > 0 && width.is_multiple_of(2) && rows.is_multiple_of(8) {
            let np = width / 2;
            pairs = vec![Lanes::default(); rows / 8 * np];
            for g in 0..rows / 8 {
                for k in 0..np {
                    let lane = &mut pairs[g * np + k].0;
                    for r in 0..8 {
                        let row = &v[(8 * g + r) * width..][..width];
                        lane[2 * r] = row[2 * k];
                        lane[2 * r + 1] = row[2 * k + 1];
                    }
                }
            }
        }
        PairRows {
            wide: v.into(),
            pairs,
            width,
        }
    }
}

impl std::ops::Deref for PairRows {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        &self.wide
    }
}

/// The output's raw sum: `out_w · act(rows · input + bias) + out_b`, where
/// `rows` are the `bias.len()` rows of `l2` from row `first`, `act` is
/// [`activate`], and `out_w` holds `bias.len()` weights (at most 64). The
/// same sum as [`dense`], [`activate`], [`dense`] in turn, by the AVX2
/// kernel where the CPU has it and the rows come in groups of eight.
#[inline]
pub fn tail(
    input: &[i16],
    l2: &PairRows,
    first: usize,
    bias: &[i32],
    out_w: &[i16],
    out_b: i32,
) -> i32 {
    let (n, m) = (input.len(), bias.len());
    assert!(n == l2.width && out_w.len() >= m && m <= 64);
    // (the slice checks that the layer holds these rows)
    let rows = &l2[first * n..(first + m) * n];
    #[cfg(target_arch = "x86_64")]
    if has_avx2() && !l2.pairs.is_empty() && first.is_multiple_of(8) && m.is_multiple_of(8) {
        let np = n / 2;
        let pairs = &l2.pairs[first / 8 * np..(first + m) / 8 * np];
        // SAFETY: the CPU has AVX2; `pairs` holds this layer's m / 8 groups
        // of rows, and the lengths were checked above
        unsafe {
            return match m / 8 {
                1 => x86::tail_avx2::<1>(input, pairs, bias, out_w, out_b),
                2 => x86::tail_avx2::<2>(input, pairs, bias, out_w, out_b),
                3 => x86::tail_avx2::<3>(input, pairs, bias, out_w, out_b),
                4 => x86::tail_avx2::<4>(input, pairs, bias, out_w, out_b),
                5 => x86::tail_avx2::<5>(input, pairs, bias, out_w, out_b),
                6 => x86::tail_avx2::<6>(input, pairs, bias, out_w, out_b),
                7 => x86::tail_avx2::<7>(input, pairs, bias, out_w, out_b),
                _ => x86::tail_avx2::<8>(input, pairs, bias, out_w, out_b),
            };
        }
    }
    tail_portable(input, rows, bias, out_w, out_b)
}

/// [`tail`] by the general kernels, over the layer's own `rows`.
fn tail_portable(input: &[i16], rows: &[i16], bias: &[i32], out_w: &[i16], out_b: i32) -> i32 {
    let m = bias.len();
    let mut sums = [0i32; 64];
    let mut act = [0i16; 64];
    dense(input, rows, bias, &mut sums[..m]);
    activate(&sums[..m], &mut act[..m]);
    let mut out = [0i32];
    dense(&act[..m], &out_w[..m], &[out_b], &mut out);
    out[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair kernel gives the general kernels' sum, for every bucket's
    /// rows, on shapes with and without whole groups of eight rows.
    #[test]
    fn the_tail_equals_the_layers_one_after_another() {
        let mut rng = crate::rng::SplitMix64(17);
        for (n, m, buckets) in [
            (16, 32, 1),
            (16, 8, 3),
            (32, 64, 2),
            (6, 16, 2),
            (16, 12, 2),
        ] {
            let w: Vec<i16> = (0..n * m * buckets)
                .map(|_| (rng.next_u64() % 4001) as i16 - 2000)
                .collect();
            let l2 = PairRows::new(w.clone(), n);
            assert_eq!(l2.pairs.is_empty(), (m * buckets) % 8 != 0, "{n} {m}");
            for _ in 0..50 {
                let input: Vec<i16> = (0..n).map(|_| (rng.next_u64() % 128) as i16).collect();
                let bias: Vec<i32> = (0..m)
                    .map(|_| (rng.next_u64() % 200_001) as i32 - 100_000)
                    .collect();
                let out_w: Vec<i16> = (0..m)
                    .map(|_| (rng.next_u64() % 2001) as i16 - 1000)
                    .collect();
                for b in 0..buckets {
                    // the definition, written out
                    let mut want = 77i32;
                    for r in 0..m {
                        let row = &w[(b * m + r) * n..][..n];
                        let s: i32 = row
                            .iter()
                            .zip(&input)
                            .map(|(&x, &y)| i32::from(x) * i32::from(y))
                            .sum::<i32>()
                            + bias[r];
                        want += (s >> 8).clamp(0, 127) * i32::from(out_w[r]);
                    }
                    assert_eq!(tail(&input, &l2, b * m, &bias, &out_w, 77), want);
                    let rows = &w[b * m * n..(b + 1) * m * n];
                    assert_eq!(tail_portable(&input, rows, &bias, &out_w, 77), want);
                }
            }
        }
    }
}
