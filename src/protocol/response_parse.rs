//! Reading the engine's lines back into [`Response`]s: what clients (the
//! referee, the web bridge, the load tools) use instead of matching text.
//! `parse` is the inverse of `Display`: every response written reads back
//! equal (tested in `tests/protocol_fuzz.rs`).
//!
//! Moves are read on the board of a variant, without a position (a capture
//! takes the squares it jumps over): `FromStr` reads English, and
//! [`Response::parse_in`] either variant.

use super::options::OptionKind;
use super::response::{help_text, Refusal, Response};
use crate::board::{Color, EndReason, GameEnd, Move, Outcome, Variant};
use crate::engine::{Info, Score, TraceNode};
use std::str::FromStr;
use std::time::Duration;

/// A line that is not a response of the kingme protocol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a kingme response: {reason}: '{line}'")]
pub struct ParseResponseError {
    /// The line (shortened).
    pub line: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for Response {
    type Err = ParseResponseError;

    /// Reads one response, moves on the English board.
    fn from_str(s: &str) -> Result<Response, ParseResponseError> {
        Response::parse_in(Variant::English, s)
    }
}

/// The words of a line, consumed left to right.
pub(super) struct Words<'a> {
    line: &'a str,
    rest: &'a str,
}

impl<'a> Words<'a> {
    pub(super) fn new(line: &'a str) -> Words<'a> {
        Words { line, rest: line }
    }

    pub(super) fn error(&self, reason: impl Into<String>) -> ParseResponseError {
        ParseResponseError {
            line: super::shorten(self.line, 80),
            reason: reason.into(),
        }
    }

    pub(super) fn next(&mut self) -> Option<&'a str> {
        let t = self.rest.trim_start_matches(' ');
        if t.is_empty() {
            self.rest = t;
            return None;
        }
        let end = t.find(' ').unwrap_or(t.len());
        self.rest = &t[end..];
        Some(&t[..end])
    }

    /// The rest of the line after one blank (may be empty).
    pub(super) fn rest(&mut self) -> &'a str {
        let r = self.rest.strip_prefix(' ').unwrap_or(self.rest);
        self.rest = "";
        r
    }

    pub(super) fn word(&mut self, what: &str) -> Result<&'a str, ParseResponseError> {
        self.next()
            .ok_or_else(|| self.error(format!("{what} missing")))
    }

    pub(super) fn keyword(&mut self, kw: &str) -> Result<(), ParseResponseError> {
        match self.next() {
            Some(w) if w == kw => Ok(()),
            _ => Err(self.error(format!("'{kw}' expected"))),
        }
    }

    pub(super) fn number<T: FromStr>(&mut self, what: &str) -> Result<T, ParseResponseError> {
        let w = self.word(what)?;
        w.parse()
            .map_err(|_| self.error(format!("{what}: '{w}' is not a number")))
    }

    /// `kw` then its number.
    pub(super) fn field<T: FromStr>(&mut self, kw: &str) -> Result<T, ParseResponseError> {
        self.keyword(kw)?;
        self.number(kw)
    }

    pub(super) fn end(&mut self) -> Result<(), ParseResponseError> {
        match self.next() {
            None => Ok(()),
            Some(w) => Err(self.error(format!("unexpected '{w}'"))),
        }
    }
}

pub(super) fn parse_move(
    w: &mut Words<'_>,
    variant: Variant,
    text: &str,
) -> Result<Move, ParseResponseError> {
    Move::from_text(variant, text).map_err(|e| w.error(e.to_string()))
}

pub(super) fn parse_score(w: &mut Words<'_>) -> Result<Score, ParseResponseError> {
    let kind = w.word("score")?;
    let text = if kind == "draw" {
        kind.to_string()
    } else {
        format!("{kind} {}", w.word("score value")?)
    };
    text.parse()
        .map_err(|e: crate::search::ParseScoreError| w.error(e.to_string()))
}

pub(super) fn parse_moves(
    w: &mut Words<'_>,
    variant: Variant,
) -> Result<Vec<Move>, ParseResponseError> {
    let mut moves = Vec::new();
    while let Some(t) = w.next() {
        moves.push(parse_move(w, variant, t)?);
    }
    Ok(moves)
}

fn parse_info(w: &mut Words<'_>, variant: Variant) -> Result<Info, ParseResponseError> {
    let mut info = Info::default();
    let mut prunes = None;
    while let Some(key) = w.next() {
        match key {
            "depth" => info.depth = w.number(key)?,
            "seldepth" => info.seldepth = w.number(key)?,
            "multipv" => info.multipv = Some(w.number(key)?),
            "score" => info.score = parse_score(w)?,
            "nodes" => info.nodes = w.number(key)?,
            "prunes" => prunes = Some(w.number(key)?),
            "prunesmax" => info.prunes_max = w.number(key)?,
            "prunesmin" => info.prunes_min = w.number(key)?,
            "tthits" => info.tt_hits = w.number(key)?,
            "egdb" => info.egdb_probes = w.number(key)?,
            "nps" => info.nps = w.number(key)?,
            "time" => info.time = Duration::from_millis(w.number(key)?),
            "pv" => info.pv = parse_moves(w, variant)?,
            other => return Err(w.error(format!("unknown info field '{other}'"))),
        }
    }
    if prunes.is_some_and(|p: u64| p != info.prunes()) {
        return Err(w.error("prunes is not prunesmax + prunesmin"));
    }
    Ok(info)
}

fn parse_trace(w: &mut Words<'_>, variant: Variant) -> Result<TraceNode, ParseResponseError> {
    w.keyword("ply")?;
    let ply = w.number("ply")?;
    w.keyword("move")?;
    let mv = match w.word("move")? {
        "none" => None,
        t => Some(parse_move(w, variant, t)?),
    };
    w.keyword("alpha")?;
    let alpha = w.number("alpha")?;
    w.keyword("beta")?;
    let beta = w.number("beta")?;
    w.keyword("value")?;
    let value = w.number("value")?;
    let pruned = match w.next() {
        None => Vec::new(),
        Some("pruned") => parse_moves(w, variant)?,
        Some(other) => return Err(w.error(format!("unexpected '{other}'"))),
    };
    Ok(TraceNode {
        ply,
        mv,
        alpha,
        beta,
        value,
        pruned,
    })
}

fn parse_option(w: &mut Words<'_>) -> Result<Response, ParseResponseError> {
    w.keyword("name")?;
    let name = w.word("option name")?.to_string();
    w.keyword("type")?;
    let kind = match w.word("option type")? {
        "check" => {
            w.keyword("default")?;
            let default = match w.word("default")? {
                "true" => true,
                "false" => false,
                other => return Err(w.error(format!("check default '{other}'"))),
            };
            OptionKind::Check { default }
        }
        "spin" => {
            w.keyword("default")?;
            let default = w.number("default")?;
            w.keyword("min")?;
            let min = w.number("min")?;
            w.keyword("max")?;
            let max = w.number("max")?;
            OptionKind::Spin { default, min, max }
        }
        "string" => {
            w.keyword("default")?;
            let default = match w.rest() {
                "<empty>" => String::new(),
                d => d.to_string(),
            };
            OptionKind::Text { default }
        }
        "combo" => {
            w.keyword("default")?;
            let default = w.word("default")?.to_string();
            let mut values = Vec::new();
            while let Some(k) = w.next() {
                if k != "var" {
                    return Err(w.error("'var' expected"));
                }
                values.push(w.word("var")?.to_string());
            }
            OptionKind::Combo { default, values }
        }
        other => return Err(w.error(format!("option type '{other}'"))),
    };
    w.end()?;
    Ok(Response::Option { name, kind })
}

/// Every way a game can end, to read `gameover` lines by their text.
fn game_ends() -> impl Iterator<Item = GameEnd> {
    let outcomes = [
        Outcome::Win(Color::Black),
        Outcome::Win(Color::White),
        Outcome::Draw,
    ];
    let reasons = [
        EndReason::NoMoves,
        EndReason::NoPieces,
        EndReason::Blocked,
        EndReason::Repetition,
        EndReason::FortyMoves,
    ];
    outcomes.into_iter().flat_map(move |outcome| {
        reasons
            .into_iter()
            .map(move |reason| GameEnd { outcome, reason })
    })
}

fn parse_game_over(w: &mut Words<'_>) -> Result<GameEnd, ParseResponseError> {
    let pdn = w.word("result")?;
    let text = w.rest();
    game_ends()
        .find(|e| e.outcome.pdn() == pdn && e.to_string() == text)
        .ok_or_else(|| w.error("unknown game end"))
}

fn parse_error(text: &str) -> Response {
    let refusals = [Refusal::BadToken, Refusal::NotAuthenticated, Refusal::Busy];
    if let Some(r) = refusals.into_iter().find(|r| r.to_string() == text) {
        return Response::Refused(r);
    }
    let full = text
        .strip_prefix("server full (")
        .and_then(|t| t.strip_suffix(" connections); try again later"))
        .and_then(|n| n.parse().ok())
        .filter(|&max| Refusal::ServerFull { max }.to_string() == text);
    match full {
        Some(max) => Response::Refused(Refusal::ServerFull { max }),
        None => Response::Error(text.to_string()),
    }
}

/// The lines of a `board` reply: the diagram, then `fen`, `turn`, `last` and
/// perhaps `gameover`.
fn parse_board(text: &str, variant: Variant) -> Result<Response, ParseResponseError> {
    let bad = |reason: &str| ParseResponseError {
        line: super::shorten(text, 80),
        reason: reason.into(),
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let fen_at = lines
        .iter()
        .position(|l| l.starts_with("fen "))
        .ok_or_else(|| bad("a multi-line reply without a fen line"))?;
    let tail = &lines[fen_at..];
    if !(3..=5).contains(&tail.len()) {
        return Err(bad(
            "a board reply ends with fen, turn, last, maybe database and maybe gameover",
        ));
    }
    let fen = tail[0]["fen ".len()..].to_string();
    let turn_text = tail[1]
        .strip_prefix("turn ")
        .ok_or_else(|| bad("turn expected"))?;
    let turn = [Color::Black, Color::White]
        .into_iter()
        .find(|c| c.to_string() == turn_text)
        .ok_or_else(|| bad("turn: black or white expected"))?;
    let last_text = tail[2]
        .strip_prefix("last ")
        .ok_or_else(|| bad("last expected"))?;
    let mut w = Words::new(tail[2]);
    let last = match last_text {
        "none" => None,
        t => Some(parse_move(&mut w, variant, t)?),
    };
    let mut rest = tail[3..].iter().peekable();
    let database = match rest.peek().and_then(|l| l.strip_prefix("database ")) {
        Some(v) => {
            rest.next();
            let wdl = [
                crate::egdb::Wdl::Win,
                crate::egdb::Wdl::Draw,
                crate::egdb::Wdl::Loss,
            ]
            .into_iter()
            .find(|x| x.to_string() == v)
            .ok_or_else(|| bad("database: win, draw or loss expected"))?;
            Some(wdl)
        }
        None => None,
    };
    let result = match rest.next() {
        None => None,
        Some(l) => {
            let mut w = Words::new(l);
            w.keyword("gameover")?;
            Some(parse_game_over(&mut w)?)
        }
    };
    if rest.next().is_some() {
        return Err(bad("a board reply ends with its gameover line"));
    }
    let mut diagram = lines[..fen_at].join("\n");
    diagram.push('\n');
    Ok(Response::Board {
        diagram,
        fen,
        turn,
        last,
        result,
        database,
    })
}

impl Response {
    /// Reads one response (a `board` or `help` reply: all its lines, joined by
    /// `\n`), moves on the board of `variant`.
    pub fn parse_in(variant: Variant, text: &str) -> Result<Response, ParseResponseError> {
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text == help_text() {
            return Ok(Response::Help(crate::engine::option_table::REGISTRY));
        }
        if text.contains('\n') {
            return parse_board(text, variant);
        }
        let mut w = Words::new(text);
        let head = w.word("a response")?;
        let r = match head {
            "kingmeok" => Response::HelloOk { uci: false },
            "uciok" => Response::HelloOk { uci: true },
            "readyok" => Response::ReadyOk,
            "authok" => Response::AuthOk,
            "id" => {
                let key = w.word("id key")?.to_string();
                return Ok(Response::Id {
                    key,
                    value: w.rest().to_string(),
                });
            }
            "option" => return parse_option(&mut w),
            "info" => {
                if w.rest.starts_with(" string ") || w.rest == " string" {
                    w.next();
                    return Ok(Response::InfoString(w.rest().to_string()));
                }
                Response::Info(parse_info(&mut w, variant)?)
            }
            "trace" => Response::Trace(parse_trace(&mut w, variant)?),
            "bestmove" => {
                let mv = match w.word("bestmove")? {
                    "none" => None,
                    t => Some(parse_move(&mut w, variant, t)?),
                };
                let ponder = match (mv, w.next()) {
                    (_, None) => None,
                    (Some(_), Some("ponder")) => {
                        let t = w.word("ponder move")?;
                        Some(parse_move(&mut w, variant, t)?)
                    }
                    (_, Some(other)) => return Err(w.error(format!("unexpected '{other}'"))),
                };
                Response::BestMove { mv, ponder }
            }
            "gameover" => return Ok(Response::GameOver(parse_game_over(&mut w)?)),
            "played" | "undone" => {
                let t = w.word("move")?;
                let m = parse_move(&mut w, variant, t)?;
                if head == "played" {
                    Response::Played(m)
                } else {
                    Response::Undone(m)
                }
            }
            "moves" => {
                let moves = parse_moves(&mut w, variant);
                match moves {
                    Err(_) if text == "moves none" => Response::Moves(Vec::new()),
                    m => Response::Moves(m?),
                }
            }
            "values" => {
                let mut vs = Vec::new();
                while let Some(t) = w.next() {
                    let m = parse_move(&mut w, variant, t)?;
                    vs.push((m, parse_score(&mut w)?));
                }
                Response::Values(vs)
            }
            "hint" => {
                let mv = match w.word("hint")? {
                    "none" => None,
                    t => Some(parse_move(&mut w, variant, t)?),
                };
                let score = match (mv, w.next()) {
                    (_, None) => None,
                    (Some(_), Some("score")) => Some(parse_score(&mut w)?),
                    (_, Some(other)) => return Err(w.error(format!("unexpected '{other}'"))),
                };
                Response::Hint { mv, score }
            }
            "perft" => {
                let depth = w.field("depth")?;
                let nodes = w.field("nodes")?;
                let time = Duration::from_millis(w.field("time")?);
                Response::Perft { depth, nodes, time }
            }
            "eval" => {
                w.keyword("score")?;
                Response::Eval(parse_score(&mut w)?)
            }
            "review" => Response::Review(Box::new(super::response_review::parse_review(
                &mut w, variant,
            )?)),
            "reviewdone" => {
                Response::ReviewDone(super::response_review::parse_review_done(&mut w)?)
            }
            "error" => return Ok(parse_error(w.rest())),
            other => return Err(w.error(format!("unknown response '{other}'"))),
        };
        w.end()?;
        Ok(r)
    }

    /// The typed refusal this response is, if it is one.
    #[must_use]
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            Response::Refused(r) => Some(*r),
            _ => None,
        }
    }
}
