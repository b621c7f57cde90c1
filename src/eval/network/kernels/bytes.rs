//! The first dense layer over bytes: the clipped accumulator packed to `u8`
//! and rows of `i8` weights, 32 products an instruction (AVX-512 VNNI or
//! AVX2; portable elsewhere), with the same sums as the `i16` kernels.

use super::lanes::{Aligned, Bytes, Lanes};
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::{has_avx2, has_vnni};
use crate::eval::network::QA;

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

/// [`dense`](super::dense) over `u8` inputs and `i8` weights in whole 32-byte lanes: `input`
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

#[cfg(test)]
mod tests {
    use super::super::lanes::dot;
    use super::super::{clip_lanes, QA};
    use super::*;

    /// The byte kernels (AVX2 and, where the CPU has it, AVX-512 VNNI) give
    /// the definition's sums on inputs up to the clip and any `i8` weights,
    /// the extreme products included, in whole groups of rows and in the
    /// rows left after them; the pack clips like [`clip_lanes`].
    #[test]
    fn the_byte_kernels_agree_with_the_definition() {
        let mut rng = crate::rng::SplitMix64(8);
        for (n, rows) in [(256, 16), (64, 8), (128, 4), (1024, 4), (64, 3), (64, 20)] {
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
                unsafe { super::super::x86::dense_bytes_avx2(&bytes, narrow, &bias, &mut out) };
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
