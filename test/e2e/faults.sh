#!/usr/bin/env bash
# Faults during every loader, on a server of the test's own (fsync on) and a
# Prometheus of its own: at named points -- fault triggers the test adds to
# acmetrace's tables, whose function sleeps (pg_sleep) until the fault --
# the server is killed (kill -9 of the postmaster and then of its children,
# as a power cut), the load's backend is cancelled (pg_cancel_backend), or
# its statement_timeout fires.  Loaders: a job file (trace_seren), a Philly
# job log, utilization lines, acmetrace-sync --file, acmetrace-sync
# --prometheus, and acmetrace.refresh_summaries().  After each fault: the
# file or window is stored entirely or not at all, the summaries equal a
# rebuild, no job or sample is stored twice, the run log tells what
# happened ('failed' with the error, or 'interrupted' once the next sync
# ran), the same psql session answers a query (cancel, timeout), and the
# next load stores all of it.  Then kills at 10%..90% of the measured
# duration of a bigger job file and utilization load (points inside C).
# Each point and invariant is one ok/FAIL line.  Needs prometheus, promtool
# and curl (as test/e2e/prometheus.sh).
if [ "${1:-}" != --inner ]; then
    . "$(dirname "$0")/lib.sh"
    missing=""
    for b in prometheus promtool curl; do command -v "$b" >/dev/null || missing+="$b "; done
    if [ -n "$missing" ]; then
        bad "faults: not installed: ${missing% } (bash tools/install-deps.sh)"; finish
    fi
    (cd "$ROOT" && make -s tools/acmetrace-prometheus genutil >/dev/null) ||
        { bad "faults: cannot build tools/acmetrace-prometheus and tools/acmetrace-genutil"; finish; }
    # GPU_UTIL of 8 GPUs, one sample per 30 s over 4 hours ending 10 min ago
    # (a backfill reaching past now would be refused), each series in time order
    end=$(( $(date +%s) - 600 ))
    awk -v end="$end" 'BEGIN {
        print "# TYPE DCGM_FI_DEV_GPU_UTIL gauge"
        for (g = 0; g < 8; g++)
            for (t = end - 4 * 3600; t <= end; t += 30)
                printf "DCGM_FI_DEV_GPU_UTIL{Hostname=\"fnode%d\",gpu=\"%d\"} %d %d\n", g / 4, g % 4, (t / 30 * 7 + g * 13) % 101, t
        print "# EOF" }' >"$OUT/backfill.om"
    export FAULTS_OUT=$OUT FAULTS_PROM_SINCE=$(date -u -d "@$((end - 4 * 3600 - 60))" '+%Y-%m-%d %H:%M:%S+00')
    bash "$ROOT/tools/prometheus_server.sh" --backfill "$OUT/backfill.om" bash "$0" --inner
    rc=$?
    [ $rc -eq 0 ] || grep -q '^  FAIL: ' "$OUT/inner.log" 2>/dev/null || bad "faults: Prometheus or the test did not run (exit $rc)"
    [ $rc -eq 0 ] || exit 1
    finish
fi

# ---- inside tools/prometheus_server.sh (PROM_URL)
OUT=$FAULTS_OUT
E2E_KEEP_OUT=1 . "$(dirname "$0")/lib.sh"
# every line also into inner.log, which the outer pass reads
ok()  { echo "  ok: $*" | tee -a "$OUT/inner.log"; }
bad() { echo "  FAIL: $*" | tee -a "$OUT/inner.log"; FAILS=$((FAILS + 1)); }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi; }
SYNC=$ROOT/bin/acmetrace-sync
PGBIN=$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --bindir)
KILLS=0 CANCELS=0 TIMEOUTS=0 TIMED=0

# ---- the server of this test: its own initdb, durable, 127.0.0.1 only
dir=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-faults.XXXXXX") || { bad "faults: mktemp failed"; exit 1; }
chmod 755 "$dir"
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; as_pg() { runuser -u postgres -- "$@"; }; else as_pg() { "$@"; }; fi
loaders=()   # background loaders (psql, acmetrace-sync) still to reap
cleanup() {
    local p
    for p in "${loaders[@]}"; do kill "$p" 2>/dev/null; done
    [ -f "$dir/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { bad "faults: initdb failed: $(tail -3 "$dir/initdb.log")"; exit 1; }
port_busy() { ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q .; }
srv_start() {  # fsync, synchronous_commit and full_page_writes at their defaults (on)
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=30" start >/dev/null 2>&1
}
started=''
for try in 1 2 3 4 5 6; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    port_busy "$port" && continue
    if srv_start; then started=1; break; fi
done
[ -n "$started" ] || { bad "faults: the server did not start: $(tail -3 "$dir/server.log")"; exit 1; }
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=faults
unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS
createdb faults && q -c 'CREATE EXTENSION acmetrace' >/dev/null || { bad "faults: cannot create the database"; exit 1; }

# crash: kill -9 the postmaster and every process it started, as a power
# cut (stopped first, so that it forks nothing while its children are
# listed), and wait until they are gone (bounded); restart: start the
# server again (crash recovery), retried while the last of them exit
crash() {
    local pm kids i
    pm=$(head -1 "$dir/data/postmaster.pid")
    kill -STOP "$pm"
    kids=$(ps -o pid= --ppid "$pm" | tr -d ' ' | paste -sd, -)
    kill -9 "$pm"
    # shellcheck disable=SC2046
    [ -z "$kids" ] || kill -9 $(tr , ' ' <<<"$kids") 2>/dev/null
    for i in $(seq 600); do
        kill -0 "$pm" 2>/dev/null || { [ -n "$kids" ] && ps -o pid= -p "$kids" >/dev/null; } || break
        sleep 0.1
    done
    KILLS=$((KILLS + 1))
}
restart() {
    local try
    for try in 1 2 3 4 5; do srv_start && return 0; sleep 1; done
    bad "faults: the server did not restart after the kill: $(tail -3 "$dir/server.log")"; exit 1
}

# fault triggers: a function that sleeps; the test waits for a backend in
# it (wait_event PgSleep), then kills, cancels, or lets the timeout fire
q <<'SQL' >/dev/null || { bad "faults: cannot create the fault function"; exit 1; }
CREATE FUNCTION public.fault_sleep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_sleep(600);
    RETURN NULL;
END $$;
SQL
declare -A POINT_DDL=(
    [jobs]="aa_fault AFTER INSERT ON acmetrace.jobs FOR EACH ROW"
    [summary]="aa_fault AFTER INSERT OR UPDATE OR DELETE ON acmetrace.summary_jobs FOR EACH ROW"
    [precommit]="zz_fault AFTER INSERT ON acmetrace.jobs FOR EACH STATEMENT"
    [blocks]="aa_fault AFTER INSERT ON acmetrace.utilization_blocks FOR EACH ROW"
    [hours]="aa_fault AFTER INSERT OR UPDATE ON acmetrace.utilization_hours FOR EACH ROW"
    [runlog]="aa_fault AFTER UPDATE ON acmetrace.sync_runs FOR EACH ROW WHEN (NEW.outcome = 'ok')"
)
declare -A POINT_NAME=(
    [jobs]="rows of acmetrace.jobs inserted"
    [summary]="in summary maintenance (acmetrace.summary_jobs)"
    [precommit]="after the jobs and their summaries, before commit"
    [blocks]="rows of acmetrace.utilization_blocks inserted"
    [hours]="in the hour rollup (acmetrace.utilization_hours)"
    [runlog]="the run log's ok, before commit"
)
point_on() { q -c "CREATE TRIGGER ${POINT_DDL[$1]%% *} ${POINT_DDL[$1]#* } EXECUTE FUNCTION public.fault_sleep()" >/dev/null; }
point_off() { q -c "DROP TRIGGER ${POINT_DDL[$1]%% *} ON $(sed -E 's/.* ON ([a-z_.]+) .*/\1/' <<<"${POINT_DDL[$1]}")" >/dev/null; }
# at_point: wait (bounded) for a backend sleeping in the fault function; its pid
at_point() {
    local i pid
    for i in $(seq 600); do
        pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = 'faults' LIMIT 1" 2>/dev/null)
        [ -z "$pid" ] || { echo "$pid"; return 0; }
        sleep 0.1
    done
    return 1
}

# ---- state: what a cluster holds, without its name (each fault loads into a cluster of its own)
fp() {  # jobs exactly; samples by count and exact sums (cheap on a million samples)
    q -c "SELECT (SELECT count(*) || ' jobs ' || md5(coalesce(string_agg((to_jsonb(j) - 'cluster')::text, '|' ORDER BY job_id), ''))
                    FROM acmetrace.jobs j WHERE cluster = '$1') || ' ' ||
                 (SELECT count(*) || ' samples ' || count(DISTINCT series) || ' ' || coalesce(sum(value::numeric), 0) || ' '
                         || coalesce(sum(extract(epoch FROM ts) * (1 + value::numeric)), 0) || ' ' || coalesce(min(ts)::text, '') || ' ' || coalesce(max(ts)::text, '')
                    FROM acmetrace.utilization u WHERE cluster = '$1')"
}
EMPTY=$(fp nothing_here)
# invariants WHAT CLUSTER: the summaries equal a rebuild; no job or sample of the cluster twice
invariants() {
    check_summaries "$1"
    check_eq "$1: no job or sample stored twice" \
        "$(q -c "SELECT (SELECT count(*) - count(DISTINCT job_id) FROM acmetrace.jobs WHERE cluster = '$2') || ' ' ||
                        (SELECT count(*) - count(DISTINCT (metric, series, ts)) FROM acmetrace.utilization WHERE cluster = '$2')")" "0 0"
}
# done_with CLUSTER: dropped, so that the database stays small
done_with() { q -c "SELECT acmetrace.drop_cluster('$1')" >/dev/null 2>&1 || true; echo "$SECONDS s: $1" >>"$OUT/timing.txt"; }

# ---- the loaders.  psql loaders run in a session the test drives (a
# coprocess), so that after a cancel the same session is asked a query.
UTIL_COPY="(FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"
PHILLY_COPY="(line) FROM '$FIX/philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')"
"$ROOT/tools/acmetrace-genutil" --series 16 --samples 2000 --seed 3 -o "$OUT/util_small.csv" || bad "faults: genutil failed"
load_sql() {  # load_sql KIND CLUSTER [FILE]: the statements of one load
    case $1 in
        jobfile) echo "SET acmetrace.cluster = '$2';"
                 echo "\\copy acmetrace.trace_seren FROM '${3:-$FIX/acme_trace_seren_sample.csv}' (FORMAT csv, HEADER match)" ;;
        philly) echo "SET acmetrace.cluster = '$2';"
                echo "\\copy acmetrace.philly_job_log $PHILLY_COPY" ;;
        util) echo "SET acmetrace.metric = 'GPU_UTIL';"; echo "SET acmetrace.cluster = '$2';"
              echo "\\copy acmetrace.utilization_lines FROM '${3:-$OUT/util_small.csv}' $UTIL_COPY" ;;
        refresh) echo "SELECT acmetrace.refresh_summaries();" ;;
    esac
}
sess_open() {
    coproc SESS { psql -X -q -A -t 2>&1; }
    sess_pid=$SESS_PID sess_in=${SESS[1]} sess_out=${SESS[0]}
    loaders+=("$sess_pid")
}
sess_send() { printf '%s\n' "$@" >&"$sess_in"; }
# sess_wait MARK: the session's output up to the line MARK (bounded), in $sess_text
sess_wait() {
    local line
    sess_text=''
    sess_send "\\echo $1"
    while IFS= read -r -t 120 line <&"$sess_out"; do
        [ "$line" = "$1" ] && return 0
        sess_text+="$line"$'\n'
    done
    return 1
}
sess_close() { { echo '\q' >&"$sess_in"; } 2>/dev/null; exec {sess_in}>&-; wait "$sess_pid" 2>/dev/null; }

# reference: what each loader stores, loaded without a fault
ref_load() {  # ref_load KIND CLUSTER
    load_sql "$1" "$2" | q >/dev/null 2>"$OUT/ref_$1.err" || bad "faults: the reference $1 load failed: $(head -3 "$OUT/ref_$1.err")"
}
for k in jobfile philly util; do ref_load "$k" "ref_$k"; done
declare -A FULL=([jobfile]=$(fp ref_jobfile) [philly]=$(fp ref_philly) [util]=$(fp ref_util))
"$SYNC" --quiet --cluster ref_sync --file "$FIX/slurm/sacct_final.txt" >"$OUT/ref_sync.log" 2>&1 || bad "faults: the reference sync failed: $(cat "$OUT/ref_sync.log")"
"$SYNC" --quiet --cluster ref_prom --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL --prom-since "$FAULTS_PROM_SINCE" --prom-lag 0s \
    >"$OUT/ref_prom.log" 2>&1 || bad "faults: the reference Prometheus sync failed: $(cat "$OUT/ref_prom.log")"
FULL[sync]=$(fp ref_sync) FULL[prom]=$(fp ref_prom)
for k in jobfile philly util sync prom; do
    [ "${FULL[$k]}" != "$EMPTY" ] || bad "faults: the reference $k load stored nothing"
done
ok "reference loads: job file ${FULL[jobfile]%% jobs*} jobs, Philly ${FULL[philly]%% jobs*}, sacct file ${FULL[sync]%% jobs*}, utilization $(cut -d' ' -f4 <<<"${FULL[util]}") samples, Prometheus $(cut -d' ' -f4 <<<"${FULL[prom]}") samples"
n=0

# psql_fault KIND POINT FAULT: one psql load (KIND) into a new cluster, the
# fault (kill, cancel, timeout) at POINT, then the invariants and the reload
psql_fault() {
    local kind=$1 point=$2 fault=$3 cl what pid
    n=$((n + 1)); cl="f${n}_$kind"
    what="$fault at $kind / ${POINT_NAME[$point]}"
    point_on "$point" || { bad "$what: cannot create the fault trigger"; return; }
    sess_open
    [ "$fault" != timeout ] || sess_send "SET statement_timeout = '1s';"
    sess_send "$(load_sql "$kind" "$cl")"
    if [ "$fault" = timeout ]; then
        pid=$(at_point) || true
    elif ! pid=$(at_point); then
        bad "$what: the load never reached the point"; sess_close; point_off "$point"; return
    fi
    case $fault in
        kill) crash; sess_close; restart; ok "$what: server killed (kill -9) and recovered" ;;
        cancel) q -c "SELECT pg_cancel_backend($pid)" >/dev/null; CANCELS=$((CANCELS + 1)) ;;
        timeout) TIMEOUTS=$((TIMEOUTS + 1)) ;;
    esac
    point_off "$point"
    if [ "$fault" != kill ]; then
        if sess_wait @@loaded; then
            local want='canceling statement due to user request'
            [ "$fault" = cancel ] || want='canceling statement due to statement timeout'
            grep -q "$want" <<<"$sess_text" && ok "$what: the load ends with \"$want\"" || bad "$what: the load's output: $sess_text"
            sess_send "RESET statement_timeout;" "SELECT 'alive ' || count(*) FROM acmetrace.jobs WHERE cluster = '$cl';"
            sess_wait @@asked && check_eq "$what: the same session answers a query" "$(grep '^alive' <<<"$sess_text")" "alive 0" ||
                bad "$what: the session did not answer"
        else
            bad "$what: the load did not end"
        fi
        sess_close
    fi
    if [ "$kind" = refresh ]; then
        invariants "$what" ref_jobfile
        echo "$SECONDS s: $cl" >>"$OUT/timing.txt"
        return
    fi
    check_eq "$what: nothing of it stored" "$(fp "$cl")" "$EMPTY"
    invariants "$what" "$cl"
    load_sql "$kind" "$cl" | q >/dev/null 2>"$OUT/reload.err" || bad "$what: the next load failed: $(head -3 "$OUT/reload.err")"
    check_eq "$what: the next load stores all of it" "$(fp "$cl")" "${FULL[$kind]}"
    done_with "$cl"
}

# sync_fault KIND POINT FAULT: acmetrace-sync (sync: --file, prom:
# --prometheus) into a new cluster, the fault at POINT; the run log, the
# invariants, the next sync
sync_fault() {
    local kind=$1 point=$2 fault=$3 cl what pid sp rc args
    n=$((n + 1)); cl="f${n}_$kind"
    what="$fault at acmetrace-sync $([ "$kind" = sync ] && echo --file || echo --prometheus) / ${POINT_NAME[$point]}"
    if [ "$kind" = sync ]; then args=(--cluster "$cl" --file "$FIX/slurm/sacct_final.txt")
    else args=(--cluster "$cl" --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL --prom-since "$FAULTS_PROM_SINCE" --prom-lag 0s); fi
    point_on "$point" || { bad "$what: cannot create the fault trigger"; return; }
    if [ "$fault" = timeout ]; then
        PGOPTIONS='-c statement_timeout=1s' "$SYNC" "${args[@]}" >"$OUT/$n.out" 2>"$OUT/$n.err" & sp=$!
    else
        "$SYNC" "${args[@]}" >"$OUT/$n.out" 2>"$OUT/$n.err" & sp=$!
    fi
    loaders+=("$sp")
    if [ "$fault" = timeout ]; then
        pid=$(at_point) || true
    elif ! pid=$(at_point); then
        bad "$what: the sync never reached the point"; kill "$sp"; wait "$sp"; point_off "$point"; return
    fi
    [ "$fault" = timeout ] ||
        check_eq "$what: while it loads, the run log shows it 'running' with its backend's pid" \
            "$(q -c "SELECT string_agg(outcome || ':' || (backend_pid = $pid), ',') FROM acmetrace.sync_runs WHERE cluster = '$cl'")" running:true
    case $fault in
        kill) crash ;;
        cancel) q -c "SELECT pg_cancel_backend($pid)" >/dev/null; CANCELS=$((CANCELS + 1)) ;;
        timeout) TIMEOUTS=$((TIMEOUTS + 1)) ;;
    esac
    wait "$sp"; rc=$?
    if [ "$fault" = kill ]; then
        # the sync ended while the server was down: it could not record the failure
        restart
        ok "$what: server killed (kill -9) and recovered"
        check_eq "$what: the sync exits 1" "$rc" 1
        point_off "$point"
        check_eq "$what: after recovery the run log shows the run 'running'" \
            "$(q -c "SELECT string_agg(outcome, ',') FROM acmetrace.sync_runs WHERE cluster = '$cl'")" running
    else
        point_off "$point"
        local want='canceling statement due to user request'
        [ "$fault" = cancel ] || want='canceling statement due to statement timeout'
        check_eq "$what: the sync exits 1 with the error" "$rc $(grep -c "$want" "$OUT/$n.err")" "1 1"
        check_eq "$what: the run log: one 'failed' run with the error" \
            "$(q -c "SELECT string_agg(outcome || ':' || (message ~ '$want'), ',') FROM acmetrace.sync_runs WHERE cluster = '$cl'")" failed:true
    fi
    check_eq "$what: nothing of it stored" "$(fp "$cl")" "$EMPTY"
    invariants "$what" "$cl"
    "$SYNC" "${args[@]}" >"$OUT/$n.next.out" 2>&1 || bad "$what: the next sync failed: $(cat "$OUT/$n.next.out")"
    check_eq "$what: the next sync stores all of it" "$(fp "$cl")" "${FULL[$kind]}"
    if [ "$fault" = kill ]; then
        check_eq "$what: the next sync marks the killed run 'interrupted', then 'ok'" \
            "$(q -c "SELECT string_agg(outcome || ':' || coalesce(message ~ '^interrupted: .*server restarted', true), ',' ORDER BY run_id)
                      FROM acmetrace.sync_runs WHERE cluster = '$cl'") $(grep -c "run [0-9]* (.*) had been interrupted" "$OUT/$n.next.out")" \
            "interrupted:true,ok:true 1"
    else
        check_eq "$what: the run log: 'failed', then 'ok'" \
            "$(q -c "SELECT string_agg(outcome, ',' ORDER BY run_id) FROM acmetrace.sync_runs WHERE cluster = '$cl'")" failed,ok
    fi
    done_with "$cl"
}

for fault in kill cancel timeout; do
    for point in jobs summary precommit; do psql_fault jobfile "$point" "$fault"; done
    for point in jobs summary; do psql_fault philly "$point" "$fault"; done
    for point in blocks hours; do psql_fault util "$point" "$fault"; done
    psql_fault refresh summary "$fault"
    for point in jobs summary runlog; do sync_fault sync "$point" "$fault"; done
    for point in blocks hours runlog; do sync_fault prom "$point" "$fault"; done
done

# ---- a killed run, then two syncs that wait for the cluster's lock: the
# first to get it marks the killed run 'interrupted' and leaves the other,
# still waiting, alone
cl=waiting
point_on jobs
"$SYNC" --cluster $cl --file "$FIX/slurm/sacct_final.txt" >/dev/null 2>&1 & sp=$!
loaders+=("$sp")
at_point >/dev/null || bad "waiting syncs: the first sync never reached the point"
crash; wait "$sp"; restart; point_off jobs
coproc HOLD { psql -X -q -A -t 2>&1; }
echo "SELECT 'held' FROM (SELECT pg_advisory_lock(hashtextextended('acmetrace-sync:$cl', 0))) l;" >&"${HOLD[1]}"
read -r -t 60 held <&"${HOLD[0]}"
"$SYNC" --cluster $cl --file "$FIX/slurm/sacct_final.txt" >"$OUT/wait_a.out" 2>&1 & pa=$!
"$SYNC" --cluster $cl --file "$FIX/slurm/sacct_final.txt" >"$OUT/wait_b.out" 2>&1 & pb=$!
loaders+=("$pa" "$pb")
for i in $(seq 600); do
    [ "$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")" -lt 2 ] || break
    sleep 0.1
done
check_eq "waiting syncs: both wait, their runs 'running' beside the killed one" \
    "$held $(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") $(q -c "SELECT count(*) FROM acmetrace.sync_runs WHERE cluster = '$cl' AND outcome = 'running'")" "held 2 3"
echo '\q' >&"${HOLD[1]}"
wait "$pa"; ra=$?; wait "$pb"; rb=$?
check_eq "waiting syncs: both succeed, one of them reports the killed run interrupted" \
    "$ra $rb $(cat "$OUT/wait_a.out" "$OUT/wait_b.out" | grep -c 'had been interrupted')" "0 0 1"
check_eq "waiting syncs: the run log: interrupted, ok, ok (the waiting run never marked)" \
    "$(q -c "SELECT string_agg(outcome || ':' || coalesce((message ~ '^interrupted: .*server restarted')::text, '-'), ',' ORDER BY run_id)
              FROM acmetrace.sync_runs WHERE cluster = '$cl'")" "interrupted:true,ok:-,ok:-"
check_eq "waiting syncs: the file's jobs once" "$(fp $cl)" "${FULL[sync]}"
done_with $cl

# ---- kills at 10%..90% of a bigger load's duration (inside the C loaders)
q -c "SELECT acmetrace.load_generated('gen', 'seren', 60000, 7)" >/dev/null &&
    q -c "\\copy (SELECT * FROM acmetrace.trace_seren_csv('gen')) TO '$OUT/big_jobs.csv' (FORMAT csv, HEADER)" &&
    q -c "SELECT acmetrace.drop_cluster('gen')" >/dev/null || bad "faults: cannot write the big job file"
"$ROOT/tools/acmetrace-genutil" --series 400 --days 2 --seed 9 -o "$OUT/util_big.csv" || bad "faults: genutil failed"
for kind in jobfile util; do
    file=$OUT/big_jobs.csv; [ "$kind" = jobfile ] || file=$OUT/util_big.csv
    t0=$(date +%s%N)
    load_sql "$kind" "big_$kind" "$file" | q >/dev/null 2>"$OUT/big.err" || bad "faults: the big $kind load failed: $(head -3 "$OUT/big.err")"
    ms=$((($(date +%s%N) - t0) / 1000000))
    full=$(fp "big_$kind")
    done_with "big_$kind"
    for pct in 10 30 50 70 90; do
        n=$((n + 1)); cl="f${n}_big$kind"
        what="kill at ${pct}% of a ${ms} ms $kind load"
        load_sql "$kind" "$cl" "$file" | q >/dev/null 2>&1 & lp=$!
        loaders+=("$lp")
        sleep "$(awk -v ms="$ms" -v p="$pct" 'BEGIN { printf "%.3f", ms * p / 100000 }')"
        crash; wait "$lp"; restart; TIMED=$((TIMED + 1))
        ok "$what: server killed (kill -9) and recovered"
        got=$(fp "$cl")
        if [ "$got" = "$EMPTY" ] || [ "$got" = "$full" ]; then
            ok "$what: all or nothing stored ($([ "$got" = "$EMPTY" ] && echo nothing || echo all))"
        else bad "$what: part of the load stored: $got (all: $full)"; fi
        invariants "$what" "$cl"
        if [ "$got" = "$EMPTY" ]; then
            load_sql "$kind" "$cl" "$file" | q >/dev/null 2>"$OUT/reload.err" || bad "$what: the next load failed: $(head -3 "$OUT/reload.err")"
        fi
        check_eq "$what: after the next load all of it is stored" "$(fp "$cl")" "$full"
        done_with "$cl"
    done
done

check_eq "no fault trigger left" "$(q -c "SELECT count(*) FROM pg_trigger WHERE tgname IN ('aa_fault', 'zz_fault')")" 0
ok "figures: $KILLS kills survived (of them $TIMED at a fraction of a load), $CANCELS cancels, $TIMEOUTS statement timeouts, $FAILS failures"
[ "$FAILS" -eq 0 ]
