"""Shared set-up of the interop tests: the kingme binary under test, a
deadline for tests that pydraughts could leave hanging, and a game of kingme
against random moves.

A missing binary or a missing pydraughts is a failure, not a skip: `.ci/run`
builds the one and installs the other, so a skip would only hide a broken set-up.
"""

import os
import signal
from pathlib import Path

import draughts
import pytest

MAX_PLIES = 400  # a game against random moves ends well before
ROOT = Path(__file__).resolve().parents[2]
KINGME = Path(os.environ.get("KINGME_BIN") or ROOT / "target" / "release" / "kingme")


def pytest_sessionstart(session):
    if not KINGME.exists():
        raise pytest.UsageError(f"{KINGME} not found: run `cargo build --release` (or set KINGME_BIN)")


class Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise Timeout("kingme did not answer in time")


@pytest.fixture
def deadline():
    """Fails a test that hangs (pydraughts waits forever for an engine's answer)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def play_against_random(rng, kingme_colour, kingme_move):
    """An English game from the start: `kingme_move(board)` gives kingme's moves
    (each must be legal by pydraughts' own move generator), `rng` the other
    side's. Returns the final board and how many moves kingme made."""
    board = draughts.Board("english")
    kingme_moves = 0
    while not board.is_over():
        assert len(board.move_stack) < MAX_PLIES, "game did not end"
        legal = board.legal_moves()
        if board.turn == kingme_colour:
            move = kingme_move(board)
            assert move is not None, "kingme sent no move"
            legal_hub = {m.hub_position_move for m in legal}
            assert move.hub_position_move in legal_hub, (move.hub_move, board.fen)
            kingme_moves += 1
        else:
            move = rng.choice(legal)
        board.push(move)
    return board, kingme_moves
