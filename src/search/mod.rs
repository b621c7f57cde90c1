//! Iterative-deepening principal variation search with a shared transposition
//! table, move ordering, repetition draws and exact win/loss scores.
//!
//! The search never prints: it reports through [`SearchReport`] callbacks,
//! which the [`crate::engine`] turns into events.

pub mod tt;

use crate::board::movegen;
use crate::board::{Color, Move, MoveList, Position, Rules, Variant};
use crate::eval;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tt::{Bound, Entry, TranspositionTable};

/// Larger than any score.
pub const INF: i32 = 32_000;
/// The score of a win at the root; a win in N plies scores `WIN - N`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;

/// A search score as reported to users.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    /// Heuristic value in centi-men (100 = one man), from the side to move's view.
    Eval(i32),
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
}

impl Score {
    /// Converts an internal score.
    #[must_use]
    pub fn from_internal(s: i32) -> Score {
        if s >= WIN_BOUND {
            Score::Win((WIN - s) as u32)
        } else if s <= -WIN_BOUND {
            Score::Loss((WIN + s) as u32)
        } else {
            Score::Eval(s)
        }
    }
}

/// Counters kept by a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes visited.
    pub nodes: u64,
    /// Beta cut-offs where the root's side was to move (max nodes).
    pub prunes_max: u64,
    /// Beta cut-offs where the opponent was to move (min nodes).
    pub prunes_min: u64,
    /// Transposition table hits that gave a usable entry.
    pub tt_hits: u64,
    /// Deepest ply reached.
    pub seldepth: u32,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.nodes += o.nodes;
        self.prunes_max += o.prunes_max;
        self.prunes_min += o.prunes_min;
        self.tt_hits += o.tt_hits;
        self.seldepth = self.seldepth.max(o.seldepth);
    }
}

/// One finished iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Nominal depth.
    pub depth: u32,
    /// Score from the side to move's view.
    pub score: Score,
    /// Counters for the whole search so far (all threads).
    pub stats: Stats,
    /// Time since the search started.
    pub time: Duration,
    /// Principal variation, starting with the best move.
    pub pv: Vec<Move>,
}

/// One node of the search tree, for the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceNode {
    /// Distance from the root.
    pub ply: u32,
    /// The move that led here (`None` at the root).
    pub mv: Option<Move>,
    /// Window on entry.
    pub alpha: i32,
    /// Window on entry.
    pub beta: i32,
    /// Value returned (side to move's view).
    pub value: i32,
    /// Moves left unsearched by a cut-off.
    pub pruned: Vec<Move>,
}

/// Where a search sends what it finds.
pub trait SearchReport {
    /// A completed iteration.
    fn iteration(&mut self, it: &Iteration);
    /// A traced node (only with a trace cap).
    fn trace(&mut self, node: TraceNode);
}

/// What a search is allowed.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Maximum nominal depth.
    pub depth: Option<u32>,
    /// Maximum nodes (main thread count).
    pub nodes: Option<u64>,
    /// Stop starting iterations after this.
    pub soft_time: Option<Duration>,
    /// Stop at once after this.
    pub hard_time: Option<Duration>,
    /// Leaf noise amplitude in centi-men (weaker levels).
    pub noise: i32,
    /// Seed for the noise.
    pub seed: u64,
    /// Emit at most this many trace nodes.
    pub trace: Option<u64>,
    /// Number of threads.
    pub threads: usize,
    /// English evaluation weights.
    pub weights: eval::EnglishWeights,
    /// Exact mini-checkers values to use below the root (perfect play).
    pub mini_table: Option<&'static crate::solve::MiniTablebase>,
}

/// Flags shared between the controller and the search threads.
#[derive(Debug, Default)]
pub struct Control {
    /// Set to end the search.
    pub stop: AtomicBool,
    /// While set, time limits are suspended (ponder / infinite).
    pub hold: AtomicBool,
    /// Microseconds since the start at which the clock started (ponderhit).
    pub clock_start_us: AtomicU64,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The best move (None if there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The last completed iteration, if any.
    pub last: Option<Iteration>,
    /// Final counters.
    pub stats: Stats,
    /// Total time.
    pub time: Duration,
}

/// The game history a search needs: positions since the last irreversible move.
#[derive(Clone, Debug)]
pub struct History {
    /// Hashes of earlier positions, oldest first, the root not included.
    pub hashes: Vec<u64>,
    /// Plies since the last capture or man move at the root.
    pub quiet: u32,
}

/// Move-ordering keys (score << 8 | 255 - generation index, so ties keep generation
/// order), only the first `n` written.
struct Keys {
    k: [std::mem::MaybeUninit<i64>; crate::board::MAX_MOVES],
}

impl Keys {
    #[inline(always)]
    fn new() -> Keys {
        Keys {
            k: [std::mem::MaybeUninit::uninit(); crate::board::MAX_MOVES],
        }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: i64) {
        self.k[i] = std::mem::MaybeUninit::new(v);
    }
    /// Reads entry `i`, which must have been written by `set`.
    #[inline(always)]
    fn get(&self, i: usize) -> i64 {
        // SAFETY: callers only read indices below the move count, all written by `order`.
        unsafe { self.k[i].assume_init() }
    }
    #[inline(always)]
    fn swap(&mut self, i: usize, j: usize) {
        self.k.swap(i, j);
    }
}

struct Shared<'a> {
    tt: &'a TranspositionTable,
    control: &'a Control,
    start: Instant,
    limits: &'a SearchLimits,
    total_nodes: AtomicU64,
}

impl Shared<'_> {
    fn out_of_time(&self) -> bool {
        if self.control.hold.load(Ordering::Relaxed) {
            return false;
        }
        if let Some(h) = self.limits.hard_time {
            let since = self.start.elapsed().as_micros() as u64;
            let clock = self.control.clock_start_us.load(Ordering::Relaxed);
            return since.saturating_sub(clock) >= h.as_micros() as u64;
        }
        false
    }
    fn clock_elapsed(&self) -> Duration {
        let since = self.start.elapsed();
        since.saturating_sub(Duration::from_micros(
            self.control.clock_start_us.load(Ordering::Relaxed),
        ))
    }
}

struct Worker<'a, 'r> {
    sh: &'a Shared<'a>,
    main: bool,
    stats: Stats,
    flushed: u64,
    root_side: Color,
    killers: [[u64; 2]; MAX_PLY],
    history: Box<[[i32; 1024]; 2]>,
    path: Vec<u64>,
    pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
    stopped: bool,
    trace_left: u64,
    report: Option<&'r mut dyn SearchReport>,
}

#[inline]
fn to_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s + ply as i32
    } else if s <= -WIN_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline]
fn from_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s - ply as i32
    } else if s <= -WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
}

fn noise_of(hash: u64, seed: u64, amp: i32) -> i32 {
    if amp == 0 {
        return 0;
    }
    let mut z = hash ^ seed;
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z ^= z >> 29;
    (z % (2 * amp as u64 + 1)) as i32 - amp
}

/// The internal score of an exact mini-checkers value found `ply` plies from the root.
fn exact_score(v: crate::solve::GameValue, ply: usize) -> i32 {
    use crate::solve::ValueKind;
    let d = (ply as u32 + v.plies).min(900) as i32;
    match v.kind {
        ValueKind::Win => WIN - d,
        ValueKind::Loss => -WIN + d,
        ValueKind::Draw => 0,
    }
}

/// Value of a finished game for the side to move (no legal moves).
fn terminal_score<R: Rules>(pos: &Position, ply: usize) -> i32 {
    if R::KINGS_AND_MULTI_JUMPS {
        return -WIN + ply as i32;
    }
    let us = pos.pieces(pos.turn()).count();
    let them = pos.pieces(!pos.turn()).count();
    match us.cmp(&them) {
        std::cmp::Ordering::Greater => WIN - ply as i32,
        std::cmp::Ordering::Less => -WIN + ply as i32,
        std::cmp::Ordering::Equal => 0,
    }
}

impl<'a, 'r> Worker<'a, 'r> {
    fn new(
        sh: &'a Shared<'a>,
        main: bool,
        root: &Position,
        hist: &History,
        report: Option<&'r mut dyn SearchReport>,
    ) -> Self {
        Worker {
            sh,
            main,
            stats: Stats::default(),
            flushed: 0,
            root_side: root.turn(),
            killers: [[u64::MAX; 2]; MAX_PLY],
            history: Box::new([[0; 1024]; 2]),
            path: hist.hashes.clone(),
            pv: Box::new([[Move::PASS; MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
            stopped: false,
            trace_left: if main {
                sh.limits.trace.unwrap_or(0)
            } else {
                0
            },
            report,
        }
    }

    fn poll(&mut self) {
        let delta = self.stats.nodes - self.flushed;
        self.sh.total_nodes.fetch_add(delta, Ordering::Relaxed);
        self.flushed = self.stats.nodes;
        if self.sh.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.main {
            let over_nodes = self.sh.limits.nodes.is_some_and(|n| self.stats.nodes >= n)
                && !self.sh.control.hold.load(Ordering::Relaxed);
            if over_nodes || self.sh.out_of_time() {
                self.sh.control.stop.store(true, Ordering::Relaxed);
                self.stopped = true;
            }
        }
    }

    fn order(&self, list: &MoveList, tt_idx: u8, ply: usize, side: Color) -> Keys {
        let mut keys = Keys::new();
        for (i, m) in list.iter().enumerate() {
            let k = if i == tt_idx as usize {
                1 << 30
            } else if m.is_capture() {
                (1 << 29) + m.captured().count() as i32 * 1000
            } else if self.killers[ply][0] == m.key() {
                1 << 28
            } else if self.killers[ply][1] == m.key() {
                (1 << 28) - 1
            } else if m.is_pass() {
                0
            } else {
                self.history[side as usize]
                    [(m.from().index() as usize) << 5 | m.to().index() as usize]
            };
            keys.set(i, ((k as i64) << 8) | (255 - i as i64));
        }
        keys
    }

    fn is_repetition(&self, hash: u64, quiet: u32) -> bool {
        let n = self.path.len();
        let back = (quiet as usize).min(n);
        let mut i = 2;
        while i <= back {
            if self.path[n - i] == hash {
                return true;
            }
            i += 2;
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn search<R: Rules, const TRACE: bool>(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        quiet: u32,
        came_by: Option<Move>,
    ) -> i32 {
        self.stats.nodes += 1;
        if self.stats.nodes & 1023 == 0 {
            self.poll();
        }
        if self.stopped {
            return 0;
        }
        self.pv_len[ply] = 0;
        if ply as u32 > self.stats.seldepth {
            self.stats.seldepth = ply as u32;
        }
        let hash = pos.hash();
        if !R::KINGS_AND_MULTI_JUMPS && ply > 0 {
            if let Some(tb) = self.sh.limits.mini_table {
                return exact_score(tb.value(pos), ply);
            }
        }
        if ply > 0
            && (self.is_repetition(hash, quiet)
                || (R::KINGS_AND_MULTI_JUMPS && quiet >= crate::board::FORTY_MOVE_PLIES))
        {
            return 0;
        }
        let at_leaf = depth <= 0 || ply >= MAX_PLY - 2;
        let alive = R::KINGS_AND_MULTI_JUMPS
            || (pos.pieces(Color::Black).any() && pos.pieces(Color::White).any());
        if at_leaf && alive {
            // a quiet leaf needs no move list: evaluate at once
            let (captures, quiets) = movegen::move_kinds::<R>(pos);
            if (quiets && !captures) || (captures && ply >= MAX_PLY - 2) {
                return eval::evaluate_with(pos, &self.sh.limits.weights)
                    + noise_of(hash, self.sh.limits.seed, self.sh.limits.noise);
            }
        }
        let mut list = MoveList::new();
        movegen::generate::<R>(pos, &mut list);
        if list.is_empty() {
            return terminal_score::<R>(pos, ply);
        }
        if R::KINGS_AND_MULTI_JUMPS {
            list.dedup_effects();
        }
        let forcing = list[0].is_capture();
        if ply >= MAX_PLY - 2 || (depth <= 0 && !forcing) {
            return eval::evaluate_with(pos, &self.sh.limits.weights)
                + noise_of(hash, self.sh.limits.seed, self.sh.limits.noise);
        }
        let orig_alpha = alpha;
        let mut tt_idx = 255u8;
        if let Some(e) = self.sh.tt.probe(hash) {
            if (e.move_index as usize) < list.len() {
                tt_idx = e.move_index;
            }
            if ply > 0 && e.depth >= depth && !TRACE {
                let s = from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    self.stats.tt_hits += 1;
                    return s;
                }
            }
        }
        // forced moves and captures don't consume depth
        let new_depth = if list.len() == 1 || (depth <= 0 && forcing) {
            depth
        } else {
            depth - 1
        };
        let mut keys = self.order(&list, tt_idx, ply, pos.turn());
        let mut best = -INF;
        let mut best_idx = 0usize;
        let n = list.len();
        let mut searched = 0;
        for i in 0..n {
            // selection sort step
            let mut bi = i;
            let mut bk = keys.get(i);
            for j in i + 1..n {
                let kj = keys.get(j);
                if kj > bk {
                    bi = j;
                    bk = kj;
                }
            }
            list.swap(i, bi);
            keys.swap(i, bi);
            let m = list[i];
            let mut child = *pos;
            child.apply::<R, true>(m);
            // every child that generates moves probes the table (capture
            // resolution below depth 0 too): start loading its slot now
            self.sh.tt.prefetch(child.hash());
            let irreversible = m.is_capture() || m.is_pass() || !pos.kings().contains(m.from());
            let cq = if irreversible { 0 } else { quiet + 1 };
            self.path.push(hash);
            let score = if i == 0 {
                -self.search::<R, TRACE>(&child, new_depth, -beta, -alpha, ply + 1, cq, Some(m))
            } else {
                let quietm = !m.is_capture() && (keys.get(i) >> 8) < (1 << 28) - 1;
                let r = if !TRACE && depth >= 3 && i >= 2 && quietm && new_depth < depth {
                    if i >= 6 && depth >= 6 {
                        2
                    } else {
                        1
                    }
                } else {
                    0
                };
                let mut s = -self.search::<R, TRACE>(
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    cq,
                    Some(m),
                );
                if s > alpha && (r > 0 || s < beta) && !self.stopped {
                    s = -self.search::<R, TRACE>(
                        &child,
                        new_depth,
                        -beta,
                        -alpha,
                        ply + 1,
                        cq,
                        Some(m),
                    );
                }
                s
            };
            self.path.pop();
            searched = i + 1;
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_idx = i;
                if score > alpha {
                    alpha = score;
                    self.pv[ply][0] = m;
                    let cl = self.pv_len[ply + 1];
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply][1..=cl].copy_from_slice(&tail[0][..cl]);
                    self.pv_len[ply] = cl + 1;
                    if alpha >= beta {
                        if pos.turn() == self.root_side {
                            self.stats.prunes_max += 1;
                        } else {
                            self.stats.prunes_min += 1;
                        }
                        if !m.is_capture() && !m.is_pass() {
                            let k = m.key();
                            if self.killers[ply][0] != k {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = k;
                            }
                            let h = &mut self.history[pos.turn() as usize]
                                [(m.from().index() as usize) << 5 | m.to().index() as usize];
                            *h = (*h + depth.max(1) * depth.max(1)).min(1 << 20);
                        }
                        break;
                    }
                }
            }
        }
        // the move list was reordered in place: store the index in generation order
        let gen_idx = (255 - (keys.get(best_idx) & 0xff)) as u8;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.sh.tt.store(
            hash,
            Entry {
                score: to_tt(best, ply),
                depth,
                bound,
                move_index: gen_idx,
            },
        );
        if TRACE && self.trace_left > 0 {
            self.trace_left -= 1;
            let node = TraceNode {
                ply: ply as u32,
                mv: came_by,
                alpha: orig_alpha,
                beta,
                value: best,
                pruned: list[searched..].to_vec(),
            };
            if let Some(r) = self.report.as_deref_mut() {
                r.trace(node);
            }
        }
        best
    }
}

/// Time limits (soft, hard) for a move under a game clock.
#[must_use]
pub fn clock_budget(left: Duration, inc: Duration, movestogo: Option<u32>) -> (Duration, Duration) {
    let overhead = Duration::from_millis(30);
    let mtg = movestogo.unwrap_or(30).clamp(1, 60);
    let usable = left.saturating_sub(overhead);
    let alloc = usable / mtg + inc * 3 / 4;
    let hard_cap = if movestogo == Some(1) {
        usable * 4 / 5
    } else {
        usable / 3
    };
    let hard = (alloc * 3).min(hard_cap).max(Duration::from_millis(1));
    let soft = (alloc / 2).min(hard);
    (soft, hard)
}

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
    let mut root_moves = root.legal_moves();
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            last: None,
            stats: Stats::default(),
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
    let mut result = SearchResult {
        best: Some(root_moves[0]),
        ponder: None,
        last: None,
        stats: Stats::default(),
        time: Duration::ZERO,
    };
    std::thread::scope(|scope| {
        for t in 1..threads {
            let sh = &sh;
            let helper_stats = &helper_stats;
            let _ = std::thread::Builder::new()
                .name(format!("kingme-helper-{t}"))
                .spawn_scoped(scope, move || {
                    let mut w = Worker::new(sh, false, root, hist, None);
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
        let mut w = Worker::new(&sh, true, root, hist, Some(report));
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
                score: Score::from_internal(score),
                stats,
                time: start.elapsed(),
                pv,
            };
            if let Some(r) = w.report.as_deref_mut() {
                r.iteration(&it);
            }
            result.last = Some(it);
            let decided = limits.mini_table.is_some()
                || (score.abs() >= WIN_BOUND && (WIN - score.abs()) as u32 <= depth);
            if decided && !control.hold.load(Ordering::Relaxed) {
                break;
            }
            if let Some(soft) = limits.soft_time {
                if !control.hold.load(Ordering::Relaxed) && sh.clock_elapsed() >= soft {
                    break;
                }
            }
            if root_moves.len() == 1
                && !control.hold.load(Ordering::Relaxed)
                && limits.depth.is_none()
                && depth >= 2
            {
                break;
            }
        }
        // ponder / infinite: hold the answer until released
        while control.hold.load(Ordering::Relaxed) && !control.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_micros(500));
        }
        control.stop.store(true, Ordering::Relaxed);
        w.poll();
        result.stats = w.stats;
    });
    if let Ok(h) = helper_stats.lock() {
        let mut s = result.stats;
        s.add(&h);
        result.stats = s;
    }
    result.time = start.elapsed();
    result
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
