//! The exact game-theoretic value of mini-checkers positions.
//!
//! Every mini-checkers game ends (every real move advances a piece, and a
//! `pass` only happens when the opponent can move), so the game tree is a
//! finite DAG and its value is known exactly: win, draw or loss for the side to
//! move, and how many plies the game lasts with best play.
//!
//! - [`GameValue`] is such a value, ordered from the mover's point of view.
//! - [`MiniSolver`] solves positions on demand and remembers every value it found.
//! - [`MiniTablebase::global`] is a shared, read-only table of every position
//!   reachable from the start position, built on first use, which also answers
//!   for positions outside it (from a FEN, say).
//!
//! A position is identified by its black men, white men and side to move
//! (mini-checkers has no kings; the Zobrist key is not used), and a position
//! with White to move shares its entry with its mirror image (board turned half
//! a turn, colours swapped), which has the same value.
//!
//! Solving the start position visits [`START_POSITIONS`] positions and takes
//! about 10 s and 200 MB (release build, one thread).

use crate::board::movegen;
use crate::board::{Color, Mini, Move, MoveList, Position, Variant};
use std::cmp::Ordering;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Mutex, OnceLock};

/// Who wins with best play, from the point of view of the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ValueKind {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl ValueKind {
    /// The lower-case word: `win`, `draw` or `loss`.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            ValueKind::Win => "win",
            ValueKind::Draw => "draw",
            ValueKind::Loss => "loss",
        }
    }
}

/// The exact value of a mini-checkers position for the side to move: the
/// result with best play and the number of plies (a `pass` is a ply) until
/// the game ends.
///
/// With best play the winner ends the game as soon as it can and the loser
/// makes it last as long as it can. A draw's `plies` is a convention: the
/// length of the shortest line to the end in which neither side ever plays a
/// move that gives up the draw (both sides prefer the shorter draw).
///
/// The order is "better for the side to move": a win sooner > a win later >
/// a shorter draw > a longer draw > a loss later > a loss sooner. So the value
/// of a position is the greatest of its moves' values.
///
/// Displays as `win 17`, `draw 30`, `loss 12`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GameValue {
    /// The result for the side to move.
    pub kind: ValueKind,
    /// Plies to the end of the game with best play.
    pub plies: u32,
}

impl GameValue {
    /// The side to move wins in `plies` plies.
    #[must_use]
    pub const fn win(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Win,
            plies,
        }
    }

    /// A draw, the game ending in `plies` plies.
    #[must_use]
    pub const fn draw(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Draw,
            plies,
        }
    }

    /// The side to move loses in `plies` plies.
    #[must_use]
    pub const fn loss(plies: u32) -> GameValue {
        GameValue {
            kind: ValueKind::Loss,
            plies,
        }
    }

    /// The same value seen by the other side (win and loss swap, plies stay).
    #[must_use]
    pub const fn flipped(self) -> GameValue {
        let kind = match self.kind {
            ValueKind::Win => ValueKind::Loss,
            ValueKind::Draw => ValueKind::Draw,
            ValueKind::Loss => ValueKind::Win,
        };
        GameValue {
            kind,
            plies: self.plies,
        }
    }

    /// The value of a move for the side that plays it, given `self`, the value
    /// of the position after the move (from the opponent's point of view).
    #[must_use]
    pub const fn before_move(self) -> GameValue {
        let v = self.flipped();
        GameValue {
            kind: v.kind,
            plies: v.plies + 1,
        }
    }

    /// The value of a finished game with `ours` pieces for the side to move and
    /// `theirs` for the other: more pieces wins, equal is a draw, 0 plies.
    #[must_use]
    pub const fn finished(ours: u32, theirs: u32) -> GameValue {
        if ours > theirs {
            GameValue::win(0)
        } else if ours < theirs {
            GameValue::loss(0)
        } else {
            GameValue::draw(0)
        }
    }

    /// Whether the side to move wins.
    #[must_use]
    pub const fn is_win(self) -> bool {
        matches!(self.kind, ValueKind::Win)
    }

    /// Whether the game is drawn.
    #[must_use]
    pub const fn is_draw(self) -> bool {
        matches!(self.kind, ValueKind::Draw)
    }

    /// Whether the side to move loses.
    #[must_use]
    pub const fn is_loss(self) -> bool {
        matches!(self.kind, ValueKind::Loss)
    }

    /// Packs into 16 bits for the tables (kind in the top two bits, never 0).
    const fn pack(self) -> u16 {
        let k = match self.kind {
            ValueKind::Loss => 1u16,
            ValueKind::Draw => 2,
            ValueKind::Win => 3,
        };
        (k << 14) | (self.plies as u16 & 0x3fff)
    }

    const fn unpack(p: u16) -> GameValue {
        let plies = (p & 0x3fff) as u32;
        match p >> 14 {
            3 => GameValue::win(plies),
            2 => GameValue::draw(plies),
            _ => GameValue::loss(plies),
        }
    }
}

impl Ord for GameValue {
    fn cmp(&self, other: &GameValue) -> Ordering {
        use ValueKind::{Draw, Loss, Win};
        let rank = |k: ValueKind| match k {
            Loss => 0,
            Draw => 1,
            Win => 2,
        };
        match (self.kind, other.kind) {
            (Win, Win) | (Draw, Draw) => other.plies.cmp(&self.plies),
            (Loss, Loss) => self.plies.cmp(&other.plies),
            (a, b) => rank(a).cmp(&rank(b)),
        }
    }
}

impl PartialOrd for GameValue {
    fn partial_cmp(&self, other: &GameValue) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for GameValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.word(), self.plies)
    }
}

/// The table key of a mini position: the men of the side to move in bits
/// 0-17 and the other side's in bits 18-35, both seen from Black's side of the
/// board (White's position is turned half a turn, square `i` to `17 - i`, which
/// maps the game onto itself with the colours swapped), and bit 37 set.
#[inline(always)]
fn key_of(pos: &Position) -> u64 {
    let b = pos.pieces(Color::Black).0;
    let w = pos.pieces(Color::White).0;
    let (us, them) = match pos.turn() {
        Color::Black => (b, w),
        Color::White => (turn_board(w), turn_board(b)),
    };
    u64::from(us) | (u64::from(them) << 18) | (1 << 37)
}

/// Turns an 18-square mini bitboard half a turn (square `i` to `17 - i`).
#[inline(always)]
const fn turn_board(b: u32) -> u32 {
    b.reverse_bits() >> 14
}

/// An open-addressing map from position keys to packed values, one `u64` a
/// slot (`key << 16 | value`, 0 for empty), linear probing, any number of
/// slots, at most 80% full.
#[derive(Clone)]
struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Table {
    const MIN_SLOTS: usize = 1 << 12;

    fn new() -> Table {
        Table::with_capacity(0)
    }

    /// A table that holds `n` values without growing.
    fn with_capacity(n: usize) -> Table {
        Table {
            slots: vec![0; Self::slots_for(n)],
            len: 0,
        }
    }

    fn slots_for(n: usize) -> usize {
        (n + n / 4 + 1).max(Self::MIN_SLOTS)
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((u128::from(h) * self.slots.len() as u128) >> 64) as usize
    }

    #[inline]
    fn get(&self, key: u64) -> Option<GameValue> {
        let n = self.slots.len();
        let mut i = self.home(key);
        loop {
            let e = self.slots[i];
            if e == 0 {
                return None;
            }
            if e >> 16 == key {
                return Some(GameValue::unpack(e as u16));
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// Asks the CPU to start loading `key`'s home slot.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots[self.home(key)..].as_ptr().cast::<i8>();
            // SAFETY: a prefetch is only a hint that never faults, and SSE is
            // part of every x86_64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Inserts a key known to be absent.
    #[inline]
    fn insert_new(&mut self, key: u64, v: GameValue) {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.resize(self.slots.len() * 2);
        }
        self.place((key << 16) | u64::from(v.pack()));
        self.len += 1;
    }

    #[inline]
    fn place(&mut self, entry: u64) {
        let n = self.slots.len();
        let mut i = self.home(entry >> 16);
        while self.slots[i] != 0 {
            i += 1;
            if i == n {
                i = 0;
            }
        }
        self.slots[i] = entry;
    }

    fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, vec![0; slots]);
        for e in old {
            if e != 0 {
                self.place(e);
            }
        }
    }

    fn shrink_to_fit(&mut self) {
        let want = Self::slots_for(self.len);
        if want < self.slots.len() {
            self.resize(want);
        }
    }

    fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u64>()
    }
}

/// The number of positions reachable from the start position (either side
/// first), as the table counts them: a position with White to move is stored
/// as its mirror image with Black to move.
pub const START_POSITIONS: usize = 20_261_946;

/// Most moves a mini position can have: two per piece off the far row.
const MAX_CHILDREN: usize = 32;

/// How often (in new positions) the progress callback is called.
const PROGRESS_EVERY: usize = 1 << 20;

/// Writes the children of `pos` to `out` and returns how many (0 when the game
/// is over). Kept out of line so the move list does not sit in every frame of
/// the recursion.
#[inline(never)]
fn children(pos: &Position, out: &mut [Position; MAX_CHILDREN]) -> usize {
    let mut list = MoveList::new();
    movegen::generate::<Mini>(pos, &mut list);
    debug_assert!(list.len() <= MAX_CHILDREN, "{pos}: too many moves");
    let n = list.len().min(MAX_CHILDREN);
    for (slot, &m) in out.iter_mut().zip(list.iter()) {
        let mut c = *pos;
        c.apply::<Mini, false>(m);
        *slot = c;
    }
    n
}

fn terminal_value(pos: &Position) -> GameValue {
    let us = pos.turn();
    GameValue::finished(pos.pieces(us).count(), pos.pieces(!us).count())
}

/// Memoised negamax over the game DAG; `memo` receives every new value,
/// `base` (read-only) is consulted first.
struct Search<'a> {
    memo: &'a mut Table,
    base: Option<&'a Table>,
    progress: Option<&'a mut dyn FnMut(usize)>,
    next_report: usize,
}

impl Search<'_> {
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        if let Some(b) = self.base {
            b.prefetch(key);
        }
        self.memo.prefetch(key);
    }

    #[inline(always)]
    fn known(&self, key: u64) -> Option<GameValue> {
        match self.base.and_then(|b| b.get(key)) {
            Some(v) => Some(v),
            None => self.memo.get(key),
        }
    }

    fn value(&mut self, pos: &Position) -> GameValue {
        let key = key_of(pos);
        match self.known(key) {
            Some(v) => v,
            None => self.solve_new(pos, key),
        }
    }

    /// Solves `pos`, whose value (key `key`) is not known yet.
    fn solve_new(&mut self, pos: &Position, key: u64) -> GameValue {
        let mut kids = [*pos; MAX_CHILDREN];
        let n = children(pos, &mut kids);
        let v = if n == 0 {
            terminal_value(pos)
        } else {
            // Prefetch every child's table slot first, so the reads overlap.
            let mut keys = [0u64; MAX_CHILDREN];
            for i in 0..n {
                keys[i] = key_of(&kids[i]);
                self.prefetch(keys[i]);
            }
            let mut vals = [None; MAX_CHILDREN];
            for i in 0..n {
                vals[i] = self.known(keys[i]);
            }
            let mut best = GameValue::loss(0);
            for i in 0..n {
                let v = match vals[i] {
                    Some(v) => v,
                    // A sibling's subtree may have solved it since.
                    None => match self.known(keys[i]) {
                        Some(v) => v,
                        None => self.solve_new(&kids[i], keys[i]),
                    },
                };
                best = best.max(v.before_move());
            }
            best
        };
        self.memo.insert_new(key, v);
        if self.memo.len >= self.next_report {
            self.next_report += PROGRESS_EVERY;
            if let Some(f) = self.progress.as_mut() {
                f(self.memo.len);
            }
        }
        v
    }
}

fn assert_mini(pos: &Position) {
    assert!(
        pos.variant() == Variant::Mini,
        "the solver only knows mini-checkers, not {}",
        pos.variant()
    );
}

/// Each legal move with its value for the mover, best first.
fn move_values_with(
    pos: &Position,
    mut value: impl FnMut(&Position) -> GameValue,
) -> Vec<(Move, GameValue)> {
    assert_mini(pos);
    let mut out: Vec<(Move, GameValue)> = pos
        .legal_moves()
        .iter()
        .map(|&m| (m, value(&pos.after(m)).before_move()))
        .collect();
    out.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
    out
}

/// A mini-checkers solver that remembers the value of every position it has
/// solved, so later questions about them are table lookups.
///
/// All methods panic if given a position of another variant.
#[derive(Clone)]
pub struct MiniSolver {
    table: Table,
}

impl Default for MiniSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MiniSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniSolver")
            .field("positions", &self.table.len)
            .finish()
    }
}

impl MiniSolver {
    /// A solver that knows nothing yet.
    #[must_use]
    pub fn new() -> MiniSolver {
        MiniSolver {
            table: Table::new(),
        }
    }

    /// A solver with room for `positions` values before its table grows
    /// ([`START_POSITIONS`] for the whole game).
    #[must_use]
    pub fn with_capacity(positions: usize) -> MiniSolver {
        MiniSolver {
            table: Table::with_capacity(positions),
        }
    }

    /// The exact value of `pos` for its side to move.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn value(&mut self, pos: &Position) -> GameValue {
        self.value_with_progress(pos, &mut |_| {})
    }

    /// [`MiniSolver::value`], calling `progress` with the number of positions
    /// known so far every million or so new positions.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn value_with_progress(
        &mut self,
        pos: &Position,
        progress: &mut dyn FnMut(usize),
    ) -> GameValue {
        assert_mini(pos);
        let next_report = (self.table.len / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
        Search {
            memo: &mut self.table,
            base: None,
            progress: Some(progress),
            next_report,
        }
        .value(pos)
    }

    /// Every legal move of `pos` with its value for the side to move (the value
    /// of the position it leads to, seen from the mover), best first. Empty
    /// when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn move_values(&mut self, pos: &Position) -> Vec<(Move, GameValue)> {
        move_values_with(pos, |c| self.value(c))
    }

    /// A best move of `pos` (the first of [`MiniSolver::move_values`]), or
    /// `None` when the game is over.
    ///
    /// # Panics
    /// If `pos` is not a mini-checkers position.
    pub fn best_move(&mut self, pos: &Position) -> Option<Move> {
        self.move_values(pos).first().map(|&(m, _)| m)
    }

    /// The number of positions whose value is known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.table.len
    }

    /// Whether no position has been solved yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.table.len == 0
    }

    /// Bytes of memory the value table occupies.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }
}

static GLOBAL: OnceLock<MiniTablebase> = OnceLock::new();

/// The values of every position reachable from the mini start position (either
/// side to move first), shared read-only between threads, plus a locked cache
/// for positions outside that set.
///
/// All methods panic if given a position of another variant.
pub struct MiniTablebase {
    main: Table,
    extra: Mutex<Table>,
}

impl fmt::Debug for MiniTablebase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniTablebase")
            .field("positions", &self.main.len)
            .finish_non_exhaustive()
    }
}

impl MiniTablebase {
    /// Solves every position reachable from the start position, with Black
    /// and with White to move first, calling `progress` with the number of
    /// positions so far every million or so.
    #[must_use]
    pub fn build(progress: &mut dyn FnMut(usize)) -> MiniTablebase {
        let mut s = MiniSolver::with_capacity(START_POSITIONS);
        let start = Position::startpos(Variant::Mini);
        s.value_with_progress(&start, progress);
        s.value_with_progress(&start.with_turn(Color::White), progress);
        let mut main = s.table;
        main.shrink_to_fit();
        MiniTablebase {
            main,
            extra: Mutex::new(Table::new()),
        }
    }

    /// The process-wide tablebase, built (silently) by the first caller; the
    /// build takes about 10 s in a release build (200 MB) and other callers
    /// wait for it.
    #[must_use]
    pub fn global() -> &'static MiniTablebase {
        GLOBAL.get_or_init(|| MiniTablebase::build(&mut |_| {}))
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
            std::thread::Builder::new()
                .name("mini-tablebase".into())
                .spawn(|| {
                    let _ = MiniTablebase::global();
                })
                .expect("spawn the tablebase thread");
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
        self.main.len
    }

    /// Whether the precomputed set is empty (never, once built).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.main.len == 0
    }

    /// Bytes of memory the precomputed table occupies.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.main.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(Variant::Mini, fen).expect("test FEN")
    }

    #[test]
    fn order_is_better_for_the_mover() {
        // Best first.
        let ranked = [
            GameValue::win(1),
            GameValue::win(7),
            GameValue::draw(0),
            GameValue::draw(12),
            GameValue::loss(30),
            GameValue::loss(2),
            GameValue::loss(0),
        ];
        for (i, a) in ranked.iter().enumerate() {
            for (j, b) in ranked.iter().enumerate() {
                assert_eq!(a.cmp(b), j.cmp(&i), "{a} vs {b}");
            }
        }
        assert_eq!(ranked.iter().max(), Some(&GameValue::win(1)));
    }

    #[test]
    fn flip_pack_and_display() {
        assert_eq!(GameValue::loss(4).before_move(), GameValue::win(5));
        assert_eq!(GameValue::win(4).before_move(), GameValue::loss(5));
        assert_eq!(GameValue::draw(4).before_move(), GameValue::draw(5));
        assert_eq!(GameValue::win(3).flipped(), GameValue::loss(3));
        for v in [GameValue::win(17), GameValue::draw(30), GameValue::loss(12)] {
            assert_eq!(GameValue::unpack(v.pack()), v);
        }
        assert_eq!(GameValue::win(17).to_string(), "win 17");
        assert_eq!(GameValue::draw(30).to_string(), "draw 30");
        assert_eq!(GameValue::loss(12).to_string(), "loss 12");
    }

    // Board, from RULES.md: row 0 = 1,2,3 (cols 1,3,5); row 1 = 4,5,6 (cols 0,2,4);
    // row 2 = 7,8,9 (cols 1,3,5); row 3 = 10,11,12 (cols 0,2,4);
    // row 4 = 13,14,15 (cols 1,3,5); row 5 = 16,17,18 (cols 0,2,4).
    // Black moves down, White up.

    #[test]
    fn finished_games() {
        let mut s = MiniSolver::new();
        // White has no pieces: the game is over and Black, to move, has won.
        assert_eq!(s.value(&pos("B:W:B1")), GameValue::win(0));
        // White to move with no pieces has lost.
        assert_eq!(s.value(&pos("W:W:B1")), GameValue::loss(0));
        // Both men on their far rows: nobody can move, 1 v 1, a draw.
        assert_eq!(s.value(&pos("B:W1:B16")), GameValue::draw(0));
        assert!(s.move_values(&pos("B:W1:B16")).is_empty());
        assert_eq!(s.best_move(&pos("B:W1:B16")), None);
    }

    #[test]
    fn one_against_one_capture() {
        let mut s = MiniSolver::new();
        // Black 8 (r2,c3) must capture White 11 (r3,c2), landing on 13 (r4,c1):
        // White has no pieces left. Win in 1.
        let p = pos("B:W11:B8");
        assert_eq!(s.value(&p), GameValue::win(1));
        let mv = s.move_values(&p);
        assert_eq!(mv.len(), 1);
        assert_eq!(mv[0].0.to_string(), "8x13");
        // Black 8 against White 14 (r4,c3), Black to move: 8-11 (r3,c2) is taken by
        // 14x7 and 8-12 (r3,c4) by 14x9; either way Black is gone after 2 plies.
        let p = pos("B:W14:B8");
        assert_eq!(s.value(&p), GameValue::loss(2));
        let mv = s.move_values(&p);
        assert_eq!(mv.len(), 2);
        assert!(mv.iter().all(|&(_, v)| v == GameValue::loss(2)));
        // The same with White to move: White walks into Black's capture.
        assert_eq!(s.value(&pos("W:W14:B8")), GameValue::loss(2));
    }

    #[test]
    fn pass_then_count_pieces() {
        let mut s = MiniSolver::new();
        // Black 16 is on its far row and can't move; White 4 (r1,c0) can go to 1.
        // Black passes, White plays 4-1, then nobody can move: 1 v 1, a draw in 2.
        let p = pos("B:W4:B16");
        assert_eq!(s.value(&p), GameValue::draw(2));
        let mv = s.move_values(&p);
        assert_eq!(mv.len(), 1);
        assert!(mv[0].0.is_pass());
        assert_eq!(mv[0].1, GameValue::draw(2));
        // With two stuck black men (16, 17) the same line ends 2 v 1: Black wins in 2.
        assert_eq!(s.value(&pos("B:W4:B16,17")), GameValue::win(2));
        // And White, to move after the pass, loses in 1.
        assert_eq!(s.value(&pos("W:W4:B16,17")), GameValue::loss(1));
    }

    #[test]
    fn capture_is_forced() {
        let mut s = MiniSolver::new();
        // Black 7 (r2,c1) and 9 (r2,c5); White 11 (r3,c2). 7 jumps 11 to 14 (r4,c3)
        // and must: 9-12 is not allowed while a capture exists. The jump takes
        // White's last piece: a win in 1, by the only legal move.
        let p = pos("B:W11:B7,9");
        assert_eq!(s.value(&p), GameValue::win(1));
        let mv = s.move_values(&p);
        assert_eq!(mv.len(), 1);
        assert_eq!(mv[0], (s.best_move(&p).unwrap(), GameValue::win(1)));
        assert_eq!(mv[0].0.to_string(), "7x14");
    }

    #[test]
    fn tablebase_answers_outside_positions() {
        // A position the start can't reach (three black men on the far row)
        // goes through the locked cache and agrees with a fresh solver.
        let tb = MiniTablebase {
            main: Table::new(),
            extra: Mutex::new(Table::new()),
        };
        let p = pos("W:W13,14:B16,17,18");
        let mut s = MiniSolver::new();
        assert_eq!(tb.value(&p), s.value(&p));
        assert_eq!(tb.move_values(&p), s.move_values(&p));
    }

    #[test]
    fn table_grows_and_shrinks() {
        let mut t = Table::new();
        for k in 0..100_000u64 {
            t.insert_new(k | (1 << 37), GameValue::draw((k % 100) as u32));
        }
        t.shrink_to_fit();
        for k in 0..100_000u64 {
            assert_eq!(
                t.get(k | (1 << 37)),
                Some(GameValue::draw((k % 100) as u32))
            );
        }
        assert_eq!(t.get(100_001 | (1 << 37)), None);
    }
}
