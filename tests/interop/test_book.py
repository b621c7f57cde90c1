"""Every move of kingme's shipped opening book is legal by pydraughts' rules.

`kingme book dump` lists each book position (FEN) with its moves; pydraughts
0.6.7, an independent implementation, gives the legal moves of the same FEN.
Each book move must be one of them (compared on start, end and captured
squares, so a capture given by its landing squares is the same move), no move
may appear twice, and every legal move must be in the book's list (the build
values them all).
"""

import subprocess

from draughts import Board

from conftest import KINGME as BIN
from test_movegen import key_of_text, pyd_key, describe


def dump():
    out = subprocess.run([str(BIN), "book", "dump"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for line in out.stdout.splitlines():
        fen, _, moves = line.partition(": ")
        yield fen, [m.split(" ")[0] for m in moves.split(", ")]


def test_every_shipped_book_move_is_legal():
    positions = 0
    for fen, moves in dump():
        board = Board(variant="english", fen=fen)
        legal = {pyd_key(m) for m in board.legal_moves()}
        keys = [key_of_text(m) for m in moves]
        assert len(set(keys)) == len(keys), f"{fen}: a move twice in {moves}"
        for m, k in zip(moves, keys):
            assert k in legal, f"{fen}: book move {m} is not legal ({sorted(describe(x) for x in legal)})"
        assert set(keys) == legal, f"{fen}: the book lists {moves}, the legal moves are {sorted(describe(x) for x in legal)}"
        positions += 1
    assert positions > 157, f"the shipped book holds {positions} positions: not even the start and the ballots"
