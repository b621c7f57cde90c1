#!/usr/bin/env python3
"""How often Contempt changes the engine's move: positions of 7 to 10 pieces
(by default) from the drawn games of referee PDN files, each searched to a
fixed depth with Contempt 0 and with Contempt N; prints each position whose
move differs (with both moves and scores) and the count.

    python3 benches/contempt_moves.py --kingme target/release/kingme \
        --pdn match.pdn --contempt 20 --depth 15 --positions 80

The positions are shuffled with a seed, so a run is repeatable.
"""

import argparse
import random
import re
import subprocess
import sys


def session(kingme, text):
    """Runs one kingme session over stdio with `text` as its input."""
    return subprocess.run(
        [kingme], input=text, capture_output=True, text=True, check=True
    ).stdout


def drawn_games(paths):
    """(start FEN, moves) of every drawn game in the PDN files."""
    games = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        for block in re.split(r"\n(?=\[Event )", text):
            tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', block))
            if tags.get("Result") != "1-1" or "FEN" not in tags:
                continue
            body = block.split("\n\n", 1)[1] if "\n\n" in block else ""
            games.append((tags["FEN"], re.findall(r"\d+(?:[-x]\d+)+", body)))
    return games


def fen_after(kingme, fen, moves):
    """The FEN after `moves` from `fen`, as the engine's `board` prints it."""
    out = session(kingme, f"position fen {fen} moves {' '.join(moves)}\nboard\n")
    lines = [l for l in out.splitlines() if l.startswith("fen ")]
    if not lines:
        sys.exit(f"no position after {moves} from {fen}:\n{out}")
    return lines[-1].split()[1]


def best(kingme, fen, contempt, depth):
    """The engine's move and last score at `depth` with `contempt`."""
    out = session(
        kingme,
        f"setoption name Contempt value {contempt}\nposition fen {fen}\ngo depth {depth}\n",
    )
    moves = re.findall(r"bestmove (\S+)", out)
    scores = re.findall(r"score (\S+(?: \S+)?) nodes", out)
    return (moves[-1] if moves else None, scores[-1] if scores else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kingme", default="target/release/kingme")
    ap.add_argument("--pdn", nargs="+", required=True)
    ap.add_argument("--contempt", type=int, default=20)
    ap.add_argument("--depth", type=int, default=15)
    ap.add_argument("--positions", type=int, default=80)
    ap.add_argument("--min-pieces", type=int, default=7)
    ap.add_argument("--max-pieces", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    plies = [(fen, moves[:k]) for fen, moves in drawn_games(a.pdn) for k in range(len(moves))]
    random.Random(a.seed).shuffle(plies)
    searched = differ = 0
    for fen, moves in plies:
        pos = fen_after(a.kingme, fen, moves)
        pieces = len(re.findall(r"\d+", pos.split(":", 1)[1]))
        if not a.min_pieces <= pieces <= a.max_pieces:
            continue
        plain = best(a.kingme, pos, 0, a.depth)
        other = best(a.kingme, pos, a.contempt, a.depth)
        searched += 1
        if plain[0] != other[0]:
            differ += 1
            print(f"{pos}  contempt 0: {plain[0]} ({plain[1]})  contempt {a.contempt}: {other[0]} ({other[1]})", flush=True)
        if searched >= a.positions:
            break
    print(f"positions {searched}, moves changed by contempt {a.contempt}: {differ}")


if __name__ == "__main__":
    main()
