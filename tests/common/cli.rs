//! Running the `kingme` binary as a user would, and its scratch directories.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `kingme ARGS` to its end, with no `KINGME_EGDB` from the caller's
/// environment.
pub fn kingme(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(args)
        .env_remove("KINGME_EGDB")
        .output()
        .expect("run kingme")
}

/// Runs `kingme ARGS` to its end with `input` on its stdin (its stderr
/// dropped), with no `KINGME_EGDB` from the caller's environment.
pub fn kingme_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(args)
        .env_remove("KINGME_EGDB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kingme");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write kingme's input");
    child.wait_with_output().expect("run kingme")
}

/// Runs `kingme egdb SUBCOMMAND ARGS --dir DIR` to its end, as [`kingme`].
pub fn kingme_egdb(subcommand: &str, args: &[&str], dir: &Path) -> Output {
    let dir = dir.to_str().expect("a UTF-8 path");
    kingme(&[&["egdb", subcommand], args, &["--dir", dir]].concat())
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
