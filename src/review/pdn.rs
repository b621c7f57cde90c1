//! The reviewed game as PDN (`kingme review --pdn`): each move followed by
//! its value and depth as a comment (`{+0.23/7}`, the form of
//! [`crate::engine::MoveComment`]), the verdict's mark (`?!`, `?`, `??`)
//! on inaccuracies, mistakes and blunders, and for those the better move
//! as a variation with its value: `8-11?! {+0.15/6} (3. 12-16 {+0.28/6})`.

use super::judge::MoveReview;
use crate::board::pdn::{movetext, tag_line, PdnGame};
use crate::board::{Color, Game};
use crate::engine::MoveComment;

/// The movetext of `game` annotated with `reviews` (moves without a review
/// are written bare), ending in `result`.
#[must_use]
pub fn annotated_movetext(game: &Game, reviews: &[MoveReview], result: &str) -> String {
    let first = game.start().turn();
    let tokens: Vec<String> = game
        .moves()
        .iter()
        .enumerate()
        .map(|(ply, m)| {
            let Some(r) = reviews.iter().find(|r| r.ply == ply) else {
                return m.to_string();
            };
            let value = |score| MoveComment {
                score: Some(score),
                depth: Some(r.depth),
                ..MoveComment::default()
            };
            let mut t = format!("{m}{} {{{}}}", r.verdict.mark(), value(r.played_score));
            if !r.verdict.mark().is_empty() {
                let number = r.move_number(first);
                let dots = if r.mover == Color::Black { "." } else { "..." };
                t.push_str(&format!(
                    " ({number}{dots} {} {{{}}})",
                    r.best,
                    value(r.best_score)
                ));
            }
            t
        })
        .collect();
    movetext(first, &tokens, result)
}

/// The whole game as PDN: the record's tags (its `Annotator` replaced by
/// `annotator`), then [`annotated_movetext`] and a blank line.
#[must_use]
pub fn annotated_game(
    pdn: &PdnGame,
    game: &Game,
    reviews: &[MoveReview],
    annotator: &str,
) -> String {
    let mut out: String = pdn
        .tags
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("Annotator"))
        .map(|(k, v)| tag_line(k, v))
        .collect();
    out.push_str(&tag_line("Annotator", annotator));
    out.push('\n');
    out.push_str(&annotated_movetext(game, reviews, pdn.result_text()));
    out.push('\n');
    out
}
