//! The network's first layer, per perspective, and its incremental update.
//!
//! An [`Accumulator`] remembers the piece boards it was computed for. Moving
//! it to another position subtracts the rows of the pieces that left and adds
//! the rows of the pieces that arrived (a move, a capture of any length, a
//! crowning, an undo, or any two positions at all), or computes it afresh
//! when that is fewer rows. An [`EvalCache`] keeps one per search thread, so
//! each evaluation starts from the position evaluated before it: in a search
//! tree, usually a sibling or a cousin a few pieces away.

use super::file::Network;
use super::kernels::{self, Aligned, Lanes};
use super::{for_each_member, input_bucket, input_index, Boards, INPUTS};
use crate::board::{Color, Position};

/// The first layer's sums for both perspectives (Black's, then White's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    boards: Boards,
    /// The input bucket whose rows the sums are made of.
    bucket: usize,
    values: Aligned,
    hidden: usize,
}

impl Accumulator {
    /// An accumulator of `hidden` sums per perspective, not yet computed
    /// (it stands for the empty board with zero sums).
    #[must_use]
    pub fn new(hidden: usize) -> Accumulator {
        Accumulator {
            boards: Boards::default(),
            bucket: 0,
            values: vec![0; 2 * hidden].into(),
            hidden,
        }
    }

    /// The piece boards it was computed for.
    #[must_use]
    pub fn boards(&self) -> Boards {
        self.boards
    }

    /// The sums of `perspective`.
    #[inline(always)]
    #[must_use]
    pub fn side(&self, perspective: Color) -> &[i16] {
        let h = self.hidden;
        match perspective {
            Color::Black => &self.values[..h],
            Color::White => &self.values[h..],
        }
    }

    /// The sums of `perspective` as lanes.
    #[inline(always)]
    #[must_use]
    pub fn side_lanes(&self, perspective: Color) -> &[Lanes] {
        let l = self.hidden / 16;
        match perspective {
            Color::Black => &self.values.lanes()[..l],
            Color::White => &self.values.lanes()[l..2 * l],
        }
    }

    /// Computes the sums of `boards` afresh.
    #[inline(always)]
    pub fn refresh(&mut self, net: &Network, boards: Boards) {
        let h = self.hidden;
        self.values[..h].copy_from_slice(&net.ft_b);
        self.values[h..].copy_from_slice(&net.ft_b);
        let mut came = [0usize; 32];
        let n = indices(boards.black_inputs(), &mut came);
        let bucket = input_bucket(&boards, net.input_buckets);
        kernels::move_lanes(
            self.values.lanes_mut(),
            net.ft_w.by_piece(bucket),
            &[],
            &came[..n],
        );
        self.boards = boards;
        self.bucket = bucket;
    }

    /// Moves the sums to `boards`: by the pieces that differ, or afresh when
    /// that is less work or the input bucket changes.
    #[inline(always)]
    pub fn update(&mut self, net: &Network, boards: Boards) {
        let (old, new) = (self.boards.black_inputs(), boards.black_inputs());
        let (left, arrived) = (old & !new, new & !old);
        let changed = left.count_ones() + arrived.count_ones();
        if changed == 0 {
            return;
        }
        let rebucket =
            net.input_buckets > 1 && input_bucket(&boards, net.input_buckets) != self.bucket;
        if changed >= new.count_ones() || rebucket {
            self.refresh(net, boards);
            return;
        }
        // fewer rows change than there are pieces
        let (mut gone, mut came) = ([0usize; 32], [0usize; 32]);
        let ng = indices(left, &mut gone);
        let nc = indices(arrived, &mut came);
        let rows = net.ft_w.by_piece(self.bucket);
        kernels::move_lanes(self.values.lanes_mut(), rows, &gone[..ng], &came[..nc]);
        self.boards = boards;
    }
}

/// Writes the members of `set` (input indices in Black's view, the rows of
/// [`FeatureRows::by_piece`]) into `out`, lowest first; returns how many.
#[inline(always)]
fn indices(set: u128, out: &mut [usize; 32]) -> usize {
    let mut n = 0;
    for_each_member(set, |f| {
        out[n] = f;
        n += 1;
    });
    n
}

/// The first layer's weights: for each input bucket, a row of `hidden`
/// values per input ([`INPUTS`] rows a bucket, as in the file), and the same
/// rows paired by piece, so that one pass over the pieces that moved updates
/// both perspectives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureRows {
    by_input: Aligned,
    by_piece: Aligned,
    /// Lanes of one bucket's paired rows.
    bucket_lanes: usize,
}

impl FeatureRows {
    /// `v` holds `input_buckets` sets of [`INPUTS`] rows of `hidden` values,
    /// `hidden` a multiple of 16.
    #[must_use]
    pub fn new(v: Vec<i16>, input_buckets: usize) -> FeatureRows {
        let input_buckets = input_buckets.max(1);
        let h = v.len() / (INPUTS * input_buckets);
        let mut paired = Vec::with_capacity(2 * v.len());
        for rows in v.chunks_exact(INPUTS * h) {
            for kind in 0..4 {
                for bit in 0..32 {
                    for perspective in Color::ALL {
                        let f = input_index(perspective, kind, bit);
                        paired.extend_from_slice(&rows[f * h..(f + 1) * h]);
                    }
                }
            }
        }
        FeatureRows {
            by_input: v.into(),
            by_piece: paired.into(),
            bucket_lanes: 2 * INPUTS * h / 16,
        }
    }

    /// For each piece, at its input index in Black's view: `2 hidden`
    /// values of input bucket `bucket`, its input's row in Black's view, then
    /// in White's (the accumulator's layout), as whole lanes.
    #[inline(always)]
    #[must_use]
    pub fn by_piece(&self, bucket: usize) -> &[Lanes] {
        let n = self.bucket_lanes;
        &self.by_piece.lanes()[bucket * n..(bucket + 1) * n]
    }
}

impl From<Vec<i16>> for FeatureRows {
    /// `v` holds [`INPUTS`] rows of `hidden` values (one input bucket).
    fn from(v: Vec<i16>) -> FeatureRows {
        FeatureRows::new(v, 1)
    }
}

impl std::ops::Deref for FeatureRows {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        &self.by_input
    }
}

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
            Some((owner, acc)) if *owner == id && acc.hidden == net.hidden => {
                acc.update(net, boards);
            }
            slot => {
                let mut acc = Accumulator::new(net.hidden);
                acc.refresh(net, boards);
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
    use crate::openings::SplitMix64;

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
                fresh.refresh(net, Boards::of(&probe));
                assert_eq!(cache.accumulator(net, &probe), &fresh);
                assert_eq!(cache.evaluate(net, &probe), net.evaluate(&probe));
            }
        }
        assert!(
            captures > 100 && crownings > 20 && multi > 5,
            "{captures} {crownings} {multi}"
        );
    }

    #[test]
    fn a_position_and_its_mirror_score_alike() {
        let r = |b: crate::board::Bitboard| crate::board::Bitboard(b.0.reverse_bits());
        let nets = [
            Network::random(3, 32, 8, 8, 2),
            Network::random_with_inputs(3, 32, 3, 8, 8, 2),
        ];
        for (net, fen) in nets.iter().flat_map(|n| {
            [
                (n, "B:W21-32:B1-12"),
                (
                    n,
                    "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9",
                ),
                (n, "B:WK14,K22,27:B3,K9,12"),
                (n, "W:WK14,22,27:B3,9,12"),
            ]
        }) {
            let p = Position::from_fen(Variant::English, fen).unwrap();
            let m = Position::from_parts(
                Variant::English,
                r(p.pieces(Color::White)),
                r(p.pieces(Color::Black)),
                r(p.kings()),
                !p.turn(),
            );
            assert_eq!(net.evaluate(&p), net.evaluate(&m), "{fen}");
        }
    }
}
