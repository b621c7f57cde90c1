#!/usr/bin/env python3
"""Memory of engines playing with the endgame databases (issue 27).

Starts K kingme processes that all use the databases in DIR, lets each read
them (an `isready` after EGDBPath waits for the small slices; then a search of
an endgame position and a pause let the rest load), and prints for each
process its resident memory (RSS), its proportional share (PSS, the pages
it shares with the others counted as a fraction) and how much of its RSS is
shared with other processes, from /proc/PID/smaps_rollup (Linux).

Compact (version 3 and 4) files are memory-mapped: the processes share one copy in
the page cache. Version 1 files are read into each process's own memory.

    python3 benches/egdb_memory.py --kingme target/release/kingme \
        --dir ~/.local/share/kingme/egdb --engines 2
"""
import argparse
import subprocess
import sys
import time

ENDGAME = "W:WK10,K19,22:BK3,12,K27"


def rollup(pid):
    """The kB figures of /proc/PID/smaps_rollup, by name."""
    out = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[-1] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1])
    return out


class Engine:
    def __init__(self, exe, egdb_dir):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send(f"setoption name EGDBPath value {egdb_dir}")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine closed")
            if line.startswith(prefix):
                return line

    def close(self):
        self.send("quit")
        self.p.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kingme", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--engines", type=int, default=2)
    ap.add_argument("--movetime", type=int, default=2000, help="ms of search of an endgame position")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds to wait for the slices to load")
    a = ap.parse_args()
    engines = [Engine(a.kingme, a.dir) for _ in range(a.engines)]
    for e in engines:
        e.send("isready")
        e.until("readyok")
        e.send(f"position fen {ENDGAME}")
        e.send(f"go movetime {a.movetime}")
    for e in engines:
        e.until("bestmove")
    time.sleep(a.settle)
    print(f"{a.engines} engines with the databases in {a.dir}")
    for i, e in enumerate(engines):
        r = rollup(e.p.pid)
        shared = r.get("Shared_Clean", 0) + r.get("Shared_Dirty", 0)
        print(f"engine {i}: rss {r['Rss'] / 1024:.1f} MB, pss {r['Pss'] / 1024:.1f} MB, "
              f"shared with others {shared / 1024:.1f} MB")
    for e in engines:
        e.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
