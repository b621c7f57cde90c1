"""Perft with pydraughts (PyPI `pydraughts`, import name `draughts`), English rules.

This is the tool that produced the pydraughts figures in tests/perft/*.perft; it is
not a test (pytest collects only test_*.py). pydraughts counts every capture path;
`--distinct` merges moves with the same start, end and captured set, as kingme's
`Counting::Distinct` does, so both conventions come from pydraughts' move lists.

    .venv/bin/python tests/interop/pydraughts_perft.py [--distinct] FEN DEPTH
"""

import sys
import time

from draughts import Board


def move_key(m):
    """What tells two moves apart with `--distinct`: start, end, captured set."""
    return m.steps_move[0], m.steps_move[-1], tuple(sorted(m.captures or []))


def moves(board, distinct, key=move_key):
    ms = board.legal_moves()
    if not distinct:
        return ms
    seen, out = set(), []
    for m in ms:
        k = key(m)
        if k not in seen:
            seen.add(k)
            out.append(m)
    return out


def perft(board, depth, distinct, key=move_key):
    """Leaves of the tree `depth` plies deep; with `distinct`, moves with the
    same `key` count once (tests/interop/test_movegen.py uses it too)."""
    if depth == 0:
        return 1
    ms = moves(board, distinct, key)
    if depth == 1:
        return len(ms)
    n = 0
    for m in ms:
        board.push(m)
        n += perft(board, depth - 1, distinct, key)
        board.pop()
    return n


def main(argv):
    distinct = "--distinct" in argv
    args = [a for a in argv if a != "--distinct"]
    fen, depth = args[0], int(args[1])
    board = Board(variant="english", fen=fen)
    print(f"# pydraughts fen {fen} counting {'distinct' if distinct else 'all'}", flush=True)
    for d in range(1, depth + 1):
        t = time.time()
        print(f"perft {d} {perft(board, d, distinct)}  # {time.time() - t:.1f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
