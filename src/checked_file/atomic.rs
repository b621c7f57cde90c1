//! Writing a file whole or not at all: to a temporary name of the writer's
//! own in the same directory, synced, renamed over the file, and the
//! directory synced, so that a reader finds the old file or the new one,
//! never a part, and two writers never mix their bytes.

use super::FileError;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The suffix of every temporary file name.
const SUFFIX: &str = ".tmp";

/// Writes `parts`, in order, as the file `path` (see the module's doc);
/// on failure the temporary file is removed and `path` is as it was.
pub fn write_atomically<'a>(
    path: &Path,
    parts: impl IntoIterator<Item = &'a [u8]>,
) -> Result<(), FileError> {
    write_atomically_with(path, |w| {
        for p in parts {
            w.write_all(p).map_err(|e| FileError::io(path, e))?;
        }
        Ok(())
    })
}

/// Writes the file `path` as [`write_atomically`] does, its bytes from
/// `write` (which may fail with an error of its own, or name the file in a
/// [`FileError`]); on any failure the temporary file is removed and `path`
/// is as it was.
pub fn write_atomically_with<E: From<FileError>>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let tmp = temporary(path);
    let written = write_synced(path, &tmp, write)
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| FileError::io(path, e).into()));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(d) = File::open(dir) {
        // make the rename durable; not every platform can sync a directory
        let _ = d.sync_all();
    }
    Ok(())
}

/// Creates `tmp` (never an existing file), writes it with `write` and
/// syncs it; errors name `path`, the file it stands for.
fn write_synced<E: From<FileError>>(
    path: &Path,
    tmp: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let io = |e| FileError::io(path, e);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(io)?;
    let mut w = BufWriter::new(&mut f);
    write(&mut w)?;
    w.flush().map_err(io)?;
    drop(w);
    f.sync_all().map_err(io)?;
    Ok(())
}

/// A temporary name for `path` that no other writer uses:
/// `NAME.PROCESS.N.tmp` beside it.
fn temporary(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".{}.{}{SUFFIX}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    path.with_file_name(name)
}

/// The file name that `name`, a temporary file name of [`write_atomically`],
/// stands for (`x.kmw` for `x.kmw.41.0.tmp`); `None` for any other name.
#[must_use]
pub fn temporary_of(name: &str) -> Option<&str> {
    let rest = name.strip_suffix(SUFFIX)?;
    let (rest, n) = rest.rsplit_once('.')?;
    let (file, pid) = rest.rsplit_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(n) && digits(pid) && !file.is_empty()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kingme-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn concurrent_writers_leave_one_whole_file_and_no_temporary() {
        let dir = temp_dir("writers");
        let path = dir.join("f.bin");
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let path = &path;
                s.spawn(move || {
                    let body = vec![t; 100_000];
                    for _ in 0..5 {
                        write_atomically(path, [&b"head"[..], &body]).unwrap();
                    }
                });
            }
        });
        let got = fs::read(&path).unwrap();
        assert_eq!(got.len(), 100_004);
        assert!(got[4..].iter().all(|&b| b == got[4]), "bytes mixed");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.bin"], "temporaries left behind");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_write_names_the_file_and_leaves_nothing() {
        let dir = temp_dir("fail");
        let path = dir.join("missing").join("f.bin");
        let e = write_atomically(&path, [&b"x"[..]]).unwrap_err();
        assert_eq!(e.path(), path);
        assert!(fs::read_dir(&dir).unwrap().next().is_none());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_temporary_name_tells_its_file() {
        let t = temporary(Path::new("dir/bm1bk0wm1wk0.wld"));
        let name = t.file_name().unwrap().to_str().unwrap();
        assert_eq!(t.parent(), Some(Path::new("dir")));
        assert_eq!(temporary_of(name), Some("bm1bk0wm1wk0.wld"));
        assert_eq!(temporary_of("x.kmw.12.3.tmp"), Some("x.kmw"));
        for other in [
            "x.kmw",
            "x.kmw.tmp",
            "x.kmw.a.3.tmp",
            ".1.2.tmp",
            "x.1..tmp",
        ] {
            assert_eq!(temporary_of(other), None, "{other}");
        }
    }
}
