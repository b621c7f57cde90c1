//! The pattern weights file (`.kmw`) and the shipped weights.
//!
//! All integers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `KMWEIGHT` |
//! | 4 | format version, [`FORMAT_VERSION`] |
//! | 4 | generation (which training round made it; informative) |
//! | 4 | number of features, [`FEATURES`] |
//! | 4 | scale: weights are in centi-men times this |
//! | 8 | checksum: 64-bit FNV-1a of everything after the header |
//! | 4 x features | per feature, the full-board then the bare-board weight, `i16` each |
//!
//! The shipped file is embedded in the binary ([`PatternWeights::builtin`]); another
//! is loaded with [`PatternWeights::load`], which refuses a wrong magic, version,
//! size, feature count or checksum rather than read wrong values. Files are
//! written through [`crate::checked_file`], whole or not at all.

use super::features::FEATURES;
use super::weights::{PatternWeights, SCALE};
use crate::checked_file::{write_atomically, Checksum, FileError, Format, PastTheEnd};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The first bytes of every weights file.
pub const MAGIC: &[u8; 8] = b"KMWEIGHT";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 32;
/// The length of every weights file this build reads.
pub const FILE_LEN: usize = HEADER_LEN + FEATURES * 4;

/// The weights file format.
pub const FORMAT: Format = Format {
    magic: MAGIC,
    what: "weights file",
    versions: &[FORMAT_VERSION],
    checksum: Checksum::Fnv1a,
};

/// The weights file shipped with kingme (made by `kingme train`, see `EVAL.md`).
static BUILTIN: &[u8] = include_bytes!("english.kmw");

impl std::fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PatternWeights(generation {}, checksum {:016x})",
            self.generation,
            self.checksum()
        )
    }
}

impl PatternWeights {
    /// The shipped weights (parsed once per process).
    #[must_use]
    pub fn builtin() -> Arc<PatternWeights> {
        static W: OnceLock<Arc<PatternWeights>> = OnceLock::new();
        Arc::clone(W.get_or_init(|| {
            Arc::new(
                PatternWeights::from_bytes(BUILTIN, "builtin weights")
                    .expect("the embedded weights file is checked by the test suite"),
            )
        }))
    }

    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.w.len() * 4);
        for [a, b] in &self.w {
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// The checksum of the weights, as written in the file header.
    #[must_use]
    pub fn checksum(&self) -> u64 {
        FORMAT.sum(&self.payload())
    }

    /// The file contents.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut h = FORMAT.header(FORMAT_VERSION);
        h.u32(self.generation)
            .u32(self.w.len() as u32)
            .u32(SCALE as u32)
            .u64(FORMAT.sum(&payload));
        let mut out = h.finish(HEADER_LEN);
        out.extend_from_slice(&payload);
        out
    }

    /// Weights from file contents; `name` names the file in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<PatternWeights, FileError> {
        let path = Path::new(name);
        let short = |e: PastTheEnd| e.in_file(path);
        let (_, mut r) = FORMAT.open(bytes, path)?;
        let generation = r.u32().map_err(short)?;
        let features = r.u32().map_err(short)? as usize;
        let scale = r.u32().map_err(short)?;
        let stored = r.u64().map_err(short)?;
        if features != FEATURES {
            return Err(FileError::header(
                path,
                format!("{features} features, this kingme has {FEATURES}"),
            ));
        }
        if scale != SCALE as u32 {
            return Err(FileError::header(
                path,
                format!("scale {scale}, expected {SCALE}"),
            ));
        }
        let payload = r.rest();
        if payload.len() != features * 4 {
            return Err(FileError::size(path, FILE_LEN as u64, bytes.len() as u64));
        }
        FORMAT.verify(path, stored, payload)?;
        let w = payload
            .chunks_exact(4)
            .map(|c| {
                [
                    i16::from_le_bytes([c[0], c[1]]),
                    i16::from_le_bytes([c[2], c[3]]),
                ]
            })
            .collect();
        Ok(PatternWeights { generation, w })
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<PatternWeights, FileError> {
        let bytes = crate::files::read_bounded(path, FILE_LEN as u64)
            .map_err(|e| FileError::io(path, e))?;
        PatternWeights::from_bytes(&bytes, &path.display().to_string())
    }

    /// Writes a weights file, whole or not at all (two writers never mix
    /// their bytes).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        write_atomically(path, [&self.to_bytes()[..]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_file_loads_and_round_trips() {
        let w = PatternWeights::from_bytes(BUILTIN, "builtin").unwrap();
        assert_eq!(w.w.len(), FEATURES);
        assert_eq!(w.to_bytes(), BUILTIN);
    }

    #[test]
    fn a_damaged_file_is_refused_with_its_name() {
        let good = PatternWeights::builtin().to_bytes();
        let mut flipped = good.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let mut version = good.clone();
        version[8] = 9;
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 2].to_vec(), "truncated"),
            (flipped, "checksum"),
            (version, "version 9"),
            (b"hello world, not weights at all".to_vec(), "magic"),
            (Vec::new(), "magic"),
        ];
        for (bytes, why) in cases {
            let e = PatternWeights::from_bytes(&bytes, "x.kmw")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("x.kmw: ") && e.contains(why), "{e}");
        }
    }

    #[test]
    fn concurrent_writers_leave_a_whole_file_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("kingme-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.kmw");
        let w = PatternWeights::builtin();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..5 {
                        w.save(&path).unwrap();
                    }
                });
            }
        });
        assert_eq!(PatternWeights::load(&path).unwrap().to_bytes(), BUILTIN);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["w.kmw"], "temporaries left behind");
        // a padded file is refused without reading past its format's size
        let mut padded = BUILTIN.to_vec();
        padded.push(0);
        std::fs::write(&path, padded).unwrap();
        let e = PatternWeights::load(&path).unwrap_err().to_string();
        assert!(e.contains("larger than"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
