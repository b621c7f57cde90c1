//! The network's integer arithmetic: row additions for the accumulator
//! (written so that the compiler vectorises them), the dense layers over
//! `i16` (AVX2 or SSE2 intrinsics, chosen at run time; portable code
//! elsewhere), the CPU checks, and [`avx2_twin!`](crate::avx2_twin), which
//! compiles a function twice.
//!
//! - `lanes`: the vector types ([`Lanes`], [`Bytes`], [`Aligned`]) and the
//!   portable dot product;
//! - `bytes`: the first dense layer over `u8` inputs and `i8` weights;
//! - `tail`: the second dense layer and the output together;
//! - `x86`: the intrinsics behind them.

mod bytes;
mod lanes;
mod tail;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use bytes::{as_bytes_mut, clip_pack, dense_bytes, DenseRows};
pub use lanes::{Aligned, Bytes, Lanes};
pub use tail::{tail, PairRows};

#[cfg(not(target_arch = "x86_64"))]
use lanes::dot;

use super::{QA, QB_SHIFT};

/// `acc -= rows[f]` for every `f` in `gone` and `acc += rows[f]` for every
/// `f` in `came`, wrapping, where row `f` is `rows[f * acc.len()..][..acc.len()]`.
#[inline(always)]
pub fn move_lanes(acc: &mut [Lanes], rows: &[Lanes], gone: &[usize], came: &[usize]) {
    let l = acc.len();
    if l.is_multiple_of(8) {
        for (k, part) in acc.chunks_exact_mut(8).enumerate() {
            let part: &mut [Lanes; 8] = part.try_into().expect("8 lanes");
            move_8(part, rows, l, 8 * k, gone, came);
        }
        return;
    }
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

/// [`move_lanes`] for 8 lanes: the lanes `at..at + 8` of rows `stride` lanes long.
#[inline(always)]
fn move_8(
    acc: &mut [Lanes; 8],
    rows: &[Lanes],
    stride: usize,
    at: usize,
    gone: &[usize],
    came: &[usize],
) {
    // a local per lane, so that all eight stay in registers across the rows
    let [mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7] = acc.map(|l| l.0);
    let mut apply = |f: usize, op: fn(i16, i16) -> i16| {
        let r: &[Lanes; 8] = rows[f * stride + at..][..8].try_into().expect("8 lanes");
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
    use super::lanes::dot;
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
        let mut rng = crate::rng::SplitMix64(5);
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
}
