#!/usr/bin/env bash
# The endgame-database build plan as real batch jobs under a real Slurm.
#
# Starts a private one-node Slurm cluster (munged, slurmctld, slurmd, all
# configured, logged and kept in one temporary directory; Debian's packages
# are installed with apt-get when missing), submits one `sbatch` job per
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

die() {
    printf 'egdb_plan.sh: error: %s\n' "$*" >&2
    exit 1
}
note() { printf 'egdb_plan.sh: %s\n' "$*"; }

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

# slurmd must run as root to start jobs
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        note "not root: running again under sudo"
        exec sudo -n env KINGME_BIN="$KINGME_BIN" KINGME_SLURM_PIECES="$PIECES" \
            KINGME_SLURM_TIMEOUT="$JOB_TIMEOUT" KINGME_SLURM_KEEP="${KINGME_SLURM_KEEP:-}" \
            PATH="/usr/local/sbin:/usr/sbin:/sbin:$PATH" bash "$script"
    fi
    die "needs root (to run slurmd) or password-less sudo"
fi
case ":$PATH:" in
    *:/usr/sbin:*) ;;
    *) PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" ;;
esac
command -v python3 >/dev/null || die "python3 is needed to read the plan"

# --- Slurm and munge (Debian packages) ---

missing=""
for c in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
    command -v "$c" >/dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
    note "installing slurmctld slurmd slurm-client munge (missing:$missing)"
    SUDO="" # root by now (the script re-runs itself under sudo), so normally empty
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
    for c in $missing; do
        command -v "$c" >/dev/null || die "'$c' still missing after apt-get install"
    done
fi

# --- the private cluster's directory, and its teardown ---

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kingme-slurm.XXXXXX")
chmod 711 "$TMP" # munged wants its socket's directory searchable by all
mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log" "$TMP/run" "$TMP/jobs" "$TMP/work" \
    "$TMP/out_slurm" "$TMP/out_one"
export SLURM_CONF="$TMP/slurm.conf"
JOBS="" # the job IDs submitted, space separated

# Stops the daemons whose pid files are given: TERM to all at once, then
# KILL to those still there after 10 s.
stop_daemons() {
    local pidfile pid pids=() alive
    for pidfile in "$@"; do
        [ -s "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        case $pid in '' | *[!0-9]*) continue ;; esac
        kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    done
    for _ in $(seq 1 100); do
        alive=()
        for pid in "${pids[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then alive+=("$pid"); fi
        done
        [ "${#alive[@]}" -eq 0 ] && return 0
        sleep 0.1
    done
    note "daemons (pids ${alive[*]}) did not stop on TERM in 10 s: KILL"
    kill -KILL "${alive[@]}" 2>/dev/null || true
}

show_logs() {
    local f
    for f in "$TMP/log/slurmctld.log" "$TMP/log/slurmd.log" "$TMP/log/munged.log"; do
        if [ -s "$f" ]; then
            printf -- '--- last lines of %s\n' "$(basename "$f")" >&2
            tail -n 25 "$f" >&2
        fi
    done
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    if [ "$rc" -ne 0 ]; then show_logs; fi
    # jobs still queued or running (a failure or timeout): cancel, so that no
    # slurmstepd outlives slurmd
    if [ -n "$JOBS" ] && [ -s "$TMP/run/slurmctld.pid" ]; then
        # shellcheck disable=SC2086
        scancel $JOBS >/dev/null 2>&1
        for _ in $(seq 1 50); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    stop_daemons "$TMP/run/slurmd.pid" "$TMP/run/slurmctld.pid" "$TMP/run/munged.pid"
    if [ -n "${KINGME_SLURM_KEEP:-}" ]; then
        note "kept $TMP"
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- munged: own key, socket, pid file and log ---

if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$TMP/munge.key" >/dev/null
else
    dd if=/dev/urandom of="$TMP/munge.key" bs=1 count=1024 status=none
fi
chmod 400 "$TMP/munge.key"
munged --force --socket="$TMP/run/munge.socket" --pid-file="$TMP/run/munged.pid" \
    --key-file="$TMP/munge.key" --log-file="$TMP/log/munged.log" \
    --seed-file="$TMP/run/munged.seed" ||
    die "munged did not start"
if command -v munge >/dev/null && command -v unmunge >/dev/null; then
    munge -n -S "$TMP/run/munge.socket" | unmunge -S "$TMP/run/munge.socket" >/dev/null ||
        die "munge credentials do not round-trip through the new munged"
fi

# --- slurm.conf: one node with this machine's cores, free ports ---

read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
')
HOST=$(hostname -s)
CPUS=$(nproc)
cat >"$SLURM_CONF" <<EOF
# written by tests/slurm/egdb_plan.sh: a private one-node cluster
ClusterName=kingme
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/run/munge.socket
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/run/slurmctld.pid
SlurmdPidFile=$TMP/run/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
DependencyParameters=kill_invalid_depend
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
MinJobAge=3600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -c || die "slurmctld did not start"
slurmd -c -N "$HOST" || die "slurmd did not start"

# the node must come up idle
state=""
for _ in $(seq 1 120); do
    state=$(sinfo -h -N -n "$HOST" -o %T 2>/dev/null | head -n 1) || state=""
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" != idle ]; then
    sinfo -N -l >&2 || true
    die "the Slurm node '$HOST' is not idle after 60 s (state: '${state:-none}')"
fi
note "Slurm $(sinfo -V | awk '{print $2}') up: node $HOST, $CPUS CPUs, config $SLURM_CONF"

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
    JOBS="$JOBS $id"
done <<<"$PLAN_TSV"
note "submitted $SLICES jobs (one a slice of the $PIECES-piece plan), afterok chains on the plan's dependencies"

# --- wait for the queue to drain (the cluster is ours: every job is one of ours) ---

deadline=$((SECONDS + JOB_TIMEOUT))
while :; do
    queued=$(squeue -h -o %i) || die "squeue failed"
    [ -z "$queued" ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
        squeue -o '%.8i %.24j %.10T %.30R' >&2 || true
        die "jobs still queued or running after $JOB_TIMEOUT s"
    fi
    sleep 1
done
slurm_secs=$((SECONDS - start_jobs))

failed=0
while read -r name _; do
    id=${JOBID[$name]}
    info=$(scontrol -o show job "$id" 2>/dev/null) || info=""
    jstate=$(printf '%s\n' "$info" | grep -o 'JobState=[^ ]*' | cut -d= -f2) || jstate=""
    jexit=$(printf '%s\n' "$info" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2) || jexit=""
    if [ "$jstate" != COMPLETED ] || [ "$jexit" != 0:0 ] || [ ! -f "$TMP/jobs/$name.ok" ]; then
        failed=$((failed + 1))
        reason=$(printf '%s\n' "$info" | grep -o 'Reason=[^ ]*' | cut -d= -f2) || reason=""
        printf 'FAILED: job %s (slice %s): state %s, exit code %s, reason %s\n' \
            "$id" "$name" "${jstate:-?}" "${jexit:-?}" "${reason:-?}" >&2
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
