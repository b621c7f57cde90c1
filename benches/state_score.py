#!/usr/bin/env python3
"""One engine's score in a kingme-referee state file (`--resume STATE`), as
RESULTS.md's match tables give it: W/D/L, the score, the pentanomial (its
opening pairs by points, from two losses to two wins), the Elo per pair with
its 95% interval (normal approximation, as the referee computes it:
clients/referee/src/stats.rs) and the openings whose pair it lost. A game the
state holds with no result yet is not counted; an opening with one game
counts in W/D/L alone.

    python3 benches/state_score.py STATE NAME
"""

import argparse
import collections
import json
import math
import sys


def points(game, name):
    """NAME's points in a finished game (results give Black's points first)."""
    result = game["result"]
    if result in ("1-1", "1/2-1/2"):
        return 0.5
    black_won = result.split("-")[0] in ("2", "1")
    return 1.0 if black_won == (game["black"] == name) else 0.0


def elo(score):
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("state")
    ap.add_argument("name")
    a = ap.parse_args()
    with open(a.state, encoding="utf-8") as f:
        games = json.load(f)["games"]
    mine = [g for g in games if a.name in (g["black"], g["white"]) and g.get("result")]
    if not mine:
        sys.exit(f"error: no finished game of {a.name} in {a.state}")
    pts = [points(g, a.name) for g in mine]
    w, d = pts.count(1.0), pts.count(0.5)
    l = len(pts) - w - d
    by_opening = collections.defaultdict(list)
    for g, p in zip(mine, pts):
        by_opening[g["opening"]].append(p)
    pairs = [sum(v) for v in by_opening.values() if len(v) == 2]
    pent = [0] * 5
    for p in pairs:
        pent[round(p * 2)] += 1
    line = f"{a.name}: {len(mine)} games +{w} ={d} -{l}, {100 * (w + d / 2) / len(mine):.2f}%"
    if pairs:
        n = len(pairs)
        mean = sum(pairs) / n / 2
        var = sum((p / 2 - mean) ** 2 for p in pairs) / n
        margin = 1.959964 * math.sqrt(var / n)
        line += f", pairs {pent}, {elo(mean):+.1f} [{elo(mean - margin):+.1f}, {elo(mean + margin):+.1f}]"
        lost = sorted(k for k, v in by_opening.items() if len(v) == 2 and sum(v) < 1)
        line += f", pairs lost: {', '.join(lost) if lost else 'none'}"
    print(line)


if __name__ == "__main__":
    main()
