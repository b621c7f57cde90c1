"""kingme's English move generation against pydraughts, an independent implementation.

pydraughts 0.6.7 (PyPI `pydraughts`, import name `draughts`) is the rules oracle:
random English games are played in pydraughts, and at every position the legal move
list of pydraughts is compared with kingme's (`kingme divide --fen FEN 1`, which lists
every capture path). Moves are compared on (from, to, captured set) as a multiset and
also on the full landing path, so both duplicate capture paths and capture routes
must agree. Random positions with kings (not reachable quickly by play) are checked
the same way.

Numbering: for variant "english", pydraughts' `Board.fen`, `Move.steps_move` and
`Move.captures` use ordinary English square numbers (Black on 1-12 moves first, as in
protocol/RULES.md); its internal 32-character Hub encoding is mirrored (square k is 33-k, see
PROTOCOLS.md) but that is never used here. test_numbering_agrees pins this down.

Run: `pytest -q tests/interop` after `cargo build --release` (set KINGME_BIN to use
another binary). Expected numbers come only from pydraughts and protocol/RULES.md.
"""

import random
import re
import subprocess
from collections import Counter

import pytest
from draughts import Board

from conftest import KINGME as BIN
from pydraughts_perft import perft

GAMES = 24  # random games from the start position
MAX_PLIES = 160  # per game (the 40-move rule ends real games sooner)
RANDOM_POSITIONS = 300  # random placements with kings
RANDOM_POSITION_PLIES = 12  # random play continued from each of them


# --- geometry, from protocol/RULES.md (independent of both programs) ----------------------

def square_rc(n):
    """(row, col) of English square n: rows from the top, dark squares numbered
    1.. row by row; even rows hold columns 1,3,5,7, odd rows 0,2,4,6."""
    row, k = divmod(n - 1, 4)
    return row, 2 * k + (1 if row % 2 == 0 else 0)


def rc_square(row, col):
    assert 0 <= row < 8 and 0 <= col < 8 and (row + col) % 2 == 1, (row, col)
    return row * 4 + col // 2 + 1


def jumped(a, b):
    """The square jumped over going from landing a to landing b."""
    (ra, ca), (rb, cb) = square_rc(a), square_rc(b)
    assert abs(ra - rb) == 2 and abs(ca - cb) == 2, (a, b)
    return rc_square((ra + rb) // 2, (ca + cb) // 2)


# --- the two move lists -----------------------------------------------------------

MOVE_LINE = re.compile(r"^(\d+(?:[-x]\d+)+) (\d+)$")
TOTAL_LINE = re.compile(r"^moves (\d+) total (\d+)")


def kingme_moves(fen):
    """kingme's legal moves (every capture path) as text, via `divide FEN 1`."""
    out = subprocess.run(
        [str(BIN), "divide", "--variant", "english", "--fen", fen, "1"],
        capture_output=True, text=True, timeout=30,
    )
    assert out.returncode == 0, f"kingme divide failed on {fen}: {out.stderr}"
    moves, declared = [], None
    for line in out.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = MOVE_LINE.match(line.strip())
        if m:
            assert m.group(2) == "1", f"{fen}: depth-1 count {line!r}"
            moves.append(m.group(1))
            continue
        t = TOTAL_LINE.match(line.strip())
        if t:
            declared = int(t.group(1))
            continue
        raise AssertionError(f"unexpected divide output for {fen}: {line!r}")
    assert declared == len(moves), f"{fen}: divide says {declared} moves, listed {len(moves)}"
    return moves


def key_of_text(text):
    squares = [int(s) for s in re.split(r"[-x]", text)]
    if "x" in text:
        captured = frozenset(jumped(a, b) for a, b in zip(squares, squares[1:]))
    else:
        assert len(squares) == 2, text
        captured = frozenset()
    return squares[0], squares[-1], captured


def pyd_text(move):
    steps = move.steps_move
    sep = "x" if move.captures else "-"
    return sep.join(str(s) for s in steps)


def pyd_key(move):
    steps = move.steps_move
    captured = frozenset(move.captures or [])
    if captured:
        # pydraughts' own captured list must be the squares jumped along its path.
        assert captured == frozenset(jumped(a, b) for a, b in zip(steps, steps[1:])), (
            steps, move.captures)
    return steps[0], steps[-1], captured


def describe(key):
    f, t, c = key
    return f"{f}->{t} capturing {sorted(c)}" if c else f"{f}-{t}"


def compare(board, context):
    """Asserts kingme and pydraughts agree on the legal moves of `board`."""
    fen = board.fen
    pmoves = board.legal_moves()
    ktexts = kingme_moves(fen)
    pkeys = Counter(pyd_key(m) for m in pmoves)
    kkeys = Counter(key_of_text(t) for t in ktexts)
    if pkeys != kkeys:
        only_p = sorted(describe(k) for k in (pkeys - kkeys).elements())
        only_k = sorted(describe(k) for k in (kkeys - pkeys).elements())
        raise AssertionError(
            f"{context}: move sets differ at {fen}\n"
            f"  only pydraughts: {only_p}\n  only kingme: {only_k}\n"
            f"  pydraughts: {sorted(pyd_text(m) for m in pmoves)}\n  kingme: {sorted(ktexts)}")
    STATS["positions"] += 1
    STATS["moves"] += len(pmoves)
    STATS["positions with kings"] += "K" in fen
    STATS["positions with captures"] += any(m.captures for m in pmoves)
    STATS["positions with several capture paths"] += len(pmoves) > len(set(pkeys))
    ptexts = sorted(pyd_text(m) for m in pmoves)
    assert ptexts == sorted(ktexts), f"{context}: capture paths differ at {fen}: {ptexts} vs {sorted(ktexts)}"
    return pmoves


STATS = Counter()


def compare_along_random_play(board, rng, plies, context):
    """`compare` at `board` and after each of up to `plies` random moves;
    returns how many positions were compared."""
    compared = 0
    for ply in range(plies):
        moves = compare(board, f"{context} ply {ply}")
        compared += 1
        if not moves:
            break
        board.push(rng.choice(moves))
    return compared


def teardown_module(module):
    print("\ninterop totals: " + ", ".join(f"{k} {v}" for k, v in sorted(STATS.items())))


# --- tests ------------------------------------------------------------------------

def test_numbering_agrees():
    """pydraughts' English start uses protocol/RULES.md numbers: Black on 1-12 moves first."""
    b = Board(variant="english")
    fen = b.fen
    assert fen.startswith("B:"), fen
    white, black = fen[2:].split(":")
    assert sorted(int(s) for s in black[1:].split(",")) == list(range(1, 13))
    assert sorted(int(s) for s in white[1:].split(",")) == list(range(21, 33))
    want = ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    assert sorted(pyd_text(m) for m in b.legal_moves()) == want
    assert sorted(kingme_moves(fen)) == want
    assert square_rc(1) == (0, 1) and square_rc(29) == (7, 0) and square_rc(32) == (7, 6)


@pytest.mark.parametrize("seed", range(GAMES))
def test_random_game(seed):
    rng = random.Random(1000 + seed)
    board = Board(variant="english")
    checked = compare_along_random_play(board, rng, MAX_PLIES, f"game {seed}")
    STATS["game positions"] += checked
    assert checked > 10


def random_fen(rng):
    """A random legal-looking English position with kings: no man on its own crowning
    row, at most 12 pieces a side, at least one piece each."""
    while True:
        white, black = [], []
        density = rng.uniform(0.15, 0.5)
        king_share = rng.uniform(0.0, 0.8)
        for sq in range(1, 33):
            if rng.random() > density:
                continue
            is_black = rng.random() < 0.5
            side = black if is_black else white
            if len(side) >= 12:
                continue
            crown_row = sq >= 29 if is_black else sq <= 4
            king = crown_row or rng.random() < king_share
            side.append(("K" if king else "") + str(sq))
        if white and black:
            turn = rng.choice("BW")
            return f"{turn}:W{','.join(white)}:B{','.join(black)}"


def test_random_positions_with_kings():
    rng = random.Random(7)
    positions = 0
    for i in range(RANDOM_POSITIONS):
        fen = random_fen(rng)
        board = Board(variant="english", fen=fen)
        positions += compare_along_random_play(
            board, rng, RANDOM_POSITION_PLIES, f"random position {i} ({fen})")
    assert positions >= RANDOM_POSITIONS


PERFT_LINE = re.compile(r"^perft (\d+) (\d+)\b")


def kingme_perft(fen, depth, distinct=False):
    """kingme's perft figures 1..depth for `fen` via the CLI."""
    args = [str(BIN), "perft", "--variant", "english", "--fen", fen]
    if distinct:
        args.append("--distinct")
    out = subprocess.run(args + [str(depth)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"kingme perft failed on {fen}: {out.stderr}"
    counts = [int(m.group(2)) for m in map(PERFT_LINE.match, out.stdout.splitlines()) if m]
    assert len(counts) == depth, out.stdout
    return counts


def pyd_perft(board, depth, distinct):
    """pydraughts' perft (tests/interop/pydraughts_perft.py), moves told apart
    by `pyd_key`, which checks each capture's squares."""
    return perft(board, depth, distinct, key=pyd_key)


def test_perft_of_sampled_positions():
    """Whole trees, not just one move list: pydraughts' perft 1-3 (every path and
    distinct) against kingme's, on positions sampled from random games and random
    king positions. This also checks kingme's making of moves (removal of captured
    pieces, crowning), which the move-list comparison takes from pydraughts."""
    rng = random.Random(99)
    fens = []
    for g in range(6):
        board = Board(variant="english")
        for ply in range(120):
            moves = board.legal_moves()
            if not moves:
                break
            if ply % 15 == 7:
                fens.append(board.fen)
            board.push(rng.choice(moves))
    fens += [random_fen(rng) for _ in range(20)]
    for fen in fens:
        board = Board(variant="english", fen=fen)
        for distinct in (False, True):
            depth = 3 if len(board.legal_moves()) < 12 else 2
            want = [pyd_perft(board, d, distinct) for d in range(1, depth + 1)]
            got = kingme_perft(fen, depth, distinct)
            assert got == want, f"perft {'distinct' if distinct else 'all'} of {fen}: pydraughts {want}, kingme {got}"
            STATS["perft comparisons"] += 1


@pytest.mark.parametrize("fen", [
    "W:WK7,30,31:B1,4,10,11,18,19",  # protocol/RULES.md: two paths of one loop capture
    "W:W11,26,27,30:B6,7,13,22",  # crowning ends the capture
    "B:W19,26,27,29:B6,7,15,22",
    "W:WK10,27:B3,14,15,22,23",  # king loop
    "B:W6,7,14,15:B2",  # two routes from 2 to 18
    "B:WK32,23:B28",  # blocked: no moves
    "W:W5:BK1,12",
    "B:WK1,K3,K10,K12,K19,K21,K28,K30:BK5,K7,K14,K16,K17,K23,K25,K32",
])
def test_hand_made_positions(fen):
    board = Board(variant="english", fen=fen)
    compare(board, fen)
    # and one ply deeper, every reply
    for m in board.legal_moves():
        board.push(m)
        compare(board, f"{fen} after {pyd_text(m)}")
        board.pop()
