//! Scan's Hub protocol (version 2) on stdin/stdout: `kingme hub`, the way
//! pydraughts' `HubEngine` and other Hub GUIs drive an engine.
//!
//! ```text
//! hub                      -> id name=kingme version=.. author=".."
//!                             param name=variant value=english type=enum values="english mini"
//!                             param ... (level, hash, threads)
//!                             wait
//! set-param name=N value=V    (variant, level, hash, threads)
//! init                     -> ready
//! new-game
//! pos [start] [pos=<side><squares>] [moves="<hub moves>"]
//! level depth=N | nodes=N | move-time=S | [moves=N] time=S [inc=S] | infinite
//! go think|ponder|analyze  -> info depth=.. score=.. nodes=.. time=.. nps=.. pv=".."
//!                             done move=M [ponder=P]
//! ping -> pong, ponder-hit, stop, quit; at EOF a running limited search still reports
//! ```
//!
//! Positions and moves use pydraughts' English conventions (see [`wire`]).
//! Scores are in men (`score=0.35`); a win in N plies is `100 - N/100`, which
//! pydraughts reads as a forced win. Bad input gets `error message=".."` and is
//! otherwise ignored; unknown commands are ignored, as the protocol asks. Every
//! `go` gets exactly one `done` (`done move=0-0` when there is no move to
//! give). Nothing is ever written to stderr.

pub mod wire;

use crate::board::{Game, Position, Variant};
use crate::engine::{Engine, Event, Info, Level, Limits, Score, SearchHandle};
use std::io::{BufRead, Write};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;
use wire::{format_move, parse_line, parse_move, parse_position, quote, HubLine};

/// Longest input line in bytes (a `pos` with a long game fits easily).
pub const MAX_LINE: usize = 64 * 1024;

/// What the session loop consumes: input lines and search events.
#[derive(Debug)]
pub enum Input {
    /// One line of input (without its newline).
    Line(String),
    /// A line longer than [`MAX_LINE`] was skipped.
    TooLong,
    /// End of input.
    Closed,
    /// An event of the running search.
    Search(Event),
    /// Nothing arrived for a while: check that the running search is alive.
    Tick,
}

/// How often [`serve`] sends itself an [`Input::Tick`] when idle.
pub const TICK: Duration = Duration::from_millis(200);

/// Whether the session goes on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// `quit` or end of input: stop.
    Quit,
}

/// The search in progress and what `done` needs to write its moves.
struct Running {
    handle: SearchHandle,
    position: Position,
    /// `go ponder` or `go analyze`, or a `level infinite`: ends only on `stop`.
    open_ended: bool,
}

/// One Hub session: options, the position, the search level, the running search.
/// It turns input lines and search events into output lines.
pub struct HubSession {
    engine: Engine,
    variant: Variant,
    /// The game from the last `pos`, or why that `pos` was rejected.
    game: Result<Game, String>,
    level: Limits,
    running: Option<Running>,
    /// Input has ended: quit once the running search has reported.
    closing: bool,
    /// A tick found the search thread finished without its `done` queued.
    finished_seen: bool,
    events: SyncSender<Input>,
}

fn secs(s: &str) -> Option<Duration> {
    let v: f64 = s.trim().parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(v.min(1e9)).ok()
}

/// A score in men, as Hub prints it.
#[must_use]
pub fn format_score(score: Score) -> String {
    match score {
        Score::Eval(cm) => format!("{:.2}", f64::from(cm) / 100.0),
        Score::Win(p) => format!("{:.2}", 100.0 - f64::from(p.min(9000)) / 100.0),
        Score::Loss(p) => format!("{:.2}", -100.0 + f64::from(p.min(9000)) / 100.0),
    }
}

impl HubSession {
    /// A session whose searches report into `events` (the same channel that
    /// carries the input lines).
    #[must_use]
    pub fn new(events: SyncSender<Input>) -> HubSession {
        HubSession {
            engine: Engine::new(),
            variant: Variant::English,
            game: Ok(Game::new(Variant::English)),
            level: Limits::default(),
            running: None,
            closing: false,
            finished_seen: false,
            events,
        }
    }

    /// Whether a search is running.
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// Handles one input.
    pub fn handle(&mut self, input: Input, out: &mut Vec<String>) -> Flow {
        match input {
            Input::Line(l) => self.handle_line(&l, out),
            Input::TooLong => {
                out.push(error(&format!("line longer than {MAX_LINE} bytes ignored")));
                Flow::Continue
            }
            Input::Closed => {
                // a limited search still finishes and its `done` is written
                if self.running.as_ref().is_some_and(|r| r.open_ended) {
                    self.stop();
                }
                self.closing = true;
                self.flow()
            }
            Input::Search(ev) => {
                self.handle_event(ev, out);
                self.flow()
            }
            Input::Tick => {
                self.tick(out);
                self.flow()
            }
        }
    }

    /// A search thread that ended without its final event (it can't be
    /// spawned, or it panicked) still gets a `done`: a tick finds the thread
    /// finished, and when the next tick (the channel having been drained in
    /// between) finds the search still unanswered, the first legal move is sent.
    fn tick(&mut self, out: &mut Vec<String>) {
        let Some(run) = &self.running else {
            self.finished_seen = false;
            return;
        };
        if !run.handle.is_finished() {
            self.finished_seen = false;
            return;
        }
        if !self.finished_seen {
            self.finished_seen = true;
            return;
        }
        let mv = run.position.legal_moves().first().copied();
        out.push(error("the search ended without a move"));
        self.handle_event(Event::BestMove { mv, ponder: None }, out);
    }

    fn flow(&self) -> Flow {
        if self.closing && self.running.is_none() {
            Flow::Quit
        } else {
            Flow::Continue
        }
    }

    /// Asks the running search, if any, to stop (it still reports its move).
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.handle.stop();
        }
    }

    /// Handles one command line.
    pub fn handle_line(&mut self, line: &str, out: &mut Vec<String>) -> Flow {
        let line = match parse_line(line) {
            Ok(l) => l,
            Err(wire::ParseHubLineError::Empty) => return Flow::Continue,
            Err(e) => {
                out.push(error(&e.to_string()));
                return Flow::Continue;
            }
        };
        match line.command.as_str() {
            "hub" => self.hello(out),
            "init" => out.push("ready".into()),
            "ping" => out.push("pong".into()),
            "set-param" => self.set_param(&line, out),
            // the table is shared with a running search: clear it only when idle
            "new-game" if self.running.is_none() => self.engine.new_game(),
            "pos" => self.pos(&line, out),
            "level" => self.set_level(&line, out),
            "go" => self.go(&line, out),
            "stop" => self.stop(),
            "ponder-hit" => {
                if let Some(r) = &self.running {
                    r.handle.ponderhit();
                }
            }
            "quit" => {
                self.stop();
                return Flow::Quit;
            }
            // the protocol asks engines to ignore what they don't know
            _ => {}
        }
        Flow::Continue
    }

    fn hello(&self, out: &mut Vec<String>) {
        out.push(format!(
            "id name=kingme version={} author={}",
            quote(env!("CARGO_PKG_VERSION")),
            quote("the kingme authors")
        ));
        let variants: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        out.push(format!(
            "param name=variant value={} type=enum values={}",
            self.variant.name(),
            quote(&variants.join(" "))
        ));
        let levels: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        out.push(format!(
            "param name=level value={} type=enum values={}",
            self.engine.level().name(),
            quote(&levels.join(" "))
        ));
        out.push(format!(
            "param name=hash value={} type=int min=1 max={}",
            self.engine.hash_mib(),
            crate::engine::MAX_HASH_MIB
        ));
        out.push(format!(
            "param name=threads value={} type=int min=1 max={}",
            self.engine.threads(),
            crate::engine::MAX_THREADS
        ));
        out.push("wait".into());
    }

    fn set_param(&mut self, line: &HubLine, out: &mut Vec<String>) {
        let (Some(name), Some(value)) = (line.value("name"), line.value("value")) else {
            out.push(error("set-param needs name=.. and value=.."));
            return;
        };
        if name.eq_ignore_ascii_case("variant") {
            match value.parse::<Variant>() {
                Ok(v) => {
                    self.variant = v;
                    self.game = Ok(Game::new(v));
                }
                Err(e) => out.push(error(&e.to_string())),
            }
            return;
        }
        if let Err(e) = self.engine.set_option(name, value) {
            out.push(error(&e.to_string()));
        }
    }

    fn pos(&mut self, line: &HubLine, out: &mut Vec<String>) {
        self.game = self.read_game(line);
        if let Err(e) = &self.game {
            out.push(error(e));
        }
    }

    fn read_game(&self, line: &HubLine) -> Result<Game, String> {
        let start = match line.value("pos") {
            Some(p) => parse_position(self.variant, p).map_err(|e| e.to_string())?,
            None => Position::startpos(self.variant),
        };
        let mut game = Game::from_position(start);
        for text in line.value("moves").unwrap_or("").split_whitespace() {
            let m = parse_move(game.position(), text)
                .map_err(|e| format!("pos: move {} of moves=: {e}", game.moves().len() + 1))?;
            game.play_unchecked(m);
        }
        Ok(game)
    }

    fn set_level(&mut self, line: &HubLine, out: &mut Vec<String>) {
        let mut l = Limits::default();
        // `time` may be a little negative: pydraughts sends the clock minus the increment
        let mut clock: Option<(f64, Duration)> = None;
        for (name, value) in &line.args {
            let v = value.as_deref().unwrap_or("");
            let bad = || error(&format!("level: bad value '{v}' for {name}"));
            match name.as_str() {
                "depth" => match v.parse::<u32>() {
                    Ok(d) if d >= 1 => l.depth = Some(d.min(crate::search::MAX_PLY as u32)),
                    _ => return out.push(bad()),
                },
                "nodes" => match v.parse::<u64>() {
                    Ok(n) if n >= 1 => l.nodes = Some(n),
                    _ => return out.push(bad()),
                },
                "move-time" => match secs(v) {
                    Some(t) => l.movetime = Some(t.max(Duration::from_millis(1))),
                    None => return out.push(bad()),
                },
                "time" => match v.trim().parse::<f64>() {
                    Ok(t) if t.is_finite() && t.abs() < 1e9 => {
                        clock = Some((t, clock.map_or(Duration::ZERO, |c| c.1)));
                    }
                    _ => return out.push(bad()),
                },
                "inc" => match secs(v) {
                    Some(i) => clock = Some((clock.map_or(0.0, |c| c.0), i)),
                    None => return out.push(bad()),
                },
                "moves" => match v.parse::<u32>() {
                    Ok(n) if n >= 1 => l.movestogo = Some(n),
                    _ => return out.push(bad()),
                },
                "infinite" => l.infinite = true,
                _ => {}
            }
        }
        if let Some((time, inc)) = clock {
            // Hub's `time` leaves out the increment this move earns
            let left = Duration::try_from_secs_f64((time + inc.as_secs_f64()).max(0.0))
                .unwrap_or_default();
            l.btime = Some(left);
            l.wtime = Some(left);
            l.binc = Some(inc);
            l.winc = Some(inc);
        } else {
            l.movestogo = None;
        }
        self.level = l;
    }

    fn go(&mut self, line: &HubLine, out: &mut Vec<String>) {
        if self.running.is_some() {
            out.push(error("go: a search is already running"));
            return;
        }
        let game = match &self.game {
            Ok(g) => g.clone(),
            Err(e) => {
                out.push(error(&format!("go: no position ({e})")));
                out.push("done move=0-0".into());
                return;
            }
        };
        let mut limits = self.level.clone();
        if line.has("ponder") {
            limits.ponder = true;
        } else if line.has("analyze") {
            limits.infinite = true;
        }
        let open_ended = limits.ponder || limits.infinite;
        let tx = self.events.clone();
        let handle = self.engine.go(
            &game,
            limits,
            Box::new(move |ev| match ev {
                Event::BestMove { .. } => {
                    let _ = tx.send(Input::Search(ev));
                }
                Event::Info(_) => match tx.try_send(Input::Search(ev)) {
                    Ok(()) | Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
                },
                Event::Trace(_) => {}
            }),
        );
        self.finished_seen = false;
        self.running = Some(Running {
            handle,
            position: *game.position(),
            open_ended,
        });
    }

    /// Handles an event of the running search.
    pub fn handle_event(&mut self, ev: Event, out: &mut Vec<String>) {
        let Some(run) = &self.running else {
            return;
        };
        match ev {
            Event::Info(info) => out.push(info_line(&run.position, &info)),
            Event::BestMove { mv, ponder } => {
                let pos = run.position;
                let mut line = match mv.filter(|&m| pos.is_legal(m)) {
                    Some(m) => {
                        let mut s = format!("done move={}", format_move(m));
                        let next = pos.after(m);
                        if let Some(p) = ponder.filter(|&p| next.is_legal(p)) {
                            s.push_str(&format!(" ponder={}", format_move(p)));
                        }
                        s
                    }
                    None => "done move=0-0".to_string(),
                };
                line.shrink_to_fit();
                out.push(line);
                // the search thread has sent its last event: joining is immediate
                self.running = None;
            }
            Event::Trace(_) => {}
        }
    }

    /// Stops the running search and waits for its final event, reading (and
    /// dropping) whatever else arrives on `rx` meanwhile.
    pub fn shutdown(&mut self, rx: &Receiver<Input>) {
        if self.running.is_none() {
            return;
        }
        self.stop();
        while let Ok(input) = rx.recv_timeout(Duration::from_secs(5)) {
            if let Input::Search(Event::BestMove { .. }) = input {
                break;
            }
        }
        self.running = None;
    }
}

fn error(message: &str) -> String {
    format!("error message={}", quote(message))
}

/// An `info` line: every token `name=value`, the PV quoted, in Hub move text.
fn info_line(root: &Position, info: &Info) -> String {
    let mut pos = *root;
    let mut pv = Vec::new();
    for &m in &info.pv {
        if !pos.is_legal(m) {
            break;
        }
        pv.push(format_move(m));
        pos = pos.after(m);
    }
    format!(
        "info depth={} score={} nodes={} time={:.3} nps={} pv={}",
        info.depth,
        format_score(info.score),
        info.nodes,
        info.time.as_secs_f64(),
        info.nps,
        quote_always(&pv.join(" "))
    )
}

fn quote_always(v: &str) -> String {
    format!("\"{}\"", v.replace('"', "'"))
}

/// Reads `input` line by line into `tx` (lines over [`MAX_LINE`] become
/// [`Input::TooLong`]), then sends [`Input::Closed`].
pub fn read_input(input: impl BufRead, tx: &SyncSender<Input>) {
    crate::server::stdio::read_bounded_lines(input, MAX_LINE, |l| {
        let item = match l {
            Some(bytes) => Input::Line(String::from_utf8_lossy(&bytes).into_owned()),
            None => Input::TooLong,
        };
        tx.send(item).is_ok()
    });
    let _ = tx.send(Input::Closed);
}

/// Runs a session on `rx` (fed by [`read_input`] and by the searches through
/// `tx`), writing to `out`, until `quit` or end of input (after which a
/// running limited search still finishes and writes its `done`).
pub fn serve(
    tx: SyncSender<Input>,
    rx: &Receiver<Input>,
    mut out: impl Write,
) -> std::io::Result<()> {
    let mut session = HubSession::new(tx);
    let mut lines = Vec::new();
    let result = loop {
        let input = match rx.recv_timeout(TICK) {
            Ok(input) => input,
            Err(RecvTimeoutError::Timeout) => Input::Tick,
            Err(RecvTimeoutError::Disconnected) => break Ok(()),
        };
        let flow = session.handle(input, &mut lines);
        let written = lines
            .drain(..)
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|()| out.flush());
        if written.is_err() || flow == Flow::Quit {
            break written;
        }
    };
    session.shutdown(rx);
    result
}

/// `kingme hub`: a Hub session on stdin and stdout. Panic messages are
/// silenced: stderr must stay empty, as pydraughts reads it as protocol.
pub fn run() -> std::io::Result<()> {
    std::panic::set_hook(Box::new(|_| {}));
    let (tx, rx) = sync_channel(256);
    let reader_tx = tx.clone();
    std::thread::Builder::new()
        .name("kingme-hub-stdin".into())
        .spawn(move || read_input(std::io::stdin().lock(), &reader_tx))?;
    serve(tx, &rx, std::io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Harness {
        session: HubSession,
        rx: Receiver<Input>,
    }

    impl Harness {
        fn new() -> Harness {
            let (tx, rx) = sync_channel(256);
            Harness {
                session: HubSession::new(tx),
                rx,
            }
        }

        fn send(&mut self, line: &str) -> Vec<String> {
            let mut out = Vec::new();
            self.session.handle_line(line, &mut out);
            out
        }

        /// Feeds search events until `done`; returns every line written.
        fn until_done(&mut self) -> Vec<String> {
            let mut out = Vec::new();
            while self.session.is_searching() {
                let ev = self.rx.recv_timeout(Duration::from_secs(30)).unwrap();
                self.session.handle(ev, &mut out);
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
            let out = h.send(bad);
            assert_eq!(out.len(), 1, "{bad}");
            assert!(out[0].starts_with("error message="), "{bad}: {out:?}");
            tokens_ok(&out[0]);
        }
    }

    #[test]
    fn plays_from_a_pydraughts_pos() {
        let mut h = Harness::new();
        h.send("set-param name=level value=easy");
        h.send("pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"11-15 23-19\"");
        h.send("level move-time=0.05");
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
        h.send("level depth=3");
        h.send("go think");
        let out = h.until_done();
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
            let out = h.send(bad);
            assert!(out[0].starts_with("error message="), "{bad}: {out:?}");
            tokens_ok(&out[0]);
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
            let out = h.send(bad);
            assert_eq!(out.len(), 1, "{bad}");
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
        h.send("set-param name=level value=easy");
        h.send("pos");
        h.send("go analyze");
        assert!(h.session.is_searching());
        assert_eq!(
            h.send("go think")[0],
            "error message=\"go: a search is already running\""
        );
        assert_eq!(h.send("ping"), ["pong"]);
        std::thread::sleep(Duration::from_millis(30));
        assert!(h.session.is_searching());
        h.send("stop");
        let out = h.until_done();
        assert!(out.last().unwrap().starts_with("done move="));
    }

    #[test]
    fn ponder_then_ponder_hit() {
        let mut h = Harness::new();
        h.send("set-param name=level value=easy");
        h.send("pos moves=\"11-15\"");
        h.send("level move-time=0.02");
        h.send("go ponder");
        std::thread::sleep(Duration::from_millis(30));
        assert!(h.session.is_searching());
        h.send("ponder-hit");
        let out = h.until_done();
        assert!(out.last().unwrap().starts_with("done move="));
    }

    #[test]
    fn no_legal_move_gives_null_move() {
        let mut h = Harness::new();
        // white to move with no pieces: all 32 characters empty except black men
        let pos = format!("B{}", "e".repeat(31) + "w");
        assert!(h.send(&format!("pos pos={pos}")).is_empty());
        h.send("go think");
        assert_eq!(h.until_done().last().unwrap(), "done move=0-0");
    }

    #[test]
    fn mini_variant() {
        let mut h = Harness::new();
        h.send("set-param name=variant value=mini");
        h.send("set-param name=level value=easy");
        h.send("pos start");
        h.send("level depth=2");
        h.send("go think");
        let out = h.until_done();
        let done = out.last().unwrap();
        let mv = parse_line(done).unwrap().value("move").unwrap().to_string();
        assert!(parse_move(&Position::startpos(Variant::Mini), &mv).is_ok());
    }

    #[test]
    fn a_search_that_dies_silently_still_gets_done() {
        let mut h = Harness::new();
        let game = Game::new(Variant::English);
        let limits = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        // a search whose events never reach the session, as if its thread panicked
        let handle = h.session.engine.go(&game, limits, Box::new(|_| {}));
        h.session.running = Some(Running {
            handle,
            position: *game.position(),
            open_ended: false,
        });
        let mut out = Vec::new();
        for _ in 0..100 {
            if !h.session.is_searching() {
                break;
            }
            h.session.handle(Input::Tick, &mut out);
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!h.session.is_searching());
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].starts_with("error message="));
        assert!(out[1].starts_with("done move="));
        let mv = parse_line(&out[1])
            .unwrap()
            .value("move")
            .unwrap()
            .to_string();
        assert!(parse_move(game.position(), &mv).is_ok());
    }

    #[test]
    fn ticks_leave_a_live_search_alone() {
        let mut h = Harness::new();
        h.send("pos");
        h.send("go analyze");
        let mut out = Vec::new();
        for _ in 0..3 {
            h.session.handle(Input::Tick, &mut out);
        }
        assert!(out.is_empty() && h.session.is_searching());
        h.send("stop");
        assert!(h.until_done().last().unwrap().starts_with("done move="));
    }

    #[test]
    fn scores_in_men() {
        assert_eq!(format_score(Score::Eval(35)), "0.35");
        assert_eq!(format_score(Score::Eval(-120)), "-1.20");
        assert_eq!(format_score(Score::Win(5)), "99.95");
        assert_eq!(format_score(Score::Loss(4)), "-99.96");
    }

    #[test]
    fn serve_reads_lines_and_quits_on_eof() {
        let input = b"hub\ninit\nping\npos\nlevel depth=1\ngo think\n".to_vec();
        let (tx, rx) = sync_channel(256);
        let t2 = tx.clone();
        let reader = std::thread::spawn(move || read_input(&input[..], &t2));
        let mut out = Vec::new();
        serve(tx, &rx, &mut out).unwrap();
        reader.join().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\nready\npong\n"), "{text}");
        // at EOF the limited search still finishes and reports
        assert!(text.contains("\ndone move="), "{text}");
    }

    #[test]
    fn overlong_lines_are_skipped() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nping\n");
        let (tx, rx) = sync_channel(256);
        let t2 = tx.clone();
        let reader = std::thread::spawn(move || read_input(&input[..], &t2));
        let mut out = Vec::new();
        serve(tx, &rx, &mut out).unwrap();
        reader.join().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("error message="), "{text}");
        assert!(text.ends_with("pong\n"), "{text}");
    }
}
