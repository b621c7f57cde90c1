//! Property tests of the protocol parser and session: arbitrary input never
//! panics, every command round-trips through `Display` and `FromStr`, and a
//! rejected line gets exactly one `error` line. Bounded case counts keep it
//! quick in CI (raise PROPTEST_CASES to fuzz longer).

use kingme::board::Variant;
use kingme::engine::GO_KEYS;
use kingme::protocol::{Command, GoParams, Response, Session, SessionConfig, StartPos};
use proptest::prelude::*;

/// Words the grammar knows, plus near misses and junk.
fn vocabulary() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            GO_KEYS
                .into_iter()
                .chain([
                    "go",
                    "position",
                    "startpos",
                    "fen",
                    "moves",
                    "setoption",
                    "name",
                    "value",
                    "newgame",
                    "english",
                    "mini",
                    "analyze",
                    "hint",
                    "stop",
                    "ponderhit",
                    "isready",
                    "quit",
                    "kingme",
                    "uci",
                    "help",
                    "board",
                    "moves",
                    "play",
                    "undo",
                    "perft",
                    "eval",
                    "auth",
                    "Hash",
                    "Level",
                    "Threads",
                    "Reply",
                    "Variant",
                    "max",
                    "true",
                    "pass",
                    "11-15",
                    "22x15x8",
                    "9x18",
                    "B:W21,22:B1,2",
                    "W:WK10:B3,K14",
                    "B:W21-32:B1-12",
                    "-",
                    "x",
                    "0",
                    "-1",
                    "18446744073709551616",
                    "99999999999999999999999999",
                ])
                .collect::<Vec<_>>()
        )
        .prop_map(String::from),
        "[0-9]{1,25}",
        "[0-9x-]{1,12}",
        "\\PC{0,12}",
        any::<String>(),
    ]
}

fn line_from_words() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(vocabulary(), 0..8),
        prop::sample::select(vec![" ", "  ", "\t", " \t "]),
    )
        .prop_map(|(words, sep)| words.join(sep))
}

fn move_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("pass".to_string()),
        prop::collection::vec(1u32..40, 2..5)
            .prop_map(|v| { v.iter().map(u32::to_string).collect::<Vec<_>>().join("-") }),
        prop::collection::vec(1u32..40, 2..5)
            .prop_map(|v| { v.iter().map(u32::to_string).collect::<Vec<_>>().join("x") }),
    ]
}

fn word() -> impl Strategy<Value = String> {
    "[A-Za-z0-9:,_.+]{1,12}"
}

fn go_params() -> impl Strategy<Value = GoParams> {
    (
        (
            prop::option::of(1u32..=127),
            prop::option::of(1u64..),
            prop::option::of(any::<u64>()),
            prop::option::of(0u64..(i64::MAX as u64)),
            prop::option::of(0u64..(i64::MAX as u64)),
        ),
        (
            prop::option::of(0u64..(i64::MAX as u64)),
            prop::option::of(0u64..(i64::MAX as u64)),
            prop::option::of(1u32..),
            any::<bool>(),
            any::<bool>(),
            prop::option::of(any::<u64>()),
        ),
        prop::collection::vec(move_text(), 0..4),
    )
        .prop_map(
            |(
                (depth, nodes, movetime, wtime, btime),
                (winc, binc, movestogo, infinite, ponder, trace),
                searchmoves,
            )| {
                let ms = |t: Option<u64>| t.map(std::time::Duration::from_millis);
                GoParams {
                    depth,
                    nodes,
                    movetime: ms(movetime),
                    wtime: ms(wtime),
                    btime: ms(btime),
                    winc: ms(winc),
                    binc: ms(binc),
                    movestogo,
                    infinite,
                    ponder,
                    trace,
                    multipv: None,
                    searchmoves,
                }
            },
        )
}

fn command() -> impl Strategy<Value = Command> {
    let name = prop::collection::vec(word(), 1..3)
        .prop_filter("not the keyword value", |w| {
            w.iter().all(|x| !x.eq_ignore_ascii_case("value"))
        })
        .prop_map(|w| w.join(" "));
    let value = prop::option::of(prop::collection::vec(word(), 1..3).prop_map(|w| w.join(" ")));
    prop_oneof![
        any::<bool>().prop_map(|uci| Command::Hello { uci }),
        Just(Command::IsReady),
        (name, value).prop_map(|(name, value)| Command::SetOption { name, value }),
        prop::option::of(prop::sample::select(Variant::ALL.to_vec()))
            .prop_map(|variant| Command::NewGame { variant }),
        (
            prop_oneof![
                Just(StartPos::Start),
                "[BW]:[WB][K0-9,-]{0,20}:[BW][K0-9,-]{0,20}".prop_map(StartPos::Fen)
            ],
            prop::collection::vec(move_text(), 0..6)
        )
            .prop_map(|(start, moves)| Command::Position { start, moves }),
        go_params().prop_map(Command::Go),
        prop::option::of(1u32..=64).prop_map(Command::Analyze),
        Just(Command::Hint),
        Just(Command::Stop),
        Just(Command::PonderHit),
        Just(Command::Quit),
        Just(Command::Help),
        Just(Command::Board),
        Just(Command::Moves),
        move_text().prop_map(Command::Play),
        Just(Command::Undo),
        (1u32..=30).prop_map(Command::Perft),
        Just(Command::Eval),
        word().prop_map(|w| Command::Auth(w.parse().expect("a word is a token"))),
    ]
}

/// Feeds one line to a fresh session; a rejected line must give one error only.
fn session_answers(line: &[u8]) {
    let (mut s, _events) = Session::new(SessionConfig {
        default_hash_mib: Some(1),
        max_perft_depth: 4,
        ..SessionConfig::default()
    });
    let mut out = Vec::new();
    s.handle_line(line, &mut out);
    let errors = out
        .iter()
        .filter(|r| matches!(r, Response::Error(_)))
        .count();
    if errors > 0 {
        assert_eq!(out.len(), 1, "an error comes alone: {out:?}");
    }
    for r in &out {
        let text = r.to_string();
        assert!(!text.is_empty());
        if let Response::Error(_) = r {
            assert!(text.starts_with("error "), "{text}");
            assert!(!text.contains('\n'), "one line: {text:?}");
        }
    }
    // Dropping the session stops any search it started.
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_and_ok_round_trips(s in any::<String>()) {
        if let Ok(c) = s.parse::<Command>() {
            prop_assert_eq!(c.to_string().parse::<Command>(), Ok(c));
        }
    }

    #[test]
    fn grammar_like_lines_round_trip(s in line_from_words()) {
        if let Ok(c) = s.parse::<Command>() {
            prop_assert_eq!(c.to_string().parse::<Command>(), Ok(c));
        }
    }

    #[test]
    fn every_command_round_trips(c in command()) {
        let text = c.to_string();
        prop_assert_eq!(text.parse::<Command>(), Ok(c), "{}", text);
    }

    #[test]
    fn arbitrary_bytes_get_at_most_one_error(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        session_answers(&bytes);
    }

    #[test]
    fn grammar_like_lines_get_at_most_one_error(s in line_from_words()) {
        session_answers(s.as_bytes());
    }
}
