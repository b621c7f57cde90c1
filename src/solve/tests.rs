//! Unit tests of the solver.

use super::memo::Table;
use super::*;
use crate::board::{Move, Position, Variant};
use std::sync::Mutex;

fn pos(fen: &str) -> Position {
    Position::from_fen(Variant::Mini, fen).expect("test FEN")
}

/// The move values of `p`, which must be worth `value` and have `moves` moves.
fn checked_moves(
    s: &mut MiniSolver,
    p: &Position,
    value: GameValue,
    moves: usize,
) -> Vec<(Move, GameValue)> {
    assert_eq!(s.value(p), value);
    let mv = s.move_values(p);
    assert_eq!(mv.len(), moves);
    mv
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

// Board, from protocol/RULES.md: row 0 = 1,2,3 (cols 1,3,5); row 1 = 4,5,6 (cols 0,2,4);
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
    let mv = checked_moves(&mut s, &pos("B:W11:B8"), GameValue::win(1), 1);
    assert_eq!(mv[0].0.to_string(), "8x13");
    // Black 8 against White 14 (r4,c3), Black to move: 8-11 (r3,c2) is taken by
    // 14x7 and 8-12 (r3,c4) by 14x9; either way Black is gone after 2 plies.
    let mv = checked_moves(&mut s, &pos("B:W14:B8"), GameValue::loss(2), 2);
    assert!(mv.iter().all(|&(_, v)| v == GameValue::loss(2)));
    // The same with White to move: White walks into Black's capture.
    assert_eq!(s.value(&pos("W:W14:B8")), GameValue::loss(2));
}

#[test]
fn pass_then_count_pieces() {
    let mut s = MiniSolver::new();
    // Black 16 is on its far row and can't move; White 4 (r1,c0) can go to 1.
    // Black passes, White plays 4-1, then nobody can move: 1 v 1, a draw in 2.
    let mv = checked_moves(&mut s, &pos("B:W4:B16"), GameValue::draw(2), 1);
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
    let mv = checked_moves(&mut s, &p, GameValue::win(1), 1);
    assert_eq!(mv[0], (s.best_move(&p).unwrap(), GameValue::win(1)));
    assert_eq!(mv[0].0.to_string(), "7x14");
}

#[test]
fn tablebase_answers_outside_positions() {
    // A position the start can't reach (three black men on the far row)
    // goes through the locked cache and agrees with a fresh solver.
    let tb = MiniTablebase {
        main: super::layered::Layered::empty(),
        extra: Mutex::new(Table::new()),
    };
    let p = pos("W:W13,14:B16,17,18");
    let mut s = MiniSolver::new();
    assert_eq!(tb.value(&p), s.value(&p));
    assert_eq!(tb.move_values(&p), s.move_values(&p));
}

#[test]
fn table_grows_and_keeps_every_value() {
    let mut t = Table::new();
    for k in 0..100_000u64 {
        t.insert_new(k | (1 << 37), GameValue::draw((k % 100) as u32));
    }
    assert_eq!(t.len, 100_000);
    assert_eq!(t.get(100_005 | (1 << 37)), None);
    for k in 0..100_000u64 {
        assert_eq!(
            t.get(k | (1 << 37)),
            Some(GameValue::draw((k % 100) as u32))
        );
    }
    assert_eq!(t.get(100_001 | (1 << 37)), None);
}

/// The PDN FEN of a table key, Black to move (squares are bits + 1).
fn fen_of_key(key: u64) -> String {
    let (us, them) = super::key::split(key);
    let squares = |b: u32| {
        (0..18)
            .filter(|i| b >> i & 1 == 1)
            .map(|i| (i + 1).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!("B:W{}:B{}", squares(them), squares(us))
}

/// A small generator for random positions.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[test]
fn key_moves_agree_with_the_board_move_generator() {
    use super::key::key_of;
    use super::keymoves::{self, Next, Out};
    use crate::board::Color;
    let mut rng = Lcg(7);
    let mut out = Out::new();
    let (mut moves, mut captures, mut passes, mut over) = (0, 0, 0, 0);
    for _ in 0..50_000 {
        // up to 6 men a side anywhere, either side to move
        let mut taken = 0u32;
        let mut side = |n: u64, rng: &mut Lcg| {
            let mut set = 0u32;
            for _ in 0..n {
                let sq = (rng.next() % 18) as u32;
                if taken >> sq & 1 == 0 {
                    taken |= 1 << sq;
                    set |= 1 << sq;
                }
            }
            set
        };
        let black = side(rng.next() % 7, &mut rng);
        let white = side(rng.next() % 7, &mut rng);
        let turn = if rng.next().is_multiple_of(2) {
            'B'
        } else {
            'W'
        };
        let fen = fen_of_key(super::key::join(black, white));
        let fen = format!("{turn}{}", &fen[1..]);
        let p = pos(&fen);
        let key = key_of(&p);
        let mut expected: Vec<u64> = p
            .legal_moves()
            .iter()
            .map(|&m| key_of(&p.after(m)))
            .collect();
        expected.sort_unstable();
        match keymoves::next(key, &mut out) {
            Next::Moves { count, captures: c } => {
                let mut got = out.keys[..count].to_vec();
                got.sort_unstable();
                assert_eq!(got, expected, "{fen}");
                assert_eq!(c, p.legal_moves().iter().any(|m| m.is_capture()), "{fen}");
                let (m0, a0) = (key::men(key), key::advancement(key));
                for ((&k, &row), &i) in out.keys[..count].iter().zip(&out.taken_row).zip(&out.index)
                {
                    // the index found with the move is the child's own
                    assert_eq!(
                        super::index::locate(k),
                        (out.class, i as usize),
                        "{fen} -> {}",
                        fen_of_key(k)
                    );
                    if c {
                        // a man fewer; the capturer gains 2, the man taken had come 5 - row
                        assert_eq!(key::men(k), m0 - 1, "{fen}");
                        assert_eq!(key::advancement(k) + 5 - u32::from(row), a0 + 2, "{fen}");
                        captures += 1;
                    } else {
                        assert_eq!((key::men(k), key::advancement(k)), (m0, a0 + 1));
                        assert_eq!(row, 0);
                        moves += 1;
                    }
                }
            }
            Next::Pass(k) => {
                assert_eq!(expected.len(), 1, "{fen}");
                assert!(p.legal_moves()[0].is_pass(), "{fen}");
                assert_eq!(k, expected[0], "{fen}");
                let passed = p.with_turn(!p.turn());
                assert_eq!(k, key_of(&passed));
                assert_eq!(key::advancement(k), key::advancement(key));
                passes += 1;
            }
            Next::Over => {
                assert!(expected.is_empty(), "{fen}");
                assert!(
                    p.outcome().is_some()
                        || p.pieces(Color::Black).0 == 0
                        || p.pieces(Color::White).0 == 0,
                    "{fen}"
                );
                over += 1;
            }
        }
    }
    // every kind of position was met
    assert!(
        moves > 10_000 && captures > 1_000 && passes > 10 && over > 100,
        "{moves} {captures} {passes} {over}"
    );
}

#[test]
fn layered_table_agrees_with_the_solver_on_every_position() {
    use super::key::key_of;
    use super::layered::Layered;
    // smaller games than the start: every position they reach, solved both ways
    for fen in [
        "B:W13,14,16,17:B1,2,4,5",
        "W:W12,14,15,18:B2,3,6,7",
        "B:W10,13,17:B3,5,8",
    ] {
        let start = pos(fen);
        let mut steps = Vec::new();
        let table = Layered::build(key_of(&start), &mut |n| steps.push(n));
        assert!(table.len() > 100, "{fen}: {}", table.len());
        assert_eq!(steps.last(), Some(&table.len()), "{fen}");
        let mut solver = MiniSolver::new();
        let mut checked = 0;
        for key in table.keys() {
            let p = pos(&fen_of_key(key));
            assert_eq!(
                table.get(key),
                Some(solver.value(&p)),
                "{}",
                fen_of_key(key)
            );
            checked += 1;
        }
        assert_eq!(checked, table.len());
        assert_eq!(table.get(key_of(&start)), Some(solver.value(&start)));
        // the solver, asked for the start, visits exactly the positions reached
        let mut fresh = MiniSolver::new();
        fresh.value(&start);
        assert_eq!(fresh.len(), table.len(), "{fen}");
    }
}

#[test]
fn packed_values_flip_and_order_like_game_values() {
    use super::layered::Layered;
    let mut all = Vec::new();
    for plies in 0..300 {
        all.extend([
            GameValue::win(plies),
            GameValue::draw(plies),
            GameValue::loss(plies),
        ]);
    }
    for &a in &all {
        let (flipped, _) = Layered::packed_ops(a.pack());
        assert_eq!(GameValue::unpack(flipped), a.before_move(), "{a}");
        for &b in &all {
            let (_, ka) = Layered::packed_ops(a.pack());
            let (_, kb) = Layered::packed_ops(b.pack());
            assert_eq!(ka.cmp(&kb), a.cmp(&b), "{a} vs {b}");
        }
    }
}
