//! Unit tests of the Hub session.

use super::wire::{parse_line, parse_move};
use super::*;
use crate::board::{Game, Position, Variant};
use crate::engine::fault::Fault;
use crate::engine::Score;
use crate::frontend::Events;
use crate::server::MAX_LINE;
use std::time::Duration;

struct Harness {
    session: HubSession,
    rx: Events,
}

impl Harness {
    fn new() -> Harness {
        let (session, rx) = HubSession::new();
        Harness { session, rx }
    }

    fn send(&mut self, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.session.handle_line(line, &mut out);
        out
    }

    /// Sends each of `lines`, whatever they answer.
    fn send_all(&mut self, lines: &[&str]) {
        for l in lines {
            self.send(l);
        }
    }

    /// Sends `line` (`stop`, `ponder-hit`); returns the lines of the search
    /// up to its `done`.
    fn finish_with(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.until_done()
    }

    /// Checks that the search still runs a moment later, and that `line`
    /// then ends it with a move.
    fn runs_until(&mut self, line: &str) {
        std::thread::sleep(Duration::from_millis(30));
        assert!(self.session.is_searching());
        let out = self.finish_with(line);
        assert!(out.last().unwrap().starts_with("done move="));
    }

    /// Sends `setup`, then `go think`; returns the lines of the search, up
    /// to its `done`.
    fn think(&mut self, setup: &[&str]) -> Vec<String> {
        self.send_all(setup);
        self.send("go think");
        self.until_done()
    }

    /// The answer to `bad`: an error line first, whose tokens parse.
    fn refused(&mut self, bad: &str) -> Vec<String> {
        let out = self.send(bad);
        assert!(out[0].starts_with("error message="), "{bad}: {out:?}");
        tokens_ok(&out[0]);
        out
    }

    /// Feeds search events until a line satisfies `want`; returns the lines written.
    fn until_line(&mut self, want: impl Fn(&str) -> bool) -> Vec<String> {
        let mut out = Vec::new();
        while !out.iter().any(|l: &String| want(l)) {
            let ev = self.rx.recv_timeout(Duration::from_secs(30)).unwrap();
            self.session.handle_event(ev, &mut out);
        }
        out
    }

    /// Feeds search events until `done`; returns every line written.
    fn until_done(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while self.session.is_searching() {
            let ev = self.rx.recv_timeout(Duration::from_secs(30)).unwrap();
            self.session.handle_event(ev, &mut out);
        }
        out
    }
}

fn tokens_ok(line: &str) {
    // pydraughts splits id, param and info lines on blanks outside quotes and
    // needs exactly one '=' per token (error lines only need to parse)
    let l = parse_line(line).unwrap();
    if l.command == "error" {
        assert!(l.value("message").is_some(), "{line}");
        return;
    }
    for (name, value) in &l.args {
        assert!(value.is_some(), "{line}: token {name} has no value");
        assert!(!value.as_ref().unwrap().contains('='), "{line}");
    }
}

#[test]
fn handshake() {
    let mut h = Harness::new();
    let out = h.send("hub");
    assert!(out[0].starts_with("id name=kingme version="));
    assert_eq!(out.last().unwrap(), "wait");
    assert!(out.contains(
        &"param name=variant value=english type=enum values=\"english mini\"".to_string()
    ));
    for l in &out[..out.len() - 1] {
        tokens_ok(l);
    }
    assert!(h.send("set-param name=variant value=english").is_empty());
    assert!(h.send("set-param name=level value=easy").is_empty());
    assert!(h.send("set-param name=hash value=2").is_empty());
    assert_eq!(h.send("init"), ["ready"]);
    assert_eq!(h.send("ping"), ["pong"]);
    assert!(h.send("frobnicate now=1").is_empty());
    assert!(h.send("").is_empty());
}

#[test]
fn bad_params_are_errors() {
    let mut h = Harness::new();
    for bad in [
        "set-param name=variant value=international",
        "set-param name=level value=godlike",
        "set-param name=hash value=0",
        "set-param name=colour value=red",
        "set-param name=hash",
        "set-param name=\"unterminated",
    ] {
        assert_eq!(h.refused(bad).len(), 1, "{bad}");
    }
}

#[test]
fn plays_from_a_pydraughts_pos() {
    let mut h = Harness::new();
    h.send_all(&[
        "set-param name=level value=easy",
        "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"11-15 23-19\"",
        "level move-time=0.05",
    ]);
    assert!(h.send("go think").is_empty());
    let out = h.until_done();
    let done = out.last().unwrap();
    assert!(done.starts_with("done move="), "{out:?}");
    for l in &out {
        tokens_ok(l);
    }
    let mv = parse_line(done).unwrap().value("move").unwrap().to_string();
    let mut g = Game::new(Variant::English);
    g.play_text("11-15").unwrap();
    g.play_text("23-19").unwrap();
    assert!(parse_move(g.position(), &mv).is_ok(), "{mv}");
    assert!(out.iter().any(|l| l.starts_with("info depth=")));
}

#[test]
fn captures_in_moves_use_hub_notation() {
    let mut h = Harness::new();
    h.send("set-param name=level value=easy");
    // 11-15 24-19 15x24 (black takes 19, lands on 24): hub writes 15x24x19
    let out = h.send("pos moves=\"11-15 24-19 15x24x19\"");
    assert!(out.is_empty(), "{out:?}");
    let out = h.think(&["level depth=3"]);
    // white must recapture: 28x19x24 or 27x20x24
    let done = out.last().unwrap();
    assert!(
        done.starts_with("done move=28x19x24") || done.starts_with("done move=27x20x24"),
        "{done}"
    );
}

#[test]
fn bad_pos_then_go_still_answers() {
    let mut h = Harness::new();
    for bad in [
        "pos pos=Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww",
        "pos pos=Wbbb",
        "pos moves=\"11-15 11-15\"",
        "pos moves=\"9-99\"",
    ] {
        h.refused(bad);
    }
    let out = h.send("go think");
    assert_eq!(out.len(), 2);
    assert_eq!(out[1], "done move=0-0");
    assert!(!h.session.is_searching());
}

#[test]
fn bad_levels_are_errors_and_keep_the_old_level() {
    let mut h = Harness::new();
    for bad in [
        "level move-time=-1",
        "level move-time=nan",
        "level time=inf",
        "level depth=0",
        "level nodes=x",
        "level time=1e400",
    ] {
        assert_eq!(h.send(bad).len(), 1, "{bad}");
    }
    assert!(h.send("level time=0.5 inc=0.1 moves=20").is_empty());
    assert_eq!(h.session.level.btime, Some(Duration::from_millis(600)));
    assert_eq!(h.session.level.movestogo, Some(20));
    // pydraughts subtracts the increment first: a short clock goes negative
    assert!(h.send("level time=-0.02 inc=0.05").is_empty());
    assert_eq!(h.session.level.wtime, Some(Duration::from_millis(30)));
    assert!(h.send("level time=-5 inc=1").is_empty());
    assert_eq!(h.session.level.wtime, Some(Duration::ZERO));
}

#[test]
fn analyze_runs_until_stop_and_ping_answers_meanwhile() {
    let mut h = Harness::new();
    h.send_all(&["set-param name=level value=easy", "pos", "go analyze"]);
    assert!(h.session.is_searching());
    assert_eq!(
        h.send("go think")[0],
        "error message=\"go: a search is already running\""
    );
    assert_eq!(h.send("ping"), ["pong"]);
    h.runs_until("stop");
}

#[test]
fn ponder_then_ponder_hit() {
    let mut h = Harness::new();
    h.send_all(&[
        "set-param name=level value=easy",
        "pos moves=\"11-15\"",
        "level move-time=0.02",
        "go ponder",
    ]);
    h.runs_until("ponder-hit");
}

#[test]
fn no_legal_move_gives_null_move() {
    let mut h = Harness::new();
    // white to move with no pieces: all 32 characters empty except black men
    let pos = format!("B{}", "e".repeat(31) + "w");
    assert!(h.send(&format!("pos pos={pos}")).is_empty());
    assert_eq!(h.think(&[]).last().unwrap(), "done move=0-0");
}

#[test]
fn mini_variant() {
    let mut h = Harness::new();
    let out = h.think(&[
        "set-param name=variant value=mini",
        "set-param name=level value=easy",
        "pos start",
        "level depth=2",
    ]);
    let done = out.last().unwrap();
    let mv = parse_line(done).unwrap().value("move").unwrap().to_string();
    assert!(parse_move(&Position::startpos(Variant::Mini), &mv).is_ok());
}

/// Runs `go think` with `fault` injected into the search; returns every line
/// written and checks that nothing more arrives.
fn go_with_fault(fault: Fault) -> Vec<String> {
    let mut h = Harness::new();
    h.send_all(&["pos moves=\"11-15\"", "level depth=3"]);
    crate::engine::fault::inject(fault);
    let mut out = h.send("go think");
    out.extend(h.until_done());
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        h.rx.recv_timeout(Duration::ZERO).is_none(),
        "an event after done: {out:?}"
    );
    out
}

fn one_legal_done(out: &[String]) {
    let dones: Vec<&String> = out.iter().filter(|l| l.starts_with("done")).collect();
    assert_eq!(dones.len(), 1, "{out:?}");
    let mv = parse_line(dones[0])
        .unwrap()
        .value("move")
        .unwrap()
        .to_string();
    let mut g = Game::new(Variant::English);
    g.play_text("11-15").unwrap();
    assert!(parse_move(g.position(), &mv).is_ok(), "{mv}");
}

#[test]
fn a_search_that_panics_still_gets_one_done() {
    let out = go_with_fault(Fault::PanicInSearch);
    one_legal_done(&out);
    assert!(!out.iter().any(|l| l.starts_with("info")), "{out:?}");
}

#[test]
fn a_search_without_a_thread_still_gets_one_done() {
    one_legal_done(&go_with_fault(Fault::NoThread));
}

#[test]
fn a_go_during_a_search_gets_its_own_done() {
    let mut h = Harness::new();
    h.send_all(&["pos", "go analyze"]);
    assert_eq!(
        h.send("go think"),
        [
            "error message=\"go: a search is already running\"",
            "done move=0-0"
        ]
    );
    let out = h.finish_with("stop");
    assert_eq!(out.iter().filter(|l| l.starts_with("done")).count(), 1);
    assert!(out.last().unwrap().starts_with("done move="));
}

#[test]
fn scores_in_men() {
    assert_eq!(format_score(Score::Eval(35)), "0.35");
    assert_eq!(format_score(Score::Eval(-120)), "-1.20");
    assert_eq!(format_score(Score::Win(5)), "99.95");
    assert_eq!(format_score(Score::Loss(4)), "-99.96");
}

/// What [`serve`] writes for `input`, read to its end.
fn served(input: Vec<u8>) -> String {
    let mut out = Vec::new();
    serve(std::io::Cursor::new(input), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn serve_reads_lines_and_quits_on_eof() {
    let text = served(b"hub\ninit\nping\npos\nlevel depth=1\ngo think\n".to_vec());
    assert!(text.contains("\nready\npong\n"), "{text}");
    // at EOF the limited search still finishes and reports
    assert!(text.contains("\ndone move="), "{text}");
}

#[test]
fn overlong_lines_are_skipped() {
    let mut input = vec![b'x'; MAX_LINE + 10];
    input.extend_from_slice(b"\nping\n");
    let text = served(input);
    assert!(text.starts_with("error message="), "{text}");
    assert!(text.ends_with("pong\n"), "{text}");
}

mod params;
