//! The book as a tree of positions: each position's moves with their
//! searched values, the values backed up by negamax, the positions to
//! search next by drop-out priority, and the entries a file stores. The
//! build grows it; learning shifts the values of its leaf moves.

use super::file::{self, BookParams, RawEntry, RawMove, FLAG_IN_BOOK};
use crate::board::{Move, Position};
use crate::search::WIN_BOUND;
use std::collections::{BinaryHeap, HashMap};

/// A move of a book position as the build holds it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Leaf {
    pub(super) mv: Move,
    pub(super) child: Position,
    /// The search's value for the player making the move.
    pub(super) value: i32,
    /// Its search depth.
    pub(super) depth: u32,
}

/// The book being built (or learned from games).
#[derive(Default)]
pub(super) struct Tree {
    pub(super) nodes: HashMap<Position, Vec<Leaf>>,
}

/// Values (for the side to move) and depths of the book's positions.
type Values = HashMap<Position, (i32, u32)>;

impl Tree {
    pub(super) fn from_entries(entries: Vec<RawEntry>) -> Tree {
        let mut nodes = HashMap::with_capacity(entries.len());
        for e in entries {
            let legal = e.pos.legal_moves();
            let leaves = e
                .moves
                .iter()
                .filter_map(|r| {
                    let mv = r.find_in(&legal)?;
                    Some(Leaf {
                        mv,
                        child: e.pos.after(mv),
                        value: i32::from(r.value),
                        depth: u32::from(r.depth),
                    })
                })
                .collect();
            nodes.insert(e.pos, leaves);
        }
        Tree { nodes }
    }

    /// Every position's backed-up value and its depth.
    fn values(&self) -> Values {
        let mut memo = Values::with_capacity(self.nodes.len());
        let mut open = std::collections::HashSet::new();
        for pos in self.nodes.keys() {
            self.value_of(pos, &mut memo, &mut open);
        }
        memo
    }

    fn value_of(
        &self,
        pos: &Position,
        memo: &mut Values,
        open: &mut std::collections::HashSet<Position>,
    ) -> Option<(i32, u32)> {
        if let Some(&v) = memo.get(pos) {
            return Some(v);
        }
        let leaves = self.nodes.get(pos)?;
        if !open.insert(*pos) {
            // a cycle (kings): the stored values stand
            return None;
        }
        let mut best: Option<(i32, u32)> = None;
        for l in leaves {
            let v = match self.value_of(&l.child, memo, open) {
                Some((v, d)) => (-v, d + 1),
                None => (l.value, l.depth),
            };
            if best.is_none_or(|b| v.0 > b.0) {
                best = Some(v);
            }
        }
        open.remove(pos);
        let v = best.unwrap_or((0, 0));
        memo.insert(*pos, v);
        Some(v)
    }

    /// The value of `l` for its mover, backed up from the book where its
    /// position is there.
    fn move_value(values: &Values, l: &Leaf) -> (i32, u32) {
        match values.get(&l.child) {
            Some(&(v, d)) => (-v, d + 1),
            None => (l.value, l.depth),
        }
    }

    /// The positions to search next: the `n` least urgent-to-skip ones
    /// outside the book, with their plies from a root.
    pub(super) fn frontier(
        &self,
        roots: &[Position],
        params: &BookParams,
        n: usize,
    ) -> Vec<(Position, u32)> {
        let values = self.values();
        let mut best: HashMap<Position, (i64, u32)> = HashMap::new();
        let mut heap = BinaryHeap::new();
        let mut frontier: HashMap<Position, (i64, u32)> = HashMap::new();
        // the heap holds indices into `seen` (positions have no order)
        let mut seen: Vec<Position> = Vec::new();
        for r in roots {
            if self.nodes.contains_key(r) {
                heap.push(std::cmp::Reverse((0i64, 0u32, seen.len())));
                seen.push(*r);
                best.insert(*r, (0, 0));
            } else if !r.legal_moves().is_empty() {
                frontier.insert(*r, (0, 0));
            }
        }
        while let Some(std::cmp::Reverse((prio, plies, at))) = heap.pop() {
            let pos = seen[at];
            if best.get(&pos).is_some_and(|&(p, _)| p < prio) {
                continue;
            }
            let leaves = &self.nodes[&pos];
            let Some(top) = leaves.iter().map(|l| Tree::move_value(&values, l).0).max() else {
                continue;
            };
            for l in leaves {
                let (v, _) = Tree::move_value(&values, l);
                let drop = i64::from(top - v).clamp(0, 100_000);
                let p = prio + i64::from(params.dropout) + drop;
                if self.nodes.contains_key(&l.child) {
                    if best.get(&l.child).is_none_or(|&(q, _)| p < q) {
                        best.insert(l.child, (p, plies + 1));
                        heap.push(std::cmp::Reverse((p, plies + 1, seen.len())));
                        seen.push(l.child);
                    }
                } else if v.abs() < WIN_BOUND
                    && !l.child.legal_moves().is_empty()
                    && frontier.get(&l.child).is_none_or(|&(q, _)| p < q)
                {
                    frontier.insert(l.child, (p, plies + 1));
                }
            }
        }
        let mut list: Vec<(i64, u64, Position, u32)> = frontier
            .into_iter()
            .map(|(pos, (p, plies))| (p, tie_break(pos.hash(), params.seed), pos, plies))
            .collect();
        list.sort_unstable_by_key(|&(p, t, pos, _)| (p, t, file::sort_key(&pos)));
        list.into_iter()
            .take(n)
            .map(|(_, _, pos, plies)| (pos, plies))
            .collect()
    }

    /// Whether `pos` is in the book.
    pub(super) fn contains(&self, pos: &Position) -> bool {
        self.nodes.contains_key(pos)
    }

    /// Adds `shift` to the value of `mv` in `pos` when the move leads out
    /// of the book and its value is no win or loss (kept inside
    /// `±(bound - 1)`); whether it changed.
    pub(super) fn shift_leaf(&mut self, pos: &Position, mv: Move, shift: i32, bound: i32) -> bool {
        let in_book = |child: &Position| self.nodes.contains_key(child);
        let Some(leaf) = self.nodes.get(pos).and_then(|leaves| {
            leaves
                .iter()
                .position(|l| l.mv == mv && !in_book(&l.child) && l.value.abs() < bound)
        }) else {
            return false;
        };
        let l = &mut self.nodes.get_mut(pos).expect("found above")[leaf];
        let v = (l.value + shift).clamp(1 - bound, bound - 1);
        let changed = v != l.value;
        l.value = v;
        changed
    }

    /// The book's entries, each move with its backed-up value.
    pub(super) fn entries(&self) -> Vec<RawEntry> {
        let values = self.values();
        self.nodes
            .iter()
            .map(|(pos, leaves)| RawEntry {
                pos: *pos,
                moves: leaves
                    .iter()
                    .map(|l| {
                        let (v, d) = Tree::move_value(&values, l);
                        RawMove {
                            from: l.mv.from().index(),
                            to: l.mv.to().index(),
                            depth: d.min(255) as u8,
                            flags: if self.nodes.contains_key(&l.child) {
                                FLAG_IN_BOOK
                            } else {
                                0
                            },
                            value: v.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16,
                            captured: l.mv.captured().0,
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

fn tie_break(hash: u64, seed: u64) -> u64 {
    crate::rng::SplitMix64(hash ^ seed).next_u64()
}
