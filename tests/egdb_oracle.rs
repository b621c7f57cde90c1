//! The endgame database against an independent oracle: a plain solver written
//! only for this test (its own 8x8 board array, its own move generator, value
//! iteration to a fixed point over every position of up to 3 pieces),
//! compared position by position, both sides to move. Only FEN text passes
//! between the two.

use kingme::board::{Position, Variant};
use kingme::egdb::{self, Tablebase, Wdl};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Piece {
    white: bool,
    king: bool,
}

/// A board as an 8x8 array (row 0 at the top); `white_to_move`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Board {
    cells: [[Option<Piece>; 8]; 8],
    white_to_move: bool,
}

fn number(r: usize, c: usize) -> usize {
    r * 4 + c / 2 + 1
}

fn dark_squares() -> Vec<(usize, usize)> {
    (0..8)
        .flat_map(|r| (0..8).map(move |c| (r, c)))
        .filter(|(r, c)| (r + c) % 2 == 1)
        .collect()
}

impl Board {
    fn fen(&self) -> String {
        let side = |white: bool| {
            let mut v = Vec::new();
            for (r, c) in dark_squares() {
                if let Some(p) = self.cells[r][c] {
                    if p.white == white {
                        v.push(format!("{}{}", if p.king { "K" } else { "" }, number(r, c)));
                    }
                }
            }
            v.join(",")
        };
        let (w, b) = (side(true), side(false));
        format!("{}:W{w}:B{b}", if self.white_to_move { 'W' } else { 'B' })
    }

    fn count(&self, white: bool) -> usize {
        self.cells
            .iter()
            .flatten()
            .flatten()
            .filter(|p| p.white == white)
            .count()
    }

    fn dirs(p: Piece) -> Vec<(i32, i32)> {
        if p.king {
            vec![(1, -1), (1, 1), (-1, -1), (-1, 1)]
        } else if p.white {
            vec![(-1, -1), (-1, 1)]
        } else {
            vec![(1, -1), (1, 1)]
        }
    }

    fn crowns(p: Piece, r: usize) -> bool {
        !p.king && ((p.white && r == 0) || (!p.white && r == 7))
    }

    /// Every position after a move of the side to move (captures if any).
    fn children(&self) -> Vec<Board> {
        let mut caps = Vec::new();
        let mut quiet = Vec::new();
        for r in 0..8 {
            for c in 0..8 {
                let Some(p) = self.cells[r][c] else { continue };
                if p.white != self.white_to_move {
                    continue;
                }
                let mut b = *self;
                b.cells[r][c] = None;
                self.jumps(&b, p, r, c, &mut Vec::new(), &mut caps);
                for (dr, dc) in Self::dirs(p) {
                    let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                    if !(0..8).contains(&nr) || !(0..8).contains(&nc) {
                        continue;
                    }
                    let (nr, nc) = (nr as usize, nc as usize);
                    if self.cells[nr][nc].is_none() {
                        let mut n = b;
                        let king = p.king || Self::crowns(p, nr);
                        n.cells[nr][nc] = Some(Piece { king, ..p });
                        n.white_to_move = !self.white_to_move;
                        quiet.push(n);
                    }
                }
            }
        }
        if caps.is_empty() {
            quiet
        } else {
            caps
        }
    }

    /// Follows the jumps of piece `p` now on (r, c) (lifted off `b`), with
    /// `taken` pieces already jumped (still on `b` until the move ends).
    fn jumps(
        &self,
        b: &Board,
        p: Piece,
        r: usize,
        c: usize,
        taken: &mut Vec<(usize, usize)>,
        out: &mut Vec<Board>,
    ) {
        let mut extended = false;
        for (dr, dc) in Self::dirs(p) {
            let (mr, mc) = (r as i32 + dr, c as i32 + dc);
            let (lr, lc) = (r as i32 + 2 * dr, c as i32 + 2 * dc);
            if !(0..8).contains(&lr) || !(0..8).contains(&lc) {
                continue;
            }
            let (mr, mc, lr, lc) = (mr as usize, mc as usize, lr as usize, lc as usize);
            let Some(victim) = b.cells[mr][mc] else {
                continue;
            };
            if victim.white == p.white || taken.contains(&(mr, mc)) || b.cells[lr][lc].is_some() {
                continue;
            }
            extended = true;
            taken.push((mr, mc));
            if Self::crowns(p, lr) {
                out.push(Self::finish(b, Piece { king: true, ..p }, lr, lc, taken));
            } else {
                self.jumps(b, p, lr, lc, taken, out);
            }
            taken.pop();
        }
        if !extended && !taken.is_empty() {
            out.push(Self::finish(b, p, r, c, taken));
        }
    }

    fn finish(b: &Board, p: Piece, r: usize, c: usize, taken: &[(usize, usize)]) -> Board {
        let mut n = *b;
        for &(tr, tc) in taken {
            n.cells[tr][tc] = None;
        }
        n.cells[r][c] = Some(p);
        n.white_to_move = !b.white_to_move;
        n
    }
}

/// Every board with 1-2 pieces a side, at most `max` in all, both sides to move.
fn all_boards(max: usize) -> Vec<Board> {
    let squares = dark_squares();
    let kinds = [
        Piece {
            white: false,
            king: false,
        },
        Piece {
            white: false,
            king: true,
        },
        Piece {
            white: true,
            king: false,
        },
        Piece {
            white: true,
            king: true,
        },
    ];
    let mut out = Vec::new();
    fn place(
        squares: &[(usize, usize)],
        kinds: &[Piece],
        from: usize,
        left: usize,
        b: &mut Board,
        out: &mut Vec<Board>,
    ) {
        if b.count(true) > 0 && b.count(false) > 0 {
            for wtm in [false, true] {
                out.push(Board {
                    white_to_move: wtm,
                    ..*b
                });
            }
        }
        if left == 0 {
            return;
        }
        for i in from..squares.len() {
            let (r, c) = squares[i];
            for &k in kinds {
                if !k.king && ((k.white && r == 0) || (!k.white && r == 7)) {
                    continue;
                }
                b.cells[r][c] = Some(k);
                place(squares, kinds, i + 1, left - 1, b, out);
                b.cells[r][c] = None;
            }
        }
    }
    let mut b = Board {
        cells: [[None; 8]; 8],
        white_to_move: false,
    };
    place(&squares, &kinds, 0, max, &mut b, &mut out);
    out
}

/// Value iteration: win if a child is lost, loss if every child is won (or
/// no move), until nothing changes; the rest is drawn.
fn oracle(max: usize) -> HashMap<Board, Wdl> {
    let boards = all_boards(max);
    let mut children: Vec<Vec<usize>> = Vec::new();
    let mut known: Vec<Option<Wdl>> = vec![None; boards.len()];
    let at: HashMap<Board, usize> = boards.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    // children without pieces for the side to move are lost: encode as usize::MAX
    for b in &boards {
        let kids = b
            .children()
            .iter()
            .map(|k| {
                if k.count(k.white_to_move) == 0 {
                    usize::MAX
                } else {
                    at[k]
                }
            })
            .collect();
        children.push(kids);
    }
    loop {
        let mut changed = false;
        for i in 0..boards.len() {
            if known[i].is_some() {
                continue;
            }
            let value = |k: usize| {
                if k == usize::MAX {
                    Some(Wdl::Loss)
                } else {
                    known[k]
                }
            };
            let kids = &children[i];
            let v = if kids.iter().any(|&k| value(k) == Some(Wdl::Loss)) {
                Some(Wdl::Win)
            } else if kids.iter().all(|&k| value(k) == Some(Wdl::Win)) {
                Some(Wdl::Loss)
            } else {
                None
            };
            if v.is_some() {
                known[i] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    boards
        .into_iter()
        .zip(known)
        .map(|(b, v)| (b, v.unwrap_or(Wdl::Draw)))
        .collect()
}

#[test]
fn database_agrees_with_the_oracle_on_every_position_of_up_to_3_pieces() {
    let dir = std::env::temp_dir().join(format!("kingme-egdb-oracle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let report = egdb::build(&egdb::BuildOptions {
        threads: 2,
        ..egdb::BuildOptions::new(dir.clone(), 3)
    })
    .expect("build");
    assert_eq!(report.built.len(), egdb::plan(3).len());
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).expect("dir");
    assert_eq!(tb.max_pieces(), 3);
    let truth = oracle(3);
    let mut counts = HashMap::new();
    for (b, want) in &truth {
        let fen = b.fen();
        let pos = Position::from_fen(Variant::English, &fen).expect("oracle FEN");
        let got = tb.probe_wdl(&pos).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(got, *want, "{fen}");
        *counts.entry(*want).or_insert(0) += 1;
    }
    // all three values occur, and the board count is the full set
    assert!(counts.len() == 3, "{counts:?}");
    assert!(truth.len() > 200_000, "{}", truth.len());
    let _ = std::fs::remove_dir_all(&dir);
}
