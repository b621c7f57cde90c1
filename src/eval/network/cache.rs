//! [`EvalCache`]: one search thread's network state, the accumulator of
//! the position it evaluated last, so that each evaluation updates the first
//! layer from there instead of computing it afresh.

use super::accumulator::Accumulator;
use super::features::Boards;
use super::kernels::Lanes;
use super::network::Network;
use crate::board::Position;

/// One search thread's network state: the accumulator of the position it
/// evaluated last, and the network it belongs to (known by its address: a
/// cache serves the networks that live while it does, as a search's do).
#[derive(Debug, Default)]
pub struct EvalCache {
    acc: Option<(usize, Accumulator)>,
    input: Vec<Lanes>,
}

impl EvalCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> EvalCache {
        EvalCache::default()
    }

    /// The accumulator for `net`, moved to `pos`.
    #[inline(always)]
    pub fn accumulator(&mut self, net: &Network, pos: &Position) -> &Accumulator {
        let id = std::ptr::from_ref(net) as usize;
        let boards = Boards::of(pos);
        match &mut self.acc {
            Some((owner, acc)) if *owner == id && acc.hidden() == net.hidden => {
                acc.update(&net.ft_w, &net.ft_b, boards);
            }
            slot => {
                let mut acc = Accumulator::new(net.hidden);
                acc.refresh(&net.ft_w, &net.ft_b, boards);
                *slot = Some((id, acc));
            }
        }
        &self.acc.as_ref().expect("set above").1
    }

    /// The evaluation of an English `pos` for its side to move, in centi-men,
    /// equal to [`Network::evaluate`].
    #[must_use]
    pub fn evaluate(&mut self, net: &Network, pos: &Position) -> i32 {
        evaluate_cached(self, net, pos)
    }
}

#[inline(always)]
fn evaluate_body(cache: &mut EvalCache, net: &Network, pos: &Position) -> i32 {
    cache.accumulator(net, pos);
    let EvalCache { acc, input } = cache;
    let acc = &acc.as_ref().expect("set by accumulator()").1;
    if input.len() < net.hidden / 8 {
        input.resize(net.hidden / 8, Lanes::default());
    }
    net.forward(acc, pos.turn(), input)
}

crate::avx2_twin! {
    fn evaluate_cached(cache: &mut EvalCache, net: &Network, pos: &Position) -> i32 = evaluate_body;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Variant;
    use crate::rng::SplitMix64;

    /// Random English games: after every move, and after going back to
    /// earlier positions, the cached accumulator equals a fresh one (128
    /// sums, the shipped width, and 32: the two paths of the row update).
    #[test]
    fn the_incremental_accumulator_equals_a_fresh_one_through_random_games() {
        for hidden in [128, 32] {
            accumulator_through_random_games(&Network::random(7, hidden, 8, 8, 3));
        }
        // input buckets: a crowning or a king's capture changes the rows
        for input_buckets in [2, 3] {
            accumulator_through_random_games(&Network::random_with_inputs(
                8,
                32,
                input_buckets,
                8,
                8,
                2,
            ));
        }
    }

    fn accumulator_through_random_games(net: &Network) {
        let mut rng = SplitMix64(11);
        let mut cache = EvalCache::new();
        let (mut captures, mut crownings, mut multi) = (0, 0, 0);
        for _ in 0..60 {
            let mut pos = Position::startpos(Variant::English);
            let mut seen = vec![pos];
            for _ in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                let next = pos.after(m);
                if m.is_capture() {
                    captures += 1;
                    if m.captured().count() > 1 {
                        multi += 1;
                    }
                }
                if next.kings_of(pos.turn()).count() > pos.kings_of(pos.turn()).count() {
                    crownings += 1;
                }
                pos = next;
                seen.push(pos);
                // the next position, and now and then an earlier one (an undo)
                let probe = if rng.next_u64().is_multiple_of(4) {
                    seen[(rng.next_u64() % seen.len() as u64) as usize]
                } else {
                    pos
                };
                let mut fresh = Accumulator::new(net.hidden);
                fresh.refresh(&net.ft_w, &net.ft_b, Boards::of(&probe));
                assert_eq!(cache.accumulator(net, &probe), &fresh);
                assert_eq!(cache.evaluate(net, &probe), net.evaluate(&probe));
            }
        }
        assert!(
            captures > 100 && crownings > 20 && multi > 5,
            "{captures} {crownings} {multi}"
        );
    }
}
