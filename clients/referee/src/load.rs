//! Load test: N concurrent sessions hammering one kingme server on loopback with
//! `go movetime`, `stop`, reconnects (some in the middle of a search) and bad
//! lines, checking every answer and timing go-to-bestmove overrun and
//! stop-to-bestmove latency. Bounded in sessions, operations and time. With
//! `hostile`, sessions also send what a hostile client would (server files as
//! options, devices, many spellings of one directory, the largest tables,
//! long perfts, one-sided clocks, random bytes) while one well-behaved client
//! times `isready`, and the server's memory is sampled.

use crate::engine::{Engine, EngineError, EngineSpec};
pub use crate::load_report::{Latency, LoadReport};
use kingme::protocol::{Refusal, Response, Token};
use kingme::rng::SplitMix64;
use std::collections::BTreeMap;
use std::net::ToSocketAddrs;
use std::time::{Duration, Instant};

/// Most sessions a run may open at once.
pub const MAX_SESSIONS: usize = 512;
/// Longest run.
pub const MAX_DURATION: Duration = Duration::from_secs(600);

/// How hard to hammer.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server, `HOST:PORT` on loopback.
    pub addr: String,
    /// Sent as `auth TOKEN` on every connection, for a server started with `--token`.
    pub token: Option<Token>,
    /// Concurrent sessions.
    pub sessions: usize,
    /// Stop starting operations after this long.
    pub duration: Duration,
    /// Most operations per session.
    pub max_ops: usize,
    /// `go movetime` of the timed searches, in ms.
    pub movetime_ms: u64,
    /// Extra time a search may take before it counts as an error.
    pub grace: Duration,
    /// Random seed.
    pub seed: u64,
    /// Also send hostile lines.
    pub hostile: bool,
    /// The server's process id, to sample its memory (Linux).
    pub server_pid: Option<u32>,
}

/// Why a load run could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Not a loopback address.
    #[error("{0}: load tests only target loopback addresses (127.0.0.0/8, ::1)")]
    NotLoopback(String),
    /// The address does not resolve.
    #[error("{addr}: {source}")]
    Resolve {
        /// The address.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A bound is exceeded.
    #[error("{0}")]
    Bounds(String),
    /// The server wants a token this run lacks, or refused the one given.
    #[error("{addr}: {reason}")]
    Auth {
        /// The address.
        addr: String,
        /// What went wrong, with a hint.
        reason: String,
    },
}

/// One connection before the run: a server that refuses us (no token, or a wrong
/// one) stops the run with one clear error instead of a report full of failures.
fn probe(spec: &EngineSpec, addr: &str) -> Result<(), LoadError> {
    let timeout = Duration::from_secs(10);
    let auth = |reason: String| LoadError::Auth {
        addr: addr.to_string(),
        reason,
    };
    let first_answer = |e: &mut Engine| -> Result<String, EngineError> {
        e.send("isready")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = e.recv(deadline, "readyok")?;
            if !matches!(
                line.parse(),
                Ok(Response::InfoString(_) | Response::Info(_))
            ) {
                return Ok(line);
            }
        }
    };
    match Engine::open(spec, timeout).and_then(|mut e| first_answer(&mut e)) {
        Err(EngineError::Auth { reply, .. }) => Err(auth(format!("token refused: {reply}"))),
        Ok(line) if line.parse() == Ok(Response::Refused(Refusal::NotAuthenticated)) => Err(auth(
            format!("the server wants a token (--token or KINGME_TOKEN): {line}"),
        )),
        Err(EngineError::Rejected(line)) => Err(auth(format!("the server refused us: {line}"))),
        // anything else is left for the run to count
        _ => Ok(()),
    }
}

/// Lines a server must refuse with exactly one `error` line.
fn bad_line(rng: &mut SplitMix64) -> String {
    match rng.next_u64() % 7 {
        0 => "jump".into(),
        1 => "go depth x".into(),
        2 => "position fen B:W99:B1".into(),
        3 => "setoption name Hash value 999999999".into(),
        4 => "position startpos moves 11-17".into(),
        5 => "bad\u{1}control".into(),
        _ => "x".repeat(20_000),
    }
}

/// A position where perft grows fast (16 kings).
const KINGS: &str = "W:WK1,K2,K3,K4,K9,K10,K11,K12:BK21,K22,K23,K24,K29,K30,K31,K32";

/// Lines a hostile client sends that the server must answer (with an error,
/// or by taking them harmlessly) before the `isready` after them.
fn hostile_line(rng: &mut SplitMix64) -> String {
    match rng.next_u64() % 9 {
        0 => "setoption name EvalFile value /dev/stdin".into(),
        1 => "setoption name EvalFile value /dev/zero".into(),
        2 => "setoption name EvalFile value /etc/passwd".into(),
        3 => format!(
            "setoption name EGDBPath value /tmp{}",
            "/.".repeat(1 + (rng.next_u64() % 500) as usize)
        ),
        4 => "setoption name Hash value 64".into(),
        5 => "setoption name Threads value 64".into(),
        6 => format!("position fen {KINGS}"),
        7 => (0..1 + rng.next_u64() % 300)
            .map(|_| char::from(1 + (rng.next_u64() % 126) as u8))
            .filter(|&c| c != '\n' && c != '\r')
            .collect(),
        _ => "setoption name EGDBPath value /proc/self/fd/0".into(),
    }
}

#[derive(Default)]
struct SessionStats {
    connects: usize,
    hostile: usize,
    reconnects: usize,
    searches: usize,
    stops: usize,
    bad_lines: usize,
    overrun: Vec<f64>,
    stop: Vec<f64>,
    errors: BTreeMap<String, usize>,
}

impl SessionStats {
    fn error(&mut self, kind: &str) {
        *self.errors.entry(kind.to_string()).or_insert(0) += 1;
    }
}

fn kind(e: &EngineError) -> &'static str {
    match e {
        EngineError::Connect { .. } => "connect",
        EngineError::Timeout { .. } => "timeout",
        EngineError::Disconnected { .. } => "disconnected",
        EngineError::Write { .. } => "write",
        EngineError::Rejected(_) => "unexpected error reply",
        EngineError::Spawn { .. } => "spawn",
        EngineError::Auth { .. } => "auth refused",
    }
}

/// Waits for `bestmove`, skipping `info`; any other line is an error.
fn await_bestmove(e: &mut Engine, deadline: Instant) -> Result<(), &'static str> {
    loop {
        let line = e.recv(deadline, "bestmove").map_err(|e| kind(&e))?;
        match line.parse() {
            Ok(Response::BestMove { .. }) => return Ok(()),
            Ok(Response::Info(_) | Response::InfoString(_)) => {}
            _ => return Err("unexpected line during search"),
        }
    }
}

fn spec_of(cfg: &LoadConfig) -> EngineSpec {
    EngineSpec::Tcp {
        addr: cfg.addr.clone(),
        token: cfg.token.clone(),
    }
}

fn session(cfg: &LoadConfig, id: usize, until: Instant) -> SessionStats {
    let mut st = SessionStats::default();
    let mut rng = SplitMix64(cfg.seed ^ (id as u64).wrapping_mul(0x9e37_79b9));
    let spec = spec_of(cfg);
    let setup = Duration::from_secs(10);
    let mut conn: Option<Engine> = None;
    for _ in 0..cfg.max_ops {
        if Instant::now() >= until {
            break;
        }
        let e = match &mut conn {
            Some(e) => e,
            None => match Engine::open(&spec, setup) {
                Ok(e) => {
                    st.connects += 1;
                    conn.insert(e)
                }
                Err(e) => {
                    st.error(kind(&e));
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            },
        };
        let r = rng.next_u64() % 100;
        let outcome: Result<(), &'static str> = if cfg.hostile && r.is_multiple_of(3) {
            hostile_op(e, &mut rng, cfg, &mut st)
        } else if r < 40 {
            // A timed search: how far past movetime does bestmove come?
            let t0 = Instant::now();
            let limit = Duration::from_millis(cfg.movetime_ms) + cfg.grace;
            e.send("position startpos")
                .and_then(|()| e.send(&format!("go movetime {}", cfg.movetime_ms)))
                .map_err(|e| kind(&e))
                .and_then(|()| await_bestmove(e, t0 + limit))
                .map(|()| {
                    let ms = t0.elapsed().as_secs_f64() * 1000.0;
                    st.overrun.push((ms - cfg.movetime_ms as f64).max(0.0));
                    st.searches += 1;
                })
        } else if r < 65 {
            // A long search cut short by stop.
            let wait = Duration::from_millis(5 + rng.next_u64() % 40);
            e.send("position startpos")
                .and_then(|()| e.send("go movetime 60000"))
                .map_err(|e| kind(&e))
                .and_then(|()| {
                    std::thread::sleep(wait);
                    let t0 = Instant::now();
                    e.send("stop").map_err(|e| kind(&e))?;
                    await_bestmove(e, t0 + cfg.grace)?;
                    st.stop.push(t0.elapsed().as_secs_f64() * 1000.0);
                    st.stops += 1;
                    Ok(())
                })
        } else if r < 85 {
            // A bad line, then isready: exactly one error line must come between.
            let t0 = Instant::now();
            e.send(&bad_line(&mut rng))
                .and_then(|()| e.send("isready"))
                .map_err(|e| kind(&e))
                .and_then(|()| {
                    let mut errors = 0;
                    loop {
                        let l = e.recv(t0 + cfg.grace, "readyok").map_err(|e| kind(&e))?;
                        match l.parse() {
                            Ok(Response::ReadyOk) => break,
                            Ok(Response::Error(_) | Response::Refused(_)) => errors += 1,
                            Ok(Response::Info(_) | Response::InfoString(_)) => {}
                            _ => return Err("unexpected line after bad line"),
                        }
                    }
                    if errors == 1 {
                        st.bad_lines += 1;
                        Ok(())
                    } else {
                        Err("bad line not answered by exactly one error")
                    }
                })
        } else {
            // Reconnect, half the time in the middle of a search.
            if r.is_multiple_of(2) {
                let _ = e.send("position startpos");
                let _ = e.send("go movetime 5000");
            }
            conn = None;
            st.reconnects += 1;
            Ok(())
        };
        if let Err(k) = outcome {
            st.error(k);
            conn = None; // start clean after any error
        }
    }
    st
}

/// One hostile operation: a hostile line answered before `isready`, a
/// one-sided clock that must still end, or a long perft that `stop` ends.
fn hostile_op(
    e: &mut Engine,
    rng: &mut SplitMix64,
    cfg: &LoadConfig,
    st: &mut SessionStats,
) -> Result<(), &'static str> {
    let t0 = Instant::now();
    match rng.next_u64() % 4 {
        0 => {
            // Black to move, White's clock only: the level's time, not for ever
            e.send("position startpos")
                .and_then(|()| e.send("go wtime 1000"))
                .map_err(|e| kind(&e))?;
            await_bestmove(e, t0 + Duration::from_secs(1) + cfg.grace)?;
        }
        1 => {
            e.send(&format!("position fen {KINGS}"))
                .and_then(|()| e.send("perft 9"))
                .map_err(|e| kind(&e))?;
            std::thread::sleep(Duration::from_millis(5 + rng.next_u64() % 50));
            e.send("stop").map_err(|e| kind(&e))?;
            loop {
                let l = e.recv(t0 + cfg.grace, "perft").map_err(|e| kind(&e))?;
                match l.parse() {
                    Ok(Response::Perft { .. } | Response::Error(_)) => break,
                    Ok(Response::InfoString(_)) => {}
                    _ => return Err("unexpected line after perft"),
                }
            }
        }
        _ => {
            e.send(&hostile_line(rng))
                .and_then(|()| e.send("isready"))
                .map_err(|e| kind(&e))?;
            loop {
                let l = e.recv(t0 + cfg.grace, "readyok").map_err(|e| kind(&e))?;
                match l.parse() {
                    Ok(Response::ReadyOk) => break,
                    Ok(_) => {}
                    Err(_) => return Err("unreadable line after a hostile line"),
                }
            }
        }
    }
    st.hostile += 1;
    Ok(())
}

/// Resident memory of process `pid` in MiB (Linux).
fn rss_mib(pid: u32) -> Option<f64> {
    let kb = kingme::proc_info::kb(&format!("/proc/{pid}/status"), "VmRSS")?;
    Some(kb as f64 / 1024.0)
}

/// A well-behaved client: `isready` every 50 ms until `until`, timed; also
/// samples the server's memory. Returns the latencies and the peak.
fn probe_client(cfg: &LoadConfig, until: Instant) -> (Vec<f64>, Option<f64>, usize) {
    let mut lat = Vec::new();
    let mut peak = cfg.server_pid.and_then(rss_mib);
    let mut errors = 0;
    let mut conn = Engine::open(&spec_of(cfg), Duration::from_secs(10)).ok();
    while Instant::now() < until {
        if let Some(pid) = cfg.server_pid {
            if let Some(now) = rss_mib(pid) {
                peak = Some(peak.map_or(now, |p: f64| p.max(now)));
            }
        }
        let Some(e) = &mut conn else {
            errors += 1;
            conn = Engine::open(&spec_of(cfg), Duration::from_secs(10)).ok();
            continue;
        };
        let t = Instant::now();
        let ok = e.send("isready").is_ok()
            && loop {
                match e.recv(t + cfg.grace, "readyok") {
                    Ok(l) if l == "readyok" => break true,
                    Ok(_) => {}
                    Err(_) => break false,
                }
            };
        if ok {
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        } else {
            errors += 1;
            conn = None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (lat, peak, errors)
}

/// Runs the load test.
pub fn run_load(cfg: &LoadConfig) -> Result<LoadReport, LoadError> {
    let addrs: Vec<_> = cfg
        .addr
        .to_socket_addrs()
        .map_err(|source| LoadError::Resolve {
            addr: cfg.addr.clone(),
            source,
        })?
        .collect();
    if addrs.is_empty() || !addrs.iter().all(|a| a.ip().is_loopback()) {
        return Err(LoadError::NotLoopback(cfg.addr.clone()));
    }
    if cfg.sessions == 0 || cfg.sessions > MAX_SESSIONS {
        return Err(LoadError::Bounds(format!(
            "sessions must be 1..={MAX_SESSIONS}"
        )));
    }
    if cfg.duration > MAX_DURATION {
        return Err(LoadError::Bounds(format!(
            "duration must be at most {} s",
            MAX_DURATION.as_secs()
        )));
    }
    probe(&spec_of(cfg), &cfg.addr)?;
    let t0 = Instant::now();
    let until = t0 + cfg.duration;
    let rss_start = cfg.server_pid.and_then(rss_mib);
    let mut probed = (Vec::new(), None, 0);
    let all: Vec<SessionStats> = std::thread::scope(|s| {
        let prober = s.spawn(|| probe_client(cfg, until));
        let handles: Vec<_> = (0..cfg.sessions)
            .map(|id| {
                std::thread::Builder::new()
                    .name(format!("load-{id}"))
                    .spawn_scoped(s, move || session(cfg, id, until))
                    .expect("spawn session thread")
            })
            .collect();
        let all = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect();
        probed = prober.join().unwrap_or_default();
        all
    });
    let mut rep = LoadReport {
        sessions: cfg.sessions,
        ..LoadReport::default()
    };
    let (mut overrun, mut stop) = (Vec::new(), Vec::new());
    for st in all {
        rep.connects += st.connects;
        rep.reconnects += st.reconnects;
        rep.searches += st.searches;
        rep.stops += st.stops;
        rep.bad_lines += st.bad_lines;
        rep.hostile_lines += st.hostile;
        overrun.extend(st.overrun);
        stop.extend(st.stop);
        for (k, v) in st.errors {
            *rep.errors.entry(k).or_insert(0) += v;
        }
    }
    let (probe_lat, peak, probe_errors) = probed;
    if probe_errors > 0 {
        *rep.errors
            .entry("well-behaved client unanswered".into())
            .or_insert(0) += probe_errors;
    }
    rep.probe_ms = Latency::of(probe_lat);
    rep.server_rss_start_mib = rss_start;
    rep.server_rss_peak_mib = peak;
    rep.go_overrun_ms = Latency::of(overrun);
    rep.stop_ms = Latency::of(stop);
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let l = Latency::of((1..=100).map(f64::from).collect());
        assert_eq!((l.count, l.p50, l.p99, l.max), (100, 51.0, 99.0, 100.0));
        assert_eq!(Latency::of(vec![]).count, 0);
    }

    #[test]
    fn refuses_other_addresses() {
        let cfg = LoadConfig {
            addr: "10.1.2.3:7777".into(),
            token: None,
            sessions: 1,
            duration: Duration::from_secs(1),
            max_ops: 1,
            movetime_ms: 10,
            grace: Duration::from_secs(1),
            seed: 1,
            hostile: false,
            server_pid: None,
        };
        assert!(matches!(run_load(&cfg), Err(LoadError::NotLoopback(_))));
    }
}
