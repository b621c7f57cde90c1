//! Move text: `11-15`, `22x15x8`, the short `22x8` when unambiguous, and `pass`.

use super::{Bitboard, Move, Position, Square, Variant, MAX_PATH};

/// A move that can't be read or isn't legal here. Each variant keeps the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// Not move syntax at all.
    #[error("bad move '{0}': expected squares joined by '-' or 'x' (11-15, 22x15x8) or pass")]
    Syntax(String),
    /// A square number outside the board.
    #[error("bad move '{text}': square {square} is off the board (1-{max})")]
    Square {
        /// The move text.
        text: String,
        /// The offending number.
        square: u64,
        /// The highest square number.
        max: u32,
    },
    /// Well-formed but not legal in the position.
    #[error("illegal move '{text}'; legal moves: {legal}")]
    Illegal {
        /// The move text.
        text: String,
        /// The legal moves, space-separated (`none` when there are none).
        legal: String,
    },
    /// A short form that fits several legal moves.
    #[error("ambiguous move '{text}': could be {candidates}")]
    Ambiguous {
        /// The move text.
        text: String,
        /// The matching moves, space-separated.
        candidates: String,
    },
}

fn join(moves: impl IntoIterator<Item = Move>) -> String {
    join_or_none(moves)
}

/// Items blank-separated, or `none` when there are none (how move lists are
/// written in messages).
#[must_use]
pub fn join_or_none<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let v: Vec<String> = items.into_iter().map(|m| m.to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

impl Move {
    /// Reads a move as `Display` writes it (`11-15`, `22x15x8`, `pass`) on the
    /// board of `variant`, without a position: the pieces a capture takes are
    /// the squares it jumps over. Whether the move is legal anywhere is not
    /// checked; [`Position::parse_move`] does that.
    pub fn from_text(variant: Variant, text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        let shown: String = t.chars().take(80).collect();
        let syntax = || ParseMoveError::Syntax(shown.clone());
        if t == "pass" {
            return Ok(Move::PASS);
        }
        let capture = t.contains('x');
        let sep = if capture { 'x' } else { '-' };
        if t.contains(if capture { '-' } else { 'x' }) {
            return Err(syntax());
        }
        let mut squares = Vec::new();
        for part in t.split(sep) {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 3 {
                return Err(syntax());
            }
            let n: u32 = part.parse().map_err(|_| syntax())?;
            match Square::from_number(n).filter(|_| n <= variant.squares()) {
                Some(sq) => squares.push(sq),
                None => {
                    return Err(ParseMoveError::Square {
                        text: shown.clone(),
                        square: u64::from(n),
                        max: variant.squares(),
                    })
                }
            }
        }
        let step = if capture { 2 } else { 1 };
        if squares.len() < 2 || (!capture && squares.len() != 2) || squares.len() > MAX_PATH + 1 {
            return Err(syntax());
        }
        let mut captured = Bitboard::EMPTY;
        for pair in squares.windows(2) {
            let (r1, c1) = variant.row_col(pair[0].index());
            let (r2, c2) = variant.row_col(pair[1].index());
            if r1.abs_diff(r2) != step || c1.abs_diff(c2) != step {
                return Err(syntax());
            }
            if capture {
                let over = variant
                    .index_at((r1 + r2) / 2, (c1 + c2) / 2)
                    .and_then(Square::new)
                    .ok_or_else(syntax)?;
                captured = captured.with(over);
            }
        }
        Ok(if capture {
            Move::capture(squares[0], &squares[1..], captured)
        } else {
            Move::quiet(squares[0], squares[1])
        })
    }
}

impl Position {
    /// The legal move (not a pass) from `from` to `to` that captures exactly
    /// `captured`: how Hub and DXP name a move.
    #[must_use]
    pub fn find_move(&self, from: Square, to: Square, captured: Bitboard) -> Option<Move> {
        self.legal_moves()
            .iter()
            .copied()
            .find(|m| !m.is_pass() && m.from() == from && m.to() == to && m.captured() == captured)
    }

    /// Reads a move and finds it among the legal moves of this position.
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        let shown: String = t.chars().take(80).collect();
        if t.eq_ignore_ascii_case("pass") {
            let legal = self.legal_moves();
            return if legal.contains(&Move::PASS) {
                Ok(Move::PASS)
            } else {
                Err(ParseMoveError::Illegal {
                    text: shown,
                    legal: join(legal.iter().copied()),
                })
            };
        }
        if t.is_empty() || t.len() > 120 {
            return Err(ParseMoveError::Syntax(shown));
        }
        let max = self.variant().squares();
        let mut squares = Vec::new();
        for part in t.split(['-', 'x', 'X']) {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 6 {
                return Err(ParseMoveError::Syntax(shown));
            }
            let v: u64 = part
                .parse()
                .map_err(|_| ParseMoveError::Syntax(shown.clone()))?;
            if v < 1 || v > max as u64 {
                return Err(ParseMoveError::Square {
                    text: shown,
                    square: v,
                    max,
                });
            }
            squares.push(Square::from_number(v as u32).expect("checked"));
        }
        if squares.len() < 2 {
            return Err(ParseMoveError::Syntax(shown));
        }
        let distinct = self.legal_moves();
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        // a move written in full (every landing square) is that move, even
        // when a longer capture also starts and ends on the same squares
        let all = self.legal_moves_all_paths();
        if let Some(m) = all.iter().copied().find(|m| {
            !m.is_pass() && m.from() == from && m.landings().eq(squares[1..].iter().copied())
        }) {
            return Ok(m);
        }
        if squares.len() > 2 {
            return Err(ParseMoveError::Illegal {
                text: shown,
                legal: join(distinct.iter().copied()),
            });
        }
        // the short form of a capture: its start and end only
        let c: Vec<Move> = distinct
            .iter()
            .copied()
            .filter(|m| !m.is_pass() && m.from() == from && m.to() == to)
            .collect();
        match c.len() {
            1 => Ok(c[0]),
            0 => Err(ParseMoveError::Illegal {
                text: shown,
                legal: join(distinct.iter().copied()),
            }),
            _ => Err(ParseMoveError::Ambiguous {
                text: shown,
                candidates: join(c),
            }),
        }
    }
}
