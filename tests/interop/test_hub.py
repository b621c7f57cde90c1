"""pydraughts' HubEngine plays complete English games against `kingme hub`.

pydraughts moves at random on its side; every kingme move must be legal by
pydraughts' own move generator, and every game must end by the rules.
Needs target/release/kingme (`.ci/run` builds it) and pydraughts==0.6.7.
"""

import random
import subprocess
import threading
import time

import pytest

import draughts
from draughts.engine import HubEngine, Limit
from conftest import KINGME, play_against_random


@pytest.fixture
def engine(deadline):
    e = HubEngine([str(KINGME), "hub"])
    assert e.id["name"] == "kingme"
    assert {"variant", "level", "hash", "threads"} <= e.options
    assert {"english", "mini"} <= e.variants
    e.setoption("variant", "english")
    e.setoption("level", "hard")
    e.setoption("hash", 8)
    e.init()
    yield e
    e.quit()
    try:
        e.p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        e.kill_process()
    assert e.p.returncode == 0


def play_game(engine, rng, kingme_colour, limit):
    engine.send("new-game")
    return play_against_random(
        rng, kingme_colour, lambda board: engine.play(board, limit, ponder=False).move)


@pytest.mark.parametrize(
    "seed, kingme_colour, limit",
    [
        (1, draughts.BLACK, Limit(movetime=0.02)),
        (2, draughts.WHITE, Limit(movetime=0.02)),
        (3, draughts.BLACK, Limit(time=3, inc=0.01)),
        (4, draughts.WHITE, Limit(depth=4)),
    ],
    ids=["black-movetime", "white-movetime", "black-clock", "white-depth"],
)
def test_hub_full_game(engine, seed, kingme_colour, limit):
    rng = random.Random(seed)
    board, kingme_moves = play_game(engine, rng, kingme_colour, limit)
    assert kingme_moves > 0
    winner = board.winner()
    assert winner is not None
    # a strong engine against random moves should not lose
    assert winner in (kingme_colour, 0), f"kingme lost: {board.fen}"
    # info lines parse in pydraughts (one '=' per token) and carry a score
    assert "depth" in engine.info and "score" in engine.info


def test_hub_stays_silent_on_stderr(deadline):
    """pydraughts merges stderr into stdout: hub mode must not write there."""
    script = (
        "hub\nset-param name=variant value=english\nset-param name=level value=easy\n"
        "init\nping\nbogus command\nset-param name=level value=nonsense\n"
        'pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves="11-15"\n'
        "level move-time=0.02\ngo think\nquit\n"
    )
    p = subprocess.run(
        [str(KINGME), "hub"], input=script.encode(), capture_output=True, timeout=30
    )
    assert p.returncode == 0
    assert p.stderr == b""
    lines = p.stdout.decode().splitlines()
    assert lines[0].startswith("id name=kingme ")
    assert "ready" in lines and "pong" in lines
    assert any(line.startswith("error message=") for line in lines)
    # `quit` right after `go` ends the session: at most the one `done`
    assert len([line for line in lines if line.startswith("done ")]) <= 1


def test_hub_eof_after_go_still_answers(deadline):
    script = "hub\ninit\npos\nlevel move-time=0.05\ngo think\n"
    p = subprocess.run(
        [str(KINGME), "hub"], input=script.encode(), capture_output=True, timeout=30
    )
    assert p.returncode == 0 and p.stderr == b""
    done = [line for line in p.stdout.decode().splitlines() if line.startswith("done ")]
    assert len(done) == 1
    move = done[0].split()[1].split("=")[1]
    board = draughts.Board("english")
    assert move in {m.hub_move for m in board.legal_moves()}


def test_hub_ponder_then_ponder_hit(engine):
    """`go ponder` searches until pydraughts sends `ponder-hit`, then answers."""
    board = draughts.Board("english")
    board.push(board.legal_moves()[0])
    result = {}

    def think():
        result["play"] = engine.play(board, Limit(movetime=0.05), ponder=True)

    t = threading.Thread(target=think)
    t.start()
    time.sleep(0.3)
    assert t.is_alive(), "kingme answered a ponder search before ponder-hit"
    engine.ponderhit()
    t.join(timeout=10)
    assert not t.is_alive()
    move = result["play"].move
    assert move.hub_position_move in {m.hub_position_move for m in board.legal_moves()}
