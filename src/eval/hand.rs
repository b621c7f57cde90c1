//! The hand-set evaluations: ten weighted terms for English (kingme's first
//! evaluation, kept as `EvalFile hand` and for comparison), and the mini-checkers
//! heuristic used below level max.

use crate::board::{Color, Position, Rules, Variant};
use crate::board::{English, Mini};

/// Tunable weights of the English evaluation, in centi-men.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnglishWeights {
    /// Value of a man.
    pub man: i32,
    /// Value of a king.
    pub king: i32,
    /// Per row a man has advanced, scaled up as material comes off.
    pub advance: i32,
    /// Per man still guarding the back rank bridge squares while the opponent has no kings.
    pub back_guard: i32,
    /// Per piece on the eight central squares.
    pub centre: i32,
    /// Per quiet move available (difference between the sides).
    pub mobility: i32,
    /// Per man with a clear path to the crowning row.
    pub runaway: i32,
    /// Per king that cannot move.
    pub trapped_king: i32,
    /// Bonus per man of material lead as pieces come off (encourages trading when ahead), per 24ths.
    pub trade_down: i32,
    /// Per king on the edge of the board.
    pub king_edge: i32,
}

impl Default for EnglishWeights {
    fn default() -> Self {
        EnglishWeights {
            man: 100,
            king: 140,
            advance: 3,
            back_guard: 12,
            centre: 6,
            mobility: 2,
            runaway: 40,
            trapped_king: 30,
            trade_down: 6,
            king_edge: 8,
        }
    }
}

const CENTRE8: u32 =
    (1 << 9) | (1 << 10) | (1 << 13) | (1 << 14) | (1 << 17) | (1 << 18) | (1 << 21) | (1 << 22);
/// Bridge squares: Black 1 and 3, White 30 and 32.
const BLACK_GUARD: u32 = (1 << 0) | (1 << 2);
const WHITE_GUARD: u32 = (1 << 29) | (1 << 31);
const EDGE8: u32 = (1 << 3)
    | (1 << 4)
    | (1 << 11)
    | (1 << 12)
    | (1 << 19)
    | (1 << 20)
    | (1 << 27)
    | (1 << 28)
    | 0x0000_000f
    | 0xf000_0000;

/// A weights text that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad weights '{text}': {reason}")]
pub struct ParseWeightsError {
    /// The text as given.
    pub text: String,
    /// What was wrong.
    pub reason: String,
}

impl EnglishWeights {
    /// Names of the weights, in the order of `EnglishWeights::values`.
    pub const NAMES: [&'static str; 10] = [
        "man",
        "king",
        "advance",
        "back_guard",
        "centre",
        "mobility",
        "runaway",
        "trapped_king",
        "trade_down",
        "king_edge",
    ];

    fn values(&mut self) -> [&mut i32; 10] {
        [
            &mut self.man,
            &mut self.king,
            &mut self.advance,
            &mut self.back_guard,
            &mut self.centre,
            &mut self.mobility,
            &mut self.runaway,
            &mut self.trapped_king,
            &mut self.trade_down,
            &mut self.king_edge,
        ]
    }

    /// The default weights with some replaced: `name=value` pairs separated by
    /// commas (`king=150,advance=4`); an empty text gives the defaults.
    pub fn parse(text: &str) -> Result<EnglishWeights, ParseWeightsError> {
        let mut w = EnglishWeights::default();
        let err = |reason: String| ParseWeightsError {
            text: text.chars().take(200).collect(),
            reason,
        };
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| err(format!("'{pair}' is not name=value")))?;
            let v: i32 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &i32| (-10_000..=10_000).contains(v))
                .ok_or_else(|| err(format!("'{value}' is not an integer from -10000 to 10000")))?;
            let i = Self::NAMES
                .iter()
                .position(|n| n.eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| {
                    err(format!(
                        "unknown weight '{name}' (weights: {})",
                        Self::NAMES.join(", ")
                    ))
                })?;
            *w.values()[i] = v;
        }
        Ok(w)
    }
}

impl std::fmt::Display for EnglishWeights {
    /// Writes every weight as `name=value` pairs, readable by [`EnglishWeights::parse`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut c = *self;
        for (i, (n, v)) in Self::NAMES.iter().zip(c.values()).enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{n}={v}")?;
        }
        Ok(())
    }
}

/// How many rows a man of `color` on square index `sq` has advanced from its own back row.
fn rows_advanced<R: Rules>(sq: u32, color: Color) -> i32 {
    let row = (sq / R::W) as i32;
    match color {
        Color::Black => row,
        Color::White => R::SIZE as i32 - 1 - row,
    }
}

/// Squares from which a man of `color` on `sq` could be stopped: the cone ahead.
const fn cone(sq: u8, black: bool) -> u32 {
    let v = Variant::English;
    let (row, col) = v.row_col(sq);
    let (row, col) = (row as i32, col as i32);
    let mut m = 0u32;
    let mut r = 0i32;
    while r < 8 {
        let ahead = if black { r > row } else { r < row };
        if ahead {
            let dist = if r > row { r - row } else { row - r };
            let mut c = col - dist - 1;
            while c <= col + dist + 1 {
                if c >= 0 && c < 8 {
                    if let Some(i) = v.index_at(r as u32, c as u32) {
                        m |= 1 << i;
                    }
                }
                c += 1;
            }
        }
        r += 1;
    }
    m
}

const fn cones(black: bool) -> [u32; 32] {
    let mut t = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = cone(i as u8, black);
        i += 1;
    }
    t
}

static CONES: [[u32; 32]; 2] = [cones(true), cones(false)];

/// English evaluation with explicit weights.
#[must_use]
pub fn evaluate_english(pos: &Position, w: &EnglishWeights) -> i32 {
    type R = English;
    let us = pos.turn();
    let mut score = [0i32; 2];
    let kings = pos.kings().0;
    // men and kings of each colour, counted once
    let counts = Color::ALL.map(|c| {
        let own = pos.pieces(c).0;
        (
            (own & !kings).count_ones() as i32,
            (own & kings).count_ones() as i32,
        )
    });
    let total = counts.iter().map(|(m, k)| m + k).sum::<i32>();
    for (i, color) in Color::ALL.into_iter().enumerate() {
        let own = pos.pieces(color).0;
        let opp = pos.pieces(!color).0;
        let men = own & !kings;
        let k = own & kings;
        let mut s = w.man * counts[i].0 + w.king * counts[i].1;
        // advancement, stronger in the endgame
        let mut adv = 0;
        let mut bits = men;
        while bits != 0 {
            let sq = bits.trailing_zeros();
            bits &= bits - 1;
            let a = rows_advanced::<R>(sq, color);
            adv += a;
            // runaway: nothing of the opponent's in the cone ahead and within 3 rows
            if (7 - a) <= 3 && CONES[i][sq as usize] & opp == 0 {
                s += w.runaway * (4 - (7 - a)) / 3;
            }
        }
        s += adv * w.advance * (32 - total) / 16;
        let opp_kings = opp & kings;
        let guard = match color {
            Color::Black => BLACK_GUARD,
            Color::White => WHITE_GUARD,
        };
        if opp_kings == 0 {
            s += w.back_guard * (men & guard).count_ones() as i32;
        }
        s += w.centre * (own & CENTRE8).count_ones() as i32;
        s -= w.king_edge * (k & EDGE8).count_ones() as i32;
        // trapped kings
        let empty = !(own | opp) & R::ALL;
        let mut kb = k;
        while kb != 0 {
            let b = kb & kb.wrapping_neg();
            kb ^= b;
            let moves =
                (R::down_left(b) | R::down_right(b) | R::up_left(b) | R::up_right(b)) & empty;
            if moves == 0 {
                s -= w.trapped_king;
            }
        }
        // mobility (quiet moves)
        let fwd = match color {
            Color::Black => {
                (R::down_left(own) & empty).count_ones() + (R::down_right(own) & empty).count_ones()
            }
            Color::White => {
                (R::up_left(own) & empty).count_ones() + (R::up_right(own) & empty).count_ones()
            }
        };
        let back = match color {
            Color::Black => {
                (R::up_left(k) & empty).count_ones() + (R::up_right(k) & empty).count_ones()
            }
            Color::White => {
                (R::down_left(k) & empty).count_ones() + (R::down_right(k) & empty).count_ones()
            }
        };
        s += w.mobility * (fwd + back) as i32;
        score[i] = s;
    }
    let (b, wh) = (score[0], score[1]);
    // trade down when ahead: lead scaled by how much has come off
    let mat = |(men, kings): (i32, i32)| men * 100 + kings * 140;
    let lead = mat(counts[0]) - mat(counts[1]);
    let trade = lead * w.trade_down * (24 - total).max(0) / (24 * 10);
    let black_view = b - wh + trade;
    if us == Color::Black {
        black_view
    } else {
        -black_view
    }
}

/// Heuristic mini evaluation (the exact solver is preferred where available).
#[must_use]
pub fn evaluate_mini(pos: &Position) -> i32 {
    type R = Mini;
    let mut v = [0i32; 2];
    for (i, color) in Color::ALL.into_iter().enumerate() {
        let own = pos.pieces(color).0;
        let mut s = 100 * own.count_ones() as i32;
        let mut bits = own;
        while bits != 0 {
            let sq = bits.trailing_zeros();
            bits &= bits - 1;
            // pieces on the far row are stuck: worth a little less than active ones
            let a = rows_advanced::<R>(sq, color);
            s += if a == 5 { -10 } else { 2 * a };
        }
        v[i] = s;
    }
    let black_view = v[0] - v[1];
    if pos.turn() == Color::Black {
        black_view
    } else {
        -black_view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluate(pos: &Position) -> i32 {
        match pos.variant() {
            Variant::English => evaluate_english(pos, &EnglishWeights::default()),
            Variant::Mini => evaluate_mini(pos),
        }
    }

    #[test]
    fn start_is_balanced_and_symmetric() {
        for v in Variant::ALL {
            let p = Position::startpos(v);
            assert_eq!(evaluate(&p), -evaluate(&p.with_turn(Color::White)));
        }
    }

    #[test]
    fn weights_round_trip_and_errors() {
        let w = EnglishWeights::parse("king=150, advance=4").unwrap();
        assert_eq!((w.king, w.advance, w.man), (150, 4, 100));
        assert_eq!(EnglishWeights::parse(&w.to_string()).unwrap(), w);
        assert_eq!(
            EnglishWeights::parse("").unwrap(),
            EnglishWeights::default()
        );
        for bad in ["king", "queen=3", "king=x", "king=99999"] {
            let e = EnglishWeights::parse(bad).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }

    #[test]
    fn material_dominates() {
        let up = Position::from_fen(Variant::English, "B:W21,22,23:B1,2,3,4").unwrap();
        assert!(evaluate(&up) > 50);
        assert!(evaluate(&up.with_turn(Color::White)) < -50);
    }
}
