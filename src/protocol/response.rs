//! Outbound lines: what the engine says, rendered by `Display`.

use super::options::{OptionKind, Registry, REGISTRY};
use crate::board::{Color, GameEnd, Move};
use crate::engine::{Info, Score, TraceNode};
use std::fmt;
use std::time::Duration;

/// The protocol version announced in the handshake (`id protocol 1`).
pub const PROTOCOL_VERSION: u32 = 1;

/// One reply or engine message. Most render as one line; `help` and `board`
/// render as several (no trailing newline; the transport adds it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// `id <key> <value>`: name, version, author, protocol.
    Id {
        /// `name`, `version`, `author` or `protocol`.
        key: String,
        /// The value.
        value: String,
    },
    /// `option name <N> type ...`: one option of the handshake.
    Option {
        /// The option's name.
        name: String,
        /// Its type, default and range.
        kind: OptionKind,
    },
    /// `kingmeok` (or `uciok`): the handshake is complete.
    HelloOk {
        /// Answering `uci` rather than `kingme`.
        uci: bool,
    },
    /// `readyok`.
    ReadyOk,
    /// `info depth ... pv ...`: one completed iteration, or the final summary.
    Info(Info),
    /// `info string <text>`: a note for people, ignored by programs.
    InfoString(String),
    /// `trace ply ...`: one node of the search tree (`go trace N`).
    Trace(TraceNode),
    /// `bestmove <move> [ponder <move>]`, or `bestmove none` without a legal move.
    BestMove {
        /// The move; `None` when the game is over.
        mv: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
    },
    /// `gameover <pdn-result> <text>`: the game has ended.
    GameOver(GameEnd),
    /// `played <move>`: `play` applied this move (full notation).
    Played(Move),
    /// `undone <move>`: `undo` took this move back.
    Undone(Move),
    /// `moves <move> ...` or `moves none`.
    Moves(Vec<Move>),
    /// `values <move> <value> ...`: after `moves`, each legal move's exact
    /// value for the player making it (`win N`, `loss N`, `draw`), when known.
    Values(Vec<(Move, Score)>),
    /// `hint <move> [score <score>]`, or `hint none` when the game is over:
    /// the move the engine would play (not played).
    Hint {
        /// The move; `None` when the game is over.
        mv: Option<Move>,
        /// Its score, when an iteration completed.
        score: Option<Score>,
    },
    /// `perft depth <N> nodes <count> time <ms>`.
    Perft {
        /// Depth counted.
        depth: u32,
        /// Leaves found (every capture path counted).
        nodes: u64,
        /// Time taken.
        time: Duration,
    },
    /// `eval score <score>`: the static evaluation, side to move's view.
    Eval(Score),
    /// The ASCII board then `fen`, `turn`, `last` and, when over, `gameover` lines.
    Board {
        /// The diagram from [`crate::Position::diagram`].
        diagram: String,
        /// The current position's FEN.
        fen: String,
        /// The side to move.
        turn: Color,
        /// The last move played, if any.
        last: Option<Move>,
        /// The result if the game is over.
        result: Option<GameEnd>,
        /// The endgame databases' value for the side to move, when they know it.
        database: Option<crate::egdb::Wdl>,
    },
    /// The command list for people, with the options of this registry.
    Help(Registry),
    /// `review ply <N> by <side> move <m> verdict <v> loss <L> best <m> score <s>
    /// played <s> depth <N> nodes <N> time <ms> [forced] [exact] pv <m> ...
    /// [note <words>]`: one move of a review, judged.
    Review(Box<crate::review::MoveReview>),
    /// `reviewdone complete|stopped black <figures> white <figures>`: the
    /// review is over; each side's moves judged, expected result lost and
    /// count of each verdict.
    ReviewDone(crate::engine::ReviewEnd),
    /// `authok`: the token was right.
    AuthOk,
    /// `error <text>`: the line had no effect (except where the spec says).
    Error(String),
    /// An `error` line that a client acts on, typed.
    Refused(Refusal),
}

/// The `error` lines clients act on: written as `error <text>` like any other,
/// read back as these values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `error bad token; closing`: `auth` sent the wrong token; the server
    /// closes the connection.
    BadToken,
    /// `error not authenticated: send auth <token> first`: the server wants a
    /// token before anything else.
    NotAuthenticated,
    /// `error server full (N connections); try again later`: the TCP server's
    /// connection limit was reached; it closes the connection.
    ServerFull {
        /// The server's connection limit.
        max: usize,
    },
    /// `error busy: ...`: a search is running, and only `stop`, `ponderhit`,
    /// `isready` and `quit` are accepted until its `bestmove`.
    Busy,
}

/// The text of [`Refusal::Busy`] after `error `.
pub(crate) const BUSY: &str =
    "busy: a search is running; only stop, ponderhit, isready and quit are accepted until bestmove";

impl fmt::Display for Refusal {
    /// The text after `error `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadToken => f.write_str("bad token; closing"),
            Refusal::NotAuthenticated => f.write_str("not authenticated: send auth <token> first"),
            Refusal::ServerFull { max } => {
                write!(f, "server full ({max} connections); try again later")
            }
            Refusal::Busy => f.write_str(BUSY),
        }
    }
}

impl fmt::Display for OptionLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type ", self.0)?;
        match self.1 {
            OptionKind::Check { default } => write!(f, "check default {default}"),
            // UCI's convention for an empty string default.
            OptionKind::Text { default } if default.is_empty() => {
                f.write_str("string default <empty>")
            }
            OptionKind::Text { default } => write!(f, "string default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, values } => {
                write!(f, "combo default {default}")?;
                for v in values {
                    write!(f, " var {v}")?;
                }
                Ok(())
            }
        }
    }
}

struct OptionLine<'a>(&'a str, &'a OptionKind);

/// The text of `help`.
const COMMANDS_HELP: &str = "\
kingme commands (one per line; words in <> are yours to fill in):
  kingme | uci                 handshake: id lines, options, then kingmeok (uciok)
  isready                      answered by readyok, also while searching
  setoption name <N> value <V> set an option (see the handshake); Reply on makes play answer
  newgame [english|mini]       a new game from the start position
  position startpos|fen <FEN> [moves <m> ...]   set the game (whole history)
  go [depth N] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS movestogo N]
     [infinite] [ponder] [trace N] [searchmoves <m> ...]
                               search; answered by info lines, then bestmove
  analyze [N]                  search the best N moves until stop (then bestmove)
  hint                         the move the engine would play here, not played
  stop | ponderhit             end the search now | the ponder move was played
  board | moves | eval         show the board | the legal moves (and their exact values
                               when known) | the static evaluation
  play <move> | undo           play a move (11-15, 22x15x8, pass) | take one back
  perft <N>                    count the move tree N plies deep
  review [movetime MS] [depth N] [nodes N] [side black|white|both]
                               judge every move of the game: review lines, then reviewdone
  auth <token>                 log in, when the server asks for a token
  quit                         close the session
While a search runs only stop, ponderhit, isready and quit are accepted.";

/// The reply to `help` in a session offering the options of `registry`:
/// the commands, then every option with its line of help.
#[must_use]
pub fn help_text_for(registry: Registry) -> String {
    let mut t = String::from(COMMANDS_HELP);
    t.push_str("\nOptions (setoption name <N> value <V>; the handshake gives types and ranges):");
    for d in registry {
        t.push_str(&format!("\n  {:<12} {}", d.name, d.help));
    }
    t
}

/// The reply to `help` with kingme's own options.
#[must_use]
pub fn help_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| help_text_for(REGISTRY))
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Id { key, value } => write!(f, "id {key} {value}"),
            Response::Option { name, kind } => write!(f, "{}", OptionLine(name, kind)),
            Response::HelloOk { uci: false } => f.write_str("kingmeok"),
            Response::HelloOk { uci: true } => f.write_str("uciok"),
            Response::ReadyOk => f.write_str("readyok"),
            Response::Info(i) => {
                write!(f, "info depth {} seldepth {}", i.depth, i.seldepth)?;
                if let Some(k) = i.multipv {
                    write!(f, " multipv {k}")?;
                }
                write!(
                    f,
                    " score {} nodes {} prunes {} prunesmax {} prunesmin {} tthits {} egdb {} nps {} time {}",
                    i.score,
                    i.nodes,
                    i.prunes(),
                    i.prunes_max,
                    i.prunes_min,
                    i.tt_hits,
                    i.egdb_probes,
                    i.nps,
                    i.time.as_millis()
                )?;
                if !i.pv.is_empty() {
                    f.write_str(" pv")?;
                    for m in &i.pv {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Response::InfoString(s) => write!(f, "info string {s}"),
            Response::Trace(t) => {
                write!(f, "trace ply {} move ", t.ply)?;
                match t.mv {
                    Some(m) => write!(f, "{m}")?,
                    None => f.write_str("none")?,
                }
                write!(f, " alpha {} beta {} value {}", t.alpha, t.beta, t.value)?;
                if !t.pruned.is_empty() {
                    f.write_str(" pruned")?;
                    for m in &t.pruned {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Response::BestMove { mv, ponder } => {
                match mv {
                    Some(m) => write!(f, "bestmove {m}")?,
                    None => f.write_str("bestmove none")?,
                }
                if let (Some(_), Some(p)) = (mv, ponder) {
                    write!(f, " ponder {p}")?;
                }
                Ok(())
            }
            Response::GameOver(end) => write!(f, "gameover {} {end}", end.outcome.pdn()),
            Response::Played(m) => write!(f, "played {m}"),
            Response::Undone(m) => write!(f, "undone {m}"),
            Response::Moves(ms) => {
                f.write_str("moves")?;
                if ms.is_empty() {
                    f.write_str(" none")?;
                }
                for m in ms {
                    write!(f, " {m}")?;
                }
                Ok(())
            }
            Response::Values(vs) => {
                f.write_str("values")?;
                for (m, v) in vs {
                    write!(f, " {m} {}", v)?;
                }
                Ok(())
            }
            Response::Hint { mv, score } => {
                match mv {
                    Some(m) => write!(f, "hint {m}")?,
                    None => f.write_str("hint none")?,
                }
                if let (Some(_), Some(s)) = (mv, score) {
                    write!(f, " score {}", s)?;
                }
                Ok(())
            }
            Response::Perft { depth, nodes, time } => {
                write!(
                    f,
                    "perft depth {depth} nodes {nodes} time {}",
                    time.as_millis()
                )
            }
            Response::Eval(s) => write!(f, "eval score {}", s),
            Response::Board {
                diagram,
                fen,
                turn,
                last,
                result,
                database,
            } => {
                f.write_str(diagram.trim_end_matches('\n'))?;
                write!(f, "\nfen {fen}\nturn {turn}\nlast ")?;
                match last {
                    Some(m) => write!(f, "{m}")?,
                    None => f.write_str("none")?,
                }
                if let Some(v) = database {
                    write!(f, "\ndatabase {v}")?;
                }
                if let Some(end) = result {
                    write!(f, "\n{}", Response::GameOver(*end))?;
                }
                Ok(())
            }
            Response::Help(r) if std::ptr::eq(*r, REGISTRY) => f.write_str(help_text()),
            Response::Help(r) => f.write_str(&help_text_for(r)),
            Response::Review(r) => super::response_review::write_review(f, r),
            Response::ReviewDone(end) => super::response_review::write_review_done(f, end),
            Response::AuthOk => f.write_str("authok"),
            Response::Error(e) => write!(f, "error {e}"),
            Response::Refused(r) => write!(f, "error {r}"),
        }
    }
}
