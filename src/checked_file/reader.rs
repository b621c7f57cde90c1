//! [`Reader`]: little-endian values read off the front of a byte slice,
//! never past its end: a read that would go past it is an error
//! ([`PastTheEnd`]), whatever the bytes claim.

use super::FileError;
use std::path::Path;

/// A read past the end of the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{wanted} bytes at offset {at}, past the end of {len}")]
pub struct PastTheEnd {
    /// Where the read started.
    pub at: usize,
    /// Bytes it wanted.
    pub wanted: usize,
    /// Bytes there are.
    pub len: usize,
}

impl PastTheEnd {
    /// The error of file `path`: shorter than its format needs.
    #[must_use]
    pub fn in_file(self, path: &Path) -> FileError {
        FileError::size(
            path,
            self.at.saturating_add(self.wanted) as u64,
            self.len as u64,
        )
    }
}

/// A cursor over bytes that reads little-endian values from its position on.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The offset of the next byte read.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.at
    }

    /// Bytes left after the position.
    #[must_use]
    pub const fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// The bytes after the position.
    #[must_use]
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at..]
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], PastTheEnd> {
        let past = PastTheEnd {
            at: self.at,
            wanted: n,
            len: self.bytes.len(),
        };
        let end = self.at.checked_add(n).ok_or(past)?;
        let b = self.bytes.get(self.at..end).ok_or(past)?;
        self.at = end;
        Ok(b)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), PastTheEnd> {
        self.take(n).map(|_| ())
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], PastTheEnd> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8, PastTheEnd> {
        self.array::<1>().map(|[b]| b)
    }

    /// The next little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, PastTheEnd> {
        self.array().map(u16::from_le_bytes)
    }

    /// The next little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, PastTheEnd> {
        self.array().map(u32::from_le_bytes)
    }

    /// The next little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, PastTheEnd> {
        self.array().map(u64::from_le_bytes)
    }

    /// The next little-endian `i16`.
    pub fn i16(&mut self) -> Result<i16, PastTheEnd> {
        self.array().map(i16::from_le_bytes)
    }

    /// The next `n` little-endian `i16`.
    pub fn i16s(&mut self, n: usize) -> Result<Vec<i16>, PastTheEnd> {
        let b = self.take(n.saturating_mul(2))?;
        Ok(b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    /// The next `n` little-endian `i32`.
    pub fn i32s(&mut self, n: usize) -> Result<Vec<i32>, PastTheEnd> {
        let b = self.take(n.saturating_mul(4))?;
        Ok(b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// The little-endian `u32` at offset `at` of `bytes`; `None` past their end.
#[inline]
#[must_use]
pub fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The little-endian `u64` at offset `at` of `bytes`; `None` past their end.
#[inline]
#[must_use]
pub fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_off_the_front_little_endian() {
        let bytes = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0xff, 0xff];
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u8(), Ok(1));
        assert_eq!(r.u16(), Ok(0x0302));
        assert_eq!(r.u32(), Ok(0x0706_0504));
        assert_eq!(r.position(), 7);
        assert_eq!(r.i16s(2), Ok(vec![0x0908, 0x0b0a]));
        assert_eq!(r.remaining(), 4);
        assert_eq!(r.rest(), &bytes[11..]);
        r.skip(2).unwrap();
        assert_eq!(r.i16(), Ok(-1));
        assert_eq!(r.remaining(), 0);
        assert_eq!(u32_at(&bytes, 3), Some(0x0706_0504));
        assert_eq!(u64_at(&bytes, 0), Some(0x0807_0605_0403_0201));
    }

    #[test]
    fn a_read_past_the_end_is_an_error_and_moves_nothing() {
        let bytes = [0u8; 10];
        let mut r = Reader::new(&bytes);
        r.skip(7).unwrap();
        let past = PastTheEnd {
            at: 7,
            wanted: 4,
            len: 10,
        };
        assert_eq!(r.u32(), Err(past));
        assert_eq!(r.position(), 7, "a failed read moves nothing");
        assert_eq!(r.u64().unwrap_err().wanted, 8);
        assert!(r.i16s(usize::MAX).is_err(), "a huge count is no overflow");
        assert!(r.i32s(usize::MAX / 2).is_err());
        assert_eq!(u32_at(&bytes, 7), None);
        assert_eq!(u64_at(&bytes, usize::MAX), None);
        let e = past.in_file(Path::new("x.kmw")).to_string();
        assert_eq!(e, "x.kmw: truncated or padded: 10 bytes, expected 11");
    }
}
