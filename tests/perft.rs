//! Perft against independent figures kept in data files.
//!
//! Every `tests/perft/*.perft` file is read and every `perft N count` line in it is
//! checked with `kingme::perft::perft` (the default run); `tests/perft/deep/*.perft`
//! (English start, depths 11-15) is checked by an ignored test, run it with
//! `cargo test --release -- --ignored`.
//!
//! Where the expected numbers come from is written at the top of each data file:
//! protocol/RULES.md's reference figures (OEIS A133046 for the English start), and pydraughts
//! 0.6.7 (an independent Python implementation, via tests/interop/pydraughts_perft.py)
//! for the hand-made English positions. None of them is kingme's own output.
//!
//! Format: `variant english|mini`, `fen <FEN>` or `fen startpos`,
//! `counting all|distinct`, then `perft N count` lines; `#` starts a comment; a
//! blank line or a new `variant` line starts a new case. A case's defaults are
//! English, the start position and every capture path counted.
//!
//! Beyond the listed counts, each case also checks that `perft::divide` at its
//! deepest cheap depth adds up to the same total, that `divide` lists exactly the
//! root moves of the chosen convention, and that distinct counts never exceed
//! every-path counts.

use kingme::board::{Position, Variant};
use kingme::perft::{self, Counting};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One case of a data file.
#[derive(Debug, Clone)]
struct Case {
    file: String,
    line: usize,
    variant: Variant,
    fen: Option<String>,
    counting: Counting,
    expect: Vec<(u32, u64, usize)>,
}

impl Case {
    fn new(file: &str, line: usize) -> Case {
        Case {
            file: file.to_string(),
            line,
            variant: Variant::English,
            fen: None,
            counting: Counting::AllPaths,
            expect: Vec::new(),
        }
    }

    fn position(&self) -> Position {
        match &self.fen {
            None => Position::startpos(self.variant),
            Some(f) => Position::from_fen(self.variant, f).unwrap_or_else(|e| {
                panic!("{}:{}: bad fen: {e}", self.file, self.line);
            }),
        }
    }

    fn label(&self) -> String {
        format!(
            "{}:{} {} {} {}",
            self.file,
            self.line,
            self.variant,
            self.fen.as_deref().unwrap_or("startpos"),
            match self.counting {
                Counting::AllPaths => "all",
                Counting::Distinct => "distinct",
            }
        )
    }
}

/// Reads a data file into cases; panics with file:line on any malformed line.
fn parse_file(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("can't read {}: {e}", path.display()));
    let name = path.display().to_string();
    let mut cases = Vec::new();
    let mut cur: Option<Case> = None;
    let mut touched = false;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        let is_blank_raw = raw.trim().is_empty();
        if is_blank_raw {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
            touched = false;
            continue;
        }
        if line.is_empty() {
            continue; // a comment line
        }
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        if key == "variant" && touched {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
        }
        let case = cur.get_or_insert_with(|| Case::new(&name, lineno));
        touched = true;
        let bad = |what: &str| -> ! { panic!("{name}:{lineno}: {what}: '{raw}'") };
        match key {
            "variant" => {
                case.variant = rest.parse().unwrap_or_else(|_| bad("unknown variant"));
            }
            "fen" => {
                if rest.is_empty() {
                    bad("empty fen");
                }
                case.fen = if rest == "startpos" {
                    None
                } else {
                    Some(rest.to_string())
                };
            }
            "counting" => {
                case.counting = match rest {
                    "all" => Counting::AllPaths,
                    "distinct" => Counting::Distinct,
                    _ => bad("counting must be all or distinct"),
                };
            }
            "perft" => {
                let mut it = rest.split_whitespace();
                let depth: u32 = it
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or_else(|| bad("bad depth"));
                let count: u64 = it
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or_else(|| bad("bad count"));
                if it.next().is_some() {
                    bad("trailing text");
                }
                case.expect.push((depth, count, lineno));
            }
            _ => bad("unknown keyword"),
        }
    }
    if let Some(c) = cur.take() {
        cases.push(c);
    }
    for c in &cases {
        // A case made only of settings is a mistake in the file, not something to skip.
        assert!(
            !c.expect.is_empty(),
            "{}:{}: case without perft lines",
            c.file,
            c.line
        );
    }
    cases
}

fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("can't list {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "perft"))
        .collect();
    files.sort();
    files
}

fn perft_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("perft")
}

/// Runs every case of `files`; returns (lines checked, failure report).
fn run_files(files: &[PathBuf], extra_checks: bool) -> (usize, String) {
    let mut checked = 0;
    let mut failures = String::new();
    for path in files {
        for case in parse_file(path) {
            let pos = case.position();
            println!("case {}", case.label());
            for &(depth, want, lineno) in &case.expect {
                let t = Instant::now();
                let got = perft::perft(&pos, depth, case.counting);
                let ok = got == want;
                println!(
                    "  perft {depth} {got} (expected {want}, line {lineno}) {} {:.3}s",
                    if ok { "ok" } else { "MISMATCH" },
                    t.elapsed().as_secs_f64()
                );
                if !ok {
                    let _ = writeln!(
                        failures,
                        "{}:{lineno}: perft {depth} of {}: expected {want}, got {got}",
                        case.file,
                        case.label()
                    );
                }
                checked += 1;
            }
            if extra_checks {
                cross_checks(&case, &pos, &mut failures);
            }
        }
    }
    (checked, failures)
}

/// Internal consistency: divide adds up, its root moves are the right list, the
/// table of subtree counts (`--hash`) changes no count, and distinct <= all at
/// each listed depth (cheap depths only).
fn cross_checks(case: &Case, pos: &Position, failures: &mut String) {
    let cheap: Vec<_> = case
        .expect
        .iter()
        .filter(|&&(_, n, _)| n <= 2_000_000)
        .collect();
    let Some(&&(depth, want, _)) = cheap.iter().max_by_key(|e| e.0) else {
        return;
    };
    let rows = perft::divide(pos, depth, case.counting);
    let total: u64 = rows.iter().map(|r| r.1).sum();
    if total != want {
        let _ = writeln!(
            failures,
            "{}: divide {depth} adds up to {total}, expected {want}",
            case.label()
        );
    }
    let roots = match case.counting {
        Counting::AllPaths => pos.legal_moves_all_paths(),
        Counting::Distinct => pos.legal_moves(),
    };
    let listed: Vec<String> = rows.iter().map(|r| r.0.to_string()).collect();
    let expected: Vec<String> = roots.iter().map(|m| m.to_string()).collect();
    if listed != expected {
        let _ = writeln!(
            failures,
            "{}: divide roots {listed:?} differ from legal moves {expected:?}",
            case.label()
        );
    }
    if case.counting == Counting::AllPaths {
        // `--hash`: the table of subtree counts (shared across depths, as the CLI
        // does) changes nothing, nor does it in divide
        let mut table = perft::PerftTable::new(1);
        for &&(d, want, _) in &cheap {
            let got = perft::perft_with_table(pos, d, &mut table);
            if got != want {
                let _ = writeln!(
                    failures,
                    "{}: perft {d} with a table: {got}, expected {want}",
                    case.label()
                );
            }
        }
        // a fresh table, so divide's subtrees are counted, not just looked up
        let mut fresh = perft::PerftTable::new(1);
        let (mut total, mut lefts) = (0, Vec::new());
        perft::divide_each(pos, depth, case.counting, Some(&mut fresh), |_, n, left| {
            total += n;
            lefts.push(left);
        });
        let countdown: Vec<usize> = (0..lefts.len()).rev().collect();
        if total != want || lefts != countdown {
            let _ = writeln!(
                failures,
                "{}: divide {depth} with a table adds up to {total} (expected {want}), \
                 moves left {lefts:?}",
                case.label()
            );
        }
    }
    for &&(d, _, _) in &cheap {
        let all = perft::perft(pos, d, Counting::AllPaths);
        let distinct = perft::perft(pos, d, Counting::Distinct);
        if distinct > all {
            let _ = writeln!(
                failures,
                "{}: depth {d}: distinct {distinct} > all paths {all}",
                case.label()
            );
        }
    }
}

#[test]
fn perft_data_files() {
    let files = data_files(&perft_dir());
    assert!(
        files.len() >= 3,
        "expected the perft data files in {}, found {files:?}",
        perft_dir().display()
    );
    let t = Instant::now();
    let (checked, failures) = run_files(&files, true);
    println!(
        "checked {checked} perft lines from {} files in {:.2}s",
        files.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(checked >= 50, "only {checked} perft lines found");
    assert!(failures.is_empty(), "perft mismatches:\n{failures}");
}

#[test]
#[ignore = "deep perft: run with cargo test --release -- --ignored"]
fn perft_deep_data_files() {
    let files = data_files(&perft_dir().join("deep"));
    assert!(!files.is_empty(), "no deep perft data files");
    let t = Instant::now();
    let (checked, failures) = run_files(&files, false);
    println!(
        "checked {checked} deep perft lines in {:.2}s",
        t.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "perft mismatches:\n{failures}");
}

/// The reader itself: settings carry over within a case, and blank lines or a new
/// `variant` split cases.
#[test]
fn data_file_reader() {
    let dir = std::env::temp_dir().join(format!("kingme-perft-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("x.perft");
    std::fs::write(
        &path,
        "# c\nvariant mini\nperft 1 5 # trailing\nvariant english\nfen W:WK7:B1\n\
         counting distinct\nperft 2 9\n\nperft 1 7\n",
    )
    .expect("write");
    let cases = parse_file(&path);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(cases.len(), 3, "{cases:?}");
    assert_eq!(cases[0].variant, Variant::Mini);
    assert_eq!(cases[0].expect, vec![(1, 5, 3)]);
    assert_eq!(cases[1].fen.as_deref(), Some("W:WK7:B1"));
    assert_eq!(cases[1].counting, Counting::Distinct);
    assert_eq!(cases[2].variant, Variant::English);
    assert!(cases[2].fen.is_none());
    assert_eq!(cases[2].counting, Counting::AllPaths);
}
