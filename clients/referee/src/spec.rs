//! The engines the referee plays: a kingme server (`tcp:HOST:PORT`, with
//! the token it wants) or a program it starts and speaks to over stdio
//! (`cmd:"PROGRAM ARGS"`). An engine in the referee's own process
//! (`inprocess`) is refused when the spec is read: its errors say what the
//! referee takes.

use kingme::protocol::Token;
use kingme::server::{Accepted, EngineKind, EngineSpelling, ParseEngineSpecError};
use std::fmt;
use std::str::FromStr;

/// What the referee takes.
pub const ACCEPTED: Accepted = Accepted {
    tool: "kingme-referee",
    kinds: &[EngineKind::Tcp, EngineKind::Cmd],
};

/// Where an engine the referee plays lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
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

impl FromStr for EngineSpec {
    type Err = ParseEngineSpecError;
    fn from_str(s: &str) -> Result<EngineSpec, ParseEngineSpecError> {
        match EngineSpelling::parse(s, ACCEPTED)? {
            EngineSpelling::Tcp { addr } => Ok(EngineSpec::Tcp { addr, token: None }),
            EngineSpelling::Cmd { program, args } => Ok(EngineSpec::Cmd { program, args }),
            EngineSpelling::InProcess => Err(ACCEPTED.refuse(s, EngineKind::InProcess)),
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // the token is a secret: never printed
        let spelling = match self {
            EngineSpec::Tcp { addr, .. } => EngineSpelling::Tcp { addr: addr.clone() },
            EngineSpec::Cmd { program, args } => EngineSpelling::Cmd {
                program: program.clone(),
                args: args.clone(),
            },
        };
        spelling.fmt(f)
    }
}

impl EngineSpec {
    /// The same spec with `token` to send on connecting (a server only; a
    /// program spoken to over stdio needs none).
    #[must_use]
    pub fn with_token(self, token: Option<Token>) -> EngineSpec {
        match self {
            EngineSpec::Tcp { addr, .. } => EngineSpec::Tcp { addr, token },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_and_programs_parse_and_inprocess_is_refused() {
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
        let err = "inprocess".parse::<EngineSpec>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "engine 'inprocess' is an engine in its own process: kingme-referee takes \
             tcp:HOST:PORT or cmd:\"PROGRAM ARGS\""
        );
        assert!(matches!(
            "tcp:nohost".parse::<EngineSpec>(),
            Err(ParseEngineSpecError::Malformed { .. })
        ));
        let tcp = EngineSpec::Tcp {
            addr: "h:1".into(),
            token: Some("s3cret-token".parse().unwrap()),
        };
        assert_eq!(tcp.to_string(), "tcp:h:1", "the token is never shown");
    }
}
