#!/usr/bin/env python3
"""ProbCut calibration: how far a search DEEP plies deep moves from one
REDUCTION plies shallower, for each evaluation.

Positions: the ACF 3-move ballots, each followed by a few moves of the
engine's own principal variation (a seeded random number of plies), so that
they are middlegames the engine meets. For each position and evaluation the
engine searches to DEEP plies in one iterative deepening and reports its
score at every depth; the difference between the score at DEEP and at
DEEP - REDUCTION is what ProbCut bets on (kingme's search cuts a node when
the shallower search clears beta by PROBCUT_MARGIN). Prints, per
evaluation, the mean and standard deviation of the difference and the
share of differences beyond a few margins.

    python3 benches/probcut_sigma.py --kingme target/release/kingme \
        --ballots src/openings/3move_english.json --positions 300 \
        --deep 13 --reduction 4 --evals patterns network
"""

import argparse
import json
import random
import statistics
import subprocess
import sys


def engine(path, evalfile):
    p = subprocess.Popen(
        [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    send(p, f"setoption name EvalFile value {evalfile}")
    send(p, "setoption name EGDBPieces value 0")
    return p


def send(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def search(p, fen, moves, depth):
    """Scores (centi-men) by depth, and the best move."""
    send(p, "newgame english")
    send(p, f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
    send(p, f"go depth {depth}")
    scores = {}
    for line in p.stdout:
        words = line.split()
        if not words:
            continue
        if words[0] == "bestmove":
            return scores, words[1] if len(words) > 1 else None
        if words[0] == "error":
            raise RuntimeError(line.strip())
        if words[0] == "info" and "depth" in words and "score" in words:
            d = int(words[words.index("depth") + 1])
            kind, value = words[words.index("score") + 1 : words.index("score") + 3]
            if kind == "cp":
                scores[d] = int(value)
            else:
                scores.pop(d, None)
    raise RuntimeError("the engine closed its output")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kingme", default="target/release/kingme")
    ap.add_argument("--ballots", default="src/openings/3move_english.json", help="3move_english.json (pydraughts' ballots)")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--deep", type=int, default=13)
    ap.add_argument("--reduction", type=int, default=4)
    ap.add_argument("--plies", type=int, default=12, help="PV plies after the ballot: 0 to this")
    ap.add_argument("--evals", nargs="+", default=["patterns", "network"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    ballots = list(json.load(open(args.ballots))["all"].values())
    rng = random.Random(args.seed)
    picks = [(rng.choice(ballots), rng.randint(0, args.plies)) for _ in range(args.positions)]
    # the positions: each ballot and PV moves of the first evaluation's engine
    first = engine(args.kingme, args.evals[0])
    positions = []
    for fen, plies in picks:
        moves = []
        for _ in range(plies):
            _, best = search(first, fen, moves, 8)
            if best is None or best == "none":
                break
            moves.append(best)
        positions.append((fen, moves))
    send(first, "quit")

    shallow = args.deep - args.reduction
    print(f"{len(positions)} positions, score at depth {args.deep} minus depth {shallow} (centi-men)")
    for ev in args.evals:
        p = engine(args.kingme, ev)
        diffs = []
        for fen, moves in positions:
            scores, _ = search(p, fen, moves, args.deep)
            if args.deep in scores and shallow in scores:
                diffs.append(scores[args.deep] - scores[shallow])
        send(p, "quit")
        if len(diffs) < 2:
            print(f"{ev}: too few scored positions", file=sys.stderr)
            continue
        sd = statistics.pstdev(diffs)
        beyond = {m: sum(abs(d) > m for d in diffs) / len(diffs) for m in (30, 50, 70, 100)}
        shares = ", ".join(f">{m}: {s:.1%}" for m, s in beyond.items())
        print(f"{ev:10} n {len(diffs)} mean {statistics.mean(diffs):+.1f} sd {sd:.1f} |diff| {shares}")


if __name__ == "__main__":
    main()
