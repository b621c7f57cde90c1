//! The nom grammar of inbound lines.
//!
//! The first word picks the command (case-insensitive); its arguments are then
//! parsed under `cut`, so a bad argument reports what was expected there instead
//! of falling back to "unknown command".

use super::command::{
    Command, GoParams, ParseCommandError, ReviewParams, StartPos, MAX_ANALYZE_LINES, MAX_GO_DEPTH,
    MAX_PERFT_DEPTH,
};
use super::token::Token;
use crate::board::Variant;
use crate::engine::GO_KEYS;
use nom::branch::alt;
use nom::bytes::complete::{tag_no_case, take_till1, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::{cut, eof, map, opt, peek, recognize, value};
use nom::error::{ContextError, ErrorKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};
use std::sync::LazyLock;

/// A parse failure: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected<'a> {
    at: &'a str,
    expected: Option<&'static str>,
}

impl<'a> ParseError<&'a str> for Expected<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        Expected {
            at: input,
            expected: None,
        }
    }
    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
    fn or(self, other: Self) -> Self {
        if other.expected.is_some() {
            other
        } else {
            self
        }
    }
}

impl<'a> ContextError<&'a str> for Expected<'a> {
    /// Keeps the innermost (most specific) expectation.
    fn add_context(input: &'a str, ctx: &'static str, other: Self) -> Self {
        if other.expected.is_some() {
            other
        } else {
            Expected {
                at: input,
                expected: Some(ctx),
            }
        }
    }
}

type Res<'a, T> = IResult<&'a str, T, Expected<'a>>;

/// A hard failure expecting `what` at `at`.
fn fail<'a, T>(at: &'a str, what: &'static str) -> Res<'a, T> {
    Err(nom::Err::Failure(Expected {
        at,
        expected: Some(what),
    }))
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A word: a run of non-blank characters, after optional blanks.
fn word(i: &str) -> Res<'_, &str> {
    preceded(space0, take_till1(is_blank)).parse(i)
}

/// The keyword `kw` as a whole word (case-insensitive), after at least one blank.
fn keyword<'a>(kw: &'static str) -> impl Parser<&'a str, Output = &'a str, Error = Expected<'a>> {
    preceded(
        space1,
        terminated(tag_no_case(kw), peek(alt((space1, eof)))),
    )
}

/// Optional blanks, then the end of the line.
fn end(i: &str) -> Res<'_, ()> {
    let (r, _) = space0(i)?;
    if r.is_empty() {
        Ok((r, ()))
    } else {
        fail(r, "end of line")
    }
}

/// A whole-word unsigned number after a blank; `what` names it in errors.
fn number<'a, T: std::str::FromStr>(what: &'static str) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |i: &'a str| {
        let (r, _) = space1(i).or_else(|_: nom::Err<Expected<'a>>| fail(i, what))?;
        let at = r;
        let (r, digits) = terminated(digit1::<&str, Expected<'a>>, peek(alt((space1, eof))))
            .parse(r)
            .or_else(|_| fail(at, what))?;
        match digits.parse::<T>() {
            Ok(v) => Ok((r, v)),
            Err(_) => fail(at, what),
        }
    }
}

/// A time in milliseconds; a negative clock (some GUIs send one) counts as 0.
fn millis<'a>(what: &'static str) -> impl FnMut(&'a str) -> Res<'a, u64> {
    move |i: &'a str| {
        let (r, _) = space1(i).or_else(|_: nom::Err<Expected<'a>>| fail(i, what))?;
        let at = r;
        let (r, text) = terminated(
            recognize(pair(opt(char::<&str, Expected<'a>>('-')), digit1)),
            peek(alt((space1, eof))),
        )
        .parse(r)
        .or_else(|_| fail(at, what))?;
        match text.parse::<i64>() {
            Ok(v) => Ok((r, v.max(0) as u64)),
            Err(_) => fail(at, what),
        }
    }
}

/// A move token: `pass`, or square numbers joined by `-` or `x`.
fn move_token(i: &str) -> Res<'_, &str> {
    preceded(
        space1,
        terminated(
            alt((
                tag_no_case("pass"),
                take_while1(|c: char| c.is_ascii_digit() || matches!(c, '-' | 'x' | 'X')),
            )),
            peek(alt((space1, eof))),
        ),
    )
    .parse(i)
}

const MOVE: &str = "a move (11-15, 22x15x8 or pass)";

fn variant_name(i: &str) -> Res<'_, Variant> {
    alt((
        value(Variant::English, keyword("english")),
        value(Variant::Mini, keyword("mini")),
    ))
    .parse(i)
}

fn newgame_args(i: &str) -> Res<'_, Command> {
    let (r, variant) = opt(variant_name).parse(i)?;
    match end(r) {
        Ok((r, ())) => Ok((r, Command::NewGame { variant })),
        Err(_) if variant.is_none() => fail(r.trim_start(), "english, mini or end of line"),
        Err(e) => Err(e),
    }
}

fn position_args(i: &str) -> Res<'_, Command> {
    let (r, start) = alt((
        value(StartPos::Start, keyword("startpos")),
        map(
            preceded(keyword("fen"), cut(preceded(space1, take_till1(is_blank)))),
            |f: &str| StartPos::Fen(f.to_string()),
        ),
    ))
    .parse(i)
    .or_else(|e| match e {
        nom::Err::Failure(f) if f.expected.is_some() => Err(nom::Err::Failure(f)),
        nom::Err::Failure(f) => fail(f.at, "a FEN after fen"),
        _ => fail(i.trim_start(), "startpos or fen <FEN>"),
    })?;
    let (r, has_moves) = opt(keyword("moves")).parse(r)?;
    let mut moves = Vec::new();
    let mut r = r;
    if has_moves.is_some() {
        loop {
            let (rest, _) = space0(r)?;
            if rest.is_empty() {
                break;
            }
            let (rest, m) = move_token(r).or_else(|_| fail(rest, MOVE))?;
            moves.push(m.to_string());
            r = rest;
        }
    } else if !r.trim().is_empty() {
        return fail(r.trim_start(), "moves or end of line");
    }
    Ok((r, Command::Position { start, moves }))
}

fn setoption_args(i: &str) -> Res<'_, Command> {
    let (mut r, _) = keyword("name")
        .parse(i)
        .or_else(|_| fail(i.trim_start(), "name <option> [value <value>]"))?;
    let mut name: Vec<&str> = Vec::new();
    let mut value = None;
    loop {
        if let Ok((rest, _)) = keyword("value").parse(r) {
            let v = rest.trim_matches(is_blank);
            if v.is_empty() {
                return fail(v, "a value after value");
            }
            value = Some(v.to_string());
            r = "";
            break;
        }
        match word(r) {
            Ok((rest, w)) => {
                name.push(w);
                r = rest;
            }
            Err(_) => break,
        }
    }
    if name.is_empty() {
        return fail(r, "an option name after name");
    }
    Ok((
        r,
        Command::SetOption {
            name: name.join(" "),
            value,
        },
    ))
}

/// What `go` takes, from the engine's list of limits.
static GO_OPTION: LazyLock<String> =
    LazyLock::new(|| format!("a go limit ({}) or end of line", GO_KEYS.join(", ")));
/// `go depth`'s range, from its constant.
static GO_DEPTH: LazyLock<String> =
    LazyLock::new(|| format!("a depth from 1 to {MAX_GO_DEPTH} after depth"));
/// `analyze`'s range, from its constant.
static ANALYZE_LINES: LazyLock<String> =
    LazyLock::new(|| format!("a line count from 1 to {MAX_ANALYZE_LINES} or end of line"));
/// `perft`'s range, from its constant.
static PERFT_DEPTH: LazyLock<String> =
    LazyLock::new(|| format!("a depth from 1 to {MAX_PERFT_DEPTH}"));

fn go_args(i: &str) -> Res<'_, Command> {
    let mut p = GoParams::default();
    let mut r = i;
    loop {
        let (rest, _) = space0(r)?;
        if rest.is_empty() {
            return Ok((rest, Command::Go(p)));
        }
        let at = rest;
        let (rest, key) = word(rest)?;
        let k = key.to_ascii_lowercase();
        // each limit once; `searchmoves` takes the rest of the line
        let once = |taken: bool| {
            if taken {
                fail(at, "each go limit at most once")
            } else {
                Ok((rest, ()))
            }
        };
        let ms = std::time::Duration::from_millis;
        r = match k.as_str() {
            "depth" => {
                once(p.depth.is_some())?;
                let (rest2, d) = depth_limit(rest)?;
                p.depth = Some(d);
                rest2
            }
            "nodes" => {
                once(p.nodes.is_some())?;
                let (rest2, n) = node_limit(rest)?;
                p.nodes = Some(n);
                rest2
            }
            "movetime" => {
                once(p.movetime.is_some())?;
                let (rest2, n) = number::<u64>("milliseconds after movetime")(rest)?;
                p.movetime = Some(ms(n));
                rest2
            }
            "wtime" | "btime" | "winc" | "binc" => {
                let field = match k.as_str() {
                    "wtime" => &mut p.wtime,
                    "btime" => &mut p.btime,
                    "winc" => &mut p.winc,
                    _ => &mut p.binc,
                };
                once(field.is_some())?;
                let what = match k.as_str() {
                    "wtime" => "milliseconds after wtime",
                    "btime" => "milliseconds after btime",
                    "winc" => "milliseconds after winc",
                    _ => "milliseconds after binc",
                };
                let (rest2, n) = millis(what)(rest)?;
                *field = Some(ms(n));
                rest2
            }
            "movestogo" => {
                once(p.movestogo.is_some())?;
                let what = "a move count from 1 after movestogo";
                let (rest2, n) = number::<u32>(what)(rest)?;
                if n == 0 {
                    return fail(rest.trim_start(), what);
                }
                p.movestogo = Some(n);
                rest2
            }
            "trace" => {
                once(p.trace.is_some())?;
                let (rest2, n) = number::<u64>("a node count after trace")(rest)?;
                p.trace = Some(n);
                rest2
            }
            "infinite" => {
                once(p.infinite)?;
                p.infinite = true;
                rest
            }
            "ponder" => {
                once(p.ponder)?;
                p.ponder = true;
                rest
            }
            "searchmoves" => {
                let mut r = rest;
                loop {
                    let (after, _) = space0(r)?;
                    if after.is_empty() {
                        break;
                    }
                    let (after, m) = move_token(r).or_else(|_| fail(after, MOVE))?;
                    p.searchmoves.push(m.to_string());
                    r = after;
                }
                if p.searchmoves.is_empty() {
                    return fail(r, "a move after searchmoves");
                }
                return Ok((r, Command::Go(p)));
            }
            _ => return fail(at, &GO_OPTION),
        };
    }
}

fn analyze_args(i: &str) -> Res<'_, Command> {
    let what: &'static str = &ANALYZE_LINES;
    if end(i).is_ok() {
        return Ok(("", Command::Analyze(None)));
    }
    let (r, n) = number::<u32>(what)(i)?;
    if n == 0 || n > MAX_ANALYZE_LINES {
        return fail(i.trim_start(), what);
    }
    let (r, ()) = end(r)?;
    Ok((r, Command::Analyze(Some(n))))
}

/// The depth after `depth`, 1 to [`MAX_GO_DEPTH`].
fn depth_limit(rest: &str) -> Res<'_, u32> {
    let what: &'static str = &GO_DEPTH;
    let (r, d) = number::<u32>(what)(rest)?;
    if d == 0 || d > MAX_GO_DEPTH {
        return fail(rest.trim_start(), what);
    }
    Ok((r, d))
}

/// The node count after `nodes`, from 1.
fn node_limit(rest: &str) -> Res<'_, u64> {
    let what = "a node count from 1 to 2^64-1 after nodes";
    let (r, n) = number::<u64>(what)(rest)?;
    if n == 0 {
        return fail(rest.trim_start(), what);
    }
    Ok((r, n))
}

fn review_args(i: &str) -> Res<'_, Command> {
    let mut p = ReviewParams::default();
    let mut side = false;
    let mut r = i;
    loop {
        let (rest, _) = space0(r)?;
        if rest.is_empty() {
            return Ok((rest, Command::Review(p)));
        }
        let at = rest;
        let (rest, key) = word(rest)?;
        let once = |taken: bool| {
            if taken {
                fail(at, "each review limit at most once")
            } else {
                Ok((rest, ()))
            }
        };
        r = match key.to_ascii_lowercase().as_str() {
            "movetime" => {
                once(p.movetime.is_some())?;
                let what = "milliseconds from 1 after movetime";
                let (rest2, n) = number::<u64>(what)(rest)?;
                if n == 0 {
                    return fail(rest.trim_start(), what);
                }
                p.movetime = Some(std::time::Duration::from_millis(n));
                rest2
            }
            "depth" => {
                once(p.depth.is_some())?;
                let (rest2, d) = depth_limit(rest)?;
                p.depth = Some(d);
                rest2
            }
            "nodes" => {
                once(p.nodes.is_some())?;
                let (rest2, n) = node_limit(rest)?;
                p.nodes = Some(n);
                rest2
            }
            "side" => {
                once(side)?;
                side = true;
                let what = "black, white or both after side";
                let (rest2, w) = word(rest).or_else(|_| fail(rest.trim_start(), what))?;
                p.side = match w.parse() {
                    Ok(s) => s,
                    Err(_) => return fail(rest.trim_start(), what),
                };
                rest2
            }
            _ => return fail(at, "movetime, depth, nodes or side"),
        };
    }
}

fn perft_args(i: &str) -> Res<'_, Command> {
    let what: &'static str = &PERFT_DEPTH;
    let (r, d) = number::<u32>(what)(i)?;
    if d == 0 || d > MAX_PERFT_DEPTH {
        return fail(i.trim_start(), what);
    }
    let (r, ()) = end(r)?;
    Ok((r, Command::Perft(d)))
}

fn play_args(i: &str) -> Res<'_, Command> {
    let (r, m) = move_token(i).or_else(|_| fail(i.trim_start(), MOVE))?;
    let (r, ()) = end(r)?;
    Ok((r, Command::Play(m.to_string())))
}

fn auth_args(i: &str) -> Res<'_, Command> {
    let (r, t) = preceded(space1::<&str, Expected<'_>>, take_till1(is_blank))
        .parse(i)
        .or_else(|_| fail(i.trim_start(), "a token after auth"))?;
    let (r, ()) = end(r)?;
    Ok((r, Command::Auth(Token::from_wire(t))))
}

/// A command without arguments: only the end of the line may follow.
fn bare(c: Command) -> impl FnMut(&str) -> Res<'_, Command> {
    move |i| {
        let (r, ()) = end(i)?;
        Ok((r, c.clone()))
    }
}

/// Reads one line (without its line ending) as a [`Command`].
pub(crate) fn command(line: &str) -> Result<Command, ParseCommandError> {
    if let Some(c) = line.chars().find(|&c| c.is_control() && c != '\t') {
        return Err(ParseCommandError::ControlCharacter(c as u32));
    }
    let line = line.trim_matches(is_blank);
    let Ok((args, head)) = word(line) else {
        return Err(ParseCommandError::Empty);
    };
    let lower = head.to_ascii_lowercase();
    let (name, res): (&'static str, Res<'_, Command>) = match lower.as_str() {
        "kingme" => ("kingme", bare(Command::Hello { uci: false })(args)),
        "uci" => ("uci", bare(Command::Hello { uci: true })(args)),
        "isready" => ("isready", bare(Command::IsReady)(args)),
        "setoption" => ("setoption", setoption_args(args)),
        "newgame" | "ucinewgame" => ("newgame", newgame_args(args)),
        "position" => ("position", position_args(args)),
        "go" => ("go", go_args(args)),
        "analyze" => ("analyze", analyze_args(args)),
        "hint" => ("hint", bare(Command::Hint)(args)),
        "stop" => ("stop", bare(Command::Stop)(args)),
        "ponderhit" => ("ponderhit", bare(Command::PonderHit)(args)),
        "quit" | "exit" => ("quit", bare(Command::Quit)(args)),
        "help" | "?" => ("help", bare(Command::Help)(args)),
        "board" | "d" => ("board", bare(Command::Board)(args)),
        "moves" => ("moves", bare(Command::Moves)(args)),
        "play" => ("play", play_args(args)),
        "undo" => ("undo", bare(Command::Undo)(args)),
        "perft" => ("perft", perft_args(args)),
        "review" => ("review", review_args(args)),
        "eval" => ("eval", bare(Command::Eval)(args)),
        "auth" => ("auth", auth_args(args)),
        _ => return Err(ParseCommandError::Unknown(shorten(head, 40))),
    };
    match res {
        Ok((_, c)) => Ok(c),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(ParseCommandError::BadArgument {
            command: name,
            expected: e.expected.unwrap_or("valid arguments").to_string(),
            found: found(e.at),
        }),
        Err(nom::Err::Incomplete(_)) => Err(ParseCommandError::BadArgument {
            command: name,
            expected: "more input".into(),
            found: "end of line".into(),
        }),
    }
}

/// At most `max` characters of `s`, with an ellipsis when cut: how an error
/// message quotes what a client sent.
#[must_use]
pub fn shorten(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// How an error names what it found: the next word quoted, or `end of line`.
fn found(at: &str) -> String {
    match word(at) {
        Ok((_, w)) => format!("'{}'", shorten(w, 40)),
        Err(_) => "end of line".into(),
    }
}
