#!/bin/bash
# A kingme binary against Cake (or another per-move peer behind peer_shim.py):
# the strength measure RESULTS.md's "Against outside engines" table records.
# 200 games from the ACF ballots, both colours, seed 7 (so every run plays the
# same openings in the same order), two games at once, games ended at the
# first position the adjudication databases know; resumable (run it again
# after a stop and it goes on from its state file), then prints the score.
#
#   benches/peer_gauntlet.sh [options] NAME KINGME_DIR MOVETIME_MS [-- REFEREE_ARGS...]
#
# NAME labels the kingme engine; KINGME_DIR holds `kingme` and `kingme-referee`
# (copy them out of the tree first: a rebuild must not replace a binary a
# running match uses). REFEREE_ARGS go to the referee as they are, for example
# `--option NAME:EGDBPath=DIR`. Options:
#   --runs DIR      where the run's directory NAME goes (default: ../runs)
#   --peers DIR     the peer's folder with peer_shim.py and bin/cake-move
#                   (default: ../shared/peers)
#   --egdb DIR      the databases the referee adjudicates with (default: the
#                   5-piece set in ../egdb/five, built there if missing)
#   --games N       (default 200)   --concurrency N (default 2)
# Writes RUNS/NAME/{state.json,games.pdn,games.json,out.log}; the score comes
# from benches/state_score.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=$root/../runs
peers=$root/../shared/peers
egdb=$root/../egdb/five
games=200
concurrency=2
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage 0 ;;
    --runs) runs=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --egdb) egdb=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --) break ;;
    -*) echo "error: unknown option $1" >&2; usage 2 >&2 ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || { echo "error: NAME, KINGME_DIR and MOVETIME_MS are required" >&2; usage 2 >&2; }
name=$1; bin=$(cd "$2" && pwd); movetime=$3; shift 3
[ "${1:-}" = "--" ] && shift
for f in "$bin/kingme" "$bin/kingme-referee"; do
  [ -x "$f" ] || { echo "error: $f is not an executable" >&2; exit 2; }
done
[ -f "$peers/peer_shim.py" ] && [ -x "$peers/bin/cake-move" ] \
  || { echo "error: no peer_shim.py and bin/cake-move in $peers (--peers DIR)" >&2; exit 2; }
if [ ! -d "$egdb" ]; then
  echo "building the 5-piece databases for adjudication in $egdb" >&2
  "$bin/kingme" egdb build --pieces 5 --dir "$egdb" --threads "$concurrency"
fi
dir=$runs/$name
mkdir -p "$dir"
cd "$dir"
"$bin/kingme-referee" --tournament gauntlet \
  --engine "cake=cmd:python3 $peers/peer_shim.py $peers/bin/cake-move cake" \
  --engine "$name=cmd:$bin/kingme" "$@" \
  --games "$games" --movetime "$movetime" --concurrency "$concurrency" --margin 3000 --seed 7 \
  --adjudicate-egdb "$egdb" --resume state.json --pdn games.pdn --json games.json >>out.log 2>&1
python3 "$here/state_score.py" state.json "$name"
