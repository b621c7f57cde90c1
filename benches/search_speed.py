"""Search speed of two kingme binaries, interleaved (this VM's speed drifts, so
only runs taken turn about compare): `kingme bench --depth-delta D` summed over
the rounds, and a game-like search (`go nodes N` from three positions, one
process and one table kept across them, as in a game; `dN` for NODES searches
to depth N instead, which compares changes that alter the tree). Prints each binary's
nodes, summed time and the ratio of the first's time to the second's; the node
counts must match for a pure speed change.

Usage: cargo build --release && python3 benches/search_speed.py NEW BASE [ROUNDS] [NODES] [DEPTH_DELTA]
"""
import re, subprocess, sys

from engine_io import field, last_info

NEW, BASE = sys.argv[1], sys.argv[2]
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 4
NODES = sys.argv[4] if len(sys.argv) > 4 else "4000000"
GO = f"go depth {NODES[1:]}" if NODES.startswith("d") else f"go nodes {int(NODES)}"
DELTA = sys.argv[5] if len(sys.argv) > 5 else "1"
FENS = [
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,6,7,8,9,10,11,12,14",
    "B:W18,22,23,24,25,26,27,28,30,31,32:B1,2,3,4,5,6,8,9,10,11,12",
]


def bench(binary):
    out = subprocess.run([binary, "bench", "--depth-delta", DELTA], capture_output=True, text=True, check=True)
    m = re.search(r"^nodes (\d+) time ([0-9.]+)s", out.stdout, re.M)
    return int(m.group(1)), float(m.group(2))


def game_like(binary):
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    nodes = ms = 0
    for fen in FENS:
        last = last_info(p, f"position fen {fen}\n{GO}\n")
        nodes += field(last, "nodes")
        ms += field(last, "time")
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    return nodes, ms


tot = {b: {"bench": [0, 0.0], "game": [0, 0]} for b in (NEW, BASE)}
for r in range(ROUNDS):
    for b in (NEW, BASE) if r % 2 == 0 else (BASE, NEW):
        n, t = bench(b)
        tot[b]["bench"] = [n, tot[b]["bench"][1] + t]
        n, ms = game_like(b)
        tot[b]["game"] = [n, tot[b]["game"][1] + ms]
for kind, unit in (("bench", "s"), ("game", "ms")):
    (nn, tn), (nb, tb) = tot[NEW][kind], tot[BASE][kind]
    print(f"{kind:5} new {nn} nodes {tn:.3f} {unit} | base {nb} nodes {tb:.3f} {unit} | time ratio {tn / tb:.3f}"
          + ("" if nn == nb else "  (node counts differ)"))
