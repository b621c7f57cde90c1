//! The full slice files (format version 1): every position's value packed 2
//! bits a position (`NAME.wld`), every position's conversion distance a byte
//! a position (`NAME.dtc`), read whole.
//!
//! Header, little-endian: the shared start ([`super::file`]: magic, version
//! 1, kind, slice name), position count (u64), data length in bytes (u64),
//! FNV-1a 64 checksum of the data, in lanes (u64), 8 reserved zero bytes;
//! then the data.

use super::file::{self, Kind, FULL, FULL_VERSION, HEADER_LEN};
use super::Material;
use crate::checked_file::{write_atomically, FileError, Reader};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Packs values (one 2-bit code per byte) four to a byte.
#[must_use]
pub fn pack(values: &[u8]) -> Vec<u8> {
    values
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |acc, (i, v)| acc | ((v & 3) << (2 * i)))
        })
        .collect()
}

/// The 2-bit code of position `i` in packed data.
#[inline]
#[must_use]
pub fn unpack(data: &[u8], i: u64) -> u8 {
    (data[(i >> 2) as usize] >> ((i & 3) * 2)) & 3
}

/// Writes `mat`'s full file of `kind` into `dir`, whole or not at all.
pub fn write(dir: &Path, mat: Material, kind: Kind, data: &[u8]) -> Result<PathBuf, FileError> {
    let positions = mat.positions();
    debug_assert_eq!(kind.data_len(positions), data.len() as u64);
    let mut h = file::ident(&FULL, mat, kind, FULL_VERSION);
    h.u64(positions).u64(data.len() as u64).u64(FULL.sum(data));
    let dest = file::path(dir, mat, kind);
    write_atomically(&dest, [&h.finish(HEADER_LEN)[..], data])?;
    Ok(dest)
}

/// Reads and checks `mat`'s full file of `kind` at `path`: header, size,
/// checksum. Returns the data.
pub fn read(path: &Path, mat: Material, kind: Kind) -> Result<Vec<u8>, FileError> {
    let io_err = |e| FileError::io(path, e);
    let mut f = crate::files::open_regular(path).map_err(io_err)?;
    let found = f.metadata().map_err(io_err)?.len();
    let positions = mat.positions();
    let data_len = kind.data_len(positions);
    let expected = HEADER_LEN as u64 + data_len;
    if found != expected {
        return Err(FileError::size(path, expected, found));
    }
    let mut h = [0u8; HEADER_LEN];
    f.read_exact(&mut h).map_err(io_err)?;
    let (_, mut r) = file::check_ident(&FULL, &h, path, mat, kind)?;
    let (stored_positions, stored_len, sum) = fields(&mut r).map_err(|e| e.in_file(path))?;
    if stored_positions != positions || stored_len != data_len {
        return Err(FileError::header(
            path,
            format!(
                "{stored_positions} positions in {stored_len} bytes, expected {positions} in {data_len}"
            ),
        ));
    }
    let mut data = vec![0u8; data_len as usize];
    f.read_exact(&mut data).map_err(io_err)?;
    FULL.verify(path, sum, &data)?;
    Ok(data)
}

/// The version's own header fields: positions, data length, checksum.
fn fields(r: &mut Reader<'_>) -> Result<(u64, u64, u64), crate::checked_file::PastTheEnd> {
    Ok((r.u64()?, r.u64()?, r.u64()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack() {
        let v = [0u8, 1, 2, 3, 2, 1];
        let p = pack(&v);
        assert_eq!(p.len(), 2);
        for (i, x) in v.iter().enumerate() {
            assert_eq!(unpack(&p, i as u64), *x);
        }
    }

    #[test]
    fn a_file_written_reads_back_and_a_flipped_bit_is_refused() {
        let dir = std::env::temp_dir().join(format!("kingme-full-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mat: Material = "bm1bk0wm1wk0".parse().unwrap();
        let n = mat.positions();
        let dist: Vec<u8> = (0..n).map(|i| (i % 7) as u8).collect();
        let path = write(&dir, mat, Kind::Conversion, &dist).unwrap();
        assert_eq!(read(&path, mat, Kind::Conversion).unwrap(), dist);
        let mut bytes = std::fs::read(&path).unwrap();
        // the header's own fields where the format puts them
        let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(field(32), n);
        assert_eq!(field(40), n);
        assert_eq!(field(48), crate::checked_file::fnv::fnv1a_lanes(&dist));
        assert_eq!(field(56), 0);
        assert_eq!(&bytes[HEADER_LEN..], &dist[..]);
        bytes[HEADER_LEN + 3] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&path, mat, Kind::Conversion).unwrap_err().to_string();
        assert!(
            e.contains("bm1bk0wm1wk0.dtc") && e.contains("corrupted"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
