//! DXP (DamExchange) messages: 1-127 ASCII characters, framed by a NUL byte
//! on the wire. This module reads and writes the text of one message; the
//! framing and the game live in [`super`].
//!
//! ```text
//! R vv name(32) fcolour(W|Z) minutes(3) moves(3) A                 GAMEREQ, start position
//! R vv name(32) fcolour      minutes(3) moves(3) B colour board    GAMEREQ, set-up position
//! A name(32) code                                                  GAMEACC (0 accept)
//! M seconds(4) from(2) to(2) n(2) captured(2)*n                    MOVE
//! E reason stop                                                    GAMEEND
//! C text                                                           CHAT
//! B moveno(3) colour                                               BACKREQ
//! K code                                                           BACKACC
//! ```

use std::fmt;

/// Longest message text (without the NUL).
pub const MAX_MESSAGE: usize = 127;

/// A colour field: `W` or `Z` (what it means for English is [`super`]'s business).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum DxpColor {
    /// `W`.
    W,
    /// `Z`.
    Z,
}

impl DxpColor {
    fn letter(self) -> char {
        match self {
            DxpColor::W => 'W',
            DxpColor::Z => 'Z',
        }
    }

    fn from_letter(c: u8) -> Option<DxpColor> {
        match c {
            b'W' => Some(DxpColor::W),
            b'Z' => Some(DxpColor::Z),
            _ => None,
        }
    }
}

/// A game request from the initiator.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameReq {
    /// Protocol version (`01`).
    pub version: u8,
    /// The initiator's name (trailing blanks removed).
    pub name: String,
    /// The colour the follower (we) plays.
    pub follower: DxpColor,
    /// Minutes on each clock (0: no clock).
    pub minutes: u16,
    /// Moves to play in that time (0: the whole game).
    pub moves: u16,
    /// A set-up position: the side to move and the board characters; `None`
    /// for the standard start.
    pub setup: Option<(DxpColor, String)>,
}

/// A move: squares as numbers, captured squares in any order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DxpMove {
    /// Seconds the mover spent.
    pub seconds: u16,
    /// Start square.
    pub from: u8,
    /// End square.
    pub to: u8,
    /// Captured squares.
    pub captured: Vec<u8>,
}

/// One DXP message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DxpMessage {
    /// `R`: the initiator asks for a game.
    GameReq(GameReq),
    /// `A`: the follower's answer (code 0 accepts).
    GameAcc {
        /// The follower's name.
        name: String,
        /// 0 accept, 1 wrong version, 2 game not supported, 3 no games now.
        code: u8,
    },
    /// `M`: a move.
    Move(DxpMove),
    /// `E`: the game ends (sent, then echoed by the other side).
    GameEnd {
        /// 0 unknown, 1 the sender loses, 2 draw, 3 the sender wins.
        reason: u8,
        /// 0 another game is welcome, 1 no more games.
        stop: u8,
    },
    /// `C`: free text.
    Chat(String),
    /// `B`: a request to take moves back.
    BackReq {
        /// The move number to go back to.
        move_number: u16,
        /// The side to move there.
        color: DxpColor,
    },
    /// `K`: the answer to a `BackReq` (0 yes, 1 no, 2 continue).
    BackAcc {
        /// The answer code.
        code: u8,
    },
}

/// A message that can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseDxpError {
    /// Nothing between two NULs.
    #[error("empty message")]
    Empty,
    /// More than 127 characters before the NUL.
    #[error("message longer than {MAX_MESSAGE} characters")]
    TooLong,
    /// Bytes outside printable ASCII.
    #[error("message holds non-ASCII or control bytes")]
    NotAscii,
    /// An unknown first letter.
    #[error("unknown message type '{0}'")]
    UnknownType(char),
    /// A field is missing, too short, or not what it should be.
    #[error("bad {kind} message '{text}': {what}")]
    Field {
        /// The message type's name.
        kind: &'static str,
        /// The message (shortened).
        text: String,
        /// What is wrong.
        what: &'static str,
    },
}

fn digits(s: &[u8]) -> Option<u16> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u16, |n, &d| {
        n.checked_mul(10)?.checked_add(u16::from(d - b'0'))
    })
}

fn name_field(s: &str) -> String {
    let mut n: String = s
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .collect();
    n.truncate(32);
    format!("{n:<32}")
}

impl DxpMessage {
    /// Reads the text of one message (without its NUL).
    pub fn parse(bytes: &[u8]) -> Result<DxpMessage, ParseDxpError> {
        if bytes.is_empty() {
            return Err(ParseDxpError::Empty);
        }
        if bytes.len() > MAX_MESSAGE {
            return Err(ParseDxpError::TooLong);
        }
        if !bytes.iter().all(|&b| (0x20..0x7f).contains(&b)) {
            return Err(ParseDxpError::NotAscii);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ParseDxpError::NotAscii)?;
        let field = |kind: &'static str, what: &'static str| ParseDxpError::Field {
            kind,
            text: text.chars().take(60).collect(),
            what,
        };
        let b = bytes;
        match b[0] {
            b'R' => {
                let bad = |what| field("GAMEREQ", what);
                if b.len() < 43 {
                    return Err(bad("shorter than 43 characters"));
                }
                let version = digits(&b[1..3]).ok_or_else(|| bad("version is not 2 digits"))?;
                let name = text[3..35].trim_end().to_string();
                let follower = DxpColor::from_letter(b[35])
                    .ok_or_else(|| bad("follower colour not W or Z"))?;
                let minutes = digits(&b[36..39]).ok_or_else(|| bad("minutes not 3 digits"))?;
                let moves = digits(&b[39..42]).ok_or_else(|| bad("moves not 3 digits"))?;
                let setup = match b[42] {
                    b'A' if b.len() == 43 => None,
                    b'A' => return Err(bad("text after the A start indicator")),
                    b'B' => {
                        if b.len() < 45 {
                            return Err(bad("no colour and board after B"));
                        }
                        let c = DxpColor::from_letter(b[43])
                            .ok_or_else(|| bad("colour to move not W or Z"))?;
                        Some((c, text[44..].to_string()))
                    }
                    _ => return Err(bad("position indicator not A or B")),
                };
                Ok(DxpMessage::GameReq(GameReq {
                    version: version as u8,
                    name,
                    follower,
                    minutes,
                    moves,
                    setup,
                }))
            }
            b'A' => {
                let bad = |what| field("GAMEACC", what);
                if b.len() != 34 {
                    return Err(bad("not 34 characters"));
                }
                let code = digits(&b[33..34]).ok_or_else(|| bad("code not a digit"))?;
                Ok(DxpMessage::GameAcc {
                    name: text[1..33].trim_end().to_string(),
                    code: code as u8,
                })
            }
            b'M' => {
                let bad = |what| field("MOVE", what);
                if b.len() < 11 {
                    return Err(bad("shorter than 11 characters"));
                }
                let seconds = digits(&b[1..5]).ok_or_else(|| bad("time not 4 digits"))?;
                let from = digits(&b[5..7]).ok_or_else(|| bad("from not 2 digits"))?;
                let to = digits(&b[7..9]).ok_or_else(|| bad("to not 2 digits"))?;
                let n = digits(&b[9..11]).ok_or_else(|| bad("capture count not 2 digits"))?;
                if b.len() != 11 + 2 * n as usize {
                    return Err(bad("length does not match the capture count"));
                }
                let captured = b[11..]
                    .chunks(2)
                    .map(|c| digits(c).map(|v| v as u8))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| bad("captured square not 2 digits"))?;
                Ok(DxpMessage::Move(DxpMove {
                    seconds,
                    from: from as u8,
                    to: to as u8,
                    captured,
                }))
            }
            b'E' => {
                let bad = |what| field("GAMEEND", what);
                if b.len() != 3 {
                    return Err(bad("not 3 characters"));
                }
                let reason = digits(&b[1..2]).ok_or_else(|| bad("reason not a digit"))?;
                let stop = digits(&b[2..3]).ok_or_else(|| bad("stop code not a digit"))?;
                Ok(DxpMessage::GameEnd {
                    reason: reason as u8,
                    stop: stop as u8,
                })
            }
            b'C' => Ok(DxpMessage::Chat(text[1..].to_string())),
            b'B' => {
                let bad = |what| field("BACKREQ", what);
                if b.len() != 5 {
                    return Err(bad("not 5 characters"));
                }
                let move_number = digits(&b[1..4]).ok_or_else(|| bad("move not 3 digits"))?;
                let color = DxpColor::from_letter(b[4]).ok_or_else(|| bad("colour not W or Z"))?;
                Ok(DxpMessage::BackReq { move_number, color })
            }
            b'K' => {
                let bad = |what| field("BACKACC", what);
                if b.len() != 2 {
                    return Err(bad("not 2 characters"));
                }
                let code = digits(&b[1..2]).ok_or_else(|| bad("code not a digit"))?;
                Ok(DxpMessage::BackAcc { code: code as u8 })
            }
            other => Err(ParseDxpError::UnknownType(char::from(other))),
        }
    }
}

impl fmt::Display for DxpMessage {
    /// The message text (without the NUL). Numbers too large for their field
    /// are reduced modulo the field's size, names cut to 32 characters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DxpMessage::GameReq(r) => {
                write!(
                    f,
                    "R{:02}{}{}{:03}{:03}",
                    r.version % 100,
                    name_field(&r.name),
                    r.follower.letter(),
                    r.minutes % 1000,
                    r.moves % 1000
                )?;
                match &r.setup {
                    None => f.write_str("A"),
                    Some((c, board)) => write!(f, "B{}{board}", c.letter()),
                }
            }
            DxpMessage::GameAcc { name, code } => {
                write!(f, "A{}{}", name_field(name), code % 10)
            }
            DxpMessage::Move(m) => {
                write!(
                    f,
                    "M{:04}{:02}{:02}{:02}",
                    m.seconds % 10000,
                    m.from % 100,
                    m.to % 100,
                    m.captured.len() % 100
                )?;
                for c in &m.captured {
                    write!(f, "{:02}", c % 100)?;
                }
                Ok(())
            }
            DxpMessage::GameEnd { reason, stop } => write!(f, "E{}{}", reason % 10, stop % 10),
            DxpMessage::Chat(t) => {
                let t: String = t
                    .chars()
                    .filter(|c| c.is_ascii_graphic() || *c == ' ')
                    .take(MAX_MESSAGE - 1)
                    .collect();
                write!(f, "C{t}")
            }
            DxpMessage::BackReq { move_number, color } => {
                write!(f, "B{:03}{}", move_number % 1000, color.letter())
            }
            DxpMessage::BackAcc { code } => write!(f, "K{}", code % 10),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(m: &DxpMessage) {
        let text = m.to_string();
        assert!(text.len() <= MAX_MESSAGE, "{text}");
        assert_eq!(&DxpMessage::parse(text.as_bytes()).unwrap(), m, "{text}");
    }

    #[test]
    fn pydraughts_messages() {
        // what pydraughts 0.6.7 sends for a game from the English start
        let req = "R01DXP Client                      Z000000BZzzzzzzzzzzzzeeeeeeeewwwwwwwwwwww";
        let m = DxpMessage::parse(req.as_bytes()).unwrap();
        let DxpMessage::GameReq(r) = &m else {
            panic!("{m:?}")
        };
        assert_eq!(r.name, "DXP Client");
        assert_eq!((r.follower, r.minutes, r.moves), (DxpColor::Z, 0, 0));
        assert_eq!(
            r.setup,
            Some((DxpColor::Z, "zzzzzzzzzzzzeeeeeeeewwwwwwwwwwww".to_string()))
        );
        assert_eq!(m.to_string(), req);
        let mv = DxpMessage::parse(b"M0000121600").unwrap();
        assert_eq!(
            mv,
            DxpMessage::Move(DxpMove {
                seconds: 0,
                from: 12,
                to: 16,
                captured: vec![]
            })
        );
        assert_eq!(
            DxpMessage::parse(b"E01").unwrap(),
            DxpMessage::GameEnd { reason: 0, stop: 1 }
        );
        assert_eq!(
            DxpMessage::parse(b"K1").unwrap(),
            DxpMessage::BackAcc { code: 1 }
        );
    }

    #[test]
    fn round_trips() {
        for m in [
            DxpMessage::GameReq(GameReq {
                version: 1,
                name: "Tornado".into(),
                follower: DxpColor::W,
                minutes: 90,
                moves: 75,
                setup: None,
            }),
            DxpMessage::GameAcc {
                name: "kingme".into(),
                code: 0,
            },
            DxpMessage::Move(DxpMove {
                seconds: 12,
                from: 26,
                to: 10,
                captured: vec![22, 14],
            }),
            DxpMessage::GameEnd { reason: 3, stop: 0 },
            DxpMessage::Chat("good game".into()),
            DxpMessage::Chat(String::new()),
            DxpMessage::BackReq {
                move_number: 5,
                color: DxpColor::Z,
            },
            DxpMessage::BackAcc { code: 2 },
        ] {
            round_trip(&m);
        }
        assert_eq!(
            DxpMessage::GameAcc {
                name: "kingme".into(),
                code: 0
            }
            .to_string(),
            format!("A{:<32}0", "kingme")
        );
    }

    #[test]
    fn bad_messages_are_errors() {
        let long = [b'C'; 128];
        for (bad, what) in [
            (&b""[..], "empty"),
            (&long[..], "long"),
            (b"C\xff", "non-ascii"),
            (b"C\n", "control"),
            (b"X12", "unknown"),
            (b"R01", "short req"),
            (b"M000012", "short move"),
            (b"M0000121601", "missing capture"),
            (b"M000012160115x", "capture junk"),
            (b"M00001216001", "trailing"),
            (b"Mabcd121600", "time"),
            (b"E0", "short end"),
            (b"E0x", "end stop"),
            (b"B05Z", "backreq"),
            (b"B005Q", "backreq colour"),
            (b"K", "backacc"),
            (b"A", "gameacc"),
        ] {
            assert!(DxpMessage::parse(bad).is_err(), "{what}");
        }
        let mut req =
            b"R01DXP Client                      Z000000BZzzzzzzzzzzzzeeeeeeeewwwwwwwwwwww"
                .to_vec();
        req[35] = b'Q';
        assert!(DxpMessage::parse(&req).is_err());
        req[35] = b'Z';
        req[42] = b'C';
        assert!(DxpMessage::parse(&req).is_err());
        req[42] = b'A';
        assert!(DxpMessage::parse(&req).is_err());
    }

    #[test]
    fn writing_never_overflows_fields() {
        let m = DxpMessage::Move(DxpMove {
            seconds: 12345,
            from: 1,
            to: 2,
            captured: vec![],
        });
        assert_eq!(m.to_string(), "M2345010200");
        let long_name = "x".repeat(50);
        let a = DxpMessage::GameAcc {
            name: long_name,
            code: 0,
        };
        assert_eq!(a.to_string().len(), 34);
        let c = DxpMessage::Chat("é".repeat(200) + &"a".repeat(200));
        assert!(c.to_string().len() <= MAX_MESSAGE);
        assert!(DxpMessage::parse(c.to_string().as_bytes()).is_ok());
    }
}
