//! The words of the grammar: the error type, blanks, words, keywords,
//! numbers, clock times and move tokens every command's arguments are made of.

use nom::branch::alt;
use nom::bytes::complete::{tag_no_case, take_till1, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::{eof, opt, peek, recognize};
use nom::error::{ContextError, ErrorKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};

/// A parse failure: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected<'a> {
    pub(super) at: &'a str,
    pub(super) expected: Option<&'static str>,
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

pub(super) type Res<'a, T> = IResult<&'a str, T, Expected<'a>>;

/// A hard failure expecting `what` at `at`.
pub(super) fn fail<'a, T>(at: &'a str, what: &'static str) -> Res<'a, T> {
    Err(nom::Err::Failure(Expected {
        at,
        expected: Some(what),
    }))
}

pub(super) fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A word: a run of non-blank characters, after optional blanks.
pub(super) fn word(i: &str) -> Res<'_, &str> {
    preceded(space0, take_till1(is_blank)).parse(i)
}

/// The keyword `kw` as a whole word (case-insensitive), after at least one blank.
pub(super) fn keyword<'a>(
    kw: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = Expected<'a>> {
    preceded(
        space1,
        terminated(tag_no_case(kw), peek(alt((space1, eof)))),
    )
}

/// Optional blanks, then the end of the line.
pub(super) fn end(i: &str) -> Res<'_, ()> {
    let (r, _) = space0(i)?;
    if r.is_empty() {
        Ok((r, ()))
    } else {
        fail(r, "end of line")
    }
}

/// A whole-word unsigned number after a blank; `what` names it in errors.
pub(super) fn number<'a, T: std::str::FromStr>(
    what: &'static str,
) -> impl FnMut(&'a str) -> Res<'a, T> {
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

/// A whole-word number in `range` after a blank; `what` names it in errors.
pub(super) fn number_in<'a, T: std::str::FromStr + PartialOrd>(
    what: &'static str,
    range: std::ops::RangeInclusive<T>,
) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |i: &'a str| {
        let (r, n) = number::<T>(what)(i)?;
        if range.contains(&n) {
            Ok((r, n))
        } else {
            fail(i.trim_start(), what)
        }
    }
}

/// The value of a limit given at most once: `read` from `rest` into an empty
/// `slot`, or a failure at the key (`at`) saying `twice` when it is full.
pub(super) fn once<'a, T>(
    slot: &mut Option<T>,
    (at, rest): (&'a str, &'a str),
    twice: &'static str,
    mut read: impl Parser<&'a str, Output = T, Error = Expected<'a>>,
) -> Result<&'a str, nom::Err<Expected<'a>>> {
    if slot.is_some() {
        return fail(at, twice).map(|(r, ())| r);
    }
    let (r, v) = read.parse(rest)?;
    *slot = Some(v);
    Ok(r)
}

/// A time in milliseconds; a negative clock (some GUIs send one) counts as 0.
pub(super) fn millis<'a>(what: &'static str) -> impl FnMut(&'a str) -> Res<'a, u64> {
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
pub(super) fn move_token(i: &str) -> Res<'_, &str> {
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

pub(super) const MOVE: &str = "a move (11-15, 22x15x8 or pass)";

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
pub(super) fn found(at: &str) -> String {
    match word(at) {
        Ok((_, w)) => format!("'{}'", shorten(w, 40)),
        Err(_) => "end of line".into(),
    }
}
