//! Legal move generation, generic over [`Rules`].
//!
//! Captures are generated first, and quiet moves only when there are none.
//! English capture sequences are followed depth-first (a man that is crowned
//! stops); mini-checkers captures are single jumps, and a side with no move
//! whose opponent can still move gets the `pass` move.

use super::{Color, Move, MoveList, Position, Rules};

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

/// Crowning row of `color`'s men.
#[inline(always)]
pub(crate) fn crown_row<R: Rules>(color: Color) -> u32 {
    match color {
        Color::Black => R::BOTTOM,
        Color::White => R::TOP,
    }
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
struct Sides {
    men: u32,
    kings: u32,
    opp: u32,
    empty: u32,
    color: Color,
}

impl Sides {
    #[inline(always)]
    fn of<R: Rules>(pos: &Position) -> Sides {
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
    fn reply(&self, their_kings: u32, moved: u32, captured: u32) -> Sides {
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
fn jumpers<R: Rules>(movers: u32, d: u8, opp: u32, empty: u32) -> u32 {
    let r = reverse(d);
    step::<R>(step::<R>(empty, r) & opp, r) & movers
}

#[inline(always)]
fn has_capture<R: Rules>(s: &Sides) -> bool {
    Jumpers::of::<R>(s).any()
}

/// Of the (man's) landing squares `land`, those from which a man of the side
/// to move jumps on. A man's later jumps go further forward, so they never pass
/// its start square or a piece it has taken: the board's sets will do.
#[inline(always)]
fn men_jump_on<R: Rules>(s: &Sides, land: u32) -> u32 {
    let [a, b] = forward(s.color);
    jumpers::<R>(land, a, s.opp, s.empty) | jumpers::<R>(land, b, s.opp, s.empty)
}

/// The jump from `cur` in direction `d` over an untaken opponent's piece onto an
/// empty square, as (taken piece, landing square), if there is one.
#[inline(always)]
fn jump<R: Rules>(cur: u32, d: u8, captured: u32, opp: u32, empty: u32) -> Option<(u32, u32)> {
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
fn gen_captures<R: Rules, S: Sink>(s: &Sides, j: &Jumpers, sink: &mut S) {
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
fn step_directions(s: &Sides) -> [(u8, u32); 4] {
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
fn for_each_quiet<R: Rules>(s: &Sides, mut f: impl FnMut(u32, u32)) {
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
fn count_quiets<R: Rules>(s: &Sides) -> u64 {
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
fn mini_someone_empty(pos: &Position) -> bool {
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
fn mini_must_pass<R: Rules>(pos: &Position) -> bool {
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

/// Capture sequences continuing from `cur` (1 when none continues: the move ends here).
#[inline]
fn count_from<R: Rules, const KING: bool>(
    color: Color,
    cur: u32,
    captured: u32,
    opp: u32,
    empty: u32,
) -> u64 {
    let fwd = forward(color);
    let dirs: &[u8] = if KING { &[DL, DR, UL, UR] } else { &fwd };
    let mut n = 0;
    for &d in dirs {
        let Some((mid, land)) = jump::<R>(cur, d, captured, opp, empty) else {
            continue;
        };
        n += if !KING && land & crown_row::<R>(color) != 0 {
            1
        } else {
            count_from::<R, KING>(color, land, captured | mid, opp, empty)
        };
    }
    n.max(1)
}

/// The side's first jumps: the men and kings that can jump forward in each of the
/// two forward directions, and the kings that can jump backward.
#[derive(Clone, Copy)]
struct Jumpers {
    fwd: [u32; 2],
    back: u32,
}

impl Jumpers {
    #[inline(always)]
    fn of<R: Rules>(s: &Sides) -> Jumpers {
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
    fn any(&self) -> bool {
        (self.fwd[0] | self.fwd[1] | self.back) != 0
    }
}

/// The number of capture sequences (every path), without building moves.
///
/// Men's first jumps are taken for all men at once: a man whose landing square
/// offers no further jump (or crowns) makes exactly one sequence; only landings
/// with a continuation are followed one by one.
#[inline(always)]
fn count_captures<R: Rules>(s: &Sides, j: &Jumpers) -> u64 {
    if !R::KINGS_AND_MULTI_JUMPS {
        return u64::from(j.fwd[0].count_ones() + j.fwd[1].count_ones());
    }
    let fwd = forward(s.color);
    let crown = crown_row::<R>(s.color);
    let mut n = 0;
    for (d, jd) in fwd.into_iter().zip(j.fwd) {
        let land = step::<R>(step::<R>(jd & s.men, d), d);
        let mut more = men_jump_on::<R>(s, land & !crown);
        n += u64::from((land & !more).count_ones());
        let r = reverse(d);
        while more != 0 {
            let l = more & more.wrapping_neg();
            more ^= l;
            n += count_from::<R, false>(s.color, l, step::<R>(l, r), s.opp, s.empty);
        }
    }
    let mut kings = (j.fwd[0] | j.fwd[1] | j.back) & s.kings;
    while kings != 0 {
        let b = kings & kings.wrapping_neg();
        kings ^= b;
        n += count_from::<R, true>(s.color, b, 0, s.opp, s.empty | b);
    }
    n
}

/// A sink that plays each capture on a copy of the position and hands the child on.
struct Children<'a, R: Rules, F: FnMut(&Position)> {
    pos: &'a Position,
    f: F,
    rules: std::marker::PhantomData<R>,
}

impl<R: Rules, F: FnMut(&Position)> Sink for Children<'_, R, F> {
    #[inline(always)]
    fn emit(&mut self, from: u8, to: u8, _len: u8, captured: u32, _path: u64) {
        let mut c = *self.pos;
        c.play_unhashed::<R>(1 << from, 1 << to, captured);
        (self.f)(&c);
    }
}

/// Calls `f` with every child of `pos` (every capture path), in generation order,
/// without a move list; the children's keys are stale (perft only). English only:
/// mini-checkers' passes and ends need [`generate`].
#[inline(always)]
pub(crate) fn for_each_child<R: Rules>(pos: &Position, mut f: impl FnMut(&Position)) {
    debug_assert!(R::KINGS_AND_MULTI_JUMPS);
    let s = Sides::of::<R>(pos);
    let j = Jumpers::of::<R>(&s);
    if j.any() {
        let mut sink = Children::<R, _> {
            pos,
            f,
            rules: std::marker::PhantomData,
        };
        gen_captures::<R, _>(&s, &j, &mut sink);
        return;
    }
    for_each_quiet::<R>(&s, |from, to| {
        let mut c = *pos;
        c.play_unhashed::<R>(from, to, 0);
        f(&c);
    });
}

/// A sink that adds the bulk count of the opponent's reply to each capture of
/// `s` (perft at depth 2 without a move list or child positions).
struct CountReplies<R: Rules> {
    s: Sides,
    their_kings: u32,
    n: u64,
    rules: std::marker::PhantomData<R>,
}

impl<R: Rules> Sink for CountReplies<R> {
    #[inline(always)]
    fn emit(&mut self, from: u8, to: u8, _len: u8, captured: u32, _path: u64) {
        let moved = (1 << from) ^ (1 << to);
        self.n += count_sides::<R>(&self.s.reply(self.their_kings, moved, captured));
    }
}

/// Perft at depth 2: the sum of the bulk counts of every child. Moves are played
/// on the bitboards of the opponent's reply, with no move list and no child
/// positions (the opponent's move count does not care whether our man was crowned).
#[inline(always)]
pub(crate) fn count_depth2<R: Rules>(pos: &Position) -> u64 {
    if !R::KINGS_AND_MULTI_JUMPS {
        // mini: passes and empty sides; rare and cheap enough the plain way
        let mut list = MoveList::new();
        generate::<R>(pos, &mut list);
        return list
            .iter()
            .map(|&m| {
                let mut c = *pos;
                c.apply::<R, false>(m);
                count::<R>(&c)
            })
            .sum();
    }
    let mut s = Sides::of::<R>(pos);
    let their_kings = pos.kings().0 & s.opp;
    // one copy of the body per colour, so directions are constants in each
    match s.color {
        Color::Black => {
            s.color = Color::Black;
            count_depth2_sides::<R>(s, their_kings)
        }
        Color::White => {
            s.color = Color::White;
            count_depth2_sides::<R>(s, their_kings)
        }
    }
}

#[inline(always)]
fn count_depth2_sides<R: Rules>(s: Sides, their_kings: u32) -> u64 {
    let j = Jumpers::of::<R>(&s);
    if j.any() {
        let mut sink = CountReplies::<R> {
            s,
            their_kings,
            n: 0,
            rules: std::marker::PhantomData,
        };
        gen_captures::<R, _>(&s, &j, &mut sink);
        return sink.n;
    }
    let mut n = 0;
    let reply_steps = ReplySteps::of::<R>(&s, their_kings);
    // when the opponent can capture already, every reply is counted in full
    let all_capture = reply_steps.can_capture(&s);
    for (d, movers) in step_directions(&s) {
        if movers == 0 {
            continue;
        }
        let to = step::<R>(movers, d) & s.empty;
        let r = reverse(d);
        let mut capturing = if all_capture {
            to
        } else {
            to & reply_steps.captures_after_step::<R>(d)
        };
        let quiet = to & !capturing;
        let from = step::<R>(quiet, r);
        n += u64::from(quiet.count_ones()) * reply_steps.quiets;
        n += u64::from(reply_steps.onto(from));
        n -= u64::from(reply_steps.onto(quiet));
        while capturing != 0 {
            let t = capturing & capturing.wrapping_neg();
            capturing ^= t;
            let moved = t | step::<R>(t, r);
            n += count_sides::<R>(&s.reply(their_kings, moved, 0));
        }
    }
    n
}

/// The opponent's one-step reach in a position where we are to move and have
/// no capture: enough to count the opponent's replies to each of our quiet
/// moves without playing them (a quiet move changes only two squares).
struct ReplySteps {
    /// Squares the opponent's pieces could step onto in each direction (empty or not).
    onto: [u32; 4],
    /// The opponent's quiet moves here.
    quiets: u64,
    /// Squares where our piece would be jumped: an opponent's piece behind it and
    /// an empty square beyond it in some direction.
    exposed: u32,
    /// Squares that, emptied, become an opponent's landing square: beyond one of
    /// our pieces with an opponent's piece behind it.
    landings: u32,
}

impl ReplySteps {
    #[inline(always)]
    fn of<R: Rules>(s: &Sides, their_kings: u32) -> ReplySteps {
        let mut onto = [0u32; 4];
        for d in forward(!s.color) {
            onto[d as usize] = step::<R>(s.opp, d);
        }
        if their_kings != 0 {
            for d in forward(s.color) {
                onto[d as usize] = step::<R>(their_kings, d);
            }
        }
        let ours = s.men | s.kings;
        let (mut quiets, mut exposed, mut landings) = (0, 0, 0);
        for (d, &o) in onto.iter().enumerate() {
            let d = d as u8;
            quiets += (o & s.empty).count_ones();
            exposed |= o & step::<R>(s.empty, reverse(d));
            landings |= step::<R>(o & ours, d);
        }
        ReplySteps {
            onto,
            quiets: u64::from(quiets),
            exposed,
            landings,
        }
    }

    /// Whether the opponent has a capture here.
    #[inline(always)]
    fn can_capture(&self, s: &Sides) -> bool {
        self.exposed & (s.men | s.kings) != 0
    }

    /// The target squares of our quiet steps in direction `d` after which the
    /// opponent has a capture (given it has none now): it jumps the moved piece,
    /// possibly onto the square just left, or lands on the square just left.
    #[inline(always)]
    fn captures_after_step<R: Rules>(&self, d: u8) -> u32 {
        self.exposed | self.onto[reverse(d) as usize] | step::<R>(self.landings, d)
    }

    /// The number of opponent's steps onto the squares of `b` (empty or not).
    #[inline(always)]
    fn onto(&self, b: u32) -> u32 {
        self.onto.iter().map(|&o| (o & b).count_ones()).sum()
    }
}

/// The bulk count of a side with pieces (English, or mini with both sides present
/// and a capture or quiet move).
#[inline(always)]
fn count_sides<R: Rules>(s: &Sides) -> u64 {
    let j = Jumpers::of::<R>(s);
    if j.any() {
        count_captures::<R>(s, &j)
    } else {
        count_quiets::<R>(s)
    }
}

/// The number of legal moves, every capture path counted (perft's bulk count).
#[inline]
pub(crate) fn count<R: Rules>(pos: &Position) -> u64 {
    if !R::KINGS_AND_MULTI_JUMPS && mini_someone_empty(pos) {
        return 0;
    }
    let s = Sides::of::<R>(pos);
    let j = Jumpers::of::<R>(&s);
    if j.any() {
        return count_captures::<R>(&s, &j);
    }
    let n = count_quiets::<R>(&s);
    if !R::KINGS_AND_MULTI_JUMPS && n == 0 && mini_must_pass::<R>(pos) {
        return 1;
    }
    n
}
