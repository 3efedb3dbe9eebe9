#!/usr/bin/env bash
# Real Slurm: under tools/slurm_cluster.sh (munge, MariaDB, slurmdbd,
# slurmctld and an 8-GPU slurmd of its own), submits the job mix of
# tools/slurm_job_mix.sh, syncs (bin/acmetrace-sync, which runs sacct
# itself) once while jobs run and pend and once after all ended, and checks acmetrace.jobs and acmetrace.slurm_jobs against what
# was submitted and, job id by job id, against sacct's own output: states,
# exit codes, GPU counts (0, 1, 4, 8), times, queue and run times.  The
# second sync must update the jobs it saw running instead of adding rows; a
# third sync of the same window must change nothing.
# Needs root and the Debian packages slurm-wlm, slurmdbd, mariadb-server and
# munge (tools/install-deps.sh); without them it fails, naming what is
# missing.
if [ "${1:-}" != --inner ]; then
    . "$(dirname "$0")/lib.sh"
    if [ "$(id -u)" -ne 0 ]; then bad "needs root: slurmd, munged and mariadbd run as root here"; finish; fi
    missing=""
    for b in munged mariadbd slurmdbd slurmctld slurmd sbatch sacct; do
        PATH=/usr/sbin:/usr/bin:$PATH command -v "$b" >/dev/null || missing+="$b "
    done
    if [ -n "$missing" ]; then
        bad "Slurm is not installed (no ${missing% }): run tools/install-deps.sh (packages slurm-wlm slurmdbd mariadb-server munge)"
        finish
    fi
    # The test proper runs inside the cluster; its lines are printed after.
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-slurm-e2e.XXXXXX") || { bad "mktemp failed"; finish; }
    SLURM_CLUSTER_LOGS=$OUT/daemons bash "$ROOT/tools/slurm_cluster.sh" bash "$0" --inner >"$tmp/out" 2>"$tmp/err"
    rc=$?
    cat "$tmp/out"; cat "$tmp/err" >&2
    if ! grep -qE '^  (ok|FAIL): ' "$tmp/out"; then
        bad "the Slurm cluster did not start (exit $rc): $(tail -3 "$tmp/err" | tr '\n' ' ') (logs: test/out/slurm/daemons)"
    elif [ $rc -ne 0 ] && ! grep -q '^  FAIL: ' "$tmp/out"; then
        bad "exited $rc: $(tail -3 "$tmp/err" | tr '\n' ' ')"
    fi
    rm -rf "$tmp"
    [ $rc -eq 0 ] && finish
    exit 1
fi

. "$(dirname "$0")/lib.sh"
. "$ROOT/tools/slurm_job_mix.sh"
fresh_db e2e_slurm
CL=$SLURM_CLUSTER_NAME

# sync N [ARG...]: bin/acmetrace-sync (sacct mode, ARGs added) loads the
# cluster's jobs; sets LOADED ("inserted updated unchanged") and WINDOW
# ("start end", UTC) from its acmetrace.sync_runs row, and saves what sacct
# prints over that window to $OUT/sacct_N.txt for the comparisons.
SYNC=${ACMETRACE_SYNC:-$ROOT/bin/acmetrace-sync}   # or test an installed copy
sync_jobs() {
    local n=$1 rc run; shift
    "$SYNC" --db "dbname=$PGDATABASE" --cluster "$CL" "$@" >"$OUT/sync_$n.out" 2>"$OUT/sync_$n.err"
    rc=$?
    if [ $rc -ne 0 ]; then bad "sync $n: acmetrace-sync $* exited $rc: $(head -3 "$OUT/sync_$n.err")"; return 1; fi
    run=$(q -F' ' -c "SELECT outcome, source, to_char(window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS'),
                             to_char(window_end AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS'), lines, inserted, updated, unchanged
                        FROM acmetrace.sync_runs WHERE cluster = '$CL' ORDER BY run_id DESC LIMIT 1")
    read -r outcome source ws we lines ins upd unch <<<"$run"
    if [ "$outcome $source" != "ok sacct" ]; then bad "sync $n: acmetrace.sync_runs records '$run'"; return 1; fi
    WINDOW="$ws $we" LOADED="$ins $upd $unch"
    mix_sacct "$ws" "$we" >"$OUT/sacct_$n.txt" || { bad "sync $n: sacct failed"; return 1; }
    check_eq "sync $n: acmetrace.sync_runs counts the lines sacct prints over its window" \
        "$lines" "$(($(wc -l <"$OUT/sacct_$n.txt") - 1))"
}

# compare N: acmetrace's rows against sacct_N.txt, job id by job id.  The
# expectations are read from sacct's fields with plain SQL, independently of
# the loader; prints one line per disagreeing job (nothing when all agree).
compare() {
    q -F' ' 2>"$OUT/compare_$1.err" <<EOF || echo "the comparison failed: $(head -3 "$OUT/compare_$1.err")"
CREATE TEMP TABLE s ("JobIDRaw" text, "JobID" text, "Cluster" text, "Partition" text, "QOS" text,
    "Account" text, "User" text, "JobName" text, "Submit" text, "Eligible" text, "Start" text,
    "End" text, "State" text, "ExitCode" text, "NNodes" text, "NCPUS" text, "ReqTRES" text,
    "AllocTRES" text, "Timelimit" text, "NodeList" text);
\\copy s FROM '$OUT/sacct_$1.txt' (FORMAT csv, HEADER match, DELIMITER E'\\x1f', QUOTE E'\\x1e')
CREATE TEMP VIEW want AS
SELECT "JobIDRaw" AS job_id, "JobID" AS slurm_job_id, split_part("State", ' ', 1) AS state,
       substring("State" from '^CANCELLED by (.*)$') AS cancelled_by,
       split_part("ExitCode", ':', 1)::int AS exit_code, split_part("ExitCode", ':', 2)::int AS exit_signal,
       coalesce(substring(coalesce("AllocTRES", "ReqTRES") from 'gres/gpu=([0-9]+)')::int, 0) AS gpu_num,
       "NNodes"::int AS node_num, "NCPUS"::int AS cpu_num,
       "Partition" AS partition, "QOS" AS qos, "Account" AS account, "User" AS user_id, "JobName" AS job_name,
       nullif("NodeList", 'None assigned') AS nodelist,
       t.submit, t.start, t."end",
       extract(epoch FROM t.start::timestamp - t.submit::timestamp) AS queue,
       extract(epoch FROM t."end"::timestamp - t.start::timestamp) AS duration
  FROM s, LATERAL (SELECT CASE WHEN "Submit" ~ '^[0-9]{4}-' THEN "Submit" END AS submit,
                          CASE WHEN "Start" ~ '^[0-9]{4}-' THEN "Start" END AS start,
                          CASE WHEN "End" ~ '^[0-9]{4}-' THEN "End" END AS "end") t;
CREATE TEMP VIEW got AS
SELECT j.job_id, sj.slurm_job_id, j.state, sj.cancelled_by, sj.exit_code, sj.exit_signal,
       j.gpu_num, j.node_num, j.cpu_num, sj.partition, sj.qos, sj.account, j.user_id, sj.job_name,
       sj.nodelist,
       to_char(j.submit_time AT TIME ZONE c.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS submit,
       to_char(j.start_time AT TIME ZONE c.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS start,
       to_char(j.end_time AT TIME ZONE c.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS "end",
       j.queue, j.duration
  FROM acmetrace.jobs j JOIN acmetrace.clusters c USING (cluster)
  LEFT JOIN acmetrace.slurm_jobs sj USING (cluster, job_id)
 WHERE j.cluster = '$CL';
SELECT coalesce(w.job_id, g.job_id), CASE WHEN g.job_id IS NULL THEN 'missing' WHEN w.job_id IS NULL THEN 'extra'
       ELSE 'differs: got ' || row(g.*)::text || ' want ' || row(w.*)::text END
  FROM want w FULL JOIN got g USING (job_id)
 WHERE row(w.*) IS DISTINCT FROM row(g.*)
 ORDER BY 1;
EOF
}
id_of() { echo "${JOB[$1]}"; }
# jobs NAME...: "slurm_job_id state gpus exit:signal cancelled_by started ended" per job of NAME (all its rows)
jobs() {
    local n ids=""
    for n; do ids+="'${JOB[$n]}',"; done
    q -F' ' -c "SELECT sj.slurm_job_id, j.state, j.gpu_num, sj.exit_code || ':' || sj.exit_signal,
                       coalesce(sj.cancelled_by, '-'), j.start_time IS NOT NULL, j.end_time IS NOT NULL
                  FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs sj USING (cluster, job_id)
                 WHERE j.cluster = '$CL' AND (split_part(split_part(sj.slurm_job_id, '_', 1), '+', 1) IN (${ids%,}))
" | LC_ALL=C sort
}
rows() { q -c "SELECT count(*) || ' ' || (SELECT count(*) FROM acmetrace.slurm_jobs WHERE cluster = '$CL') FROM acmetrace.jobs WHERE cluster = '$CL'"; }
distinct_ids() { tail -n +2 "$OUT/sacct_$1.txt" | cut -d$'\x1f' -f1 | sort -u | wc -l; }
snapshot() {  # every stored field of the cluster's jobs, for "changes nothing"
    q -c "SELECT md5(string_agg(j::text || s::text, '|' ORDER BY j.job_id))
            FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs s USING (cluster, job_id) WHERE j.cluster = '$CL'"
}

# ---- phase 1: jobs run and pend
if ! mix_submit; then bad "sbatch failed: the job mix was not submitted"; finish; fi
mix_jobs >"$OUT/jobs.txt"
if mix_wait_running; then ok "phase 1: short jobs ended, run_cxl/run_tmo/arr_0 run, pend_cxl/big8/het/arr pend"
else bad "phase 1 not reached (see $OUT)"; mix_sacct "$MIX_START" | tr '\037' '|' >"$OUT/sacct_phase1.txt"; finish; fi

sync_jobs 1 --since "$MIX_START" || finish
n1=$(distinct_ids 1)
check_eq "sync 1: sacct lists 13 jobs (the pending array tasks are one row), one line each" \
    "$(tail -n +2 "$OUT/sacct_1.txt" | wc -l) $n1" "13 13"
check_eq "sync 1: inserted updated unchanged" "$LOADED" "$n1 0 0"
check_eq "sync 1: one row per job in jobs and slurm_jobs" "$(rows)" "$n1 $n1"
check_eq "sync 1: every job agrees with sacct (job id by job id)" "$(compare 1)" ""
a=$(id_of arr)
check_eq "sync 1: running and pending jobs" "$(jobs run_cxl run_tmo pend_cxl big8 het_cxl arr)" "$(LC_ALL=C sort <<EOF
$(id_of big8) PENDING 8 0:0 - f f
$(id_of het_cxl)+0 PENDING 0 0:0 - f f
$(id_of het_cxl)+1 PENDING 1 0:0 - f f
$(id_of run_cxl) RUNNING 1 0:0 - t f
$(id_of run_tmo) RUNNING 1 0:0 - t f
${a}_0 RUNNING 4 0:0 - t f
${a}_[1-2] PENDING 4 0:0 - f f
$(id_of pend_cxl) PENDING 8 0:0 - f f
EOF
)"
check_eq "sync 1: no run time or GPU time for jobs that have not ended, no queue time for pending ones" \
    "$(q -F' ' -c "SELECT count(*) FILTER (WHERE state = 'RUNNING' AND duration IS NULL AND gpu_time IS NULL AND queue IS NOT NULL),
                          count(*) FILTER (WHERE state = 'PENDING' AND duration IS NULL AND queue IS NULL AND start_time IS NULL)
                     FROM acmetrace.jobs WHERE cluster = '$CL'")" "3 5"
before_ids=$(q -c "SELECT string_agg(job_id, ' ' ORDER BY job_id) FROM acmetrace.jobs WHERE cluster = '$CL'")

# ---- phase 2: cancel, time out, release the array; every job ends
if mix_finish; then ok "phase 2: every job ended"; else bad "phase 2: jobs did not end"; finish; fi
sync_jobs 2 || finish   # the cron way: since the last sync, less the overlap
n2=$(distinct_ids 2)
new=$(comm -13 <(tail -n +2 "$OUT/sacct_1.txt" | cut -d$'\x1f' -f1 | sort) <(tail -n +2 "$OUT/sacct_2.txt" | cut -d$'\x1f' -f1 | sort) | wc -l)
changed=$(comm -13 <(tail -n +2 "$OUT/sacct_1.txt" | sort) <(tail -n +2 "$OUT/sacct_2.txt" | sort) | wc -l)
check_eq "sync 2: inserted updated unchanged (new ids, changed lines, the rest)" "$LOADED" "$new $((changed - new)) $((n2 - changed))"
check_eq "sync 2: updated the jobs it saw running and pending, one row per job (14)" "$(rows)" "$n2 $n2"
check_eq "sync 2: sacct lists 14 jobs" "$n2" "14"
check_eq "sync 2: every job of sync 1 is still one row" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = '$CL' AND job_id = ANY (string_to_array('$before_ids', ' '))")" "$n1"
check_eq "sync 2: every job agrees with sacct (job id by job id)" "$(compare 2)" ""
check_eq "sync 2: final states as submitted" \
    "$(jobs ok0 ok1 fail3 kill9 quote run_cxl run_tmo arr pend_cxl big8 het_cxl)" "$(LC_ALL=C sort <<EOF
$(id_of ok0) COMPLETED 0 0:0 - t t
$(id_of big8) COMPLETED 8 0:0 - t t
$(id_of het_cxl)+0 CANCELLED 0 0:0 0 f t
$(id_of het_cxl)+1 CANCELLED 1 0:0 0 f t
$(id_of ok1) COMPLETED 1 0:0 - t t
$(id_of fail3) FAILED 1 3:0 - t t
$(id_of kill9) FAILED 0 0:9 - t t
$(id_of quote) COMPLETED 0 0:0 - t t
$(id_of run_cxl) CANCELLED 1 0:0 0 t t
$(id_of run_tmo) TIMEOUT 1 0:0 - t t
${a}_0 COMPLETED 4 0:0 - t t
${a}_1 COMPLETED 4 0:0 - t t
${a}_2 COMPLETED 4 0:0 - t t
$(id_of pend_cxl) CANCELLED 8 0:0 0 f t
EOF
)"
check_eq "sync 2: the last array task keeps the array's id, the pending range's row" \
    "$(q -c "SELECT slurm_job_id FROM acmetrace.slurm_jobs WHERE cluster = '$CL' AND job_id = '$a'")" "${a}_2"
check_eq "sync 2: the job name with | and \" (printed as \`)" \
    "$(q -c "SELECT job_name FROM acmetrace.slurm_jobs WHERE cluster = '$CL' AND job_id = '$(id_of quote)'")" 'eval|a`b'
check_eq "sync 2: cancelled while pending: no start, queue, run or GPU time; 8 GPUs asked, none allocated" \
    "$(q -F' ' -c "SELECT j.start_time IS NULL, j.queue IS NULL, j.duration IS NULL, j.gpu_time IS NULL, s.req_gpus, s.alloc_gpus IS NULL, s.nodelist IS NULL
                     FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs s USING (cluster, job_id)
                    WHERE j.cluster = '$CL' AND j.job_id = '$(id_of pend_cxl)'")" "t t t t 8 t t"
check_eq "sync 2: gpu_time = duration x gpu_num, queue = start - submit, duration = end - start" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = '$CL' AND start_time IS NOT NULL
               AND gpu_time = duration * gpu_num AND queue = wait_s AND duration = run_s AND duration >= 0 AND queue >= 0")" \
    "$((n2 - 3))"
check_eq "sync 2: jobs that slept 1 s ran at least 1 s" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = '$CL' AND duration >= 1
               AND job_id IN ('$(id_of ok0)', '$(id_of ok1)', '$(id_of big8)')")" "3"
check_eq "sync 2: big8 (all 8 GPUs) started after every other GPU job ended" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs o, acmetrace.jobs b
              WHERE o.cluster = '$CL' AND b.cluster = '$CL' AND b.job_id = '$(id_of big8)' AND o.job_id <> b.job_id
                AND o.gpu_num > 0 AND o.start_time IS NOT NULL AND o.end_time > b.start_time")" "0"
check_eq "sync 2: memory from ReqTRES mem=62.50G (AllocTRES has none) is 64000 MiB" \
    "$(q -c "SELECT string_agg(DISTINCT mem_mb::text, ',') FROM acmetrace.slurm_jobs WHERE cluster = '$CL'")" "64000"
check_eq "sync 2: the cluster is a slurm cluster named after ClusterName" \
    "$(q -c "SELECT source_format FROM acmetrace.clusters WHERE cluster = '$CL'")" "slurm"

# ---- sync 3: the same window again changes nothing
snap=$(snapshot)
[ -n "$snap" ] || bad "sync 3: no rows to compare"
sync_jobs 3 --since "${WINDOW%% *}" || finish   # from sync 2's window start
check_eq "sync 3: sacct prints the same as for sync 2" "$(cmp -s "$OUT/sacct_2.txt" "$OUT/sacct_3.txt" && echo same)" "same"
check_eq "sync 3: inserted updated unchanged" "$LOADED" "0 0 $n2"
check_eq "sync 3: no row changed" "$(snapshot)" "$snap"
check_eq "sync 3: one row per job" "$(rows)" "$n2 $n2"
check_eq "acmetrace.sync_runs: three ok sacct runs" \
    "$(q -c "SELECT count(*) FILTER (WHERE outcome = 'ok' AND source = 'sacct') || ' of ' || count(*) FROM acmetrace.sync_runs WHERE cluster = '$CL'")" "3 of 3"
finish
