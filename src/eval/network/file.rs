//! The network's weights and their file format (`.kmn`).
//!
//! All integers little-endian:
//!
//! | bytes | header |
//! |---|---|
//! | 8 | magic `KMNETWRK` |
//! | 4 | format version, [`FORMAT_VERSION`] |
//! | 4 | generation (which training round made it; informative) |
//! | 4 | inputs per perspective, [`INPUTS`] |
//! | 4 | `hidden`: accumulator width per perspective (a multiple of 16, at most [`MAX_HIDDEN`]) |
//! | 4 | `l1`: width of the first dense layer (at most [`MAX_DENSE`]) |
//! | 4 | `l2`: width of the second dense layer (at most [`MAX_DENSE`]) |
//! | 4 | `scale`: centi-men per unit of the output (the logistic's `K`) |
//! | 4 | activation one [`QA`] and dense weight one [`QB`], `u16` each |
//! | 8 | checksum: 64-bit FNV-1a of the payload |
//! | 4 | `buckets`: sets of dense layers, chosen by the number of pieces ([`super::bucket`]), 1 to [`MAX_BUCKETS`] (versions 2 and 3) |
//! | 4 | `input_buckets`: sets of first-layer rows, chosen by who has kings ([`super::input_bucket`]), 1 to [`MAX_INPUT_BUCKETS`] (version 3); zero (version 2) |
//!
//! Version 2 is version 3 with one input bucket; version 1 is version 2 with
//! one bucket and the header's first 48 bytes. A network is written in the
//! oldest version that holds it.
//!
//! | payload | |
//! |---|---|
//! | `i16` x `input_buckets * INPUTS * hidden` | first layer, input bucket by input bucket, input by input |
//! | `i16` x `hidden` | first layer bias |
//! | `i16` x `buckets * l1 * 2 hidden`, `i32` x `buckets * l1` | first dense layers, bucket by bucket, output by output; biases |
//! | `i16` x `buckets * l2 * l1`, `i32` x `buckets * l2` | second dense layers; biases |
//! | `i16` x `buckets * l2`, `i32` x `buckets` | output weights; biases |
//!
//! The first dense layer's weights are `i16` in the file; where every one
//! fits `i8` (the trainer keeps them so) the engine multiplies them as bytes
//! over `u8` inputs, with the same sums.
//!
//! A file whose sums could overflow their integers (the accumulator with 24
//! pieces, a dense layer with every input at its clip) is refused, so the
//! arithmetic never wraps on a position.

use super::accumulator::FeatureRows;
use super::kernels::{Aligned, DenseRows, PairRows};
use super::{INPUTS, MAX_BUCKETS, MAX_INPUT_BUCKETS, MAX_PIECES, QA, QB};
use crate::eval::weights::{check_checksum, check_header, checksum, WeightsError};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The first bytes of every network file.
pub const MAGIC: &[u8; 8] = b"KMNETWRK";
/// The newest format version, which this build reads and writes (it reads
/// and writes 1 and 2 too).
pub const FORMAT_VERSION: u32 = 3;
/// Header length in bytes.
pub const HEADER_LEN: usize = 56;
/// Header length of format version 1.
const HEADER_LEN_V1: usize = 48;
/// The widest accumulator this build evaluates.
pub const MAX_HIDDEN: usize = 512;
/// The widest dense layer this build evaluates.
pub const MAX_DENSE: usize = 64;

/// The network shipped with kingme (made by `kingme train --model network`, see `EVAL.md`).
static BUILTIN: &[u8] = include_bytes!("english.kmn");

/// A network's integer weights (see the module's table for the layout).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// Which training round made it.
    pub generation: u32,
    /// Accumulator width per perspective.
    pub hidden: usize,
    /// Sets of first-layer rows, chosen by who has kings.
    pub input_buckets: usize,
    /// First dense layer width.
    pub l1: usize,
    /// Second dense layer width.
    pub l2: usize,
    /// Sets of dense layers, chosen by the number of pieces.
    pub buckets: usize,
    /// Centi-men per unit of output.
    pub scale: u32,
    /// First layer, `input_buckets * INPUTS` rows of `hidden`.
    pub ft_w: FeatureRows,
    /// First layer bias.
    pub ft_b: Vec<i16>,
    /// First dense layers, `buckets * l1` rows of `2 hidden`.
    pub l1_w: DenseRows,
    /// First dense layers' biases, `buckets * l1`.
    pub l1_b: Vec<i32>,
    /// Second dense layers, `buckets * l2` rows of `l1`.
    pub l2_w: PairRows,
    /// Second dense layers' biases, `buckets * l2`.
    pub l2_b: Vec<i32>,
    /// Output weights, `buckets` rows of `l2`.
    pub out_w: Aligned,
    /// Output biases, `buckets`.
    pub out_b: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({})", self.describe())
    }
}

/// Reads little-endian values off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn i16s(&mut self, n: usize) -> Vec<i16> {
        let (a, b) = self.0.split_at(n * 2);
        self.0 = b;
        a.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    }
    fn i32s(&mut self, n: usize) -> Vec<i32> {
        let (a, b) = self.0.split_at(n * 4);
        self.0 = b;
        a.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

impl Network {
    /// Whether this build evaluates a network of these widths: an accumulator
    /// a multiple of 16 up to [`MAX_HIDDEN`], 1 to [`MAX_INPUT_BUCKETS`] input
    /// buckets, dense layers 1 to [`MAX_DENSE`] wide, 1 to [`MAX_BUCKETS`]
    /// buckets.
    #[must_use]
    pub fn evaluable(
        hidden: usize,
        input_buckets: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
    ) -> bool {
        hidden > 0
            && (1..=MAX_INPUT_BUCKETS).contains(&input_buckets)
            && hidden.is_multiple_of(16)
            && hidden <= MAX_HIDDEN
            && (1..=MAX_DENSE).contains(&l1)
            && (1..=MAX_DENSE).contains(&l2)
            && (1..=MAX_BUCKETS).contains(&buckets)
    }

    /// The largest network file this build reads.
    pub const MAX_FILE_LEN: usize = HEADER_LEN
        + Self::payload_len(
            MAX_HIDDEN,
            MAX_INPUT_BUCKETS,
            MAX_DENSE,
            MAX_DENSE,
            MAX_BUCKETS,
        );

    /// Payload bytes of a network of these widths.
    #[must_use]
    pub const fn payload_len(
        hidden: usize,
        input_buckets: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
    ) -> usize {
        2 * (input_buckets * INPUTS * hidden + hidden)
            + buckets * (2 * l1 * 2 * hidden + 4 * l1 + 2 * l2 * l1 + 4 * l2 + 2 * l2 + 4)
    }

    /// The shipped network (parsed once per process).
    #[must_use]
    pub fn builtin() -> Arc<Network> {
        static N: OnceLock<Arc<Network>> = OnceLock::new();
        Arc::clone(N.get_or_init(|| {
            Arc::new(
                Network::from_bytes(BUILTIN, "builtin network")
                    .expect("the embedded network is checked by the test suite"),
            )
        }))
    }

    /// `128x2xH-L1-L2-1`, the dense layers written `(L1-L2-1)xB` when there
    /// are `B` buckets of them, the first layer `128x2xHxI` when there are
    /// `I` input buckets.
    #[must_use]
    pub fn architecture(&self) -> String {
        let dense = if self.buckets == 1 {
            format!("{}-{}-1", self.l1, self.l2)
        } else {
            format!("({}-{}-1)x{}", self.l1, self.l2, self.buckets)
        };
        let first = if self.input_buckets == 1 {
            format!("{INPUTS}x2x{}", self.hidden)
        } else {
            format!("{INPUTS}x2x{}x{}", self.hidden, self.input_buckets)
        };
        format!("{first}-{dense}")
    }

    /// `network (generation G, ARCHITECTURE, checksum C)`.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "network (generation {}, {}, checksum {:016x})",
            self.generation,
            self.architecture(),
            self.checksum()
        )
    }

    /// The checksum of the weights (as in the file's header).
    #[must_use]
    pub fn checksum(&self) -> u64 {
        checksum(&self.payload())
    }

    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::payload_len(
            self.hidden,
            self.input_buckets,
            self.l1,
            self.l2,
            self.buckets,
        ));
        let mut i16s = |v: &[i16]| {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
        };
        i16s(&self.ft_w);
        i16s(&self.ft_b);
        let mut put = |w: &[i16], b: &[i32]| {
            w.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            b.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        };
        put(&self.l1_w, &self.l1_b);
        put(&self.l2_w, &self.l2_b);
        put(&self.out_w, &self.out_b);
        out
    }

    /// The file contents (format version 1 for one bucket and one input
    /// bucket, 2 for one input bucket, else 3).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let version = match (self.buckets, self.input_buckets) {
            (1, 1) => 1,
            (_, 1) => 2,
            _ => FORMAT_VERSION,
        };
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(MAGIC);
        for v in [
            version,
            self.generation,
            INPUTS as u32,
            self.hidden as u32,
            self.l1 as u32,
            self.l2 as u32,
            self.scale,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(QA as u16).to_le_bytes());
        out.extend_from_slice(&(QB as u16).to_le_bytes());
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        if version > 1 {
            let input_buckets = if version == 2 { 0 } else { self.input_buckets };
            out.extend_from_slice(&(self.buckets as u32).to_le_bytes());
            out.extend_from_slice(&(input_buckets as u32).to_le_bytes());
        }
        out.extend_from_slice(&payload);
        out
    }

    /// A network from file contents; `name` names the file in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Network, WeightsError> {
        let bad = |reason: String| WeightsError::Bad {
            path: name.to_string(),
            reason,
        };
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let (version, header_len) = match bytes.get(8..12).map(|_| u32_at(8)) {
            Some(1) => (1, HEADER_LEN_V1),
            Some(2) => (2, HEADER_LEN),
            _ => (FORMAT_VERSION, HEADER_LEN),
        };
        check_header(bytes, MAGIC, header_len, version, "network").map_err(bad)?;
        let (buckets, input_buckets) = match version {
            1 => (1, 1),
            2 if u32_at(52) != 0 => {
                return Err(bad("header bytes 52..56 are not zero (version 2)".into()))
            }
            2 => (u32_at(48) as usize, 1),
            _ => (u32_at(48) as usize, u32_at(52) as usize),
        };
        let (generation, inputs) = (u32_at(12), u32_at(16) as usize);
        let (hidden, l1, l2, scale) = (
            u32_at(20) as usize,
            u32_at(24) as usize,
            u32_at(28) as usize,
            u32_at(32),
        );
        let (qa, qb) = (
            u16::from_le_bytes([bytes[36], bytes[37]]),
            u16::from_le_bytes([bytes[38], bytes[39]]),
        );
        if inputs != INPUTS || i32::from(qa) != QA || i32::from(qb) != QB {
            return Err(bad(format!(
                "{inputs} inputs with units {qa}/{qb}: this kingme reads {INPUTS} inputs, units {QA}/{QB}"
            )));
        }
        if !Network::evaluable(hidden, input_buckets, l1, l2, buckets)
            || !(1..=100_000).contains(&scale)
        {
            return Err(bad(format!(
                "architecture {INPUTS}x2x{hidden}x{input_buckets}-({l1}-{l2}-1)x{buckets} with scale {scale} is outside what this kingme evaluates"
            )));
        }
        let payload = &bytes[header_len..];
        let want = Self::payload_len(hidden, input_buckets, l1, l2, buckets);
        if payload.len() != want {
            return Err(bad(format!(
                "{} bytes of weights, expected {want} (truncated or padded)",
                payload.len()
            )));
        }
        check_checksum(bytes, 40, payload).map_err(bad)?;
        let mut r = Reader(payload);
        let net = Network {
            generation,
            hidden,
            input_buckets,
            l1,
            l2,
            buckets,
            scale,
            ft_w: FeatureRows::new(r.i16s(input_buckets * INPUTS * hidden), input_buckets),
            ft_b: r.i16s(hidden),
            l1_w: r.i16s(buckets * l1 * 2 * hidden).into(),
            l1_b: r.i32s(buckets * l1),
            l2_w: PairRows::new(r.i16s(buckets * l2 * l1), l1),
            l2_b: r.i32s(buckets * l2),
            out_w: r.i16s(buckets * l2).into(),
            out_b: r.i32s(buckets),
        };
        net.check_ranges().map_err(bad)?;
        Ok(net)
    }

    /// Refuses weights whose integer sums could overflow.
    fn check_ranges(&self) -> Result<(), String> {
        for rows in self.ft_w.chunks_exact(INPUTS * self.hidden) {
            for j in 0..self.hidden {
                let mut col: Vec<i64> = (0..INPUTS)
                    .map(|f| i64::from(rows[f * self.hidden + j]).abs())
                    .collect();
                col.sort_unstable_by(|a, b| b.cmp(a));
                let worst =
                    i64::from(self.ft_b[j]).abs() + col.iter().take(MAX_PIECES).sum::<i64>();
                if worst > i64::from(i16::MAX) {
                    return Err(format!(
                        "accumulator {j} could reach {worst} and overflow (weights too large)"
                    ));
                }
            }
        }
        let dense_ok = |w: &[i16], b: &[i32], n: usize| {
            w.chunks_exact(n).zip(b).all(|(row, &bias)| {
                let worst = i64::from(bias).abs()
                    + row.iter().map(|&x| i64::from(x).abs()).sum::<i64>() * i64::from(QA);
                worst <= i64::from(i32::MAX)
            })
        };
        if !dense_ok(&self.l1_w, &self.l1_b, 2 * self.hidden)
            || !dense_ok(&self.l2_w, &self.l2_b, self.l1)
            || !dense_ok(&self.out_w, &self.out_b, self.l2)
        {
            return Err("a dense layer's sums could overflow (weights too large)".into());
        }
        Ok(())
    }

    /// Loads a network file.
    pub fn load(path: &Path) -> Result<Network, WeightsError> {
        let bytes =
            crate::files::read_bounded(path, Self::MAX_FILE_LEN as u64).map_err(|source| {
                WeightsError::Io {
                    path: path.display().to_string(),
                    source,
                }
            })?;
        Network::from_bytes(&bytes, &path.display().to_string())
    }

    /// Writes the network file atomically (a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        let io = |source| WeightsError::Io {
            path: path.display().to_string(),
            source,
        };
        let tmp = path.with_extension("kmn.tmp");
        std::fs::write(&tmp, self.to_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

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
        let mut rng = crate::openings::SplitMix64(seed);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    /// `bytes` read as a network of `buckets` dense sets and `input_buckets`
    /// first-layer sets, in format `version`, written back byte for byte,
    /// its first dense layer fitting the byte kernels.
    fn reads_and_writes_back(bytes: &[u8], buckets: usize, input_buckets: usize, version: u32) {
        let net = Network::from_bytes(bytes, "test").unwrap();
        assert_eq!((net.buckets, net.input_buckets), (buckets, input_buckets));
        assert_eq!(word(bytes, 8), version);
        assert_eq!(net.to_bytes(), bytes);
        assert!(net.l1_w.narrow().is_some());
    }

    #[test]
    fn the_shipped_file_reads_and_writes_back_byte_for_byte() {
        reads_and_writes_back(BUILTIN, 1, 3, 3);
    }

    /// Generation 2, the network shipped before input buckets: a version-1 file.
    static GENERATION_2: &[u8] = include_bytes!("../../../tests/data/network-v1-gen2.kmn");

    #[test]
    fn a_version_1_file_reads_and_writes_back_byte_for_byte() {
        reads_and_writes_back(GENERATION_2, 1, 1, 1);
    }

    /// The header's `u32` at byte `at`.
    fn word(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn a_network_with_input_buckets_is_version_3_and_round_trips() {
        let net = Network::random_with_inputs(12, 32, 3, 8, 8, 2);
        let bytes = net.to_bytes();
        assert_eq!((word(&bytes, 8), word(&bytes, 52)), (3, 3));
        assert_eq!(
            bytes.len(),
            HEADER_LEN + Network::payload_len(32, 3, 8, 8, 2)
        );
        assert_eq!(Network::from_bytes(&bytes, "t").unwrap(), net);
        assert!(net.describe().contains("128x2x32x3-(8-8-1)x2"));
        // its first input bucket alone is a network without input buckets
        let kingless =
            Position::from_fen(crate::board::Variant::English, "B:W21-32:B1-12").unwrap();
        let crowned =
            Position::from_fen(crate::board::Variant::English, "B:W21-31:BK32,1-11").unwrap();
        let one = Network {
            input_buckets: 1,
            ft_w: FeatureRows::new(net.ft_w[..INPUTS * 32].to_vec(), 1),
            ..net.clone()
        };
        assert_eq!(net.evaluate(&kingless), one.evaluate(&kingless));
        assert_ne!(net.evaluate(&crowned), one.evaluate(&crowned));
        // more input buckets than this build reads: refused
        let mut bad = bytes.clone();
        bad[52..56].copy_from_slice(&4u32.to_le_bytes());
        let err = Network::from_bytes(&bad, "four.kmn")
            .unwrap_err()
            .to_string();
        assert!(err.contains("four.kmn") && err.contains("x4"), "{err}");
        // a version 2 header with a nonzero last word is still refused
        let v2 = Network::random(13, 32, 8, 8, 2).to_bytes();
        assert_eq!(word(&v2, 8), 2);
        let mut odd = v2.clone();
        odd[52..56].copy_from_slice(&3u32.to_le_bytes());
        assert!(Network::from_bytes(&odd, "odd.kmn").is_err());
    }

    #[test]
    fn a_bucketed_network_is_version_2_and_round_trips() {
        let net = Network::random(11, 32, 8, 8, 3);
        let bytes = net.to_bytes();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
        assert_eq!(
            bytes.len(),
            HEADER_LEN + Network::payload_len(32, 1, 8, 8, 3)
        );
        assert_eq!(Network::from_bytes(&bytes, "t").unwrap(), net);
        assert!(
            net.describe().contains("128x2x32-(8-8-1)x3"),
            "{}",
            net.describe()
        );
        // the buckets' layers differ, so positions of different sizes use different ones
        let few = Position::from_fen(crate::board::Variant::English, "B:W30,31:B1,2").unwrap();
        let one = Network {
            buckets: 1,
            l1_w: net.l1_w[..8 * 64].to_vec().into(),
            l1_b: net.l1_b[..8].to_vec(),
            l2_w: PairRows::new(net.l2_w[..64].to_vec(), 8),
            l2_b: net.l2_b[..8].to_vec(),
            out_w: net.out_w[..8].to_vec().into(),
            out_b: net.out_b[..1].to_vec(),
            ..net.clone()
        };
        // four pieces: bucket 0 of three, the same layers as the one-bucket net
        assert_eq!(net.evaluate(&few), one.evaluate(&few));
        let start = Position::startpos(crate::board::Variant::English);
        assert_ne!(net.evaluate(&start), one.evaluate(&start));
    }
}
