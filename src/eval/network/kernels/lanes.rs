//! The vector types every kernel works on: [`Lanes`] (sixteen `i16`) and
//! [`Bytes`] (thirty-two bytes), each one AVX2 register on its boundary;
//! [`Aligned`], `i16` values stored as whole lanes; and the portable dot
//! product that the kernels fall back to.

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

/// The dot product of two `i16` vectors in `i32` (wrapping), portable.
#[inline(always)]
pub(super) fn dot(a: &[i16], b: &[i16]) -> i32 {
    let mut s = 0i32;
    for (&x, &y) in a.iter().zip(b) {
        s = s.wrapping_add(i32::from(x) * i32::from(y));
    }
    s
}
