//! Iterative deepening at the root: depth after depth on the main thread,
//! helper threads sharing the table (lazy SMP), the last complete iteration
//! kept when a limit ends the search.

use super::node::{Shared, Worker};
use super::stats::Stats;
use super::tt::TranspositionTable;
use super::{
    Control, History, Iteration, Score, SearchLimits, SearchReport, SearchResult, SoftTime,
    Stability,
};
use super::{DB_WIN_PLIES, INF, MAX_PLY, WIN, WIN_BOUND};
use crate::board::{Move, Position, Rules, Variant};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn run_root<R: Rules>(
    root: &Position,
    hist: &History,
    limits: &SearchLimits,
    tt: &TranspositionTable,
    control: &Control,
    report: &mut dyn SearchReport,
) -> SearchResult {
    let start = Instant::now();
    let sh = Shared {
        tt,
        control,
        start,
        limits,
        total_nodes: AtomicU64::new(0),
    };
    let mut root_moves: Vec<Move> = root.legal_moves().iter().copied().collect();
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            last: None,
            stats: Stats::default(),
            time: start.elapsed(),
        };
    }
    let multi = limits.multipv > 1 || !limits.searchmoves.is_empty();
    let db_move = database_move(root, limits);
    if let (Some((m, score)), false) = (db_move, multi) {
        // the databases know the root: play their move (a win converts, a loss
        // resists longest) without searching
        let stats = Stats {
            nodes: 1,
            egdb_probes: 1 + root_moves.len() as u64,
            ..Stats::default()
        };
        let it = Iteration {
            depth: 1,
            score,
            stats,
            time: start.elapsed(),
            pv: vec![m],
            multipv: None,
        };
        report.iteration(&it);
        while control.hold.load(Ordering::Relaxed) && !control.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_micros(500));
        }
        return SearchResult {
            best: Some(m),
            ponder: None,
            last: Some(it),
            stats,
            time: start.elapsed(),
        };
    }
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 10)
        .clamp(1, MAX_PLY as u32 - 10);
    let threads = limits.threads.max(1);
    let helper_stats = std::sync::Mutex::new(Stats::default());
    let tracing = limits.trace.is_some_and(|t| t > 0);
    let exact = Exactness::of(root, limits);
    // root moves outside `searchmoves`, which no thread searches
    let outside: Vec<Move> = if limits.searchmoves.iter().any(|m| root_moves.contains(m)) {
        root_moves
            .iter()
            .filter(|m| !limits.searchmoves.contains(m))
            .copied()
            .collect()
    } else {
        Vec::new()
    };
    if !outside.is_empty() {
        root_moves.retain(|m| !outside.contains(m));
    }
    let mut result = SearchResult {
        best: Some(root_moves[0]),
        ponder: None,
        last: None,
        stats: Stats::default(),
        time: Duration::ZERO,
    };
    std::thread::scope(|scope| {
        for t in 1..threads {
            let outside = &outside;
            let sh = &sh;
            let helper_stats = &helper_stats;
            let _ = std::thread::Builder::new()
                .name(format!("kingme-helper-{t}"))
                .spawn_scoped(scope, move || {
                    let mut w = Worker::new(sh, false, root, hist, None);
                    w.root_excluded.clone_from(outside);
                    let mut d = 1 + (t as i32 % 2);
                    while !w.stopped && d <= max_depth as i32 {
                        w.search::<R, false>(root, d, -INF, INF, 0, hist.quiet, None);
                        d += 1;
                    }
                    w.poll();
                    if let Ok(mut s) = helper_stats.lock() {
                        s.add(&w.stats);
                    }
                });
        }
        // a panic below must not leave the helpers searching: the scope waits for them
        let _stop_helpers = StopOnUnwind(control);
        let mut w = Worker::new(&sh, true, root, hist, Some(report));
        if multi {
            let lines = Lines {
                root_moves: &root_moves,
                max_depth,
                exact,
                tracing,
                db_move: db_move.map(|(m, _)| m),
                outside: &outside,
                multipv: limits.multipv.max(1),
                start,
            };
            lines.search::<R>(&mut w, &sh, root, hist, &mut result);
            finish_main(control, &mut w, &mut result);
            return;
        }
        let mut stability = Stability::default();
        for depth in 1..=max_depth {
            let score = if tracing {
                w.search::<R, true>(root, depth as i32, -INF, INF, 0, hist.quiet, None)
            } else {
                w.search::<R, false>(root, depth as i32, -INF, INF, 0, hist.quiet, None)
            };
            if w.stopped {
                break;
            }
            w.poll();
            let pv: Vec<Move> = w.pv[0][..w.pv_len[0]].to_vec();
            if let Some(&b) = pv.first() {
                result.best = Some(b);
                result.ponder = pv.get(1).copied();
                // keep the best move first for the next iteration's fallback
                if let Some(i) = root_moves.iter().position(|m| *m == b) {
                    root_moves.swap(0, i);
                }
            }
            let mut stats = w.stats;
            stats.nodes = sh.total_nodes.load(Ordering::Relaxed);
            let it = Iteration {
                depth,
                score: exact.score(score),
                stats,
                time: start.elapsed(),
                pv,
                multipv: None,
            };
            if let Some(r) = w.report.as_deref_mut() {
                r.iteration(&it);
            }
            result.last = Some(it);
            if let Some(b) = result.best {
                stability.update(b, score);
            }
            if last_iteration(
                &sh,
                &stability,
                depth,
                decided(score, depth),
                root_moves.len(),
            ) {
                break;
            }
        }
        finish_main(control, &mut w, &mut result);
    });
    if let Ok(h) = helper_stats.lock() {
        let mut s = result.stats;
        s.add(&h);
        result.stats = s;
    }
    result.time = start.elapsed();
    result
}

/// Whether an iteration to `depth` that scored `score` found the game's
/// end within its horizon.
fn decided(score: i32, depth: u32) -> bool {
    score.abs() >= WIN_BOUND && (WIN - score.abs()) as u32 <= depth
}

/// Whether no iteration follows the one just finished to `depth`, whose
/// lines are all `decided`, at a root of `root_moves` legal moves: unless the
/// answer is held (ponder, infinite), when the result is known (decided, or
/// the solved mini game), the soft limit has passed, or the only move has
/// been searched twice without a depth limit.
fn last_iteration(
    sh: &Shared<'_>,
    stability: &Stability,
    depth: u32,
    decided: bool,
    root_moves: usize,
) -> bool {
    let limits = sh.limits;
    if sh.control.hold.load(Ordering::Relaxed) {
        return false;
    }
    if decided || limits.mini_table.is_some() {
        return true;
    }
    if soft_limit(limits, stability).is_some_and(|soft| sh.clock_elapsed() >= soft) {
        return true;
    }
    root_moves == 1 && limits.depth.is_none() && depth >= 2
}

/// The time after which no new iteration starts: the soft limit, scaled by
/// the iterations' stability under a game clock.
fn soft_limit(limits: &SearchLimits, stability: &Stability) -> Option<Duration> {
    Some(match limits.soft_time? {
        SoftTime::Fixed(soft) => soft,
        SoftTime::Clock(soft) => stability.soft_limit(soft, limits.hard_time),
    })
}

/// The end of the main thread's search: hold the answer while pondering or
/// searching infinitely, then stop the helpers and keep the counters.
fn finish_main(control: &Control, w: &mut Worker<'_, '_>, result: &mut SearchResult) {
    // ponder / infinite: hold the answer until released
    while control.hold.load(Ordering::Relaxed) && !control.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_micros(500));
    }
    control.stop.store(true, Ordering::Relaxed);
    w.poll();
    result.stats = w.stats;
}

/// Whether the root's value is exact (every child's value comes from the
/// solved mini-checkers table or the endgame databases), so that the root's
/// draw score ([`SearchLimits::draw_score`] at ply 0) is a draw and not an
/// evaluation.
#[derive(Clone, Copy)]
struct Exactness {
    exact: bool,
    draw: i32,
}

impl Exactness {
    fn of(root: &Position, limits: &SearchLimits) -> Exactness {
        let exact = match root.variant() {
            Variant::Mini => limits.mini_table.is_some(),
            Variant::English => limits.egdb.as_deref().is_some_and(|tb| {
                root.occupied().count() <= limits.egdb_pieces && tb.probe_wdl_now(root).is_ok()
            }),
        };
        Exactness {
            exact,
            draw: limits.draw_score(0),
        }
    }

    /// The score to report for the internal score `s`.
    fn score(self, s: i32) -> Score {
        if self.exact && s == self.draw {
            Score::Draw
        } else {
            Score::from_internal(s)
        }
    }
}

/// Iterative deepening reporting several lines per iteration (MultiPV) or
/// searching only some root moves (`searchmoves`): at each depth, line k is a
/// full-window search of the root without the moves of lines 1..k.
struct Lines<'m> {
    /// The root moves searched (inside `searchmoves`).
    root_moves: &'m [Move],
    /// The root moves never searched (outside `searchmoves`).
    outside: &'m [Move],
    multipv: usize,
    max_depth: u32,
    exact: Exactness,
    tracing: bool,
    /// The endgame databases' move at a won or lost root: first among equals.
    db_move: Option<Move>,
    start: Instant,
}

impl Lines<'_> {
    fn search<R: Rules>(
        &self,
        w: &mut Worker<'_, '_>,
        sh: &Shared<'_>,
        root: &Position,
        hist: &History,
        result: &mut SearchResult,
    ) {
        let n = self.multipv.min(self.root_moves.len());
        let mut stability = Stability::default();
        for depth in 1..=self.max_depth {
            let mut lines: Vec<(i32, Vec<Move>)> = Vec::with_capacity(n);
            w.root_excluded = self.outside.to_vec();
            for _ in 0..n {
                let d = depth as i32;
                let score = if self.tracing {
                    w.search::<R, true>(root, d, -INF, INF, 0, hist.quiet, None)
                } else {
                    w.search::<R, false>(root, d, -INF, INF, 0, hist.quiet, None)
                };
                if w.stopped {
                    break;
                }
                let pv: Vec<Move> = w.pv[0][..w.pv_len[0]].to_vec();
                let Some(&m) = pv.first() else { break };
                w.root_excluded.push(m);
                lines.push((score, pv));
            }
            w.root_excluded = self.outside.to_vec();
            if w.stopped || lines.is_empty() {
                break;
            }
            w.poll();
            // a later line can come out better than an earlier one (the
            // table, reductions): report them best first
            lines.sort_by_key(|l| std::cmp::Reverse(l.0));
            if let Some(db) = self.db_move {
                if let Some(j) = lines.iter().position(|l| l.1[0] == db && l.0 == lines[0].0) {
                    lines[..=j].rotate_right(1);
                }
            }
            result.best = Some(lines[0].1[0]);
            result.ponder = lines[0].1.get(1).copied();
            let mut stats = w.stats;
            stats.nodes = sh.total_nodes.load(Ordering::Relaxed);
            let time = self.start.elapsed();
            let its: Vec<Iteration> = lines
                .iter()
                .enumerate()
                .map(|(k, (score, pv))| Iteration {
                    depth,
                    score: self.exact.score(*score),
                    stats,
                    time,
                    pv: pv.clone(),
                    multipv: (self.multipv > 1).then_some(k as u32 + 1),
                })
                .collect();
            if let Some(r) = w.report.as_deref_mut() {
                for it in &its {
                    r.iteration(it);
                }
            }
            result.last = its.into_iter().next();
            stability.update(lines[0].1[0], lines[0].0);
            let all_decided = lines.iter().all(|&(s, _)| decided(s, depth));
            // the root's legal moves, not those searched: one move asked for
            // by searchmoves is analysed for as long as the limits allow
            let legal = self.root_moves.len() + self.outside.len();
            if last_iteration(sh, &stability, depth, all_decided, legal) {
                break;
            }
        }
    }
}

/// Sets the stop flag when the main thread unwinds from a panic.
struct StopOnUnwind<'a>(&'a Control);

impl Drop for StopOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// The databases' move at a won or lost root and its score; `None` when the
/// root is drawn (the search picks among the drawing moves), unknown, or
/// has more pieces than the databases are probed for.
fn database_move(root: &Position, limits: &SearchLimits) -> Option<(Move, Score)> {
    let tb = limits.egdb.as_deref()?;
    if root.variant() != Variant::English || root.occupied().count() > limits.egdb_pieces {
        return None;
    }
    let (m, v) = tb.best_move_now(root).ok()??;
    let plies = DB_WIN_PLIES as u32;
    match v {
        crate::egdb::Wdl::Win => Some((m, Score::Win(plies))),
        crate::egdb::Wdl::Loss => Some((m, Score::Loss(plies))),
        crate::egdb::Wdl::Draw => None,
    }
}

/// Searches `root` (with the game `hist`) within `limits`, reporting iterations to
/// `report`; returns when a limit is reached or `control.stop` is set.
pub fn search(
    root: &Position,
    hist: &History,
    limits: &SearchLimits,
    tt: &TranspositionTable,
    control: &Control,
    report: &mut dyn SearchReport,
) -> SearchResult {
    match root.variant() {
        Variant::English => {
            run_root::<crate::board::English>(root, hist, limits, tt, control, report)
        }
        Variant::Mini => run_root::<crate::board::Mini>(root, hist, limits, tt, control, report),
    }
}
