#!/usr/bin/env python3
"""Two kingme engines' scores against the same opponent over the same
openings, from kingme-referee state files (`--resume STATE`): each engine's
score, the mean difference of their pair scores (a pair: the two games of one
opening, colours swapped; 2 points) with its 95% interval, and how many
openings each did better on. With `--time`, each engine's and each opponent's
seconds a move, from the games' move comments.

    python3 benches/paired_openings.py --a tm1 --b base tc1.state.json
    python3 benches/paired_openings.py --a new --b old new.state.json old.state.json --time

Engine A is looked for in the first state file, B in the last (one file may
hold both, as a gauntlet's does). Only openings both engines completed count.
"""

import argparse
import collections
import json
import math
import re
import sys

TIME = re.compile(r"([0-9.]+)s$")


def result_points(result, side):
    """Points for `side` ("black" or "white") from a result (Black's first)."""
    if result in ("1-1", "1/2-1/2"):
        return 0.5
    black = result.split("-")[0]
    black_won = black in ("2", "1")
    return 1.0 if black_won == (side == "black") else 0.0


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["games"]


def pair_scores(games, engine):
    """Points of `engine` on each opening, with the number of its games there."""
    points = collections.defaultdict(float)
    count = collections.Counter()
    for g in games:
        for side in ("black", "white"):
            if g[side] == engine:
                points[g["opening"]] += result_points(g["result"], side)
                count[g["opening"]] += 1
    return {o: p for o, p in points.items() if count[o] == 2}


def time_use(games):
    """Seconds a move and a game by (engine, its opponent), from move comments."""
    per_move = collections.defaultdict(list)
    per_game = collections.defaultdict(list)
    for g in games:
        first = "black" if g["fen"].startswith("B") else "white"
        order = (first, "white" if first == "black" else "black")
        total = collections.Counter()
        for i, comment in enumerate(g.get("comments") or []):
            m = TIME.search(comment or "")
            if m:
                name = g[order[i % 2]]
                per_move[name].append(float(m.group(1)))
                total[name] += float(m.group(1))
        for name, t in total.items():
            per_game[name].append(t)
    return per_move, per_game


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="engine A's name in the state file")
    ap.add_argument("--b", required=True, help="engine B's name")
    ap.add_argument("--time", action="store_true", help="also seconds a move")
    ap.add_argument("states", nargs="+", help="one state file, or A's and B's")
    args = ap.parse_args()
    if len(args.states) > 2:
        ap.error("give one state file, or two (A's, then B's)")
    games_a, games_b = load(args.states[0]), load(args.states[-1])
    sa, sb = pair_scores(games_a, args.a), pair_scores(games_b, args.b)
    common = sorted(set(sa) & set(sb))
    if len(common) < 2:
        sys.exit(f"error: {args.a} and {args.b} share {len(common)} completed openings (need 2)")
    d = [sa[o] - sb[o] for o in common]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    score_a = sum(sa[o] for o in common) / (2 * n)
    score_b = sum(sb[o] for o in common) / (2 * n)
    print(f"{n} openings: {args.a} {100 * score_a:.2f}%, {args.b} {100 * score_b:.2f}%")
    print(f"pair difference {mean:+.3f} ± {1.96 * sd / math.sqrt(n):.3f} (95%); "
          f"openings {args.a} did better on {sum(x > 0 for x in d)}, worse on {sum(x < 0 for x in d)}")
    if args.time:
        for label, games in (("A's file", games_a), ("B's file", games_b)):
            per_move, per_game = time_use(games)
            for name in sorted(per_move):
                v, g = per_move[name], per_game[name]
                print(f"{label}: {name}: {sum(v) / len(v):.3f} s a move, "
                      f"{sum(g) / len(g):.1f} s a game, {len(v)} moves")
            if args.states[0] == args.states[-1]:
                break


if __name__ == "__main__":
    main()
