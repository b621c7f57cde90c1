#!/usr/bin/env python3
"""What the transposition table's size saves: the nodes a fixed-depth search
needs along real games, for each `Hash` size. For each of the first GAMES
games of referee PDN files, one kingme process per Hash size searches every
EVERY-th position of the game's first PLIES plies to DEPTH, in order, without
`newgame` between them, so the table carries from move to move as in a game.
Prints, per Hash size, the nodes summed over every search and their ratio to
the first size's.

    python3 benches/hash_nodes.py --kingme target/release/kingme --pdn match.pdn \
        --games 8 --depth 22 --plies 40 --every 2 --hash 16 64 128 256

The games are taken in file order, so a run is repeatable; every search is on
one thread (the engine's default), so its node count does not depend on timing.
"""

import argparse
import re
import subprocess
import sys

from engine_io import field, last_info


def games(paths, count):
    """(start FEN or None, moves) of the first `count` games of the PDN files."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.split(r"\n(?=\[Event )", text):
            tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', block))
            if "Result" not in tags:
                continue
            body = block.split("\n\n", 1)[1] if "\n\n" in block else ""
            body = re.sub(r"\{[^}]*\}", " ", body)
            out.append((tags.get("FEN"), re.findall(r"\d+(?:[-x]\d+)+", body)))
            if len(out) == count:
                return out
    return out


def game_nodes(kingme, hash_mib, options, fen, moves, depth, plies, every):
    """Nodes summed over the searches along one game, one process."""
    p = subprocess.Popen(
        [kingme], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    send(f"setoption name Hash value {hash_mib}")
    for name, value in options:
        send(f"setoption name {name} value {value}")
    start = f"position fen {fen}" if fen else "position startpos"
    total = 0
    for k in range(0, min(plies, len(moves) + 1), every):
        send(f"{start} moves {' '.join(moves[:k])}" if k else start)
        try:
            last = last_info(p, f"go depth {depth}\n")
        except RuntimeError as e:
            sys.exit(f"{e} (Hash {hash_mib}, ply {k})")
        nodes = field(last, "nodes") if last else 0
        total += nodes
    send("quit")
    p.wait()
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kingme", default="target/release/kingme")
    ap.add_argument("--pdn", nargs="+", required=True, help="referee PDN files")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--depth", type=int, default=22)
    ap.add_argument("--plies", type=int, default=40, help="search positions of plies 0 to this")
    ap.add_argument("--every", type=int, default=2, help="every N-th ply")
    ap.add_argument("--hash", type=int, nargs="+", default=[16, 64, 128, 256], help="MiB")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, repeatable")
    a = ap.parse_args()
    options = [o.split("=", 1) for o in a.option]
    picked = games(a.pdn, a.games)
    if not picked:
        sys.exit("no games in the PDN files")
    first = None
    for mib in a.hash:
        total = sum(
            game_nodes(a.kingme, mib, options, fen, moves, a.depth, a.plies, a.every)
            for fen, moves in picked
        )
        first = first or total
        print(f"Hash {mib} MiB: {total} nodes ({total / first:.2f})", flush=True)


if __name__ == "__main__":
    main()
