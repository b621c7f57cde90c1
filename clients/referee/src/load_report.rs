//! What a load test measured: latencies and the report of a run.

use serde::Serialize;
use std::collections::BTreeMap;

/// Latency figures in milliseconds.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Latency {
    /// Samples.
    pub count: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

impl Latency {
    /// Figures for these samples (ms).
    #[must_use]
    pub fn of(mut v: Vec<f64>) -> Latency {
        if v.is_empty() {
            return Latency::default();
        }
        v.sort_by(f64::total_cmp);
        let at = |p: usize| v[((v.len() - 1) * p + 50) / 100];
        Latency {
            count: v.len(),
            p50: at(50),
            p99: at(99),
            max: v[v.len() - 1],
        }
    }
}

/// What a load run saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LoadReport {
    /// Sessions run.
    pub sessions: usize,
    /// Connections opened (first ones and reconnects).
    pub connects: usize,
    /// Reconnects (a connection dropped on purpose, half of them mid-search).
    pub reconnects: usize,
    /// Timed searches (`go movetime`) answered.
    pub searches: usize,
    /// Searches cut by `stop` and answered.
    pub stops: usize,
    /// Bad lines sent and answered by exactly one `error` line.
    pub bad_lines: usize,
    /// `bestmove` time beyond the movetime, ms (includes waiting for a search slot).
    pub go_overrun_ms: Latency,
    /// `stop` to `bestmove`, ms.
    pub stop_ms: Latency,
    /// Hostile lines sent and answered before the `isready` after them.
    pub hostile_lines: usize,
    /// `isready` to `readyok` of one well-behaved client meanwhile, ms.
    pub probe_ms: Latency,
    /// The server's resident memory at the start, MiB (with a pid).
    pub server_rss_start_mib: Option<f64>,
    /// The server's highest resident memory seen during the run, MiB.
    pub server_rss_peak_mib: Option<f64>,
    /// Errors by kind (should be empty).
    pub errors: BTreeMap<String, usize>,
    /// Wall time in seconds.
    pub seconds: f64,
}

impl LoadReport {
    /// Total errors.
    #[must_use]
    pub fn error_count(&self) -> usize {
        self.errors.values().sum()
    }
}
