#!/usr/bin/env bash
# A bounded soak on a server of its own: for SOAK_SECONDS (default 180) in
# rounds of SOAK_ROUND seconds (default 30), at once:
#   - acmetrace-sync --file, two syncs per cluster for 3 clusters, each on the
#     next generation of the cluster's growing sacct file (its newest jobs
#     RUNNING, the older COMPLETED; generations may commit out of order);
#   - direct INSERT, UPDATE and DELETE on acmetrace.jobs (cluster dml);
#   - acmetrace-report (html and json);
#   - BI queries: the v_* views, and analyses answered from the summaries
#     and by a scan in one snapshot, which must agree;
#   - utilization files (a whole one and two overlapping monthly parts)
#     loaded over and over by two sessions.
# Every command is bounded (timeout) and every worker by a count per round.
# After each round, with the workers stopped: summaries equal a rebuild;
# each synced cluster holds its newest file's jobs exactly (after one more
# sync of it); the dml cluster holds as many jobs as the committed inserts
# and deletes say; every series holds each sample of the file once and
# utilization_hours equals a rebuild; the run log has one row per sync, each
# ok or failed with a message.  A deadlock is retried (up to 5 times) and
# counted with its message; any other failure is a FAIL.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/own/server.sh"
SYNC=$ROOT/bin/acmetrace-sync
REPORT=$ROOT/bin/acmetrace-report
SOAK_SECONDS=${SOAK_SECONDS:-180}
SOAK_ROUND=${SOAK_ROUND:-30}
CAP=${SOAK_CAP:-400}            # operations per worker and round, at most
CLUSTERS="s1 s2 s3"
PER_GEN=20                      # jobs a generation adds
T=120                           # seconds any one command may take
cleanup() {
    local p
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    own_server_stop
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

own_server_start -c fsync=off -c max_connections=60 || { bad "soak: cannot start a server of its own"; finish; }
export PGDATABASE=e2e_soak
createdb e2e_soak && q -c "CREATE EXTENSION acmetrace" >/dev/null || { bad "soak: cannot create the database"; finish; }
(cd "$ROOT" && make -s genutil >/dev/null) || { bad "make genutil failed"; finish; }

# ---- inputs
US=$'\x1f'
# gen_file CLUSTER G: the sacct file of generation G (jobs 1..G*PER_GEN)
gen_file() {
    local f=$OUT/$1.g$2.txt
    { echo "JobIDRaw JobID Cluster Partition QOS Account User JobName Submit Eligible Start End State ExitCode NNodes NCPUS ReqTRES AllocTRES Timelimit NodeList" | tr ' ' "$US"
      awk -v n=$(($2 * PER_GEN)) -v newest=$((($2 - 1) * PER_GEN)) -v OFS="$US" 'BEGIN {
        for (i = 1; i <= n; i++) {
            t = 1763625600 + i * 60; s = t + i % 300; e = s + 600 + i % 7200; g = 2 ^ (i % 4)
            tres = "billing=16,cpu=16,gres/gpu=" g ",mem=500G,node=1"
            run = i > newest
            print i, i, "soak", "gpu", "normal", "acct" i % 7, "user" i % 30, "job_" i,
                  strftime("%Y-%m-%dT%H:%M:%S", t, 1), strftime("%Y-%m-%dT%H:%M:%S", t, 1),
                  strftime("%Y-%m-%dT%H:%M:%S", s, 1), (run ? "Unknown" : strftime("%Y-%m-%dT%H:%M:%S", e, 1)),
                  (run ? "RUNNING" : (i % 5 ? "COMPLETED" : "FAILED")), (i % 5 || run ? "0:0" : "1:0"),
                  1, 16, tres, tres, "1-00:00:00", "node" sprintf("%02d", i % 40)
        } }'
    } >"$f.tmp" && mv "$f.tmp" "$f"
    echo "$f"
}
# next_gen CLUSTER: the next generation number, taken under a file lock
next_gen() {
    (flock 9; g=$(( $(cat "$OUT/$1.gen") + 1 )); echo $g >"$OUT/$1.gen"; echo $g) 9>"$OUT/$1.lock"
}
GEN="$ROOT/tools/acmetrace-genutil"
mkdir -p "$OUT/months"
"$GEN" --series 60 --start 2023-07-30 --days 4 --seed 9 -o "$OUT/whole.csv" &&
    "$GEN" --series 60 --start 2023-07-30 --days 4 --seed 9 --time epoch --split-by-month "$OUT/months" --overlap 20 ||
    { bad "generating the utilization files failed"; finish; }
UTIL_FILES=("$OUT/months/GPU_UTIL-2023-07.csv" "$OUT/whole.csv" "$OUT/months/GPU_UTIL-2023-08.csv")
# the samples per series the whole file holds
awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
         { for (i = 2; i <= NF; i++) if ($i != "") n[name[i]]++ }
         END { for (s in n) print s, n[s] }' "$OUT/whole.csv" | LC_ALL=C sort >"$OUT/util_want.txt"

# ---- the starting data
for c in $CLUSTERS; do echo 0 >"$OUT/$c.gen"; done
q -c "SELECT acmetrace.load_generated('dml', 'seren', 3000, 7)" >/dev/null || { bad "load_generated dml"; finish; }
dml_jobs=3000
COLS=$(q -c "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
              WHERE attrelid = 'acmetrace.jobs'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
                AND attname NOT IN ('cluster', 'job_id')")

# ---- the workers.  Each appends "KIND OUTCOME" lines to $OUT/ops.NAME.ROUND
# (OUTCOME ok, deadlock, or fail) and the failing output to $OUT/fail.NAME.
# qt: q, bounded in time
qt() { timeout $T psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
# attempt NAME KIND CMD...: CMD, retried on a deadlock (40P01) up to 5 times
attempt() {
    local name=$1 kind=$2 try rc; shift 2
    for try in 1 2 3 4 5 6; do
        "$@" >"$OUT/last.$name" 2>&1; rc=$?
        if [ $rc -eq 0 ]; then echo "$kind ok" >>"$OUT/ops.$name.$round"; return 0; fi
        if grep -qi 'deadlock detected' "$OUT/last.$name" && [ $try -lt 6 ]; then
            echo "$kind deadlock" >>"$OUT/ops.$name.$round"
            { echo "== $kind (deadlock, retried)"; cat "$OUT/last.$name"; } >>"$OUT/deadlocks.$name"
            continue
        fi
        echo "$kind fail" >>"$OUT/ops.$name.$round"
        { echo "== $kind: exit $rc"; cat "$OUT/last.$name"; } >>"$OUT/fail.$name"
        return 1
    done
}
sync_worker() {  # sync_worker NAME CLUSTER
    local n=0 g f
    while [ $n -lt $CAP ] && [ "$(date +%s)" -lt "$deadline" ]; do
        g=$(next_gen "$2"); f=$(gen_file "$2" "$g")
        attempt "$1" sync timeout $T "$SYNC" --quiet --cluster "$2" --file "$f"
        n=$((n + 1))
    done
}
dml_worker() {
    local n=0 k
    while [ $n -lt $CAP ] && [ "$(date +%s)" -lt "$deadline" ]; do
        k=$((RANDOM % 500))
        case $((n % 3)) in
            0) attempt dml insert qt -c "INSERT INTO acmetrace.jobs (cluster, job_id, $COLS)
                                         SELECT 'dml', 'ins-$round-$n', $COLS FROM acmetrace.jobs
                                          WHERE cluster = 'dml' ORDER BY job_id LIMIT 1 OFFSET $k" ;;
            1) attempt dml update qt -c "UPDATE acmetrace.jobs SET state = CASE state WHEN 'COMPLETED' THEN 'FAILED' ELSE 'COMPLETED' END,
                                                              duration = duration + 1
                                         WHERE cluster = 'dml' AND job_id = (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'dml'
                                                                             ORDER BY job_id LIMIT 1 OFFSET $k)" ;;
            2) attempt dml delete qt -c "DELETE FROM acmetrace.jobs
                                         WHERE cluster = 'dml' AND job_id = (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'dml'
                                                                             ORDER BY job_id LIMIT 1 OFFSET $k)
                                        RETURNING 'deleted'" &&
               grep -q deleted "$OUT/last.dml" && echo deleted >>"$OUT/dml.deleted" ;;
        esac
        n=$((n + 1))
    done
}
report_worker() {
    local n=0 c
    while [ $n -lt $CAP ] && [ "$(date +%s)" -lt "$deadline" ]; do
        c=$(echo $CLUSTERS dml | cut -d' ' -f$((n % 4 + 1)))
        if [ $((n % 2)) -eq 0 ]; then
            attempt report report timeout $T "$REPORT" --cluster "$c" --out "$OUT/report.html"
        else
            attempt report report timeout $T "$REPORT" --format json --out "$OUT/report.json"
        fi
        n=$((n + 1))
    done
}
# bi_same ANALYSIS: its rows from the summaries and from a scan, in one snapshot
bi_same() {
    qt <<SQL
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS a FROM $1 x \gset
SET LOCAL acmetrace.summaries = off;
SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS b FROM $1 x \gset
COMMIT;
SELECT CASE WHEN :'a' = :'b' THEN 'same' ELSE 'DIFFERENT' END;
SQL
}
bi_worker() {
    local n=0 a
    local analyses=("acmetrace.cluster_summary()" "acmetrace.state_breakdown()" "acmetrace.gpu_time_lost()"
                    "acmetrace.usage_by_user()" "acmetrace.queue_percentiles()")
    local views=(v_hourly_allocation v_daily_jobs v_daily_queue v_cluster_summary v_state_by_type v_gpu_time_lost)
    while [ $n -lt $CAP ] && [ "$(date +%s)" -lt "$deadline" ]; do
        if [ $((n % 2)) -eq 0 ]; then
            a=${analyses[$((n / 2 % ${#analyses[@]}))]}
            if attempt bi analysis bi_same "$a" && ! grep -qx same "$OUT/last.bi"; then
                echo "analysis differ" >>"$OUT/ops.bi.$round"
                { echo "== $a: summaries and scan differ"; cat "$OUT/last.bi"; } >>"$OUT/fail.bi"
            fi
        else
            attempt bi view qt -c "SELECT count(*) FROM acmetrace.${views[$((n / 2 % ${#views[@]}))]}"
        fi
        n=$((n + 1))
    done
}
util_worker() {  # util_worker NAME
    local n=0 f
    while [ $n -lt $CAP ] && [ "$(date +%s)" -lt "$deadline" ]; do
        f=${UTIL_FILES[$(( (n + ${1#util}) % 3 ))]}
        if attempt "$1" util timeout $T psql -X -q -v ON_ERROR_STOP=1 -c "SET acmetrace.metric = 'GPU_UTIL'" -c "SET acmetrace.cluster = 's1'" \
            -c "\\copy acmetrace.utilization_lines FROM '$f' (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"; then
            [ "$f" != "$OUT/whole.csv" ] || touch "$OUT/whole.loaded"
        fi
        n=$((n + 1))
    done
}

count_ops() { cat "$OUT"/ops.$1.* 2>/dev/null | grep -c "^$2 ${3:-ok}$"; }
check_round() {  # check_round R
    local r=$1 c g want got before
    check_summaries "round $r"
    # each synced cluster: one more sync of its newest file, then exactly its jobs
    got='' want=''
    for c in $CLUSTERS; do
        g=$(cat "$OUT/$c.gen")
        [ "$g" -gt 0 ] || { got+="$c:none "; want+="$c:none "; continue; }
        "$SYNC" --quiet --cluster "$c" --file "$OUT/$c.g$g.txt" >>"$OUT/check_syncs" 2>&1 || bad "round $r: the check's sync of $c failed"
        echo "check ok" >>"$OUT/ops.check.$r"
        want+="$c:$(awk -F"$US" 'NR > 1 { print $1, $13 }' "$OUT/$c.g$g.txt" | LC_ALL=C sort | md5sum | cut -c1-32) "
        got+="$c:$(q -c "SELECT job_id || ' ' || state FROM acmetrace.jobs WHERE cluster = '$c' ORDER BY job_id COLLATE \"C\"" | md5sum | cut -c1-32) "
    done
    # the older generations are not needed again
    for c in $CLUSTERS; do
        g=$(cat "$OUT/$c.gen")
        find "$OUT" -maxdepth 1 -name "$c.g*.txt" ! -name "$c.g$g.txt" -delete
    done
    check_eq "round $r: s1, s2, s3 hold exactly the jobs (id, state) of their newest sacct file, none twice" "$got" "$want"
    dml_jobs_now=$((dml_jobs + $(count_ops dml insert) - $(cat "$OUT/dml.deleted" 2>/dev/null | wc -l)))
    check_eq "round $r: dml holds 3000 + committed inserts - committed deletes jobs" \
        "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'dml'")" "$dml_jobs_now"
    check_eq "round $r: no job twice in acmetrace.jobs" "$(q -c "SELECT count(*) - count(DISTINCT (cluster, job_id)) FROM acmetrace.jobs")" 0
    if [ -f "$OUT/whole.loaded" ]; then
        check_eq "round $r: every series holds each sample of the utilization file once" \
            "$(q -F ' ' -c "SELECT series, sum(n) FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL' AND cluster = 's1'
                             GROUP BY series ORDER BY series COLLATE \"C\"" | md5sum)" "$(md5sum <"$OUT/util_want.txt")"
    else
        bad "round $r: the whole utilization file was never loaded"
    fi
    check_eq "round $r: utilization_hours equal a rebuild from the blocks" \
        "$(q -c "SELECT count(*) FROM ((SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace.utilization_hours
                                         EXCEPT ALL SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace_internal.utilization_hours_of_blocks)
                                        UNION ALL
                                        (SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace_internal.utilization_hours_of_blocks
                                         EXCEPT ALL SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace.utilization_hours)) d")" 0
    local syncs failed
    syncs=$(( $(cat "$OUT"/ops.s[0-9]*.* "$OUT"/ops.check.* 2>/dev/null | grep -c '^\(sync\|check\) ') ))
    failed=$(cat "$OUT"/ops.s[0-9]*.* 2>/dev/null | grep -c '^sync \(deadlock\|fail\)$')
    check_eq "round $r: the run log has one row per sync ($syncs), each ok or failed with a message, $failed failed" \
        "$(q -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE outcome = 'failed' AND message <> ''),
                               count(*) FILTER (WHERE NOT (outcome = 'ok' AND message IS NULL OR outcome = 'failed' AND message <> ''))
                          FROM acmetrace.sync_runs")" "$syncs $failed 0"
    local fails; fails=$(cat "$OUT"/ops.*."$r" 2>/dev/null | grep -c ' \(fail\|differ\)$')
    check_eq "round $r: no operation failed" "$fails" 0
}

# ---- the retry path itself: a deadlock provoked between two direct UPDATEs
# of dml jobs in opposite order (A holds X and waits for the controller's
# advisory lock, then wants Y; B wants Y, then X) is detected, one side
# retried, and both commit.
KEY=7364
coproc HOLD { psql -X -q -A -t 2>&1; }
echo "SELECT 'held' FROM (SELECT pg_advisory_lock($KEY)) l;" >&"${HOLD[1]}"
read -r held <&"${HOLD[0]}"
check_eq "provoked deadlock: the controller holds its advisory lock" "$held" held
read -r X Y < <(q -F ' ' -c "SELECT min(job_id), max(job_id) FROM acmetrace.jobs WHERE cluster = 'dml'")
dl_sql() {  # dl_sql FIRST SECOND
    printf '%s\n' "BEGIN;" "UPDATE acmetrace.jobs SET duration = duration + 1 WHERE cluster = 'dml' AND job_id = '$1';" \
        "SELECT pg_advisory_lock_shared($KEY);" "UPDATE acmetrace.jobs SET duration = duration + 1 WHERE cluster = 'dml' AND job_id = '$2';" "COMMIT;"
}
round=provoked
PGAPPNAME=soak-deadlock attempt dlA update qt -c "$(dl_sql "$X" "$Y")" & pa=$!
PGAPPNAME=soak-deadlock attempt dlB update qt -c "$(dl_sql "$Y" "$X")" & pb=$!
for _ in $(seq 1 600); do   # both sessions waiting (polled, at most 60 s)
    [ "$(q -c "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                WHERE NOT l.granted AND a.application_name = 'soak-deadlock'")" -lt 2 ] || break
    sleep 0.1
done
echo "SELECT pg_advisory_unlock($KEY); \\q" >&"${HOLD[1]}"
wait "$HOLD_PID" 2>/dev/null
wait $pa; ra=$?; wait $pb; rb=$?
check_eq "provoked deadlock: both UPDATEs committed in the end" "$ra $rb" "0 0"
dmsg="$(grep -h -m1 'deadlock detected' "$OUT"/deadlocks.dl* 2>/dev/null | head -1) in $(grep -h -m1 -o 'function [a-z_.]*' "$OUT"/deadlocks.dl* 2>/dev/null | head -1)"
check_eq "provoked deadlock: detected once and retried ($dmsg)" "$(cat "$OUT"/ops.dl*.provoked | grep -c ' deadlock$')" 1
rm -f "$OUT"/ops.dl*.provoked

# ---- the rounds, after a first sync of each cluster (reports need its jobs)
for c in $CLUSTERS; do
    "$SYNC" --quiet --cluster "$c" --file "$(gen_file "$c" "$(next_gen "$c")")" || bad "the first sync of $c failed"
    echo "check ok" >>"$OUT/ops.check.0"
done
rounds=$(( (SOAK_SECONDS + SOAK_ROUND - 1) / SOAK_ROUND ))
start=$(date +%s)
for round in $(seq 1 $rounds); do
    # the rounds' ends are fixed from the start: the checks' time is part of the soak
    deadline=$((start + round * SOAK_ROUND))
    pids=()
    for c in $CLUSTERS; do
        sync_worker "${c}a" "$c" & pids+=($!)
        sync_worker "${c}b" "$c" & pids+=($!)
    done
    dml_worker & pids+=($!)
    report_worker & pids+=($!)
    bi_worker & pids+=($!)
    util_worker util0 & pids+=($!)
    util_worker util1 & pids+=($!)
    wait "${pids[@]}"
    check_round $round
done
secs=$(( $(date +%s) - start ))

# ---- the figures
total() { cat "$OUT"/ops.* 2>/dev/null | grep -c "^$1 $2$"; }
ok "soak: $secs s in $rounds rounds of $SOAK_ROUND s (SOAK_SECONDS=$SOAK_SECONDS)"
ok "soak: $(total sync ok) syncs committed (generations: $(for c in $CLUSTERS; do printf '%s %s, ' "$c" "$(cat "$OUT/$c.gen")"; done | sed 's/, $//'); $(total check ok) more by the checks)"
ok "soak: direct DML committed: $(total insert ok) INSERT, $(total update ok) UPDATE, $(total delete ok) DELETE ($(cat "$OUT/dml.deleted" 2>/dev/null | wc -l) rows deleted)"
ok "soak: $(total report ok) reports written, $(total analysis ok) analyses compared with a scan in one snapshot, $(total view ok) view queries, $(total util ok) utilization loads"
dl=$(cat "$OUT"/ops.* 2>/dev/null | grep -c ' deadlock$')
if [ "$dl" -eq 0 ]; then
    ok "soak: no deadlock in the rounds"
else
    ok "soak: $dl deadlocks in the rounds, each retried: $(grep -h -m1 -i 'deadlock detected' "$OUT"/deadlocks.* | head -1)"
fi
nf=$(cat "$OUT"/ops.* 2>/dev/null | grep -c ' \(fail\|differ\)$')
if [ "$nf" -eq 0 ]; then ok "soak: no operation failed"; else bad "soak: $nf operations failed: $(cat "$OUT"/fail.* | head -5 | tr '\n' ' ')"; fi
check_eq "no PANIC, no crash in the server log" "$(grep -c -E 'PANIC|terminated by signal' "$OWN_LOG")" 0
finish
