//! `kingme egdb` on the command line: the 4-piece set built, verified and
//! knowing the textbook positions; slice-by-slice builds identical to the
//! one-shot build; and the faults: truncated and corrupted files, missing or
//! unwritable directories, a killed build restarted, two builds at once,
//! malformed FENs in a batch, probing from many threads; a line per slice
//! when the output is not a terminal.

mod common;

use common::cli::{kingme, kingme_egdb, kingme_with_input, temp_dir, text};
use kingme::board::{Position, Variant};
use kingme::egdb::{self, Material, Tablebase, Wdl};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// `kingme egdb build --quiet --threads 2 --pieces N --dir DIR`, run to its end.
fn build_cli(dir: &Path, pieces: u32) -> std::process::Output {
    let pieces = pieces.to_string();
    kingme_egdb(
        "build",
        &["--quiet", "--threads", "2", "--pieces", &pieces],
        dir,
    )
}

/// [`build_cli`], which must succeed.
fn build(dir: &Path, pieces: u32) {
    let out = build_cli(dir, pieces);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

fn probe(dir: &Path, fens: &[&str]) -> (Vec<String>, String) {
    let out = kingme_egdb("probe", fens, dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (
        text(&out.stdout).lines().map(str::to_string).collect(),
        text(&out.stderr),
    )
}

/// The slice files of `dir` and their bytes (none while `dir` does not exist yet).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<(String, Vec<u8>)> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wld") || n.ends_with(".dtc"))
        .map(|n| {
            let b = std::fs::read(dir.join(&n)).unwrap();
            (n, b)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn four_piece_set_verifies_knows_the_textbook_and_builds_the_same_slice_by_slice() {
    let dir = temp_dir("egdb-four");
    build(&dir, 4);
    // a sample of each larger slice: the full check of every position is
    // `verify` without `--sample` (the 3-piece test below runs it)
    let out = kingme_egdb("verify", &["--sample", "20000"], &dir);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("0 failed"), "{stdout}");
    assert!(stdout.contains("up to 4 pieces"), "{stdout}");
    // a slice with fewer positions than the sample is checked whole
    assert!(stdout.contains("bm1bk0wm1wk0 ok 1568\n"), "{stdout}");
    assert!(stdout.contains("bm1bk1wm1wk1 ok 20000\n"), "{stdout}");

    // textbook positions, both sides to move
    let cases = [
        ("W:W20,K15:B12,K28", "win"), // First Position
        ("B:W20,K15:B12,K28", "draw"),
        ("W:WK32:BK26", "win"), // king against king: the opposition
        ("B:WK32:BK26", "draw"),
        ("W:WK19,K23:BK32", "win"),
        ("B:WK19,K23:BK32", "loss"),
        ("W:WK1,K5:BK28", "win"),
    ];
    let fens: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let (lines, _) = probe(&dir, &fens);
    let want: Vec<String> = cases.iter().map(|(f, v)| format!("{f} {v}")).collect();
    assert_eq!(lines, want);

    // stats: every slice listed, wins, draws and losses add up to the positions
    let out = kingme_egdb("stats", &[], &dir);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), egdb::plan(4).len() + 2, "{stdout}");

    // slice by slice, each in its own process, in plan order, with a cache
    // of one MiB of decoded blocks (the smaller slices' blocks are evicted
    // and decoded again): identical files
    let out = kingme(&["egdb", "plan", "--pieces", "4"]);
    let plan: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(plan.len(), egdb::plan(4).len());
    let one = temp_dir("egdb-four-by-slice");
    for name in &plan {
        let args = ["--quiet", "--threads", "1", "--cache", "1", "--slice", name];
        let out = kingme_egdb("build", &args, &one);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    }
    assert_eq!(files(&one), files(&dir));
    let out = kingme_egdb("build", &["--cache", "0"], &one);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--cache"),
        "{}",
        text(&out.stderr)
    );

    // the set built into kingme holds these very files: its slices of up to
    // 4 pieces are what this build wrote
    let mut builtin: Vec<(String, Vec<u8>)> = egdb::pack::builtin()
        .unwrap()
        .iter()
        .filter(|p| p.slice.pieces() <= 4)
        .map(|p| {
            let ext = match p.kind {
                egdb::file::Kind::Values => "wld",
                egdb::file::Kind::Conversion => "dtc",
            };
            (format!("{}.{ext}", p.slice), p.bytes.to_vec())
        })
        .collect();
    builtin.sort();
    let fresh = files(&dir);
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&builtin), names(&fresh));
    for (b, f) in builtin.iter().zip(&fresh) {
        assert!(
            b.1 == f.1,
            "{}: the built-in file differs from a fresh build",
            b.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&one);
}

#[test]
fn a_build_whose_output_is_not_a_terminal_still_gives_a_line_per_slice() {
    // no --quiet: the progress bar draws nothing into a pipe, and the slices'
    // lines must not vanish with it
    let dir = temp_dir("egdb-piped-lines");
    let out = kingme_egdb("build", &["--threads", "1", "--pieces", "3"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let plan = egdb::plan(3);
    for slice in &plan {
        let want = format!("{slice} {} positions in ", slice.positions());
        assert!(
            stdout.lines().any(|l| l.starts_with(&want)),
            "no line for {slice}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!("built {} slices", plan.len())),
        "{stdout}"
    );
}

#[test]
fn plan_json_lists_dependencies_and_a_slice_needs_them() {
    let out = kingme(&["egdb", "plan", "--pieces", "3", "--json"]);
    let s = text(&out.stdout);
    assert!(s.starts_with('[') && s.trim_end().ends_with(']'), "{s}");
    assert!(
        s.contains(r#"{"name":"bm0bk2wm0wk1","pieces":3,"#)
            && s.contains(r#""depends":["bm0bk1wm0wk1"]"#),
        "{s}"
    );
    let dir = temp_dir("egdb-needs");
    let out = kingme_egdb("build", &["--quiet", "--slice", "bm0bk2wm0wk1"], &dir);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("needs slice bm0bk1wm0wk1") && err.contains("bm0bk1wm0wk1.wld"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_files_answer_unknown_with_one_error_naming_the_file_and_a_rebuild_repairs_them() {
    let dir = temp_dir("egdb-damaged");
    build(&dir, 3);
    let kk = "W:WK32:BK26"; // slice bm0bk1wm0wk1
    let kkk = "W:WK19,K23:BK32"; // slice bm0bk2wm0wk1 (mirrored)
    let (lines, _) = probe(&dir, &[kk, kkk]);
    assert_eq!(lines, [format!("{kk} win"), format!("{kkk} win")]);

    // truncated
    let f = dir.join("bm0bk1wm0wk1.wld");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() - 10]).unwrap();
    let (lines, err) = probe(&dir, &[kk, kk, kkk]);
    assert_eq!(
        lines,
        [
            format!("{kk} unknown"),
            format!("{kk} unknown"),
            format!("{kkk} win")
        ]
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("bm0bk1wm0wk1.wld") && err.contains("truncated"),
        "{err}"
    );

    // corrupted: one bit of data flipped
    let mut bad = bytes.clone();
    bad[100] ^= 4;
    std::fs::write(&f, &bad).unwrap();
    let (lines, err) = probe(&dir, &[kk]);
    assert_eq!(lines, [format!("{kk} unknown")]);
    assert!(
        err.contains("bm0bk1wm0wk1.wld") && err.contains("corrupted"),
        "{err}"
    );
    let out = kingme_egdb("verify", &[], &dir);
    assert!(!out.status.success());
    let s = text(&out.stdout);
    assert!(
        s.contains("bm0bk1wm0wk1 FAILED") && s.contains("bm0bk1wm0wk1.wld"),
        "{s}"
    );

    // a build keeps the good slices and rebuilds the damaged one, identically
    let out = build_cli(&dir, 3);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("built 1 slices"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read(&f).unwrap(), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_and_unwritable_directories_are_one_clear_error() {
    let dir = temp_dir("egdb-missing");
    let out = kingme_egdb("probe", &["W:WK32:BK26"], &dir);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains(dir.to_str().unwrap()),
        "{err}"
    );

    // a file where the directory should be
    let file = temp_dir("egdb-notadir");
    std::fs::write(&file, b"x").unwrap();
    let sub = file.join("egdb");
    let out = kingme_egdb("build", &["--quiet", "--pieces", "2"], &sub);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(sub.to_str().unwrap()), "{err}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_second_build_on_one_directory_is_refused() {
    let dir = temp_dir("egdb-locked");
    std::fs::create_dir_all(&dir).unwrap();
    let lock = egdb::build::DirLock::take(&dir).expect("first lock");
    let out = build_cli(&dir, 2);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("build.lock") && err.contains("another build"),
        "{err}"
    );
    assert!(files(&dir).is_empty());
    drop(lock);
    build(&dir, 2);
    assert_eq!(files(&dir).len(), 2 * egdb::plan(2).len());

    // one-slice builds (a scheduler's jobs) share the directory: another
    // slice builds beside a held slice, the same slice and a whole build don't
    build(&dir, 3);
    for name in ["bm1bk1wm0wk1", "bm0bk2wm1wk0"] {
        for ext in ["wld", "dtc"] {
            std::fs::remove_file(dir.join(format!("{name}.{ext}"))).unwrap();
        }
    }
    let held: Material = "bm0bk2wm1wk0".parse().unwrap();
    let lock = egdb::build::DirLock::take_slice(&dir, held).expect("slice lock");
    let slice_build = |name: &str| kingme_egdb("build", &["--quiet", "--slice", name], &dir);
    let out = slice_build("bm1bk1wm0wk1");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = slice_build("bm0bk2wm1wk0");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("bm0bk2wm1wk0.lock"),
        "{}",
        text(&out.stderr)
    );
    let out = build_cli(&dir, 3);
    assert!(
        text(&out.stderr).contains("build.lock"),
        "{}",
        text(&out.stderr)
    );
    drop(lock);
    let out = slice_build("bm0bk2wm1wk0");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_build_leaves_only_complete_files_and_resumes() {
    let dir = temp_dir("egdb-killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args([
            "egdb",
            "build",
            "--quiet",
            "--threads",
            "1",
            "--pieces",
            "4",
            "--dir",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // wait until some slices are done, then kill it mid-build
    let t = std::time::Instant::now();
    while files(&dir).len() < 10 && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = files(&dir);
    assert!(
        done.len() >= 10 && done.len() < 2 * egdb::plan(4).len(),
        "{}",
        done.len()
    );
    // every file with a final name opens
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).unwrap();
    for m in tb.slices() {
        tb.check_slice(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    let out = kingme_egdb("build", &["--quiet", "--pieces", "4"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(!s.contains("kept 0 complete"), "{s}");
    let out = kingme_egdb("verify", &["--sample", "2000"], &dir);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probe_reads_stdin_and_a_malformed_fen_does_not_stop_the_batch() {
    let dir = temp_dir("egdb-stdin");
    build(&dir, 3);
    let out = kingme_with_input(
        &["egdb", "probe", "--dir", dir.to_str().unwrap()],
        "W:WK32:BK26\nnonsense\nB:WK32:BK26\nW:WK10,K11,K12,K13:BK1\nB:W:BK1\nW:W1:B5\n",
    );
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[0], "W:WK32:BK26 win");
    assert!(
        lines[1].starts_with("error ") && lines[1].contains("nonsense"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "B:WK32:BK26 draw");
    assert_eq!(lines[3], "W:WK10,K11,K12,K13:BK1 unknown");
    assert_eq!(lines[4], "B:W:BK1 win");
    assert!(lines[5].starts_with("error "), "{}", lines[5]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probing_from_many_threads_gives_the_same_answers() {
    let dir = temp_dir("egdb-threads");
    egdb::build(&egdb::BuildOptions {
        threads: 1,
        ..egdb::BuildOptions::new(dir.clone(), 3)
    })
    .unwrap();
    let positions: Vec<Position> = egdb::plan(3)
        .into_iter()
        .flat_map(|m: Material| {
            let ix = egdb::index::SliceIndex::new(m);
            (0..ix.len()).step_by(7).filter_map(move |i| ix.position(i))
        })
        .collect();
    let single = {
        let mut tb = Tablebase::new();
        tb.add_directory(&dir).unwrap();
        positions
            .iter()
            .map(|p| tb.probe_wdl(p).unwrap())
            .collect::<Vec<Wdl>>()
    };
    // a fresh table opened lazily by four threads at once
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).unwrap();
    let tb = Arc::new(tb);
    let positions = Arc::new(positions);
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let (tb, positions) = (tb.clone(), positions.clone());
            std::thread::spawn(move || {
                let n = positions.len();
                (0..n)
                    .map(|i| (i + t * n / 4) % n)
                    .map(|i| (i, tb.probe_wdl(&positions[i]).unwrap()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        for (i, v) in h.join().unwrap() {
            assert_eq!(v, single[i]);
        }
    }
    let p = Position::from_fen(Variant::English, "B:WK32:BK26").unwrap();
    assert_eq!(tb.probe_wdl(&p).unwrap(), Wdl::Draw);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_probes_every_slice_and_counts_what_it_found() {
    let dir = temp_dir("egdb-bench");
    let empty = kingme_egdb("bench", &[], &dir);
    assert!(!empty.status.success());
    assert!(
        text(&empty.stderr).starts_with("error"),
        "{}",
        text(&empty.stderr)
    );
    build(&dir, 3);
    let out = kingme_egdb("bench", &["--probes", "5000"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].contains("(all of up to 3 pieces)"), "{}", lines[0]);
    let counts = |l: &str| -> Vec<u64> {
        let tail = &l[l.find("(win").unwrap()..];
        tail.split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect()
    };
    for l in &lines[1..] {
        assert!(l.contains("5000 probes") && l.contains("ns/probe"), "{l}");
        let c = counts(l);
        assert_eq!(c.len(), 4, "{l}");
        assert_eq!(c[0] + c[1] + c[2], 5000, "{l}");
        assert_eq!(c[3], 0, "no probe fails: {l}");
    }
    // values and values with distances agree
    assert_eq!(counts(lines[1]), counts(lines[2]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probes_that_do_not_wait_answer_loading_until_the_slice_is_read() {
    let dir = temp_dir("egdb-now");
    build(&dir, 3);
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).unwrap();
    let lasker = Position::from_fen(Variant::English, "W:WK32:BK26").unwrap();
    let three = Position::from_fen(Variant::English, "W:W20,K15:B12").unwrap();
    // nothing is read when the directory is added
    assert!(matches!(
        tb.probe_wdl_now(&lasker),
        Err(egdb::ProbeError::Loading(_))
    ));
    assert!(matches!(
        tb.best_move_now(&lasker),
        Err(egdb::ProbeError::Loading(_))
    ));
    // a waiting probe reads the slice; the other slices are still not read
    assert_eq!(tb.probe_wdl(&lasker).unwrap(), Wdl::Win);
    assert_eq!(tb.probe_wdl_now(&lasker).unwrap(), Wdl::Win);
    assert!(matches!(
        tb.probe_wdl_now(&three),
        Err(egdb::ProbeError::Loading(_))
    ));
    // preloading reads every values and distance file up to the piece count
    let bytes = tb.preload(2);
    assert!(bytes > 0);
    assert!(tb.probe_wdl_now(&three).is_err(), "3 pieces not preloaded");
    let all = tb.preload(3);
    assert!(all > bytes);
    assert_eq!(
        tb.probe_wdl_now(&three).unwrap(),
        tb.probe_wdl(&three).unwrap()
    );
    let (m, v) = tb.best_move_now(&lasker).unwrap().unwrap();
    assert_eq!((m, v), tb.best_move(&lasker).unwrap().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sound file whose value disagrees with the rules: one quiet won
/// position of king against king stored as a draw, written as a good
/// compact file (its checksum matches). Probing reads the wrong value;
/// `verify` names the slice as inconsistent (and the slices that capture
/// into it) and passes a slice that does not reach it in one move.
#[test]
fn verify_finds_a_value_that_disagrees_with_the_rules() {
    let dir = temp_dir("egdb-inconsistent");
    build(&dir, 3);
    let mat: Material = "bm0bk1wm0wk1".parse().unwrap();
    let ix = egdb::index::SliceIndex::new(mat);
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).unwrap();
    let (mut values, dtc) = egdb::convert::read_slice(mat, &tb).unwrap();
    let first_quiet = |want: Wdl| {
        (0..ix.len())
            .find(|&i| {
                ix.position(i).is_some_and(|p| {
                    egdb::compact::left_out(&p).is_none() && tb.probe_wdl(&p).unwrap() == want
                })
            })
            .unwrap()
    };
    let (win, draw) = (first_quiet(Wdl::Win), first_quiet(Wdl::Draw));
    let won = ix.position(win).unwrap();
    values[win as usize] = values[draw as usize];
    drop(tb);
    let source = egdb::convert::Unpacked {
        values: &values,
        dtc: &dtc,
    };
    egdb::convert::write_slice(&dir, mat, &source).unwrap();

    let mut tb = Tablebase::new();
    tb.add_directory(&dir).unwrap();
    tb.check_slice(mat).unwrap();
    assert_eq!(tb.probe_wdl(&won).unwrap(), Wdl::Draw);
    for args in [&[][..], &["--sample", "100000"][..]] {
        let out = kingme_egdb("verify", args, &dir);
        let s = text(&out.stdout);
        assert!(!out.status.success(), "{s}");
        assert!(
            s.contains("bm0bk1wm0wk1 FAILED") && s.contains("inconsistent"),
            "{s}"
        );
        assert!(s.contains("bm1bk0wm1wk0 ok 1568\n"), "{s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
