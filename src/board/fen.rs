//! PDN FEN text in and out: `B:W21,22,...,32:B1,...,12`, `K` for kings,
//! ranges (`B1-12`) and a `[FEN "..."]` tag accepted on input.

use super::{Bitboard, Color, Position, Square, Variant};
use std::fmt;

/// A FEN that could not be read; holds the offending text and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad FEN '{text}': {reason}")]
pub struct ParseFenError {
    /// The FEN as given.
    pub text: String,
    /// What was wrong.
    pub reason: String,
}

impl Position {
    /// Reads a PDN FEN for `variant`.
    pub fn from_fen(variant: Variant, text: &str) -> Result<Position, ParseFenError> {
        let err = |reason: String| ParseFenError {
            text: text.chars().take(200).collect(),
            reason,
        };
        let mut s = text.trim();
        if let Some(rest) = s.strip_prefix('[') {
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix("FEN")
                .ok_or_else(|| err("a tag must be [FEN \"...\"]".into()))?;
            let rest = rest
                .trim()
                .strip_suffix(']')
                .ok_or_else(|| err("missing ']'".into()))?;
            s = rest
                .trim()
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .ok_or_else(|| err("the tag value must be in double quotes".into()))?;
        }
        let s = s.trim().trim_end_matches('.');
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return Err(err("empty".into()));
        }
        let mut fields = compact.split(':');
        let side = fields.next().unwrap_or_default();
        let turn = match side {
            "B" | "b" => Color::Black,
            "W" | "w" => Color::White,
            _ => return Err(err(format!("side to move must be B or W, not '{side}'"))),
        };
        let mut sets = [Bitboard::EMPTY; 2];
        let mut kings = Bitboard::EMPTY;
        let mut seen = [false; 2];
        let n = variant.squares();
        for field in fields {
            let mut chars = field.chars();
            let color = chars.next().and_then(Color::from_letter).ok_or_else(|| {
                err(format!(
                    "a piece list must start with W or B, not '{field}'"
                ))
            })?;
            let ci = color as usize;
            if seen[ci] {
                return Err(err(format!("two piece lists for {color}")));
            }
            seen[ci] = true;
            let list = chars.as_str();
            if list.is_empty() {
                continue;
            }
            for item in list.split(',') {
                let (king, body) = match item.strip_prefix(['K', 'k']) {
                    Some(b) => (true, b),
                    None => (false, item),
                };
                let parse_sq = |t: &str| -> Result<u32, ParseFenError> {
                    let v: u32 = t
                        .parse()
                        .map_err(|_| err(format!("'{item}' is not a square number")))?;
                    if v < 1 || v > n {
                        return Err(err(format!("square {v} is off the board (1-{n})")));
                    }
                    Ok(v)
                };
                let (a, b) = match body.split_once('-') {
                    Some((a, b)) => (parse_sq(a)?, parse_sq(b)?),
                    None => {
                        let v = parse_sq(body)?;
                        (v, v)
                    }
                };
                if a > b {
                    return Err(err(format!("range '{item}' runs backwards")));
                }
                for num in a..=b {
                    let sq = Square::from_number(num).expect("checked range");
                    if sets[0].contains(sq) || sets[1].contains(sq) {
                        return Err(err(format!("square {num} is given twice")));
                    }
                    sets[ci] = sets[ci].with(sq);
                    if king {
                        kings = kings.with(sq);
                    }
                }
            }
        }
        let pos = Position::from_parts(variant, sets[0], sets[1], kings, turn);
        pos.validate().map_err(|r| err(r.into()))?;
        Ok(pos)
    }

    /// The canonical FEN (White's list first, squares ascending).
    #[must_use]
    pub fn to_fen(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Position {
    /// Writes the canonical FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.turn().letter())?;
        for color in [Color::White, Color::Black] {
            write!(f, ":{}", color.letter())?;
            for (i, sq) in self.pieces(color).enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                if self.kings().contains(sq) {
                    f.write_str("K")?;
                }
                write!(f, "{sq}")?;
            }
        }
        Ok(())
    }
}
