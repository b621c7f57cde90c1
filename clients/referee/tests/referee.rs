//! Matches against real kingme servers on loopback and against fake engines.

mod common;

use common::{disconnecting_engine, script_spec, Server, TempDir, ILLEGAL_ENGINE};
use kingme::board::Outcome;
use kingme::Variant;
use kingme_referee::game::{GameRecord, Score, Side, Termination, TimeControl};
use kingme_referee::pdn::parse_pdn;
use kingme_referee::runner::{run_match, MatchConfig, MatchReport, Progress};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Keeps every finished game, and checks each report so far against them.
#[derive(Default)]
struct Collect(Vec<GameRecord>);

impl Progress for Collect {
    fn game(&mut self, r: &GameRecord, report: &MatchReport) {
        self.0.push(r.clone());
        assert!(report.in_progress);
        check_consistent(report, &self.0, None);
    }
}

/// `kingme-referee --engine-a A --engine-b B`, with no `KINGME_TOKEN` from the
/// caller's environment.
fn referee(a: &str, b: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kingme-referee"));
    cmd.env_remove("KINGME_TOKEN")
        .args(["--engine-a", a, "--engine-b", b]);
    cmd
}

/// Runs `cmd`, which must fail; its stderr.
fn failure(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run kingme-referee");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A match of `games` between a fake engine that plays an illegal move (A,
/// given no options) and `server`.
fn illegal_against(server: &Server, dir: &TempDir, games: usize) -> MatchConfig {
    let fake = script_spec(dir, "illegal.sh", ILLEGAL_ENGINE);
    let mut cfg = config(&fake, &server.spec(), games, None);
    cfg.options_a.clear();
    cfg
}

fn config(a: &str, b: &str, games: usize, pdn: Option<PathBuf>) -> MatchConfig {
    MatchConfig {
        engine_a: a.parse().unwrap(),
        engine_b: b.parse().unwrap(),
        options_a: vec![("Level".into(), "easy".into())],
        options_b: vec![("Level".into(), "easy".into())],
        games,
        variant: Variant::English,
        tc: TimeControl::MoveTime(20),
        concurrency: 2,
        sprt: None,
        max_plies: 200,
        egdb: None,
        seed: 7,
        margin: Duration::from_millis(2000),
        setup_timeout: Duration::from_secs(20),
        pdn,
        event: "test".into(),
        interrupt: None,
    }
}

/// W/D/L and the pairs add up, each game's record agrees with the summary, and the PDN file
/// parses back to the same games, moves and results, legal by the kingme rules.
fn check_consistent(report: &MatchReport, games: &[GameRecord], pdn_text: Option<&str>) {
    let n = games.len();
    assert_eq!(report.games as usize, n);
    assert_eq!(report.game_list.len(), n);
    let (mut w, mut d, mut l) = (0, 0, 0);
    for g in games {
        match g.score() {
            Score::Win => w += 1,
            Score::Draw => d += 1,
            Score::Loss => l += 1,
        }
        let s = report
            .game_list
            .iter()
            .find(|s| s.round == g.round)
            .expect("every finished game in the list");
        assert_eq!(s.plies, g.moves.len());
        assert_eq!(s.result, g.outcome.pdn());
    }
    assert_eq!(
        (report.wdl.wins, report.wdl.draws, report.wdl.losses),
        (w, d, l)
    );
    assert!((report.score - (f64::from(w) + 0.5 * f64::from(d)) / n as f64).abs() < 1e-9);
    // pairs: rounds 2k-1 and 2k, counted by A's points over both
    let points = |round: usize| {
        games
            .iter()
            .find(|g| g.round == round)
            .map(|g| match g.score() {
                Score::Win => 2,
                Score::Draw => 1,
                Score::Loss => 0,
            })
    };
    let mut pairs = [0u32; 5];
    for first in (1..=n).step_by(2) {
        if let (Some(a), Some(b)) = (points(first), points(first + 1)) {
            pairs[a + b] += 1;
        }
    }
    assert_eq!(report.pentanomial.0, pairs);
    assert!(
        report.game_list.windows(2).all(|w| w[0].round < w[1].round),
        "game list by round"
    );
    let Some(text) = pdn_text else { return };
    let parsed = parse_pdn(text).expect("our PDN parses");
    assert_eq!(parsed.len(), n);
    for p in &parsed {
        let round: usize = p.tag("Round").unwrap().parse().unwrap();
        let g = games
            .iter()
            .find(|g| g.round == round)
            .expect("same rounds");
        assert_eq!(p.moves, g.moves, "round {round} moves");
        assert_eq!(p.result.as_deref(), Some(g.outcome.pdn()));
        assert_eq!(p.tag("Result"), Some(g.outcome.pdn()));
        assert_eq!(p.tag("Black"), Some(g.black.as_str()));
        assert_eq!(p.tag("White"), Some(g.white.as_str()));
        let game_type = match g.variant {
            Variant::English => "21",
            Variant::Mini => "99",
        };
        assert_eq!(p.tag("GameType"), Some(game_type));
        assert_eq!(p.tag("FEN"), g.fen.as_deref());
        for t in ["Event", "Site", "Date", "Round", "White", "Black", "Result"] {
            assert!(p.tag(t).is_some(), "tag {t}");
        }
        let replay = p.replay().expect("moves legal from the FEN");
        // A game ended by the rules, repetition or the 40-move rule ends there.
        match &g.termination {
            Termination::Rules { .. } | Termination::Repetition | Termination::FortyMoves => {
                assert_eq!(replay.result().map(|e| e.outcome), Some(g.outcome));
            }
            Termination::MaxPlies { plies } => {
                assert_eq!(replay.moves().len(), *plies);
                assert_eq!(g.outcome, Outcome::Draw);
            }
            other => assert!(other.fault().is_some()),
        }
    }
}

#[test]
fn short_match_between_two_servers() {
    let (a, b) = (Server::start(&[]), Server::start(&[]));
    let dir = TempDir::new("match");
    let pdn = dir.path("games.pdn");
    let cfg = config(&a.spec(), &b.spec(), 6, Some(pdn.clone()));
    let mut seen = Collect::default();
    let report = run_match(&cfg, &mut seen).expect("match runs");
    assert_eq!(report.games, 6);
    assert!(
        report.faults.is_empty(),
        "no faults: {:?}",
        report.game_list
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    check_consistent(&report, &seen.0, Some(&text));
    // Each ballot twice, colours swapped: rounds 1-2, 3-4, 5-6 share an opening.
    for pair in report.game_list.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        assert_ne!(pair[0].a_color, pair[1].a_color);
        assert!(pair[0].opening.starts_with("ACF "));
    }
}

#[test]
fn mini_match_with_a_game_clock_over_stdio() {
    let kingme = format!("cmd:{}", common::kingme_bin().display());
    let dir = TempDir::new("mini");
    let pdn = dir.path("mini.pdn");
    let mut cfg = config(&kingme, &kingme, 4, Some(pdn.clone()));
    cfg.variant = Variant::Mini;
    cfg.tc = TimeControl::Clock {
        base_ms: 2000,
        inc_ms: 20,
    };
    cfg.concurrency = 1;
    let mut seen = Collect::default();
    let report = run_match(&cfg, &mut seen).expect("match runs");
    assert!(report.faults.is_empty(), "{:?}", report.game_list);
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert!(text.contains("[GameType \"99\"]"));
    check_consistent(&report, &seen.0, Some(&text));
}

/// A match at a fixed number of nodes a move is the same match every time
/// (one search thread, no noise): the engines were sent `go nodes`, not a time.
#[test]
fn a_match_at_fixed_nodes_is_the_same_match_twice() {
    let kingme = format!("cmd:{}", common::kingme_bin().display());
    let mut cfg = config(&kingme, &kingme, 2, None);
    cfg.options_a.clear();
    cfg.options_b.clear();
    cfg.tc = TimeControl::Nodes(3000);
    cfg.concurrency = 1;
    let run = || {
        let mut seen = Collect::default();
        let report = run_match(&cfg, &mut seen).expect("match runs");
        assert!(report.faults.is_empty(), "{:?}", report.game_list);
        check_consistent(&report, &seen.0, None);
        assert_eq!(report.time_control, "3000 nodes a move");
        let mut games = seen.0;
        games.sort_by_key(|g| g.round);
        games.into_iter().map(|g| g.moves).collect::<Vec<_>>()
    };
    let first = run();
    assert!(first.iter().all(|m| m.len() > 10), "{first:?}");
    assert_eq!(first, run());
}

/// The limits a move may have are one at a time and positive, each refused
/// with a one-line reason.
#[test]
fn the_command_line_refuses_bad_or_clashing_move_limits() {
    for (args, why) in [
        (&["--nodes", "0"][..], "--nodes must be positive"),
        (&["--movetime", "0"][..], "--movetime must be positive"),
        (
            &["--nodes", "100", "--movetime", "20"][..],
            "cannot be used with",
        ),
        (
            &["--nodes", "100", "--tc", "10+0.1"][..],
            "cannot be used with",
        ),
        (&[][..], "give --movetime MS, --tc SECONDS+INC or --nodes N"),
    ] {
        let out = referee("cmd:kingme", "cmd:kingme")
            .args(args)
            .output()
            .expect("run kingme-referee");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
}

#[test]
fn illegal_moves_lose_and_the_match_goes_on() {
    let server = Server::start(&[]);
    let dir = TempDir::new("illegal");
    let cfg = illegal_against(&server, &dir, 4);
    let mut seen = Collect::default();
    let report = run_match(&cfg, &mut seen).expect("match runs");
    assert_eq!(report.wdl.losses, 4, "{:?}", report.game_list);
    assert_eq!(report.faults.get("A"), Some(&4));
    for g in &seen.0 {
        assert!(
            matches!(&g.termination, Termination::Illegal { by: Side::A, text, .. } if text == "1-2"),
            "{}",
            g.termination
        );
    }
    check_consistent(&report, &seen.0, None);
}

#[test]
fn disconnects_lose_and_the_match_goes_on() {
    let server = Server::start(&[]);
    let dir = TempDir::new("disconnect");
    // Handshake, options and newgame take 7 lines (preflight and per game);
    // the rest lets the engine play a few moves of its first game only.
    let fake = script_spec(&dir, "quitter.sh", &disconnecting_engine(16));
    let cfg = config(&server.spec(), &fake, 4, None);
    let mut seen = Collect::default();
    let report = run_match(&cfg, &mut seen).expect("match runs");
    assert_eq!(report.games, 4);
    assert_eq!(report.wdl.wins, 4, "{:?}", report.game_list);
    assert_eq!(report.faults.get("B"), Some(&4));
    let first = seen.0.iter().find(|g| g.round == 1).unwrap();
    // The first game was under way when B went away, and B's last words are quoted.
    assert!(!first.moves.is_empty(), "{}", first.termination);
    assert!(
        first
            .termination
            .to_string()
            .contains("its stderr ended: quitter: gave up after 16 lines"),
        "{}",
        first.termination
    );
    assert!(
        seen.0
            .iter()
            .all(|g| matches!(g.termination, Termination::Crash { by: Side::B, .. })),
        "{:?}",
        report.game_list
    );
    check_consistent(&report, &seen.0, None);
}

#[test]
fn command_line_writes_pdn_and_json() {
    // engine A wants a token: --token-a in the first run, KINGME_TOKEN in the second
    let server = Server::start(&["--token", "s3cret"]);
    let dir = TempDir::new("cli");
    let (pdn, json) = (dir.path("g.pdn"), dir.path("s.json"));
    let kingme = format!("cmd:{}", common::kingme_bin().display());
    let out = referee(&server.spec(), &kingme)
        .args(["--token-a", "s3cret"])
        .args(["--option-a", "Level=easy", "--option-b", "Level=easy"])
        .args([
            "--games",
            "2",
            "--movetime",
            "20",
            "--quiet",
            "--sprt",
            "0,50",
        ])
        .arg("--pdn")
        .arg(&pdn)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run kingme-referee");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("2 games (english, movetime 20 ms)"),
        "{stdout}"
    );
    assert!(stdout.contains("Elo difference (A - B)"), "{stdout}");
    assert!(stdout.contains("SPRT elo0=0 elo1=50"), "{stdout}");
    assert!(
        stdout.contains("pairs by A's points 0/0.5/1/1.5/2: ["),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let wdl = &v["wdl"];
    let total: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|k| wdl[k].as_u64().unwrap())
        .sum();
    assert_eq!(total, 2);
    assert_eq!(v["game_list"].as_array().unwrap().len(), 2);
    let pairs: u64 = v["pentanomial"]
        .as_array()
        .expect("pentanomial in the JSON")
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 1);
    let games = parse_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(games.len(), 2);
    let quiet_err = String::from_utf8_lossy(&out.stderr);
    assert!(!quiet_err.contains(" game 1/2 "), "--quiet: {quiet_err}");

    // Without --quiet and with standard error a pipe (a log), each game's
    // standing is a plain line there, since the bar draws nothing.
    let out = referee(&server.spec(), &kingme)
        .env("KINGME_TOKEN", "s3cret")
        .args(["--option-a", "Level=easy", "--option-b", "Level=easy"])
        .args(["--games", "2", "--movetime", "20"])
        .output()
        .expect("run kingme-referee");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for n in 1..=2 {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!(" game {n}/2 A +")) && l.contains("Elo")),
            "no line for game {n}: {err}"
        );
    }

    // A bad option stops the match before any game, with the engine's reason.
    let limits = ["--games", "2", "--movetime", "20"];
    let err = failure(
        referee(&server.spec(), &kingme)
            .env("KINGME_TOKEN", "s3cret")
            .args(["--option-a", "Level=godlike"])
            .args(limits),
    );
    assert!(err.contains("engine A") && err.contains("error"), "{err}");
    assert!(err.contains("Level"), "the refused option is named: {err}");

    // A wrong token stops it too, saying so (and never printing the token).
    let err = failure(
        referee(&server.spec(), &kingme)
            .args(["--token-a", "guess"])
            .args(limits),
    );
    assert!(
        err.contains("engine A") && err.contains("refused authentication"),
        "{err}"
    );
    assert!(!err.contains("guess"), "token printed: {err}");

    // A token that isn't one visible word is refused before anything is sent.
    let err = failure(
        referee(&server.spec(), &kingme)
            .args(["--token-a", "two words"])
            .args(limits),
    );
    assert!(err.contains("one word of visible characters"), "{err}");
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let server = Server::start(&[]);
    let dir = TempDir::new("sprt");
    let mut cfg = illegal_against(&server, &dir, 200);
    cfg.sprt = Some(kingme_referee::stats::Sprt::new(0.0, 10.0));
    let mut seen = Collect::default();
    let report = run_match(&cfg, &mut seen).expect("match runs");
    assert!(report.stopped_early, "{} games", report.games);
    assert!(report.games < 200);
    assert_eq!(
        report.sprt_decision,
        Some(kingme_referee::stats::SprtDecision::H0)
    );
    assert!(report.llr.unwrap() <= report.sprt.unwrap().bounds().0);
    check_consistent(&report, &seen.0, None);
}

/// An interrupt starts no more games: those under way finish and count, and
/// the report says the match was interrupted.
#[test]
fn an_interrupted_match_finishes_the_games_under_way_and_reports_them() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    struct StopAfterFirst(Collect, Arc<AtomicBool>);
    impl Progress for StopAfterFirst {
        fn game(&mut self, r: &GameRecord, report: &MatchReport) {
            self.0.game(r, report);
            self.1.store(true, Ordering::Relaxed);
        }
    }
    let server = Server::start(&[]);
    let mut cfg = config(&server.spec(), &server.spec(), 40, None);
    let flag = Arc::new(AtomicBool::new(false));
    cfg.interrupt = Some(Arc::clone(&flag));
    let mut seen = StopAfterFirst(Collect::default(), flag);
    let report = run_match(&cfg, &mut seen).expect("match runs");
    // concurrency 2: the first game to end stops the match, the other under way
    // finishes, and each worker may have started one more before it saw the stop
    assert!((1..=4).contains(&report.games), "{} games", report.games);
    assert!(report.interrupted && !report.stopped_early && !report.in_progress);
    check_consistent(&report, &seen.0 .0, None);
}

/// SIGTERM (as Ctrl-C) ends a match from the command line cleanly: the summary is
/// printed and the JSON, rewritten after every game, holds every finished game.
#[cfg(unix)]
#[test]
fn sigterm_ends_a_command_line_match_with_its_summary() {
    let server = Server::start(&[]);
    let dir = TempDir::new("sigterm");
    let (pdn, json) = (dir.path("g.pdn"), dir.path("s.json"));
    let child = referee(&server.spec(), &server.spec())
        .args(["--option-a", "Level=easy", "--option-b", "Level=easy"])
        .args(["--games", "400", "--movetime", "20", "--quiet"])
        .arg("--pdn")
        .arg(&pdn)
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kingme-referee");
    // wait for the first game's summary, then ask the referee to stop
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let progress = loop {
        if let Ok(text) = std::fs::read_to_string(&json) {
            break text;
        }
        assert!(std::time::Instant::now() < deadline, "no game in 120 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    let v: serde_json::Value = serde_json::from_str(&progress).expect("whole JSON");
    assert_eq!(v["in_progress"], true);
    assert!(v["games"].as_u64().unwrap() >= 1);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains("finishing the games under way"), "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = v["games"].as_u64().unwrap();
    assert!((1..400).contains(&games), "{games} games");
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["in_progress"], false);
    assert!(
        stdout.contains(&format!("interrupted after {games} of 400 games")),
        "{stdout}"
    );
    assert!(v["faults"].as_object().unwrap().is_empty(), "{v}");
    let played = parse_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(played.len() as u64, games);
}

/// `--adjudicate-egdb`: a game that reaches a position the databases know ends
/// there with their result, and the PDN's Termination tag says so.
#[test]
fn a_game_reaching_a_database_position_is_adjudicated_with_its_value() {
    use kingme::board::Position;
    use kingme_referee::game::{play_game, GameSetup, Player};
    use kingme_referee::openings::Opening;
    let tmp = TempDir::new("egdb");
    let dir = tmp.path("egdb");
    kingme::egdb::build(&kingme::egdb::BuildOptions {
        threads: 1,
        ..kingme::egdb::BuildOptions::new(dir.clone(), 3)
    })
    .unwrap();
    let mut tb = kingme::egdb::Tablebase::new();
    tb.add_directory(&dir).unwrap();
    // four pieces, Black must take 14x23: then three pieces, which the databases know
    let start = Position::from_fen(Variant::English, "B:WK18,K32:B14,K1").unwrap();
    let opening = Opening {
        name: "egdb test".into(),
        moves: Vec::new(),
        position: start,
    };
    let spec = format!("cmd:{}", common::kingme_bin().display());
    let mut players = [
        Player::new(spec.parse().unwrap(), Vec::new(), "a".into()),
        Player::new(spec.parse().unwrap(), Vec::new(), "b".into()),
    ];
    let setup = GameSetup {
        round: 1,
        variant: Variant::English,
        opening: &opening,
        a_color: kingme::Color::Black,
        tc: TimeControl::MoveTime(20),
        max_plies: 100,
        egdb: Some(&tb),
        margin: Duration::from_millis(2000),
        setup_timeout: Duration::from_secs(20),
    };
    let record = play_game(&mut players, &setup);
    assert_eq!(record.moves, ["14x23"], "{:?}", record.termination);
    let after = start.after(start.legal_moves()[0]);
    let want = match tb.probe_wdl(&after).unwrap() {
        kingme::egdb::Wdl::Win => Outcome::Win(after.turn()),
        kingme::egdb::Wdl::Loss => Outcome::Win(!after.turn()),
        kingme::egdb::Wdl::Draw => Outcome::Draw,
    };
    assert_eq!(record.outcome, want);
    assert_eq!(
        record.termination,
        Termination::Database {
            fen: after.to_fen()
        }
    );
    let pdn = kingme_referee::pdn::write_game(&record, "t", "2026.01.01");
    assert!(
        pdn.contains("[Termination \"adjudicated from the endgame database at W:WK32:BK1,23\"]"),
        "{pdn}"
    );
}
