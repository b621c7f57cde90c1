//! Late-move reductions: how many plies a late quiet move's search is
//! shortened by, from the node's depth and the move's rank.

use super::MAX_PLY;

/// Plies to take off a late quiet move's search: one, plus more the deeper
/// the node and the later the move (one fewer at a principal-variation node).
#[inline]
pub(super) fn late_move_reduction(depth: i32, rank: usize, pv: bool) -> i32 {
    let more = match LMR_MORE.get(depth as usize).and_then(|row| row.get(rank)) {
        Some(&m) => i32::from(m),
        None => lmr_more(depth, rank),
    };
    (1 + more - i32::from(pv)).max(1)
}

/// The growing part of [`late_move_reduction`]: `ln depth · ln rank / 2.2`,
/// rounded down. Kept out of line: the search reads the table, and the
/// logarithm, which the compiler may otherwise compute ahead of the table's
/// lookup, is only needed beyond it.
#[cold]
#[inline(never)]
fn lmr_more(depth: i32, rank: usize) -> i32 {
    (f64::from(depth).ln() * (rank as f64).ln() / 2.2) as i32
}

/// [`lmr_more`] for every depth a search reaches (below [`MAX_PLY`]) and
/// ranks below 64, computed once.
static LMR_MORE: std::sync::LazyLock<[[u8; 64]; MAX_PLY]> = std::sync::LazyLock::new(|| {
    let mut t = [[0u8; 64]; MAX_PLY];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (r, m) in row.iter_mut().enumerate().skip(1) {
            *m = lmr_more(d as i32, r) as u8;
        }
    }
    t
});

#[cfg(test)]
mod tests {
    use super::late_move_reduction;

    /// The reductions follow their definition inside the precomputed range
    /// and beyond it.
    #[test]
    fn late_move_reductions_follow_their_definition() {
        for depth in 3..140 {
            for rank in 2..130usize {
                let more = ((depth as f64).ln() * (rank as f64).ln() / 2.2).floor() as i32;
                for pv in [false, true] {
                    let want = (1 + more - i32::from(pv)).max(1);
                    assert_eq!(
                        late_move_reduction(depth, rank, pv),
                        want,
                        "{depth} {rank} {pv}"
                    );
                }
            }
        }
        assert_eq!(late_move_reduction(3, 2, true), 1);
        assert_eq!(late_move_reduction(63, 63, false), 8);
    }
}
