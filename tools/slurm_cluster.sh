#!/usr/bin/env bash
# tools/slurm_cluster.sh COMMAND [ARG...]
#
# Runs COMMAND against a throw-away Slurm cluster of its own, in the spirit
# of tools/tmp_cluster.sh: munge, MariaDB, slurmdbd, slurmctld and one slurmd
# in a fresh temporary directory, on ports found free, with a private munge
# socket and key, so neither a system Slurm/MariaDB/munge nor a second run of
# this script collides with it.  The node ("acme1", 16 CPUs) advertises 8
# GPUs backed by 8 character devices (no GPU hardware needed).  COMMAND runs
# once the node is idle and sacct answers, with SLURM_CONF exported (every
# Slurm client command needs it), the client commands on PATH, and
# SLURM_CLUSTER_DIR (the temporary directory), SLURM_CLUSTER_NAME
# ("acmetest"), SLURM_CLUSTER_ACCOUNT ("research") set.
# Every daemon is stopped, every job process killed and the directory
# removed on any exit; the daemons' logs are copied to test/out/slurm/
# (or $SLURM_CLUSTER_LOGS).  Exit status: COMMAND's, or 2 (with the reason on
# stderr) if the cluster could not be started.
# Needs root (slurmd runs jobs, mariadbd and munged as root) and the Debian
# 12 packages slurm-wlm, slurmdbd, mariadb-server, munge (tools/install-deps.sh).
set -u
[ $# -gt 0 ] || { echo "usage: tools/slurm_cluster.sh COMMAND [ARG...]" >&2; exit 64; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=${SLURM_CLUSTER_LOGS:-$ROOT/test/out/slurm}
die() { echo "slurm_cluster: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd starts jobs as their user; munged and mariadbd run as root here)"
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
for b in munged mungekey mariadbd mariadb-install-db mariadb slurmdbd slurmctld slurmd \
         sbatch sacct sacctmgr scontrol sinfo squeue scancel ss; do
    command -v "$b" >/dev/null ||
        die "$b not found: install the Debian packages slurm-wlm slurmdbd mariadb-server munge (bash tools/install-deps.sh)"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-slurm.XXXXXX") || exit 2
chmod 755 "$dir"
mkdir -p "$dir"/{etc,log,munge,db,ctld,spool,dev,run}
chmod 755 "$dir/munge"    # munge checks its socket directory's mode
chmod 700 "$dir/etc"
CLUSTER=acmetest NODE=acme1 ACCOUNT=research
pids=()                   # daemons in start order: stopped in reverse

# Processes of this cluster that are not our children (slurmstepd and the
# job scripts it forks) carry our SLURM_CONF in their environment.
cluster_procs() {
    local e p
    for e in /proc/[0-9]*/environ; do
        p=${e#/proc/}; p=${p%/environ}
        [ "$p" = $$ ] && continue
        { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "SLURM_CONF=$dir/etc/slurm.conf" && echo "$p"
    done
}
stop_pid() {  # stop_pid PID: TERM, up to 10 s, then KILL; reaps it (no zombie left)
    local i
    kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return; }
    kill -TERM "$1" 2>/dev/null
    for i in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
cleanup() {
    local i p
    trap '' TERM INT HUP
    # jobs still there: cancelled, and given 5 s to go before slurmd does
    if [ ${#pids[@]} -ge 5 ] && [ -n "$(squeue -h -a -o %i 2>/dev/null)" ]; then
        scancel --quiet --full --user=root 2>/dev/null
        for i in $(seq 50); do
            [ -z "$(squeue -h -a -o %i 2>/dev/null)" ] && [ -z "$(cluster_procs)" ] && break
            sleep 0.1
        done
    fi
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}"; done
    # job steps orphaned by a killed slurmd
    for p in $(cluster_procs); do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$LOGS" && mkdir -p "$(dirname "$LOGS")" && cp -r "$dir/log" "$LOGS" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

port_busy() { ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q .; }
taken=" "
free_port() {
    local p
    while :; do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        case $taken in *" $p "*) continue ;; esac
        port_busy "$p" || { taken="$taken$p "; echo "$p"; return; }
    done
}
# wait_for SECONDS WHAT CMD...: poll CMD every 0.1 s; fail naming WHAT and its log
wait_for() {
    local n=$(($1 * 10)) what=$2 log=$3; shift 3
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        if [ $n -le 0 ]; then
            echo "slurm_cluster: $what did not come up; end of $log:" >&2
            tail -15 "$dir/log/$log" >&2
            return 1
        fi
        sleep 0.1
    done
}
alive() { kill -0 "$1" 2>/dev/null; }

# --- munge: own key and socket
mungekey --create --keyfile="$dir/munge/munge.key" >"$dir/log/mungekey.out" 2>&1 ||
    die "mungekey failed: $(cat "$dir/log/mungekey.out")"
MSOCK=$dir/munge/munge.socket
munged --foreground --force --socket="$MSOCK" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/seed" \
    --log-file="$dir/log/munged.log" >"$dir/log/munged.out" 2>&1 &
pids+=($!)

# --- MariaDB: own datadir, socket and port; root without password
DBPORT=$(free_port)
cat >"$dir/etc/my.cnf" <<EOF
[mysqld]
user=root
datadir=$dir/db
socket=$dir/run/mysqld.sock
pid-file=$dir/run/mysqld.pid
port=$DBPORT
bind-address=127.0.0.1
skip-name-resolve
log-error=$dir/log/mariadb.log
innodb_buffer_pool_size=64M
innodb_log_file_size=16M
innodb_flush_log_at_trx_commit=0
innodb_doublewrite=0
skip-log-bin
EOF
mariadb-install-db --defaults-file="$dir/etc/my.cnf" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >"$dir/log/mariadb-install-db.out" 2>&1 ||
    { tail -5 "$dir/log/mariadb-install-db.out" >&2; die "mariadb-install-db failed"; }
mariadbd --defaults-file="$dir/etc/my.cnf" >"$dir/log/mariadbd.out" 2>&1 &
pids+=($!)
sql() { mariadb --no-defaults --socket="$dir/run/mysqld.sock" -u root "$@"; }
wait_for 60 "mariadbd" mariadb.log sql -e 'SELECT 1' || exit 2
alive "${pids[0]}" && [ -S "$MSOCK" ] || { tail -5 "$dir/log/munged.log" >&2; die "munged did not start"; }
# slurmdbd connects over TCP to 127.0.0.1, which root@localhost does not cover
sql -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION" ||
    die "cannot create the slurmdbd database user"

# --- GPUs: 8 character devices (Slurm only checks that File= exists)
for i in 0 1 2 3 4 5 6 7; do mknod -m 666 "$dir/dev/nvidia$i" c 1 3 || die "mknod failed"; done

# --- Slurm configuration
DBDPORT=$(free_port) CTLDPORT=$(free_port) SLURMDPORT=$(free_port)
HOST=$(hostname -s)
cat >"$dir/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MSOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBDPORT
SlurmUser=root
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DBPORT
StorageUser=root
StorageLoc=slurm_acct_db
EOF
chmod 600 "$dir/etc/slurmdbd.conf"
cat >"$dir/etc/slurm.conf" <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLDPORT
SlurmdPort=$SLURMDPORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MSOCK
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SlurmdParameters=config_overrides
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBDPORT
AccountingStoragePass=socket=$MSOCK
AccountingStorageTRES=gres/gpu
ReturnToService=2
KillWait=2
MinJobAge=30
InactiveLimit=0
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=100000
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$HOST CPUs=16 RealMemory=64000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$dir/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=$NODE Name=gpu File=$dir/dev/nvidia[0-7]
EOF
export SLURM_CONF=$dir/etc/slurm.conf

slurmdbd -D >"$dir/log/slurmdbd.out" 2>&1 &
pids+=($!)
wait_for 60 "slurmdbd" slurmdbd.log sacctmgr -n list cluster || exit 2
# the cluster and an account, root's default, so that jobs carry an Account
# other than the automatic "root"
sacctmgr -i add cluster "$CLUSTER" >"$dir/log/sacctmgr.out" 2>&1 &&
sacctmgr -i add account "$ACCOUNT" cluster="$CLUSTER" >>"$dir/log/sacctmgr.out" 2>&1 &&
sacctmgr -i add user root account="$ACCOUNT" cluster="$CLUSTER" >>"$dir/log/sacctmgr.out" 2>&1 &&
sacctmgr -i modify user root set defaultaccount="$ACCOUNT" >>"$dir/log/sacctmgr.out" 2>&1 ||
    { cat "$dir/log/sacctmgr.out" >&2; die "sacctmgr could not set up the cluster"; }

slurmctld -D -i >"$dir/log/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 60 "slurmctld" slurmctld.log scontrol ping || exit 2
slurmd -D -N "$NODE" >"$dir/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n "$NODE" -o %t)" = idle ]; }
wait_for 60 "slurmd (node $NODE idle)" slurmd.log node_idle || exit 2
wait_for 30 "sacct" slurmdbd.log sacct -n -X -a || exit 2

export SLURM_CLUSTER_DIR=$dir SLURM_CLUSTER_NAME=$CLUSTER SLURM_CLUSTER_ACCOUNT=$ACCOUNT PATH
"$@"
