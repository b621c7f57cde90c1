#!/usr/bin/env bash
# clients/referee/README.md's Slurm recipe, run on a private one-node Slurm
# (tests/slurm/cluster.sh): a small fixed-node match as a job array of
# shards (`--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT --resume
# state.$SLURM_ARRAY_TASK_ID.json`, one CPU each), then a merge job that
# waits for the whole array (--dependency=afterok). The merged result is
# checked against the same match played in one process: the same games
# (openings, colours, results, moves, the engines' scores and depths; not
# the times or dates), the same W/D/L, pairs, Elo table and endings. It
# prints what each shard's job spent besides playing (Slurm's start, engine
# starts, the schedule's set-up) against its games' time.
#
# Needs root (it re-runs itself under `sudo -n` otherwise) and python3.
# Usage, from anywhere:
#   KINGME_BIN=/path/to/kingme KINGME_REFEREE_BIN=/path/to/kingme-referee \
#     bash tests/slurm/match_shards.sh
# Both default to target/release/ in the repository. Knobs:
# KINGME_SLURM_SHARDS (4), KINGME_SLURM_GAMES (16: 8 opening pairs),
# KINGME_SLURM_NODES (300 a move), KINGME_SLURM_TIMEOUT (600 s for the jobs),
# KINGME_SLURM_KEEP=1 (keep the temporary directory, daemons still stopped).
set -euo pipefail

CLUSTER_NAME=match_shards.sh
# shellcheck source=tests/slurm/cluster.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script="$script_dir/$(basename "${BASH_SOURCE[0]}")"

# relative binaries are relative to where the script was started
for var in KINGME_BIN KINGME_REFEREE_BIN; do
    if [ -n "${!var:-}" ]; then
        case ${!var} in
            /*) ;;
            *) printf -v "$var" '%s' "$PWD/${!var}" ;;
        esac
    fi
done
cd "$script_dir/../.."
ROOT=$PWD
KINGME_BIN=${KINGME_BIN:-$ROOT/target/release/kingme}
KINGME_REFEREE_BIN=${KINGME_REFEREE_BIN:-$ROOT/target/release/kingme-referee}
for bin in "$KINGME_BIN" "$KINGME_REFEREE_BIN"; do
    [ -x "$bin" ] || die "'$bin' not found or not executable (cargo build --release --workspace, or set KINGME_BIN and KINGME_REFEREE_BIN)"
done
KINGME_SLURM_SHARDS=${KINGME_SLURM_SHARDS:-4}
KINGME_SLURM_GAMES=${KINGME_SLURM_GAMES:-16}
KINGME_SLURM_NODES=${KINGME_SLURM_NODES:-300}
KINGME_SLURM_TIMEOUT=${KINGME_SLURM_TIMEOUT:-600}
SHARDS=$KINGME_SLURM_SHARDS

cluster_as_root "$script" KINGME_BIN KINGME_REFEREE_BIN KINGME_SLURM_SHARDS \
    KINGME_SLURM_GAMES KINGME_SLURM_NODES KINGME_SLURM_TIMEOUT
cluster_install
cluster_start
OUT=$TMP/out
mkdir -p "$OUT" "$TMP/jobs" "$TMP/one"

# the match: two engines, one searching half the other's nodes
ENGINES="$KINGME_REFEREE_BIN --engine a=cmd:$KINGME_BIN --engine b=cmd:$KINGME_BIN \
--nodes $KINGME_SLURM_NODES --nodes-for b=$((KINGME_SLURM_NODES / 2)) --quiet"
MATCH="$ENGINES --games $KINGME_SLURM_GAMES"

# --- the recipe: the array of shards, then the merge after all of them ---

date +%s.%N >"$TMP/jobs/submitted"
# the variables of the shard's task are expanded in the job (single quotes);
# the time stamps around the referee are the test's, for the figures below
array=$(sbatch --parsable --array="1-$SHARDS" --cpus-per-task=1 --ntasks=1 --time=30 \
    --job-name=match-shard --chdir="$OUT" --output="$TMP/jobs/shard.%a.out" \
    --wrap="date +%s.%N >start.\$SLURM_ARRAY_TASK_ID && \
$MATCH --shard \$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT \
--resume state.\$SLURM_ARRAY_TASK_ID.json --json summary.\$SLURM_ARRAY_TASK_ID.json && \
date +%s.%N >end.\$SLURM_ARRAY_TASK_ID") ||
    die "sbatch refused the job array"
array=${array%%;*}
case $array in '' | *[!0-9]*) die "sbatch answered '$array' for the job array" ;; esac
cluster_submitted "$array"
states=$(for k in $(seq 1 "$SHARDS"); do printf 'state.%s.json ' "$k"; done)
merge=$(sbatch --parsable --dependency="afterok:$array" --cpus-per-task=1 --ntasks=1 --time=30 \
    --job-name=match-merge --chdir="$OUT" --output="$TMP/jobs/merge.out" \
    --wrap="date +%s.%N >merge.start && \
$KINGME_REFEREE_BIN merge $states--pdn merged.pdn --json merged.json >merged.txt") ||
    die "sbatch refused the merge job"
merge=${merge%%;*}
cluster_submitted "$merge"
note "submitted job array $array ($SHARDS shards of $KINGME_SLURM_GAMES games at $KINGME_SLURM_NODES nodes a move) and merge job $merge (afterok:$array)"

start_jobs=$SECONDS
cluster_wait "$KINGME_SLURM_TIMEOUT"
slurm_secs=$((SECONDS - start_jobs))

failed=0
tasks=0
while read -r jstate jexit; do
    tasks=$((tasks + 1))
    if [ "$jstate" != COMPLETED ] || [ "$jexit" != 0:0 ]; then failed=$((failed + 1)); fi
done < <(cluster_job_state "$array")
read -r mstate mexit < <(cluster_job_state "$merge") || true
if [ "$failed" -ne 0 ] || [ "$tasks" -ne "$SHARDS" ] || [ "${mstate:-}" != COMPLETED ] || [ "${mexit:-}" != 0:0 ]; then
    for f in "$TMP"/jobs/*.out; do
        [ -s "$f" ] && { printf -- '--- %s\n' "$(basename "$f")" >&2; sed 's/^/    | /' "$f" >&2; }
    done
    die "jobs failed: $failed of $tasks shard tasks (of $SHARDS), merge job ${mstate:-?} ${mexit:-?}"
fi

# --- the same match in one process ---

start_one=$SECONDS
# shellcheck disable=SC2086 # MATCH: words without blanks inside
$MATCH --concurrency 1 --pdn "$TMP/one/whole.pdn" --json "$TMP/one/whole.json" >"$TMP/one/whole.txt" 2>&1 ||
    { cat "$TMP/one/whole.txt" >&2; die "the match in one process failed"; }
one_secs=$((SECONDS - start_one))

# a shard with no game (the second of two of a one-pair schedule): what a
# shard's run spends besides its games (engines started, schedule and state)
for i in 1 2 3; do
    # shellcheck disable=SC2086
    $ENGINES --games 2 --shard 2/2 --resume "$TMP/one/empty.$i.state" --json "$TMP/one/empty.$i.json" \
        >/dev/null 2>&1 || die "the empty shard's run failed"
done

# --- the comparison, and the shards' figures ---

python3 - "$OUT" "$TMP/one" "$TMP/jobs/submitted" "$SHARDS" "$KINGME_SLURM_GAMES" <<'EOF' ||
import json, re, sys
out, one, submitted, shards, games = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])

def load(p):
    with open(p) as f:
        return json.load(f)

def games_only(p):
    """The PDN without the moves' times and the dates (what differs run to run)."""
    with open(p) as f:
        text = f.read()
    text = re.sub(r'^\[Date "[^"]*"\]\n', "", text, flags=re.M)
    return re.sub(r" ?\b\d+\.\d+s\}", "}", text)

merged, whole = load(f"{out}/merged.json"), load(f"{one}/whole.json")
for key in ["games", "pairings", "ratings", "terminations", "faults", "game_list"]:
    if merged[key] != whole[key]:
        sys.exit(f"merged and one-process runs differ in {key}:\n{merged[key]}\n{whole[key]}")
if whole["games"] != games or merged["missing_shards"]:
    sys.exit(f"{whole['games']} games of {games}, missing shards {merged['missing_shards']}")
if games_only(f"{out}/merged.pdn") != games_only(f"{one}/whole.pdn"):
    sys.exit("the merged PDN and the one-process PDN hold different games")

empty = sorted(load(f"{one}/empty.{i}.json")["seconds"] for i in (1, 2, 3))[1]
t_sub = float(open(submitted).read())
t_merge = float(open(f"{out}/merge.start").read())
rows = []
for k in range(1, shards + 1):
    start = float(open(f"{out}/start.{k}").read())
    end = float(open(f"{out}/end.{k}").read())
    if t_merge < end:
        sys.exit(f"the merge started before shard {k} ended")
    state = load(f"{out}/state.{k}.json")
    play = sum(
        float(c.split()[-1][:-1]) for g in state["games"] for c in g["comments"]
    )
    run = load(f"{out}/summary.{k}.json")["seconds"]
    rows.append((k, len(state["games"]), start - t_sub, end - start, run, play))
# queued: from sbatch to the job's start; job: the job's referee command;
# run: the referee's own clock; set-up: a run without games (the median of
# three); games: run - set-up; moves: the engines' thinking as the referee
# timed each move (to 0.01 s: moves under 5 ms count 0)
print("shard games  queued_s  job_s  run_s  setup_s  games_s  moves_s")
for k, n, queued, job, run, play in rows:
    print(f"{k:>5} {n:>5} {queued:>9.2f} {job:>6.2f} {run:>6.2f} {empty:>8.2f} {run - empty:>8.2f} {play:>8.2f}")
games_s = sum(r[4] - empty for r in rows) / shards
outside = sum(r[3] - r[4] for r in rows) / shards
print(f"per shard: {empty:.2f} s set-up and {outside:.2f} s of process start outside the referee's clock, against {games_s:.2f} s of games")
EOF
    die "the merged shards are not the match played in one process"

note "ok: $KINGME_SLURM_GAMES games in $SHARDS shards (one Slurm job array) merged by an afterok job in ${slurm_secs}s equal the match in one process (${one_secs}s) game for game; ${SECONDS}s in all"
