"""Shots an engine missed in refereed games, and whether other binaries find them.

Reads referee state files (`kingme-referee --resume STATE`), takes every pair of
consecutive moves of ENGINE (by its label) whose reported score fell by at least
--drop centi-men (both searched to depth 10 or more, neither a win or loss
score): the opponent's move between them is the shot ENGINE did not see. Then,
for each binary given, searches the position before the shot (the opponent to
move) for --ms milliseconds and prints the move it chooses and its score; a
binary "finds" the shot when it plays the opponent's move with a score of at
least --found centi-men, and "sees" it when it scores the position at least
--found whatever move it plays (another winning move). It also searches the
position before ENGINE's move (ENGINE to move): a binary "avoids" the shot
when it plays another move there.

Usage: python3 benches/missed_shots.py --engine LABEL [--drop 150] [--ms 1000]
           [--found 100] [--max-score 400] STATE... -- BINARY...
"""
import argparse, json, re, subprocess, sys

from engine_io import field, last_info


def scored(comment):
    # an exact value ("=") is the databases', not a search's
    m = re.match(r"([+-]?[0-9.]+)/(\d+)", comment)
    return (round(float(m.group(1)) * 100), int(m.group(2))) if m else None


def shots(path, engine, drop, max_score):
    state = json.load(open(path))
    for g in state["games"]:
        if engine not in (g["black"], g["white"]):
            continue
        mine = [(i,) + v for i, c in enumerate(g["comments"]) if (v := scored(c))]
        for (i, a, da), (j, b, db) in zip(mine, mine[1:]):
            if j == i + 2 and a - b >= drop and min(da, db) >= 10 and abs(a) <= max_score:
                yield g["opening"], g["fen"], g["moves"][: i + 1], g["moves"][i + 1], a, b


def search(binary, fen, moves, ms):
    script = f"position fen {fen} moves {' '.join(moves)}\ngo movetime {ms}\n"
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    last = last_info(p, script)
    p.stdin.write("quit\n")
    p.stdin.close()
    p.wait()
    score = {"cp": lambda: field(last, "cp"), "draw": lambda: 0, "win": lambda: 10000, "loss": lambda: -10000}[
        field(last, "score", str)
    ]()
    return field(last, "pv", str), score, field(last, "depth")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("give the binaries after --")
    k = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True)
    ap.add_argument("--drop", type=int, default=150)
    ap.add_argument("--ms", type=int, default=1000)
    ap.add_argument("--found", type=int, default=100)
    ap.add_argument("--max-score", type=int, default=400)
    ap.add_argument("state", nargs="+")
    a = ap.parse_args(argv[:k])
    binaries = argv[k + 1 :]
    found = {b: 0 for b in binaries}
    seen = {b: 0 for b in binaries}
    avoided = {b: 0 for b in binaries}
    n = 0
    for path in a.state:
        for opening, fen, moves, shot, before, after in shots(path, a.engine, a.drop, a.max_score):
            n += 1
            print(f"{opening[:7]} ply {len(moves)} shot {shot} ({before:+d} -> {after:+d})")
            for b in binaries:
                move, score, depth = search(b, fen, moves, a.ms)
                hit = move == shot and score >= a.found
                found[b] += hit
                seen[b] += score >= a.found
                mark = "  found" if hit else ("  sees" if score >= a.found else "")
                before_move, before_score, before_depth = search(b, fen, moves[:-1], a.ms)
                avoid = before_move != moves[-1]
                avoided[b] += avoid
                print(
                    f"  {b}: {move} {score:+d}/{depth}{mark}; before: {before_move} "
                    f"{before_score:+d}/{before_depth}{'  avoids' if avoid else ''}"
                )
    for b in binaries:
        print(f"{b}: found {found[b]}, sees {seen[b]}, avoids {avoided[b]} of {n}")


main()
