//! Legal move generation, generic over [`Rules`].
//!
//! Captures are generated first, and quiet moves only when there are none.
//! English capture sequences are followed depth-first (a man that is crowned
//! stops); mini-checkers captures are single jumps, and a side with no move
//! whose opponent can still move gets the `pass` move.

use super::variant::crown_row;
use super::{Color, Move, MoveList, Position, Rules};
use crate::with_rules;

pub(crate) const DL: u8 = 0;
pub(crate) const DR: u8 = 1;
pub(crate) const UL: u8 = 2;
pub(crate) const UR: u8 = 3;

/// One step in direction `d` (DL, DR, UL, UR) for every square of `b`.
#[inline(always)]
pub(crate) fn step<R: Rules>(b: u32, d: u8) -> u32 {
    match d {
        DL => R::down_left(b),
        DR => R::down_right(b),
        UL => R::up_left(b),
        _ => R::up_right(b),
    }
}

/// The opposite direction.
#[inline(always)]
pub(crate) const fn reverse(d: u8) -> u8 {
    d ^ 3
}

/// The two forward directions of `color`'s men.
#[inline(always)]
pub(crate) const fn forward(color: Color) -> [u8; 2] {
    match color {
        Color::Black => [DL, DR],
        Color::White => [UL, UR],
    }
}

/// Where generated moves go: a list, or a counter.
pub(crate) trait Sink {
    fn emit(&mut self, from: u8, to: u8, len: u8, captured: u32, path: u64);
}

impl Sink for MoveList {
    #[inline(always)]
    fn emit(&mut self, from: u8, to: u8, len: u8, captured: u32, path: u64) {
        self.push(Move::capture_raw(from, to, len, captured, path));
    }
}

/// The side's pieces split for generation.
#[derive(Clone, Copy)]
pub(super) struct Sides {
    pub(super) men: u32,
    pub(super) kings: u32,
    pub(super) opp: u32,
    pub(super) empty: u32,
    pub(super) color: Color,
}

impl Sides {
    #[inline(always)]
    pub(super) fn of<R: Rules>(pos: &Position) -> Sides {
        let own = pos.pieces(pos.turn()).0;
        let opp = pos.pieces(!pos.turn()).0;
        let kings = pos.kings().0 & own;
        Sides {
            men: own & !kings,
            kings,
            opp,
            empty: R::ALL & !(own | opp),
            color: pos.turn(),
        }
    }

    /// The opponent's side after our piece moved (`moved`: its start and end
    /// squares, none if it came back to its start) taking `captured`; `their_kings`
    /// are the opponent's kings before. Our kings are not tracked: the opponent's
    /// moves don't depend on them.
    #[inline(always)]
    pub(super) fn reply(&self, their_kings: u32, moved: u32, captured: u32) -> Sides {
        Sides {
            men: self.opp & !their_kings & !captured,
            kings: their_kings & !captured,
            opp: (self.men | self.kings) ^ moved,
            empty: (self.empty | captured) ^ moved,
            color: !self.color,
        }
    }
}

/// Squares of `movers` that can jump in direction `d`.
#[inline(always)]
pub(super) fn jumpers<R: Rules>(movers: u32, d: u8, opp: u32, empty: u32) -> u32 {
    let r = reverse(d);
    step::<R>(step::<R>(empty, r) & opp, r) & movers
}

#[inline(always)]
pub(super) fn has_capture<R: Rules>(s: &Sides) -> bool {
    Jumpers::of::<R>(s).any()
}

/// Of the (man's) landing squares `land`, those from which a man of the side
/// to move jumps on. A man's later jumps go further forward, so they never pass
/// its start square or a piece it has taken: the board's sets will do.
#[inline(always)]
pub(super) fn men_jump_on<R: Rules>(s: &Sides, land: u32) -> u32 {
    let [a, b] = forward(s.color);
    jumpers::<R>(land, a, s.opp, s.empty) | jumpers::<R>(land, b, s.opp, s.empty)
}

/// The jump from `cur` in direction `d` over an untaken opponent's piece onto an
/// empty square, as (taken piece, landing square), if there is one.
#[inline(always)]
pub(super) fn jump<R: Rules>(
    cur: u32,
    d: u8,
    captured: u32,
    opp: u32,
    empty: u32,
) -> Option<(u32, u32)> {
    let mid = step::<R>(cur, d) & opp & !captured;
    let land = step::<R>(mid, d) & empty;
    (land != 0).then_some((mid, land))
}

/// Follows every capture sequence of the piece now on `cur` (a bit).
#[allow(clippy::too_many_arguments)]
#[inline]
fn jump_dfs<R: Rules, const KING: bool, S: Sink>(
    sink: &mut S,
    color: Color,
    from: u8,
    cur: u32,
    captured: u32,
    opp: u32,
    empty: u32,
    path: u64,
    len: u8,
) {
    let mut extended = false;
    let fwd = forward(color);
    let dirs: &[u8] = if KING { &[DL, DR, UL, UR] } else { &fwd };
    for &d in dirs {
        let Some((mid, land)) = jump::<R>(cur, d, captured, opp, empty) else {
            continue;
        };
        extended = true;
        let li = land.trailing_zeros() as u8;
        let npath = path | ((li as u64) << (5 * len as u64));
        let ncap = captured | mid;
        if !R::KINGS_AND_MULTI_JUMPS || (!KING && land & crown_row::<R>(color) != 0) {
            sink.emit(from, li, len + 1, ncap, npath);
        } else {
            jump_dfs::<R, KING, S>(sink, color, from, land, ncap, opp, empty, npath, len + 1);
        }
    }
    if !extended && len > 0 {
        sink.emit(from, cur.trailing_zeros() as u8, len, captured, path);
    }
}

/// Every capture sequence of the side to move, given its first jumps `j`.
#[inline(always)]
pub(super) fn gen_captures<R: Rules, S: Sink>(s: &Sides, j: &Jumpers, sink: &mut S) {
    // only pieces with a first jump can start a capture sequence
    let [a, b] = forward(s.color);
    let [ja, jb] = j.fwd;
    let fwd_jumpers = ja | jb;
    let crown = crown_row::<R>(s.color);
    let mut men = fwd_jumpers & s.men;
    while men != 0 {
        let bit = men & men.wrapping_neg();
        men ^= bit;
        let from = bit.trailing_zeros() as u8;
        // the first jump is taken here; only a landing with a further jump
        // (which never passes the start square or the taken piece) needs the search
        for (d, jd) in [(a, ja), (b, jb)] {
            if jd & bit == 0 {
                continue;
            }
            let mid = step::<R>(bit, d);
            let land = step::<R>(mid, d);
            let li = land.trailing_zeros() as u8;
            let ends =
                !R::KINGS_AND_MULTI_JUMPS || land & crown != 0 || men_jump_on::<R>(s, land) == 0;
            if ends {
                sink.emit(from, li, 1, mid, u64::from(li));
            } else {
                jump_dfs::<R, false, S>(
                    sink,
                    s.color,
                    from,
                    land,
                    mid,
                    s.opp,
                    s.empty | bit,
                    u64::from(li),
                    1,
                );
            }
        }
    }
    let mut kings = (fwd_jumpers | j.back) & s.kings;
    while kings != 0 {
        let b = kings & kings.wrapping_neg();
        kings ^= b;
        let from = b.trailing_zeros() as u8;
        jump_dfs::<R, true, S>(sink, s.color, from, b, 0, s.opp, s.empty | b, 0, 0);
    }
}

#[inline]
fn gen_quiets<R: Rules>(s: &Sides, list: &mut MoveList) {
    for_each_quiet::<R>(s, |from, to| {
        let (from, to) = (from.trailing_zeros() as u8, to.trailing_zeros() as u8);
        list.push(Move::capture_raw(from, to, 1, 0, to as u64));
    });
}

/// Each direction with the pieces that may step in it, in generation order: both
/// forward directions for every piece, then backward for kings.
#[inline(always)]
pub(super) fn step_directions(s: &Sides) -> [(u8, u32); 4] {
    let all = s.men | s.kings;
    let fwd = forward(s.color);
    let bwd = forward(!s.color);
    [
        (fwd[0], all),
        (fwd[1], all),
        (bwd[0], s.kings),
        (bwd[1], s.kings),
    ]
}

/// Calls `f(from, to)` (single bits) for every quiet step of the side to move, in
/// generation order: both forward directions for every piece, then backward for kings.
#[inline(always)]
pub(super) fn for_each_quiet<R: Rules>(s: &Sides, mut f: impl FnMut(u32, u32)) {
    for (d, movers) in step_directions(s) {
        if movers == 0 {
            continue;
        }
        let mut targets = step::<R>(movers, d) & s.empty;
        let r = reverse(d);
        while targets != 0 {
            let t = targets & targets.wrapping_neg();
            targets ^= t;
            f(step::<R>(t, r), t);
        }
    }
}

#[inline(always)]
pub(super) fn count_quiets<R: Rules>(s: &Sides) -> u64 {
    let all = s.men | s.kings;
    let [a, b] = forward(s.color);
    let mut n =
        (step::<R>(all, a) & s.empty).count_ones() + (step::<R>(all, b) & s.empty).count_ones();
    if s.kings != 0 {
        let [c, d] = forward(!s.color);
        n += (step::<R>(s.kings, c) & s.empty).count_ones()
            + (step::<R>(s.kings, d) & s.empty).count_ones();
    }
    n as u64
}

/// Whether the side to move has a quiet step (no counting).
#[inline(always)]
fn has_quiet<R: Rules>(s: &Sides) -> bool {
    step_directions(s)
        .into_iter()
        .any(|(d, movers)| step::<R>(movers, d) & s.empty != 0)
}

/// Whether the game is over in mini-checkers because a side has no pieces.
#[inline(always)]
pub(super) fn mini_someone_empty(pos: &Position) -> bool {
    pos.pieces(Color::Black).0 == 0 || pos.pieces(Color::White).0 == 0
}

/// Whether the side to move has a move other than `pass`.
#[inline]
pub(crate) fn has_real_move<R: Rules>(pos: &Position) -> bool {
    let s = Sides::of::<R>(pos);
    has_quiet::<R>(&s) || has_capture::<R>(&s)
}

/// Whether the side to move may only pass (mini-checkers).
#[inline]
pub(super) fn mini_must_pass<R: Rules>(pos: &Position) -> bool {
    !mini_someone_empty(pos) && has_real_move::<R>(&pos.with_turn(!pos.turn()))
}

/// Every legal move, with every capture path (duplicates kept).
pub(crate) fn generate<R: Rules>(pos: &Position, list: &mut MoveList) {
    list.clear();
    if !R::KINGS_AND_MULTI_JUMPS && mini_someone_empty(pos) {
        return;
    }
    let s = Sides::of::<R>(pos);
    let j = Jumpers::of::<R>(&s);
    if j.any() {
        gen_captures::<R, MoveList>(&s, &j, list);
        return;
    }
    gen_quiets::<R>(&s, list);
    if !R::KINGS_AND_MULTI_JUMPS && list.is_empty() && mini_must_pass::<R>(pos) {
        list.push(Move::PASS);
    }
}

/// Whether the side to move has (a capture, a quiet move), without generating them.
#[inline]
pub(crate) fn move_kinds<R: Rules>(pos: &Position) -> (bool, bool) {
    let s = Sides::of::<R>(pos);
    (has_capture::<R>(&s), has_quiet::<R>(&s))
}

/// Whether the side to move has a capture.
pub(crate) fn can_capture<R: Rules>(pos: &Position) -> bool {
    let s = Sides::of::<R>(pos);
    has_capture::<R>(&s)
}

/// Whether the side not to move would have a capture if it were to move.
pub(crate) fn threatens_capture<R: Rules>(pos: &Position) -> bool {
    let color = !pos.turn();
    let own = pos.pieces(color).0;
    let opp = pos.pieces(pos.turn()).0;
    let kings = pos.kings().0 & own;
    has_capture::<R>(&Sides {
        men: own & !kings,
        kings,
        opp,
        empty: R::ALL & !(own | opp),
        color,
    })
}

/// The side's first jumps: the men and kings that can jump forward in each of the
/// two forward directions, and the kings that can jump backward.
#[derive(Clone, Copy)]
pub(super) struct Jumpers {
    pub(super) fwd: [u32; 2],
    pub(super) back: u32,
}

impl Jumpers {
    #[inline(always)]
    pub(super) fn of<R: Rules>(s: &Sides) -> Jumpers {
        let [a, b] = forward(s.color);
        let all = s.men | s.kings;
        let fwd = [
            jumpers::<R>(all, a, s.opp, s.empty),
            jumpers::<R>(all, b, s.opp, s.empty),
        ];
        let back = if s.kings != 0 {
            let [c, d] = forward(!s.color);
            jumpers::<R>(s.kings, c, s.opp, s.empty) | jumpers::<R>(s.kings, d, s.opp, s.empty)
        } else {
            0
        };
        Jumpers { fwd, back }
    }

    #[inline(always)]
    pub(super) fn any(&self) -> bool {
        (self.fwd[0] | self.fwd[1] | self.back) != 0
    }
}

impl Position {
    /// Fills `list` (cleared first) with the legal moves, every capture path
    /// listed: for loops over many positions, where returning a fresh
    /// `MoveList` (a 256-move array) by value would copy it each time.
    pub fn legal_moves_all_paths_into(&self, list: &mut MoveList) {
        list.clear();
        with_rules!(self.variant(), R => generate::<R>(self, list));
    }

    /// Whether the side to move must capture.
    #[must_use]
    pub fn must_capture(&self) -> bool {
        with_rules!(self.variant(), R => can_capture::<R>(self))
    }

    /// Whether the side not to move would have a capture if it were its turn
    /// (a threat the side to move faces).
    #[must_use]
    pub fn threatened(&self) -> bool {
        with_rules!(self.variant(), R => threatens_capture::<R>(self))
    }
}
