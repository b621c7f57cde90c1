//! The locks of a database build: `build.lock` for a whole build, shared by
//! one-slice builds that each hold their slice's `NAME.lock`, and the clean-up
//! of what a killed build left under the locks taken.

use super::Material;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// A lock that can't be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another build holds it.
    #[error("{0}: another build is running in this directory")]
    Locked(PathBuf),
    /// The lock file can't be opened or locked.
    #[error("database directory {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The locks a build holds on its directory (released when dropped, or when
/// the process ends however it ends): a whole build holds `build.lock`
/// alone; builds of one slice each (the jobs of a batch scheduler) share it,
/// each holding its slice's `NAME.lock` alone.
#[derive(Debug)]
pub struct DirLock {
    _files: Vec<File>,
}

impl DirLock {
    /// Takes `build.lock` of `dir` for a whole build, or fails at once.
    pub fn take(dir: &Path) -> Result<DirLock, LockError> {
        Ok(DirLock {
            _files: vec![lock_file(&dir.join("build.lock"), false)?],
        })
    }

    /// Takes `build.lock` of `dir` shared and `NAME.lock` of slice `mat`
    /// alone, for a build of that one slice, or fails at once.
    pub fn take_slice(dir: &Path, mat: Material) -> Result<DirLock, LockError> {
        Ok(DirLock {
            _files: vec![
                lock_file(&dir.join("build.lock"), true)?,
                lock_file(&dir.join(format!("{mat}.lock")), false)?,
            ],
        })
    }
}

/// Opens (creating it) and locks the file at `path`, shared or alone, or
/// fails at once.
fn lock_file(path: &Path, shared: bool) -> Result<File, LockError> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| LockError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let locked = if shared {
        file.try_lock_shared()
    } else {
        file.try_lock()
    };
    match locked {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(LockError::Locked(path.to_path_buf())),
        Err(TryLockError::Error(source)) => Err(LockError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Removes the temporary files an interrupted build left, of slice `only`
/// or of every slice (we hold their locks: nobody else is writing them).
pub(super) fn remove_stale_temporaries(dir: &Path, only: Option<Material>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ours = only.is_none_or(|m| name.starts_with(&format!("{m}.")));
        // the writer's temporary names, and those of earlier kingme builds
        let of = crate::checked_file::temporary_of(&name).or_else(|| name.strip_suffix(".tmp"));
        if ours && of.is_some_and(|f| f.ends_with(".wld") || f.ends_with(".dtc")) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_temporaries_of_the_slice_go() {
        let dir = std::env::temp_dir().join(format!("kingme-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let names = [
            "bm1bk0wm1wk0.wld.41.0.tmp",
            "bm1bk0wm1wk0.dtc.tmp",
            "bm1bk0wm1wk0.wld",
            "bm0bk1wm1wk0.dtc.41.1.tmp",
            "bm1bk0wm1wk0.kmw.41.2.tmp",
        ];
        for n in names {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
        let left = || {
            let mut v: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        remove_stale_temporaries(&dir, Some("bm1bk0wm1wk0".parse().unwrap()));
        assert_eq!(
            left(),
            [
                "bm0bk1wm1wk0.dtc.41.1.tmp",
                "bm1bk0wm1wk0.kmw.41.2.tmp",
                "bm1bk0wm1wk0.wld"
            ]
        );
        remove_stale_temporaries(&dir, None);
        assert_eq!(left(), ["bm1bk0wm1wk0.kmw.41.2.tmp", "bm1bk0wm1wk0.wld"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
