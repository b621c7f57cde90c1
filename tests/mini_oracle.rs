//! Mini-checkers (6x6) cross-checked against a deliberately naive oracle.
//!
//! The oracle below is written only for this test, straight from the text of
//! protocol/RULES.md ("Mini-checkers"), on a plain 6x6 array of cells, sharing no code with
//! kingme's bitboards: men move one square diagonally forward (Black down, White
//! up), a capture is exactly one forward jump and is mandatory, there are no kings,
//! a side with no move passes when the opponent can still move, and the game ends
//! when a side has no pieces or neither side can move (more pieces wins).
//!
//! Checked: perft of the start position at depths 1-10 against the oracle *and*
//! against the figures of protocol/RULES.md; then, for a few hundred positions reached
//! by random play and a few hundred random placements, the legal move set (compared
//! as move text), the game result, and perft at depths 1-4.

use kingme::board::{Color, Outcome, Position, Variant};
use kingme::perft::{self, Counting};
use std::collections::BTreeSet;
use std::fmt::Write as _;

const N: usize = 6;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Black,
    White,
}

/// A naive board: cells[row][col], row 0 at the top.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Board {
    cells: [[Cell; N]; N],
    black_to_move: bool,
}

/// A move of the oracle: from and to as (row, col), whether it jumps; or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OMove {
    Step((usize, usize), (usize, usize), bool),
    Pass,
}

/// The square number of a dark cell, counted row by row from the top left.
fn number(r: usize, c: usize) -> usize {
    let mut n = 0;
    for rr in 0..N {
        for cc in 0..N {
            if (rr + cc) % 2 == 1 {
                n += 1;
                if (rr, cc) == (r, c) {
                    return n;
                }
            }
        }
    }
    panic!("({r},{c}) is not a dark square");
}

fn move_text(m: OMove) -> String {
    match m {
        OMove::Pass => "pass".to_string(),
        OMove::Step((fr, fc), (tr, tc), jump) => format!(
            "{}{}{}",
            number(fr, fc),
            if jump { 'x' } else { '-' },
            number(tr, tc)
        ),
    }
}

impl Board {
    fn start() -> Board {
        let mut cells = [[Cell::Empty; N]; N];
        for (r, row) in cells.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                if (r + c) % 2 == 1 {
                    if r <= 1 {
                        *cell = Cell::Black;
                    } else if r >= 4 {
                        *cell = Cell::White;
                    }
                }
            }
        }
        Board {
            cells,
            black_to_move: true,
        }
    }

    fn count(&self, who: Cell) -> usize {
        self.cells.iter().flatten().filter(|&&c| c == who).count()
    }

    fn at(&self, r: i32, c: i32) -> Option<Cell> {
        if r < 0 || c < 0 || r >= N as i32 || c >= N as i32 {
            None
        } else {
            Some(self.cells[r as usize][c as usize])
        }
    }

    /// Moves of `who` ignoring passes and game end: jumps if any, else steps.
    fn piece_moves(&self, who: Cell) -> Vec<OMove> {
        let (enemy, dr) = if who == Cell::Black {
            (Cell::White, 1)
        } else {
            (Cell::Black, -1)
        };
        let mut jumps = Vec::new();
        let mut steps = Vec::new();
        for r in 0..N {
            for c in 0..N {
                if self.cells[r][c] != who {
                    continue;
                }
                for dc in [-1, 1] {
                    let (r1, c1) = (r as i32 + dr, c as i32 + dc);
                    let (r2, c2) = (r as i32 + 2 * dr, c as i32 + 2 * dc);
                    if self.at(r1, c1) == Some(enemy) && self.at(r2, c2) == Some(Cell::Empty) {
                        jumps.push(OMove::Step((r, c), (r2 as usize, c2 as usize), true));
                    }
                    if self.at(r1, c1) == Some(Cell::Empty) {
                        steps.push(OMove::Step((r, c), (r1 as usize, c1 as usize), false));
                    }
                }
            }
        }
        if jumps.is_empty() {
            steps
        } else {
            jumps
        }
    }

    fn mover(&self) -> Cell {
        if self.black_to_move {
            Cell::Black
        } else {
            Cell::White
        }
    }

    fn game_over(&self) -> bool {
        self.count(Cell::Black) == 0
            || self.count(Cell::White) == 0
            || (self.piece_moves(Cell::Black).is_empty()
                && self.piece_moves(Cell::White).is_empty())
    }

    /// Legal moves, `pass` included; none when the game is over.
    fn legal(&self) -> Vec<OMove> {
        if self.game_over() {
            return Vec::new();
        }
        let mine = self.piece_moves(self.mover());
        if mine.is_empty() {
            vec![OMove::Pass]
        } else {
            mine
        }
    }

    /// The winner when the game is over: Some(Black/White), or Some(Empty) for a draw.
    fn result(&self) -> Option<Cell> {
        if !self.game_over() {
            return None;
        }
        let (b, w) = (self.count(Cell::Black), self.count(Cell::White));
        Some(match b.cmp(&w) {
            std::cmp::Ordering::Greater => Cell::Black,
            std::cmp::Ordering::Less => Cell::White,
            std::cmp::Ordering::Equal => Cell::Empty,
        })
    }

    fn play(&self, m: OMove) -> Board {
        let mut b = self.clone();
        if let OMove::Step((fr, fc), (tr, tc), jump) = m {
            let who = b.cells[fr][fc];
            b.cells[fr][fc] = Cell::Empty;
            b.cells[tr][tc] = who;
            if jump {
                b.cells[(fr + tr) / 2][(fc + tc) / 2] = Cell::Empty;
            }
        }
        b.black_to_move = !b.black_to_move;
        b
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal()
            .iter()
            .map(|&m| self.play(m).perft(depth - 1))
            .sum()
    }

    fn fen(&self) -> String {
        let list = |who: Cell| -> Vec<String> {
            let mut v = Vec::new();
            for r in 0..N {
                for c in 0..N {
                    if self.cells[r][c] == who {
                        v.push(number(r, c).to_string());
                    }
                }
            }
            v
        };
        format!(
            "{}:W{}:B{}",
            if self.black_to_move { 'B' } else { 'W' },
            list(Cell::White).join(","),
            list(Cell::Black).join(",")
        )
    }

    fn kingme(&self) -> Position {
        let fen = self.fen();
        Position::from_fen(Variant::Mini, &fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Compares one position in every way; appends problems to `out`.
fn compare(b: &Board, depth: u32, out: &mut String) {
    let pos = b.kingme();
    let fen = b.fen();
    if pos.to_fen() != fen {
        let _ = writeln!(out, "{fen}: kingme prints it back as {}", pos.to_fen());
    }
    let want: BTreeSet<String> = b.legal().into_iter().map(move_text).collect();
    let got: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    if want != got {
        let _ = writeln!(out, "{fen}: moves differ: oracle {want:?}, kingme {got:?}");
    }
    let all_paths = pos.legal_moves_all_paths().len();
    if all_paths != got.len() {
        let _ = writeln!(
            out,
            "{fen}: {all_paths} moves with every path vs {} distinct (mini has single jumps)",
            got.len()
        );
    }
    let want_result = b.result().map(|c| match c {
        Cell::Black => Outcome::Win(Color::Black),
        Cell::White => Outcome::Win(Color::White),
        Cell::Empty => Outcome::Draw,
    });
    if pos.outcome() != want_result {
        let _ = writeln!(
            out,
            "{fen}: outcome oracle {want_result:?}, kingme {:?}",
            pos.outcome()
        );
    }
    for d in 1..=depth {
        let (w, g) = (b.perft(d), perft::perft(&pos, d, Counting::AllPaths));
        if w != g {
            let _ = writeln!(out, "{fen}: perft {d} oracle {w}, kingme {g}");
            break;
        }
    }
}

#[test]
fn start_position_matches_oracle_and_rules_md() {
    // protocol/RULES.md, "Figures the tests check": mini start, pass counted as one move.
    const RULES_MD: [u64; 10] = [5, 25, 106, 369, 1271, 4104, 12298, 36223, 99469, 269282];
    let b = Board::start();
    assert_eq!(b.fen(), "B:W13,14,15,16,17,18:B1,2,3,4,5,6");
    let pos = Position::startpos(Variant::Mini);
    assert_eq!(pos, b.kingme());
    for (i, &want) in RULES_MD.iter().enumerate() {
        let d = i as u32 + 1;
        let oracle = b.perft(d);
        let kingme = perft::perft(&pos, d, Counting::AllPaths);
        let distinct = perft::perft(&pos, d, Counting::Distinct);
        println!(
            "mini start perft {d}: protocol/RULES.md {want}, oracle {oracle}, kingme {kingme}"
        );
        assert_eq!(
            oracle, want,
            "the oracle disagrees with protocol/RULES.md at depth {d}"
        );
        assert_eq!(
            kingme, want,
            "kingme disagrees with protocol/RULES.md at depth {d}"
        );
        assert_eq!(distinct, want, "kingme distinct count differs at depth {d}");
    }
}

#[test]
fn random_games_match_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut problems = String::new();
    let (mut positions, mut passes, mut ended) = (0, 0, 0);
    for _game in 0..60 {
        let mut b = Board::start();
        let mut pos = Position::startpos(Variant::Mini);
        loop {
            compare(&b, 4, &mut problems);
            positions += 1;
            let moves = b.legal();
            if moves.is_empty() {
                ended += 1;
                break;
            }
            let m = moves[rng.below(moves.len())];
            if m == OMove::Pass {
                passes += 1;
            }
            // Play the same move on kingme's side by its text, so the two stay in step.
            let km = pos
                .parse_move(&move_text(m))
                .unwrap_or_else(|e| panic!("{}: kingme rejects {}: {e}", b.fen(), move_text(m)));
            pos.play_unchecked(km);
            b = b.play(m);
            assert_eq!(
                pos,
                b.kingme(),
                "positions drifted apart after {}",
                move_text(m)
            );
            assert_eq!(pos.hash(), pos.compute_hash());
        }
        if problems.len() > 4000 {
            break;
        }
    }
    println!("{positions} positions from random games ({passes} passes, {ended} games finished)");
    assert!(
        problems.is_empty(),
        "kingme and the oracle disagree:\n{problems}"
    );
    assert!(positions >= 300, "only {positions} positions");
    assert!(
        passes > 0,
        "random play never reached a pass; the sample is too narrow"
    );
}

#[test]
fn random_placements_match_oracle() {
    // Positions that play may never reach (men stuck on the far row, lopsided
    // material, passes and blocked games), still legal by the rules.
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut problems = String::new();
    let (mut over, mut passes) = (0, 0);
    for _ in 0..400 {
        let mut b = Board {
            cells: [[Cell::Empty; N]; N],
            black_to_move: rng.below(2) == 0,
        };
        // Densities vary per position so sparse, lopsided and crowded boards all occur.
        let (pb, pw) = (1 + rng.below(4), 1 + rng.below(4));
        for r in 0..N {
            for c in 0..N {
                if (r + c) % 2 == 1 {
                    let x = rng.below(12);
                    b.cells[r][c] = if x < pb {
                        Cell::Black
                    } else if x < pb + pw {
                        Cell::White
                    } else {
                        Cell::Empty
                    };
                }
            }
        }
        if b.legal() == vec![OMove::Pass] {
            passes += 1;
        }
        if b.game_over() {
            over += 1;
        }
        compare(&b, 4, &mut problems);
        if problems.len() > 4000 {
            break;
        }
    }
    println!("400 random placements ({over} finished, {passes} where the mover must pass)");
    assert!(
        over > 0 && passes > 0,
        "the sample misses finished or passing positions"
    );
    assert!(
        problems.is_empty(),
        "kingme and the oracle disagree:\n{problems}"
    );
}

#[test]
fn oracle_sanity() {
    // The oracle's own numbering and pass rule on tiny hand-made cases, so a bug in
    // the oracle can't hide behind agreement with kingme.
    assert_eq!(number(0, 1), 1);
    assert_eq!(number(0, 5), 3);
    assert_eq!(number(5, 0), 16);
    assert_eq!(number(5, 4), 18);
    // Black man on 16 (bottom row) can't move; White on 5 can: Black passes.
    let mut b = Board {
        cells: [[Cell::Empty; N]; N],
        black_to_move: true,
    };
    b.cells[5][0] = Cell::Black;
    b.cells[1][2] = Cell::White;
    assert!(!b.game_over());
    assert_eq!(b.legal(), vec![OMove::Pass]);
    assert_eq!(move_text(b.legal()[0]), "pass");
    let w = Board {
        black_to_move: false,
        ..b.clone()
    };
    let texts: Vec<String> = w.legal().into_iter().map(move_text).collect();
    assert_eq!(texts, vec!["5-1", "5-2"]);
    // White on 2 (top row) can't move either: the game is over, one piece each: a draw.
    b.cells[1][2] = Cell::Empty;
    b.cells[0][3] = Cell::White;
    assert_eq!(b.legal(), Vec::<OMove>::new());
    assert_eq!(b.result(), Some(Cell::Empty));
    // A forced jump: White on 14 (row 4, col 3) next to Black on 11 (row 3, col 2);
    // White's 18 could step but must not.
    let mut j = Board {
        cells: [[Cell::Empty; N]; N],
        black_to_move: false,
    };
    j.cells[4][3] = Cell::White;
    j.cells[3][2] = Cell::Black;
    j.cells[5][4] = Cell::White;
    let texts: Vec<String> = j.legal().into_iter().map(move_text).collect();
    assert_eq!(texts, vec!["14x7"]);
}
