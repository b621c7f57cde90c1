//! Distances to conversion and the database's move. A distance comes from
//! the slice's conversion file where it holds it; a version 4 file leaves out
//! losses and wins shorter than [`SHORT_WIN`] plies, and those are found by
//! a small search over the values (a loss is one ply longer than its
//! opponent's slowest win; a short win within `SHORT_WIN - 1` plies).

use super::{file_error, Located, ProbeError, SliceData, Tablebase, Wait};
use crate::board::{Move, MoveList, Position};
use crate::egdb::compact::SHORT_WIN;
use crate::egdb::file::Kind;
use crate::egdb::{Material, Wdl};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Fills `moves` with `pos`'s moves that are not irreversible; returns
/// whether it has others.
fn inside_moves(pos: &Position, moves: &mut MoveList) -> bool {
    pos.legal_moves_into(moves);
    let all = moves.len();
    moves.retain(|m| !pos.is_irreversible(*m));
    moves.len() < all
}

/// Bounds on a position's distance found so far in one probe's search:
/// at least `.0`, at most `.1` plies.
type Bounds = (u8, u8);

/// A position as a key of the search's tables, hashed by its Zobrist key
/// (compared whole).
#[derive(PartialEq, Eq)]
struct Key(Position);

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash());
    }
}

/// Passes a [`Key`]'s Zobrist key through: it is well mixed already.
#[derive(Default)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

type Table = HashMap<Key, Bounds, BuildHasherDefault<ZobristHasher>>;

/// One probe's search for the distances a version 4 file leaves out; the
/// bounds it learns are kept for the positions it meets again.
struct Search<'a> {
    tb: &'a Tablebase,
    wait: Wait,
    wins: Table,
    losses: Table,
    /// Positions whose moves were searched.
    nodes: u64,
    /// At most this many.
    bound: u64,
}

/// The bound on the positions a search that does not wait (the engine's, at
/// the root of its search) meets before it gives up.
pub const ROOT_SEARCH_BOUND: u64 = 100_000;

impl<'a> Search<'a> {
    fn new(tb: &'a Tablebase, wait: Wait) -> Search<'a> {
        Search {
            tb,
            wait,
            wins: Table::default(),
            losses: Table::default(),
            nodes: 0,
            bound: match wait {
                Wait::Yes => u64::MAX,
                Wait::No => ROOT_SEARCH_BOUND,
            },
        }
    }

    /// Counts a position searched; an error past the bound.
    fn count(&mut self) -> Result<(), ProbeError> {
        self.nodes += 1;
        if self.nodes > self.bound {
            return Err(ProbeError::Bound(self.bound));
        }
        Ok(())
    }

    fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.tb.wdl(pos, self.wait)
    }

    /// The distance of `pos`, of value `v` (a win or a loss), when its slice's
    /// files hold it; `None` when it is to be searched.
    fn stored(&self, pos: &Position, v: Wdl) -> Result<Option<u8>, ProbeError> {
        let (e, p) = match self.tb.locate(pos)? {
            Located::Known(_) => return Ok(Some(0)),
            Located::At(e, p) => (e, p),
        };
        Ok(match e.data(Kind::Conversion, self.wait)? {
            SliceData::Full(d) => Some(d[e.index.index(&p) as usize]),
            // every move is irreversible: conversion at the first ply
            SliceData::Compact(_) if p.must_capture() => Some(1),
            SliceData::Compact(c) if !c.long_wins_only() || v == Wdl::Win => {
                match c.get(e.index.index(&p)).map_err(file_error)? {
                    0 if c.long_wins_only() => None,
                    d => Some(d),
                }
            }
            SliceData::Compact(_) => None,
        })
    }

    /// The distance of `pos`, a win for its side to move.
    fn win_distance(&mut self, pos: &Position) -> Result<u8, ProbeError> {
        if let Some(d) = self.stored(pos, Wdl::Win)? {
            return Ok(d);
        }
        for n in 1..SHORT_WIN {
            if self.win_within(pos, n)? {
                return Ok(n);
            }
        }
        // the file says "a short win" and no short win is there
        Err(ProbeError::NoValue(Material::of(pos).canonical()))
    }

    /// The distance of `pos`, a loss for its side to move.
    fn loss_distance(&mut self, pos: &Position) -> Result<u8, ProbeError> {
        if let Some(d) = self.stored(pos, Wdl::Loss)? {
            return Ok(d);
        }
        let mut inside = MoveList::new();
        let others = inside_moves(pos, &mut inside);
        if inside.is_empty() {
            // no move at all: lost already; only irreversible ones: the next ply
            return Ok(u8::from(others));
        }
        let mut longest = 0u8;
        for &m in inside.iter() {
            let child = pos.after(m);
            if !self.win_within(&child, longest)? {
                longest = self.win_distance(&child)?;
            }
        }
        Ok(longest.saturating_add(1))
    }

    /// Whether `pos`, a win for its side to move, converts within `n` plies.
    fn win_within(&mut self, pos: &Position, n: u8) -> Result<bool, ProbeError> {
        if n == 0 {
            return Ok(false);
        }
        let key = Key(*pos);
        // a position met before is a short win
        let (lo, hi) = match self.wins.get(&key) {
            Some(&b) => b,
            None => match self.stored(pos, Wdl::Win)? {
                Some(d) => return Ok(d <= n),
                None => (1, SHORT_WIN - 1),
            },
        };
        if n >= hi || n < lo {
            return Ok(n >= hi);
        }
        let found = self.search_win(pos, n)?;
        let b = if found { (lo, n) } else { (n + 1, hi) };
        self.wins.insert(key, b);
        Ok(found)
    }

    /// Whether `pos`, a win for its side to move, converts within `n` plies,
    /// searched from its moves.
    fn search_win(&mut self, pos: &Position, n: u8) -> Result<bool, ProbeError> {
        self.count()?;
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        for &m in moves.iter().filter(|&&m| pos.is_irreversible(m)) {
            if self.wdl(&pos.after(m))? == Wdl::Loss {
                return Ok(true);
            }
        }
        for &m in moves.iter().filter(|&&m| !pos.is_irreversible(m)) {
            let child = pos.after(m);
            if self.wdl(&child)? == Wdl::Loss && self.loss_within(&child, n - 1)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `pos`, a loss for its side to move, is converted within `n`
    /// plies against its longest defence.
    fn loss_within(&mut self, pos: &Position, n: u8) -> Result<bool, ProbeError> {
        if let Some(d) = self.stored(pos, Wdl::Loss)? {
            return Ok(d <= n);
        }
        let mut inside = MoveList::new();
        let others = inside_moves(pos, &mut inside);
        if inside.is_empty() {
            return Ok(u8::from(others) <= n);
        }
        if n < 2 {
            return Ok(false);
        }
        let key = Key(*pos);
        let (lo, hi) = self.losses.get(&key).copied().unwrap_or((2, u8::MAX));
        if n >= hi || n < lo {
            return Ok(n >= hi);
        }
        self.count()?;
        let mut found = true;
        for &m in inside.iter() {
            if !self.win_within(&pos.after(m), n - 1)? {
                found = false;
                break;
            }
        }
        let b = if found { (lo, n) } else { (n + 1, hi) };
        self.losses.insert(key, b);
        Ok(found)
    }
}

impl Tablebase {
    /// The value of `pos` and its distance to conversion: the plies the winner
    /// needs, against the longest defence, until an irreversible move (capture
    /// or man's move) that keeps the win; 0 for a draw or a lost position with
    /// no move; capped at 255.
    pub fn probe_dtc(&self, pos: &Position) -> Result<(Wdl, u8), ProbeError> {
        let mut s = Search::new(self, Wait::Yes);
        let v = s.wdl(pos)?;
        let d = match v {
            Wdl::Draw => 0,
            Wdl::Win => s.win_distance(pos)?,
            Wdl::Loss => s.loss_distance(pos)?,
        };
        Ok((v, d))
    }

    /// The database's move in `pos` and the position's value: when winning,
    /// an irreversible winning move if there is one, else the winning move of
    /// least conversion distance; when drawing, a drawing move; when losing,
    /// the move that resists longest (the first such in move order). `None`
    /// when the side to move has no move.
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Wdl)>, ProbeError> {
        self.best_move_with(pos, Wait::Yes)
    }

    /// [`Tablebase::best_move`] without reading any file (see
    /// [`Tablebase::probe_wdl_now`]), its search for distances bounded by
    /// `ROOT_SEARCH_BOUND` positions ([`ProbeError::Bound`] past it).
    pub fn best_move_now(&self, pos: &Position) -> Result<Option<(Move, Wdl)>, ProbeError> {
        self.best_move_with(pos, Wait::No)
    }

    fn best_move_with(
        &self,
        pos: &Position,
        wait: Wait,
    ) -> Result<Option<(Move, Wdl)>, ProbeError> {
        let mut s = Search::new(self, wait);
        let v = s.wdl(pos)?;
        let moves = pos.legal_moves();
        let best = match v {
            Wdl::Draw => {
                let mut found = None;
                for &m in moves.iter() {
                    if s.wdl(&pos.after(m))? == Wdl::Draw {
                        found = Some(m);
                        break;
                    }
                }
                found
            }
            Wdl::Win => {
                let d = s.win_distance(pos)?;
                let (mut found, mut first_win) = (None, None);
                for &m in moves.iter() {
                    let child = pos.after(m);
                    if s.wdl(&child)? != Wdl::Loss {
                        continue;
                    }
                    first_win.get_or_insert(m);
                    let quickest = if pos.is_irreversible(m) {
                        d == 1
                    } else {
                        d > 0 && s.loss_within(&child, d - 1)?
                    };
                    if quickest {
                        found = Some(m);
                        break;
                    }
                }
                // distances capped at 255 tie: the first winning move
                found.or(first_win)
            }
            Wdl::Loss => {
                let mut best: Option<(Move, u8)> = None;
                for &m in moves.iter() {
                    let plies = if pos.is_irreversible(m) {
                        1
                    } else {
                        s.win_distance(&pos.after(m))?.saturating_add(1)
                    };
                    if best.is_none_or(|(_, p)| plies > p) {
                        best = Some((m, plies));
                    }
                }
                best.map(|(m, _)| m)
            }
        };
        Ok(best.map(|m| (m, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> Tablebase {
        let mut tb = Tablebase::new();
        tb.add_builtin().unwrap();
        tb
    }

    #[test]
    fn a_bounded_search_gives_up_and_an_unbounded_one_answers() {
        let tb = builtin();
        // the first win of three kings against two whose distance (3 plies
        // or more) is searched
        let ix = crate::egdb::index::SliceIndex::new("bm0bk3wm0wk2".parse().unwrap());
        let (pos, d, nodes) = (0..ix.len())
            .filter_map(|i| ix.position(i))
            .filter(|p| !p.must_capture() && matches!(tb.probe_wdl(p), Ok(Wdl::Win)))
            .find_map(|p| {
                let mut s = Search::new(&tb, Wait::Yes);
                if s.stored(&p, Wdl::Win).unwrap().is_some() {
                    return None;
                }
                let d = s.win_distance(&p).unwrap();
                (d >= 3).then_some((p, d, s.nodes))
            })
            .expect("a searched win");
        assert!(d < SHORT_WIN && nodes > 1, "{d} in {nodes}");
        let mut bounded = Search::new(&tb, Wait::Yes);
        bounded.bound = 1;
        assert!(matches!(
            bounded.win_distance(&pos),
            Err(ProbeError::Bound(1))
        ));
        assert_eq!(tb.probe_dtc(&pos).unwrap(), (Wdl::Win, d));
    }
}
