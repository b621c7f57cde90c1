//! The alpha-beta node: principal variation search with late-move
//! reductions, ProbCut and singular extensions, the transposition table,
//! repetition and forty-move draws, exact mini-checkers values, capture
//! resolution at the leaves.

use super::leaves::LeafCache;
use super::reductions::late_move_reduction;
use super::stats::Stats;
use super::tt::{Bound, Entry, TranspositionTable};
use super::{
    Control, History, SearchLimits, SearchReport, TraceNode, DB_WIN_PLIES, INF, MAX_PLY, WIN,
    WIN_BOUND,
};
use crate::board::movegen;
use crate::board::{Color, Move, MoveList, Position, Rules};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// What every thread of one search shares.
pub(super) struct Shared<'a> {
    pub(super) tt: &'a TranspositionTable,
    pub(super) control: &'a Control,
    pub(super) start: Instant,
    pub(super) limits: &'a SearchLimits,
    pub(super) total_nodes: AtomicU64,
}

/// One search thread's state.
pub(super) struct Worker<'a, 'r> {
    pub(super) sh: &'a Shared<'a>,
    pub(super) main: bool,
    pub(super) stats: Stats,
    pub(super) flushed: u64,
    pub(super) root_side: Color,
    pub(super) killers: [[u64; 2]; MAX_PLY],
    pub(super) history: Box<[[i32; 1024]; 2]>,
    pub(super) path: Vec<u64>,
    pub(super) pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pub(super) pv_len: [usize; MAX_PLY],
    pub(super) stopped: bool,
    pub(super) trace_left: u64,
    pub(super) report: Option<&'r mut dyn SearchReport>,
    /// Root moves this worker leaves unsearched (MultiPV lines already
    /// found, moves outside `searchmoves`); empty in the classic search.
    pub(super) root_excluded: Vec<Move>,
    /// The network's first layer at the position evaluated last.
    pub(super) eval_cache: crate::eval::EvalCache,
    /// The static scores of the leaves evaluated so far.
    pub(super) leaves: LeafCache,
    /// The move a singular-extension test search leaves out, by ply.
    pub(super) excluded: [Option<Move>; MAX_PLY],
    /// The depth of the current iteration at the root.
    pub(super) root_depth: i32,
}

/// What the singular test found at a node.
pub(super) enum Singular {
    /// Not tested, or another move comes near the table move: search as usual.
    No,
    /// Every other move stays under the margin: search this one a ply deeper.
    Extend(Move),
    /// Another move also clears beta: the node fails high with this score.
    FailHigh(i32),
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
pub(super) fn from_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s - ply as i32
    } else if s <= -WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
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

/// ProbCut: the least depth, how much shallower the test search is, and the
/// margin (centi-men) it must clear beta by.
const PROBCUT_DEPTH: i32 = 6;
const PROBCUT_REDUCTION: i32 = 4;
const PROBCUT_MARGIN: i32 = 50;

/// Whether a node searched to `depth` probes and stores the transposition
/// table: capture resolution below depth 1 keeps out of it (its entries are
/// rarely usable and each costs a memory access).
#[inline]
fn uses_table(depth: i32) -> bool {
    depth > 0
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
    pub(super) fn new(
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
            root_excluded: Vec::new(),
            eval_cache: crate::eval::EvalCache::new(),
            leaves: LeafCache::new(),
            excluded: [None; MAX_PLY],
            root_depth: 0,
        }
    }

    /// The exact score of `pos` from the endgame databases, when it has few
    /// enough pieces and its slice answers.
    #[inline]
    fn probe_egdb(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        let tb = self.sh.limits.egdb.as_deref()?;
        if pos.occupied().count() > self.sh.limits.egdb_pieces {
            return None;
        }
        let v = tb.probe_wdl_now(pos).ok()?;
        self.stats.egdb_probes += 1;
        let win = WIN - DB_WIN_PLIES - ply as i32;
        Some(match v {
            crate::egdb::Wdl::Win => win,
            crate::egdb::Wdl::Draw => self.draw_score(ply),
            crate::egdb::Wdl::Loss => -win,
        })
    }

    /// The score of a draw (repetition, forty moves, a database draw) for
    /// the side to move at `ply`.
    #[inline]
    fn draw_score(&self, ply: usize) -> i32 {
        self.sh.limits.draw_score(ply)
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
    pub(super) fn search<R: Rules, const TRACE: bool>(
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
        if ply == 0 {
            self.root_depth = depth;
        }
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
            return self.draw_score(ply);
        }
        if R::KINGS_AND_MULTI_JUMPS && ply > 0 {
            if let Some(s) = self.probe_egdb(pos, ply) {
                return s;
            }
        }
        let at_leaf = depth <= 0 || ply >= MAX_PLY - 2;
        let alive = R::KINGS_AND_MULTI_JUMPS
            || (pos.pieces(Color::Black).any() && pos.pieces(Color::White).any());
        if at_leaf && alive {
            // a quiet leaf needs no move list: evaluate at once
            let (captures, quiets) = movegen::move_kinds::<R>(pos);
            if (quiets && !captures) || (captures && ply >= MAX_PLY - 2) {
                return self.leaf_score(pos, hash);
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
            return self.leaf_score(pos, hash);
        }
        let orig_alpha = alpha;
        let mut tt_idx = 255u8;
        // a singular-extension test: the same node without one move, kept out of the table
        let excluded = self.excluded[ply];
        let use_tt = uses_table(depth) && excluded.is_none();
        let tt_entry = if use_tt { self.sh.tt.probe(hash) } else { None };
        if let Some(e) = tt_entry {
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
        // ProbCut: at a null-window node deep enough, a shallower search that
        // clears beta by a margin is taken as a fail high
        if !TRACE
            && ply > 0
            && excluded.is_none()
            && depth >= PROBCUT_DEPTH
            && beta - alpha == 1
            && beta.abs() < WIN_BOUND / 2
            && !forcing
        {
            let rbeta = beta + PROBCUT_MARGIN;
            let s = self.search::<R, TRACE>(
                pos,
                depth - PROBCUT_REDUCTION,
                rbeta - 1,
                rbeta,
                ply,
                quiet,
                came_by,
            );
            if self.stopped {
                return 0;
            }
            if s >= rbeta {
                return beta;
            }
        }
        // forced moves and captures don't consume depth
        let new_depth = if list.len() == 1 || (depth <= 0 && forcing) {
            depth
        } else {
            depth - 1
        };
        // singular extension: a table move that stands alone is searched a
        // ply deeper; a node where another move also clears beta fails high
        let singular = match tt_entry {
            Some(e) if !TRACE && ply > 0 && tt_idx != 255 => {
                let ttm = list[tt_idx as usize];
                self.singular_test::<R>(pos, e, ttm, list.len(), depth, beta, ply, quiet, came_by)
            }
            _ => Singular::No,
        };
        if self.stopped {
            return 0;
        }
        let singular = match singular {
            Singular::FailHigh(s) => return s,
            Singular::Extend(m) => Some(m),
            Singular::No => None,
        };
        let mut keys = self.order(&list, tt_idx, ply, pos.turn());
        let mut best = -INF;
        let mut best_idx = 0usize;
        let n = list.len();
        let mut searched = 0;
        // root moves left out (MultiPV, searchmoves): the first searched move
        // gets the full window and reductions count from it
        let restricted = ply == 0 && !self.root_excluded.is_empty();
        let mut skipped = 0;
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
            if (restricted && self.root_excluded.contains(&m)) || excluded == Some(m) {
                skipped += 1;
                continue;
            }
            let extend = i32::from(singular == Some(m));
            let rank = i - skipped;
            let mut child = *pos;
            child.apply::<R, true>(m);
            // a child that will probe the table: start loading its slot now
            // (a reduced child keeps at least depth 1, so `new_depth` decides)
            if uses_table(new_depth) {
                self.sh.tt.prefetch(child.hash());
            }
            let cq = if pos.is_irreversible(m) { 0 } else { quiet + 1 };
            self.path.push(hash);
            let score = if rank == 0 {
                -self.search::<R, TRACE>(
                    &child,
                    new_depth + extend,
                    -beta,
                    -alpha,
                    ply + 1,
                    cq,
                    Some(m),
                )
            } else {
                let quietm = !m.is_capture() && (keys.get(i) >> 8) < (1 << 28) - 1;
                let r = if !TRACE && depth >= 3 && rank >= 2 && quietm && new_depth < depth {
                    late_move_reduction(depth, rank, beta - alpha > 1).min(new_depth - 1)
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
                            self.reward_cutoff(m, ply, pos.turn(), depth);
                        }
                        break;
                    }
                }
            }
        }
        // a singular test that left out the node's only move fails low
        if excluded.is_some() && best == -INF {
            return alpha;
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
        // a restricted root's value is not the position's: keep it out of the table
        if !restricted && use_tt {
            self.sh.tt.store(
                hash,
                Entry {
                    score: to_tt(best, ply),
                    depth,
                    bound,
                    move_index: gen_idx,
                },
            );
        }
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
