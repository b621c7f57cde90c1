//! Checked data files: the one layer that every kingme file format (endgame
//! database slices and packs, the opening book, the pattern weights, the
//! network) is written and read through.
//!
//! - [`mod@atomic`]: a file written whole or not at all (a temporary name of
//!   the writer's own beside it, synced, renamed, the directory synced).
//! - [`header`]: the start every format shares: 8 bytes of magic, the format
//!   version (`u32`), then the format's own fields, one of them a 64-bit
//!   checksum of its data ([`Format`], [`HeaderWriter`], [`Checksum`]).
//! - [`reader`]: little-endian values off a byte slice that never read past
//!   its end ([`Reader`]).
//! - [`fnv`]: FNV-1a 64, the checksum of every format, plain or in lanes.
//! - [`error`]: [`FileError`], the one error of every format; it names the
//!   file.
//!
//! A format module (`egdb/file.rs`, `book/file.rs`, `eval/patterns/file.rs`,
//! `eval/network/file.rs`) declares its [`Format`] and its own fields; a file
//! that disagrees with its format is refused as a whole, never read as wrong
//! values.

pub mod atomic;
pub mod error;
pub mod fnv;
pub mod header;
pub mod reader;

pub use atomic::{temporary_of, write_atomically, write_atomically_with};
pub use error::FileError;
pub use header::{Checksum, Format, HeaderWriter};
pub use reader::{PastTheEnd, Reader};
