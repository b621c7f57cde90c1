//! Perft: counting the leaves of the legal move tree, the standard test of a
//! move generator.

use crate::board::{movecount, movegen};
use crate::board::{Move, MoveList, Position, Rules, Variant};
use crate::with_rules;

/// How capture paths that take the same pieces to the same square are counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Counting {
    /// Every capture path is a move (the published figures: OEIS A133046, Cake, pydraughts).
    #[default]
    AllPaths,
    /// Paths with the same start, end and captured set count once (as play sees them).
    Distinct,
}

impl Counting {
    /// A short description for output.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Counting::AllPaths => "every capture path counted",
            Counting::Distinct => "distinct moves counted (duplicate capture paths merged)",
        }
    }
}

fn moves_for(pos: &Position, counting: Counting) -> MoveList {
    match counting {
        Counting::AllPaths => pos.legal_moves_all_paths(),
        Counting::Distinct => pos.legal_moves(),
    }
}

/// Defines a perft-all function (bulk counting at the last two plies) named `$name`,
/// with extra attributes: written once, compiled twice (plain, and with `popcnt`).
macro_rules! perft_all_fn {
    ($(#[$attr:meta])* $vis:vis fn $name:ident) => {
        $(#[$attr])*
        $vis fn $name<R: Rules>(pos: &Position, depth: u32) -> u64 {
            if depth == 2 {
                return movecount::count_depth2::<R>(pos);
            }
            if depth <= 1 {
                return if depth == 0 {
                    1
                } else {
                    movecount::count::<R>(pos)
                };
            }
            let mut n = 0;
            if R::KINGS_AND_MULTI_JUMPS {
                movecount::for_each_child::<R>(pos, |child| n += $name::<R>(child, depth - 1));
                return n;
            }
            let mut list = MoveList::new();
            movegen::generate::<R>(pos, &mut list);
            for &m in list.iter() {
                let mut child = *pos;
                child.apply::<R, false>(m);
                n += $name::<R>(&child, depth - 1);
            }
            n
        }
    };
}

perft_all_fn!(fn perft_all_plain);

// Bulk counting is mostly population counts; x86-64's baseline has no popcnt
// instruction, so a second copy is compiled for CPUs that have one.
#[cfg(target_arch = "x86_64")]
perft_all_fn!(#[target_feature(enable = "popcnt")] fn perft_all_popcnt);

/// Perft counting every path, with the fastest code this CPU runs.
fn perft_all<R: Rules>(pos: &Position, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has just been seen to support popcnt.
        return unsafe { perft_all_popcnt::<R>(pos, depth) };
    }
    perft_all_plain::<R>(pos, depth)
}

fn perft_distinct<R: Rules>(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    movegen::generate::<R>(pos, &mut list);
    if R::KINGS_AND_MULTI_JUMPS {
        list.dedup_effects();
    }
    if depth == 1 {
        return list.len() as u64;
    }
    let mut n = 0;
    for &m in list.iter() {
        let mut child = *pos;
        child.apply::<R, false>(m);
        n += perft_distinct::<R>(&child, depth - 1);
    }
    n
}

/// A table of subtree counts keyed by position and depth, for hashed perft.
pub struct PerftTable {
    slots: Vec<(u64, u64)>,
    mask: usize,
}

/// A perft table too large for this machine.
#[derive(Debug, thiserror::Error)]
#[error("cannot allocate a perft table of {mib} MiB: {source}")]
pub struct PerftTableError {
    /// The size asked for.
    pub mib: usize,
    /// Why the allocation failed.
    pub source: std::collections::TryReserveError,
}

impl PerftTable {
    /// A table of about `mib` MiB (a power of two of 16-byte slots, at least 1024).
    /// Panics if the memory can't be had; see [`PerftTable::try_new`].
    #[must_use]
    pub fn new(mib: usize) -> PerftTable {
        PerftTable::try_new(mib).expect("perft table allocation")
    }

    /// A table of about `mib` MiB, or an error when the memory can't be had.
    pub fn try_new(mib: usize) -> Result<PerftTable, PerftTableError> {
        let bytes = mib.max(1).saturating_mul(1 << 20);
        let n = ((bytes / 16).next_power_of_two() / 2).max(1024);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(n)
            .map_err(|source| PerftTableError { mib, source })?;
        slots.resize(n, (0, 0));
        Ok(PerftTable { slots, mask: n - 1 })
    }
}

const fn depth_key(depth: u32) -> u64 {
    (depth as u64 + 1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
}

fn perft_hashed<R: Rules>(pos: &Position, depth: u32, t: &mut PerftTable) -> u64 {
    if depth <= 2 {
        return perft_all::<R>(pos, depth);
    }
    let key = pos.hash() ^ depth_key(depth);
    let slot = key as usize & t.mask;
    if t.slots[slot].0 == key {
        return t.slots[slot].1;
    }
    let mut list = MoveList::new();
    movegen::generate::<R>(pos, &mut list);
    let mut n = 0;
    for &m in list.iter() {
        let mut child = *pos;
        child.apply::<R, true>(m);
        n += perft_hashed::<R>(&child, depth - 1, t);
    }
    t.slots[slot] = (key, n);
    n
}

/// Perft with a table of subtree counts (every capture path counted): the same
/// figures as [`perft`], faster when transpositions are common.
#[must_use]
pub fn perft_with_table(pos: &Position, depth: u32, table: &mut PerftTable) -> u64 {
    with_rules!(pos.variant(), R => perft_hashed::<R>(pos, depth, table))
}

/// The number of leaf nodes `depth` plies below `pos` (a `pass` is one move).
#[must_use]
pub fn perft(pos: &Position, depth: u32, counting: Counting) -> u64 {
    with_rules!(pos.variant(), R => match counting {
        Counting::AllPaths => perft_all::<R>(pos, depth),
        Counting::Distinct => perft_distinct::<R>(pos, depth),
    })
}

/// Why [`perft_bounded`] gave up before the count was complete.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PerftInterrupted {
    /// The stop flag was raised.
    #[error("stopped after {0} leaves")]
    Stopped(u64),
    /// More leaves than the budget allows.
    #[error("over the budget of {0} leaves")]
    OverBudget(u64),
}

/// Subtrees of at most this many plies are counted without looking at the
/// stop flag or the budget (each takes well under a millisecond).
const UNCHECKED_PLIES: u32 = 4;

/// [`perft`] that gives up when `stop` is raised or the count passes `budget`
/// leaves, so that a client's count can be bounded and cancelled.
pub fn perft_bounded(
    pos: &Position,
    depth: u32,
    counting: Counting,
    stop: &std::sync::atomic::AtomicBool,
    budget: u64,
) -> Result<u64, PerftInterrupted> {
    fn walk(
        pos: &Position,
        depth: u32,
        counting: Counting,
        stop: &std::sync::atomic::AtomicBool,
        budget: u64,
        total: &mut u64,
    ) -> Result<(), PerftInterrupted> {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(PerftInterrupted::Stopped(*total));
        }
        if depth <= UNCHECKED_PLIES {
            *total += perft(pos, depth, counting);
        } else {
            for &m in moves_for(pos, counting).iter() {
                walk(&pos.after(m), depth - 1, counting, stop, budget, total)?;
            }
        }
        if *total > budget {
            return Err(PerftInterrupted::OverBudget(budget));
        }
        Ok(())
    }
    let mut total = 0;
    walk(pos, depth, counting, stop, budget, &mut total)?;
    Ok(total)
}

/// Perft split by root move: each root move with the leaf count below it.
#[must_use]
pub fn divide(pos: &Position, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
    let mut rows = Vec::new();
    divide_each(pos, depth, counting, None, |m, n, _| rows.push((m, n)));
    rows
}

/// Perft split by root move, reporting as it goes: `each(move, count, moves left)`
/// is called after each root move (for progress on long counts). With `table`
/// (every path counted only) subtree counts are cached as in [`perft_with_table`].
pub fn divide_each(
    pos: &Position,
    depth: u32,
    counting: Counting,
    mut table: Option<&mut PerftTable>,
    mut each: impl FnMut(Move, u64, usize),
) {
    if depth == 0 {
        return;
    }
    let moves = moves_for(pos, counting);
    for (i, &m) in moves.iter().enumerate() {
        let child = pos.after(m);
        let n = match (counting, table.as_deref_mut()) {
            (Counting::AllPaths, Some(t)) => perft_with_table(&child, depth - 1, t),
            _ => perft(&child, depth - 1, counting),
        };
        each(m, n, moves.len() - i - 1);
    }
}

/// Perft of the start position of `variant` (convenience for tests and benches).
#[must_use]
pub fn perft_start(variant: Variant, depth: u32, counting: Counting) -> u64 {
    perft(&Position::startpos(variant), depth, counting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::English;

    /// Both compiled copies of the counting code give the published figures
    /// (`protocol/RULES.md`, OEIS A133046), whichever one this CPU picks at run time.
    #[test]
    fn both_copies_count_the_reference_figures() {
        let start = Position::startpos(Variant::English);
        let expected = [7, 49, 302, 1469, 7361, 36768, 179_740, 845_931];
        for (depth, &want) in (1..).zip(&expected) {
            assert_eq!(
                perft_all_plain::<English>(&start, depth),
                want,
                "plain, depth {depth}"
            );
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("popcnt") {
                // SAFETY: the CPU has just been seen to support popcnt.
                let n = unsafe { perft_all_popcnt::<English>(&start, depth) };
                assert_eq!(n, want, "popcnt, depth {depth}");
            }
        }
        let two_ways = Position::from_fen(Variant::English, "W:WK7,30,31:B1,4,10,11,18,19")
            .expect("the FEN of protocol/RULES.md");
        assert_eq!(perft_all_plain::<English>(&two_ways, 7), 11_802);
    }

    /// The bounded count agrees with the plain one, and gives up when stopped
    /// or over its budget.
    #[test]
    fn a_bounded_count_agrees_or_gives_up() {
        use std::sync::atomic::AtomicBool;
        let start = Position::startpos(Variant::English);
        let go = AtomicBool::new(false);
        for depth in [0, 3, 6, 7] {
            assert_eq!(
                perft_bounded(&start, depth, Counting::AllPaths, &go, u64::MAX),
                Ok(perft(&start, depth, Counting::AllPaths))
            );
        }
        assert_eq!(
            perft_bounded(&start, 7, Counting::AllPaths, &go, 100_000),
            Err(PerftInterrupted::OverBudget(100_000))
        );
        let stopped = AtomicBool::new(true);
        assert_eq!(
            perft_bounded(&start, 7, Counting::AllPaths, &stopped, u64::MAX),
            Err(PerftInterrupted::Stopped(0))
        );
    }
}
