//! The arguments of the search commands: `go`'s limits, `analyze`'s line
//! count, `review`'s limits and `perft`'s depth, each range from the constant
//! that declares it.

use super::lexeme::{end, fail, millis, move_token, number, word, Res, MOVE};
use crate::engine::GO_KEYS;
use crate::protocol::command::{
    Command, GoParams, ReviewParams, MAX_ANALYZE_LINES, MAX_GO_DEPTH, MAX_PERFT_DEPTH,
};
use nom::character::complete::space0;
use std::sync::LazyLock;

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

pub(super) fn go_args(i: &str) -> Res<'_, Command> {
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

pub(super) fn analyze_args(i: &str) -> Res<'_, Command> {
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

pub(super) fn review_args(i: &str) -> Res<'_, Command> {
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

pub(super) fn perft_args(i: &str) -> Res<'_, Command> {
    let what: &'static str = &PERFT_DEPTH;
    let (r, d) = number::<u32>(what)(i)?;
    if d == 0 || d > MAX_PERFT_DEPTH {
        return fail(i.trim_start(), what);
    }
    let (r, ()) = end(r)?;
    Ok((r, Command::Perft(d)))
}
