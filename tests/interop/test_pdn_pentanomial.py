"""benches/pdn_pentanomial.py, the pooling of referee PDN files that RESULTS.md
cites: it must read the referee's PDN (A is Black in odd rounds) and give the
referee's own figures (clients/referee/src/stats.rs) for the same games."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benches" / "pdn_pentanomial.py"
FIXTURE = ROOT / "clients" / "web" / "tests" / "browser" / "fixtures" / "referee-english.pdn"


def run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=True
    ).stdout


def game(rnd, a_points):
    """A referee game record of round `rnd` in which engine A took `a_points`."""
    black = a_points if rnd % 2 == 1 else 1 - a_points
    result = {1: "2-0", 0: "0-2", 0.5: "1-1"}[black]
    return (
        f'[Event "kingme-referee match"]\n[Round "{rnd}"]\n[White "b"]\n[Black "a"]\n'
        f'[Result "{result}"]\n[GameType "21"]\n\n1. 11-15 {result}\n\n'
    )


def test_a_real_referee_file():
    # Round 1 of the fixture: A (Black) lost, 0-2; the pair is incomplete.
    out = run(FIXTURE)
    assert "1 game +0 =0 -1" in out
    assert "pairs" not in out


def test_pooled_pairs_give_the_referees_interval(tmp_path):
    # The pairs of the 1 s target with network generation 3, [0, 3, 64, 34, 2],
    # for which the referee's statistics give +59.6 [+40.2, +79.4].
    kinds = [((0, 0.5), 3), ((0.5, 0.5), 64), ((1, 0.5), 34), ((1, 1), 2)]
    first, rnd = [], 1
    for (p, q), count in kinds:
        for _ in range(count):
            first += [game(rnd, p), game(rnd + 1, q)]
            rnd += 2
    first.append(game(rnd, 1))  # an unpaired win counts in W/D/L only
    a = tmp_path / "a.pdn"
    a.write_text("".join(first))
    b = tmp_path / "b.pdn"
    b.write_text(game(1, 0))  # another file's unpaired loss
    out = run(a, b, "--sprt", "0,5").splitlines()[-1]
    assert out.startswith("all: 208 games +39 =165 -4")
    assert "pairs [0, 3, 64, 34, 2], +59.6 [+40.2, +79.4]" in out
    assert "LLR 3.00 for [0, 5]" in out
    # The first 6 rounds of the first file: three pairs of a loss and a draw.
    head = run(a, "--max-round", "6")
    assert "6 games +0 =3 -3" in head and "pairs [0, 3, 0, 0, 0]" in head
