//! Where a client finds a kingme engine: in its own process, a kingme TCP
//! server, or a program spoken to over stdin/stdout. The one spelling every
//! client takes on its command line (`inprocess`, `tcp:HOST:PORT`,
//! `cmd:"PROGRAM ARGS"`); each client says which of them it can use.

use crate::protocol::Token;
use std::fmt;
use std::str::FromStr;

/// Where an engine lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// A kingme session inside the client's own process (`inprocess`).
    InProcess,
    /// A running kingme-protocol server (`tcp:HOST:PORT`).
    Tcp {
        /// `HOST:PORT`.
        addr: String,
        /// Sent as `auth TOKEN` first, for a server started with `--token`.
        token: Option<Token>,
    },
    /// A program started for each connection, spoken to over stdin/stdout
    /// (`cmd:"PROGRAM ARGS"`).
    Cmd {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// Why an engine spec can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad engine '{0}': expected inprocess, tcp:HOST:PORT or cmd:\"PROGRAM ARGS\"")]
pub struct ParseEngineSpecError(pub String);

impl FromStr for EngineSpec {
    type Err = ParseEngineSpecError;
    fn from_str(s: &str) -> Result<EngineSpec, ParseEngineSpecError> {
        let bad = || ParseEngineSpecError(s.to_string());
        if matches!(s, "inprocess" | "in-process" | "local") {
            return Ok(EngineSpec::InProcess);
        }
        if let Some(addr) = s.strip_prefix("tcp:") {
            if !super::is_host_port(addr) {
                return Err(bad());
            }
            return Ok(EngineSpec::Tcp {
                addr: addr.to_string(),
                token: None,
            });
        }
        if let Some(cmd) = s.strip_prefix("cmd:") {
            let words = split_words(cmd).ok_or_else(bad)?;
            let (program, args) = words.split_first().ok_or_else(bad)?;
            return Ok(EngineSpec::Cmd {
                program: program.clone(),
                args: args.to_vec(),
            });
        }
        Err(bad())
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::InProcess => f.write_str("inprocess"),
            // the token is a secret: never printed
            EngineSpec::Tcp { addr, .. } => write!(f, "tcp:{addr}"),
            EngineSpec::Cmd { program, args } => {
                write!(f, "cmd:{program}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
        }
    }
}

impl EngineSpec {
    /// The same spec with `token` to send on connecting (TCP only; an engine
    /// in this process or spoken to over stdio needs none).
    #[must_use]
    pub fn with_token(self, token: Option<Token>) -> EngineSpec {
        match self {
            EngineSpec::Tcp { addr, .. } => EngineSpec::Tcp { addr, token },
            other => other,
        }
    }
}

/// Splits a command line into words: blanks separate, single or double quotes
/// group, a backslash escapes the next character outside single quotes. `None` on
/// an unclosed quote.
#[must_use]
pub fn split_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                cur.push(chars.next()?);
                in_word = true;
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            "tcp:127.0.0.1:7777".parse(),
            Ok(EngineSpec::Tcp {
                addr: "127.0.0.1:7777".into(),
                token: None
            })
        );
        assert_eq!(
            "cmd:\"/bin/kingme\" --max-line 100".parse(),
            Ok(EngineSpec::Cmd {
                program: "/bin/kingme".into(),
                args: vec!["--max-line".into(), "100".into()]
            })
        );
        assert!("tcp:nohost".parse::<EngineSpec>().is_err());
        assert!("cmd:".parse::<EngineSpec>().is_err());
        assert!("cmd:'open".parse::<EngineSpec>().is_err());
        assert!("kingme".parse::<EngineSpec>().is_err());
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"a "b c" 'd "e"' f\ g"#),
            Some(vec![
                "a".into(),
                "b c".into(),
                "d \"e\"".into(),
                "f g".into()
            ])
        );
        assert_eq!(split_words("  "), Some(vec![]));
    }

    #[test]
    fn inprocess_parses_and_is_written_back() {
        for s in ["inprocess", "in-process", "local"] {
            assert_eq!(s.parse(), Ok(EngineSpec::InProcess));
        }
        assert_eq!(EngineSpec::InProcess.to_string(), "inprocess");
        let tcp = EngineSpec::Tcp {
            addr: "h:1".into(),
            token: Some("s3cret-token".parse().unwrap()),
        };
        assert_eq!(tcp.to_string(), "tcp:h:1", "the token is never shown");
    }
}
