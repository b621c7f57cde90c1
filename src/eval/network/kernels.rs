//! The network's integer arithmetic: row additions for the accumulator
//! (written so that the compiler vectorises them), the dense layers over
//! `i16` (AVX2 or SSE2 intrinsics, chosen at run time; portable code
//! elsewhere) and over bytes (AVX-512 VNNI or AVX2; portable), and
//! [`avx2_twin!`](crate::avx2_twin), which compiles a function twice.

use super::{QA, QB_SHIFT};

/// Sixteen `i16` on a 32-byte boundary: one AVX2 register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Lanes(pub [i16; 16]);

/// `i16` values stored on 32-byte boundaries (a multiple of 16 of them are
/// whole [`Lanes`]), so that vector loads of rows whose widths are multiples
/// of 16 are aligned; otherwise a slice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aligned {
    lanes: Vec<Lanes>,
    len: usize,
}

impl Aligned {
    /// The values as whole lanes (the last one padded with zeros).
    #[inline(always)]
    #[must_use]
    pub fn lanes(&self) -> &[Lanes] {
        &self.lanes
    }

    /// The values as whole lanes, to change.
    #[inline(always)]
    pub fn lanes_mut(&mut self) -> &mut [Lanes] {
        &mut self.lanes
    }
}

impl From<Vec<i16>> for Aligned {
    fn from(v: Vec<i16>) -> Aligned {
        let mut lanes = vec![Lanes::default(); v.len().div_ceil(16)];
        for (i, x) in v.iter().enumerate() {
            lanes[i / 16].0[i % 16] = *x;
        }
        Aligned {
            lanes,
            len: v.len(),
        }
    }
}

impl std::ops::Deref for Aligned {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        // SAFETY: `Lanes` is `repr(C)` over `[i16; 16]`, so the lanes are
        // `16 * lanes.len() >= len` contiguous, initialised `i16`
        unsafe { std::slice::from_raw_parts(self.lanes.as_ptr().cast::<i16>(), self.len) }
    }
}

impl std::ops::DerefMut for Aligned {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [i16] {
        // SAFETY: as in `deref`, and the borrow is unique
        unsafe { std::slice::from_raw_parts_mut(self.lanes.as_mut_ptr().cast::<i16>(), self.len) }
    }
}

/// Thirty-two bytes on a 32-byte boundary: one AVX2 register of `u8` or `i8`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Bytes(pub [u8; 32]);

/// The weights of a dense layer whose input is whole lanes: `i16` values
/// (as [`Aligned`]), and the same values as `i8` when every one fits, so
/// that the AVX2 kernels take 32 products an instruction instead of 16.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DenseRows {
    wide: Aligned,
    narrow: Option<Vec<Bytes>>,
}

impl DenseRows {
    /// The values as whole `i16` lanes.
    #[inline(always)]
    #[must_use]
    pub fn lanes(&self) -> &[Lanes] {
        self.wide.lanes()
    }

    /// The values as `i8` in whole 32-byte lanes (the last padded with
    /// zeros), when every value fits `i8`.
    #[inline(always)]
    #[must_use]
    pub fn narrow(&self) -> Option<&[Bytes]> {
        self.narrow.as_deref()
    }
}

impl From<Vec<i16>> for DenseRows {
    fn from(v: Vec<i16>) -> DenseRows {
        let narrow = v.iter().all(|&x| i8::try_from(x).is_ok()).then(|| {
            let mut b = vec![Bytes::default(); v.len().div_ceil(32)];
            for (i, &x) in v.iter().enumerate() {
                b[i / 32].0[i % 32] = x as i8 as u8;
            }
            b
        });
        DenseRows {
            wide: v.into(),
            narrow,
        }
    }
}

impl std::ops::Deref for DenseRows {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        &self.wide
    }
}

/// Lanes of `i16` scratch space seen as bytes (both 32 bytes on a 32-byte
/// boundary, and any bytes are valid values of either).
#[inline(always)]
pub fn as_bytes_mut(l: &mut [Lanes]) -> &mut [Bytes] {
    // SAFETY: `Lanes` and `Bytes` are both `repr(C)`, 32 bytes, aligned to 32,
    // with no invalid bit patterns; the borrow is unique
    unsafe { std::slice::from_raw_parts_mut(l.as_mut_ptr().cast::<Bytes>(), l.len()) }
}

/// `acc -= rows[f]` for every `f` in `gone` and `acc += rows[f]` for every
/// `f` in `came`, wrapping, where row `f` is `rows[f * acc.len()..][..acc.len()]`.
#[inline(always)]
pub fn move_lanes(acc: &mut [Lanes], rows: &[Lanes], gone: &[usize], came: &[usize]) {
    if let Ok(acc) = <&mut [Lanes; 8]>::try_from(&mut *acc) {
        move_8(acc, rows, gone, came);
        return;
    }
    let l = acc.len();
    for &f in gone {
        for (a, r) in acc.iter_mut().zip(&rows[f * l..(f + 1) * l]) {
            a.0 = lane_op(a.0, r.0, i16::wrapping_sub);
        }
    }
    for &f in came {
        for (a, r) in acc.iter_mut().zip(&rows[f * l..(f + 1) * l]) {
            a.0 = lane_op(a.0, r.0, i16::wrapping_add);
        }
    }
}

/// [`move_lanes`] for 8 lanes (128 sums).
#[inline(always)]
fn move_8(acc: &mut [Lanes; 8], rows: &[Lanes], gone: &[usize], came: &[usize]) {
    // a local per lane, so that all eight stay in registers across the rows
    let [mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7] = acc.map(|l| l.0);
    let mut apply = |f: usize, op: fn(i16, i16) -> i16| {
        let r: &[Lanes; 8] = rows[f * 8..(f + 1) * 8].try_into().expect("8 lanes");
        x0 = lane_op(x0, r[0].0, op);
        x1 = lane_op(x1, r[1].0, op);
        x2 = lane_op(x2, r[2].0, op);
        x3 = lane_op(x3, r[3].0, op);
        x4 = lane_op(x4, r[4].0, op);
        x5 = lane_op(x5, r[5].0, op);
        x6 = lane_op(x6, r[6].0, op);
        x7 = lane_op(x7, r[7].0, op);
    };
    for &f in gone {
        apply(f, i16::wrapping_sub);
    }
    for &f in came {
        apply(f, i16::wrapping_add);
    }
    *acc = [x0, x1, x2, x3, x4, x5, x6, x7].map(Lanes);
}

/// `op` lane by lane: whole values in, whole values out.
#[inline(always)]
fn lane_op(a: [i16; 16], b: [i16; 16], op: impl Fn(i16, i16) -> i16) -> [i16; 16] {
    let mut z = [0i16; 16];
    for i in 0..16 {
        z[i] = op(a[i], b[i]);
    }
    z
}

/// `out[i] = clamp(acc[i], 0, QA)` lane by lane.
#[inline(always)]
pub fn clip_lanes(acc: &[Lanes], out: &mut [Lanes]) {
    for (o, a) in out.iter_mut().zip(acc) {
        let x = a.0;
        let mut z = [0i16; 16];
        for i in 0..16 {
            z[i] = x[i].clamp(0, QA as i16);
        }
        o.0 = z;
    }
}

/// The dot product of two `i16` vectors in `i32` (wrapping), portable.
#[inline(always)]
fn dot(a: &[i16], b: &[i16]) -> i32 {
    let mut s = 0i32;
    for (&x, &y) in a.iter().zip(b) {
        s = s.wrapping_add(i32::from(x) * i32::from(y));
    }
    s
}

/// A dense layer: `out[j] = weights[j] · input + bias[j]` (the raw sums,
/// wrapping), with AVX2 or SSE2 where the CPU has them.
#[inline]
pub fn dense(input: &[i16], weights: &[i16], bias: &[i32], out: &mut [i32]) {
    let n = input.len();
    assert!(weights.len() >= n * out.len() && bias.len() >= out.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2; the lengths were checked above
            unsafe { x86::dense_avx2(input, weights, bias, out) };
        } else {
            // SAFETY: SSE2 is part of every x86-64 CPU; the lengths were checked above
            unsafe { x86::dense_sse2(input, weights, bias, out) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (j, o) in out.iter_mut().enumerate() {
        *o = dot(input, &weights[j * n..(j + 1) * n]).wrapping_add(bias[j]);
    }
}

/// [`dense`] over whole lanes: `input` is `n / 16` lanes, `weights` rows of
/// `n` values each starting on a lane (so every load is aligned).
#[inline]
pub fn dense_lanes(input: &[Lanes], weights: &[Lanes], bias: &[i32], out: &mut [i32]) {
    let lanes = input.len();
    assert!(weights.len() >= lanes * out.len() && bias.len() >= out.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2() && out.len().is_multiple_of(4) {
        // SAFETY: the CPU has AVX2; the lengths were checked above
        unsafe { x86::dense_lanes_avx2(input, weights, bias, out) };
        return;
    }
    // SAFETY: `Lanes` is `repr(C)` over `[i16; 16]`
    let flat =
        |l: &[Lanes]| unsafe { std::slice::from_raw_parts(l.as_ptr().cast::<i16>(), 16 * l.len()) };
    dense(flat(input), flat(&weights[..lanes * out.len()]), bias, out);
}

/// `out` = `clamp(acc, 0, QA)` as bytes, the lanes of `a` then those of
/// `b` in order: the `u8` input of [`dense_bytes`]. `out` holds
/// `(a.len() + b.len()) / 2` lanes; each half is an even number of lanes.
#[inline]
pub fn clip_pack(a: &[Lanes], b: &[Lanes], out: &mut [Bytes]) {
    assert!(a.len().is_multiple_of(2) && b.len().is_multiple_of(2));
    assert!(out.len() >= (a.len() + b.len()) / 2);
    let (oa, ob) = out.split_at_mut(a.len() / 2);
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2; the lengths were checked above
        unsafe {
            x86::clip_pack_avx2(a, oa);
            x86::clip_pack_avx2(b, ob);
        }
        return;
    }
    clip_pack_portable(a, oa);
    clip_pack_portable(b, ob);
}

/// One half of [`clip_pack`], portable.
fn clip_pack_portable(acc: &[Lanes], out: &mut [Bytes]) {
    for (o, pair) in out.iter_mut().zip(acc.chunks_exact(2)) {
        for (i, x) in pair.iter().flat_map(|l| l.0).enumerate() {
            o.0[i] = x.clamp(0, QA as i16) as u8;
        }
    }
}

/// [`dense`] over `u8` inputs and `i8` weights in whole 32-byte lanes: `input`
/// is `n / 32` lanes, `weights` rows of `n` values each starting on a lane.
/// The same sums exactly, as long as inputs are at most [`QA`] (each pair of
/// products then fits `i16`). AVX-512 VNNI or AVX2 where the CPU has them
/// (four rows at a time: `out.len()` a multiple of 4), portable otherwise.
#[inline]
pub fn dense_bytes(input: &[Bytes], weights: &[Bytes], bias: &[i32], out: &mut [i32]) {
    let lanes = input.len();
    assert!(weights.len() >= lanes * out.len() && bias.len() >= out.len());
    #[cfg(target_arch = "x86_64")]
    if out.len().is_multiple_of(4) {
        if has_vnni() {
            // SAFETY: the CPU has AVX-512 VNNI and VL; the lengths were checked above
            unsafe { x86::dense_bytes_vnni(input, weights, bias, out) };
            return;
        }
        if has_avx2() {
            // SAFETY: the CPU has AVX2; the lengths were checked above
            unsafe { x86::dense_bytes_avx2(input, weights, bias, out) };
            return;
        }
    }
    dense_bytes_portable(input, weights, bias, out);
}

/// [`dense_bytes`], portable.
fn dense_bytes_portable(input: &[Bytes], weights: &[Bytes], bias: &[i32], out: &mut [i32]) {
    let n = input.len();
    for (j, o) in out.iter_mut().enumerate() {
        let mut s = bias[j];
        for (x, w) in input.iter().zip(&weights[j * n..(j + 1) * n]) {
            for (&a, &b) in x.0.iter().zip(&w.0) {
                s = s.wrapping_add(i32::from(a) * i32::from(b as i8));
            }
        }
        *o = s;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::dot;
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

    /// The four-rows kernels' common loop: over rows `j..j + 4`, `acc[r] =
    /// step(acc[r], x, w)` for each 32-byte lane `x` of the input and the
    /// matching lane `w` of row `r`, then the sums plus biases stored;
    /// `out.len()` is a multiple of 4 and `T` is 32 bytes on a 32-byte boundary.
    #[inline(always)]
    unsafe fn four_rows<T>(
        input: &[T],
        weights: &[T],
        bias: &[i32],
        out: &mut [i32],
        step: impl Fn(__m256i, __m256i, __m256i) -> __m256i,
    ) {
        const { assert!(size_of::<T>() == 32 && align_of::<T>() == 32) };
        let n = input.len();
        let mut j = 0;
        while j + 4 <= out.len() {
            let w = &weights[j * n..(j + 4) * n];
            let mut acc = [_mm256_setzero_si256(); 4];
            for (i, x) in input.iter().enumerate() {
                // SAFETY: `T` is 32 bytes on a 32-byte boundary (asserted above)
                let x = unsafe { _mm256_load_si256(std::ptr::from_ref(x).cast()) };
                for (r, a) in acc.iter_mut().enumerate() {
                    let y = unsafe { _mm256_load_si256(std::ptr::from_ref(&w[r * n + i]).cast()) };
                    *a = step(*a, x, y);
                }
            }
            // SAFETY: j + 4 <= out.len() <= bias.len()
            unsafe { store4(acc, bias, out, j) };
            j += 4;
        }
    }

    /// [`super::dense_lanes`] with 16 products per instruction, four rows at
    /// a time, aligned loads; `out.len()` is a multiple of 4.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dense_lanes_avx2(
        input: &[super::Lanes],
        weights: &[super::Lanes],
        bias: &[i32],
        out: &mut [i32],
    ) {
        // SAFETY: the caller's promises
        unsafe {
            four_rows(input, weights, bias, out, |a, x, y| {
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
    pub(super) unsafe fn clip_pack_avx2(acc: &[super::Lanes], out: &mut [super::Bytes]) {
        let top = _mm256_set1_epi16(super::QA as i16);
        for (o, pair) in out.iter_mut().zip(acc.chunks_exact(2)) {
            // SAFETY: `Lanes` and `Bytes` are 32 bytes on 32-byte boundaries
            unsafe {
                let x =
                    _mm256_min_epi16(_mm256_load_si256(std::ptr::from_ref(&pair[0]).cast()), top);
                let y =
                    _mm256_min_epi16(_mm256_load_si256(std::ptr::from_ref(&pair[1]).cast()), top);
                // the pack saturates negatives to 0 and interleaves 128-bit halves
                let p = _mm256_permute4x64_epi64(_mm256_packus_epi16(x, y), 0b11_01_10_00);
                _mm256_store_si256(std::ptr::from_mut(o).cast(), p);
            }
        }
    }

    /// [`super::dense_bytes`] with AVX2: 32 products per `vpmaddubsw`, whose
    /// pairs are summed on in `i32`; four rows at a time.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dense_bytes_avx2(
        input: &[super::Bytes],
        weights: &[super::Bytes],
        bias: &[i32],
        out: &mut [i32],
    ) {
        let ones = _mm256_set1_epi16(1);
        // SAFETY: the caller's promises
        unsafe {
            four_rows(input, weights, bias, out, |a, x, y| {
                _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones))
            });
        }
    }

    /// [`super::dense_bytes`] with AVX-512 VNNI on 256-bit registers: 32
    /// products summed into `i32` by one `vpdpbusd`; four rows at a time.
    #[target_feature(enable = "avx2,avx512vnni,avx512vl")]
    pub(super) unsafe fn dense_bytes_vnni(
        input: &[super::Bytes],
        weights: &[super::Bytes],
        bias: &[i32],
        out: &mut [i32],
    ) {
        // SAFETY: the caller's promises
        unsafe {
            four_rows(input, weights, bias, out, |a, x, y| {
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
}

/// A dense layer's sums turned into the next layer's input:
/// `clamp(sum >> QB_SHIFT, 0, QA)`.
#[inline(always)]
pub fn activate(sums: &[i32], out: &mut [i16]) {
    for (o, &s) in out.iter_mut().zip(sums) {
        *o = (s >> QB_SHIFT).clamp(0, QA) as i16;
    }
}

/// Whether this CPU runs the AVX2 build of the kernels (checked once).
#[must_use]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static AVX2: OnceLock<bool> = OnceLock::new();
        *AVX2.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU runs the AVX-512 VNNI kernel of [`dense_bytes`] (checked once).
#[must_use]
pub fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static VNNI: OnceLock<bool> = OnceLock::new();
        *VNNI.get_or_init(|| {
            has_avx2()
                && std::arch::is_x86_feature_detected!("avx512vnni")
                && std::arch::is_x86_feature_detected!("avx512vl")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name`, which runs the `#[inline(always)]` function `$body`
/// compiled for AVX2 when the CPU has it, and as built otherwise (the
/// vectorised loops of the accumulator then use 16 lanes instead of 8).
#[macro_export]
#[doc(hidden)]
macro_rules! avx2_twin {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $body:path;) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn with_avx2($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                if $crate::eval::network::kernels::has_avx2() {
                    // SAFETY: the CPU was checked to support AVX2
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_activation_follow_their_definitions() {
        let input = [127i16, 0, 64, 3];
        let w = [256i16, -256, 512, 1, -1000, 7, 9, 300];
        let bias = [10i32, -20];
        let mut out = [0i32; 2];
        dense(&input, &w, &bias, &mut out);
        assert_eq!(out[0], 127 * 256 + 64 * 512 + 3 + 10);
        assert_eq!(out[1], 127 * -1000 + 64 * 9 + 3 * 300 - 20);
        let mut act = [0i16; 4];
        activate(&[1000, -7, 40_000, -1], &mut act);
        assert_eq!(act, [3, 0, 127, 0]);
    }

    /// Every implementation of the dense layer (portable, SSE2, AVX2 row by
    /// row and over lanes) gives the same sums on odd and lane-sized widths.
    #[test]
    fn every_dense_kernel_agrees_with_the_definition() {
        let mut rng = crate::openings::SplitMix64(5);
        for (n, rows) in [(256, 16), (32, 8), (16, 4), (40, 5), (7, 3)] {
            let input: Vec<i16> = (0..n).map(|_| (rng.next_u64() % 128) as i16).collect();
            let w: Vec<i16> = (0..n * rows)
                .map(|_| (rng.next_u64() % 2001) as i16 - 1000)
                .collect();
            let bias: Vec<i32> = (0..rows).map(|i| i as i32 * 977 - 3000).collect();
            let want: Vec<i32> = (0..rows)
                .map(|j| dot(&input, &w[j * n..(j + 1) * n]) + bias[j])
                .collect();
            let mut out = vec![0; rows];
            dense(&input, &w, &bias, &mut out);
            assert_eq!(out, want, "dense {n}x{rows}");
            #[cfg(target_arch = "x86_64")]
            {
                out.fill(0);
                // SAFETY: SSE2 is part of every x86-64 CPU
                unsafe { x86::dense_sse2(&input, &w, &bias, &mut out) };
                assert_eq!(out, want, "sse2 {n}x{rows}");
                if has_avx2() {
                    out.fill(0);
                    // SAFETY: checked above
                    unsafe { x86::dense_avx2(&input, &w, &bias, &mut out) };
                    assert_eq!(out, want, "avx2 {n}x{rows}");
                }
            }
            if n % 16 == 0 {
                let lanes: Vec<Lanes> = Aligned::from(input.clone()).lanes().to_vec();
                out.fill(0);
                dense_lanes(&lanes, Aligned::from(w.clone()).lanes(), &bias, &mut out);
                assert_eq!(out, want, "lanes {n}x{rows}");
            }
        }
    }

    /// The byte kernels (AVX2 and, where the CPU has it, AVX-512 VNNI) give
    /// the definition's sums on inputs up to the clip and any `i8` weights,
    /// the extreme products included; the pack clips like [`clip_lanes`].
    #[test]
    fn the_byte_kernels_agree_with_the_definition() {
        let mut rng = crate::openings::SplitMix64(8);
        for (n, rows) in [(256, 16), (64, 8), (128, 4), (1024, 4), (64, 3)] {
            let mut input: Vec<i16> = (0..n).map(|_| (rng.next_u64() % 128) as i16).collect();
            let mut w: Vec<i16> = (0..n * rows)
                .map(|_| (rng.next_u64() % 256) as i16 - 128)
                .collect();
            // the largest pair sums either way
            input[..4].fill(QA as i16);
            w[..2].fill(-128);
            w[n..n + 2].fill(127);
            let bias: Vec<i32> = (0..rows).map(|i| i as i32 * 131 - 700).collect();
            let want: Vec<i32> = (0..rows)
                .map(|j| dot(&input, &w[j * n..(j + 1) * n]) + bias[j])
                .collect();
            let rows8 = DenseRows::from(w.clone());
            let narrow = rows8.narrow().expect("every weight fits i8");
            // the input as the pack makes it: lanes of i16 sums to clip, in two halves
            let sums: Vec<i16> = input.iter().map(|&x| x * 3 - 2 * x).collect();
            let lanes = Aligned::from(sums).lanes().to_vec();
            let mut bytes = vec![Bytes::default(); n / 32];
            clip_pack(&lanes[..n / 32], &lanes[n / 32..], &mut bytes);
            let flat: Vec<i16> = bytes.iter().flat_map(|b| b.0.map(i16::from)).collect();
            assert_eq!(flat, input, "pack {n}");
            let mut out = vec![0; rows];
            dense_bytes(&bytes, narrow, &bias, &mut out);
            assert_eq!(out, want, "bytes {n}x{rows}");
            out.fill(0);
            dense_bytes_portable(&bytes, narrow, &bias, &mut out);
            assert_eq!(out, want, "bytes portable {n}x{rows}");
            let mut portable = vec![Bytes::default(); n / 32];
            clip_pack_portable(&lanes[..n / 32], &mut portable[..n / 64]);
            clip_pack_portable(&lanes[n / 32..], &mut portable[n / 64..]);
            assert_eq!(portable, bytes, "pack portable {n}");
            #[cfg(target_arch = "x86_64")]
            if has_avx2() && rows % 4 == 0 {
                out.fill(0);
                // SAFETY: the CPU has AVX2
                unsafe { x86::dense_bytes_avx2(&bytes, narrow, &bias, &mut out) };
                assert_eq!(out, want, "bytes avx2 {n}x{rows}");
            }
        }
        // negative sums and sums above the clip pack to 0 and QA
        let lanes = Aligned::from((0..64).map(|i| (i - 32) * 9).collect::<Vec<i16>>());
        let mut bytes = vec![Bytes::default(); 2];
        clip_pack(&lanes.lanes()[..2], &lanes.lanes()[2..], &mut bytes);
        let mut clipped = vec![Lanes::default(); 4];
        clip_lanes(lanes.lanes(), &mut clipped);
        let want: Vec<u8> = clipped.iter().flat_map(|l| l.0.map(|x| x as u8)).collect();
        let got: Vec<u8> = bytes.iter().flat_map(|b| b.0).collect();
        assert_eq!(got, want);
        // a weight outside i8 keeps a layer on the i16 kernels
        assert!(DenseRows::from(vec![1i16, 128, -3]).narrow().is_none());
        assert!(DenseRows::from(vec![1i16, 127, -128]).narrow().is_some());
    }
}
