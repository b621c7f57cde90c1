//! PDN game records: the writer the referee uses (the reader and the
//! movetext are `kingme::board::pdn`'s, re-exported here).
//!
//! Tags of the files we write: `Event`, `Site`, `Date`, `Round`, `White`,
//! `Black`, `Result`, then `GameType`, `FEN` (when the game does not start
//! from the standard position, e.g. after a 3-move ballot), `Opening`,
//! `Variant`, `Termination`; results, numbering and `GameType` as
//! `kingme::board::pdn` says. Each move is followed by what its engine said
//! of it, cutechess-cli style (`11-15 {+0.25/12 0.20s}`: the score in men
//! from the mover's view, the depth, the time the referee measured; `{0.20s}`
//! when the engine sent no score; [`kingme::engine::MoveComment`]).

use crate::game::GameRecord;
pub use kingme::board::pdn::{
    movetext, parse_pdn, tag_line, ParsePdnError, PdnGame, GAME_TYPE_ENGLISH, GAME_TYPE_MINI,
};
use kingme::{Color, Position, Variant};

/// Today's date as `YYYY.MM.DD` (UTC).
#[must_use]
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day): Howard Hinnant's algorithm.
#[must_use]
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// One game as PDN text (tags, a blank line, the movetext, a blank line).
#[must_use]
pub fn write_game(g: &GameRecord, event: &str, date: &str) -> String {
    let result = g.outcome.pdn();
    let mut s = String::new();
    let mut tag = |k: &str, v: &str| {
        s.push_str(&tag_line(k, v));
    };
    tag("Event", event);
    tag("Site", "kingme-referee");
    tag("Date", date);
    tag("Round", &g.round.to_string());
    tag("White", &g.white);
    tag("Black", &g.black);
    tag("Result", result);
    tag(
        "GameType",
        match g.variant {
            Variant::English => GAME_TYPE_ENGLISH,
            Variant::Mini => GAME_TYPE_MINI,
        },
    );
    if let Some(fen) = &g.fen {
        tag("FEN", fen);
    }
    tag("Opening", &g.opening);
    tag("Variant", g.variant.name());
    tag("Termination", &g.termination.to_string());
    s.push('\n');
    let first = match &g.fen {
        Some(f) => Position::from_fen(g.variant, f).map_or(Color::Black, |p| p.turn()),
        None => Color::Black,
    };
    // each move with its comment, one wrap unit: `11-15 {+0.25/12 0.20s}`
    let annotated: Vec<String> = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| match g.comments.get(i) {
            Some(c) => format!("{m} {{{c}}}"),
            None => m.clone(),
        })
        .collect();
    s.push_str(&movetext(first, &annotated, result));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
