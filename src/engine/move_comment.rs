//! What an engine thought of its move, as a PDN comment after the move:
//! `{+0.25/12 0.20s}` (the score in men from the mover's view, the depth,
//! the time), in the style of cutechess-cli's game files.
//!
//! | score | text |
//! |---|---|
//! | centi-men | `+0.25`, `-1.10`, `0.00` (men, two decimals) |
//! | a win in N plies | `+M13` |
//! | a loss in N plies | `-M13` |
//! | an exact draw | `=0.00` |
//! | a book move | `book` (no depth) |
//!
//! An engine that reports no score gets the time only: `{0.20s}`.

use super::Score;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// An engine's report on the move it played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MoveComment {
    /// The score the engine reported last, from the mover's view.
    pub score: Option<Score>,
    /// The depth of that score.
    pub depth: Option<u32>,
    /// The move came from the engine's opening book.
    pub book: bool,
    /// The time the engine took, to the hundredth of a second.
    pub time: Option<Duration>,
}

/// A comment that is not a [`MoveComment`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not an engine's move comment: '{0}'")]
pub struct ParseCommentError(String);

fn write_score(f: &mut fmt::Formatter<'_>, s: Score) -> fmt::Result {
    match s {
        Score::Eval(0) => f.write_str("0.00"),
        Score::Eval(cp) => {
            let sign = if cp > 0 { '+' } else { '-' };
            let a = cp.unsigned_abs();
            write!(f, "{sign}{}.{:02}", a / 100, a % 100)
        }
        Score::Win(n) => write!(f, "+M{n}"),
        Score::Loss(n) => write!(f, "-M{n}"),
        Score::Draw => f.write_str("=0.00"),
    }
}

/// `+0.25/12 0.20s`, `book 0.00s`, `0.20s`.
impl fmt::Display for MoveComment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = 0;
        if self.book {
            f.write_str("book")?;
            words += 1;
        } else if let Some(s) = self.score {
            write_score(f, s)?;
            if let Some(d) = self.depth {
                write!(f, "/{d}")?;
            }
            words += 1;
        }
        if let Some(t) = self.time {
            if words > 0 {
                f.write_str(" ")?;
            }
            let cs = (t.as_millis() + 5) / 10;
            write!(f, "{}.{:02}s", cs / 100, cs % 100)?;
        }
        Ok(())
    }
}

fn parse_score(text: &str) -> Option<Score> {
    if let Some(n) = text.strip_prefix("+M") {
        return n.parse().ok().map(Score::Win);
    }
    if let Some(n) = text.strip_prefix("-M") {
        return n.parse().ok().map(Score::Loss);
    }
    if text == "=0.00" {
        return Some(Score::Draw);
    }
    let (neg, digits) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    let (men, hundredths) = digits.split_once('.')?;
    if hundredths.len() != 2 || !hundredths.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if men.is_empty() || !men.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cp = men.parse::<i32>().ok()?.checked_mul(100)? + hundredths.parse::<i32>().ok()?;
    Some(Score::Eval(if neg { -cp } else { cp }))
}

fn parse_time(text: &str) -> Option<Duration> {
    let secs = text.strip_suffix('s')?;
    let (whole, frac) = secs.split_once('.').unwrap_or((secs, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ms = format!("{frac:0<3}").parse::<u64>().ok()?;
    Some(Duration::from_secs(whole.parse().ok()?) + Duration::from_millis(ms))
}

impl FromStr for MoveComment {
    type Err = ParseCommentError;

    /// Reads what `Display` writes (blanks around it ignored).
    fn from_str(s: &str) -> Result<MoveComment, ParseCommentError> {
        let bad = || ParseCommentError(s.chars().take(60).collect());
        let mut c = MoveComment::default();
        let words: Vec<&str> = s.split_whitespace().collect();
        let (first, time) = match words.as_slice() {
            [one] if one.ends_with('s') && parse_time(one).is_some() => (None, Some(*one)),
            [one] => (Some(*one), None),
            [a, t] => (Some(*a), Some(*t)),
            _ => return Err(bad()),
        };
        if let Some(t) = time {
            c.time = Some(parse_time(t).ok_or_else(bad)?);
        }
        match first {
            Some("book") => c.book = true,
            Some(w) => {
                let (score, depth) = match w.split_once('/') {
                    Some((s, d)) => (s, Some(d.parse().map_err(|_| bad())?)),
                    None => (w, None),
                };
                c.score = Some(parse_score(score).ok_or_else(bad)?);
                c.depth = depth;
            }
            None => {}
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_cutechess_writes_and_read_back() {
        let c = |score, depth, ms| MoveComment {
            score,
            depth,
            book: false,
            time: Some(Duration::from_millis(ms)),
        };
        let cases = [
            (c(Some(Score::Eval(25)), Some(12), 200), "+0.25/12 0.20s"),
            (c(Some(Score::Eval(-110)), Some(7), 1230), "-1.10/7 1.23s"),
            (c(Some(Score::Eval(-5)), Some(1), 10), "-0.05/1 0.01s"),
            (c(Some(Score::Eval(0)), Some(3), 0), "0.00/3 0.00s"),
            (c(Some(Score::Win(13)), Some(20), 990), "+M13/20 0.99s"),
            (c(Some(Score::Loss(4)), Some(9), 5000), "-M4/9 5.00s"),
            (c(Some(Score::Draw), Some(30), 100), "=0.00/30 0.10s"),
            (c(None, None, 200), "0.20s"),
        ];
        for (comment, text) in cases {
            assert_eq!(comment.to_string(), text);
            assert_eq!(text.parse::<MoveComment>(), Ok(comment), "{text}");
        }
        // written to the hundredth, rounded
        assert_eq!(c(None, None, 1234).to_string(), "1.23s");
        assert_eq!(c(None, None, 1235).to_string(), "1.24s");
        let book = MoveComment {
            book: true,
            time: Some(Duration::ZERO),
            ..MoveComment::default()
        };
        assert_eq!(book.to_string(), "book 0.00s");
        assert_eq!("book 0.00s".parse::<MoveComment>(), Ok(book));
    }

    #[test]
    fn other_comments_are_refused() {
        for text in [
            "good move",
            "",
            "+0.2/12 0.20s",
            "+x/12",
            "1-1",
            "+0.25/x 1s",
            "a b c",
        ] {
            assert!(text.parse::<MoveComment>().is_err(), "{text}");
        }
        // cutechess-cli's own form, a depth and a time, reads too
        let c: MoveComment = "-0.31/8 0.5s".parse().unwrap();
        assert_eq!(c.score, Some(Score::Eval(-31)));
        assert_eq!(c.time, Some(Duration::from_millis(500)));
    }
}
