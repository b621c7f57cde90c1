//! The `EvalFile` option over stdio: a damaged weights file is one error line that
//! names the file, and the engine keeps the evaluation it had; a good file, `hand`
//! and `builtin` switch the evaluation that `eval` reports. Also the `kingme train`
//! `kingme datagen` and `kingme rescore` command lines on tiny runs.

mod common;

use common::{Conn, StdioChild, LINE_TIMEOUT};
use kingme::eval::patterns::features::SCALARS;
use kingme::eval::{evaluate_english, EnglishWeights, Network, PatternWeights};
use kingme::train::network::quantised_score;
use kingme::{Position, Variant};
use std::process::Command;

const FEN: &str = "B:W18,19,21,23,24,26,27,29,30,31,32:B1,2,3,5,6,7,9,10,11,12,14";

fn eval_line(c: &mut StdioChild) -> String {
    c.send("eval");
    c.recv(LINE_TIMEOUT).expect("an eval line")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kingme-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn eval_file_switches_the_evaluation_and_refuses_damaged_files() {
    let pos = Position::from_fen(Variant::English, FEN).unwrap();
    // a pattern file that differs from the builtin weights in the value of the
    // move, and whose score of FEN differs from the builtin network's (so the
    // switch shows)
    let mut changed = (*PatternWeights::builtin()).clone();
    let network_cp = kingme::eval::Network::builtin().evaluate(&pos);
    for _ in 0..4 {
        changed.w[SCALARS + 12][0] += 16 * 37;
        changed.w[SCALARS + 12][1] += 16 * 37;
        if changed.evaluate(&pos) != network_cp {
            break;
        }
    }
    let good = temp("good.kmw");
    changed.save(&good).unwrap();
    let mut bytes = changed.to_bytes();
    let n = bytes.len();
    bytes[n - 7] ^= 0x40;
    let corrupt = temp("corrupt.kmw");
    std::fs::write(&corrupt, &bytes).unwrap();
    let truncated = temp("truncated.kmw");
    std::fs::write(&truncated, &changed.to_bytes()[..1000]).unwrap();

    let mut c = StdioChild::spawn(&[]);
    c.send(&format!("position fen {FEN}"));
    let builtin = eval_line(&mut c);
    assert_eq!(
        builtin,
        format!(
            "eval score cp {}",
            kingme::eval::Network::builtin().evaluate(&pos)
        )
    );
    c.send(&format!("setoption name EvalFile value {}", good.display()));
    let switched = eval_line(&mut c);
    assert_eq!(
        switched,
        format!("eval score cp {}", changed.evaluate(&pos))
    );
    assert_ne!(switched, builtin);
    for (bad, why) in [
        (corrupt.display().to_string(), "checksum"),
        (truncated.display().to_string(), "truncated"),
        (
            "/nonexistent/kingme.kmw".to_string(),
            "/nonexistent/kingme.kmw",
        ),
    ] {
        c.send(&format!("setoption name EvalFile value {bad}"));
        let e = c.recv(LINE_TIMEOUT).unwrap();
        assert!(
            e.starts_with("error ") && e.contains(&bad) && e.contains(why),
            "{e}"
        );
        // the evaluation is the one loaded before
        assert_eq!(eval_line(&mut c), switched);
    }
    c.send("setoption name EvalFile value hand");
    assert_eq!(
        eval_line(&mut c),
        format!(
            "eval score cp {}",
            evaluate_english(&pos, &EnglishWeights::default())
        )
    );
    c.send("setoption name EvalFile value builtin");
    assert_eq!(eval_line(&mut c), builtin);
}

#[test]
fn datagen_then_train_write_files_that_load() {
    let data = temp("tiny.kmd");
    let weights = temp("tiny.kmw");
    let _ = std::fs::remove_file(&data);
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .output()
            .expect("run kingme")
    };
    let d = data.to_str().unwrap();
    // a small datagen run that must succeed, with `more` arguments
    let datagen = |positions: &str, more: &[&str]| {
        let mut args = vec!["datagen", "--out", d, "--positions", positions];
        args.extend_from_slice(&["--nodes", "300", "--threads", "1", "--quiet"]);
        args.extend_from_slice(more);
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    datagen("400", &[]);
    let records = kingme::datagen::record::read_file(&data).unwrap();
    assert!(records.len() >= 400, "{}", records.len());
    assert!(records.iter().all(|r| !r.position.must_capture()));
    // the file is not overwritten by accident
    let again = run(&["datagen", "--out", d, "--positions", "10", "--quiet"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    // continued in a second chunk, after a torn last record
    let mut bytes = std::fs::read(&data).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(&[0u8; 5]);
    std::fs::write(&data, &bytes).unwrap();
    // a book that can't be read: one error naming it, nothing written
    let nobook = temp("missing-book.kmb");
    let out = run(&[
        "datagen",
        "--out",
        d,
        "--append",
        "--positions",
        "700",
        "--book-starts",
        nobook.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing-book.kmb"));
    assert_eq!(std::fs::read(&data).unwrap().len(), whole + 5);
    // the continuation's games also start from the shipped book's positions
    let out = datagen("700", &["--append", "--book-starts", "shipped"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("this run"));
    let more = kingme::datagen::record::read_file(&data).unwrap();
    assert!(more.len() >= 700, "{}", more.len());
    assert_eq!(&more[..records.len()], &records[..]);
    assert!(std::fs::read(&data).unwrap().len() > whole);
    let w = weights.to_str().unwrap();
    let out = run(&["train", "--data", d, "--out", w, "--epochs", "2", "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let loaded = PatternWeights::load(&weights).unwrap();
    assert_eq!(loaded.generation, 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("checksum {:016x}", loaded.checksum())),
        "{stdout}"
    );
    // training data that is not data is refused with the file's name
    let out = run(&["train", "--data", w, "--out", w]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(w));

    // the network from the same data: it loads, the engine plays with it
    let net_path = temp("tiny.kmn");
    let n = net_path.to_str().unwrap();
    let out = run(&[
        "train", "--model", "network", "--data", d, "--out", n, "--epochs", "2", "--hidden", "16",
        "--dense", "8", "8", "--batch", "64", "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let net = Network::load(&net_path).unwrap();
    assert_eq!((net.hidden, net.l1, net.l2), (16, 8, 8));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("checksum {:016x}", net.checksum()))
    );
    let pos = Position::from_fen(Variant::English, FEN).unwrap();
    let mut c = StdioChild::spawn(&[]);
    c.send(&format!("setoption name EvalFile value {n}"));
    c.send(&format!("position fen {FEN}"));
    assert_eq!(
        eval_line(&mut c),
        format!("eval score cp {}", quantised_score(&net, &pos))
    );
    c.send("go depth 6");
    let best = std::iter::from_fn(|| c.recv(LINE_TIMEOUT))
        .find(|l| l.starts_with("bestmove"))
        .expect("a bestmove");
    assert!(
        best.starts_with("bestmove ") && !best.contains("none"),
        "{best}"
    );
    // a bad width is refused before any work
    let out = run(&[
        "train", "--model", "network", "--data", d, "--out", n, "--hidden", "20",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("multiple of 16"));
    // and so are too many buckets
    let out = run(&[
        "train",
        "--model",
        "network",
        "--data",
        d,
        "--out",
        n,
        "--buckets",
        "9",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("buckets 1 to 8"));
}

#[test]
fn endings_writes_known_positions_labelled_exactly() {
    use kingme::datagen::record::{read_file, SCORE_CLAMP};
    let data = temp("endings-in.kmd");
    let out = temp("endings-out.kmd");
    let empty = temp("endings-egdb");
    for f in [&data, &out] {
        let _ = std::fs::remove_file(f);
    }
    std::fs::create_dir_all(&empty).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .output()
            .expect("run kingme")
    };
    let (d, o, e) = (
        data.to_str().unwrap(),
        out.to_str().unwrap(),
        empty.to_str().unwrap(),
    );
    // games that end at the built-in 5 pieces, so their late positions have 6 or more
    let g = run(&[
        "datagen",
        "--out",
        d,
        "--positions",
        "400",
        "--nodes",
        "200",
        "--threads",
        "1",
        "--seed",
        "9",
        "--quiet",
    ]);
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let endings = ["endings", "--data", d, "--out", o, "--egdb", e, "--quiet"];
    // by default it keeps what the built-in databases do not hold: nothing to label here
    let none = run(&endings);
    assert!(!none.status.success());
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("at most 5 pieces") && err.contains(e), "{err}");
    assert!(!out.exists());
    let args = [&endings[..], &["--min-pieces", "5", "--walks", "8"]].concat();
    let r = run(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let line = String::from_utf8_lossy(&r.stdout).to_string();
    let got = read_file(&out).unwrap();
    assert!(!got.is_empty(), "{line}");
    assert!(
        line.contains(&format!("positions {} ", got.len())),
        "{line}"
    );
    let input: std::collections::HashSet<u64> = read_file(&data)
        .unwrap()
        .iter()
        .map(|r| r.position.hash())
        .collect();
    for r in &got {
        let p = &r.position;
        assert_eq!(p.occupied().count(), 5, "{}", p.to_fen());
        assert!(!p.must_capture() && !input.contains(&p.hash()));
        // a result for Black and a score for the side to move that agree
        let black = i32::from(r.result) - 1;
        let mover = if p.turn() == kingme::Color::Black {
            black
        } else {
            -black
        };
        assert_eq!(i32::from(r.score), mover * SCORE_CLAMP, "{}", p.to_fen());
    }
    // the same seed writes the same file; the output is not overwritten by accident
    let again = run(&args);
    assert!(!again.status.success());
    let forced = run(&[&args[..], &["--force"]].concat());
    assert!(forced.status.success());
    assert_eq!(read_file(&out).unwrap(), got);
}

#[test]
fn rescore_keeps_positions_and_results_and_continues_a_stopped_run() {
    use kingme::datagen::record::read_file;
    let data = temp("rescore-in.kmd");
    let other = temp("rescore-other.kmd");
    let out = temp("rescore-out.kmd");
    for f in [&data, &other, &out] {
        let _ = std::fs::remove_file(f);
    }
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .output()
            .expect("run kingme")
    };
    let ok = |args: &[&str]| {
        let o = run(args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let (d, o) = (data.to_str().unwrap(), out.to_str().unwrap());
    for (file, seed) in [(d, "5"), (other.to_str().unwrap(), "6")] {
        ok(&[
            "datagen",
            "--out",
            file,
            "--positions",
            "300",
            "--nodes",
            "200",
            "--threads",
            "1",
            "--seed",
            seed,
            "--quiet",
        ]);
    }
    let input = read_file(&data).unwrap();
    let rescore = [
        "rescore", "--data", d, "--out", o, "--nodes", "2000", "--quiet",
    ];
    // the first 100 positions, then the rest in a continued run
    let first = ok(&[&rescore[..], &["--positions", "100", "--threads", "1"]].concat());
    assert!(first.contains("positions 100 (+100 this run)"), "{first}");
    let rest = ok(&[&rescore[..], &["--append", "--threads", "2"]].concat());
    let n = input.len();
    assert!(
        rest.contains(&format!("positions {n} (+{} this run)", n - 100)),
        "{rest}"
    );
    let got = read_file(&out).unwrap();
    assert_eq!(got.len(), n);
    for (a, b) in got.iter().zip(&input) {
        assert_eq!((a.position, a.result), (b.position, b.result));
    }
    // ten times the nodes of the games' searches: some scores change
    assert!(got.iter().zip(&input).any(|(a, b)| a.score != b.score));
    // the output is not overwritten by accident
    let again = run(&rescore);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--append"));
    // a continuation of another file's rescoring is refused, naming the output
    let wrong = run(&[
        "rescore",
        "--data",
        other.to_str().unwrap(),
        "--out",
        o,
        "--append",
        "--quiet",
    ]);
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains(o) && err.contains("not a rescoring"), "{err}");
    assert_eq!(read_file(&out).unwrap(), got);
}

#[test]
fn a_damaged_network_file_is_refused_and_the_evaluation_kept() {
    let net = Network::random(4, 32, 8, 8, 2);
    let pos = Position::from_fen(Variant::English, FEN).unwrap();
    let good = temp("good.kmn");
    net.save(&good).unwrap();
    let bytes = net.to_bytes();
    let write = |name: &str, b: &[u8]| {
        let p = temp(name);
        std::fs::write(&p, b).unwrap();
        p.display().to_string()
    };
    let mut corrupt = bytes.clone();
    let n = corrupt.len();
    corrupt[n - 9] ^= 0x10;
    let mut version = bytes.clone();
    version[8] = 9;
    let mut buckets = bytes.clone();
    buckets[48] = 9;
    let mut reserved = bytes.clone();
    reserved[52] = 1;
    let mut ft_w = net.ft_w.to_vec();
    ft_w.iter_mut().take(32 * 24).for_each(|w| *w = 3000);
    let huge = Network {
        ft_w: ft_w.into(),
        ..net.clone()
    };
    let cases = [
        (write("corrupt.kmn", &corrupt), "checksum"),
        (
            write("truncated.kmn", &bytes[..bytes.len() - 100]),
            "truncated",
        ),
        (write("version.kmn", &version), "format version 9"),
        (write("buckets.kmn", &buckets), "x9 with scale"),
        (write("reserved.kmn", &reserved), "not zero"),
        (write("overflow.kmn", &huge.to_bytes()), "overflow"),
        (
            write("neither.kmn", b"hello, world: not a network at all"),
            "neither",
        ),
    ];
    let mut c = StdioChild::spawn(&[]);
    c.send(&format!("position fen {FEN}"));
    c.send(&format!("setoption name EvalFile value {}", good.display()));
    let loaded = eval_line(&mut c);
    assert_eq!(loaded, format!("eval score cp {}", net.evaluate(&pos)));
    for (bad, why) in &cases {
        c.send(&format!("setoption name EvalFile value {bad}"));
        let e = c.recv(LINE_TIMEOUT).unwrap();
        assert!(
            e.starts_with("error ") && e.contains(bad.as_str()) && e.contains(why),
            "{e}"
        );
        assert_eq!(eval_line(&mut c), loaded);
    }
    // the shipped network loads and is what `network` names
    c.send("setoption name EvalFile value network");
    assert_eq!(
        eval_line(&mut c),
        format!("eval score cp {}", Network::builtin().evaluate(&pos))
    );
}
