//! English endgame databases: exact win, draw or loss for every position of up
//! to N pieces, built here by retrograde analysis and probed by the engine, the
//! referee and the `kingme egdb` tools.
//!
//! # Layout
//!
//! - [`mod@slice`]: [`Material`] (black men, black kings, white men, white kings),
//!   the canonical slice names (`bm1bk1wm0wk1`) and the build [`plan`].
//! - [`index`]: position ↔ index inside one slice (combinatorial ranks of the
//!   men, then of the kings on the squares left, then the side to move).
//! - [`mod@file`]: the slice files of every version: names, kinds (values,
//!   and the conversion-distance companion), the format versions and the
//!   header's shared start (magic, version, kind, slice name), on
//!   [`crate::checked_file`].
//! - [`full`]: version 1, the full files: position count and checksum in the
//!   header, values packed 2 bits per position, distances one byte per
//!   position, read whole.
//! - [`compact`]: versions 3 and 4, the compact files: zstd blocks of values
//!   (2 bits a position) and of distances with an index and a checksum per
//!   block, memory-mapped; positions with a capture pending, or facing a
//!   threat that every move resolves, left out (a probe finds their value by
//!   a small search); version 4 keeps only the distances of wins of at least
//!   [`compact::SHORT_WIN`] plies (a probe searches the others).
//! - [`cache`]: the process-wide cache of decoded compact blocks (`EGDBCache`).
//! - [`convert`]: a slice's values into compact files, checked against them
//!   (from version 1 files, older compact files, or the builder's memory).
//! - [`pack`]: several slices' compact files in one file, and the pack built
//!   into kingme (every slice of up to 5 pieces).
//! - [`mod@build`]: the retrograde builder (restartable, one slice or all).
//! - [`lock`]: a build's locks on its directory and slice.
//! - [`probe`]: the [`Tablebase`]: directories added, slices opened lazily by
//!   file name (any version), typed errors, never a guess; distances to
//!   conversion and the best-move choice (`probe/conversion.rs`).
//! - [`verify`]: file checks and retrograde consistency, and per-slice counts.
//!
//! # What is stored
//!
//! Every position of a slice, with either side to move, including positions
//! with a capture pending and positions where the side to move has no move: a
//! probe of a version 1 file is one lookup, never a search. Compact files
//! leave out the positions with a capture pending, whose probe searches the
//! captures, each into a smaller slice, and positions facing a threat whose
//! every move leads to a stored position or a capture, whose probe reads the
//! moves' positions. A slice holds one material and its
//! colour-reversed twin (the board turned round, colours and side to move
//! swapped), so only one of the two is built and stored. Positions where one
//! side has no piece are not stored: the side to move without pieces has lost.
//!
//! Values are perfect play under the rules of `protocol/RULES.md` ignoring the
//! 40-move rule (the usual convention for checkers databases); repetition is a
//! draw. Next to the value, the companion `.dtc` file gives the plies to
//! *conversion*: how long the winner needs, against the longest defence, to
//! force an irreversible move (a capture or a man's move) that keeps the win.
//! Playing the winning move of least conversion distance (and an irreversible
//! winning move when there is one) makes progress on every move and so wins.

pub mod build;
pub mod cache;
pub mod compact;
pub mod convert;
pub mod file;
pub mod full;
pub mod index;
pub mod lock;
pub mod pack;
pub mod probe;
pub mod slice;
pub mod verify;

pub use crate::checked_file::FileError;
pub use build::{build, build_reporting, BuildError, BuildOptions, BuildProgress, BuildReport};
pub use probe::{ProbeError, Tablebase};
pub use slice::{plan, Material};

use std::fmt;
use std::path::PathBuf;

/// The exact value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Wdl {
    /// The side to move wins with best play.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses with best play.
    Loss,
}

impl Wdl {
    /// `win`, `draw` or `loss`.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value for the other side.
    #[must_use]
    pub const fn flipped(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }

    /// The 2-bit code stored in slice files.
    pub(crate) const fn code(self) -> u8 {
        match self {
            Wdl::Draw => 0,
            Wdl::Win => 1,
            Wdl::Loss => 2,
        }
    }

    /// The value of a 2-bit code; `None` for [`NOT_A_POSITION`].
    pub(crate) const fn from_code(c: u8) -> Option<Wdl> {
        match c & 3 {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }
}

/// The 2-bit code of an index that stands for no position (men of both
/// colours on one square).
pub(crate) const NOT_A_POSITION: u8 = 3;

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The database directory used when none is given: `KINGME_EGDB`, else the
/// platform data directory (`$XDG_DATA_HOME/kingme/egdb`, or
/// `~/.local/share/kingme/egdb`; `%APPDATA%\kingme\egdb` on Windows).
#[must_use]
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("KINGME_EGDB").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("kingme").join("egdb"));
    }
    if cfg!(windows) {
        if let Some(d) = std::env::var_os("APPDATA").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(d).join("kingme").join("egdb"));
        }
    }
    let home = std::env::var_os("HOME").filter(|d| !d.is_empty())?;
    Some(
        PathBuf::from(home)
            .join(".local")
            .join("share")
            .join("kingme")
            .join("egdb"),
    )
}
