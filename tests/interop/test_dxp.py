"""pydraughts' DXPEngine plays complete English games against `kingme dxp`.

kingme listens on a free loopback port (it binds port 0 and says which on
stderr); pydraughts is the DXP initiator and moves at random on its side.
Every kingme move must be legal by pydraughts' own move generator, and every
game must end by the rules. Needs target/release/kingme and pydraughts==0.6.7.
"""

import random
import re
import subprocess
import threading
import time

import pytest

import draughts
from draughts.engine import DXPEngine
from conftest import KINGME, play_against_random


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A `kingme dxp` on 127.0.0.1 with a free port; yields the port."""
    log = tmp_path_factory.mktemp("dxp") / "kingme-dxp.log"
    with open(log, "wb") as err:
        p = subprocess.Popen(
            [str(KINGME), "dxp", "--listen", "127.0.0.1:0", "--level", "hard", "--movetime", "30"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    quits = []
    try:
        port = None
        for _ in range(100):
            m = re.search(r"kingme dxp listening on 127\.0\.0\.1:(\d+)", log.read_text())
            if m:
                port = int(m.group(1))
                break
            assert p.poll() is None, log.read_text()
            time.sleep(0.05)
        assert port, "kingme dxp did not start"
        yield port, quits
    finally:
        # pydraughts' quit() sleeps 7 s closing its socket: the games' quits run
        # in the background, overlapping, and are waited for here
        for t in quits:
            t.join(timeout=30)
        p.terminate()
        p.wait(timeout=10)
        text = log.read_text()
        assert "panicked" not in text, text
        assert text.count("game accepted") >= 2, text
        assert "minutes=2 " in text, text


def play_game(port, rng, kingme_colour, initial_time):
    engine = DXPEngine(options={"port": port, "initial-time": initial_time})
    try:
        board, kingme_moves = play_against_random(
            rng, kingme_colour, lambda board: engine.play(board).move)
    finally:
        quitter = threading.Thread(target=engine.quit)
        quitter.start()
    assert engine.id.get("name") == "kingme"
    return board, kingme_moves, quitter


@pytest.mark.parametrize(
    "seed, kingme_colour, initial_time",
    [(1, draughts.BLACK, 0), (2, draughts.WHITE, 120)],
    ids=["kingme-black-no-clock", "kingme-white-2min-clock"],
)
def test_dxp_full_game(server, deadline, seed, kingme_colour, initial_time):
    port, quits = server
    board, kingme_moves, quitter = play_game(port, random.Random(seed), kingme_colour, initial_time)
    quits.append(quitter)
    assert kingme_moves > 0
    winner = board.winner()
    assert winner is not None
    assert winner in (kingme_colour, 0), f"kingme lost: {board.fen}"
