# A private one-node Slurm cluster for the tests in tests/slurm, sourced by them
# (not run): munged, slurmctld and slurmd, all configured, logged and kept in
# one temporary directory, stopped and the directory removed however the
# sourcing script ends. Debian's packages (slurmctld, slurmd, slurm-client,
# munge) are installed with apt-get when missing. slurmd must run as root.
#
# The sourcing script sets CLUSTER_NAME (its name, for messages) first, then:
#   cluster_as_root "$script" VAR...  # run the script again under sudo -n when
#                                     # not root, keeping the named variables
#   cluster_install                   # the Debian packages, when missing
#   cluster_start                     # $TMP (mode 711), $SLURM_CONF, $HOST,
#                                     # $CPUS; the node up and idle
#   cluster_submitted ID...           # job IDs to cancel if the script fails
#   cluster_wait SECONDS              # until the queue is empty (or fail)
#   cluster_job_state ID              # "STATE EXITCODE" of a job, one line a
#                                     # task for an array job
# KINGME_SLURM_KEEP=1 keeps the temporary directory (the daemons are still
# stopped). Needs python3 (for free ports).

die() {
    printf '%s: error: %s\n' "$CLUSTER_NAME" "$*" >&2
    exit 1
}
note() { printf '%s: %s\n' "$CLUSTER_NAME" "$*"; }

cluster_as_root() {
    local script=$1 var assignments=()
    shift
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            note "not root: running again under sudo"
            for var in "$@" KINGME_SLURM_KEEP; do
                assignments+=("$var=${!var:-}")
            done
            exec sudo -n env "${assignments[@]}" \
                PATH="/usr/local/sbin:/usr/sbin:/sbin:$PATH" bash "$script"
        fi
        die "needs root (to run slurmd) or password-less sudo"
    fi
    case ":$PATH:" in
        *:/usr/sbin:*) ;;
        *) PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" ;;
    esac
    command -v python3 >/dev/null || die "python3 is needed"
}

cluster_install() {
    local c missing=""
    for c in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
        command -v "$c" >/dev/null || missing="$missing $c"
    done
    [ -z "$missing" ] && return 0
    note "installing slurmctld slurmd slurm-client munge (missing:$missing)"
    apt-get update -qq
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
    for c in $missing; do
        command -v "$c" >/dev/null || die "'$c' still missing after apt-get install"
    done
}

CLUSTER_JOBS="" # the job IDs submitted, space separated

cluster_submitted() { CLUSTER_JOBS="$CLUSTER_JOBS $*"; }

# Stops the daemons whose pid files are given: TERM to all at once, then
# KILL to those still there after 10 s.
_cluster_stop_daemons() {
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

_cluster_show_logs() {
    local f
    for f in "$TMP/log/slurmctld.log" "$TMP/log/slurmd.log" "$TMP/log/munged.log"; do
        if [ -s "$f" ]; then
            printf -- '--- last lines of %s\n' "$(basename "$f")" >&2
            tail -n 25 "$f" >&2
        fi
    done
}

_cluster_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    if [ "$rc" -ne 0 ]; then _cluster_show_logs; fi
    # jobs still queued or running (a failure or timeout): cancel, so that no
    # slurmstepd outlives slurmd
    if [ -n "$CLUSTER_JOBS" ] && [ -s "$TMP/run/slurmctld.pid" ]; then
        # shellcheck disable=SC2086
        scancel $CLUSTER_JOBS >/dev/null 2>&1
        for _ in $(seq 1 50); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    _cluster_stop_daemons "$TMP/run/slurmd.pid" "$TMP/run/slurmctld.pid" "$TMP/run/munged.pid"
    if [ -n "${KINGME_SLURM_KEEP:-}" ]; then
        note "kept $TMP"
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}

cluster_start() {
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/kingme-slurm.XXXXXX")
    chmod 711 "$TMP" # munged wants its socket's directory searchable by all
    mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log" "$TMP/run"
    export SLURM_CONF="$TMP/slurm.conf"
    trap _cluster_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    # munged: own key, socket, pid file and log
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

    # slurm.conf: one node with this machine's cores, free ports
    local ctld_port slurmd_port state
    read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
')
    HOST=$(hostname -s)
    CPUS=$(nproc)
    cat >"$SLURM_CONF" <<EOF
# written by tests/slurm/cluster.sh: a private one-node cluster
ClusterName=kingme
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
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
}

# Waits until no job is queued or running (the cluster is ours: every job is
# the script's); fails after $1 seconds.
cluster_wait() {
    local deadline=$((SECONDS + $1)) queued
    while :; do
        queued=$(squeue -h -o %i) || die "squeue failed"
        [ -z "$queued" ] && return 0
        if [ "$SECONDS" -ge "$deadline" ]; then
            squeue -o '%.12i %.24j %.10T %.30R' >&2 || true
            die "jobs still queued or running after $1 s"
        fi
        sleep 1
    done
}

# "STATE EXITCODE" of job $1 (one line a task of an array job), e.g.
# "COMPLETED 0:0".
cluster_job_state() {
    scontrol -o show job "$1" 2>/dev/null | while read -r line; do
        local s e
        s=$(printf '%s\n' "$line" | grep -o 'JobState=[^ ]*' | cut -d= -f2) || s=""
        e=$(printf '%s\n' "$line" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2) || e=""
        printf '%s %s\n' "${s:-?}" "${e:-?}"
    done
}
