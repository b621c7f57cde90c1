//! One database directory however a client spells its path: opened once, and
//! the memory does not grow with the spellings. Alone in its test binary: the
//! count of open database sets and the resident memory are the process's.

mod common;

use common::{answer, rss_kib, scratch, threads_named, Conn, Server, Tcp};
use kingme::files::FileAccess;
use std::time::{Duration, Instant};

/// Waits until no database is being preloaded (its blocks fill the process's cache).
fn preloads_done() {
    let t = Instant::now();
    while threads_named("egdb-preload") > 0 {
        assert!(t.elapsed() < Duration::from_secs(60), "the preload ends");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn many_spellings_of_one_database_directory_open_it_once() {
    let dir = scratch("spellings");
    std::fs::create_dir_all(dir.join("x")).unwrap();
    let mut config = common::test_server_config();
    config.session.files = FileAccess::within(&[&dir]).unwrap();
    let server = Server::start(config);
    let mut c = Tcp::connect_greeted(server.addr);
    let mut spelled = dir.display().to_string();
    answer(&mut c, &format!("setoption name EGDBPath value {spelled}"));
    assert_eq!(kingme::engine::open_tablebases(), 1);
    preloads_done();
    let before = rss_kib();
    for _ in 0..200 {
        spelled.push_str("/x/..");
        let got = answer(&mut c, &format!("setoption name EGDBPath value {spelled}"));
        assert!(got.iter().all(|l| l.starts_with("info string")), "{got:?}");
    }
    assert_eq!(
        kingme::engine::open_tablebases(),
        1,
        "one set, however spelled"
    );
    let grown = rss_kib().saturating_sub(before);
    // each spelling cost 3.3 MB before: 660 MB for 200
    assert!(grown < 40 * 1024, "grew {grown} KiB over 200 spellings");
    c.send("quit");
    let t = Instant::now();
    while kingme::engine::open_tablebases() > 0 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        kingme::engine::open_tablebases(),
        0,
        "dropped with its last session"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
