//! How the clients name a kingme engine on their command lines: in the
//! client's own process (`inprocess`), a kingme TCP server
//! (`tcp:HOST:PORT`), or a program spoken to over stdin/stdout
//! (`cmd:"PROGRAM ARGS"`). One spelling for every client; each client has a
//! spec type of its own holding only the kinds it can use (the referee's
//! programs and servers, the web board's own process and servers), read
//! through [`EngineSpelling::parse`] and [`Accepted::refuse`], so that a kind
//! it cannot use is a parse error naming what it takes.

use std::fmt;

/// A kind of engine a client may be pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// A kingme session in the client's own process.
    InProcess,
    /// A kingme TCP server.
    Tcp,
    /// A program spoken to over stdin/stdout.
    Cmd,
}

impl EngineKind {
    /// What the kind is, in words.
    #[must_use]
    pub fn what(self) -> &'static str {
        match self {
            EngineKind::InProcess => "an engine in its own process",
            EngineKind::Tcp => "a kingme server",
            EngineKind::Cmd => "a program",
        }
    }
}

impl fmt::Display for EngineKind {
    /// The kind's spelling, as a usage line shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineKind::InProcess => "inprocess",
            EngineKind::Tcp => "tcp:HOST:PORT",
            EngineKind::Cmd => "cmd:\"PROGRAM ARGS\"",
        })
    }
}

/// The kinds one client takes, and its name, for its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The client (`kingme-referee`, `kingme-web`).
    pub tool: &'static str,
    /// What it takes.
    pub kinds: &'static [EngineKind],
}

impl Accepted {
    /// The error for `spec`, of a `kind` this client does not take.
    #[must_use]
    pub fn refuse(self, spec: &str, kind: EngineKind) -> ParseEngineSpecError {
        ParseEngineSpecError::Refused {
            spec: spec.to_string(),
            kind,
            accepted: self,
        }
    }
}

impl fmt::Display for Accepted {
    /// `TOOL takes A, B or C`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} takes ", self.tool)?;
        for (i, k) in self.kinds.iter().enumerate() {
            match i {
                0 => {}
                _ if i + 1 == self.kinds.len() => f.write_str(" or ")?,
                _ => f.write_str(", ")?,
            }
            write!(f, "{k}")?;
        }
        Ok(())
    }
}

/// An engine spec as written, before a client takes it as one of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpelling {
    /// `inprocess` (or `in-process`, `local`).
    InProcess,
    /// `tcp:HOST:PORT`.
    Tcp {
        /// `HOST:PORT`.
        addr: String,
    },
    /// `cmd:"PROGRAM ARGS"`.
    Cmd {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// Why an engine spec can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseEngineSpecError {
    /// It is no engine spec at all.
    #[error("bad engine '{spec}': {accepted}")]
    Malformed {
        /// What was given.
        spec: String,
        /// What the client takes.
        accepted: Accepted,
    },
    /// It names a kind of engine this client does not take.
    #[error("engine '{spec}' is {}: {accepted}", kind.what())]
    Refused {
        /// What was given.
        spec: String,
        /// Its kind.
        kind: EngineKind,
        /// What the client takes.
        accepted: Accepted,
    },
}

impl EngineSpelling {
    /// Reads `s` for a client that takes `accepted` (whose name a malformed
    /// spec's error gives; the client refuses the other kinds itself, with
    /// [`Accepted::refuse`]).
    pub fn parse(s: &str, accepted: Accepted) -> Result<EngineSpelling, ParseEngineSpecError> {
        let bad = || ParseEngineSpecError::Malformed {
            spec: s.to_string(),
            accepted,
        };
        if matches!(s, "inprocess" | "in-process" | "local") {
            return Ok(EngineSpelling::InProcess);
        }
        if let Some(addr) = s.strip_prefix("tcp:") {
            if !super::is_host_port(addr) {
                return Err(bad());
            }
            return Ok(EngineSpelling::Tcp {
                addr: addr.to_string(),
            });
        }
        if let Some(cmd) = s.strip_prefix("cmd:") {
            let words = split_words(cmd).ok_or_else(bad)?;
            let (program, args) = words.split_first().ok_or_else(bad)?;
            return Ok(EngineSpelling::Cmd {
                program: program.clone(),
                args: args.to_vec(),
            });
        }
        Err(bad())
    }

    /// Its kind.
    #[must_use]
    pub fn kind(&self) -> EngineKind {
        match self {
            EngineSpelling::InProcess => EngineKind::InProcess,
            EngineSpelling::Tcp { .. } => EngineKind::Tcp,
            EngineSpelling::Cmd { .. } => EngineKind::Cmd,
        }
    }
}

impl fmt::Display for EngineSpelling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpelling::InProcess => f.write_str("inprocess"),
            EngineSpelling::Tcp { addr } => write!(f, "tcp:{addr}"),
            EngineSpelling::Cmd { program, args } => {
                write!(f, "cmd:{program}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
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

    const ALL: Accepted = Accepted {
        tool: "test",
        kinds: &[EngineKind::InProcess, EngineKind::Tcp, EngineKind::Cmd],
    };

    #[test]
    fn specs_parse() {
        assert_eq!(
            EngineSpelling::parse("tcp:127.0.0.1:7777", ALL),
            Ok(EngineSpelling::Tcp {
                addr: "127.0.0.1:7777".into(),
            })
        );
        assert_eq!(
            EngineSpelling::parse("cmd:\"/bin/kingme\" --max-line 100", ALL),
            Ok(EngineSpelling::Cmd {
                program: "/bin/kingme".into(),
                args: vec!["--max-line".into(), "100".into()]
            })
        );
        for bad in ["tcp:nohost", "cmd:", "cmd:'open", "kingme"] {
            assert_eq!(
                EngineSpelling::parse(bad, ALL),
                Err(ParseEngineSpecError::Malformed {
                    spec: bad.into(),
                    accepted: ALL
                }),
                "{bad}"
            );
        }
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
            assert_eq!(EngineSpelling::parse(s, ALL), Ok(EngineSpelling::InProcess));
        }
        assert_eq!(EngineSpelling::InProcess.to_string(), "inprocess");
        assert_eq!(EngineSpelling::InProcess.kind(), EngineKind::InProcess);
    }

    #[test]
    fn errors_name_what_the_tool_takes() {
        let board = Accepted {
            tool: "kingme-web",
            kinds: &[EngineKind::InProcess, EngineKind::Tcp],
        };
        assert_eq!(
            board.refuse("cmd:kingme", EngineKind::Cmd).to_string(),
            "engine 'cmd:kingme' is a program: kingme-web takes inprocess or tcp:HOST:PORT"
        );
        assert_eq!(
            EngineSpelling::parse("udp:x", ALL).unwrap_err().to_string(),
            "bad engine 'udp:x': test takes inprocess, tcp:HOST:PORT or cmd:\"PROGRAM ARGS\""
        );
    }
}
