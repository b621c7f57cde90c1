//! kingme: a checkers engine for English draughts (8x8) and 6x6 mini-checkers.
//!
//! # Layout
//!
//! In the order data flows, from the rules to the wire:
//!
//! - [`board`]: the rules. `Bitboard`, `Square`, `Color`, `Piece`, `Move`,
//!   `MoveList`, `Position` (FEN in and out, Zobrist key), move notation, legal
//!   move generation per variant behind the [`board::Rules`] trait, and `Game`
//!   (history, undo, repetition, the 40-move rule, results).
//! - [`checked_file`]: the layer every data file format is written and read
//!   through: atomic writes, the shared header (magic, version, checksum),
//!   a bounded little-endian reader, FNV-1a, and `FileError`, which names
//!   the file.
//! - [`files`]: data files named from outside: which paths a network client
//!   may name, and opening one without blocking or reading past its format.
//! - [`proc_info`]: memory figures Linux reports in `/proc` (peak and resident
//!   memory, physical memory).
//! - [`rng`]: `SplitMix64`, the seeded generator behind every shuffle,
//!   sample and random start (openings, self-play, training, tests).
//! - [`shard`]: `Shard`, the K-th of N contiguous parts of a long job
//!   (`--shard K/N`: datagen's games, rescore's records, a book's roots).
//! - [`perft`]: move-tree counting, the check on move generation.
//! - [`eval`]: the static evaluation of a position, per variant: for English
//!   the network (NNUE, `eval::network`: feature set, feature transformer and
//!   accumulator, dense layers, network, file, one file each; its first layer
//!   kept per search thread), the patterns (`eval::patterns`) or the hand-set
//!   terms.
//! - [`solve`]: the exact value (win, draw or loss, and plies to the end) of
//!   any mini-checkers position: `GameValue`, `MiniSolver`, and the shared
//!   `MiniTablebase` of every position reachable from the start.
//! - [`egdb`]: English endgame databases: exact win, draw or loss (and the
//!   distance to conversion) of every position of up to N pieces, built by
//!   retrograde analysis (`kingme egdb build`), stored compact and
//!   memory-mapped, probed through a `Tablebase`; the 5-piece set is built
//!   into kingme.
//! - [`search`]: iterative deepening over an alpha-beta node search, with move
//!   ordering, time management, statistics and the transposition table; it
//!   reports through callbacks and never prints. `Score` is its value as
//!   users see it (text, order, exact values).
//! - [`book`]: English opening books: built by drop-out expansion with
//!   the search (`kingme book build`, whole or by shards of the roots that
//!   `book::merge` joins), a checked file shared through memory maps, the
//!   shipped book, and the choice of a book move.
//! - [`engine`]: `Engine` (levels, typed options declared once in its option
//!   table, the table, exact move values) starts a search (or a perft) on its
//!   own thread, returns a `SearchHandle`, and sends `Event`s (`Info`,
//!   `Trace`, exactly one `BestMove` or `Perft`). `SearchSlot` is one front
//!   end's search (idle, queued, searching, answered), the same for the
//!   kingme session, Hub and DXP.
//! - [`mod@bench`]: fixed positions to fixed depths; the node total is the search
//!   signature.
//! - [`frontend`]: what every front end's session (kingme, Hub, DXP) is made
//!   of: `Flow`, the event queue its searches report on, and the `Policy` it
//!   asks of its server (authentication, search slots, the longest search,
//!   table memory).
//! - [`protocol`]: the kingme line protocol (`protocol/PROTOCOL.md`): the nom
//!   parsed `Command`, the `Response` lines, and the transport-independent
//!   `Session` state machine (the game and the commands).
//! - [`server`]: one driver loop generic over the session it drives (input
//!   in, output and search events out, timeouts, shutdown), the transports
//!   (stdio, the default; TCP, `--listen`) as thin adapters of it, the tokio
//!   accept loop that TCP and DXP share, the network servers' policy
//!   (`ServerLimits`: connections, per-address connections, search slots,
//!   the hash budget; the token; no open listen beyond loopback without
//!   `--no-auth`), and `EngineSpelling`, how the clients name an engine.
//! - [`hub`]: Scan's Hub protocol on stdio (`kingme hub`) with pydraughts'
//!   English position and move conventions, a session the driver runs.
//! - [`dxp`]: a DamExchange follower over TCP (`kingme dxp`) on the shared
//!   listener, driver and server limits, in pydraughts' English dialect.
//! - [`openings`]: the ACF 3-move ballots and the mini-checkers openings, the
//!   starts of matches and of self-play.
//! - [`datagen`]: self-play games written as training data (ended and labelled
//!   by the endgame databases, appendable in chunks, numbered so that a run
//!   can be cut into shards; `datagen::rescore` labels a file's positions
//!   again by a deeper search; `datagen::merge` joins files and shards);
//!   [`train`] fits
//!   the pattern weights (`train::patterns`) and the network
//!   (`train::network`) to them.
//! - [`review`]: a finished game judged move by move (the loss in expected
//!   result between the best move and the one played, the verdict it
//!   earns, exact verdicts where the databases or the mini table know).
//!
//! Text goes in through `FromStr`/`parse_*` and out through `Display`.

/// Who wrote kingme, as every front end's handshake says it.
pub const AUTHORS: &str = "the kingme developers";

pub mod board;
pub mod checked_file;
pub mod files;
pub mod perft;
pub mod proc_info;
pub mod rng;
pub mod shard;

pub mod eval;
pub mod solve;

pub mod egdb;

pub mod search;

pub mod book;

pub mod engine;

pub mod bench;

pub mod frontend;
pub mod protocol;
pub mod server;

pub mod hub;

pub mod dxp;

pub mod openings;

pub mod datagen;
pub mod review;
pub mod train;

pub use board::{Color, Game, Move, MoveList, Position, Square, Variant};
