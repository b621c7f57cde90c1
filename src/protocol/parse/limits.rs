//! The arguments of the search commands: `go`'s limits, `analyze`'s line
//! count, `review`'s limits and `perft`'s depth, each range from the constant
//! that declares it.

use super::lexeme::{
    end, fail, millis, move_token, number, number_in, once, word, Expected, Res, MOVE,
};
use crate::engine::GO_KEYS;
use crate::protocol::command::{
    Command, GoParams, ReviewParams, MAX_ANALYZE_LINES, MAX_GO_DEPTH, MAX_PERFT_DEPTH,
};
use crate::review::Sides;
use nom::character::complete::space0;
use nom::combinator::map;
use std::sync::LazyLock;
use std::time::Duration;

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

/// Where a key starts, and what follows it.
type Place<'a> = (&'a str, &'a str);

/// The next key of a list of limits: `None` at the end of the line, else
/// where the key starts and what follows it, and the key.
fn next_key(i: &str) -> Result<Option<(Place<'_>, &str)>, nom::Err<Expected<'_>>> {
    let (at, _) = space0(i)?;
    if at.is_empty() {
        return Ok(None);
    }
    let (rest, key) = word(at)?;
    Ok(Some(((at, rest), key)))
}

pub(super) fn go_args(i: &str) -> Res<'_, Command> {
    const TWICE: &str = "each go limit at most once";
    let mut p = GoParams::default();
    let mut r = i;
    loop {
        let Some((place @ (at, rest), key)) = next_key(r)? else {
            return Ok(("", Command::Go(p)));
        };
        let k = key.to_ascii_lowercase();
        let ms = |what| map(millis(what), Duration::from_millis);
        // each limit once; `searchmoves` takes the rest of the line
        r = match k.as_str() {
            "depth" => once(&mut p.depth, place, TWICE, depth_limit)?,
            "nodes" => once(&mut p.nodes, place, TWICE, node_limit)?,
            "movetime" => once(
                &mut p.movetime,
                place,
                TWICE,
                map(
                    number::<u64>("milliseconds after movetime"),
                    Duration::from_millis,
                ),
            )?,
            "wtime" => once(&mut p.wtime, place, TWICE, ms("milliseconds after wtime"))?,
            "btime" => once(&mut p.btime, place, TWICE, ms("milliseconds after btime"))?,
            "winc" => once(&mut p.winc, place, TWICE, ms("milliseconds after winc"))?,
            "binc" => once(&mut p.binc, place, TWICE, ms("milliseconds after binc"))?,
            "movestogo" => once(
                &mut p.movestogo,
                place,
                TWICE,
                number_in("a move count from 1 after movestogo", 1..=u32::MAX),
            )?,
            "trace" => once(
                &mut p.trace,
                place,
                TWICE,
                number("a node count after trace"),
            )?,
            "infinite" | "ponder" => {
                let flag = if k == "ponder" {
                    &mut p.ponder
                } else {
                    &mut p.infinite
                };
                if *flag {
                    return fail(at, TWICE);
                }
                *flag = true;
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

pub(super) fn analyze_args(i: &str) -> Res<'_, Command> {
    if end(i).is_ok() {
        return Ok(("", Command::Analyze(None)));
    }
    let (r, n) = number_in(&ANALYZE_LINES, 1..=MAX_ANALYZE_LINES)(i)?;
    let (r, ()) = end(r)?;
    Ok((r, Command::Analyze(Some(n))))
}

/// The depth after `depth`, 1 to [`MAX_GO_DEPTH`].
fn depth_limit(rest: &str) -> Res<'_, u32> {
    number_in(&GO_DEPTH, 1..=MAX_GO_DEPTH)(rest)
}

/// The node count after `nodes`, from 1.
fn node_limit(rest: &str) -> Res<'_, u64> {
    number_in("a node count from 1 to 2^64-1 after nodes", 1..=u64::MAX)(rest)
}

pub(super) fn review_args(i: &str) -> Res<'_, Command> {
    const TWICE: &str = "each review limit at most once";
    let mut p = ReviewParams::default();
    let mut side = None;
    let mut r = i;
    loop {
        let Some((place @ (at, _), key)) = next_key(r)? else {
            return Ok(("", Command::Review(p)));
        };
        r = match key.to_ascii_lowercase().as_str() {
            "movetime" => once(
                &mut p.movetime,
                place,
                TWICE,
                map(
                    number_in("milliseconds from 1 after movetime", 1..=u64::MAX),
                    Duration::from_millis,
                ),
            )?,
            "depth" => once(&mut p.depth, place, TWICE, depth_limit)?,
            "nodes" => once(&mut p.nodes, place, TWICE, node_limit)?,
            "side" => {
                let r = once(&mut side, place, TWICE, side_name)?;
                p.side = side.expect("read above");
                r
            }
            _ => return fail(at, "movetime, depth, nodes or side"),
        };
    }
}

/// The side after `side`: `black`, `white` or `both`.
fn side_name(rest: &str) -> Res<'_, Sides> {
    let what = "black, white or both after side";
    let at = rest.trim_start();
    let (r, w) = word(rest).or_else(|_| fail(at, what))?;
    match w.parse() {
        Ok(s) => Ok((r, s)),
        Err(_) => fail(at, what),
    }
}

pub(super) fn perft_args(i: &str) -> Res<'_, Command> {
    let (r, d) = number_in(&PERFT_DEPTH, 1..=MAX_PERFT_DEPTH)(i)?;
    let (r, ()) = end(r)?;
    Ok((r, Command::Perft(d)))
}
