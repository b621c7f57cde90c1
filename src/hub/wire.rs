//! Hub wire text: `command name=value ...` lines, the position string pydraughts
//! sends in `pos pos=...`, and Hub move text (`11-15`, `22x15x18`).
//!
//! Position string: a side letter, then one character per square. Character `k`
//! (1-based) describes square `N + 1 - k` (`N` = 32 on 8x8, 18 on 6x6): the board
//! is read from White's side, as pydraughts stores it. `w`/`W` is a Black man/king,
//! `b`/`B` a White man/king, `e` an empty square. The side letter `W` means Black
//! to move, `B` White to move. (pydraughts keeps International draughts' colours
//! internally, where White moves first; English Black is its "white".)
//!
//! Moves: a quiet move is `from-to`; a capture is `from x to x captured x ...`
//! with the captured squares in any order (we write them ascending). A pass
//! (mini-checkers) is written `0-0`, the Hub null move.

use crate::board::{
    format_square_text, parse_square_text, Color, Move, ParseSquareTextError, PieceLetters,
    Position, Square, Variant,
};
use crate::board::{join_or_none, Bitboard};
use std::fmt::Write as _;

/// One Hub line: the command word and its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubLine {
    /// The first word.
    pub command: String,
    /// `name=value` arguments (quotes removed); a bare flag has no value.
    pub args: Vec<(String, Option<String>)>,
}

impl HubLine {
    /// The value of argument `name`, if given with a value.
    #[must_use]
    pub fn value(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Whether argument `name` appears (as a flag or with a value).
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| n == name)
    }
}

/// A line that is not Hub syntax.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseHubLineError {
    /// Nothing but blanks.
    #[error("empty line")]
    Empty,
    /// A `"` without its closing `"`.
    #[error("unterminated quote in argument '{0}'")]
    Unterminated(String),
    /// `=value` with no argument name.
    #[error("an '=' without an argument name")]
    NoName,
}

/// Splits a line into its command and `name[=value]` arguments. Values may be
/// double-quoted (then they may hold spaces and `=`).
pub fn parse_line(line: &str) -> Result<HubLine, ParseHubLineError> {
    let s = line.trim();
    let (command, mut rest) = match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if command.is_empty() {
        return Err(ParseHubLineError::Empty);
    }
    let mut args = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..end];
        rest = &rest[end..];
        if !rest.starts_with('=') {
            if name.is_empty() {
                return Err(ParseHubLineError::NoName);
            }
            args.push((name.to_string(), None));
            continue;
        }
        if name.is_empty() {
            return Err(ParseHubLineError::NoName);
        }
        rest = &rest[1..];
        let value;
        if let Some(q) = rest.strip_prefix('"') {
            let close = q
                .find('"')
                .ok_or_else(|| ParseHubLineError::Unterminated(name.chars().take(40).collect()))?;
            value = &q[..close];
            rest = &q[close + 1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            value = &rest[..end];
            rest = &rest[end..];
        }
        args.push((name.to_string(), Some(value.to_string())));
    }
    Ok(HubLine {
        command: command.to_string(),
        args,
    })
}

/// A value as it must appear on the wire: double-quoted when empty or when it
/// holds a blank or `=`. A `"` inside can't be quoted in Hub, so it becomes `'`.
#[must_use]
pub fn quote(value: &str) -> String {
    let v = value.replace('"', "'");
    if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '=') {
        format!("\"{v}\"")
    } else {
        v
    }
}

/// A position string that can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseHubPositionError {
    /// The first character is not `W` (Black to move) or `B` (White to move).
    #[error("bad position '{0}': must start with W (Black to move) or B (White to move)")]
    Side(String),
    /// Wrong number of square characters for the variant.
    #[error("bad position '{text}': {found} squares, {variant} has {expected}")]
    Length {
        /// The text (shortened).
        text: String,
        /// The variant being played.
        variant: Variant,
        /// Squares given.
        found: usize,
        /// Squares the variant has.
        expected: u32,
    },
    /// A character other than `w W b B e`.
    #[error("bad position '{text}': '{found}' is not one of w W b B e")]
    Piece {
        /// The text (shortened).
        text: String,
        /// The offending character.
        found: char,
    },
    /// Well-formed but not a position of the variant.
    #[error("bad position '{text}': {reason}")]
    Invalid {
        /// The text (shortened).
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
}

fn shorten(s: &str) -> String {
    crate::protocol::shorten(s, 60)
}

/// Hub's letters: `w`/`W` a Black man/king, `b`/`B` a White man/king, `e` empty.
pub const HUB_LETTERS: PieceLetters = PieceLetters {
    black_man: 'w',
    black_king: 'W',
    white_man: 'b',
    white_king: 'B',
    empty: 'e',
};

/// Reads a position string of `variant` (see the module documentation).
pub fn parse_position(variant: Variant, text: &str) -> Result<Position, ParseHubPositionError> {
    let turn = match text.chars().next() {
        Some('W') => Color::Black,
        Some('B') => Color::White,
        _ => return Err(ParseHubPositionError::Side(shorten(text))),
    };
    parse_square_text(variant, &text[1..], HUB_LETTERS, turn).map_err(|e| match e {
        ParseSquareTextError::Length {
            variant,
            found,
            expected,
        } => ParseHubPositionError::Length {
            text: shorten(text),
            variant,
            found,
            expected,
        },
        ParseSquareTextError::Piece { found, .. } => ParseHubPositionError::Piece {
            text: shorten(text),
            found,
        },
        ParseSquareTextError::Invalid(reason) => ParseHubPositionError::Invalid {
            text: shorten(text),
            reason,
        },
    })
}

/// Writes `pos` as a position string.
#[must_use]
pub fn format_position(pos: &Position) -> String {
    let side = match pos.turn() {
        Color::Black => 'W',
        Color::White => 'B',
    };
    format!("{side}{}", format_square_text(pos, HUB_LETTERS))
}

/// Writes a move in Hub notation: `11-15`, `22x15x18` (from, to, then the
/// captured squares ascending), `0-0` for a pass.
#[must_use]
pub fn format_move(m: Move) -> String {
    if m.is_pass() {
        return "0-0".to_string();
    }
    let mut s = format!("{}", m.from());
    if m.is_capture() {
        let _ = write!(s, "x{}", m.to());
        for c in m.captured() {
            let _ = write!(s, "x{c}");
        }
    } else {
        let _ = write!(s, "-{}", m.to());
    }
    s
}

/// A Hub move that can't be read or isn't legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseHubMoveError {
    /// Not move syntax.
    #[error("bad move '{0}': expected from-to or from x to x captured ...")]
    Syntax(String),
    /// No legal move matches.
    #[error("illegal move '{text}'; legal moves: {legal}")]
    Illegal {
        /// The move text (shortened).
        text: String,
        /// The legal moves in Hub notation.
        legal: String,
    },
    /// `from x to` without the captured squares fits several captures.
    #[error("ambiguous move '{text}': could be {candidates}")]
    Ambiguous {
        /// The move text (shortened).
        text: String,
        /// The matching moves in Hub notation.
        candidates: String,
    },
}

fn join_moves(moves: impl IntoIterator<Item = Move>) -> String {
    join_or_none(moves.into_iter().map(format_move))
}

/// Finds the legal move of `pos` written `text` in Hub notation. Also accepts
/// `pass`, and a capture written with its landing squares (`22x15x8`) when the
/// Hub reading matches nothing.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseHubMoveError> {
    let t = text.trim();
    let shown = shorten(t);
    let legal = pos.legal_moves();
    let illegal = || ParseHubMoveError::Illegal {
        text: shown.clone(),
        legal: join_moves(legal.iter().copied()),
    };
    if t == "0-0" || t.eq_ignore_ascii_case("pass") {
        return legal
            .iter()
            .copied()
            .find(|m| m.is_pass())
            .ok_or_else(illegal);
    }
    let capture = t.contains(['x', 'X']);
    if t.len() > 100 || (capture && t.contains('-')) {
        return Err(ParseHubMoveError::Syntax(shown));
    }
    let mut squares = Vec::new();
    for part in t.split(['-', 'x', 'X']) {
        let n: u32 = match part.parse() {
            Ok(n) if !part.starts_with('+') => n,
            _ => return Err(ParseHubMoveError::Syntax(shown)),
        };
        match Square::from_number(n).filter(|_| n <= pos.variant().squares()) {
            Some(sq) => squares.push(sq),
            None => return Err(illegal()),
        }
    }
    if squares.len() < 2 || (!capture && squares.len() != 2) {
        return Err(ParseHubMoveError::Syntax(shown));
    }
    let (from, to) = (squares[0], squares[1]);
    let ends = |m: &&Move| !m.is_pass() && m.from() == from && m.to() == to;
    if !capture {
        return pos.find_move(from, to, Bitboard::EMPTY).ok_or_else(illegal);
    }
    let captured: Vec<Square> = squares[2..].to_vec();
    let set = captured.iter().fold(Bitboard::EMPTY, |b, &s| b.with(s));
    if captured.is_empty() {
        let c: Vec<Move> = legal
            .iter()
            .filter(ends)
            .filter(|m| m.is_capture())
            .copied()
            .collect();
        return match c.len() {
            1 => Ok(c[0]),
            0 => Err(illegal()),
            _ => Err(ParseHubMoveError::Ambiguous {
                text: shown,
                candidates: join_moves(c),
            }),
        };
    }
    if set.count() as usize == captured.len() {
        if let Some(m) = pos.find_move(from, to, set) {
            return Ok(m);
        }
    }
    // the landing-square form, `22x15x8`
    pos.parse_move(t).map_err(|_| illegal())
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn start_position_matches_pydraughts() {
        let pos = Position::startpos(Variant::English);
        assert_eq!(format_position(&pos), START);
        assert_eq!(parse_position(Variant::English, START).unwrap(), pos);
    }

    #[test]
    fn kings_and_side_to_move() {
        // pydraughts: Board('english', fen='W:WK10,22:B3,K14')._game.initial_hub_fen
        let text = "BeeeeeeeeeebeeeeeeeWeeeBeeeeeewee";
        let fen = Position::from_fen(Variant::English, "W:WK10,22:B3,K14").unwrap();
        assert_eq!(parse_position(Variant::English, text).unwrap(), fen);
        assert_eq!(format_position(&fen), text);
        let black_to_move = fen.with_turn(Color::Black);
        assert_eq!(format_position(&black_to_move), format!("W{}", &text[1..]));
    }

    #[test]
    fn round_trips_mini() {
        let pos = Position::startpos(Variant::Mini);
        let s = format_position(&pos);
        assert_eq!(s.len(), 19);
        assert_eq!(parse_position(Variant::Mini, &s).unwrap(), pos);
    }

    #[test]
    fn bad_positions_are_errors() {
        let e = Variant::English;
        assert!(matches!(
            parse_position(e, ""),
            Err(ParseHubPositionError::Side(_))
        ));
        assert!(matches!(
            parse_position(e, &START.replace('W', "X")),
            Err(ParseHubPositionError::Side(_))
        ));
        assert!(matches!(
            parse_position(e, &START[..20]),
            Err(ParseHubPositionError::Length { found: 19, .. })
        ));
        assert!(matches!(
            parse_position(Variant::Mini, START),
            Err(ParseHubPositionError::Length { expected: 18, .. })
        ));
        assert!(matches!(
            parse_position(e, &START.replace('e', "z")),
            Err(ParseHubPositionError::Piece { found: 'z', .. })
        ));
        // a black man on 32 (character 1) must be a king
        let mut s: Vec<char> = START.chars().collect();
        s[1] = 'w';
        let s: String = s.into_iter().collect();
        assert!(matches!(
            parse_position(e, &s),
            Err(ParseHubPositionError::Invalid { .. })
        ));
        // multi-byte characters never panic
        assert!(parse_position(e, "Wé").is_err());
        assert!(parse_position(e, "é").is_err());
    }

    #[test]
    fn moves_round_trip() {
        let pos = Position::from_fen(Variant::English, "W:WK7,30,31:B1,4,10,11,18,19").unwrap();
        for m in pos.legal_moves().iter().copied() {
            let text = format_move(m);
            assert!(parse_move(&pos, &text).unwrap().same_effect(m), "{text}");
        }
        let start = Position::startpos(Variant::English);
        for m in start.legal_moves().iter().copied() {
            assert_eq!(parse_move(&start, &format_move(m)).unwrap(), m);
        }
    }

    #[test]
    fn capture_notation() {
        // white 22 takes 18 landing on 15
        let pos = Position::from_fen(Variant::English, "W:W22:B18,1").unwrap();
        let m = parse_move(&pos, "22x15x18").unwrap();
        assert_eq!(format_move(m), "22x15x18");
        assert_eq!(parse_move(&pos, "22x15").unwrap(), m);
        // a double jump: captured squares in any order
        let pos = Position::from_fen(Variant::English, "W:W26:B22,14,1").unwrap();
        let m = parse_move(&pos, "26x10x14x22").unwrap();
        assert_eq!(format_move(m), "26x10x14x22");
        assert_eq!(parse_move(&pos, "26x10x22x14").unwrap(), m);
        // landing squares also read
        assert_eq!(parse_move(&pos, "26x17x10").unwrap(), m);
        // a wrong captured set is illegal
        assert!(parse_move(&pos, "26x10x14x18").is_err());
        assert!(parse_move(&pos, "26x10x14x14").is_err());
    }

    #[test]
    fn bad_moves_are_errors() {
        let pos = Position::startpos(Variant::English);
        for bad in [
            "", "x", "11", "11-", "-15", "11--15", "11-15-19", "11x15-19", "+1-5", "a-b",
        ] {
            assert!(
                matches!(parse_move(&pos, bad), Err(ParseHubMoveError::Syntax(_))),
                "{bad}"
            );
        }
        for bad in [
            "11-16x",
            "0-5",
            "11-99",
            "21-17",
            "11x18",
            "0-0",
            "99999999999-1",
        ] {
            assert!(parse_move(&pos, bad).is_err(), "{bad}");
        }
        assert!(matches!(
            parse_move(&pos, "21-17"),
            Err(ParseHubMoveError::Illegal { .. })
        ));
    }

    #[test]
    fn pass_is_the_null_move() {
        // mini: black on 6 is blocked... a position where black must pass
        let pos = Position::from_fen(Variant::Mini, "B:W13:B18").unwrap();
        if pos.legal_moves().iter().any(|m| m.is_pass()) {
            let m = parse_move(&pos, "0-0").unwrap();
            assert!(m.is_pass());
            assert_eq!(format_move(m), "0-0");
        }
    }

    #[test]
    fn lines_split_with_quotes() {
        let l = parse_line(r#"pos pos=Wbbe moves="11-15 23-19" start"#).unwrap();
        assert_eq!(l.command, "pos");
        assert_eq!(l.value("pos"), Some("Wbbe"));
        assert_eq!(l.value("moves"), Some("11-15 23-19"));
        assert!(l.has("start"));
        assert_eq!(l.value("start"), None);
        let l = parse_line("  go   think  ").unwrap();
        assert_eq!((l.command.as_str(), l.has("think")), ("go", true));
        let l = parse_line(r#"set-param name=x value="""#).unwrap();
        assert_eq!(l.value("value"), Some(""));
        assert_eq!(parse_line("   "), Err(ParseHubLineError::Empty));
        assert!(matches!(
            parse_line(r#"pos moves="11-15"#),
            Err(ParseHubLineError::Unterminated(_))
        ));
        assert_eq!(parse_line("go =x"), Err(ParseHubLineError::NoName));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("kingme"), "kingme");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote("a=b"), "\"a=b\"");
        assert_eq!(quote("say \"hi\""), "\"say 'hi'\"");
        let line = format!("error message={}", quote("bad = \"x\" y"));
        let l = parse_line(&line).unwrap();
        assert_eq!(l.value("message"), Some("bad = 'x' y"));
    }
}
