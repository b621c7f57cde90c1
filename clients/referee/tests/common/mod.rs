//! Shared test helpers: the `kingme` engine binary (built on demand), real servers
//! on free loopback ports, and fake engines written as small shell scripts.
//!
//! `CARGO_BIN_EXE_kingme` only exists inside the `kingme` package, so the binary
//! is found next to this test's own executable (`target/<profile>/kingme`) after
//! running `cargo build -p kingme --bin kingme` once per test process with the
//! same profile (a no-op when `cargo test --workspace` already built it).
//! `KINGME_BIN` overrides the path.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The `kingme` binary, built if needed.
pub fn kingme_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("KINGME_BIN") {
            return PathBuf::from(p);
        }
        // target/<profile>/deps/<this test> -> target/<profile>
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps")
            .to_path_buf();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(["-p", "kingme", "--bin", "kingme", "--quiet"]);
        if release {
            cmd.arg("--release");
        } else {
            cmd.args(["--profile", "test"]);
        }
        let status = cmd.status().expect("run cargo build for the kingme binary");
        assert!(
            status.success(),
            "cargo build -p kingme --bin kingme failed"
        );
        let bin = profile_dir.join(format!("kingme{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.exists(), "no kingme binary at {}", bin.display());
        bin
    })
}

/// A `kingme --listen 127.0.0.1:0` server; killed on drop.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts a server with extra arguments and waits for its address.
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(kingme_bin())
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kingme server");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if !sent {
                    if let Some(a) = line.split("kingme listening on ").nth(1) {
                        let _ = tx.send(a.trim().to_string());
                        sent = true;
                    }
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("server printed its address");
        Server { child, addr }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The engine spec for the referee.
    pub fn spec(&self) -> String {
        format!("tcp:{}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let p = std::env::temp_dir().join(format!(
            "kingme-referee-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fake engine answering every `go` with a move that is never legal.
pub const ILLEGAL_ENGINE: &str = r#"
while IFS= read -r line; do
  case "$line" in
    kingme*) echo "id name illegal-fake"; echo "kingmeok" ;;
    isready*) echo "readyok" ;;
    go*) echo "info depth 1 score cp 0"; echo "bestmove 1-2" ;;
    quit*) exit 0 ;;
  esac
done
"#;

/// A real kingme that stops reading after `lines` input lines: it plays a few
/// moves of its first game, then exits (a disconnect in the middle of a game).
pub fn disconnecting_engine(lines: usize) -> String {
    // A shell loop, not `head`: head buffers its output when writing to a pipe.
    format!(
        "i=0\n{{ while [ $i -lt {lines} ] && IFS= read -r l; do printf '%s\\n' \"$l\"; \
         i=$((i+1)); done; echo 'quitter: gave up after {lines} lines' >&2; }} | exec \"{}\"\n",
        kingme_bin().display()
    )
}

/// Writes a shell script and returns its `cmd:` spec.
pub fn script_spec(dir: &TempDir, name: &str, body: &str) -> String {
    let p = dir.path(name);
    std::fs::write(&p, body).expect("write script");
    format!("cmd:/bin/sh '{}'", p.display())
}

/// Runs `f` and fails if it takes longer than `limit`.
pub fn within<T>(limit: Duration, what: &str, f: impl FnOnce() -> T) -> T {
    let t0 = Instant::now();
    let v = f();
    assert!(
        t0.elapsed() <= limit,
        "{what} took {:?} (limit {limit:?})",
        t0.elapsed()
    );
    v
}
