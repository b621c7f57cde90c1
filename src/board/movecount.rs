//! Counting legal moves without building them (perft's bulk counts): every
//! capture path of a position, the children of a position, and the leaves two
//! plies down.

use super::movegen::{
    count_quiets, for_each_quiet, forward, gen_captures, generate, jump, men_jump_on,
    mini_must_pass, mini_someone_empty, reverse, step, step_directions, Jumpers, Sides, Sink, DL,
    DR, UL, UR,
};
use super::variant::crown_row;
use super::{Color, MoveList, Position, Rules};

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
