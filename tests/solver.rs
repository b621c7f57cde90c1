//! Checks of the mini-checkers solver (`kingme::solve`).
//!
//! 1. An independent plain minimax, written here from the text of protocol/RULES.md on its
//!    own 6x6 array (no bitboards, no tables, no kingme move generation), must
//!    give the same value (kind and plies) as the solver, and the same value for
//!    every move, on hand-made positions with 2-4 pieces, on random sparse
//!    positions, and on late positions of random games from the start.
//! 2. The solver is consistent with itself along random games: a position's
//!    value is the best of its moves' values, each move's value is the value of
//!    the position it leads to seen from the mover, and the best move keeps the
//!    value (one ply less); a finished game's value matches `Position::outcome`.

use kingme::board::{Color, Outcome, Position, Variant};
use kingme::solve::{GameValue, MiniSolver, ValueKind};

// ---------------------------------------------------------------------------
// The independent rules, straight from protocol/RULES.md.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Black,
    White,
}

/// A 6x6 board, row 0 at the top; Black moves down (row + 1), White up.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Naive {
    cells: [[Cell; 6]; 6],
    black_to_move: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NaiveMove {
    Pass,
    Step {
        from: (usize, usize),
        to: (usize, usize),
        jumped: Option<(usize, usize)>,
    },
}

/// Square number (1..=18) of a dark square: numbered row by row from the top
/// left, three a row.
fn number_of(r: usize, c: usize) -> usize {
    assert!((r + c) % 2 == 1, "({r},{c}) is not a dark square");
    r * 3 + c / 2 + 1
}

/// Row and column of square `n`: row 0 holds 1-3 in cols 1,3,5; row 1 holds
/// 4-6 in cols 0,2,4; and so on.
fn coords_of(n: usize) -> (usize, usize) {
    let i = n - 1;
    let r = i / 3;
    let k = i % 3;
    let c = if r.is_multiple_of(2) {
        2 * k + 1
    } else {
        2 * k
    };
    (r, c)
}

impl NaiveMove {
    fn text(self) -> String {
        match self {
            NaiveMove::Pass => "pass".to_string(),
            NaiveMove::Step { from, to, jumped } => {
                let sep = if jumped.is_some() { 'x' } else { '-' };
                format!(
                    "{}{sep}{}",
                    number_of(from.0, from.1),
                    number_of(to.0, to.1)
                )
            }
        }
    }
}

impl Naive {
    fn new(black: &[usize], white: &[usize], black_to_move: bool) -> Naive {
        let mut cells = [[Cell::Empty; 6]; 6];
        for &n in black {
            let (r, c) = coords_of(n);
            cells[r][c] = Cell::Black;
        }
        for &n in white {
            let (r, c) = coords_of(n);
            assert_eq!(cells[r][c], Cell::Empty);
            cells[r][c] = Cell::White;
        }
        Naive {
            cells,
            black_to_move,
        }
    }

    fn fen(&self) -> String {
        let list = |who: Cell| {
            let mut v = Vec::new();
            for r in 0..6 {
                for c in 0..6 {
                    if self.cells[r][c] == who {
                        v.push(number_of(r, c).to_string());
                    }
                }
            }
            v.join(",")
        };
        format!(
            "{}:W{}:B{}",
            if self.black_to_move { 'B' } else { 'W' },
            list(Cell::White),
            list(Cell::Black)
        )
    }

    /// kingme's position of this board, read from its FEN.
    fn position(&self) -> Position {
        Position::from_fen(Variant::Mini, &self.fen()).unwrap()
    }

    fn count(&self, who: Cell) -> usize {
        self.cells.iter().flatten().filter(|&&x| x == who).count()
    }

    /// Real moves (no pass) of `who`: captures if there are any, else steps.
    fn real_moves(&self, who: Cell) -> Vec<NaiveMove> {
        let (dr, enemy): (isize, Cell) = if who == Cell::Black {
            (1, Cell::White)
        } else {
            (-1, Cell::Black)
        };
        let at = |r: isize, c: isize| -> Option<Cell> {
            if (0..6).contains(&r) && (0..6).contains(&c) {
                Some(self.cells[r as usize][c as usize])
            } else {
                None
            }
        };
        let mut captures = Vec::new();
        let mut steps = Vec::new();
        for r in 0..6isize {
            for c in 0..6isize {
                if at(r, c) != Some(who) {
                    continue;
                }
                for dc in [-1isize, 1] {
                    let (r1, c1) = (r + dr, c + dc);
                    let (r2, c2) = (r + 2 * dr, c + 2 * dc);
                    if at(r1, c1) == Some(Cell::Empty) {
                        steps.push(NaiveMove::Step {
                            from: (r as usize, c as usize),
                            to: (r1 as usize, c1 as usize),
                            jumped: None,
                        });
                    }
                    if at(r1, c1) == Some(enemy) && at(r2, c2) == Some(Cell::Empty) {
                        captures.push(NaiveMove::Step {
                            from: (r as usize, c as usize),
                            to: (r2 as usize, c2 as usize),
                            jumped: Some((r1 as usize, c1 as usize)),
                        });
                    }
                }
            }
        }
        if captures.is_empty() {
            steps
        } else {
            captures
        }
    }

    /// Legal moves; empty when the game is over.
    fn moves(&self) -> Vec<NaiveMove> {
        if self.count(Cell::Black) == 0 || self.count(Cell::White) == 0 {
            return Vec::new();
        }
        let (me, them) = if self.black_to_move {
            (Cell::Black, Cell::White)
        } else {
            (Cell::White, Cell::Black)
        };
        let mine = self.real_moves(me);
        if !mine.is_empty() {
            return mine;
        }
        if self.real_moves(them).is_empty() {
            Vec::new()
        } else {
            vec![NaiveMove::Pass]
        }
    }

    fn play(&self, m: NaiveMove) -> Naive {
        let mut n = self.clone();
        if let NaiveMove::Step { from, to, jumped } = m {
            let who = n.cells[from.0][from.1];
            n.cells[from.0][from.1] = Cell::Empty;
            n.cells[to.0][to.1] = who;
            if let Some(j) = jumped {
                n.cells[j.0][j.1] = Cell::Empty;
            }
        }
        n.black_to_move = !n.black_to_move;
        n
    }

    /// (kind, plies) when the game is over here: more pieces wins.
    fn final_value(&self) -> (ValueKind, u32) {
        let (b, w) = (self.count(Cell::Black), self.count(Cell::White));
        let (me, them) = if self.black_to_move { (b, w) } else { (w, b) };
        let kind = match me.cmp(&them) {
            std::cmp::Ordering::Greater => ValueKind::Win,
            std::cmp::Ordering::Less => ValueKind::Loss,
            std::cmp::Ordering::Equal => ValueKind::Draw,
        };
        (kind, 0)
    }
}

/// From the side to move: win as soon as possible, else draw (the shortest, the
/// documented convention), else lose as late as possible.
fn pick(options: &[(ValueKind, u32)]) -> (ValueKind, u32) {
    let of = |k: ValueKind| options.iter().filter(move |o| o.0 == k).map(|o| o.1);
    if let Some(p) = of(ValueKind::Win).min() {
        (ValueKind::Win, p)
    } else if let Some(p) = of(ValueKind::Draw).min() {
        (ValueKind::Draw, p)
    } else {
        (
            ValueKind::Loss,
            of(ValueKind::Loss).max().expect("some option"),
        )
    }
}

fn seen_by_mover(child: (ValueKind, u32)) -> (ValueKind, u32) {
    let kind = match child.0 {
        ValueKind::Win => ValueKind::Loss,
        ValueKind::Draw => ValueKind::Draw,
        ValueKind::Loss => ValueKind::Win,
    };
    (kind, child.1 + 1)
}

/// Plain minimax, no memory of anything; `None` past `budget` nodes.
fn minimax(n: &Naive, nodes: &mut u64, budget: u64) -> Option<(ValueKind, u32)> {
    *nodes += 1;
    if *nodes > budget {
        return None;
    }
    let moves = n.moves();
    if moves.is_empty() {
        return Some(n.final_value());
    }
    let mut options = Vec::with_capacity(moves.len());
    for m in moves {
        options.push(seen_by_mover(minimax(&n.play(m), nodes, budget)?));
    }
    Some(pick(&options))
}

fn as_pair(v: GameValue) -> (ValueKind, u32) {
    (v.kind, v.plies)
}

/// Compares the solver with the plain minimax on `n` and each of its moves.
/// Returns false (checking nothing) when the minimax needs more than `budget` nodes.
fn agree(solver: &mut MiniSolver, n: &Naive, budget: u64) -> bool {
    let mut nodes = 0;
    let moves = n.moves();
    let mut naive_moves = Vec::with_capacity(moves.len());
    for m in moves {
        match minimax(&n.play(m), &mut nodes, budget) {
            Some(v) => naive_moves.push((m.text(), seen_by_mover(v))),
            None => return false,
        }
    }
    let expected = if naive_moves.is_empty() {
        n.final_value()
    } else {
        pick(&naive_moves.iter().map(|x| x.1).collect::<Vec<_>>())
    };
    let fen = n.fen();
    let pos = Position::from_fen(Variant::Mini, &fen).expect("FEN of the naive board");
    assert_eq!(as_pair(solver.value(&pos)), expected, "value of {fen}");
    let mut solver_moves: Vec<(String, (ValueKind, u32))> = solver
        .move_values(&pos)
        .into_iter()
        .map(|(m, v)| (m.to_string(), as_pair(v)))
        .collect();
    naive_moves.sort_by(|a, b| a.0.cmp(&b.0));
    solver_moves.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(solver_moves, naive_moves, "move values of {fen}");
    true
}

/// SplitMix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn fen_parts(fen: &str) -> Naive {
    // "B:W11,14:B8" with plain lists only (no ranges, no kings).
    let mut parts = fen.split(':');
    let black_to_move = parts.next() == Some("B");
    let mut black = Vec::new();
    let mut white = Vec::new();
    for p in parts {
        let (side, list) = p.split_at(1);
        let nums = list
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<usize>().unwrap());
        match side {
            "B" => black.extend(nums),
            _ => white.extend(nums),
        }
    }
    Naive::new(&black, &white, black_to_move)
}

// ---------------------------------------------------------------------------
// 1. Agreement with the plain minimax.
// ---------------------------------------------------------------------------

#[test]
fn naive_rules_match_kingme_move_generation_on_random_positions() {
    // Not the solver, but a check that the two rule readings are the same game.
    let mut rng = Rng(7);
    for _ in 0..3000 {
        let n = random_sparse(&mut rng, 6, 6);
        let pos = n.position();
        let mut a: Vec<String> = n.moves().into_iter().map(NaiveMove::text).collect();
        let mut b: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "moves of {}", n.fen());
    }
}

#[test]
fn designed_small_positions_agree_with_plain_minimax() {
    // 2-4 pieces each: captures, passes, blocked pieces, races, men on far rows.
    let fens = [
        "B:W11:B8",
        "B:W14:B8",
        "W:W14:B8",
        "B:W4:B16",
        "B:W4:B16,17",
        "W:W4:B16,17",
        "B:W1:B16",
        "B:W16:B1",
        "W:W16:B1",
        "B:W17:B2",
        "B:W13,14:B1,2",
        "B:W10,12:B7,9",
        "W:W10,12:B7,9",
        "W:W15:B5",
        "B:W13:B2,3",
        "W:W16,18:B8",
        "B:W9:B12",
        "B:W7,8:B10,11",
        "W:W7,8:B10,11",
        "B:W14,15:B4,5",
        "W:W11:B5,6",
        "B:W7,11,12:B2",
        "W:W13:B7,8,9",
        "B:W1,2:B17,18",
        "B:W10,11:B4",
        "W:W14:B7,8,9",
        "B:W13,15:B2,5",
        "W:W12,13:B5,7",
    ];
    let mut solver = MiniSolver::new();
    for fen in fens {
        let n = fen_parts(fen);
        assert_eq!(n.fen(), fen, "test FEN must be canonical");
        assert!(agree(&mut solver, &n, 5_000_000), "{fen} too big");
    }
}

/// A random position with 1..=max_b black and 1..=max_w white men anywhere.
fn random_sparse(rng: &mut Rng, max_b: usize, max_w: usize) -> Naive {
    let nb = 1 + rng.below(max_b);
    let nw = 1 + rng.below(max_w);
    let mut squares: Vec<usize> = (1..=18).collect();
    for i in (1..squares.len()).rev() {
        squares.swap(i, rng.below(i + 1));
    }
    Naive::new(&squares[..nb], &squares[nb..nb + nw], rng.next() & 1 == 0)
}

#[test]
fn random_sparse_positions_agree_with_plain_minimax() {
    let mut rng = Rng(2026);
    let mut solver = MiniSolver::new();
    let checked = (0..400)
        .filter(|_| agree(&mut solver, &random_sparse(&mut rng, 3, 3), 300_000))
        .count();
    assert!(checked >= 300, "only {checked} positions were small enough");
}

/// Rows still to go for every man (a bound on the moves left in the game).
fn steps_left(n: &Naive) -> usize {
    let mut s = 0;
    for r in 0..6 {
        for c in 0..6 {
            s += match n.cells[r][c] {
                Cell::Black => 5 - r,
                Cell::White => r,
                Cell::Empty => 0,
            };
        }
    }
    s
}

#[test]
fn late_positions_of_random_games_agree_with_plain_minimax() {
    let mut rng = Rng(99);
    let mut solver = MiniSolver::new();
    let mut checked = 0;
    for game in 0..60 {
        let mut n = fen_parts("B:W13,14,15,16,17,18:B1,2,3,4,5,6");
        n.black_to_move = game % 2 == 0;
        loop {
            let moves = n.moves();
            if moves.is_empty() {
                break;
            }
            if steps_left(&n) <= 16 && agree(&mut solver, &n, 3_000_000) {
                checked += 1;
            }
            n = n.play(moves[rng.below(moves.len())]);
        }
    }
    assert!(checked >= 200, "only {checked} late positions checked");
}

// ---------------------------------------------------------------------------
// 2. Self-consistency along random games.
// ---------------------------------------------------------------------------

/// Checks `pos` and returns its legal moves.
fn check_consistent(solver: &mut MiniSolver, pos: &Position) {
    let v = solver.value(pos);
    let mv = solver.move_values(pos);
    if mv.is_empty() {
        assert_eq!(v.plies, 0, "{pos}: finished game with plies");
        let expected = match pos.outcome().expect("no moves means game over") {
            Outcome::Draw => ValueKind::Draw,
            Outcome::Win(c) if c == pos.turn() => ValueKind::Win,
            Outcome::Win(_) => ValueKind::Loss,
        };
        assert_eq!(v.kind, expected, "{pos}");
        assert_eq!(solver.best_move(pos), None);
        return;
    }
    assert!(pos.outcome().is_none(), "{pos}: moves in a finished game");
    assert_eq!(mv.len(), pos.legal_moves().len());
    assert_eq!(mv[0].1, v, "{pos}: value is not the best move's value");
    assert!(mv.windows(2).all(|w| w[0].1 >= w[1].1), "{pos}: not sorted");
    assert_eq!(solver.best_move(pos), Some(mv[0].0));
    for &(m, mvv) in &mv {
        let child = solver.value(&pos.after(m));
        assert_eq!(child.before_move(), mvv, "{pos} {m}");
        assert!(mvv <= v, "{pos} {m}: a move better than the position");
    }
    // The best move keeps the value: the child is the same result one ply nearer.
    let after_best = solver.value(&pos.after(mv[0].0));
    assert_eq!(after_best.flipped().kind, v.kind, "{pos}");
    assert_eq!(after_best.plies + 1, v.plies, "{pos}");
}

#[test]
fn solver_is_consistent_along_random_games_from_sparse_positions() {
    let mut rng = Rng(31337);
    let mut solver = MiniSolver::new();
    for _ in 0..300 {
        let mut pos = random_sparse(&mut rng, 5, 5).position();
        loop {
            check_consistent(&mut solver, &pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves[rng.below(moves.len())]);
        }
    }
}

#[test]
fn perfect_play_from_sparse_positions_ends_as_predicted() {
    let mut rng = Rng(4242);
    let mut solver = MiniSolver::new();
    for _ in 0..200 {
        let start = random_sparse(&mut rng, 4, 4).position();
        let predicted = solver.value(&start);
        let mut pos = start;
        let mut plies = 0;
        while let Some(m) = solver.best_move(&pos) {
            pos = pos.after(m);
            plies += 1;
        }
        assert_eq!(plies, predicted.plies, "{start}");
        let outcome = pos.outcome().expect("game over");
        let expected = match predicted.kind {
            ValueKind::Draw => Outcome::Draw,
            ValueKind::Win => Outcome::Win(start.turn()),
            ValueKind::Loss => Outcome::Win(!start.turn()),
        };
        assert_eq!(outcome, expected, "{start}");
    }
}

#[test]
fn start_position_is_solved_and_consistent() {
    kingme::solve::MiniTablebase::prepare_in_background();
    let tb = kingme::solve::MiniTablebase::global();
    assert!(kingme::solve::MiniTablebase::try_global().is_some());
    let start = Position::startpos(Variant::Mini);
    let v = tb.value(&start);
    assert_eq!(v, GameValue::draw(20));
    assert_eq!(tb.len(), kingme::solve::START_POSITIONS);
    assert_eq!(tb.value(&start.with_turn(Color::White)), v);
    // Random games from the start, both sides first, checked against the table
    // and against a fresh solver on the late positions.
    let mut rng = Rng(5);
    let mut solver = MiniSolver::new();
    for game in 0..40 {
        let mut pos = if game % 2 == 0 {
            start
        } else {
            start.with_turn(Color::White)
        };
        loop {
            assert!(tb.contains(&pos));
            let v = tb.value(&pos);
            let mv = tb.move_values(&pos);
            match mv.first() {
                None => assert_eq!(v.plies, 0),
                Some(&(_, best)) => assert_eq!(best, v, "{pos}"),
            }
            for &(m, mvv) in &mv {
                assert_eq!(tb.value(&pos.after(m)).before_move(), mvv, "{pos} {m}");
            }
            if pos.pieces(Color::Black).count() + pos.pieces(Color::White).count() <= 8 {
                assert_eq!(solver.value(&pos), v, "{pos}");
                check_consistent(&mut solver, &pos);
            }
            if mv.is_empty() {
                break;
            }
            pos = pos.after(mv[rng.below(mv.len())].0);
        }
    }
    // Perfect play from the start lasts exactly the predicted number of plies.
    let mut pos = start;
    let mut plies = 0;
    while let Some(m) = tb.best_move(&pos) {
        pos = pos.after(m);
        plies += 1;
    }
    assert_eq!(plies, v.plies);
    assert_eq!(pos.outcome(), Some(Outcome::Draw));
}
