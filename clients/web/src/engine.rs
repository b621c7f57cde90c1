//! Where the board's sessions run: in this process (`inprocess`) or on a
//! kingme server (`tcp:HOST:PORT`, with the token it wants). A program
//! (`cmd:`) is refused when the spec is read: its errors say what the board
//! takes.

use kingme::protocol::Token;
use kingme::server::{Accepted, EngineKind, EngineSpelling, ParseEngineSpecError};
use std::fmt;
use std::str::FromStr;

/// What the board takes.
pub const ACCEPTED: Accepted = Accepted {
    tool: "kingme-web",
    kinds: &[EngineKind::InProcess, EngineKind::Tcp],
};

/// Where the board's sessions run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// A kingme session in this process for each tab (`inprocess`).
    InProcess,
    /// A running kingme-protocol server, one connection for each tab
    /// (`tcp:HOST:PORT`).
    Tcp {
        /// `HOST:PORT`.
        addr: String,
        /// Sent as `auth TOKEN` first, for a server started with `--token`.
        token: Option<Token>,
    },
}

impl FromStr for EngineSpec {
    type Err = ParseEngineSpecError;
    fn from_str(s: &str) -> Result<EngineSpec, ParseEngineSpecError> {
        match EngineSpelling::parse(s, ACCEPTED)? {
            EngineSpelling::InProcess => Ok(EngineSpec::InProcess),
            EngineSpelling::Tcp { addr } => Ok(EngineSpec::Tcp { addr, token: None }),
            EngineSpelling::Cmd { .. } => Err(ACCEPTED.refuse(s, EngineKind::Cmd)),
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // the token is a secret: never printed
        let spelling = match self {
            EngineSpec::InProcess => EngineSpelling::InProcess,
            EngineSpec::Tcp { addr, .. } => EngineSpelling::Tcp { addr: addr.clone() },
        };
        spelling.fmt(f)
    }
}

impl EngineSpec {
    /// The same spec with `token` to send on connecting (a server only).
    #[must_use]
    pub fn with_token(self, token: Option<Token>) -> EngineSpec {
        match self {
            EngineSpec::Tcp { addr, .. } => EngineSpec::Tcp { addr, token },
            EngineSpec::InProcess => EngineSpec::InProcess,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_refused_naming_what_the_board_takes() {
        let err = "cmd:kingme".parse::<EngineSpec>().unwrap_err();
        assert!(matches!(
            err,
            ParseEngineSpecError::Refused {
                kind: EngineKind::Cmd,
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            "engine 'cmd:kingme' is a program: kingme-web takes inprocess or tcp:HOST:PORT"
        );
        assert_eq!("local".parse(), Ok(EngineSpec::InProcess));
        assert_eq!(EngineSpec::InProcess.to_string(), "inprocess");
    }
}
