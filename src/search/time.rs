//! Time management: the budget a game clock allows one move, how that
//! budget's soft limit moves with the search's stability, and the checks
//! that end a search on its time or node limit.

use super::node::{Shared, Worker};
use crate::board::Move;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Time limits (soft, hard) for a move under a game clock; the soft one is
/// stretched or shrunk by the search's [`Stability`].
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
    let soft = (alloc * 7 / 10).min(hard);
    (soft, hard)
}

/// How far the soft limit of a search under a game clock is stretched or
/// shrunk, from the iterations so far: a best move that holds ends the
/// search early, one that changes or a score that falls keeps it going (up
/// to the hard limit).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stability {
    /// The last iteration's best move.
    last_best: Option<Move>,
    /// Best-move changes, halved at each iteration (recent ones weigh most).
    changes: f64,
    /// How far (centi-men) the score has fallen below the best of the
    /// iterations before, at the last iteration.
    fall: i32,
    /// The highest score of the iterations so far.
    peak: Option<i32>,
    /// Iterations seen.
    iterations: u32,
}

impl Stability {
    /// Iterations before the scale departs from 1 (the first ones end in
    /// microseconds and change their move at random).
    pub const WARM_UP: u32 = 4;
    /// The smallest scale: a best move that has held for many iterations.
    pub const MIN_SCALE: f64 = 0.6;
    /// The largest scale.
    pub const MAX_SCALE: f64 = 2.5;

    /// Takes a completed iteration's best move and score (internal units).
    pub fn update(&mut self, best: Move, score: i32) {
        self.iterations += 1;
        let changed = self.last_best.is_some_and(|m| m != best);
        self.changes = self.changes / 2.0 + if changed { 1.0 } else { 0.0 };
        self.fall = self.peak.map_or(0, |p| (p - score).max(0));
        self.peak = Some(self.peak.map_or(score, |p| p.max(score)));
        self.last_best = Some(best);
    }

    /// The factor the soft limit is multiplied by.
    #[must_use]
    pub fn scale(&self) -> f64 {
        if self.iterations < Self::WARM_UP {
            return 1.0;
        }
        // changes lies in [0, 2): 0.75 for a move that has held, about 1.65
        // just after a change, about 2.1 after two changes in a row
        let instability = 0.75 + 0.9 * self.changes;
        // up to 1.6 for a fall of 60 centi-men or more
        let falling = 1.0 + f64::from(self.fall.min(60)) / 100.0;
        (instability * falling).clamp(Self::MIN_SCALE, Self::MAX_SCALE)
    }

    /// `soft` scaled, at most `hard`.
    #[must_use]
    pub fn soft_limit(&self, soft: Duration, hard: Option<Duration>) -> Duration {
        let scaled = soft.mul_f64(self.scale());
        hard.map_or(scaled, |h| scaled.min(h))
    }
}

impl Shared<'_> {
    pub(super) fn out_of_time(&self) -> bool {
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
    pub(super) fn clock_elapsed(&self) -> Duration {
        let since = self.start.elapsed();
        since.saturating_sub(Duration::from_micros(
            self.control.clock_start_us.load(Ordering::Relaxed),
        ))
    }
}

impl Worker<'_, '_> {
    /// Publishes the node count and sets `stopped` when the search must end.
    pub(super) fn poll(&mut self) {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, Variant};

    fn two_moves() -> (Move, Move) {
        let moves = Position::startpos(Variant::English).legal_moves();
        (moves[0], moves[1])
    }

    fn after(iterations: &[(Move, i32)]) -> Stability {
        let mut s = Stability::default();
        for &(m, score) in iterations {
            s.update(m, score);
        }
        s
    }

    #[test]
    fn a_best_move_that_holds_shortens_the_soft_limit() {
        let (a, _) = two_moves();
        let s = after(&[(a, 10); 10]);
        assert!(s.scale() < 1.0, "{}", s.scale());
        assert!(s.scale() >= Stability::MIN_SCALE);
    }

    #[test]
    fn a_change_of_best_move_stretches_it_and_two_stretch_it_more() {
        let (a, b) = two_moves();
        let mut seq = vec![(a, 10); 8];
        seq.push((b, 10));
        let one = after(&seq);
        assert!(one.scale() > 1.4, "{}", one.scale());
        seq.push((a, 10));
        let two = after(&seq);
        assert!(two.scale() > one.scale(), "{} {}", two.scale(), one.scale());
        // and it fades while the move holds again
        seq.extend([(a, 10); 4]);
        assert!(after(&seq).scale() < 1.0);
    }

    #[test]
    fn a_falling_score_stretches_it() {
        let (a, _) = two_moves();
        let mut seq = vec![(a, 40); 8];
        let steady = after(&seq).scale();
        seq.push((a, -20));
        let fallen = after(&seq).scale();
        assert!(fallen > steady * 1.5, "{fallen} {steady}");
        // a rising score is not a fall
        seq.truncate(8);
        seq.push((a, 90));
        assert!((after(&seq).scale() - steady).abs() < 1e-9);
    }

    #[test]
    fn the_first_iterations_leave_it_alone_and_the_hard_limit_caps_it() {
        let (a, b) = two_moves();
        let early = after(&[(a, 0), (b, -300), (a, 0)]);
        assert!((early.scale() - 1.0).abs() < 1e-9);
        let wild = after(&[(a, 0), (b, -300), (a, 0), (b, -300), (a, -300), (b, -600)]);
        assert_eq!(wild.scale(), Stability::MAX_SCALE);
        let soft = Duration::from_millis(400);
        let hard = Duration::from_millis(700);
        assert_eq!(wild.soft_limit(soft, Some(hard)), hard);
        assert_eq!(
            wild.soft_limit(soft, None),
            soft.mul_f64(Stability::MAX_SCALE)
        );
    }

    #[test]
    fn a_clock_budget_keeps_soft_below_hard_and_both_inside_the_clock() {
        for left_ms in [5u64, 100, 1_000, 10_000, 300_000] {
            for inc_ms in [0u64, 100, 2_000] {
                for mtg in [None, Some(1), Some(10)] {
                    let left = Duration::from_millis(left_ms);
                    let (soft, hard) = clock_budget(left, Duration::from_millis(inc_ms), mtg);
                    assert!(soft <= hard, "{left_ms} {inc_ms} {mtg:?}");
                    assert!(
                        hard <= left.max(Duration::from_millis(1)),
                        "{left_ms} {inc_ms} {mtg:?}"
                    );
                }
            }
        }
    }
}
