//! Networks of small pseudo-random weights, of any shape this build
//! evaluates: for tests (the engine's, the trainer's and the integration
//! tests') and the trainer's file round trips; never a network to play with.

use super::features::INPUTS;
use super::kernels::PairRows;
use super::network::Network;
use super::transformer::FeatureRows;
use crate::rng::SplitMix64;

impl Network {
    /// A network of these widths and buckets with small pseudo-random
    /// weights from `seed` (tests, and the trainer's file round trips).
    #[must_use]
    pub fn random(seed: u64, hidden: usize, l1: usize, l2: usize, buckets: usize) -> Network {
        Self::random_with_inputs(seed, hidden, 1, l1, l2, buckets)
    }

    /// [`Network::random`] with `input_buckets` sets of first-layer rows.
    #[must_use]
    pub fn random_with_inputs(
        seed: u64,
        hidden: usize,
        input_buckets: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
    ) -> Network {
        let mut rng = SplitMix64(seed);
        let mut v16 = |n: usize, amp: i64| -> Vec<i16> {
            (0..n)
                .map(|_| ((rng.next_u64() % (2 * amp as u64 + 1)) as i64 - amp) as i16)
                .collect()
        };
        let ft_w = v16(input_buckets * INPUTS * hidden, 40);
        let ft_b = v16(hidden, 40);
        let l1_w = v16(buckets * l1 * 2 * hidden, 300);
        let l2_w = v16(buckets * l2 * l1, 300);
        let out_w = v16(buckets * l2, 300);
        let bias = |n: usize| {
            (0..n)
                .map(|i| (i as i32 % 7 - 3) * 2000)
                .collect::<Vec<i32>>()
        };
        Network {
            generation: 0,
            hidden,
            input_buckets,
            l1,
            l2,
            buckets,
            scale: 160,
            ft_w: FeatureRows::new(ft_w, input_buckets),
            ft_b,
            l1_w: l1_w.into(),
            l1_b: bias(buckets * l1),
            l2_w: PairRows::new(l2_w, l1),
            l2_b: bias(buckets * l2),
            out_w: out_w.into(),
            out_b: (0..buckets as i32).map(|i| 1234 - 300 * i).collect(),
        }
    }
}
