//! The start every kingme file format shares: 8 bytes of magic, the format
//! version (`u32`, little-endian, at byte 8), then the format's own fields,
//! one of them a 64-bit checksum of its data. A [`Format`] declares a
//! format's magic, versions and checksum; [`HeaderWriter`] writes a header
//! field by field, [`Format::open`] checks one and reads on.

use super::fnv::{fnv1a, fnv1a_lanes};
use super::{FileError, Reader};
use std::path::Path;

/// How a format computes its checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checksum {
    /// FNV-1a 64, byte by byte ([`fnv1a`]).
    Fnv1a,
    /// FNV-1a 64 in 8 lanes, folded ([`fnv1a_lanes`]).
    Fnv1aLanes,
}

impl Checksum {
    /// The checksum of `data`.
    #[must_use]
    pub fn of(self, data: &[u8]) -> u64 {
        match self {
            Checksum::Fnv1a => fnv1a(data),
            Checksum::Fnv1aLanes => fnv1a_lanes(data),
        }
    }
}

/// One file format: what starts its files and how they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The first 8 bytes of every file.
    pub magic: &'static [u8; 8],
    /// The kind of file, in errors: "not a kingme {what}".
    pub what: &'static str,
    /// The format versions read.
    pub versions: &'static [u32],
    /// How its checksums are computed.
    pub checksum: Checksum,
}

/// Bytes of the shared start: magic and version.
pub const START_LEN: usize = 12;

impl Format {
    /// Whether `bytes` start with this format's magic.
    #[must_use]
    pub fn is(&self, bytes: &[u8]) -> bool {
        bytes.starts_with(self.magic)
    }

    /// A header of `version`: the magic and the version written, the
    /// format's own fields to follow.
    #[must_use]
    pub fn header(&self, version: u32) -> HeaderWriter {
        debug_assert!(self.versions.contains(&version), "version {version}");
        let mut w = HeaderWriter {
            bytes: Vec::with_capacity(64),
        };
        w.bytes(self.magic).u32(version);
        w
    }

    /// Checks the magic and the version at the start of `bytes` (`path`
    /// names the file in errors); returns the version and a reader at the
    /// first byte after it.
    pub fn open<'a>(&self, bytes: &'a [u8], path: &Path) -> Result<(u32, Reader<'a>), FileError> {
        if !self.is(bytes) {
            return Err(FileError::Magic {
                path: path.to_path_buf(),
                what: self.what,
                magic: self.magic,
            });
        }
        let mut r = Reader::new(bytes);
        r.skip(self.magic.len()).map_err(|e| e.in_file(path))?;
        let version = r.u32().map_err(|e| e.in_file(path))?;
        if !self.versions.contains(&version) {
            return Err(FileError::Version {
                path: path.to_path_buf(),
                found: version,
                reads: self.versions,
            });
        }
        Ok((version, r))
    }

    /// The checksum of `data` in this format.
    #[must_use]
    pub fn sum(&self, data: &[u8]) -> u64 {
        self.checksum.of(data)
    }

    /// Checks `data` of file `path` against the checksum `stored` in its
    /// header.
    pub fn verify(&self, path: &Path, stored: u64, data: &[u8]) -> Result<(), FileError> {
        let found = self.sum(data);
        if found != stored {
            return Err(FileError::Checksum {
                path: path.to_path_buf(),
                expected: stored,
                found,
            });
        }
        Ok(())
    }
}

/// A header being written: little-endian fields in order.
#[derive(Clone, Debug)]
pub struct HeaderWriter {
    bytes: Vec<u8>,
}

impl HeaderWriter {
    /// Appends `b`.
    pub fn bytes(&mut self, b: &[u8]) -> &mut HeaderWriter {
        self.bytes.extend_from_slice(b);
        self
    }

    /// Appends `b` zero-padded to `width` bytes (`b` no longer).
    pub fn padded(&mut self, b: &[u8], width: usize) -> &mut HeaderWriter {
        debug_assert!(b.len() <= width);
        self.bytes.extend_from_slice(b);
        self.bytes
            .resize(self.bytes.len() + width - b.len().min(width), 0);
        self
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) -> &mut HeaderWriter {
        self.bytes(&v.to_le_bytes())
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut HeaderWriter {
        self.bytes(&v.to_le_bytes())
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut HeaderWriter {
        self.bytes(&v.to_le_bytes())
    }

    /// Bytes written so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing is written (never: a header starts with its magic).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The header, zero-padded to `len` bytes (the fields written fit).
    #[must_use]
    pub fn finish(&self, len: usize) -> Vec<u8> {
        debug_assert!(self.bytes.len() <= len, "{} > {len}", self.bytes.len());
        let mut h = self.bytes.clone();
        h.resize(len.max(h.len()), 0);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: Format = Format {
        magic: b"KMTEST\0\0",
        what: "test file",
        versions: &[2, 3],
        checksum: Checksum::Fnv1a,
    };

    #[test]
    fn a_header_written_is_read_back() {
        let data = b"the data";
        let mut w = TEST.header(3);
        w.u32(7).padded(b"ab", 4).u16(9).u64(TEST.sum(data));
        assert_eq!(w.len(), 30);
        let h = w.finish(32);
        assert_eq!(&h[..12], b"KMTEST\0\0\x03\0\0\0");
        let path = Path::new("t.bin");
        let (version, mut r) = TEST.open(&h, path).unwrap();
        assert_eq!(version, 3);
        assert_eq!(r.u32(), Ok(7));
        assert_eq!(r.take(4), Ok(&b"ab\0\0"[..]));
        assert_eq!(r.u16(), Ok(9));
        let stored = r.u64().unwrap();
        TEST.verify(path, stored, data).unwrap();
        assert_eq!(r.rest(), [0, 0]);
    }

    #[test]
    fn a_wrong_magic_version_or_checksum_is_refused_naming_the_file() {
        let path = Path::new("t.bin");
        let h = TEST.header(2).finish(16);
        let e = |bytes: &[u8]| TEST.open(bytes, path).unwrap_err().to_string();
        assert_eq!(
            e(b""),
            "t.bin: not a kingme test file (no KMTEST\\x00\\x00 magic)"
        );
        assert_eq!(
            e(b"KMTEST\0\0\x02"),
            "t.bin: truncated or padded: 9 bytes, expected 12"
        );
        let mut v = h.clone();
        v[8] = 9;
        assert_eq!(
            e(&v),
            "t.bin: format version 9, this kingme reads versions 2 and 3"
        );
        assert!(TEST.open(&h, path).is_ok());
        let bad = TEST.verify(path, 1, b"x").unwrap_err().to_string();
        assert!(bad.starts_with("t.bin: corrupted: checksum "), "{bad}");
    }
}
