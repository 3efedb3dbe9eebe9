#!/usr/bin/env bash
# tools/slurm_job_mix.sh: a mix of Slurm jobs with known outcomes, for the
# cluster of tools/slurm_cluster.sh (one node, 16 CPUs, 8 GPUs).
#
#   bash tools/slurm_cluster.sh bash tools/slurm_job_mix.sh capture DIR
# submits the mix and writes DIR/sacct_running.txt (a snapshot while jobs
# run and pend) and DIR/sacct_final.txt (after every job ended), both in
# acmetrace's sacct format (the PLAN/README line, TZ=UTC, header), plus
# DIR/sacct_final_pipe.txt (the same with sacct's default `|` delimiter) and
# DIR/jobs.txt (each job's name and id).  test/e2e/slurm.sh sources
# this file and calls the functions itself, syncing between the phases.
#
# The mix (every job runs as root, account "research"):
#   ok0       0 GPUs, exit 0                    COMPLETED 0:0
#   ok1       1 GPU,  exit 0                    COMPLETED 0:0
#   fail3     1 GPU,  exit 3                    FAILED 3:0
#   kill9     0 GPUs, kill -9 of its own shell  FAILED 0:9
#   quote     0 GPUs, name `eval|a"b`           COMPLETED
#   run_cxl   1 GPU, running when cancelled     CANCELLED by 0, with Start
#   run_tmo   1 GPU, running, EndTime=now       TIMEOUT
#   arr       --array=0-2, 4 GPUs each, each    3 x COMPLETED (8_0 runs, 8_[1-2]
#             waiting for mix_finish's go file   pend in phase 1)
#   pend_cxl  8 GPUs, cancelled while pending   CANCELLED by 0, never started
#   big8      8 GPUs, runs once the rest ended  COMPLETED
#   het_cxl   heterogeneous (0 + 1 GPU), cancelled while pending: rows
#             N+0, N+1 (JobIDRaw N, N+1), CANCELLED.  It cannot run: the
#             components of a heterogeneous job need distinct nodes and the
#             cluster has one; submitted last, as a pending job ahead of the
#             others blocks them (backfill reserves the node for it).
# Phase 1 (mix_submit, mix_wait_running): the short jobs end, run_cxl,
# run_tmo and array task 0 run, pend_cxl and big8 pend (they need all 8
# GPUs, run_cxl holds one), array tasks 1-2 pend (4 GPUs each, 2 free): what
# sacct prints stays the same until phase 2.  Phase 2 (mix_finish): the
# array released, pend_cxl, het_cxl and run_cxl cancelled, run_tmo's end
# time set to now (slurmctld checks limits every 30 s), then a wait until
# every job has ended.
set -u
SACCT_FIELDS=JobIDRaw,JobID,Cluster,Partition,QOS,Account,User,JobName,Submit,Eligible,Start,End,State,ExitCode,NNodes,NCPUS,ReqTRES,AllocTRES,Timelimit,NodeList
MIX_NAMES="ok0 ok1 fail3 kill9 quote run_cxl run_tmo arr pend_cxl big8 het_cxl"
declare -A JOB=()   # name -> job id

# mix_sacct START [END [DELIMITER]]: acmetrace's sacct line over [START, END (now)]
mix_sacct() {
    TZ=UTC sacct --allusers --allocations --parsable2 --delimiter="${3:-$'\x1f'}" \
        --starttime="$1" --endtime="${2:-now}" --format="$SACCT_FIELDS"
}

_sb() {  # _sb NAME SBATCH-ARGS...: submit, remember the id
    local name=$1 id; shift
    id=$(sbatch --parsable --chdir="$SLURM_CLUSTER_DIR" --output=/dev/null "$@") ||
        { echo "slurm_job_mix: sbatch of $name failed" >&2; return 1; }
    JOB[$name]=${id%%;*}
}

# mix_submit: submit every job; sets MIX_START (UTC, for --starttime)
mix_submit() {
    MIX_START=$(TZ=UTC date -d '-2 seconds' +%Y-%m-%dT%H:%M:%S)
    _sb ok0   -J ok0   -c 1 --wrap='sleep 1' &&
    _sb ok1   -J ok1   -c 2 --gpus=1 --wrap='sleep 1' &&
    _sb fail3 -J fail3 -c 1 --gpus=1 --wrap='exit 3' &&
    _sb kill9 -J kill9 -c 1 --wrap='kill -9 $$' &&
    _sb quote -J 'eval|a"b' -c 1 --time=5 --wrap='true' &&
    _sb run_cxl  -J run_cxl -c 1 --gpus=1 --wrap='sleep 300' &&
    _sb run_tmo  -J run_tmo -c 1 --gpus=1 --time=10 --wrap='sleep 300' &&
    _sb arr      -J arr --array=0-2 -c 2 --gpus=4 --wrap="until [ -e '$SLURM_CLUSTER_DIR/go' ]; do sleep 0.2; done" &&
    _sb pend_cxl -J pend_cxl -c 1 --gpus=8 --wrap='sleep 1' &&
    _sb big8     -J big8 -c 4 --gpus=8 --time=1:00:00 --wrap='sleep 1' &&
    _sb het_cxl  -J het_cxl -c 1 : -c 1 --gpus=1 --wrap='sleep 1'
}

_states() {  # _states NAME...: "name state" lines, one sacct call
    local n ids=() line
    for n; do ids+=("${JOB[$n]}"); done
    declare -A st=()
    while IFS='|' read -r id state; do st[$id]=$state; done < <(IFS=,; sacct -n -X -P -o JobIDRaw,State -j "${ids[*]}" 2>/dev/null)
    for n; do echo "$n ${st[${JOB[$n]}]:-none}"; done
}
_wait() {  # _wait SECONDS COND: poll COND every 0.3 s for at most SECONDS
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.3; done
}
_phase1() {
    ! _states ok0 ok1 fail3 kill9 quote | grep -qE ' (PENDING|RUNNING|none)$' &&
    [ "$(_states run_cxl run_tmo pend_cxl big8 het_cxl | tr '\n' ' ')" = \
        "run_cxl RUNNING run_tmo RUNNING pend_cxl PENDING big8 PENDING het_cxl PENDING " ] &&
    [ "$(sacct -n -X -P -o JobID,State -j "${JOB[arr]}" 2>/dev/null | sort | tr '\n' ' ')" = \
        "${JOB[arr]}_0|RUNNING ${JOB[arr]}_[1-2]|PENDING " ]
}
# mix_wait_running: wait (up to 60 s) until the short jobs ended, run_cxl and
# run_tmo run and pend_cxl, big8 and het_cxl pend
mix_wait_running() {
    _wait 60 _phase1 || { echo "slurm_job_mix: phase 1 not reached:" >&2; squeue -a >&2; return 1; }
}
_all_ended() { [ -z "$(squeue -h -a -o %i)" ] && ! mix_sacct "$MIX_START" | grep -qE $'\x1f(RUNNING|PENDING|REQUEUED|SUSPENDED)\x1f'; }
# mix_finish: release the array, cancel pend_cxl, het_cxl and run_cxl, time
# out run_tmo, wait (up to
# 120 s) until every job ended and sacct says so
mix_finish() {
    touch "$SLURM_CLUSTER_DIR/go" && scancel "${JOB[pend_cxl]}" && scancel "${JOB[het_cxl]}" && scancel "${JOB[run_cxl]}" &&
        scontrol update jobid="${JOB[run_tmo]}" EndTime=now || return 1
    _wait 120 _all_ended || { echo "slurm_job_mix: jobs did not end:" >&2; squeue -a >&2; return 1; }
}
mix_jobs() {  # name and job id, one a line
    local n; for n in $MIX_NAMES; do echo "$n ${JOB[$n]}"; done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ "${1:-}" = capture ] && [ -n "${2:-}" ] || { echo "usage: tools/slurm_job_mix.sh capture DIR" >&2; exit 64; }
    mkdir -p "$2" && mix_submit && mix_wait_running &&
        mix_sacct "$MIX_START" >"$2/sacct_running.txt" &&
        mix_finish &&
        mix_sacct "$MIX_START" >"$2/sacct_final.txt" &&
        mix_sacct "$MIX_START" now '|' >"$2/sacct_final_pipe.txt" &&
        mix_jobs >"$2/jobs.txt"
fi
