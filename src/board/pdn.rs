//! PDN game records: reading games (tags, movetext, result) and writing the
//! movetext, for the referee's files and `kingme book learn`.
//!
//! Conventions (the files the referee writes, and what is read):
//! - `GameType`: `21` for English draughts (the PDN standard's number);
//!   mini-checkers has no standard number and uses `99` (with `Variant "mini"`).
//! - Results as English PDN writes them, Black's score first: `2-0` Black won,
//!   `0-2` White won, `1-1` draw (`1-0`, `0-1` and `1/2-1/2` are read too).
//! - Moves are numbered from Black's first move: `1. 11-15 22-18 2. 15x22 ...`;
//!   a game whose FEN has White to move begins `1... 22-18`. Captures list every
//!   landing square; a forfeited mini-checkers turn is `pass`.

use super::{Color, Game, Outcome, Position, Variant};

/// `GameType` of English draughts.
pub const GAME_TYPE_ENGLISH: &str = "21";
/// `GameType` we use for 6x6 mini-checkers (no standard number exists).
pub const GAME_TYPE_MINI: &str = "99";

/// The movetext: numbered from Black's first move, wrapped near 80 columns,
/// ending in the result.
#[must_use]
pub fn movetext(first_to_move: Color, moves: &[String], result: &str) -> String {
    // Wrap units: a move number stays on the line of the move it numbers.
    let mut tokens = Vec::new();
    let mut number = 0;
    for (i, m) in moves.iter().enumerate() {
        let black = (i % 2 == 0) == (first_to_move == Color::Black);
        if black {
            number += 1;
            tokens.push(format!("{number}. {m}"));
        } else if i == 0 {
            number += 1;
            tokens.push(format!("{number}... {m}"));
        } else {
            tokens.push(m.clone());
        }
    }
    tokens.push(result.to_string());
    let mut out = String::new();
    let mut col = 0;
    for t in tokens {
        if col > 0 && col + 1 + t.len() > 79 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(&t);
        col += t.len();
    }
    out.push('\n');
    out
}

/// One tag pair as a line, `[Name "value"]` and a newline: `"` and `\`
/// escaped, control characters dropped.
#[must_use]
pub fn tag_line(name: &str, value: &str) -> String {
    let mut s = String::with_capacity(name.len() + value.len() + 6);
    s.push('[');
    s.push_str(name);
    s.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        if !c.is_control() {
            s.push(c);
        }
    }
    s.push_str("\"]\n");
    s
}

/// A game read back from PDN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The moves, as written (without `!`/`?` marks).
    pub moves: Vec<String>,
    /// The comment that follows each move (one entry per move, in order):
    /// the text between the first `{` and `}` after it, before the next move.
    pub comments: Vec<Option<String>>,
    /// The result token ending the movetext, if any.
    pub result: Option<String>,
}

/// PDN that can't be read, or a game that can't be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParsePdnError {
    /// Malformed text.
    #[error("PDN line {line}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// What was expected.
        message: String,
    },
    /// The game's FEN or moves don't fit the rules.
    #[error("PDN game: {0}")]
    Replay(String),
}

const RESULTS: [&str; 7] = ["2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "*"];

impl PdnGame {
    /// The value of a tag.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The result as written: the movetext's result token, else the
    /// `Result` tag, else `*`.
    #[must_use]
    pub fn result_text(&self) -> &str {
        self.result.as_deref().or(self.tag("Result")).unwrap_or("*")
    }

    /// The variant from `Variant` or `GameType` (English when neither says).
    #[must_use]
    pub fn variant(&self) -> Variant {
        if let Some(v) = self.tag("Variant").and_then(|v| v.parse().ok()) {
            return v;
        }
        match self
            .tag("GameType")
            .map(|t| t.split(',').next().unwrap_or(""))
        {
            Some(GAME_TYPE_MINI) => Variant::Mini,
            _ => Variant::English,
        }
    }

    /// The game's result: the movetext's result token, else the `Result`
    /// tag; `None` when neither gives one (`*`, missing, unknown).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let token = self
            .result
            .as_deref()
            .filter(|r| *r != "*")
            .or_else(|| self.tag("Result"))?;
        match token {
            "2-0" | "1-0" => Some(Outcome::Win(Color::Black)),
            "0-2" | "0-1" => Some(Outcome::Win(Color::White)),
            "1-1" | "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }

    /// Replays the moves from the `FEN` tag (or the start) with the kingme rules.
    pub fn replay(&self) -> Result<Game, ParsePdnError> {
        let variant = self.variant();
        let start = match self.tag("FEN") {
            Some(f) => Position::from_fen(variant, f)
                .map_err(|e| ParsePdnError::Replay(format!("FEN: {e}")))?,
            None => Position::startpos(variant),
        };
        let mut game = Game::from_position(start);
        for (i, m) in self.moves.iter().enumerate() {
            game.play_text(m)
                .map_err(|e| ParsePdnError::Replay(format!("ply {}: {e}", i + 1)))?;
        }
        Ok(game)
    }
}

/// Reads every game of a PDN text: tags, movetext (move numbers, `!`/`?`
/// marks and `$N` glyphs dropped, `;` comments and `(variations)` skipped,
/// each move's `{comment}` kept) and the result token.
pub fn parse_pdn(text: &str) -> Result<Vec<PdnGame>, ParsePdnError> {
    let mut games = Vec::new();
    let mut cur = PdnGame::default();
    let mut in_moves = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let err = |line: usize, m: &str| ParsePdnError::Syntax {
        line,
        message: m.to_string(),
    };
    let flush = |cur: &mut PdnGame, games: &mut Vec<PdnGame>| {
        if !cur.tags.is_empty() || !cur.moves.is_empty() || cur.result.is_some() {
            games.push(std::mem::take(cur));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        match c {
            '[' => {
                if in_moves {
                    flush(&mut cur, &mut games);
                    in_moves = false;
                }
                i += 1;
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && chars[i] != ']' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                while i < chars.len() && chars[i] == ' ' {
                    i += 1;
                }
                if chars.get(i) != Some(&'"') {
                    return Err(err(line, "expected a quoted tag value"));
                }
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => return Err(err(line, "unterminated tag value")),
                        Some('\\') => {
                            if let Some(&n) = chars.get(i + 1) {
                                value.push(n);
                            }
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            value.push(ch);
                            i += 1;
                        }
                    }
                }
                while i < chars.len() && chars[i] == ' ' {
                    i += 1;
                }
                if chars.get(i) != Some(&']') {
                    return Err(err(line, "expected ']' after the tag value"));
                }
                i += 1;
                if name.is_empty() {
                    return Err(err(line, "empty tag name"));
                }
                cur.tags.push((name, value));
            }
            '{' => {
                let start = i + 1;
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if i == chars.len() {
                    return Err(err(line, "unterminated comment"));
                }
                if let Some(slot @ None) = cur.comments.last_mut() {
                    *slot = Some(
                        chars[start..i]
                            .iter()
                            .collect::<String>()
                            .trim()
                            .to_string(),
                    );
                }
                i += 1;
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                let mut depth = 0;
                while i < chars.len() {
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        '\n' => line += 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(err(line, "unterminated variation"));
                }
            }
            _ => {
                in_moves = true;
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '{' | '(' | '[' | ';')
                {
                    i += 1;
                }
                let token: String = chars[start..i].iter().collect();
                if RESULTS.contains(&token.as_str()) {
                    cur.result = Some(token);
                    flush(&mut cur, &mut games);
                    in_moves = false;
                    continue;
                }
                // Strip a move number: `12.`, `12...`, or glued `12.11-15`.
                let digits = token.chars().take_while(char::is_ascii_digit).count();
                let rest = &token[digits..];
                let mv = if digits > 0 && rest.starts_with('.') {
                    rest.trim_start_matches('.')
                } else {
                    token.as_str()
                };
                // marks of the move's quality, and numeric glyphs
                let mv = mv.trim_end_matches(['!', '?']);
                if mv.is_empty()
                    || (mv.starts_with('$') && mv[1..].bytes().all(|b| b.is_ascii_digit()))
                {
                    continue;
                }
                let is_move = mv.eq_ignore_ascii_case("pass")
                    || (mv.starts_with(|c: char| c.is_ascii_digit())
                        && mv.chars().all(|c| c.is_ascii_digit() || "-xX:".contains(c)));
                if !is_move {
                    return Err(err(line, &format!("unexpected token '{mv}'")));
                }
                cur.moves.push(mv.to_string());
                cur.comments.push(None);
            }
        }
    }
    flush(&mut cur, &mut games);
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_from_black() {
        let m: Vec<String> = ["11-15", "22-18", "15x22"].map(String::from).to_vec();
        assert_eq!(
            movetext(Color::Black, &m, "1-1"),
            "1. 11-15 22-18 2. 15x22 1-1\n"
        );
        assert_eq!(
            movetext(Color::White, &m, "0-2"),
            "1... 11-15 2. 22-18 15x22 0-2\n"
        );
    }

    #[test]
    fn reads_tags_comments_and_results() {
        let text = "[Event \"a \\\"b\\\"\"]\n[Result \"2-0\"]\n\n1. 11-15 {good} 22-18 \
                    (1... 23-19) 2.15x22 ; rest\n2-0\n\n[Event \"second\"]\n1. 9-13 *\n";
        let g = parse_pdn(text).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].tag("event"), Some("a \"b\""));
        assert_eq!(g[0].moves, ["11-15", "22-18", "15x22"]);
        assert_eq!(g[0].comments, [Some("good".to_string()), None, None]);
        assert_eq!(g[0].result.as_deref(), Some("2-0"));
        assert_eq!(g[1].moves, ["9-13"]);
        assert_eq!(g[1].result.as_deref(), Some("*"));
        g[0].replay().unwrap();
        assert!(parse_pdn("[Event x]").is_err());
        assert!(parse_pdn("1. hello").is_err());
    }

    #[test]
    fn tag_lines_read_back() {
        let text = format!("{}1. 11-15 *\n", tag_line("Event", "a \"b\" c\\d\te"));
        assert_eq!(text.lines().next(), Some(r#"[Event "a \"b\" c\\de"]"#));
        let g = parse_pdn(&text).unwrap().remove(0);
        assert_eq!(g.tag("Event"), Some("a \"b\" c\\de"));
    }

    #[test]
    fn marks_and_glyphs_are_dropped_and_comments_kept_per_move() {
        let text = "1. 11-15?! {+0.25/12 0.20s} 22-18 $1 2. 15x22?? {a}{b} 25x18! *\n";
        let g = parse_pdn(text).unwrap().remove(0);
        assert_eq!(g.moves, ["11-15", "22-18", "15x22", "25x18"]);
        assert_eq!(
            g.comments,
            [Some("+0.25/12 0.20s".into()), None, Some("a".into()), None]
        );
        g.replay().unwrap();
    }

    #[test]
    fn outcomes_black_first() {
        let g = |r: &str| {
            parse_pdn(&format!("[Result \"{r}\"]\n1. 11-15 {r}\n"))
                .unwrap()
                .remove(0)
        };
        assert_eq!(g("2-0").outcome(), Some(Outcome::Win(Color::Black)));
        assert_eq!(g("0-2").outcome(), Some(Outcome::Win(Color::White)));
        assert_eq!(g("1-1").outcome(), Some(Outcome::Draw));
        assert_eq!(g("1/2-1/2").outcome(), Some(Outcome::Draw));
        assert_eq!(g("*").outcome(), None);
        let tag_only = parse_pdn("[Result \"0-2\"]\n1. 11-15 *\n")
            .unwrap()
            .remove(0);
        assert_eq!(tag_only.outcome(), Some(Outcome::Win(Color::White)));
    }
}
