//! The session: one client's game, options and search, as a state machine that
//! consumes lines and engine events and produces [`Response`]s. Transports
//! (stdio, TCP) only move bytes; everything the protocol means happens here.
//! What the server decides (authentication, search slots, the longest
//! search, table memory) the session asks of its [`Policy`].
//!
//! - `game`: the position and the moves (`position`, `play`, `moves`, `board`).
//! - `search`: the searches (`go`, `analyze`, `hint`, `perft`), their slot,
//!   their time limit and their answers.
//! - `setoption`: the engine and its options.

use super::command::{Command, ParseCommandError};
use super::options::{self, OptionKind, OptionValue, Registry};
use super::response::{Refusal, Response, PROTOCOL_VERSION};
use crate::board::{Game, Variant};
use crate::engine::{self, Engine, EngineOption, Event, Phase, Score, SearchSlot, Stopped};
use crate::files::FileAccess;
use crate::frontend::{events, EventSender, Events, Flow, Local, Policy};
use crate::perft::PerftInterrupted;

mod game;
mod search;
mod setoption;

/// How the greeting of a server with a token ends.
pub const AUTH_REQUEST: &str = "; send auth <token> first";

/// What a session's commands allow; transports fill it in.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Largest `Hash` a client may set, in MiB.
    pub max_hash_mib: usize,
    /// `Hash` of a new session, in MiB (at most `max_hash_mib`).
    pub default_hash_mib: Option<usize>,
    /// Largest `Threads` a client may set.
    pub max_threads: usize,
    /// Whether the client may set `EGDBCache`, the process-wide cache every
    /// session shares (a network client may not: the operator sets it).
    pub process_options: bool,
    /// Deepest `perft`.
    pub max_perft_depth: u32,
    /// Most leaves one `perft` may count.
    pub max_perft_leaves: u64,
    /// Which server files the client may name (`EvalFile`, `EGDBPath`).
    pub files: FileAccess,
    /// Options every new session's engine starts with (the operator's
    /// `--eval-file`, `--egdb`), before the client's own.
    pub defaults: Vec<EngineOption>,
    /// Largest `go trace N`.
    pub max_trace_nodes: u64,
    /// The options the session offers (kingme's own: [`options::REGISTRY`]).
    pub registry: Registry,
}

impl Default for SessionConfig {
    /// The limits of a local (stdio) session: the engine's own maxima.
    fn default() -> Self {
        SessionConfig {
            max_hash_mib: engine::MAX_HASH_MIB as usize,
            default_hash_mib: None,
            max_threads: engine::MAX_THREADS as usize,
            process_options: true,
            max_perft_depth: 20,
            max_perft_leaves: u64::MAX,
            files: FileAccess::Any,
            defaults: Vec::new(),
            max_trace_nodes: 100_000,
            registry: options::REGISTRY,
        }
    }
}

/// Why a search runs: for `go` (report `bestmove`), to answer `play` (also
/// play it), or for `hint` (say the move and the last score seen, don't play).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Purpose {
    Go,
    Reply,
    Hint(Option<Score>),
    /// `perft N`: answered by its count instead of a move.
    Perft(u32),
    /// `review`: answered by `review` lines and `reviewdone`.
    Review(crate::review::Sides),
}

/// One client's protocol state: its game, its engine and options, its search.
pub struct Session {
    config: SessionConfig,
    /// What its server allows it.
    policy: Box<dyn Policy>,
    /// Created on first need, so idle sessions cost no hash table.
    engine: Option<Engine>,
    game: Game,
    reply: bool,
    search: SearchSlot<Purpose>,
    /// The running search was stopped for reaching the longest time a
    /// search may run.
    overtime: bool,
    /// `readyok`s to send once the running perft has answered.
    ready_owed: usize,
    events: EventSender,
}

impl Session {
    /// A local session (no authentication, no caps but `config`'s) in the
    /// English start position, and the events its searches send.
    #[must_use]
    pub fn new(config: SessionConfig) -> (Session, Events) {
        Session::with_policy(config, Box::new(Local))
    }

    /// A session whose server decides as `policy` says.
    #[must_use]
    pub fn with_policy(config: SessionConfig, policy: Box<dyn Policy>) -> (Session, Events) {
        let (tx, rx) = events::channel();
        (
            Session {
                config,
                policy,
                engine: None,
                game: Game::new(Variant::English),
                reply: false,
                search: SearchSlot::new(),
                overtime: false,
                ready_owed: 0,
                events: tx,
            },
            rx,
        )
    }

    /// The first line a network client sees: a note for people.
    #[must_use]
    pub fn greeting(&self) -> Response {
        let mut s = format!(
            "kingme {} (protocol {PROTOCOL_VERSION}): type help for commands, board to see the game",
            env!("CARGO_PKG_VERSION")
        );
        if self.policy.awaits_auth() {
            s.push_str(AUTH_REQUEST);
        }
        Response::InfoString(s)
    }

    /// Whether the client has authenticated (or needs not).
    #[must_use]
    pub fn is_authed(&self) -> bool {
        !self.policy.awaits_auth()
    }

    /// Whether a search is running or queued (so a `bestmove` is owed).
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.search.is_busy()
    }

    /// Answers a line the transport cut short because it exceeded `max` bytes.
    pub fn handle_overlong(&mut self, max: usize, out: &mut Vec<Response>) {
        out.push(Response::Error(format!(
            "line too long (more than {max} bytes); ignored"
        )));
    }

    /// Handles one line (without its line ending; a trailing CR is ignored).
    pub fn handle_line(&mut self, line: &[u8], out: &mut Vec<Response>) -> Flow {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(text) = std::str::from_utf8(line) else {
            out.push(Response::Error("the line is not valid UTF-8".into()));
            return Flow::Continue;
        };
        let cmd = match text.parse::<Command>() {
            Ok(c) => c,
            Err(ParseCommandError::Empty) => return Flow::Continue,
            Err(e) => {
                out.push(Response::Error(e.to_string()));
                return Flow::Continue;
            }
        };
        tracing::debug!(command = %cmd.redacted(), "command");
        self.handle_command(cmd, out)
    }

    /// Before the client has authenticated: `auth` and `quit` only.
    fn handle_unauthed(&mut self, cmd: Command, out: &mut Vec<Response>) -> Flow {
        match cmd {
            Command::Auth(t) => {
                if self.policy.authenticate(t.as_str()) {
                    out.push(Response::AuthOk);
                    Flow::Continue
                } else {
                    out.push(Response::Refused(Refusal::BadToken));
                    Flow::Quit
                }
            }
            Command::Quit => Flow::Quit,
            _ => {
                out.push(Response::Refused(Refusal::NotAuthenticated));
                Flow::Continue
            }
        }
    }

    /// Handles a parsed command.
    pub fn handle_command(&mut self, cmd: Command, out: &mut Vec<Response>) -> Flow {
        if self.policy.awaits_auth() {
            return self.handle_unauthed(cmd, out);
        }
        match cmd {
            // a count answers before the readyok that follows it, as when
            // perft ran in line
            Command::IsReady if matches!(self.search.context(), Some(Purpose::Perft(_))) => {
                self.ready_owed += 1;
            }
            Command::IsReady => out.push(Response::ReadyOk),
            Command::Quit => {
                self.stop(out);
                return Flow::Quit;
            }
            Command::Stop => self.stop(out),
            Command::PonderHit => self.search.ponderhit(),
            _ if self.is_searching() => out.push(Response::Refused(Refusal::Busy)),
            Command::Hello { uci } => self.hello(uci, out),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref(), out),
            Command::NewGame { variant } => {
                let v = variant.unwrap_or(self.game.variant());
                self.new_game(v);
            }
            Command::Position { start, moves } => self.position(start, &moves, out),
            Command::Go(p) => self.go(p, out),
            Command::Analyze(n) => self.analyze(n, out),
            Command::Hint => self.hint(out),
            Command::Help => out.push(Response::Help(self.config.registry)),
            Command::Board => self.board(out),
            Command::Moves => self.moves(out),
            Command::Play(text) => self.play(&text, out),
            Command::Undo => match self.game.undo() {
                Some(m) => out.push(Response::Undone(m)),
                None => out.push(Response::Error("undo: no move to take back".into())),
            },
            Command::Perft(d) => self.perft(d, out),
            Command::Review(p) => self.review(&p, out),
            Command::Eval => {
                let pos = *self.game.position();
                let s = self.engine().evaluate(&pos);
                out.push(Response::Eval(s));
            }
            Command::Auth(_) => out.push(Response::AuthOk),
        }
        Flow::Continue
    }

    /// Turns one engine event into lines; a `bestmove` ends the search.
    pub fn handle_event(&mut self, ev: Event, out: &mut Vec<Response>) {
        if self.search.phase() != Phase::Searching {
            tracing::warn!(?ev, "engine event without a search");
            return;
        }
        match ev {
            Event::Info(i) => {
                if let Some(Purpose::Hint(score)) = self.search.context_mut() {
                    if i.multipv.unwrap_or(1) == 1 {
                        *score = Some(i.score);
                    }
                }
                out.push(Response::Info(i));
            }
            Event::Book { mv, score, depth } => {
                if let Some(Purpose::Hint(hint)) = self.search.context_mut() {
                    *hint = Some(score);
                }
                out.push(Response::InfoString(format!(
                    "book {mv} score {score} depth {depth}"
                )));
            }
            Event::Trace(t) => out.push(Response::Trace(t)),
            Event::BestMove { mv, ponder } => {
                if let Some(purpose) = self.search.answer() {
                    self.finish(purpose, mv, ponder, out);
                }
            }
            Event::Reviewed(r) => out.push(Response::Review(r)),
            Event::ReviewDone(end) => {
                if self.search.answer().is_some() {
                    out.push(Response::ReviewDone(end));
                }
            }
            Event::Perft {
                depth,
                leaves,
                time,
            } => {
                if self.search.answer().is_some() {
                    out.push(match leaves {
                        Ok(nodes) => Response::Perft { depth, nodes, time },
                        Err(PerftInterrupted::OverBudget(n)) => Response::Error(format!(
                            "perft: over this session's limit of {n} leaves; stopped"
                        )),
                        Err(e) => Response::Error(format!("perft: {e}")),
                    });
                    self.pay_ready(out);
                }
            }
        }
    }

    /// The input has ended (EOF): a held search (`infinite`, `ponder`) is
    /// stopped; a limited one runs to its end. The transport then drains events
    /// while [`Session::is_searching`].
    pub fn input_closed(&mut self, out: &mut Vec<Response>) {
        if self.search.is_held() || self.search.phase() == Phase::Queued {
            self.stop(out);
        }
    }

    /// Stops the search, if any; its `bestmove` follows as an event (or at once
    /// when it was only queued).
    pub fn stop(&mut self, out: &mut Vec<Response>) {
        if let Stopped::Unstarted(purpose) = self.search.stop() {
            // Never started: answer with the best move by static evaluation.
            let mv = self.quick_move();
            self.finish(purpose, mv, None, out);
        }
    }
}

#[cfg(test)]
mod tests;
