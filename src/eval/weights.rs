//! The learned evaluation's weights and their file format.
//!
//! A weights file (`.kmw`) is, all integers little-endian:
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
//! The shipped file is embedded in the binary ([`LearnedWeights::builtin`]); another
//! is loaded with [`LearnedWeights::load`], which refuses a wrong magic, version,
//! size, feature count or checksum rather than read wrong values.

use super::features::{for_each_feature, Oriented, FEATURES, PHASES};
use crate::board::Position;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The first bytes of every weights file.
pub const MAGIC: &[u8; 8] = b"KMWEIGHT";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 32;
/// Weights are stored in centi-men times this.
pub const SCALE: i32 = 16;

/// The weights file shipped with kingme (made by `kingme train`, see `EVAL.md`).
static BUILTIN: &[u8] = include_bytes!("english.kmw");

/// Why an evaluation file (pattern weights or a network) was refused.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The contents are not a kingme evaluation file of this version.
    #[error("{path}: {reason}")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The weights of the learned English evaluation: two per feature.
#[derive(Clone, PartialEq, Eq)]
pub struct LearnedWeights {
    /// Which training round made these weights.
    pub generation: u32,
    /// Per feature: full-board and bare-board weight, in centi-men times [`SCALE`].
    pub w: Vec<[i16; 2]>,
}

impl std::fmt::Debug for LearnedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LearnedWeights(generation {}, checksum {:016x})",
            self.generation,
            checksum(&self.payload())
        )
    }
}

/// 64-bit FNV-1a.
#[must_use]
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Checks the start of an evaluation file: at least `header_len` bytes, the
/// `magic`, and the format version (little-endian `u32` at byte 8) equal to
/// `version`; what is wrong otherwise. `kind` names the kind of file.
pub(crate) fn check_header(
    bytes: &[u8],
    magic: &[u8; 8],
    header_len: usize,
    version: u32,
    kind: &str,
) -> Result<(), String> {
    if bytes.len() < header_len || &bytes[..8] != magic {
        return Err(format!(
            "not a kingme {kind} file (no {} magic)",
            String::from_utf8_lossy(magic)
        ));
    }
    let found = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if found != version {
        return Err(format!(
            "format version {found}, this kingme reads version {version}"
        ));
    }
    Ok(())
}

/// Checks `payload` against the checksum stored at bytes `at..at + 8`.
pub(crate) fn check_checksum(bytes: &[u8], at: usize, payload: &[u8]) -> Result<(), String> {
    let mut stored = [0u8; 8];
    stored.copy_from_slice(&bytes[at..at + 8]);
    let (stored, actual) = (u64::from_le_bytes(stored), checksum(payload));
    if stored != actual {
        return Err(format!(
            "checksum {actual:016x} does not match the header's {stored:016x} (corrupted)"
        ));
    }
    Ok(())
}

impl LearnedWeights {
    /// All-zero weights.
    #[must_use]
    pub fn zero() -> LearnedWeights {
        LearnedWeights {
            generation: 0,
            w: vec![[0; 2]; FEATURES],
        }
    }

    /// The shipped weights (parsed once per process).
    #[must_use]
    pub fn builtin() -> Arc<LearnedWeights> {
        static W: OnceLock<Arc<LearnedWeights>> = OnceLock::new();
        Arc::clone(W.get_or_init(|| {
            Arc::new(
                LearnedWeights::from_bytes(BUILTIN, "builtin weights")
                    .expect("the embedded weights file is checked by the test suite"),
            )
        }))
    }

    /// The evaluation of an English `pos` for its side to move, in centi-men.
    #[inline]
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let o = Oriented::new(pos);
        let (mut full, mut bare) = (0i32, 0i32);
        let w = &self.w[..];
        for_each_feature(&o, |i, x| {
            // SAFETY-free bounds: `i < FEATURES == w.len()` by construction
            let [a, b] = w[i];
            full += x * i32::from(a);
            bare += x * i32::from(b);
        });
        let phase = o.pieces().min(PHASES);
        (full * phase + bare * (PHASES - phase)) / (PHASES * SCALE)
    }

    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.w.len() * 4);
        for [a, b] in &self.w {
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// The file contents.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&self.generation.to_le_bytes());
        out.extend_from_slice(&(self.w.len() as u32).to_le_bytes());
        out.extend_from_slice(&(SCALE as u32).to_le_bytes());
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Weights from file contents; `name` names the file in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<LearnedWeights, WeightsError> {
        let bad = |reason: String| WeightsError::Bad {
            path: name.to_string(),
            reason,
        };
        check_header(bytes, MAGIC, HEADER_LEN, FORMAT_VERSION, "weights").map_err(bad)?;
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let generation = u32_at(12);
        let features = u32_at(16) as usize;
        if features != FEATURES {
            return Err(bad(format!(
                "{features} features, this kingme has {FEATURES}"
            )));
        }
        let scale = u32_at(20);
        if scale != SCALE as u32 {
            return Err(bad(format!("scale {scale}, expected {SCALE}")));
        }
        let payload = &bytes[HEADER_LEN..];
        if payload.len() != features * 4 {
            return Err(bad(format!(
                "{} bytes of weights, expected {} (truncated or padded)",
                payload.len(),
                features * 4
            )));
        }
        check_checksum(bytes, 24, payload).map_err(bad)?;
        let w = payload
            .chunks_exact(4)
            .map(|c| {
                [
                    i16::from_le_bytes([c[0], c[1]]),
                    i16::from_le_bytes([c[2], c[3]]),
                ]
            })
            .collect();
        Ok(LearnedWeights { generation, w })
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<LearnedWeights, WeightsError> {
        let name = path.display().to_string();
        let len = (HEADER_LEN + FEATURES * 4) as u64;
        let bytes = crate::files::read_bounded(path, len).map_err(|source| WeightsError::Io {
            path: name.clone(),
            source,
        })?;
        LearnedWeights::from_bytes(&bytes, &name)
    }

    /// Writes a weights file: to a temporary name of this writer's own,
    /// synced, then renamed into place (two writers never mix their bytes).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let io = |source| WeightsError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = path.with_file_name(name);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| {
                f.write_all(&self.to_bytes())?;
                f.sync_all()
            })
            .and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // make the rename durable where a directory can be synced
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }

    /// The checksum of the weights, as written in the file header.
    #[must_use]
    pub fn checksum(&self) -> u64 {
        checksum(&self.payload())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_file_loads_and_round_trips() {
        let w = LearnedWeights::from_bytes(BUILTIN, "builtin").unwrap();
        assert_eq!(w.w.len(), FEATURES);
        assert_eq!(w.to_bytes(), BUILTIN);
    }

    #[test]
    fn a_damaged_file_is_refused_with_its_name() {
        let good = LearnedWeights::builtin().to_bytes();
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
            let e = LearnedWeights::from_bytes(&bytes, "x.kmw")
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
        let w = LearnedWeights::builtin();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..5 {
                        w.save(&path).unwrap();
                    }
                });
            }
        });
        assert_eq!(LearnedWeights::load(&path).unwrap().to_bytes(), BUILTIN);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["w.kmw"], "temporaries left behind");
        // a padded file is refused without reading past its format's size
        let mut padded = BUILTIN.to_vec();
        padded.push(0);
        std::fs::write(&path, padded).unwrap();
        let e = LearnedWeights::load(&path).unwrap_err().to_string();
        assert!(e.contains("larger than"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
