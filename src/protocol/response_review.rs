//! The lines of a review: `review ...`, one judged move, and `reviewdone
//! ...`, its end with each side's figures; written and read back.

use super::response_parse::{parse_move, parse_score, ParseResponseError, Words};
use crate::board::{Color, Variant};
use crate::engine::ReviewEnd;
use crate::review::{MoveReview, SideSummary, Verdict};
use std::fmt;
use std::time::Duration;

/// `review ply 12 by black move 11-15 verdict mistake loss 0.0840 best 9-13 score
/// cp 20 played cp -40 depth 14 nodes 5000 time 100 pv 9-13 22-18`; the
/// flags `forced` and `exact` before `pv`, and `note <words>` last when
/// the verdict is exact.
pub(super) fn write_review(f: &mut fmt::Formatter<'_>, r: &MoveReview) -> fmt::Result {
    write!(
        f,
        "review ply {} by {} move {} verdict {} loss {:.4} best {} score {} played {} depth {} nodes {} time {}",
        r.ply,
        r.mover,
        r.played,
        r.verdict,
        r.loss,
        r.best,
        r.best_score,
        r.played_score,
        r.depth,
        r.nodes,
        r.time.as_millis()
    )?;
    if r.forced {
        f.write_str(" forced")?;
    }
    if r.exact {
        f.write_str(" exact")?;
    }
    f.write_str(" pv")?;
    for m in &r.pv {
        write!(f, " {m}")?;
    }
    if let Some(e) = r.exact_verdict() {
        write!(f, " note {}", e.words())?;
    }
    Ok(())
}

fn write_side(f: &mut fmt::Formatter<'_>, name: &str, s: &SideSummary) -> fmt::Result {
    write!(f, " {name} moves {} lost {:.4}", s.moves, s.total_loss)?;
    for v in Verdict::ALL {
        write!(f, " {v} {}", s.count(v))?;
    }
    Ok(())
}

/// `reviewdone complete black moves 20 lost 0.2460 best 12 good 5
/// inaccuracy 1 mistake 1 blunder 1 white moves ...`.
pub(super) fn write_review_done(f: &mut fmt::Formatter<'_>, end: &ReviewEnd) -> fmt::Result {
    f.write_str(if end.complete {
        "reviewdone complete"
    } else {
        "reviewdone stopped"
    })?;
    write_side(f, "black", &end.black)?;
    write_side(f, "white", &end.white)
}

pub(super) fn parse_review(
    w: &mut Words<'_>,
    variant: Variant,
) -> Result<MoveReview, ParseResponseError> {
    let ply: usize = w.field("ply")?;
    w.keyword("by")?;
    let mover = match w.word("mover")? {
        "black" => Color::Black,
        "white" => Color::White,
        other => return Err(w.error(format!("'{other}': black or white expected"))),
    };
    w.keyword("move")?;
    let t = w.word("move")?;
    let played = parse_move(w, variant, t)?;
    w.keyword("verdict")?;
    let t = w.word("verdict")?;
    let verdict: Verdict = t
        .parse()
        .map_err(|e: crate::review::verdict::ParseVerdictError| w.error(e.to_string()))?;
    w.keyword("loss")?;
    let loss: f64 = w.number("loss")?;
    if !(0.0..=1.0).contains(&loss) {
        return Err(w.error("loss outside 0 to 1"));
    }
    w.keyword("best")?;
    let t = w.word("best move")?;
    let best = parse_move(w, variant, t)?;
    w.keyword("score")?;
    let best_score = parse_score(w)?;
    w.keyword("played")?;
    let played_score = parse_score(w)?;
    let depth = w.field("depth")?;
    let nodes = w.field("nodes")?;
    let time = Duration::from_millis(w.field("time")?);
    let (mut forced, mut exact) = (false, false);
    loop {
        match w.word("pv")? {
            "forced" if !forced && !exact => forced = true,
            "exact" if !exact => exact = true,
            "pv" => break,
            other => return Err(w.error(format!("unexpected '{other}'"))),
        }
    }
    // the pv runs to the note, which is said again from the values
    let mut pv = Vec::new();
    while let Some(t) = w.next() {
        if t == "note" {
            let _ = w.rest();
            break;
        }
        pv.push(parse_move(w, variant, t)?);
    }
    Ok(MoveReview {
        ply,
        mover,
        played,
        best,
        best_score,
        played_score,
        loss,
        verdict,
        exact,
        forced,
        depth,
        pv,
        nodes,
        time,
    })
}

fn parse_side(w: &mut Words<'_>, name: &str) -> Result<SideSummary, ParseResponseError> {
    w.keyword(name)?;
    let moves = w.field("moves")?;
    let total_loss: f64 = w.field("lost")?;
    let mut counts = [0; 5];
    for (v, c) in Verdict::ALL.into_iter().zip(counts.iter_mut()) {
        *c = w.field(v.word())?;
    }
    Ok(SideSummary {
        moves,
        total_loss,
        counts,
    })
}

pub(super) fn parse_review_done(w: &mut Words<'_>) -> Result<ReviewEnd, ParseResponseError> {
    let complete = match w.word("complete or stopped")? {
        "complete" => true,
        "stopped" => false,
        other => return Err(w.error(format!("'{other}': complete or stopped expected"))),
    };
    let black = parse_side(w, "black")?;
    let white = parse_side(w, "white")?;
    Ok(ReviewEnd {
        complete,
        black,
        white,
    })
}
