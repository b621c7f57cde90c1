#!/usr/bin/env python3
"""Pools the games of kingme-referee PDN files: engine A's wins, draws and
losses, the pairs of games on one opening by A's points (pentanomial), and the
Elo of each with its 95% interval, computed as the referee computes them
(clients/referee/src/stats.rs: normal approximation, per game and per pair).

    python3 benches/pdn_pentanomial.py run1.pdn run2.pdn [--sprt 0,5] [--per-file]

Engine A is the referee's `--engine-a`: the referee plays round 2k-1 with A as
Black and round 2k with A as White, on the same opening, so a file's rounds
2k-1 and 2k are one pair. A pair is counted only when both of its games are in
the file; an unfinished or unpaired game counts in W/D/L alone, as in the
referee's own report. `--max-round N` keeps rounds 1 to N of each file, so runs
with the same `--seed` are compared over the same openings.
"""

import argparse
import math
import re
import sys

TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
# A's points from the result (Black's score first), when A is Black.
BLACK_POINTS = {"2-0": 1.0, "1-0": 1.0, "0-2": 0.0, "0-1": 0.0, "1-1": 0.5, "1/2-1/2": 0.5}


def games(path):
    """The tag dictionaries of a PDN file's games, in file order."""
    out, tags = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = TAG.match(line.strip())
            if m:
                if tags is None:
                    tags = {}
                    out.append(tags)
                tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
            elif line.strip():
                tags = None  # movetext: the next tag starts a new game
    return out


def a_points(tags):
    """(round, A's points) of one game, or None when it has no result."""
    points = BLACK_POINTS.get(tags.get("Result", "*"))
    if points is None or "Round" not in tags:
        return None
    rnd = int(tags["Round"])
    return rnd, points if rnd % 2 == 1 else 1.0 - points


def elo(score):
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def interval(mean, var, n):
    margin = 1.959964 * math.sqrt(var / max(n, 1))
    return elo(mean), elo(mean - margin), elo(mean + margin)


def llr(n, mean, var, elo0, elo1):
    """The GSPRT log-likelihood ratio (normal approximation), as the referee's."""
    if n == 0 or var <= 0.0:
        return 0.0
    s0, s1 = (1.0 / (1.0 + 10 ** (-e / 400.0)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def penta_stats(pairs):
    n = sum(pairs)
    if n == 0:
        return 0, 0.5, 0.0
    mean = sum(c * k / 4.0 for k, c in enumerate(pairs)) / n
    var = sum(c * (k / 4.0 - mean) ** 2 for k, c in enumerate(pairs)) / n
    return n, mean, var


def fmt(e):
    if math.isinf(e):
        return "+inf" if e > 0 else "-inf"
    return f"{round(e, 1) + 0.0:+.1f}"


def tally(paths, max_round):
    """W/D/L and the pentanomial counts of A over these files."""
    wdl, pairs = [0, 0, 0], [0] * 5
    for path in paths:
        by_round = {}
        for tags in games(path):
            g = a_points(tags)
            if g is None or (max_round and g[0] > max_round):
                continue
            rnd, p = g
            by_round[rnd] = p
            wdl[0 if p == 1.0 else 1 if p == 0.5 else 2] += 1
        for rnd, p in by_round.items():
            if rnd % 2 == 1 and rnd + 1 in by_round:
                pairs[round((p + by_round[rnd + 1]) * 2)] += 1
    return wdl, pairs


def report(label, wdl, pairs, sprt):
    w, d, l = wdl
    n = w + d + l
    if n == 0:
        print(f"{label}: no finished games")
        return
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n
    e, lo, hi = interval(s, var, n)
    games = "game" if n == 1 else "games"
    line = f"{label}: {n} {games} +{w} ={d} -{l}, {100 * s:.1f}%, {fmt(e)} [{fmt(lo)}, {fmt(hi)}]"
    np_, mean, pvar = penta_stats(pairs)
    if np_:
        pe, plo, phi = interval(mean, pvar, np_)
        line += f"; pairs {pairs}, {fmt(pe)} [{fmt(plo)}, {fmt(phi)}]"
        if sprt:
            if pvar <= 0.0:  # all pairs alike: borrow the variance, as the referee does
                _, _, pvar = penta_stats([c + 1 for c in pairs])
            line += f"; LLR {llr(np_, mean, pvar, *sprt):.2f} for [{sprt[0]:g}, {sprt[1]:g}]"
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdn", nargs="+", help="referee PDN files (--pdn)")
    ap.add_argument("--sprt", help="ELO0,ELO1: also print the pooled pairs' LLR")
    ap.add_argument("--per-file", action="store_true", help="a line for each file too")
    ap.add_argument("--max-round", type=int, default=0, help="only rounds 1 to N of each file")
    args = ap.parse_args()
    sprt = tuple(float(x) for x in args.sprt.split(",")) if args.sprt else None
    if args.per_file:
        for path in args.pdn:
            report(path, *tally([path], args.max_round), sprt)
    label = "all" if len(args.pdn) > 1 else args.pdn[0]
    report(label, *tally(args.pdn, args.max_round), sprt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
