#!/usr/bin/env python3
"""Conversion benchmark for the endgame databases (issue 11).

Draws random English positions of 3..N pieces that the databases call won for
the side to move, then plays each out between two kingme processes that both
use the databases, at a fixed time per move, and prints how many the winner
actually won (the rest: drawn by the 40-move rule or repetition, or lost).

    python3 benches/egdb_conversion.py --kingme target/release/kingme \
        --dir ~/.local/share/kingme/egdb --pieces 5 --games 200 --movetime 100
"""
import argparse
import random
import subprocess
import sys
import time


def random_position(rng, pieces):
    """A random legal-looking English FEN with `pieces` pieces, both sides present."""
    while True:
        squares = rng.sample(range(1, 33), pieces)
        nblack = rng.randint(1, pieces - 1)
        black, white = squares[:nblack], squares[nblack:]
        def side(sqs, crown_row):
            out = []
            for s in sorted(sqs):
                king = s in crown_row or rng.random() < 0.5
                out.append(("K" if king else "") + str(s))
            return ",".join(out)
        turn = rng.choice("BW")
        return f"{turn}:W{side(white, range(1, 5))}:B{side(black, range(29, 33))}"


class Engine:
    def __init__(self, exe, egdb_dir):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send(f"setoption name EGDBPath value {egdb_dir}")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine closed: " + "\n".join(lines))
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def play(engines, fen, movetime, max_plies=400):
    """Plays `fen` out; returns (result for the side to move at the start, plies)."""
    moves = []
    first = fen[0]
    for ply in range(max_plies):
        turn = first if ply % 2 == 0 else ("W" if first == "B" else "B")
        e = engines[0] if turn == first else engines[1]
        pos = f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        e.send(pos)
        e.send(f"go movetime {movetime}")
        lines = e.until("bestmove")
        over = [l for l in lines if l.startswith("gameover")]
        if over:
            # gameover 2-0|0-2|1-1 ...: Black's result first
            res = over[0].split()[1]
            if res == "1-1":
                return "draw", ply
            winner = "B" if res == "2-0" else "W"
            return ("win" if winner == first else "loss"), ply
        moves.append(lines[-1].split()[1])
    return "unfinished", max_plies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kingme", default="target/release/kingme")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--pieces", type=int, default=5)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # candidates, probed in one batch
    cands = [random_position(rng, rng.randint(3, a.pieces)) for _ in range(a.games * 12)]
    out = subprocess.run([a.kingme, "egdb", "probe", "--dir", a.dir], input="\n".join(cands),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    won = [l.rsplit(" ", 1)[0] for l in out if l.endswith(" win")]
    # keep positions where a move exists and that aren't over at once
    won = won[: a.games]
    if len(won) < a.games:
        sys.exit(f"only {len(won)} won positions drawn")
    engines = [Engine(a.kingme, a.dir), Engine(a.kingme, a.dir)]
    tally = {}
    longest = 0
    t0 = time.time()
    for i, fen in enumerate(won):
        r, plies = play(engines, fen, a.movetime)
        tally[r] = tally.get(r, 0) + 1
        if r == "win":
            longest = max(longest, plies)
        else:
            print(f"not converted: {fen} -> {r} after {plies} plies", flush=True)
    for e in engines:
        e.close()
    print(f"{a.games} won positions of 3-{a.pieces} pieces, {a.movetime} ms/move: "
          f"won {tally.get('win', 0)}, drawn {tally.get('draw', 0)}, lost {tally.get('loss', 0)}, "
          f"unfinished {tally.get('unfinished', 0)}; longest win {longest} plies; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
