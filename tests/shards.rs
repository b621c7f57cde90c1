//! The long data jobs cut into shards on the command line: `kingme datagen
//! --shard K/N` and `kingme rescore --shard K/N`, each shard run on its own
//! as a batch job would, then `kingme merge-data` joins them into the file of
//! the unsharded run, byte for byte; a shard stopped and continued with
//! `--append` is the same shard; a corrupt input or a shard given twice is
//! refused by name.

mod common;

use common::cli::{kingme, temp_dir, text};
use kingme::datagen::record::{self, Header, HEADER_LEN, RECORD_LEN};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Runs `kingme ARGS`, which must succeed; its stdout.
fn ok(args: &[&str]) -> String {
    let out = kingme(args);
    assert!(
        out.status.success(),
        "kingme {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Runs `kingme ARGS`, which must fail; its stderr.
fn refused(args: &[&str]) -> String {
    let out = kingme(args);
    assert!(!out.status.success(), "kingme {args:?} succeeded");
    text(&out.stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// `kingme datagen` of 6 games at 200 nodes a move, seed 3, with `more`.
fn datagen(out: &Path, more: &[&str]) -> String {
    let args = [
        "datagen",
        "--out",
        s(out),
        "--games",
        "6",
        "--nodes",
        "200",
        "--seed",
        "3",
        "--quiet",
    ];
    ok(&[&args[..], more].concat())
}

#[test]
fn datagen_shards_merge_into_the_unsharded_run_and_a_continued_shard_is_the_same() {
    let d = temp_dir("shards-datagen");
    std::fs::create_dir_all(&d).unwrap();
    let whole = d.join("whole.kmd");
    let line = datagen(&whole, &["--threads", "2"]);
    assert!(line.contains("next game 6"), "{line}");
    let shards: Vec<PathBuf> = (1..=3).map(|k| d.join(format!("{k}.kmd"))).collect();
    for (k, p) in shards.iter().enumerate() {
        let shard = format!("{}/3", k + 1);
        let line = datagen(p, &["--threads", "1", "--shard", &shard]);
        assert!(line.contains(&format!("shard {shard}")), "{line}");
    }
    // each shard played its own two games: its header says how far it got
    for (k, p) in shards.iter().enumerate() {
        let (h, _) = record::read(p).unwrap();
        assert_eq!((h.shard.index(), h.shard.count()), (k as u32 + 1, 3));
        assert_eq!((h.whole, h.next_game), (6, 2 * (k as u64 + 1)));
    }
    // joined, in any order given: the unsharded run's file, no position twice
    let merged = d.join("merged.kmd");
    let line = ok(&[
        "merge-data",
        "--out",
        s(&merged),
        s(&shards[2]),
        s(&shards[0]),
        s(&shards[1]),
    ]);
    let want = std::fs::read(&whole).unwrap();
    assert!(std::fs::read(&merged).unwrap() == want, "{line}");
    let all = record::read_file(&merged).unwrap();
    let keys: HashSet<u64> = all.iter().map(|r| r.position.hash()).collect();
    assert_eq!(keys.len(), all.len());
    assert!(
        all.len() > 100,
        "six games hold more positions: {}",
        all.len()
    );

    // the second shard killed mid-game: a torn record, part of a game, and a
    // header that had not yet counted any game; continued, the same file
    let second = std::fs::read(&shards[1]).unwrap();
    let records = (second.len() - HEADER_LEN) / RECORD_LEN;
    let mut cut = second[..HEADER_LEN + RECORD_LEN * (records / 2)].to_vec();
    cut.extend_from_slice(&second[cut.len()..cut.len() + 7]);
    let (h, _) = record::read(&shards[1]).unwrap();
    let start = Header { next_game: 2, ..h };
    cut[..HEADER_LEN].copy_from_slice(&start.to_bytes());
    std::fs::write(&shards[1], &cut).unwrap();
    let e = refused(&[
        "merge-data",
        "--out",
        s(&d.join("early.kmd")),
        s(&shards[0]),
        s(&shards[1]),
        s(&shards[2]),
    ]);
    assert!(e.contains(s(&shards[1])) && e.contains("torn"), "{e}");
    // another seed or shard is not this file's run
    let e = refused(&[
        "datagen",
        "--out",
        s(&shards[1]),
        "--games",
        "6",
        "--shard",
        "3/3",
        "--seed",
        "3",
        "--append",
        "--quiet",
    ]);
    assert!(
        e.contains("--shard 2/3") && e.contains("continue it with those"),
        "{e}"
    );
    datagen(
        &shards[1],
        &["--threads", "2", "--shard", "2/3", "--append"],
    );
    assert!(std::fs::read(&shards[1]).unwrap() == second);

    // a shard needs the run's games, and its positions are its games'
    let e = refused(&["datagen", "--out", s(&d.join("x.kmd")), "--shard", "1/2"]);
    assert!(e.contains("--games"), "{e}");
    let e = refused(&[
        "datagen",
        "--out",
        s(&d.join("x.kmd")),
        "--games",
        "4",
        "--shard",
        "1/2",
        "--positions",
        "9",
    ]);
    assert!(e.contains("--positions"), "{e}");
    let e = refused(&[
        "datagen",
        "--out",
        s(&d.join("x.kmd")),
        "--games",
        "4",
        "--shard",
        "3/2",
    ]);
    assert!(e.contains("3/2"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn rescore_shards_merge_into_the_unsharded_rescoring_and_bad_inputs_are_refused_by_name() {
    let d = temp_dir("shards-rescore");
    std::fs::create_dir_all(&d).unwrap();
    let data = d.join("data.kmd");
    datagen(&data, &["--threads", "1"]);
    let rescore = |out: &Path, more: &[&str]| {
        let args = [
            "rescore",
            "--data",
            s(&data),
            "--out",
            s(out),
            "--nodes",
            "300",
            "--positions",
            "160",
            "--hash",
            "1",
            "--quiet",
        ];
        ok(&[&args[..], more].concat())
    };
    let whole = d.join("whole.kmd");
    rescore(&whole, &["--threads", "2"]);
    let (one, two) = (d.join("1.kmd"), d.join("2.kmd"));
    let line = rescore(&one, &["--shard", "1/2", "--threads", "1"]);
    assert!(line.contains("shard 1/2 (records 0..80)"), "{line}");
    // the second shard stopped after 40 records, then continued
    rescore(&two, &["--shard", "2/2", "--threads", "1"]);
    let full = std::fs::read(&two).unwrap();
    std::fs::write(&two, &full[..HEADER_LEN + 40 * RECORD_LEN]).unwrap();
    let merged = d.join("merged.kmd");
    let merge = |inputs: &[&Path]| {
        let mut args = vec!["merge-data", "--out", s(&merged), "--force"];
        args.extend(inputs.iter().map(|p| s(p)));
        kingme(&args)
    };
    let e = text(&merge(&[&one, &two]).stderr);
    assert!(
        e.contains(s(&two)) && e.contains("40 of its 80 records"),
        "{e}"
    );
    let line = rescore(&two, &["--shard", "2/2", "--threads", "2", "--append"]);
    assert!(line.contains("positions 80 (+40 this run)"), "{line}");
    assert!(std::fs::read(&two).unwrap() == full);
    // continuing it as the other shard is refused, naming it
    let e = refused(&[
        "rescore",
        "--data",
        s(&data),
        "--out",
        s(&two),
        "--positions",
        "160",
        "--shard",
        "1/2",
        "--append",
        "--quiet",
    ]);
    assert!(e.contains(s(&two)) && e.contains("not a rescoring"), "{e}");

    let out = merge(&[&two, &one]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = std::fs::read(&whole).unwrap();
    assert!(std::fs::read(&merged).unwrap() == want);
    // the scores are new: a deeper search than the games' changed some
    let input = record::read_file(&data).unwrap();
    let got = record::read_file(&merged).unwrap();
    assert_eq!(got.len(), 160);
    assert!(got
        .iter()
        .zip(&input)
        .all(|(a, b)| a.position == b.position));
    assert!(got.iter().zip(&input).any(|(a, b)| a.score != b.score));

    // a corrupt input: refused by name, the output as it was
    let mut bytes = std::fs::read(&one).unwrap();
    bytes[HEADER_LEN + 5 * RECORD_LEN + 13] = 3; // record 5: result 3
    let bad = d.join("bad.kmd");
    std::fs::write(&bad, &bytes).unwrap();
    let e = text(&merge(&[&bad, &two]).stderr);
    assert!(e.contains(s(&bad)) && e.contains("record 5"), "{e}");
    // one shard twice: refused naming both files
    let copy = d.join("copy.kmd");
    std::fs::copy(&one, &copy).unwrap();
    let e = text(&merge(&[&one, &two, &copy]).stderr);
    assert!(
        e.contains(s(&one)) && e.contains(s(&copy)) && e.contains("1/2 again"),
        "{e}"
    );
    assert!(std::fs::read(&merged).unwrap() == want);
    // the output is not overwritten by accident
    let e = refused(&["merge-data", "--out", s(&merged), s(&one), s(&two)]);
    assert!(e.contains("--force"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
