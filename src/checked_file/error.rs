//! [`FileError`]: why a data file can't be used. Every variant names the file.

use std::io;
use std::path::{Path, PathBuf};

/// A data file that can't be read or written; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading or writing failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// Shorter or longer than its header says.
    #[error("{}: truncated or padded: {found} bytes, expected {expected}", .path.display())]
    Size {
        /// The file.
        path: PathBuf,
        /// The length its format gives.
        expected: u64,
        /// Its length.
        found: u64,
    },
    /// Not a file of this kind: its first bytes are not the format's magic.
    #[error("{}: not a kingme {what} (no {} magic)", .path.display(), .magic.escape_ascii())]
    Magic {
        /// The file.
        path: PathBuf,
        /// The kind of file expected.
        what: &'static str,
        /// The magic expected.
        magic: &'static [u8; 8],
    },
    /// A version of the format this kingme does not read.
    #[error("{}: format version {found}, this kingme reads {}", .path.display(), versions(.reads))]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The versions this kingme reads.
        reads: &'static [u32],
    },
    /// A header field that this kingme can't use, or that disagrees with
    /// the file's name or another field.
    #[error("{}: bad header: {reason}", .path.display())]
    Header {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The data does not match the checksum in the header.
    #[error("{}: corrupted: checksum {found:016x}, header says {expected:016x}", .path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
        /// From the header.
        expected: u64,
        /// Of the data read.
        found: u64,
    },
    /// One block of a file read in blocks does not match its checksum, or
    /// does not decode.
    #[error("{}: corrupted block {block}", .path.display())]
    Block {
        /// The file.
        path: PathBuf,
        /// The block.
        block: u64,
    },
    /// The data, its checksum right, breaks a rule of its format.
    #[error("{}: {reason}", .path.display())]
    Content {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl FileError {
    /// A failed read or write of `path`.
    #[must_use]
    pub fn io(path: &Path, source: io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A header field of `path` that can't be used.
    #[must_use]
    pub fn header(path: &Path, reason: impl Into<String>) -> FileError {
        FileError::Header {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// Data of `path` that breaks its format's rules.
    #[must_use]
    pub fn content(path: &Path, reason: impl Into<String>) -> FileError {
        FileError::Content {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// `path` is `found` bytes long where its format gives `expected`.
    #[must_use]
    pub fn size(path: &Path, expected: u64, found: u64) -> FileError {
        FileError::Size {
            path: path.to_path_buf(),
            expected,
            found,
        }
    }

    /// The file the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            FileError::Io { path, .. }
            | FileError::Size { path, .. }
            | FileError::Magic { path, .. }
            | FileError::Version { path, .. }
            | FileError::Header { path, .. }
            | FileError::Checksum { path, .. }
            | FileError::Block { path, .. }
            | FileError::Content { path, .. } => path,
        }
    }
}

/// `version 1`, `versions 3 and 4`, `versions 1, 2 and 3`.
fn versions(v: &[u32]) -> String {
    match v {
        [] => "no version".into(),
        [one] => format!("version {one}"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u32::to_string).collect();
            format!("versions {} and {last}", init.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_file() {
        let p = Path::new("dir/x.bin");
        let errors = [
            FileError::io(p, io::Error::other("disk on fire")),
            FileError::size(p, 64, 3),
            FileError::Magic {
                path: p.into(),
                what: "book",
                magic: b"KMBOOK\r\n",
            },
            FileError::Version {
                path: p.into(),
                found: 9,
                reads: &[1, 3, 4],
            },
            FileError::header(p, "kind 7"),
            FileError::Checksum {
                path: p.into(),
                expected: 1,
                found: 2,
            },
            FileError::Block {
                path: p.into(),
                block: 5,
            },
            FileError::content(p, "entry 3 out of order"),
        ];
        for e in &errors {
            let text = e.to_string();
            assert!(text.starts_with("dir/x.bin: "), "{text}");
            assert!(!text.contains(['\r', '\n']), "one line: {text:?}");
            assert_eq!(e.path(), p);
        }
        assert_eq!(
            errors[2].to_string(),
            r"dir/x.bin: not a kingme book (no KMBOOK\r\n magic)"
        );
        assert_eq!(
            errors[3].to_string(),
            "dir/x.bin: format version 9, this kingme reads versions 1, 3 and 4"
        );
        assert_eq!(versions(&[1]), "version 1");
        assert_eq!(versions(&[3, 4]), "versions 3 and 4");
    }
}
