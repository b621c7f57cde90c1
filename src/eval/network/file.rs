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
//! arithmetic never wraps on a position. Files are written through
//! [`crate::checked_file`], whole or not at all.

use super::dense::{MAX_BUCKETS, MAX_DENSE};
use super::features::{INPUTS, MAX_INPUT_BUCKETS, MAX_PIECES};
use super::kernels::PairRows;
use super::network::Network;
use super::transformer::{FeatureRows, MAX_HIDDEN};
use super::{QA, QB};
use crate::checked_file::{write_atomically, Checksum, FileError, Format, PastTheEnd, Reader};
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

/// The network file format.
pub const FORMAT: Format = Format {
    magic: MAGIC,
    what: "network file",
    versions: &[1, 2, FORMAT_VERSION],
    checksum: Checksum::Fnv1a,
};

/// The network shipped with kingme (made by `kingme train --model network`, see `EVAL.md`).
static BUILTIN: &[u8] = include_bytes!("english.kmn");

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({})", self.describe())
    }
}

impl Network {
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
        FORMAT.sum(&self.payload())
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
        let mut h = FORMAT.header(version);
        h.u32(self.generation)
            .u32(INPUTS as u32)
            .u32(self.hidden as u32)
            .u32(self.l1 as u32)
            .u32(self.l2 as u32)
            .u32(self.scale)
            .u16(QA as u16)
            .u16(QB as u16)
            .u64(FORMAT.sum(&payload));
        if version > 1 {
            let input_buckets = if version == 2 { 0 } else { self.input_buckets };
            h.u32(self.buckets as u32).u32(input_buckets as u32);
        }
        let mut out = h.finish(if version == 1 {
            HEADER_LEN_V1
        } else {
            HEADER_LEN
        });
        out.extend_from_slice(&payload);
        out
    }

    /// A network from file contents; `name` names the file in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Network, FileError> {
        let path = Path::new(name);
        let bad = |reason: String| FileError::header(path, reason);
        let short = |e: PastTheEnd| e.in_file(path);
        let (version, mut r) = FORMAT.open(bytes, path)?;
        let generation = r.u32().map_err(short)?;
        let inputs = r.u32().map_err(short)? as usize;
        let hidden = r.u32().map_err(short)? as usize;
        let l1 = r.u32().map_err(short)? as usize;
        let l2 = r.u32().map_err(short)? as usize;
        let scale = r.u32().map_err(short)?;
        let (qa, qb) = (r.u16().map_err(short)?, r.u16().map_err(short)?);
        let stored = r.u64().map_err(short)?;
        let (buckets, input_buckets) = match version {
            1 => (1, 1),
            _ => {
                let (b, i) = (r.u32().map_err(short)?, r.u32().map_err(short)?);
                match (version, i) {
                    (2, 0) => (b as usize, 1),
                    (2, _) => {
                        return Err(bad("header bytes 52..56 are not zero (version 2)".into()))
                    }
                    _ => (b as usize, i as usize),
                }
            }
        };
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
        let payload = r.rest();
        let want = Self::payload_len(hidden, input_buckets, l1, l2, buckets);
        if payload.len() != want {
            return Err(FileError::size(
                path,
                (r.position() + want) as u64,
                bytes.len() as u64,
            ));
        }
        FORMAT.verify(path, stored, payload)?;
        let read = |r: &mut Reader<'_>| -> Result<Network, PastTheEnd> {
            Ok(Network {
                generation,
                hidden,
                input_buckets,
                l1,
                l2,
                buckets,
                scale,
                ft_w: FeatureRows::new(r.i16s(input_buckets * INPUTS * hidden)?, input_buckets),
                ft_b: r.i16s(hidden)?,
                l1_w: r.i16s(buckets * l1 * 2 * hidden)?.into(),
                l1_b: r.i32s(buckets * l1)?,
                l2_w: PairRows::new(r.i16s(buckets * l2 * l1)?, l1),
                l2_b: r.i32s(buckets * l2)?,
                out_w: r.i16s(buckets * l2)?.into(),
                out_b: r.i32s(buckets)?,
            })
        };
        let net = read(&mut Reader::new(payload)).map_err(short)?;
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
    pub fn load(path: &Path) -> Result<Network, FileError> {
        let bytes = crate::files::read_bounded(path, Self::MAX_FILE_LEN as u64)
            .map_err(|e| FileError::io(path, e))?;
        Network::from_bytes(&bytes, &path.display().to_string())
    }

    /// Writes the network file, whole or not at all (two writers never mix
    /// their bytes).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        write_atomically(path, [&self.to_bytes()[..]])
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
