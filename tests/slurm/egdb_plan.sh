#!/usr/bin/env bash
# The endgame-database build plan as real batch jobs under a real Slurm.
#
# Starts a private one-node Slurm cluster (tests/slurm/cluster.sh: munged,
# slurmctld, slurmd, all configured, logged and kept in one temporary
# directory; Debian's packages are installed with apt-get when missing),
# submits one `sbatch` job per
# slice of `kingme egdb plan --pieces 4 --json`, chained with
# --dependency=afterok on the job IDs of the slices it depends on, waits for
# them, then builds the same databases in one process and compares every
# *.wld and *.dtc file of the two builds byte for byte. The daemons are
# stopped and the temporary directory removed however the script ends.
#
# Each job builds in a directory of its own: it gets hard links to the files
# of the slice's dependencies (transitively: what the build probes) and no
# others, and the job moves the new slice's two files into the shared
# directory when it succeeds. A dependency missing from the plan's lists
# therefore fails that job instead of going unnoticed. (One-slice builds may
# also share one directory, as src/egdb/EGDB.md's recipe does: each locks only its
# slice, tests/egdb_cli.rs checks that.)
#
# Needs root (it re-runs itself under `sudo -n` otherwise) and python3.
# Usage, from anywhere:
#   KINGME_BIN=/path/to/kingme bash tests/slurm/egdb_plan.sh
# KINGME_BIN defaults to target/release/kingme in the repository. Knobs:
# KINGME_SLURM_PIECES (4), KINGME_SLURM_TIMEOUT (600 s for the jobs),
# KINGME_SLURM_KEEP=1 (keep the temporary directory, daemons still stopped).
set -euo pipefail

CLUSTER_NAME=egdb_plan.sh
# shellcheck source=tests/slurm/cluster.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script="$script_dir/$(basename "${BASH_SOURCE[0]}")"

# A relative KINGME_BIN is relative to where the script was started; the
# default is the repository's release binary.
if [ -n "${KINGME_BIN:-}" ]; then
    case $KINGME_BIN in
        /*) ;;
        *) KINGME_BIN="$PWD/$KINGME_BIN" ;;
    esac
fi
cd "$script_dir/../.."
ROOT=$PWD
KINGME_BIN=${KINGME_BIN:-$ROOT/target/release/kingme}
[ -x "$KINGME_BIN" ] || die "kingme binary '$KINGME_BIN' not found or not executable (cargo build --release, or set KINGME_BIN)"
PIECES=${KINGME_SLURM_PIECES:-4}
JOB_TIMEOUT=${KINGME_SLURM_TIMEOUT:-600}

KINGME_SLURM_PIECES=$PIECES KINGME_SLURM_TIMEOUT=$JOB_TIMEOUT \
    cluster_as_root "$script" KINGME_BIN KINGME_SLURM_PIECES KINGME_SLURM_TIMEOUT
cluster_install
cluster_start
mkdir -p "$TMP/jobs" "$TMP/work" "$TMP/out_slurm" "$TMP/out_one"

# --- the plan ---

PLAN_JSON=$("$KINGME_BIN" egdb plan --pieces "$PIECES" --json) ||
    die "'$KINGME_BIN egdb plan --pieces $PIECES --json' failed"
# one line a slice, in build order: name, direct dependencies (comma
# separated, only those of the plan, "-" for none), then the transitive ones
PLAN_TSV=$(printf '%s' "$PLAN_JSON" | python3 -c '
import json, sys
plan = json.load(sys.stdin)
if not isinstance(plan, list) or not plan:
    sys.exit("the plan is not a non-empty JSON array")
names = [s["name"] for s in plan]
if len(set(names)) != len(names):
    sys.exit("the plan names a slice twice")
seen, closure = set(), {}
for s in plan:
    name, direct = s["name"], []
    for d in s["depends"]:
        if d not in names:
            print(f"warning: {name} depends on {d}, not in the plan", file=sys.stderr)
            continue
        if d not in seen:
            sys.exit(f"{name} depends on {d}, which comes later in the plan")
        direct.append(d)
    c = set(direct)
    for d in direct:
        c |= closure[d]
    closure[name] = c
    seen.add(name)
    print(name, ",".join(direct) or "-", *[n for n in names if n in c])
') || die "could not read the plan: $PLAN_JSON"
SLICES=$(printf '%s\n' "$PLAN_TSV" | wc -l)

# --- one job a slice ---

cat >"$TMP/job.sh" <<'EOF'
#!/usr/bin/env bash
# egdb_plan.sh's batch job: job.sh BIN DIR SLICE DEP... builds SLICE in a
# directory of its own holding DEP's files, then moves its files into DIR.
set -euo pipefail
bin=$1 out=$2 slice=$3
shift 3
jobs=$(dirname "$out")/jobs
date +%s.%N >"$jobs/$slice.start"
work=$(dirname "$out")/work/$slice
rm -rf "$work"
mkdir -p "$work"
for d in "$@"; do
    for f in "$out/$d.wld" "$out/$d.dtc"; do
        [ -f "$f" ] || { echo "job for $slice: dependency file $f missing" >&2; exit 1; }
        ln "$f" "$work/" 2>/dev/null || cp "$f" "$work/"
    done
done
echo "job $SLURM_JOB_ID on $SLURMD_NODENAME: $slice with $# dependencies"
"$bin" egdb build --quiet --threads 1 --slice "$slice" --dir "$work"
mv "$work/$slice.wld" "$work/$slice.dtc" "$out/"
rm -rf "$work"
date +%s.%N >"$jobs/$slice.end"
echo ok >"$jobs/$slice.ok"
EOF
chmod 755 "$TMP/job.sh"

start_jobs=$SECONDS
declare -A JOBID
while read -r name direct closure_list; do
    deps=()
    if [ "$direct" != - ]; then
        IFS=, read -r -a direct_names <<<"$direct"
        for d in "${direct_names[@]}"; do deps+=("${JOBID[$d]}"); done
    fi
    dep_opt=()
    if [ "${#deps[@]}" -gt 0 ]; then
        dep_opt=("--dependency=afterok:$(IFS=:; echo "${deps[*]}")")
    fi
    # shellcheck disable=SC2086 # closure_list: slice names, no blanks inside
    id=$(sbatch --parsable --job-name="egdb-$name" --cpus-per-task=1 --ntasks=1 \
        --time=30 --chdir="$TMP" --output="$TMP/jobs/$name.out" "${dep_opt[@]}" \
        "$TMP/job.sh" "$KINGME_BIN" "$TMP/out_slurm" "$name" $closure_list) ||
        die "sbatch refused the job of slice $name"
    id=${id%%;*}
    case $id in '' | *[!0-9]*) die "sbatch answered '$id' for slice $name" ;; esac
    JOBID[$name]=$id
    cluster_submitted "$id"
done <<<"$PLAN_TSV"
note "submitted $SLICES jobs (one a slice of the $PIECES-piece plan), afterok chains on the plan's dependencies"

# --- wait for the queue to drain ---

cluster_wait "$JOB_TIMEOUT"
slurm_secs=$((SECONDS - start_jobs))

failed=0
while read -r name _; do
    id=${JOBID[$name]}
    read -r jstate jexit < <(cluster_job_state "$id") || true
    if [ "${jstate:-}" != COMPLETED ] || [ "${jexit:-}" != 0:0 ] || [ ! -f "$TMP/jobs/$name.ok" ]; then
        failed=$((failed + 1))
        printf 'FAILED: job %s (slice %s): state %s, exit code %s\n' \
            "$id" "$name" "${jstate:-?}" "${jexit:-?}" >&2
        if [ -s "$TMP/jobs/$name.out" ]; then
            sed 's/^/    | /' "$TMP/jobs/$name.out" >&2
        fi
    fi
done <<<"$PLAN_TSV"
[ "$failed" -eq 0 ] || die "$failed of $SLICES jobs did not complete"

# the jobs' own clocks: every job started after its dependencies' jobs ended;
# how many ran side by side at most
overlap=$(printf '%s\n' "$PLAN_TSV" | python3 -c '
import sys
jobs = sys.argv[1]
t, deps = {}, {}
for line in sys.stdin:
    name, direct, *_ = line.split()
    t[name] = tuple(float(open(f"{jobs}/{name}.{k}").read()) for k in ("start", "end"))
    deps[name] = [] if direct == "-" else direct.split(",")
for n, ds in deps.items():
    for d in ds:
        if t[n][0] < t[d][1]:
            sys.exit(f"job of {n} started before the job of its dependency {d} ended")
events = sorted([(s, 1) for s, _ in t.values()] + [(e, -1) for _, e in t.values()])
run = most = 0
for _, k in events:
    run += k
    most = max(most, run)
print(most)
' "$TMP/jobs") || die "the jobs ran out of their dependency order"

# --- the one-shot build, and the comparison ---

start_one=$SECONDS
"$KINGME_BIN" egdb build --quiet --threads 1 --pieces "$PIECES" --dir "$TMP/out_one" >"$TMP/one.log" 2>&1 ||
    { cat "$TMP/one.log" >&2; die "the one-shot build failed"; }
one_secs=$((SECONDS - start_one))

list_files() { (cd "$1" && find . -maxdepth 1 -type f \( -name '*.wld' -o -name '*.dtc' \) -printf '%f\n' | LC_ALL=C sort); }
expected=$(printf '%s\n' "$PLAN_TSV" | awk '{print $1 ".dtc"; print $1 ".wld"}' | LC_ALL=C sort)
got_slurm=$(list_files "$TMP/out_slurm")
got_one=$(list_files "$TMP/out_one")
if [ "$got_slurm" != "$expected" ]; then
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got_slurm") >&2 || true
    die "the Slurm jobs' directory does not hold the plan's files (< plan, > directory)"
fi
if [ "$got_one" != "$expected" ]; then
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got_one") >&2 || true
    die "the one-shot build's directory does not hold the plan's files (< plan, > directory)"
fi
differ=0
while read -r f; do
    if ! cmp "$TMP/out_slurm/$f" "$TMP/out_one/$f"; then
        differ=$((differ + 1))
    fi
done <<<"$expected"
[ "$differ" -eq 0 ] || die "$differ files differ between the Slurm jobs' build and the one-shot build"

nfiles=$(printf '%s\n' "$expected" | wc -l)
note "ok: $SLICES slices, $SLICES Slurm jobs (afterok chains, at most $overlap at once) in ${slurm_secs}s; $nfiles files identical to the one-shot build (${one_secs}s); ${SECONDS}s in all"
