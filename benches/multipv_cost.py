"""MultiPV cost: nodes and time of `go depth D` at MultiPV 1 and 4 on the bench's
English positions (a new game and hash before each search, databases off).

Usage: cargo build --release && python3 benches/multipv_cost.py target/release/kingme [DEPTH]
"""
import subprocess, sys

from engine_io import field, last_info

BIN = sys.argv[1]
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 13
FENS = [
 "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
 "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9",
 "B:W18,19,21,23,24,26,27,29,30,31,32:B1,2,3,5,6,7,9,10,11,12,14",
 "W:W14,18,22,25,26,27,29,30:B1,3,5,6,9,11,12,15",
 "B:WK14,K22,27:B3,K9,12",
]
p = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(l): p.stdin.write(l + "\n"); p.stdin.flush()
def run(fen, mpv):
    send("newgame"); send(f"setoption name MultiPV value {mpv}"); send(f"position fen {fen}")
    last = last_info(p, f"go depth {DEPTH}\n")
    return field(last, "nodes"), field(last, "time"), field(last, "pv", str)
send("setoption name EGDBPieces value 0")
tot = {1: [0, 0], 4: [0, 0]}
print(f"depth {DEPTH}")
for fen in FENS:
    row = []
    for mpv in (1, 4):
        n, ms, bm = run(fen, mpv)
        tot[mpv][0] += n; tot[mpv][1] += ms
        row.append((n, ms, bm))
    (n1, t1, b1), (n4, t4, b4) = row
    print(f"{fen[:40]:40} MPV1 {n1:>10} nodes {t1:>6} ms | MPV4 {n4:>10} nodes {t4:>6} ms | x{n4/n1:.2f} nodes x{t4/max(t1,1):.2f} time | {b1} / {b4}")
(n1, t1), (n4, t4) = tot[1], tot[4]
print(f"TOTAL MPV1 {n1} nodes {t1} ms | MPV4 {n4} nodes {t4} ms | x{n4/n1:.2f} nodes x{t4/max(t1,1):.2f} time")
send("quit")
