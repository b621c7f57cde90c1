//! `MiniTablebase`: the values of every position reachable from the start,
//! built once per process and shared read-only.

use super::key::key_of;
use super::layered::Layered;
use super::memo::Table;
use super::solver::{assert_mini, move_values_with, Search};
use super::GameValue;
use crate::board::{Color, Move, Position, Variant};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Mutex, OnceLock};

static GLOBAL: OnceLock<MiniTablebase> = OnceLock::new();

/// The values of every position reachable from the mini start position (either
/// side to move first), shared read-only between threads, plus a locked cache
/// for positions outside that set.
///
/// All methods panic if given a position of another variant.
pub struct MiniTablebase {
    pub(super) main: Layered,
    pub(super) extra: Mutex<Table>,
}

impl fmt::Debug for MiniTablebase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniTablebase")
            .field("positions", &self.main.len())
            .finish_non_exhaustive()
    }
}

impl MiniTablebase {
    /// Solves every position reachable from the start position, with Black
    /// or White to move first (the start is its own mirror image, so both
    /// lead to the same set), on all threads. `progress` is called after each
    /// layer with the positions found so far (first sweep) and then with the
    /// positions solved so far (second sweep); both end at [`Self::len`].
    #[must_use]
    pub fn build(progress: &mut dyn FnMut(usize)) -> MiniTablebase {
        let start = Position::startpos(Variant::Mini);
        debug_assert_eq!(key_of(&start), key_of(&start.with_turn(Color::White)));
        MiniTablebase {
            main: Layered::build(key_of(&start), progress),
            extra: Mutex::new(Table::new()),
        }
    }

    /// The process-wide tablebase, built (silently) by the first caller;
    /// other callers wait for it.
    #[must_use]
    pub fn global() -> &'static MiniTablebase {
        // on a thread of the pool, which then starts each parallel step
        // itself instead of handing it over from outside
        GLOBAL.get_or_init(|| rayon::scope(|_| MiniTablebase::build(&mut |_| {})))
    }

    /// The process-wide tablebase if it is already built; never waits.
    #[must_use]
    pub fn try_global() -> Option<&'static MiniTablebase> {
        GLOBAL.get()
    }

    /// Starts building the process-wide tablebase on a background thread
    /// (once per process) and returns at once; see [`MiniTablebase::try_global`].
    pub fn prepare_in_background() {
        static STARTED: AtomicBool = AtomicBool::new(false);
        if GLOBAL.get().is_none() && !STARTED.swap(true, AtomicOrdering::Relaxed) {
            let spawned = std::thread::Builder::new()
                .name("mini-tablebase".into())
                .spawn(|| {
                    let _ = MiniTablebase::global();
                });
            if let Err(e) = spawned {
                // a later call tries again; searches play without it meanwhile
                tracing::warn!(error = %e, "no thread to build the mini-checkers table");
                STARTED.store(false, AtomicOrdering::Relaxed);
            }
        }
    }

    /// The exact value of `pos` for its side to move: a lookup for positions
    /// reachable from the start, otherwise solved (under a lock) and cached.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn value(&self, pos: &Position) -> GameValue {
        assert_mini(pos);
        if let Some(v) = self.main.get(key_of(pos)) {
            return v;
        }
        let mut extra = self
            .extra
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Search {
            memo: &mut extra,
            base: Some(&self.main),
            progress: None,
            next_report: usize::MAX,
        }
        .value(pos)
    }

    /// Every legal move of `pos` with its value for the side to move, best
    /// first; empty when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    #[must_use]
    pub fn move_values(&self, pos: &Position) -> Vec<(Move, GameValue)> {
        move_values_with(pos, |c| self.value(c))
    }

    /// A best move of `pos`, or `None` when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    #[must_use]
    pub fn best_move(&self, pos: &Position) -> Option<Move> {
        self.move_values(pos).first().map(|&(m, _)| m)
    }

    /// Whether `pos` is in the precomputed set (reachable from the start).
    #[must_use]
    pub fn contains(&self, pos: &Position) -> bool {
        pos.variant() == Variant::Mini && self.main.get(key_of(pos)).is_some()
    }

    /// The number of positions in the precomputed set.
    #[must_use]
    pub fn len(&self) -> usize {
        self.main.len()
    }

    /// Whether the precomputed set is empty (never, once built).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.main.len() == 0
    }

    /// Bytes of memory the precomputed table occupies.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.main.bytes()
    }
}
