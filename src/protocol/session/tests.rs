//! Unit tests of the session: failures inside the engine, and the option
//! table as the handshake lists it.
use super::*;
use crate::board::Position;
use crate::engine::fault::{self, Fault};
use std::time::Duration;

/// Runs `go depth 3` with `fault` injected into the search; returns the
/// responses up to the end of the search and checks that nothing follows.
fn go_with_fault(fault: Fault) -> Vec<Response> {
    let (mut session, mut events) = Session::new(SessionConfig::default());
    let mut out = Vec::new();
    session.handle_line(b"setoption name Level value easy", &mut out);
    fault::inject(fault);
    session.handle_line(b"go depth 3", &mut out);
    while session.is_searching() {
        let ev = events
            .recv_timeout(Duration::from_secs(20))
            .expect("the search answers");
        session.handle_event(ev, &mut out);
    }
    assert!(
        events.recv_timeout(Duration::from_millis(50)).is_none(),
        "an event after bestmove"
    );
    out
}

fn one_legal_bestmove(out: &[Response]) {
    let best: Vec<&Response> = out
        .iter()
        .filter(|r| matches!(r, Response::BestMove { .. }))
        .collect();
    assert_eq!(best.len(), 1, "{out:?}");
    let Response::BestMove { mv: Some(m), .. } = best[0] else {
        panic!("{out:?}")
    };
    assert!(Position::startpos(Variant::English).is_legal(*m), "{m}");
}

#[test]
fn a_search_that_panics_still_gets_one_bestmove() {
    let out = go_with_fault(Fault::PanicInSearch);
    one_legal_bestmove(&out);
    assert!(
        !out.iter().any(|r| matches!(r, Response::Info(_))),
        "{out:?}"
    );
}

#[test]
fn a_hash_that_cannot_be_allocated_is_one_error_line() {
    let (mut session, _events) = Session::new(SessionConfig::default());
    let mut out = Vec::new();
    session.engine();
    fault::inject(Fault::NoMemory);
    session.handle_line(b"setoption name Hash value 4096", &mut out);
    assert_eq!(
        out,
        [Response::Error(
            "setoption: not enough memory for a 4096 MiB transposition table; Hash is unchanged"
                .into()
        )]
    );
    assert_eq!(session.engine().hash_mib(), engine::DEFAULT_HASH_MIB);
}

#[test]
fn the_process_wide_database_cache_is_the_operators_over_the_network() {
    let mib = engine::DEFAULT_EGDB_CACHE_MIB;
    let set = format!("setoption name EGDBCache value {mib}");
    let (mut local, _events) = Session::new(SessionConfig::default());
    let mut out = Vec::new();
    local.handle_line(set.as_bytes(), &mut out);
    assert_eq!(out, []);
    assert_eq!(crate::egdb::cache::capacity(), mib << 20);
    local.handle_line(b"setoption name EGDBCache value 0", &mut out);
    assert!(
        matches!(&out[..], [Response::Error(e)] if e.contains("EGDBCache") && e.contains("1 to 4096")),
        "{out:?}"
    );

    let network = SessionConfig {
        process_options: false,
        ..SessionConfig::default()
    };
    let (mut remote, _events) = Session::new(network);
    let mut out = Vec::new();
    remote.handle_line(b"setoption name egdbcache value 1", &mut out);
    assert!(
        matches!(&out[..], [Response::Error(e)] if e.contains("egdbcache") && e.contains("operator")),
        "{out:?}"
    );
    assert_eq!(crate::egdb::cache::capacity(), mib << 20);
}

#[test]
fn a_search_without_a_thread_still_gets_one_bestmove() {
    one_legal_bestmove(&go_with_fault(Fault::NoThread));
}

/// The handshake and the unknown-option line name the same options, all
/// from the engine's one table (plus the session's Variant and Reply).
#[test]
fn the_handshake_and_the_unknown_option_line_list_the_table() {
    let (mut session, _events) = Session::new(SessionConfig::default());
    let mut out = Vec::new();
    session.handle_line(b"kingme", &mut out);
    let names: Vec<String> = out
        .iter()
        .filter_map(|r| match r {
            Response::Option { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let mut expected = vec!["Variant".to_string()];
    expected.extend(crate::engine::option_table::option_names());
    expected.push("Reply".into());
    assert_eq!(names, expected);
    out.clear();
    session.handle_line(b"setoption name Bogus value 1", &mut out);
    assert_eq!(
        out,
        [Response::Error(format!(
            "setoption: unknown option 'Bogus' (options: {})",
            expected.join(", ")
        ))]
    );
    // `help` lists the same options, each with its line of help
    out.clear();
    session.handle_line(b"help", &mut out);
    let text: String = out.iter().map(ToString::to_string).collect();
    let listed: Vec<(&str, usize)> = text
        .lines()
        .skip_while(|l| !l.starts_with("Options"))
        .skip(1)
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap_or(""), w.count())
        })
        .collect();
    assert_eq!(
        listed
            .iter()
            .map(|(n, _)| n.to_string())
            .collect::<Vec<_>>(),
        expected
    );
    assert!(listed.iter().all(|&(_, words)| words >= 2), "{text}");
    let e = options::parse_option("Bogus", "1").unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "unknown option 'Bogus' (options: {})",
            crate::engine::option_table::option_names().join(", ")
        )
    );
}
