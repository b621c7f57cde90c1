//! Tournaments, resumed runs, shards and their merge, from the command line,
//! between real kingme engines at fixed nodes (one search thread: the same
//! games every time).

mod common;

use common::TempDir;
use kingme_referee::pdn::parse_pdn;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Three engines of very different strength: the same program searching
/// 30, 300 and 3000 nodes a move.
fn three_engines() -> Vec<String> {
    let k = format!("cmd:{}", common::kingme_bin().display());
    [
        "--engine".to_string(),
        format!("weak={k}"),
        "--engine".into(),
        format!("mid={k}"),
        "--engine".into(),
        format!("strong={k}"),
        "--nodes".into(),
        "300".into(),
        "--nodes-for".into(),
        "weak=30".into(),
        "--nodes-for".into(),
        "strong=3000".into(),
        "--quiet".into(),
    ]
    .to_vec()
}

fn referee(args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kingme-referee"));
    cmd.env_remove("KINGME_TOKEN").args(args);
    cmd
}

fn run(args: &[String], extra: &[&str], files: &[(&str, &Path)]) -> Output {
    let mut cmd = referee(args);
    cmd.args(extra);
    for (flag, path) in files {
        cmd.arg(flag).arg(path);
    }
    let out = cmd.output().expect("run kingme-referee");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("whole JSON")
}

/// The PDN without what differs from run to run: the times of the moves'
/// comments (`{+0.25/12 0.20s}` -> `{+0.25/12}`) and the dates.
fn games_only(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.starts_with("[Date ")) {
        let mut rest = line;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..=at]);
            let end = rest[at..].find('}').expect("closed comment") + at;
            let comment = &rest[at + 1..end];
            let words: Vec<&str> = comment
                .split_whitespace()
                .filter(|w| !(w.ends_with('s') && w[..w.len() - 1].parse::<f64>().is_ok()))
                .collect();
            out.push_str(&words.join(" "));
            rest = &rest[end..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// A round-robin of three engines plays `--games` games in each pairing,
/// half with each colour on each opening, and its Elo table ranks them by
/// the nodes they search. Then the same schedule in three shards, merged,
/// is the same run game for game.
#[test]
fn a_round_robin_ranks_three_engines_and_its_shards_merge_to_it() {
    let dir = TempDir::new("round-robin");
    let mut args = three_engines();
    args.extend(["--games".into(), "6".into()]);
    let (pdn, summary) = (dir.path("all.pdn"), dir.path("all.json"));
    let out = run(&args, &[], &[("--pdn", &pdn), ("--json", &summary)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = json(&summary);

    // 3 pairings of 6 games, both colours of each opening pair
    let names = ["weak", "mid", "strong"];
    let pairings = v["pairings"].as_array().unwrap();
    let firsts: Vec<(&str, &str)> = pairings
        .iter()
        .map(|p| (p["first"].as_str().unwrap(), p["second"].as_str().unwrap()))
        .collect();
    assert_eq!(
        firsts,
        [("weak", "mid"), ("weak", "strong"), ("mid", "strong")]
    );
    assert_eq!(v["games"], 18);
    let list = v["game_list"].as_array().unwrap();
    assert_eq!(list.len(), 18);
    let mut points = [0.0f64; 3];
    for (i, (first, second)) in firsts.iter().enumerate() {
        let games: Vec<&serde_json::Value> = list
            .iter()
            .filter(|g| g["pairing"].as_u64() == Some(i as u64))
            .collect();
        assert_eq!(games.len(), 6, "pairing {i}");
        assert_eq!(pairings[i]["games"], 6);
        for pair in games.chunks(2) {
            assert_eq!(pair[0]["opening"], pair[1]["opening"]);
            assert_eq!(pair[0]["black"].as_str(), Some(*first));
            assert_eq!(pair[1]["black"].as_str(), Some(*second));
            assert_eq!(pair[0]["white"], pair[1]["black"]);
        }
        for g in &games {
            let (black, white) = (g["black"].as_str().unwrap(), g["white"].as_str().unwrap());
            let idx = |n: &str| names.iter().position(|x| *x == n).unwrap();
            match g["result"].as_str().unwrap() {
                "2-0" => points[idx(black)] += 1.0,
                "0-2" => points[idx(white)] += 1.0,
                _ => {
                    points[idx(black)] += 0.5;
                    points[idx(white)] += 0.5;
                }
            }
        }
    }
    // the table: strongest first, each engine's games and score as the list says
    let rows = v["ratings"]["rows"].as_array().unwrap();
    let order: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(order, ["strong", "mid", "weak"], "{stdout}");
    for r in rows {
        let i = names.iter().position(|x| *x == r["name"]).unwrap();
        assert_eq!(r["games"], 12);
        assert!((r["score"].as_f64().unwrap() - points[i] / 12.0).abs() < 1e-9);
    }
    let weak = rows.iter().find(|r| r["name"] == "weak").unwrap();
    assert_eq!(weak["anchor"], true);
    assert_eq!(weak["elo"].as_f64(), Some(0.0));
    assert!(stdout.contains("  1. strong"), "{stdout}");
    assert!(stdout.contains("(anchor)"), "{stdout}");
    // the PDN names the engines
    let games = parse_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(games.len(), 18);
    for g in &games {
        assert_eq!(
            g.tag("Event"),
            Some("kingme-referee round-robin: weak, mid, strong")
        );
        assert!(names.contains(&g.tag("White").unwrap()));
        assert!(names.contains(&g.tag("Black").unwrap()));
    }

    // the same schedule as three shards, each with its state, then merged
    let mut states: Vec<PathBuf> = Vec::new();
    let mut shard_games = 0;
    for k in 1..=3 {
        let state = dir.path(&format!("state.{k}.json"));
        let shard = format!("{k}/3");
        run(&args, &["--shard", &shard], &[("--resume", &state)]);
        let s = json(&state);
        assert_eq!(s["shard"], shard.as_str());
        let n = s["games"].as_array().unwrap().len();
        // opening pairs 0, 1 and 2 (6 games a pairing): one a shard, its
        // 2 games in each of the 3 pairings
        assert_eq!(n, 6, "shard {k}");
        shard_games += n;
        states.push(state);
    }
    assert_eq!(shard_games, 18);
    let (merged_pdn, merged_json) = (dir.path("merged.pdn"), dir.path("merged.json"));
    let mut merge = vec!["merge".to_string()];
    merge.extend(states.iter().map(|p| p.display().to_string()));
    let out = run(
        &merge,
        &[],
        &[("--pdn", &merged_pdn), ("--json", &merged_json)],
    );
    let m = json(&merged_json);
    for key in ["games", "pairings", "ratings", "terminations", "faults"] {
        assert_eq!(m[key], v[key], "{key}");
    }
    assert_eq!(m["game_list"], v["game_list"]);
    assert_eq!(games_only(&merged_pdn), games_only(&pdn));
    let merged_stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        merged_stdout.contains("shards 1/3 2/3 3/3"),
        "{merged_stdout}"
    );
}

/// A run killed with SIGKILL in the middle leaves a state it resumes from,
/// and the resumed run is the uninterrupted run: the same totals, the same
/// games in the same order, openings, colours and moves.
#[cfg(unix)]
#[test]
fn a_run_killed_with_sigkill_resumes_to_the_uninterrupted_run() {
    let dir = TempDir::new("sigkill");
    let k = format!("cmd:{}", common::kingme_bin().display());
    let args: Vec<String> = [
        "--engine",
        &format!("a={k}"),
        "--engine",
        &format!("b={k}"),
        "--nodes",
        "400",
        "--games",
        "10",
        "--quiet",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    let (pdn, summary) = (dir.path("whole.pdn"), dir.path("whole.json"));
    run(&args, &[], &[("--pdn", &pdn), ("--json", &summary)]);

    let (state, pdn2, summary2) = (
        dir.path("state.json"),
        dir.path("resumed.pdn"),
        dir.path("resumed.json"),
    );
    let mut child = referee(&args)
        .arg("--resume")
        .arg(&state)
        .arg("--pdn")
        .arg(&pdn2)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run kingme-referee");
    // kill it once two games are in the state, while the third is played
    let deadline = Instant::now() + Duration::from_secs(120);
    let kept = loop {
        let n = std::fs::read_to_string(&state)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["games"].as_array().map(Vec::len))
            .unwrap_or(0);
        if n >= 2 {
            child.kill().expect("SIGKILL");
            break n;
        }
        assert!(Instant::now() < deadline, "no game in 120 s");
        std::thread::sleep(Duration::from_millis(5));
    };
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed");
    // whatever it was writing, the state is whole, with the games it had
    let s = json(&state);
    let stored = s["games"].as_array().unwrap().len();
    assert!(stored >= kept && stored < 10, "{stored} games kept");

    run(
        &args,
        &[],
        &[
            ("--resume", &state),
            ("--pdn", &pdn2),
            ("--json", &summary2),
        ],
    );
    let (whole, resumed) = (json(&summary), json(&summary2));
    for key in ["games", "pairings", "ratings", "game_list"] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    assert_eq!(games_only(&pdn2), games_only(&pdn));
    assert_eq!(json(&state)["games"].as_array().unwrap().len(), 10);
}

/// A state file is the run of one schedule: a command line that asks for
/// another, or for another shard, is refused and plays nothing; merging two
/// copies of one shard is refused.
#[test]
fn other_schedules_and_second_copies_of_a_shard_are_refused() {
    let dir = TempDir::new("refusals");
    let k = format!("cmd:{}", common::kingme_bin().display());
    let base: Vec<String> = [
        "--engine",
        &format!("a={k}"),
        "--engine",
        &format!("b={k}"),
        "--nodes",
        "200",
        "--quiet",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    let state = dir.path("state.1.json");
    run(
        &base,
        &["--games", "4", "--shard", "1/2"],
        &[("--resume", &state)],
    );
    let before = std::fs::read(&state).unwrap();

    let refused = |extra: &[&str]| {
        let out = referee(&base)
            .args(extra)
            .arg("--resume")
            .arg(&state)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?}");
        assert_eq!(std::fs::read(&state).unwrap(), before, "state untouched");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused(&["--games", "6", "--shard", "1/2"]);
    assert!(
        err.contains("holds another schedule") && err.contains("games: 4 there, 6 here"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let err = refused(&["--games", "4", "--shard", "1/2", "--option", "b:Level=easy"]);
    assert!(
        err.contains("engines: ") && err.contains("Level=easy"),
        "{err}"
    );
    let err = refused(&["--games", "4", "--shard", "2/2"]);
    assert!(err.contains("holds shard 1/2, not shard 2/2"), "{err}");

    let copy = dir.path("copy.json");
    std::fs::copy(&state, &copy).unwrap();
    let out = referee(&[
        "merge".to_string(),
        state.display().to_string(),
        copy.display().to_string(),
    ])
    .output()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("are both shard 1/2"), "{err}");
}
