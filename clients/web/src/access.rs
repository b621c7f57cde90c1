//! Who may use the board. Every request must name an allowed host in its
//! `Host` header: a loopback one (`localhost`, `127.x.x.x`, `[::1]`) or one
//! given with `--allow-host`, so a page whose domain is rebound to this machine
//! (DNS rebinding) is refused. When the server has a [`Key`], every request
//! must also carry it: `?key=KEY` (which sets a cookie) or that cookie.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

/// A per-launch secret: 128 random bits, written as 32 hex digits.
#[derive(Clone)]
pub struct Key {
    secret: String,
    /// Named per launch too, so boards on other ports of the same host keep their own.
    cookie: String,
}

impl Key {
    /// A fresh random key (from the operating system's generator).
    pub fn generate() -> std::io::Result<Key> {
        let mut bytes = [0u8; 20];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        Ok(Key {
            secret: hex(&bytes[..16]),
            cookie: format!("kingme-web-key-{}", hex(&bytes[16..])),
        })
    }

    /// The secret, for the printed URL (`?key=`).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.secret
    }

    /// The name of the cookie that carries the secret.
    #[must_use]
    pub fn cookie_name(&self) -> &str {
        &self.cookie
    }

    /// Whether `given` is the secret, compared in constant time.
    fn matches(&self, given: &str) -> bool {
        let (want, given) = (self.secret.as_bytes(), given.as_bytes());
        if want.len() != given.len() {
            return false;
        }
        let diff = want.iter().zip(given).fold(0u8, |d, (a, b)| d | (a ^ b));
        std::hint::black_box(diff) == 0
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(***)")
    }
}

/// A `Host` value (or an `--allow-host` name) that is no host name or address.
#[derive(Debug, thiserror::Error)]
#[error("bad host '{0}': expected a name or an address, with or without a port")]
pub struct HostError(String);

/// The host part of `host` (a `Host` header value or an `--allow-host` name):
/// lowercase, without its port, the brackets of an IPv6 address or a final
/// dot; an address in its canonical form.
pub fn host_name(host: &str) -> Result<String, HostError> {
    let bad = || HostError(host.chars().take(64).collect());
    let is_port = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(ip.to_string());
    }
    let name = if let Some(rest) = host.strip_prefix('[') {
        let (ip, after) = rest.split_once(']').ok_or_else(bad)?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return Err(bad());
        }
        ip.parse::<std::net::Ipv6Addr>().map_err(|_| bad())?;
        ip
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return Err(bad()),
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    if let Ok(ip) = name.parse::<IpAddr>() {
        return Ok(ip.to_string());
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.len() > 253 || !name.split('.').all(label_ok) {
        return Err(bad());
    }
    Ok(name)
}

/// Whether `name` (from [`host_name`]) names this machine's loopback interface.
fn is_loopback(name: &str) -> bool {
    match name.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback(),
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => name == "localhost",
    }
}

/// The value of the query parameter `name` (not percent-decoded).
fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?.split('&').find_map(|kv| {
        kv.split_once('=')
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v)
    })
}

/// The values of the cookies named `name`.
fn cookies<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(move |c| {
            c.trim()
                .split_once('=')
                .filter(|(n, _)| *n == name)
                .map(|(_, v)| v)
        })
}

/// A short plain-text refusal.
fn refuse(status: StatusCode, text: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}

/// Who may use the board: the host names served besides loopback ones, and
/// the key every request must carry, if any.
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) key: Option<Key>,
}

/// The middleware in front of every route: the host check, then the key.
pub(crate) async fn guard(State(access): State<Arc<Access>>, req: Request, next: Next) -> Response {
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(h), None) => h.to_str().ok().and_then(|h| host_name(h).ok()),
        _ => None,
    };
    let Some(host) = host else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "kingme-web: the request needs one valid Host header\n".into(),
        );
    };
    if !is_loopback(&host) && !access.allowed_hosts.contains(&host) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!(
                "kingme-web: the host '{host}' is not allowed (only loopback names are served).\n\
                 To serve the board under this name, start kingme-web with --allow-host {host}\n"
            ),
        );
    }
    let Some(key) = &access.key else {
        return next.run(req).await;
    };
    let by_query = query_param(req.uri().query(), "key").is_some_and(|k| key.matches(k));
    let by_cookie = cookies(req.headers(), key.cookie_name()).any(|c| key.matches(c));
    if !by_query && !by_cookie {
        return refuse(
            StatusCode::FORBIDDEN,
            "kingme-web: this board needs its key: open the URL kingme-web printed when it \
             started (http://HOST:PORT/?key=...)\n"
                .into(),
        );
    }
    let mut res = next.run(req).await;
    if by_query {
        let cookie = format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            key.cookie_name(),
            key.as_str()
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_normalised_and_odd_ones_refused() {
        for (given, want) in [
            ("localhost", "localhost"),
            ("LocalHost:8080", "localhost"),
            ("localhost.", "localhost"),
            ("127.0.0.1:80", "127.0.0.1"),
            ("[::1]", "::1"),
            ("[0:0::1]:8080", "::1"),
            ("Board.LAN:8080", "board.lan"),
            ("fe80::1", "fe80::1"),
        ] {
            assert_eq!(host_name(given).unwrap(), want, "{given}");
        }
        for bad in [
            "",
            ":80",
            "a b",
            "evil.example:80@127.0.0.1",
            "host:port",
            "[::1",
            "[::1]x",
            "[evil]",
            "a..b",
        ] {
            assert!(host_name(bad).is_err(), "{bad}");
        }
        for name in [
            "localhost",
            "127.0.0.1",
            "127.9.8.7",
            "::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(&host_name(name).unwrap()), "{name}");
        }
        for name in [
            "0.0.0.0",
            "128.0.0.1",
            "::2",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
        ] {
            assert!(!is_loopback(&host_name(name).unwrap()), "{name}");
        }
    }

    #[test]
    fn keys_are_random_and_compared_whole() {
        let (a, b) = (Key::generate().unwrap(), Key::generate().unwrap());
        assert_eq!(a.as_str().len(), 32);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a.as_str(), b.as_str());
        assert_ne!(a.cookie_name(), b.cookie_name());
        assert!(a.matches(a.as_str()));
        assert!(!a.matches(b.as_str()));
        assert!(!a.matches(&a.as_str()[..31]));
        assert!(!a.matches(""));
        assert!(!format!("{a:?}").contains(a.as_str()));
    }
}
