//! The nom grammar of inbound lines.
//!
//! The first word picks the command (case-insensitive); its arguments are then
//! parsed under `cut`, so a bad argument reports what was expected there instead
//! of falling back to "unknown command". [`lexeme`] holds the words they are
//! made of, [`limits`] the search commands' arguments, this file the game
//! commands' and the dispatch.

mod lexeme;
mod limits;

use super::command::{Command, ParseCommandError, StartPos};
use super::token::Token;
use crate::board::Variant;
pub use lexeme::shorten;
use lexeme::{end, fail, found, is_blank, keyword, move_token, word, Expected, Res, MOVE};
use limits::{analyze_args, go_args, perft_args, review_args};
use nom::branch::alt;
use nom::bytes::complete::take_till1;
use nom::character::complete::{space0, space1};
use nom::combinator::{cut, map, opt, value};
use nom::sequence::preceded;
use nom::Parser;

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
