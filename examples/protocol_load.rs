//! Protocol load benchmark (not a test): starts `kingme --listen 127.0.0.1:0`
//! and prints the server's memory with many idle sessions, stop -> bestmove
//! latency over TCP, and `go movetime 50` throughput with many clients.
//!
//! ```text
//! cargo build --release && cargo run --release --example protocol_load -- \
//!     [--kingme target/release/kingme] [--idle 1000] [--clients 200] [--seconds 10] [--stops 300]
//! ```

#[path = "../tests/common/listen.rs"]
mod listen;

use kingme::protocol::Response;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Args {
    kingme: String,
    idle: usize,
    clients: usize,
    seconds: f64,
    stops: usize,
}

fn args() -> Args {
    let mut a = Args {
        kingme: "target/release/kingme".into(),
        idle: 1000,
        clients: 200,
        seconds: 10.0,
        stops: 300,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    for pair in v.chunks(2) {
        let val = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--kingme" => a.kingme = val,
            "--idle" => a.idle = val.parse().expect("--idle N"),
            "--clients" => a.clients = val.parse().expect("--clients N"),
            "--seconds" => a.seconds = val.parse().expect("--seconds S"),
            "--stops" => a.stops = val.parse().expect("--stops N"),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Starts the server; the caller kills and waits on it.
#[allow(clippy::zombie_processes)]
fn start(kingme: &str, idle: usize) -> (Child, SocketAddr) {
    let mut child = Command::new(kingme)
        .args(["--listen", "127.0.0.1:0", "--max-connections"])
        .arg((idle + 64).to_string())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kingme (build it first: cargo build --release)");
    let addr = listen::listening_address(&mut child);
    (child, addr)
}

fn rss_mib(pid: u32) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

struct Client {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).ok();
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        let mut greeting = String::new();
        reader.read_line(&mut greeting).expect("greeting");
        Client { stream, reader }
    }
    fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\n").as_bytes())
            .expect("send");
    }
    /// Reads replies until one that `wanted` accepts; returns how many error
    /// lines came first.
    fn until(&mut self, wanted: impl Fn(&Response) -> bool) -> usize {
        let mut errors = 0;
        let mut l = String::new();
        loop {
            l.clear();
            assert!(self.reader.read_line(&mut l).expect("read") > 0, "closed");
            let Ok(r) = l.trim_end().parse::<Response>() else {
                panic!("not a kingme reply: {l}");
            };
            if matches!(r, Response::Error(_) | Response::Refused(_)) {
                errors += 1;
            }
            if wanted(&r) {
                return errors;
            }
        }
    }
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
}

fn main() {
    let a = args();
    let (mut child, addr) = start(&a.kingme, a.idle);
    let pid = child.id();
    std::thread::sleep(Duration::from_millis(200));

    // 1. Idle sessions.
    let base = rss_mib(pid);
    let mut idle: Vec<Client> = (0..a.idle).map(|_| Client::connect(addr)).collect();
    for c in &mut idle {
        c.send("isready");
    }
    for c in &mut idle {
        c.until(|r| *r == Response::ReadyOk);
    }
    std::thread::sleep(Duration::from_millis(300));
    let with = rss_mib(pid);
    println!(
        "idle: {} sessions, server RSS {base:.1} -> {with:.1} MiB ({:.1} KiB per session)",
        a.idle,
        (with - base) * 1024.0 / a.idle as f64
    );
    drop(idle);

    // 2. Stop latency, one client, a search running.
    let mut c = Client::connect(addr);
    let mut lat = Vec::new();
    for _ in 0..a.stops {
        c.send("go infinite");
        c.until(|r| matches!(r, Response::Info(_)));
        let t = Instant::now();
        c.send("stop");
        c.until(|r| matches!(r, Response::BestMove { .. }));
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "stop -> bestmove over TCP ({} stops): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        a.stops,
        pct(&mut lat, 0.5),
        pct(&mut lat, 0.99),
        pct(&mut lat, 1.0)
    );
    drop(c);

    // 3. Throughput: every client loops on `go movetime 50`.
    let done = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let lat = Arc::new(Mutex::new(Vec::new()));
    let t0 = Instant::now();
    let end = t0 + Duration::from_secs_f64(a.seconds);
    let threads: Vec<_> = (0..a.clients)
        .map(|_| {
            let (done, errors, lat) = (Arc::clone(&done), Arc::clone(&errors), Arc::clone(&lat));
            std::thread::spawn(move || {
                let mut c = Client::connect(addr);
                let mut per = 0usize;
                while Instant::now() < end {
                    let t = Instant::now();
                    c.send("go movetime 50");
                    errors.fetch_add(
                        c.until(|r| matches!(r, Response::BestMove { .. })),
                        Ordering::Relaxed,
                    );
                    done.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut l) = lat.lock() {
                        l.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                    per += 1;
                }
                per
            })
        })
        .collect();
    let per: Vec<usize> = threads.into_iter().map(|h| h.join().unwrap_or(0)).collect();
    let secs = t0.elapsed().as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    let mut l = lat.lock().map(|v| v.clone()).unwrap_or_default();
    println!(
        "throughput: {} clients x go movetime 50: {n} bestmoves in {secs:.1} s = {:.1}/s; go -> bestmove p50 {:.0} ms p99 {:.0} ms; per client min {} max {}; errors {}",
        a.clients,
        n as f64 / secs,
        pct(&mut l, 0.5),
        pct(&mut l, 0.99),
        per.iter().min().unwrap_or(&0),
        per.iter().max().unwrap_or(&0),
        errors.load(Ordering::Relaxed)
    );
    let _ = child.kill();
    let _ = child.wait();
}
