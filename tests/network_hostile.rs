//! The TCP server against hostile clients, over real loopback sockets: the
//! file policy, FIFOs and devices as data files, the hash budget, searches
//! that must end, perft as a stoppable search, the auth deadline, the
//! per-address cap, and the token from the environment or a file (one
//! database directory under many spellings: tests/egdb_spellings.rs).

mod common;

use common::{
    answer, expect_line, scratch, server_with, threads_named, wait_until, Conn, Server, Tcp,
    LINE_TIMEOUT,
};
use kingme::files::FileAccess;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Reads lines until one starts with `prefix`; returns it.
fn until(c: &mut dyn Conn, prefix: &str) -> String {
    common::until(c, prefix).1
}

#[test]
fn clients_name_no_server_file_unless_the_operator_allows_its_directory() {
    let allowed = scratch("allowed");
    let outside = scratch("outside");
    kingme::eval::PatternWeights::builtin()
        .save(&allowed.join("w.kmw"))
        .unwrap();
    kingme::eval::PatternWeights::builtin()
        .save(&outside.join("w.kmw"))
        .unwrap();
    // no --allow-files: one text for every path, existing or not
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    let mut texts = Vec::new();
    for (name, path) in [
        ("EvalFile", outside.join("w.kmw")),
        ("EvalFile", outside.join("missing.kmw")),
        ("EvalFile", PathBuf::from("/dev/stdin")),
        ("EGDBPath", outside.clone()),
        ("EGDBPath", outside.join("nope")),
    ] {
        let got = answer(
            &mut c,
            &format!("setoption name {name} value {}", path.display()),
        );
        assert_eq!(got.len(), 1, "{got:?}");
        texts.push(got[0].replace(name, "X"));
    }
    assert!(
        texts[0].starts_with("error setoption: X: this server does not let clients name its files"),
        "{texts:?}"
    );
    assert!(texts.iter().all(|t| *t == texts[0]), "{texts:?}");
    // keywords are not files
    assert!(answer(&mut c, "setoption name EvalFile value hand").is_empty());
    assert!(answer(&mut c, "setoption name EvalFile value builtin").is_empty());
    drop(c);
    drop(server);

    let server = server_with(|c| c.session.files = FileAccess::within(&[&allowed]).unwrap());
    let mut c = Tcp::connect_greeted(server.addr);
    // inside: taken, by absolute path, relative path or another spelling
    for v in [
        allowed.join("w.kmw").display().to_string(),
        "w.kmw".to_string(),
        format!(
            "{}/../{}/w.kmw",
            allowed.display(),
            allowed.file_name().unwrap().to_str().unwrap()
        ),
    ] {
        assert!(
            answer(&mut c, &format!("setoption name EvalFile value {v}")).is_empty(),
            "{v}"
        );
    }
    let got = answer(
        &mut c,
        &format!("setoption name EGDBPath value {}", allowed.display()),
    );
    assert!(got.iter().all(|l| l.starts_with("info string")), "{got:?}");
    // outside, existing or missing, or out through `..`: the same text but for the path
    let refusals: Vec<String> = [
        outside.join("w.kmw"),
        outside.join("missing.kmw"),
        allowed
            .join("../")
            .join(outside.file_name().unwrap())
            .join("w.kmw"),
    ]
    .iter()
    .map(|p| {
        let got = answer(
            &mut c,
            &format!("setoption name EvalFile value {}", p.display()),
        );
        assert_eq!(got.len(), 1, "{got:?}");
        got[0].replace(&p.display().to_string(), "PATH")
    })
    .collect();
    assert_eq!(
        refusals[0],
        "error setoption: EvalFile: 'PATH' is not inside a directory this server allows (--allow-files)"
    );
    assert!(refusals.iter().all(|t| *t == refusals[0]), "{refusals:?}");
    let _ = std::fs::remove_dir_all(&allowed);
    let _ = std::fs::remove_dir_all(&outside);
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_or_a_device_as_evalfile_is_refused_and_the_server_answers_others() {
    let dir = scratch("fifo");
    let fifo = dir.join("w.kmw");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let server =
        server_with(|c| c.session.files = FileAccess::within(&[&dir, Path::new("/dev")]).unwrap());
    let mut a = Tcp::connect_greeted(server.addr);
    let mut b = Tcp::connect_greeted(server.addr);
    for v in [
        fifo.display().to_string(),
        "/dev/zero".into(),
        "/dev/stdin".into(),
    ] {
        a.send(&format!("setoption name EvalFile value {v}"));
        // another client is answered at once meanwhile
        let t = Instant::now();
        b.send("isready");
        expect_line(&mut b, "readyok");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        let e = a
            .recv(Duration::from_secs(5))
            .expect("an answer to the FIFO");
        assert!(e.starts_with("error setoption: bad value"), "{v}: {e}");
        assert!(
            e.contains("not a regular file") || e.contains("Permission"),
            "{v}: {e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_hash_budget_caps_the_sum_of_all_sessions_tables() {
    let server = server_with(|c| {
        c.limits.hash_budget_mib = 40;
        c.session.max_hash_mib = 32;
    });
    let mut a = Tcp::connect_greeted(server.addr);
    let mut b = Tcp::connect_greeted(server.addr);
    assert!(answer(&mut a, "setoption name Hash value 32").is_empty());
    let got = answer(&mut b, "setoption name Hash value 32");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("error setoption: Hash 32 MiB does not fit this server's hash budget"),
        "{got:?}"
    );
    assert!(
        answer(&mut b, "setoption name Hash value 8").is_empty(),
        "what fits is taken"
    );
    a.send("quit");
    wait_until(
        "the closed session's share comes back",
        Duration::from_secs(10),
        || answer(&mut b, "setoption name Hash value 32").is_empty(),
    );
}

#[test]
fn a_clock_for_the_other_side_only_still_ends_the_search() {
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    answer(&mut c, "setoption name Level value hard");
    let t = Instant::now();
    c.send("go wtime 1000"); // Black to move
    until(&mut c, "bestmove ");
    // the level's default time (0.5 s at hard), not for ever
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn the_server_ends_a_search_that_runs_too_long() {
    let server = server_with(|c| c.max_search_time = Some(Duration::from_millis(500)));
    let mut c = Tcp::connect_greeted(server.addr);
    for go in ["go infinite", "analyze 2", "go depth 120"] {
        let t = Instant::now();
        c.send(go);
        let note = until(&mut c, "info string this server ends any search");
        assert_eq!(
            note,
            "info string this server ends any search after 0.5 s; stopping it"
        );
        until(&mut c, "bestmove ");
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{go}: {:?}",
            t.elapsed()
        );
    }
}

const KINGS: &str = "W:WK1,K2,K3,K4,K9,K10,K11,K12:BK21,K22,K23,K24,K29,K30,K31,K32";

#[cfg(target_os = "linux")]
#[test]
fn perft_is_a_search_stopped_by_stop_and_by_the_client_leaving() {
    let server = Server::start(common::test_server_config());
    let mut c = Tcp::connect_greeted(server.addr);
    answer(&mut c, &format!("position fen {KINGS}"));
    // a long count is stoppable
    c.send("perft 9");
    std::thread::sleep(Duration::from_millis(200));
    c.send("eval");
    let busy = c.recv(LINE_TIMEOUT).unwrap();
    assert!(busy.starts_with("error busy"), "refused meanwhile: {busy}");
    let t = Instant::now();
    c.send("stop");
    let e = until(&mut c, "error perft");
    assert!(e.starts_with("error perft: stopped after "), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // a short one answers before the readyok that follows it
    assert!(answer(&mut c, "position startpos").is_empty());
    // (the time is the machine's: any whole number of milliseconds)
    let perft = answer(&mut c, "perft 2");
    assert_eq!(perft.len(), 1, "{perft:?}");
    let time = perft[0].strip_prefix("perft depth 2 nodes 49 time ");
    assert!(time.is_some_and(|t| t.parse::<u64>().is_ok()), "{perft:?}");
    answer(&mut c, &format!("position fen {KINGS}"));
    // and a client that leaves mid-count takes its count with it
    c.send("perft 9");
    c.send("eval");
    let busy = c.recv(LINE_TIMEOUT).unwrap();
    assert!(busy.starts_with("error busy"), "counting: {busy}");
    wait_until("a perft thread counts", Duration::from_secs(5), || {
        threads_named("kingme-perft") > 0
    });
    c.stream.shutdown(std::net::Shutdown::Both).unwrap();
    wait_until("perft outlived its client", Duration::from_secs(3), || {
        threads_named("kingme-perft") == 0
    });
}

#[test]
fn perft_is_capped_by_a_leaf_budget_over_the_network() {
    let server = server_with(|c| c.session.max_perft_leaves = 100_000);
    let mut c = Tcp::connect_greeted(server.addr);
    // (the time is the machine's: any whole number of milliseconds)
    let perft = answer(&mut c, "perft 6");
    assert_eq!(perft.len(), 1, "{perft:?}");
    let time = perft[0].strip_prefix("perft depth 6 nodes 36768 time ");
    assert!(time.is_some_and(|t| t.parse::<u64>().is_ok()), "{perft:?}");
    assert_eq!(
        answer(&mut c, "perft 8"),
        ["error perft: over this session's limit of 100000 leaves; stopped"]
    );
}

#[test]
fn a_client_that_never_authenticates_is_closed_at_the_deadline() {
    let server = server_with(|c| {
        c.token = Some("s3cret".parse().unwrap());
        c.auth_timeout = Duration::from_millis(400);
    });
    let mut c = Tcp::connect_greeted(server.addr);
    let t = Instant::now();
    // rejected lines do not keep it open
    for _ in 0..20 {
        c.send("isready");
        std::thread::sleep(Duration::from_millis(50));
    }
    let last = until(&mut c, "error not authenticated in time");
    assert_eq!(last, "error not authenticated in time; closing");
    assert!(c.recv(Duration::from_secs(3)).is_none(), "closed");
    assert!(t.elapsed() < Duration::from_secs(4));
    // one that does is served
    let mut ok = Tcp::connect_greeted(server.addr);
    ok.send("auth s3cret");
    expect_line(&mut ok, "authok");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(answer(&mut ok, "eval").len(), 1);
}

#[test]
fn connections_from_one_address_are_capped() {
    let server = server_with(|c| c.limits.max_per_address = 2);
    let (_a, b, mut c) = common::two_and_a_third(&server);
    expect_line(
        &mut c,
        "error too many connections from your address (2); try again later",
    );
    b.stream.shutdown(std::net::Shutdown::Both).unwrap();
    // b's slot is freed once the server has seen it go: until then a newcomer
    // is still refused, after it greeted
    let t = Instant::now();
    let _d = loop {
        let mut d = Tcp::connect(server.addr);
        let first = d.recv(LINE_TIMEOUT).unwrap_or_default();
        if first.starts_with("info string kingme") {
            break d;
        }
        assert!(first.starts_with("error too many connections"), "{first}");
        assert!(t.elapsed() < Duration::from_secs(10), "b's slot was freed");
        std::thread::sleep(Duration::from_millis(20));
    };
}

/// Starts `kingme --listen 127.0.0.1:0 ARGS` with `env`; returns the child and its address.
/// A child process killed and waited for when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_server(args: &[&str], env: &[(&str, &str)]) -> (Killed, std::net::SocketAddr) {
    let mut child = Killed(
        common::kingme_listen("127.0.0.1:0")
            .args(args)
            .envs(env.iter().copied())
            .env_remove("RUST_LOG")
            .spawn()
            .expect("kingme"),
    );
    let addr = common::listen::listening_address(&mut child.0);
    (child, addr)
}

#[test]
fn the_token_comes_from_the_environment_or_a_file() {
    let dir = scratch("token");
    std::fs::write(dir.join("token"), "fromfile\n").unwrap();
    let file = dir.join("token").display().to_string();
    for (args, env, token) in [
        (vec![], vec![("KINGME_TOKEN", "fromenv")], "fromenv"),
        (vec!["--token-file", file.as_str()], vec![], "fromfile"),
    ] {
        let (child, addr) = spawn_server(&args, &env);
        let mut bad = Tcp::connect(addr);
        assert!(bad
            .recv(LINE_TIMEOUT)
            .unwrap()
            .ends_with("send auth <token> first"));
        bad.send("auth wrong");
        expect_line(&mut bad, "error bad token; closing");
        let mut good = Tcp::connect(addr);
        good.recv(LINE_TIMEOUT).unwrap();
        good.send(&format!("auth {token}"));
        expect_line(&mut good, "authok");
        drop(child);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
