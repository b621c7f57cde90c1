//! The shared secret of `auth`.

use std::fmt;
use std::str::FromStr;

/// Longest token accepted, in bytes.
pub const MAX_TOKEN: usize = 256;

/// The environment variable the command lines (`kingme`, `kingme-referee`,
/// `kingme-web`) take a token from when no flag gives one.
pub const TOKEN_ENV: &str = "KINGME_TOKEN";

/// An `auth` token: one word of visible characters (no blanks, no control
/// characters), so that `auth TOKEN` is one protocol line that no parser
/// splits. Its `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

/// Why a token can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Nothing given.
    #[error("a token can't be empty")]
    Empty,
    /// A blank or a control character in it.
    #[error("a token must be one word of visible characters (no blanks or control characters)")]
    NotAWord,
    /// Over [`MAX_TOKEN`] bytes.
    #[error("a token is at most {MAX_TOKEN} bytes")]
    TooLong,
}

impl FromStr for Token {
    type Err = TokenError;

    fn from_str(s: &str) -> Result<Token, TokenError> {
        if s.is_empty() {
            return Err(TokenError::Empty);
        }
        if s.len() > MAX_TOKEN {
            return Err(TokenError::TooLong);
        }
        if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(TokenError::NotAWord);
        }
        Ok(Token(s.to_string()))
    }
}

impl Token {
    /// The secret itself, to send or compare.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Token {
    /// The word an `auth` line carried, as sent: the session compares it with
    /// its own token, so it is not checked like a configured one.
    pub(crate) fn from_wire(word: &str) -> Token {
        Token(word.to_string())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_one_visible_word() {
        assert_eq!("s3cret-é".parse::<Token>().unwrap().as_str(), "s3cret-é");
        assert_eq!("".parse::<Token>(), Err(TokenError::Empty));
        for bad in ["a b", "a\tb", "a\nisready", "a\u{0}", "\u{85}x", " lead"] {
            assert_eq!(bad.parse::<Token>(), Err(TokenError::NotAWord), "{bad:?}");
        }
        assert_eq!(
            "x".repeat(MAX_TOKEN + 1).parse::<Token>(),
            Err(TokenError::TooLong)
        );
        assert!(!format!("{:?}", "s3cret".parse::<Token>().unwrap()).contains("s3cret"));
    }
}
