//! A long `kingme datagen` run stopped by SIGTERM (or Ctrl-C) keeps every game
//! it played as whole records, prints its summary and exits cleanly, so that
//! `--append` continues it.
#![cfg(unix)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kingme-signals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Positions in a data file of `len` bytes (the header of the format's
/// version, 16 bytes each).
fn positions_of(len: u64) -> u64 {
    len.saturating_sub(kingme::datagen::record::HEADER_LEN as u64) / 16
}

#[test]
fn sigterm_ends_datagen_with_whole_games_and_a_summary() {
    let data = temp("stopped.kmd");
    let _ = std::fs::remove_file(&data);
    let mut child = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(["datagen", "--out"])
        .arg(&data)
        .args(["--positions", "100000000", "--nodes", "300"])
        .args(["--threads", "2", "--no-egdb", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kingme datagen");
    // wait for a few games on disk
    let start = Instant::now();
    loop {
        let len = std::fs::metadata(&data).map_or(0, |m| m.len());
        if positions_of(len) >= 300 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "datagen wrote {len} bytes in two minutes"
        );
        assert!(child.try_wait().unwrap().is_none(), "datagen ended early");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid has no memory effects
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "datagen still running a minute after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(stderr.contains("stopping"), "{stderr}");
    let len = std::fs::metadata(&data).unwrap().len();
    assert_eq!((len - 16) % 16, 0, "a torn record: {len} bytes");
    let records = kingme::datagen::record::read_file(&data).unwrap();
    assert_eq!(records.len() as u64, positions_of(len));
    assert!(records.len() >= 300, "{}", records.len());
    // the summary counts exactly what is in the file
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary: Vec<&str> = stdout.split_whitespace().collect();
    let at = summary
        .iter()
        .position(|w| *w == "positions")
        .unwrap_or_else(|| panic!("no summary: {stdout}"));
    assert_eq!(summary[at + 1], records.len().to_string(), "{stdout}");
    let _ = std::fs::remove_file(&data);
}
