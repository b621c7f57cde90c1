//! Inbound commands: what a client may send, one per line.

use super::parse;
use super::token::Token;
use crate::board::Variant;
use std::fmt;
use std::str::FromStr;

/// Deepest `go depth` accepted.
pub const MAX_GO_DEPTH: u32 = 127;
/// Deepest `perft` the parser accepts (a session may cap it lower).
pub const MAX_PERFT_DEPTH: u32 = 30;

/// One line from a client, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `kingme` (or `uci`): identify the engine and list its options.
    Hello {
        /// Sent as `uci`: the closing line is `uciok` instead of `kingmeok`.
        uci: bool,
    },
    /// `isready`: answered by `readyok`, also during a search.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (words joined by single spaces).
        name: String,
        /// The value, if one was given.
        value: Option<String>,
    },
    /// `newgame [english|mini]` (or `ucinewgame`): a fresh game, tables cleared.
    NewGame {
        /// The variant to switch to; `None` keeps the current one.
        variant: Option<Variant>,
    },
    /// `position startpos|fen <FEN> [moves <move> ...]`.
    Position {
        /// Where the game starts.
        start: StartPos,
        /// The moves played since, as sent (checked against the rules by the session).
        moves: Vec<String>,
    },
    /// `go [limits]`: search the current position.
    Go(GoParams),
    /// `analyze [N]`: search until `stop`, reporting the best N root moves
    /// (default: the MultiPV option if above 1, else 3).
    Analyze(Option<u32>),
    /// `hint`: search at the session's level and say the move, without playing it.
    Hint,
    /// `stop`: end the search now; its `bestmove` follows.
    Stop,
    /// `ponderhit`: the expected move was played; the ponder search goes on for real.
    PonderHit,
    /// `quit` (or `exit`): close the session.
    Quit,
    /// `help`: the command list, for people.
    Help,
    /// `board` (or `d`): an ASCII diagram of the current position.
    Board,
    /// `moves`: the legal moves.
    Moves,
    /// `play <move>`: apply a move to the current game.
    Play(String),
    /// `undo`: take back the last move.
    Undo,
    /// `perft <depth>`: count the leaves of the move tree.
    Perft(u32),
    /// `eval`: the static evaluation of the current position.
    Eval,
    /// `review [movetime MS] [depth N] [nodes N] [side black|white|both]`:
    /// judge every move of the current game, one search a position.
    Review(ReviewParams),
    /// `auth <token>`: log in to a server started with `--token`. Its
    /// `Debug` hides the token.
    Auth(Token),
}

/// The start of the game in a `position` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPos {
    /// The variant's standard start.
    Start,
    /// A PDN FEN (one word, no spaces), checked by the session.
    Fen(String),
}

/// The arguments of `go`: the engine's [`GoLimits`](crate::engine::GoLimits)
/// with the `searchmoves` as sent (checked against the rules by the session).
pub type GoParams = crate::engine::GoLimits<String>;

/// The arguments of `review`: each position's search limits (without
/// any, [`REVIEW_DEFAULT_MOVETIME_MS`] a position) and whose moves are judged.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ReviewParams {
    /// Time per position.
    pub movetime: Option<std::time::Duration>,
    /// Depth per position.
    pub depth: Option<u32>,
    /// Nodes per position.
    pub nodes: Option<u64>,
    /// Whose moves are judged.
    pub side: crate::review::Sides,
}

/// Milliseconds a position of `review` is searched when no limit is given.
pub const REVIEW_DEFAULT_MOVETIME_MS: u64 = 500;

impl ReviewParams {
    /// These parameters with the default limit filled in when none is given.
    #[must_use]
    pub fn effective(&self) -> ReviewParams {
        let none = self.movetime.is_none() && self.depth.is_none() && self.nodes.is_none();
        ReviewParams {
            movetime: if none {
                Some(std::time::Duration::from_millis(REVIEW_DEFAULT_MOVETIME_MS))
            } else {
                self.movetime
            },
            ..self.clone()
        }
    }

    /// The search limits of one position.
    #[must_use]
    pub fn limits(&self) -> crate::engine::GoLimits {
        let p = self.effective();
        crate::engine::GoLimits {
            movetime: p.movetime,
            depth: p.depth,
            nodes: p.nodes,
            ..crate::engine::GoLimits::default()
        }
    }
}

/// The arguments as `review` takes them: `movetime 100 depth 12 side black`
/// (the limits given, the side unless both).
impl fmt::Display for ReviewParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = Vec::new();
        if let Some(t) = self.movetime {
            words.push(format!("movetime {}", t.as_millis()));
        }
        if let Some(d) = self.depth {
            words.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            words.push(format!("nodes {n}"));
        }
        if self.side != crate::review::Sides::Both {
            words.push(format!("side {}", self.side));
        }
        f.write_str(&words.join(" "))
    }
}

/// Largest `analyze N` (the MultiPV option's range).
pub const MAX_ANALYZE_LINES: u32 = 64;

/// A line that is not a command, or a command with bad arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseCommandError {
    /// Nothing but blanks (sessions ignore such lines).
    #[error("empty line")]
    Empty,
    /// A control character other than tab.
    #[error("the line holds a control character (byte {0:#04x}); send plain text")]
    ControlCharacter(u32),
    /// The first word is no command.
    #[error("unknown command '{0}'; type help for the list")]
    Unknown(String),
    /// A known command whose arguments are wrong.
    #[error("{command}: expected {expected}, found {found}")]
    BadArgument {
        /// The command's name.
        command: &'static str,
        /// What would have been accepted here.
        expected: String,
        /// What was there instead (quoted) or `end of line`.
        found: String,
    },
}

impl FromStr for Command {
    type Err = ParseCommandError;
    fn from_str(s: &str) -> Result<Command, ParseCommandError> {
        parse::command(s)
    }
}

impl fmt::Display for StartPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartPos::Start => f.write_str("startpos"),
            StartPos::Fen(fen) => write!(f, "fen {fen}"),
        }
    }
}

impl Command {
    /// The command as a log line may show it: the canonical text, with the
    /// token of `auth` hidden.
    #[must_use]
    pub fn redacted(&self) -> Redacted<'_> {
        Redacted(self)
    }
}

/// A [`Command`] written with its secret hidden (see [`Command::redacted`]).
pub struct Redacted<'a>(&'a Command);

impl fmt::Display for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Command::Auth(_) => f.write_str("auth (token hidden)"),
            c => c.fmt(f),
        }
    }
}

impl fmt::Display for Command {
    /// The canonical text, which parses back to the same command.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Hello { uci: false } => f.write_str("kingme"),
            Command::Hello { uci: true } => f.write_str("uci"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                if let Some(v) = value {
                    write!(f, " value {v}")?;
                }
                Ok(())
            }
            Command::NewGame { variant: None } => f.write_str("newgame"),
            Command::NewGame { variant: Some(v) } => write!(f, "newgame {v}"),
            Command::Position { start, moves } => {
                write!(f, "position {start}")?;
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Command::Go(p) => write!(f, "go{p}"),
            Command::Analyze(None) => f.write_str("analyze"),
            Command::Analyze(Some(n)) => write!(f, "analyze {n}"),
            Command::Hint => f.write_str("hint"),
            Command::Stop => f.write_str("stop"),
            Command::PonderHit => f.write_str("ponderhit"),
            Command::Quit => f.write_str("quit"),
            Command::Help => f.write_str("help"),
            Command::Board => f.write_str("board"),
            Command::Moves => f.write_str("moves"),
            Command::Play(m) => write!(f, "play {m}"),
            Command::Undo => f.write_str("undo"),
            Command::Perft(d) => write!(f, "perft {d}"),
            Command::Eval => f.write_str("eval"),
            Command::Review(p) if *p == ReviewParams::default() => f.write_str("review"),
            Command::Review(p) => write!(f, "review {p}"),
            Command::Auth(t) => write!(f, "auth {}", t.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_auth_token() {
        let cmd: Command = "auth s3cret-Token".parse().unwrap();
        let shown = format!("{cmd:?} {cmd:#?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(format!("{cmd:?}"), "Auth(Token(***))");
        assert_eq!(cmd.to_string(), "auth s3cret-Token", "Display round-trips");
        assert_eq!(cmd.redacted().to_string(), "auth (token hidden)");
    }

    #[test]
    fn review_is_written_as_it_is_read() {
        for line in [
            "review",
            "review movetime 100",
            "review depth 9 nodes 500 side white",
        ] {
            let cmd: Command = line.parse().unwrap();
            assert_eq!(cmd.to_string(), line);
        }
        let Command::Review(p) = "review side black".parse::<Command>().unwrap() else {
            panic!("not a review");
        };
        // without a limit, the default movetime
        assert_eq!(
            p.effective().to_string(),
            format!("movetime {REVIEW_DEFAULT_MOVETIME_MS} side black")
        );
        assert_eq!(p.limits().depth, None);
    }

    /// Every limit in the engine's list parses and is written back; the
    /// error for an unknown limit names them all, and the
    /// range errors quote the constants.
    #[test]
    fn go_takes_exactly_the_listed_limits() {
        use crate::engine::GO_KEYS;
        let arg = |k: &str| match k {
            "infinite" | "ponder" => String::new(),
            "searchmoves" => " 11-15".into(),
            _ => " 7".into(),
        };
        let mut all = String::from("go");
        for k in GO_KEYS.iter().rev() {
            let line = format!("go {k}{}", arg(k));
            let cmd: Command = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(cmd.to_string(), line);
            if *k != "searchmoves" {
                all.push_str(&format!(" {k}{}", arg(k)));
            }
        }
        all.push_str(" searchmoves 11-15");
        let written = all.parse::<Command>().unwrap().to_string();
        let mut keys: Vec<&str> = written.split(' ').filter(|w| GO_KEYS.contains(w)).collect();
        keys.sort_unstable();
        let mut listed = GO_KEYS.to_vec();
        listed.sort_unstable();
        assert_eq!(keys, listed, "{written}");
        let err = "go sideways".parse::<Command>().unwrap_err().to_string();
        for k in GO_KEYS {
            assert!(err.contains(k), "{err}");
        }
        let err = "go depth 0".parse::<Command>().unwrap_err().to_string();
        assert!(err.contains(&format!("1 to {MAX_GO_DEPTH}")), "{err}");
        let err = "perft 0".parse::<Command>().unwrap_err().to_string();
        assert!(err.contains(&format!("1 to {MAX_PERFT_DEPTH}")), "{err}");
        let err = "analyze 0".parse::<Command>().unwrap_err().to_string();
        assert!(err.contains(&format!("1 to {MAX_ANALYZE_LINES}")), "{err}");
    }
}
