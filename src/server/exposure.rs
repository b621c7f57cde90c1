//! Safe by default: a server refuses to listen where other machines can
//! reach it unless its clients must authenticate, or its operator says to
//! serve anyone who can connect (`--no-auth`), as Redis's protected mode
//! refuses clients from beyond loopback until a password or an explicit
//! setting allows them.

use std::net::SocketAddr;

/// How the operator of a kingme server allows it beyond loopback.
pub const KINGME_ALLOW: &str =
    "set a token (--token, KINGME_TOKEN or --token-file), or pass --no-auth to serve anyone who can connect";

/// How the operator of a DXP server allows it beyond loopback (DXP
/// authenticates no one).
pub const DXP_ALLOW: &str =
    "DXP has no authentication: pass --no-auth to serve anyone who can connect";

/// Why a server does not start where it was asked to listen.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// Binding the address or serving on it failed.
    #[error("{addr}: {source}")]
    Io {
        /// The address asked for.
        addr: String,
        /// What failed.
        source: std::io::Error,
    },
    /// Other machines can reach the address and nothing authenticates its
    /// clients.
    #[error("refusing to listen on {addr}, which other machines can reach, with no authentication: {allow}")]
    Unprotected {
        /// The address bound.
        addr: SocketAddr,
        /// How the operator allows it.
        allow: &'static str,
    },
}

/// Refuses `local` when it is not a loopback address and neither do its
/// clients authenticate (`authenticated`) nor has the operator allowed an
/// open server (`no_auth`); `allow` says how to allow it.
pub fn check_exposure(
    local: SocketAddr,
    authenticated: bool,
    no_auth: bool,
    allow: &'static str,
) -> Result<(), ListenError> {
    if local.ip().is_loopback() || authenticated || no_auth {
        return Ok(());
    }
    Err(ListenError::Unprotected { addr: local, allow })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_open_server_beyond_loopback_is_refused() {
        let open: SocketAddr = "0.0.0.0:7777".parse().unwrap();
        let lan: SocketAddr = "192.168.1.2:7777".parse().unwrap();
        for local in ["127.0.0.1:7777", "[::1]:7777"] {
            assert!(check_exposure(local.parse().unwrap(), false, false, KINGME_ALLOW).is_ok());
        }
        for local in [open, lan] {
            let err = check_exposure(local, false, false, KINGME_ALLOW).unwrap_err();
            assert!(matches!(err, ListenError::Unprotected { addr, .. } if addr == local));
            assert!(err.to_string().contains("--no-auth"), "{err}");
            assert!(check_exposure(local, true, false, KINGME_ALLOW).is_ok());
            assert!(check_exposure(local, false, true, KINGME_ALLOW).is_ok());
        }
    }
}
