//! Running the `kingme` binary as a user would, and its scratch directories.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `kingme ARGS` to its end, with no `KINGME_EGDB` from the caller's
/// environment.
pub fn kingme(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(args)
        .env_remove("KINGME_EGDB")
        .output()
        .expect("run kingme")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch directory of this test process named by `tag`, not created,
/// emptied of an earlier run's files.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kingme-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
