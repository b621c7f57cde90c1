//! `HubSession`: one Hub client's options, position, level and search, turning
//! input lines and search events into output lines.

use super::wire::{self, format_move, parse_line, parse_move, parse_position, quote, HubLine};
use crate::board::{Game, Position, Variant};
use crate::engine::option_table::{self, OptionType, OptionValue, OptionValues, Registry};
use crate::engine::{Engine, Event, GoLimits, Info, Score, SearchSlot};
use crate::frontend::{events, EventSender, Events, Flow};
use crate::server::driver::{Driven, Notice};
use crate::server::Line;
use std::time::Duration;

/// One Hub session: options, the position, the search level, the running search.
/// It turns input lines and search events into output lines.
pub struct HubSession {
    pub(super) engine: Engine,
    pub(super) variant: Variant,
    /// The game from the last `pos`, or why that `pos` was rejected.
    pub(super) game: Result<Game, String>,
    pub(super) level: GoLimits,
    /// The search, and the position its `done` and `info` moves are read in.
    pub(super) search: SearchSlot<Position>,
    /// `quit` was read: the stopped search's `done` is not written.
    pub(super) quit: bool,
    pub(super) events: EventSender,
    /// The options `hello` offers and `set-param` takes.
    pub(super) registry: Registry,
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
        Score::Draw => "0.00".to_string(),
        Score::Win(p) => format!("{:.2}", 100.0 - f64::from(p.min(9000)) / 100.0),
        Score::Loss(p) => format!("{:.2}", -100.0 + f64::from(p.min(9000)) / 100.0),
    }
}

impl HubSession {
    /// A session, and the events its searches send.
    #[must_use]
    pub fn new() -> (HubSession, Events) {
        HubSession::with_registry(option_table::REGISTRY)
    }

    /// A session offering the options of `registry`.
    #[must_use]
    pub fn with_registry(registry: Registry) -> (HubSession, Events) {
        let (tx, rx) = events::channel();
        let session = HubSession {
            engine: Engine::new(),
            variant: Variant::English,
            game: Ok(Game::new(Variant::English)),
            level: GoLimits::default(),
            search: SearchSlot::new(),
            quit: false,
            events: tx,
            registry,
        };
        (session, rx)
    }

    /// Whether a search is running.
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.search.is_busy()
    }

    /// Asks the running search, if any, to stop (it still reports its move).
    pub fn stop(&mut self) {
        self.search.stop();
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
            "new-game" if !self.search.is_busy() => self.engine.new_game(self.variant),
            "pos" => self.pos(&line, out),
            "level" => self.set_level(&line, out),
            "go" => self.go(&line, out),
            "stop" => self.stop(),
            "ponder-hit" => self.search.ponderhit(),
            "quit" => {
                self.stop();
                self.quit = true;
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
            quote(crate::AUTHORS)
        ));
        // the options Hub offers, from the one registry
        let values = OptionValues {
            engine: self.engine.options().clone(),
            variant: self.variant,
            reply: false,
        };
        for decl in self.registry {
            let Some(name) = decl.hub else { continue };
            let kind = match decl.ty {
                OptionType::Check => "type=bool".to_string(),
                OptionType::Spin { min, max } => format!("type=int min={min} max={max}"),
                OptionType::Text => "type=string".to_string(),
                OptionType::Combo { values } => {
                    format!("type=enum values={}", quote(&values().join(" ")))
                }
            };
            out.push(format!(
                "param name={name} value={} {kind}",
                quote(&decl.write(&values))
            ));
        }
        out.push("wait".into());
    }

    fn set_param(&mut self, line: &HubLine, out: &mut Vec<String>) {
        let (Some(name), Some(value)) = (line.value("name"), line.value("value")) else {
            out.push(error("set-param needs name=.. and value=.."));
            return;
        };
        let Some(decl) = option_table::find_hub(self.registry, name) else {
            out.push(error(&format!("set-param: unknown parameter '{name}'")));
            return;
        };
        match decl.read(value) {
            Err(e) => out.push(error(&e.to_string())),
            Ok(OptionValue::Variant(v)) => {
                self.variant = v;
                self.game = Ok(Game::new(v));
            }
            Ok(OptionValue::Engine(o)) => {
                if let Err(e) = option_table::give(&mut self.engine, decl, value, o) {
                    out.push(error(&e.to_string()));
                }
            }
            Ok(OptionValue::Reply(_)) => {
                out.push(error(&format!("set-param: {name} is not Hub's")));
            }
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
        let mut l = GoLimits::default();
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
            l.set_clock(left, Some(inc), l.movestogo);
        } else {
            l.movestogo = None;
        }
        self.level = l;
    }

    fn go(&mut self, line: &HubLine, out: &mut Vec<String>) {
        if self.search.is_busy() {
            // this `go` gets its own `done`; the running search keeps its own
            out.push(error("go: a search is already running"));
            out.push("done move=0-0".into());
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
        let handle = self
            .engine
            .go(&game, limits.clone(), self.events.on_event());
        self.search.start(handle, *game.position(), None);
    }

    /// Handles an event of the running search (after `quit`, silently).
    pub fn handle_event(&mut self, ev: Event, out: &mut Vec<String>) {
        let Some(&pos) = self.search.context() else {
            return;
        };
        if self.quit {
            if let Event::BestMove { .. } = ev {
                self.search.answer();
            }
            return;
        }
        match ev {
            Event::Info(info) => out.push(info_line(&pos, &info)),
            Event::Book { mv, score, depth } => {
                out.push(info_line(&pos, &Info::of_book_move(mv, score, depth)));
            }
            Event::BestMove { mv, ponder } => {
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
                self.search.answer();
            }
            Event::Trace(_) | Event::Perft { .. } | Event::Reviewed(_) | Event::ReviewDone(_) => {}
        }
    }
}

/// A Hub session as the server's driver runs it on stdin and stdout.
impl Driven for HubSession {
    type Input = Line;
    type Output = String;
    type Event = Event;

    fn handle(&mut self, input: Line, out: &mut Vec<String>) -> Flow {
        match input {
            Line::Text(bytes) => self.handle_line(&String::from_utf8_lossy(&bytes), out),
            Line::TooLong { max } => {
                out.push(error(&format!("line longer than {max} bytes ignored")));
                Flow::Continue
            }
        }
    }

    fn handle_event(&mut self, event: Event, out: &mut Vec<String>) {
        HubSession::handle_event(self, event, out);
    }

    fn notice(&self, notice: Notice) -> Option<String> {
        match notice {
            Notice::Refused(why) => Some(error(&why)),
            Notice::Idle(idle) => Some(error(&format!("idle for {idle:?}; closing"))),
            Notice::NotAuthenticated | Notice::ShuttingDown => None,
        }
    }

    fn is_searching(&self) -> bool {
        HubSession::is_searching(self)
    }

    /// A limited search still finishes and its `done` is written.
    fn input_closed(&mut self, _out: &mut Vec<String>) {
        if self.search.is_held() {
            self.stop();
        }
    }

    fn stop(&mut self, _out: &mut Vec<String>) {
        HubSession::stop(self);
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
    let multipv = info
        .multipv
        .map(|k| format!(" multipv={k}"))
        .unwrap_or_default();
    format!(
        "info depth={}{multipv} score={} nodes={} time={:.3} nps={} egdb={} pv={}",
        info.depth,
        format_score(info.score),
        info.nodes,
        info.time.as_secs_f64(),
        info.nps,
        info.egdb_probes,
        quote_always(&pv.join(" "))
    )
}

fn quote_always(v: &str) -> String {
    format!("\"{}\"", v.replace('"', "'"))
}
