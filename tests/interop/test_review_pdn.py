"""`kingme review --pdn`: the annotated games (values and depths as comments,
?!, ? and ?? marks, better moves as variations) read back through pydraughts'
PDN reader to the moves of the game reviewed, which pydraughts' own rules
replay."""

import subprocess

from draughts import Board
from draughts.PDN import PDNReader

from conftest import KINGME

GAME = """[Event "review"]
[Black "alice"]
[White "bob"]
[Result "*"]
[GameType "21"]

1. 11-15 23-19 2. 8-11 22-17 3. 15-18 19-15 4. 10x19 *

"""


def test_the_annotated_pdn_reads_back_through_pydraughts(tmp_path):
    src = tmp_path / "game.pdn"
    src.write_text(GAME)
    out = tmp_path / "reviewed.pdn"
    run = subprocess.run(
        [str(KINGME), "review", str(src), "--nodes", "2000", "--quiet", "--pdn", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    annotated = out.read_text()
    # the review marked something and wrote a value after every move
    assert "?" in annotated and "(" in annotated, annotated
    assert annotated.count("{") >= 7, annotated
    games = PDNReader(pdn_text=annotated).games
    assert len(games) == 1
    moves = games[0].moves
    assert moves == ["11-15", "23-19", "8-11", "22-17", "15-18", "19-15", "10x19"], moves
    board = Board(variant="english")
    for m in moves:
        legal = {("x" if l.captures else "-").join(map(str, l.steps_move)): l for l in board.legal_moves()}
        assert m in legal, (m, sorted(legal))
        board.push(legal[m])
