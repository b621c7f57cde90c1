//! Data files named from outside the program: which paths a network client
//! may name ([`FileAccess`]), and opening one safely (regular files only,
//! opened without blocking, read no further than their format allows).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Which server files a session may name in an option (`EvalFile`, `EGDBPath`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FileAccess {
    /// Any path (a local user on stdio).
    #[default]
    Any,
    /// Only paths that resolve (symlinks followed) inside one of these
    /// canonical directories; none at all when the list is empty.
    Within(Vec<PathBuf>),
}

/// Why a client may not name a path. The text is the same whether the path
/// exists or not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileRefused {
    /// The operator allows no files.
    #[error(
        "this server does not let clients name its files (its operator can allow a directory with --allow-files DIR)"
    )]
    NoFiles,
    /// The path is not a file or directory inside an allowed directory.
    #[error("'{0}' is not inside a directory this server allows (--allow-files)")]
    Outside(String),
}

impl FileAccess {
    /// Access to the given directories only: each is canonicalised (so it
    /// must exist).
    pub fn within<P: AsRef<Path>>(dirs: &[P]) -> io::Result<FileAccess> {
        let mut canon = Vec::with_capacity(dirs.len());
        for d in dirs {
            let d = d.as_ref();
            let c = d
                .canonicalize()
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", d.display())))?;
            if !c.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: not a directory", d.display()),
                ));
            }
            canon.push(c);
        }
        Ok(FileAccess::Within(canon))
    }

    /// The path to use for `text`, when this access allows it: `text` itself
    /// for [`FileAccess::Any`]; else its canonical form, which must lie inside
    /// an allowed directory (a relative path is taken from the first one).
    pub fn resolve(&self, text: &str) -> Result<PathBuf, FileRefused> {
        match self {
            FileAccess::Any => Ok(PathBuf::from(text)),
            FileAccess::Within(dirs) if dirs.is_empty() => Err(FileRefused::NoFiles),
            FileAccess::Within(dirs) => {
                let outside = || FileRefused::Outside(text.to_string());
                let p = Path::new(text);
                let p = if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    dirs[0].join(p)
                };
                let c = p.canonicalize().map_err(|_| outside())?;
                if dirs.iter().any(|d| c.starts_with(d)) {
                    Ok(c)
                } else {
                    Err(outside())
                }
            }
        }
    }

    /// Whether every path is allowed.
    #[must_use]
    pub fn is_any(&self) -> bool {
        matches!(self, FileAccess::Any)
    }
}

/// Opens `path` for reading without blocking (a FIFO or a device would block
/// an ordinary open) and makes sure it is a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let f = opts.open(path)?;
    if !f.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(f)
}

/// Reads the regular file at `path`, refusing one of more than `max` bytes
/// (and reading no more than that).
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than the {max} bytes its format allows"),
        )
    };
    let len = f.metadata()?.len();
    if len > max {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kingme-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("inner")).unwrap();
        std::fs::write(d.join("inner/w.kmw"), b"x").unwrap();
        d
    }

    #[test]
    fn a_path_is_allowed_only_inside_the_directories() {
        let d = scratch("policy");
        let access = FileAccess::within(&[d.join("inner")]).unwrap();
        let inner = d.join("inner").canonicalize().unwrap();
        assert_eq!(access.resolve("w.kmw"), Ok(inner.join("w.kmw")));
        let spelled = format!("{}/inner/../inner/w.kmw", d.display());
        assert_eq!(access.resolve(&spelled), Ok(inner.join("w.kmw")));
        // outside, existing or not: one text
        let outside = access.resolve(&format!("{}/inner/..", d.display()));
        let missing = access.resolve("/no/such/file");
        assert!(matches!(outside, Err(FileRefused::Outside(_))));
        assert!(matches!(missing, Err(FileRefused::Outside(_))));
        assert_eq!(
            outside
                .unwrap_err()
                .to_string()
                .replace(&d.display().to_string(), ""),
            "'/inner/..' is not inside a directory this server allows (--allow-files)"
        );
        assert_eq!(
            FileAccess::Within(Vec::new()).resolve("/etc/passwd"),
            Err(FileRefused::NoFiles)
        );
        assert_eq!(FileAccess::Any.resolve("x"), Ok(PathBuf::from("x")));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_directory_is_refused() {
        let d = scratch("link");
        std::os::unix::fs::symlink("/etc", d.join("inner/etc")).unwrap();
        let access = FileAccess::within(&[d.join("inner")]).unwrap();
        assert!(access.resolve("etc/hostname").is_err());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn fifos_devices_and_big_files_are_refused_without_blocking() {
        let d = scratch("fifo");
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_bounded(&fifo, 100).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file");
        assert!(read_bounded(Path::new("/dev/zero"), 100).is_err());
        assert!(read_bounded(&d, 100).is_err(), "a directory");
        std::fs::write(d.join("big"), [0u8; 101]).unwrap();
        assert!(read_bounded(&d.join("big"), 100).is_err());
        assert_eq!(read_bounded(&d.join("big"), 101).unwrap().len(), 101);
        let _ = std::fs::remove_dir_all(&d);
    }
}
