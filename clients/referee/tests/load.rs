//! A small bounded load run against a real server: 20 sessions for 3 seconds, on a
//! server that wants a token (so every reconnect authenticates); and the clear
//! errors when the token is missing or wrong.

mod common;

use common::Server;
use kingme_referee::load::{run_load, LoadConfig, LoadError};
use std::time::Duration;

#[test]
fn twenty_sessions_for_three_seconds() {
    let server = Server::start(&["--token", "s3cret"]);
    let cfg = LoadConfig {
        addr: server.addr.clone(),
        token: Some("s3cret".parse().unwrap()),
        sessions: 20,
        duration: Duration::from_secs(3),
        max_ops: 500,
        movetime_ms: 20,
        grace: Duration::from_secs(10),
        seed: 42,
        hostile: false,
        server_pid: None,
    };
    let r = common::within(Duration::from_secs(40), "load run", || {
        run_load(&cfg).expect("load runs")
    });
    assert_eq!(r.error_count(), 0, "errors: {:?}", r.errors);
    assert!(r.searches > 0 && r.stops > 0 && r.bad_lines > 0 && r.reconnects > 0);
    assert_eq!(r.go_overrun_ms.count, r.searches);
    assert_eq!(r.stop_ms.count, r.stops);
    // stop answers within a few ms of a running search, at once when queued; allow
    // a loaded CI machine plenty.
    assert!(r.stop_ms.p50 < 200.0, "stop p50 {} ms", r.stop_ms.p50);
    // The server is still healthy afterwards.
    let after = LoadConfig {
        sessions: 1,
        duration: Duration::from_millis(300),
        max_ops: 5,
        ..cfg
    };
    assert_eq!(run_load(&after).unwrap().error_count(), 0);
}

#[test]
fn a_missing_or_wrong_token_stops_the_run_with_one_error() {
    let server = Server::start(&["--token", "s3cret"]);
    let cfg = |token: Option<&str>| LoadConfig {
        addr: server.addr.clone(),
        token: token.map(|t| t.parse().unwrap()),
        sessions: 4,
        duration: Duration::from_secs(2),
        max_ops: 10,
        movetime_ms: 20,
        grace: Duration::from_secs(5),
        seed: 7,
        hostile: false,
        server_pid: None,
    };
    for (token, says) in [
        (None, "wants a token"),
        (Some("wrong"), "token refused: error bad token"),
    ] {
        let err = common::within(Duration::from_secs(20), "load run", || {
            run_load(&cfg(token)).expect_err("refused")
        });
        assert!(matches!(err, LoadError::Auth { .. }), "{err:?}");
        assert!(err.to_string().contains(says), "{err}");
    }
}

/// Hostile lines among the load: every one answered, a well-behaved client
/// answered throughout, and the server's memory bounded.
#[cfg(target_os = "linux")]
#[test]
fn a_hostile_load_is_answered_line_by_line() {
    let server = Server::start(&["--max-search-time", "10"]);
    let cfg = LoadConfig {
        addr: server.addr.clone(),
        token: None,
        sessions: 8,
        duration: Duration::from_secs(8),
        max_ops: 400,
        movetime_ms: 20,
        grace: Duration::from_secs(10),
        seed: 7,
        hostile: true,
        server_pid: Some(server.pid()),
    };
    let r = common::within(Duration::from_secs(60), "hostile load run", || {
        run_load(&cfg).expect("load runs")
    });
    assert_eq!(r.error_count(), 0, "errors: {:?}", r.errors);
    assert!(r.hostile_lines > 10, "{} hostile lines", r.hostile_lines);
    assert!(
        r.probe_ms.count > 10,
        "the well-behaved client was answered"
    );
    let peak = r.server_rss_peak_mib.expect("memory sampled");
    // 8 sessions at Hash 64 would be 512 MiB: the default budget holds them,
    // but 660 MB of leaked database copies would not fit under 1 GiB
    assert!(peak < 1024.0, "peak {peak} MiB");
}
