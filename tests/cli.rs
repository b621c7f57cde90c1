//! The `kingme perft` / `divide` command line: the figures it prints (checked
//! against protocol/RULES.md, OEIS A133046), and one clear `error` line with a non-zero
//! exit for every bad argument.

use std::process::{Command, Output};

fn kingme(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(args)
        .output()
        .expect("run kingme")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `perft <depth> <count>` pairs of an output.
fn perft_lines(out: &str) -> Vec<(u32, u64)> {
    out.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("perft")).then_some(())?;
            Some((w.next()?.parse().ok()?, w.next()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn perft_prints_the_reference_figures_with_and_without_a_table() {
    let want = [(1, 7), (2, 49), (3, 302), (4, 1469), (5, 7361), (6, 36768)];
    for args in [&["perft", "6"][..], &["perft", "--hash", "1", "6"]] {
        let out = kingme(args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.contains("every capture path counted"), "{stdout}");
        assert_eq!(perft_lines(&stdout), want, "{args:?}: {stdout}");
    }
    // protocol/RULES.md's two-conventions position, both ways
    let fen = "W:WK7,30,31:B1,4,10,11,18,19";
    let all = kingme(&["perft", "--fen", fen, "4"]);
    assert_eq!(
        perft_lines(&text(&all.stdout)),
        [(1, 2), (2, 6), (3, 48), (4, 134)]
    );
    let distinct = kingme(&["perft", "--distinct", "--fen", fen, "4"]);
    let stdout = text(&distinct.stdout);
    assert!(stdout.contains("distinct moves counted"), "{stdout}");
    assert_eq!(perft_lines(&stdout), [(1, 1), (2, 3), (3, 24), (4, 67)]);
    // mini from the start, a pass counted as one move
    let mini = kingme(&["perft", "--variant", "mini", "5"]);
    assert_eq!(
        perft_lines(&text(&mini.stdout)),
        [(1, 5), (2, 25), (3, 106), (4, 369), (5, 1271)]
    );
}

#[test]
fn divide_lists_each_root_move_and_adds_up() {
    for args in [&["divide", "5"][..], &["divide", "--hash", "1", "5"]] {
        let out = kingme(args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let rows: Vec<(&str, u64)> = stdout
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("moves"))
            .map(|l| {
                let (m, n) = l.split_once(' ').expect("move count");
                (m, n.parse().expect("count"))
            })
            .collect();
        let mut moves: Vec<&str> = rows.iter().map(|r| r.0).collect();
        moves.sort_unstable();
        assert_eq!(
            moves,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 7361);
        assert!(stdout.contains("moves 7 total 7361"), "{stdout}");
    }
}

#[test]
fn bad_arguments_get_one_error_line_and_a_failure_exit() {
    let cases: &[&[&str]] = &[
        &["perft"],
        &["perft", "0"],
        &["perft", "31"],
        &["perft", "abc"],
        &["perft", "-3"],
        &["perft", "--fen", "nonsense", "3"],
        &["perft", "--fen", "B:W1:B1", "3"],
        &["perft", "--fen", "B:W33:B1", "3"],
        &["perft", "--variant", "chess", "3"],
        &["perft", "--variant", "mini", "--fen", "B:W1:B40", "3"],
        &["perft", "--hash", "99999999999", "3"],
        &["perft", "--hash", "lots", "3"],
        &["divide"],
        &["divide", "--fen", "W:WK:B1", "2"],
    ];
    for args in cases {
        let out = kingme(args);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(!out.status.success(), "{args:?} succeeded: {stdout}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: one line, got {stderr:?}");
        assert!(lines[0].starts_with("error"), "{args:?}: {stderr:?}");
        assert!(
            perft_lines(&stdout).is_empty(),
            "{args:?} counted: {stdout}"
        );
    }
}

#[test]
fn solve_prints_the_exact_value_of_a_mini_position_and_of_each_move() {
    // Black 8 against White 14, Black to move: 8-11 is taken by 14x7 and 8-12
    // by 14x9, so Black is gone after 2 plies whichever it plays.
    let out = kingme(&["solve", "--threads", "2", "--fen", "B:W14:B8"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    let first = lines.next().expect("a value line");
    assert!(first.starts_with("value loss 2 fen B:W14:B8 "), "{stdout}");
    assert!(first.contains(" threads 2 "), "{stdout}");
    let mut moves: Vec<&str> = lines.collect();
    moves.sort_unstable();
    assert_eq!(moves, ["8-11 loss 2", "8-12 loss 2"], "{stdout}");
    for bad in [
        &["solve", "--threads", "0"][..],
        &["solve", "--variant", "english"],
    ] {
        let out = kingme(bad);
        assert!(!out.status.success(), "{bad:?}");
        assert!(!text(&out.stderr).trim().is_empty(), "{bad:?}");
    }
}
