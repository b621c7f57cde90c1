//! `Response` reads back what it writes: every response a session produces,
//! and responses built from random games (proptest), parse to an equal value;
//! arbitrary text never panics the parser; the refusals clients act on are
//! typed.

use kingme::board::{EndReason, GameEnd, Outcome};
use kingme::engine::{Info, Score, TraceNode};
use kingme::protocol::OptionKind;
use kingme::protocol::{Events, Refusal, Response, Session, SessionConfig};
use kingme::{Color, Move, Position, Variant};
use proptest::prelude::*;
use std::time::Duration;

fn round_trips(variant: Variant, r: &Response) {
    let text = r.to_string();
    let back = Response::parse_in(variant, &text);
    assert_eq!(back.as_ref(), Ok(r), "{text:?}");
    if variant == Variant::English {
        assert_eq!(text.parse::<Response>().as_ref(), Ok(r), "{text:?}");
    }
}

/// Feeds `s` its search's events until the search is over.
fn finish_search(s: &mut Session, events: &mut Events, out: &mut Vec<Response>) {
    while s.is_searching() {
        let ev = events
            .recv_timeout(Duration::from_secs(20))
            .expect("the search answers");
        s.handle_event(ev, out);
    }
}

/// Everything a session says in a scripted game of `variant`, searches included.
fn session_responses(variant: Variant) -> Vec<Response> {
    let (mut s, mut events) = Session::new(SessionConfig::default());
    let mut out = Vec::new();
    let lines = [
        "kingme".to_string(),
        "uci".to_string(),
        format!("newgame {variant}"),
        "setoption name Level value easy".to_string(),
        "isready".to_string(),
        "board".to_string(),
        "moves".to_string(),
        "eval".to_string(),
        "perft 3".to_string(),
        "go depth 4 trace 50".to_string(),
    ];
    for l in &lines {
        s.handle_line(l.as_bytes(), &mut out);
        // perft and go each answer before the next line
        finish_search(&mut s, &mut events, &mut out);
    }
    let first = out
        .iter()
        .find_map(|r| match r {
            Response::BestMove { mv: Some(m), .. } => Some(*m),
            _ => None,
        })
        .expect("a bestmove");
    for l in [
        format!("play {first}"),
        "board".to_string(),
        "undo".to_string(),
        "play 99-98".to_string(),
        "frobnicate".to_string(),
        "help".to_string(),
        "go infinite".to_string(),
        "eval".to_string(),
        "stop".to_string(),
    ] {
        s.handle_line(l.as_bytes(), &mut out);
    }
    finish_search(&mut s, &mut events, &mut out);
    // a review of two moves, Black's and White's
    let mut reply = Vec::new();
    for l in [
        format!("position startpos moves {first}"),
        "go depth 1".into(),
    ] {
        s.handle_line(l.as_bytes(), &mut reply);
        finish_search(&mut s, &mut events, &mut reply);
    }
    let second = reply
        .iter()
        .find_map(|r| match r {
            Response::BestMove { mv: Some(m), .. } => Some(*m),
            _ => None,
        })
        .expect("a reply");
    out.extend(reply);
    for l in [
        format!("position startpos moves {first} {second}"),
        "review nodes 300".to_string(),
    ] {
        s.handle_line(l.as_bytes(), &mut out);
        finish_search(&mut s, &mut events, &mut out);
    }
    out
}

#[test]
fn every_response_of_a_session_round_trips() {
    for variant in Variant::ALL {
        let out = session_responses(variant);
        for kind in [
            "Id",
            "Option",
            "HelloOk",
            "ReadyOk",
            "Board",
            "Moves",
            "Eval",
            "Perft",
            "Info",
            "Trace",
            "BestMove",
            "Played",
            "Undone",
            "Error",
            "Help",
            "Refused",
            "Review",
            "ReviewDone",
        ] {
            assert!(
                out.iter().any(|r| format!("{r:?}").starts_with(kind)),
                "{variant}: no {kind} response in {out:?}"
            );
        }
        for r in &out {
            // times are written in whole milliseconds: compare the text
            let text = r.to_string();
            let back = Response::parse_in(variant, &text).map(|b| b.to_string());
            assert_eq!(back.as_deref(), Ok(text.as_str()));
            // a review's lines read back to the same values
            if let Response::Review(_) | Response::ReviewDone(_) = r {
                assert_eq!(Response::parse_in(variant, &text).as_ref(), Ok(r), "{text}");
            }
        }
        let movers: Vec<_> = out
            .iter()
            .filter_map(|r| match r {
                Response::Review(m) => Some(m.mover),
                _ => None,
            })
            .collect();
        assert!(movers.contains(&Color::White), "{variant}: {movers:?}");
    }
}

#[test]
fn refusals_are_typed() {
    let busy = "error busy: a search is running; only stop, ponderhit, isready and quit are accepted until bestmove";
    assert_eq!(busy.parse(), Ok(Response::Refused(Refusal::Busy)));
    assert_eq!(
        "error bad token; closing".parse(),
        Ok(Response::Refused(Refusal::BadToken))
    );
    assert_eq!(
        "error server full (3 connections); try again later".parse(),
        Ok(Response::Refused(Refusal::ServerFull { max: 3 }))
    );
    // near misses stay plain errors
    for text in [
        "bad token",
        "server full (x connections); try again later",
        "server full (03 connections); try again later",
        "busy",
    ] {
        assert_eq!(
            format!("error {text}").parse(),
            Ok(Response::Error(text.into())),
            "{text}"
        );
    }
}

#[test]
fn lines_that_are_not_responses_are_errors() {
    for bad in [
        "",
        "bestmove",
        "bestmove 11-18",
        "bestmove 11-15 ponder",
        "bestmove 11-15 extra",
        "info depth x",
        "info frobs 3",
        "perft depth 1 nodes 7",
        "played 1x3",
        "eval score mate 3",
        "gameover 2-0 somebody wins",
        "moves 11-15 nonsense",
        "unknown words",
        "a\nb",
    ] {
        assert!(
            bad.parse::<Response>().is_err(),
            "{bad:?}: {:?}",
            bad.parse::<Response>()
        );
    }
}

/// A random game of `variant`: the positions and the moves between them.
fn random_game(variant: Variant, picks: &[usize]) -> (Vec<Position>, Vec<Move>) {
    let mut pos = Position::startpos(variant);
    let (mut positions, mut moves) = (vec![pos], Vec::new());
    for &p in picks {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[p % legal.len()];
        moves.push(m);
        pos = pos.after(m);
        positions.push(pos);
    }
    (positions, moves)
}

fn ends() -> Vec<GameEnd> {
    let mut v = Vec::new();
    for outcome in [
        Outcome::Win(Color::Black),
        Outcome::Win(Color::White),
        Outcome::Draw,
    ] {
        for reason in [
            EndReason::NoMoves,
            EndReason::NoPieces,
            EndReason::Blocked,
            EndReason::Repetition,
            EndReason::FortyMoves,
        ] {
            v.push(GameEnd { outcome, reason });
        }
    }
    v
}

fn score(kind: u8, n: i32) -> Score {
    match kind % 4 {
        0 => Score::Eval(n),
        1 => Score::Win(n.unsigned_abs()),
        2 => Score::Loss(n.unsigned_abs()),
        _ => Score::Draw,
    }
}

/// Text without line breaks that doesn't start or end with a blank.
fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9(),;:'=+-][a-zA-Z0-9 (),;:'=+-]{0,40}[a-zA-Z0-9(),;:'=+-]"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn responses_from_random_games_round_trip(
        mini in any::<bool>(),
        picks in prop::collection::vec(any::<usize>(), 0..60),
        n in any::<[u32; 8]>(),
        v in any::<i32>(),
        kind in any::<u8>(),
        words in text(),
        end in 0usize..15,
    ) {
        let variant = if mini { Variant::Mini } else { Variant::English };
        let (positions, moves) = random_game(variant, &picks);
        let pos = *positions.last().unwrap();
        let last = moves.last().copied();
        let mut rs = vec![
            Response::Moves(pos.legal_moves().iter().copied().collect()),
            Response::BestMove { mv: last, ponder: None },
            Response::BestMove { mv: moves.first().copied(), ponder: last.filter(|_| !moves.is_empty()) },
            Response::Info(Info {
                depth: n[0], seldepth: n[1], multipv: (kind % 3 != 0).then_some(n[4] % 65), score: score(kind, v), nodes: u64::from(n[2]),
                prunes_max: u64::from(n[4]), prunes_min: u64::from(n[5]),
                tt_hits: u64::from(n[6]), egdb_probes: u64::from(n[3] ^ n[6]), nps: u64::from(n[7]),
                time: Duration::from_millis(u64::from(n[0])), pv: moves.clone(),
            }),
            Response::Trace(TraceNode {
                ply: n[0], mv: last, alpha: v, beta: v.wrapping_add(1), value: -v,
                pruned: pos.legal_moves().iter().copied().collect(),
            }),
            Response::Perft { depth: n[0], nodes: u64::from(n[1]), time: Duration::from_millis(u64::from(n[2])) },
            Response::Eval(score(kind, v)),
            Response::Values(moves.iter().zip(n).map(|(&m, x)| (m, score(x as u8 | 1, v))).collect()),
            Response::Values(pos.legal_moves().iter().map(|&m| (m, score(kind, v))).collect()),
            Response::Hint { mv: last, score: last.and(Some(score(kind, v))).filter(|_| kind % 2 == 0) },
            Response::GameOver(ends()[end]),
            Response::Board {
                diagram: pos.diagram(),
                fen: pos.to_fen(),
                turn: pos.turn(),
                last,
                result: (kind % 2 == 0).then(|| ends()[end]),
                database: [None, Some(kingme::egdb::Wdl::Win), Some(kingme::egdb::Wdl::Draw), Some(kingme::egdb::Wdl::Loss)][(kind / 2 % 4) as usize],
            },
            Response::InfoString(words.clone()),
            Response::Error(words.clone()),
            Response::Id { key: "name".into(), value: words.clone() },
            Response::Option { name: "Hash".into(), kind: OptionKind::Spin { default: i64::from(v), min: 1, max: i64::from(n[0]) } },
            Response::Option { name: "Style".into(), kind: OptionKind::Text { default: words.clone() } },
            Response::Option { name: "Level".into(), kind: OptionKind::Combo { default: "easy".into(), values: vec!["easy".into(), "max".into()] } },
            Response::Refused(Refusal::ServerFull { max: n[0] as usize }),
        ];
        for &m in &moves {
            rs.push(Response::Played(m));
            rs.push(Response::Undone(m));
        }
        for r in &rs {
            round_trips(variant, r);
        }
        for (p, &m) in positions.iter().zip(&moves) {
            prop_assert_eq!(Move::from_text(variant, &m.to_string()), Ok(m));
            prop_assert!(p.is_legal(m));
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        for variant in Variant::ALL {
            if let Ok(r) = Response::parse_in(variant, &s) {
                // what parses writes back to text that parses to the same
                let again = Response::parse_in(variant, &r.to_string());
                prop_assert_eq!(again, Ok(r));
            }
        }
    }
}
