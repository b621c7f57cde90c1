//! The kernels' x86-64 intrinsics: the dense layers over `i16` (AVX2, SSE2)
//! and over bytes (AVX2, AVX-512 VNNI), several rows at a time where they can.
//! Each function's caller has checked the CPU and the lengths.

use super::lanes::{dot, Bytes, Lanes};
use crate::eval::network::{QA, QB_SHIFT};
use std::arch::x86_64::*;

/// The sum of the eight `i32` lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn hsum_avx2(v: __m256i) -> i32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    _mm_cvtsi128_si32(s)
}

/// The row kernels' common loop: over `R` rows at a time (`R` a multiple of
/// 4; then four at a time for the rows left), `acc[r] = step(acc[r], x, w)`
/// for each 32-byte lane `x` of the input and the matching lane `w` of row
/// `r`, then the sums plus biases stored; `out.len()` is a multiple of 4
/// and `T` is 32 bytes on a 32-byte boundary. More rows at once give the
/// processor more independent sums to work on.
#[inline(always)]
unsafe fn row_sums<T, const R: usize>(
    input: &[T],
    weights: &[T],
    bias: &[i32],
    out: &mut [i32],
    step: impl Fn(__m256i, __m256i, __m256i) -> __m256i + Copy,
) {
    const { assert!(size_of::<T>() == 32 && align_of::<T>() == 32 && R.is_multiple_of(4)) };
    // SAFETY: the caller's promises, passed on
    let j = unsafe { rows_together::<T, R>(input, weights, bias, out, 0, step) };
    // SAFETY: as above
    unsafe { rows_together::<T, 4>(input, weights, bias, out, j, step) };
}

/// [`row_sums`] over `R` rows at a time from row `j` while `R` rows are
/// left; returns the first row not done.
#[inline(always)]
unsafe fn rows_together<T, const R: usize>(
    input: &[T],
    weights: &[T],
    bias: &[i32],
    out: &mut [i32],
    mut j: usize,
    step: impl Fn(__m256i, __m256i, __m256i) -> __m256i,
) -> usize {
    let n = input.len();
    while j + R <= out.len() {
        let w = weights[j * n..(j + R) * n].as_ptr();
        let mut acc = [_mm256_setzero_si256(); R];
        for (i, x) in input.iter().enumerate() {
            // SAFETY: `T` is 32 bytes on a 32-byte boundary (asserted by the
            // caller), and row r's lane i lies inside the slice taken above
            let x = unsafe { _mm256_load_si256(std::ptr::from_ref(x).cast()) };
            let mut y = unsafe { w.add(i) };
            for a in &mut acc {
                *a = step(*a, x, unsafe { _mm256_load_si256(y.cast()) });
                y = y.wrapping_add(n);
            }
        }
        for (k, four) in acc.chunks_exact(4).enumerate() {
            // SAFETY: j + R <= out.len() <= bias.len()
            unsafe { store4([four[0], four[1], four[2], four[3]], bias, out, j + 4 * k) };
        }
        j += R;
    }
    j
}

/// [`super::dense_lanes`] with 16 products per instruction, four rows at
/// a time, aligned loads; `out.len()` is a multiple of 4.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dense_lanes_avx2(
    input: &[Lanes],
    weights: &[Lanes],
    bias: &[i32],
    out: &mut [i32],
) {
    // SAFETY: the caller's promises
    unsafe {
        row_sums::<_, 4>(input, weights, bias, out, |a, x, y| {
            _mm256_add_epi32(a, _mm256_madd_epi16(x, y))
        });
    }
}

/// [`super::dense`] with 16 products per instruction, four rows at a
/// time (their four sums reduced together), when the input is a
/// multiple of 16 wide; row by row otherwise.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dense_avx2(input: &[i16], weights: &[i16], bias: &[i32], out: &mut [i32]) {
    let n = input.len();
    let rows = out.len();
    let mut j = 0;
    if n.is_multiple_of(16) {
        let aligned = (weights.as_ptr() as usize).is_multiple_of(32)
            && (input.as_ptr() as usize).is_multiple_of(32);
        while j + 4 <= rows {
            let w = &weights[j * n..(j + 4) * n];
            let mut acc = [_mm256_setzero_si256(); 4];
            let mut i = 0;
            while i < n {
                // SAFETY: i + 16 <= n, and row r of w holds n values from r * n;
                // aligned loads only where both addresses are aligned
                let x = if aligned {
                    unsafe { _mm256_load_si256(input.as_ptr().add(i).cast()) }
                } else {
                    unsafe { _mm256_loadu_si256(input.as_ptr().add(i).cast()) }
                };
                for (r, a) in acc.iter_mut().enumerate() {
                    let at = unsafe { w.as_ptr().add(r * n + i) };
                    let y = if aligned {
                        unsafe { _mm256_load_si256(at.cast()) }
                    } else {
                        unsafe { _mm256_loadu_si256(at.cast()) }
                    };
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(x, y));
                }
                i += 16;
            }
            // SAFETY: j + 4 <= rows <= bias.len(), out.len()
            unsafe { store4(acc, bias, out, j) };
            j += 4;
        }
    }
    let whole = n / 16 * 16;
    while j < rows {
        let w = &weights[j * n..(j + 1) * n];
        let mut acc = _mm256_setzero_si256();
        let mut i = 0;
        while i < whole {
            // SAFETY: i + 16 <= n for both slices
            let x = unsafe { _mm256_loadu_si256(input.as_ptr().add(i).cast()) };
            let y = unsafe { _mm256_loadu_si256(w.as_ptr().add(i).cast()) };
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
            i += 16;
        }
        out[j] = hsum_avx2(acc)
            .wrapping_add(dot(&input[whole..], &w[whole..]))
            .wrapping_add(bias[j]);
        j += 1;
    }
}

/// The four rows' sums of `acc` plus their biases, stored at
/// `out[j..j + 4]`; the caller makes sure `j + 4` is within both slices.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store4(acc: [__m256i; 4], bias: &[i32], out: &mut [i32], j: usize) {
    let s01 = _mm256_hadd_epi32(acc[0], acc[1]);
    let s23 = _mm256_hadd_epi32(acc[2], acc[3]);
    let s = _mm256_hadd_epi32(s01, s23);
    let sums = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    debug_assert!(j + 4 <= bias.len() && j + 4 <= out.len());
    // SAFETY: the caller's promise above
    unsafe {
        let b = _mm_loadu_si128(bias.as_ptr().add(j).cast());
        _mm_storeu_si128(out.as_mut_ptr().add(j).cast(), _mm_add_epi32(sums, b));
    }
}

/// [`super::clip_pack`] of one half.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn clip_pack_avx2(acc: &[Lanes], out: &mut [Bytes]) {
    let top = _mm256_set1_epi16(QA as i16);
    for (o, pair) in out.iter_mut().zip(acc.chunks_exact(2)) {
        // SAFETY: `Lanes` and `Bytes` are 32 bytes on 32-byte boundaries
        unsafe {
            let x = _mm256_min_epi16(_mm256_load_si256(std::ptr::from_ref(&pair[0]).cast()), top);
            let y = _mm256_min_epi16(_mm256_load_si256(std::ptr::from_ref(&pair[1]).cast()), top);
            // the pack saturates negatives to 0 and interleaves 128-bit halves
            let p = _mm256_permute4x64_epi64(_mm256_packus_epi16(x, y), 0b11_01_10_00);
            _mm256_store_si256(std::ptr::from_mut(o).cast(), p);
        }
    }
}

/// [`super::dense_bytes`] with AVX2: 32 products per `vpmaddubsw`, whose
/// pairs are summed on in `i32`; eight rows at a time.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dense_bytes_avx2(
    input: &[Bytes],
    weights: &[Bytes],
    bias: &[i32],
    out: &mut [i32],
) {
    let ones = _mm256_set1_epi16(1);
    // SAFETY: the caller's promises
    unsafe {
        row_sums::<_, 8>(input, weights, bias, out, |a, x, y| {
            _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones))
        });
    }
}

/// [`super::dense_bytes`] with AVX-512 VNNI on 256-bit registers: 32
/// products summed into `i32` by one `vpdpbusd`; sixteen rows at a time
/// (AVX-512 has the registers).
#[target_feature(enable = "avx2,avx512vnni,avx512vl")]
pub(super) unsafe fn dense_bytes_vnni(
    input: &[Bytes],
    weights: &[Bytes],
    bias: &[i32],
    out: &mut [i32],
) {
    // SAFETY: the caller's promises
    unsafe {
        row_sums::<_, 16>(input, weights, bias, out, |a, x, y| {
            _mm256_dpbusd_epi32(a, x, y)
        })
    };
}

/// [`super::dense`] with 8 products per instruction.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn dense_sse2(input: &[i16], weights: &[i16], bias: &[i32], out: &mut [i32]) {
    let n = input.len();
    let whole = n / 8 * 8;
    for (j, o) in out.iter_mut().enumerate() {
        let w = &weights[j * n..(j + 1) * n];
        let mut acc = _mm_setzero_si128();
        let mut i = 0;
        while i < whole {
            // SAFETY: i + 8 <= n for both slices
            let x = unsafe { _mm_loadu_si128(input.as_ptr().add(i).cast()) };
            let y = unsafe { _mm_loadu_si128(w.as_ptr().add(i).cast()) };
            acc = _mm_add_epi32(acc, _mm_madd_epi16(x, y));
            i += 8;
        }
        let s = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0b01_00_11_10));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
        *o = _mm_cvtsi128_si32(s)
            .wrapping_add(dot(&input[whole..], &w[whole..]))
            .wrapping_add(bias[j]);
    }
}

/// [`super::tail`] with AVX2 for `NG` groups of eight rows: eight rows a
/// register, one input pair broadcast at a time; `pairs` holds this
/// layer's `NG` groups of `input.len() / 2` lanes, and `bias` and `out_w`
/// at least `8 NG` values (the number of groups fixed at compile time
/// keeps the sums in registers).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tail_avx2<const NG: usize>(
    input: &[i16],
    pairs: &[Lanes],
    bias: &[i32],
    out_w: &[i16],
    out_b: i32,
) -> i32 {
    let np = input.len() / 2;
    assert!(bias.len() >= 8 * NG && out_w.len() >= 8 * NG && pairs.len() >= NG * np);
    let mut acc = [_mm256_setzero_si256(); NG];
    for (g, a) in acc.iter_mut().enumerate() {
        // SAFETY: 8 g + 8 <= bias.len() (asserted)
        *a = unsafe { _mm256_loadu_si256(bias.as_ptr().add(8 * g).cast()) };
    }
    for k in 0..np {
        let pair = u32::from(input[2 * k] as u16) | (u32::from(input[2 * k + 1] as u16) << 16);
        let x = _mm256_set1_epi32(pair as i32);
        for (g, a) in acc.iter_mut().enumerate() {
            // SAFETY: `Lanes` is 32 bytes on a 32-byte boundary; g np + k < pairs.len()
            let w = unsafe { _mm256_load_si256(std::ptr::from_ref(&pairs[g * np + k]).cast()) };
            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(x, w));
        }
    }
    let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi32(QA));
    let mut total = _mm256_setzero_si256();
    for (g, a) in acc.iter().enumerate() {
        let y = _mm256_srai_epi32(*a, QB_SHIFT as i32);
        let y = _mm256_min_epi32(_mm256_max_epi32(y, zero), top);
        // SAFETY: 8 g + 8 <= out_w.len() (asserted)
        let w = unsafe { _mm_loadu_si128(out_w.as_ptr().add(8 * g).cast()) };
        total = _mm256_add_epi32(total, _mm256_mullo_epi32(y, _mm256_cvtepi16_epi32(w)));
    }
    hsum_avx2(total).wrapping_add(out_b)
}
