#!/usr/bin/env bash
# bin/acmetrace-sync: loads sacct files and a fake sacct's output in one
# transaction, records every run in acmetrace.sync_runs, reloads change
# nothing, a job seen RUNNING then COMPLETED is updated, a bad file or a
# failed sacct loads nothing, concurrent syncs of a cluster wait for each
# other (or exit 75 with --no-wait) and never double a job; exit codes and
# messages.  Real sacct is exercised by test/e2e/slurm.sh.
. "$(dirname "$0")/lib.sh"
SYNC=${ACMETRACE_SYNC:-$ROOT/bin/acmetrace-sync}   # or test an installed copy
LOCK_KEY="hashtextextended('acmetrace-sync:prod', 0)"

# run NAME ARGS...: the sync's exit code in $rc, stdout in $out, stderr in $err
run() {
    local name=$1; shift
    "$SYNC" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"; rc=$?
    out=$(cat "$OUT/$name.stdout"); err=$(cat "$OUT/$name.stderr")
}
# expect NAME CODE MESSAGE-REGEX ARGS...: exit code and the one stderr line
expect() {
    local name=$1 code=$2 re=$3; shift 3
    run "$name" "$@"
    check_eq "$name: exit code" "$rc" "$code"
    if grep -Eq "^acmetrace-sync: $re" <<<"$err"; then ok "$name: message"; else bad "$name: message: $err"; fi
    check_eq "$name: nothing on stdout" "$out" ""
}
# the jobs (and their Slurm fields) as one checksum, and counts
state() {
    local slurm="''"
    [ "$(q -c "SELECT to_regclass('acmetrace.slurm_jobs') IS NOT NULL")" = f ] ||
        slurm="(SELECT coalesce(string_agg(s::text, '|' ORDER BY s::text), '') FROM acmetrace.slurm_jobs s)"
    q -c "SELECT (SELECT count(*) FROM acmetrace.jobs) || ' jobs ' ||
                 md5((SELECT coalesce(string_agg(j::text, '|' ORDER BY cluster, job_id), '') FROM acmetrace.jobs j) || $slurm)"
}
runs() { q -c "SELECT count(*) FROM acmetrace.sync_runs"; }
last_run() { q -F ' ' -c "SELECT $1 FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1"; }

# sacct files as the documented sacct line writes them: a header of the 20
# fields and one line per job, fields separated by 0x1f
US=$'\x1f'
header() { local IFS=$US; echo "JobIDRaw JobID Cluster Partition QOS Account User JobName Submit Eligible Start End State ExitCode NNodes NCPUS ReqTRES AllocTRES Timelimit NodeList" | tr ' ' "$US"; }
# job ID NAME SUBMIT START END STATE EXIT GPUS NODELIST: one sacct line
job() {
    local tres="billing=16,cpu=16,gres/gpu=$8,mem=500G,node=1" alloc
    alloc=$tres; [ "$4" != Unknown ] || alloc=''
    local f=("$1" "$1" slurmprod gpu normal llm alice "$2" "$3" "$3" "$4" "$5" "$6" "$7" 1 16 "$tres" "$alloc" 1-00:00:00 "$9")
    local IFS=$US; echo "${f[*]}"
}
first_jobs() {
    header
    job 101 'pretrain_7b' 2026-11-20T08:00:00 2026-11-20T08:00:10 2026-11-20T10:00:10 COMPLETED 0:0 8 node01
    job 102 'eval|mmlu, "quick"' 2026-11-20T08:05:00 2026-11-20T08:05:30 2026-11-20T08:15:30 FAILED 3:0 1 node02
    job 103 'sft_run' 2026-11-20T08:10:00 2026-11-20T08:10:05 Unknown RUNNING 0:0 8 node03
    job 104 'debug' 2026-11-20T08:20:00 Unknown Unknown PENDING 0:0 1 'None assigned'
    job 105 'cpu_prep' 2026-11-20T08:30:00 2026-11-20T08:30:01 2026-11-20T08:31:00 'CANCELLED by 1000' 0:15 0 node04
}
first_jobs >"$OUT/first.txt"
# the next sync: 103 has ended
sed "/^103$US/s/Unknown${US}RUNNING/2026-11-20T12:10:05${US}COMPLETED/" "$OUT/first.txt" >"$OUT/ended.txt"
# three new jobs
{ header
  for i in 1 2 3; do job "20$i" "batch_$i" 2026-11-21T09:00:0$i 2026-11-21T09:01:00 2026-11-21T09:30:00 COMPLETED 0:0 2 node05; done
} >"$OUT/more.txt"
# line 4 (the third job) has a bad Submit time
sed "4s/2026-11-20T08:10:00/2026-13-01T00:00:00/" "$OUT/first.txt" >"$OUT/bad.txt"
# a new job and the third line malformed the same way, for the sacct-mode failure
{ header; job 301 'late' 2026-11-22T09:00:00 2026-11-22T09:00:10 2026-11-22T09:10:00 COMPLETED 0:0 1 node06; } >"$OUT/one.txt"

# ---- usage and environment errors
run version --version
check_eq "--version: exit code" "$rc" 0
check_eq "--version prints the repository's version" "$out" \
    "acmetrace-sync $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/acmetrace.control")"
run help --help
check_eq "--help: exit code" "$rc" 0
grep -q '^exit status: 0 loaded; 1 ' <<<"$out" && ok "--help documents the exit codes" || bad "--help: $out"
expect bad_option 64 'unknown argument: --bogus' --bogus
grep -q '^usage: acmetrace-sync' "$OUT/bad_option.stderr" && ok "bad usage prints the usage text" || bad "no usage text"
expect file_and_since 64 '--since is for sacct mode, not with --file' --file "$OUT/first.txt" --since 2026-11-01
expect bad_cluster_name 64 '--cluster Prod: a cluster name is lower-case' --cluster Prod --file "$OUT/first.txt"
expect unreachable 2 'cannot connect to the database' --db 'host=/nonexistent port=1' --cluster prod --file "$OUT/first.txt"
dropdb --if-exists e2e_sync_noext 2>/dev/null; createdb e2e_sync_noext || bad "createdb"
expect no_extension 2 'the acmetrace extension is not installed in database e2e_sync_noext.*CREATE EXTENSION acmetrace' \
    --db dbname=e2e_sync_noext --cluster prod --file "$OUT/first.txt"

fresh_db e2e_sync
check_eq "acmetrace.sync_runs is dumped by pg_dump" \
    "$(q -c "SELECT count(*) FROM pg_extension e, unnest(e.extconfig) c WHERE e.extname = 'acmetrace'
               AND c IN ('acmetrace.sync_runs'::regclass, 'acmetrace.sync_runs_run_id_seq'::regclass)")" 2
expect bad_since 64 '--since yesterday-ish: not a time PostgreSQL reads' --cluster prod --sacct /bin/false --since yesterday-ish
expect bad_overlap 64 '--overlap 5 parsecs: not a PostgreSQL interval' --cluster prod --sacct /bin/false --overlap '5 parsecs'
check_eq "usage errors record no run" "$(runs)" 0

# ---- a file: first sync, the same file again, a job that ended
run first --db "dbname=e2e_sync" --cluster prod --file "$OUT/first.txt"
check_eq "first sync: exit code" "$rc" 0
check_eq "first sync: nothing on stderr" "$err" ""
grep -Eq "^acmetrace-sync: prod: file $OUT/first.txt: 5 lines read, 5 inserted, 0 updated, 0 unchanged in [0-9.]+ s \(run 1\)$" <<<"$out" &&
    ok "first sync: one summary line" || bad "first sync: summary: $out"
check_eq "first sync: 5 jobs" "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'prod'")" 5
check_eq "first sync: the run recorded" "$(last_run "cluster, source, window_start IS NULL, lines, inserted, updated, unchanged, outcome, message IS NULL, finished_at >= started_at, duration_s >= 0")" \
    "prod $OUT/first.txt t 5 5 0 0 ok t t t"
before=$(state)

run again --cluster prod --file "$OUT/first.txt"
check_eq "same file again: exit code" "$rc" 0
grep -q ': 5 lines read, 0 inserted, 0 updated, 5 unchanged in ' <<<"$out" && ok "same file again: 0 inserted, 0 updated, 5 unchanged" ||
    bad "same file again: summary: $out"
check_eq "same file again: jobs unchanged (count and checksum)" "$(state)" "$before"
check_eq "same file again: the run recorded" "$(last_run "lines, inserted, updated, unchanged, outcome")" "5 0 0 5 ok"

run quiet --quiet --file "$OUT/ended.txt" --cluster prod
check_eq "a RUNNING job now COMPLETED: exit code" "$rc" 0
check_eq "--quiet: nothing on stdout or stderr" "$out$err" ""
check_eq "a RUNNING job now COMPLETED: 1 updated, 4 unchanged" "$(last_run "inserted, updated, unchanged")" "0 1 4"
check_eq "a RUNNING job now COMPLETED: no extra row" "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'prod'")" 5
check_eq "a RUNNING job now COMPLETED: its row" \
    "$(q -F ' ' -c "SELECT state, end_time AT TIME ZONE 'UTC' FROM acmetrace.jobs WHERE cluster = 'prod' AND job_id = '103'")" \
    "COMPLETED 2026-11-20 12:10:05"

# ---- a malformed file loads nothing and records a failed run
before=$(state); n=$(runs)
expect bad_file 1 "prod: load of file $OUT/bad.txt failed, nothing loaded: .*line [0-9]+, field Submit" --cluster prod --file "$OUT/bad.txt"
check_eq "bad file: the database as it was (count and checksum)" "$(state)" "$before"
check_eq "bad file: one failed run" "$(runs) $(last_run "outcome, lines IS NULL, message ~ 'field Submit'")" "$((n + 1)) failed t t"
# a line cut short: COPY's own error, the line named
{ head -3 "$OUT/first.txt"; sed -n 4p "$OUT/first.txt" | cut -d"$US" -f1-10; } >"$OUT/truncated.txt"
expect truncated_file 1 "prod: load of file $OUT/truncated.txt failed, nothing loaded: .*line 4" --cluster prod --file "$OUT/truncated.txt"
check_eq "truncated file: the database as it was, a failed run" "$(state) $(runs) $(last_run "outcome")" "$before $((n + 2)) failed"
n=$((n + 1))
expect missing_file 1 "prod: cannot read $OUT/nonexistent.txt, nothing loaded" --cluster prod --file "$OUT/nonexistent.txt"
check_eq "missing file: a failed run" "$(runs) $(last_run "source, outcome")" "$((n + 2)) $OUT/nonexistent.txt failed"

# ---- the cluster from the file's Cluster field when --cluster is not given
sed "s/${US}slurmprod${US}/${US}SlurmProd${US}/" "$OUT/first.txt" >"$OUT/upper.txt"
run derived --file "$OUT/upper.txt"
check_eq "no --cluster: the Slurm cluster of the file, in lower case" "$rc $(last_run "cluster, inserted")" "0 slurmprod 5"

# ---- two syncs at once: one waits for the other, no job twice
# hold_lock / release_lock: a psql session holding prod's sync lock
hold_lock() {
    coproc HOLD { psql -X -q -A -t 2>&1; }
    hold_pid=$HOLD_PID hold_in=${HOLD[1]}
    echo "SELECT 'held' FROM (SELECT pg_advisory_lock($LOCK_KEY)) l;" >&"$hold_in"
    read -r held <&"${HOLD[0]}"
    check_eq "a psql session holds the sync lock of prod" "$held" held
}
release_lock() { echo "SELECT pg_advisory_unlock($LOCK_KEY); \\q" >&"$hold_in"; wait "$hold_pid" 2>/dev/null; }
# two_at_once NAME ARGS...: two syncs started together while the lock is
# held, both seen waiting, then the lock released; exit codes in $ra $rb
two_at_once() {
    local name=$1 pa pb waiting=0; shift
    hold_lock
    "$SYNC" "$@" >"$OUT/$name.a.stdout" 2>"$OUT/$name.a.stderr" & pa=$!
    "$SYNC" "$@" >"$OUT/$name.b.stdout" 2>"$OUT/$name.b.stderr" & pb=$!
    # both wait for the lock (polled, no timing assumed)
    while kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null; do
        waiting=$(q -c "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                         WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = 'acmetrace-sync'")
        [ "$waiting" -lt 2 ] || break
        sleep 0.1
    done
    check_eq "$name: both syncs wait for the lock" "$waiting" 2
    release_lock
    wait $pa; ra=$?; wait $pb; rb=$?
    check_eq "$name: both succeed" "$ra $rb $(cat "$OUT/$name.a.stderr" "$OUT/$name.b.stderr")" "0 0 "
}

hold_lock
before=$(state); n=$(runs)
expect busy 75 'prod: another sync of this cluster is running; not waiting \(--no-wait\), nothing loaded' \
    --no-wait --cluster prod --file "$OUT/more.txt"
check_eq "--no-wait: nothing loaded, no run recorded" "$(state) $(runs)" "$before $n"
release_lock

two_at_once concurrent --cluster prod --file "$OUT/more.txt"
check_eq "two syncs at once: 3 jobs inserted once, then unchanged" \
    "$(q -F ' ' -c "SELECT sum(inserted), sum(unchanged), count(*) FROM (SELECT * FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 2) r")" "3 3 2"
check_eq "two syncs at once: no job twice" "$(q -c "SELECT count(*), count(DISTINCT job_id) FROM acmetrace.jobs WHERE cluster = 'prod'")" "8|8"

# ---- sacct mode with a fake sacct: its options, the windows, failures
mkdir -p "$OUT/bin"
cat >"$OUT/bin/sacct" <<EOF
#!/usr/bin/env bash
# records its arguments and environment, prints \$FAKE_SACCT_FILE or fails
printf '%s\n' "\$@" >"$OUT/sacct.args"
echo "TZ=\${TZ-unset} SLURM_TIME_FORMAT=\${SLURM_TIME_FORMAT-unset}" >"$OUT/sacct.env"
[ -z "\${FAKE_SACCT_FAIL:-}" ] || { echo "sacct: error: Problem talking to the database: Connection refused" >&2; exit 1; }
cat "\$FAKE_SACCT_FILE"
EOF
chmod +x "$OUT/bin/sacct"
export FAKE_SACCT_FILE="$OUT/one.txt" SLURM_TIME_FORMAT=%s
arg() { sed -n "s/^--$1=//p" "$OUT/sacct.args"; }

run sacct_first --cluster prod --sacct "$OUT/bin/sacct" --since '2026-11-22 08:00' --slurm-cluster slurmprod
check_eq "sacct mode: exit code" "$rc" 0
grep -Eq '^acmetrace-sync: prod: sacct 2026-11-22T08:00:00\.\.[0-9T:-]+ UTC: 1 lines read, 1 inserted, 0 updated, 0 unchanged in ' <<<"$out" &&
    ok "sacct mode: summary line with the window" || bad "sacct mode: summary: $out $err"
check_eq "sacct mode: the documented options" "$(grep -v -e '^--starttime=' -e '^--endtime=' "$OUT/sacct.args" | tr '\n' ' ')" \
    "--allusers --allocations --parsable2 --delimiter=$US --format=JobIDRaw,JobID,Cluster,Partition,QOS,Account,User,JobName,Submit,Eligible,Start,End,State,ExitCode,NNodes,NCPUS,ReqTRES,AllocTRES,Timelimit,NodeList --clusters=slurmprod "
check_eq "sacct mode: TZ=UTC, SLURM_TIME_FORMAT unset" "$(cat "$OUT/sacct.env")" "TZ=UTC SLURM_TIME_FORMAT=unset"
check_eq "sacct mode: --starttime is --since" "$(arg starttime)" 2026-11-22T08:00:00
end1=$(arg endtime)
check_eq "sacct mode: --endtime is now (UTC)" \
    "$(q -c "SELECT ('$end1' || '+00')::timestamptz BETWEEN now() - interval '5 min' AND now() + interval '1 min'")" t
check_eq "sacct mode: the run recorded with its window" \
    "$(last_run "source, to_char(window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS'), to_char(window_end AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS'), outcome")" \
    "sacct 2026-11-22T08:00:00 $end1 ok"

run sacct_next --quiet --cluster prod --sacct "$OUT/bin/sacct"
check_eq "next sacct sync: exit code" "$rc" 0
check_eq "next sacct sync: starts 5 min before the last window's end" \
    "$(q -c "SELECT ('$end1' || '+00')::timestamptz - interval '5 min' = ('$(arg starttime)' || '+00')::timestamptz")" t
check_eq "next sacct sync: the job again, unchanged" "$(last_run "inserted, updated, unchanged")" "0 0 1"
end2=$(arg endtime)

before=$(state); n=$(runs)
FAKE_SACCT_FAIL=1 expect sacct_fails 3 'prod: sacct failed \(exit 1\): sacct: error: Problem talking to the database: Connection refused; window [0-9T:-]+\.\.[0-9T:-]+ UTC, nothing loaded' \
    --cluster prod --sacct "$OUT/bin/sacct" --overlap '10 min'
check_eq "sacct fails: the window started 10 min before the last end" \
    "$(q -c "SELECT ('$end2' || '+00')::timestamptz - interval '10 min' = ('$(arg starttime)' || '+00')::timestamptz")" t
check_eq "sacct fails: nothing loaded, a failed run with its window" \
    "$(state) $(runs) $(last_run "source, outcome, window_start IS NOT NULL AND window_end IS NOT NULL, message ~ 'Connection refused'")" \
    "$before $((n + 1)) sacct failed t t"

expect sacct_missing 3 'prod: sacct not found or not executable: /nonexistent/sacct \(give --sacct PATH\)' \
    --cluster prod --sacct /nonexistent/sacct
check_eq "sacct missing: nothing loaded, a failed run" "$(state) $(runs) $(last_run "source, outcome")" "$before $((n + 2)) sacct failed"

FAKE_SACCT_FILE="$OUT/bad.txt" expect sacct_bad_output 1 "prod: load of sacct [0-9T:-]+\.\.[0-9T:-]+ UTC failed, nothing loaded: .*line [0-9]+, field Submit" \
    --cluster prod --sacct "$OUT/bin/sacct"
check_eq "bad sacct output: nothing loaded, a failed run" "$(state) $(runs) $(last_run "outcome")" "$before $((n + 3)) failed"

run sacct_after_failures --quiet --cluster prod --sacct "$OUT/bin/sacct"
check_eq "after failed runs the window still starts at the last ok run's end minus 5 min" \
    "$rc $(q -c "SELECT ('$end2' || '+00')::timestamptz - interval '5 min' = ('$(arg starttime)' || '+00')::timestamptz")" "0 t"

# two sacct syncs at once: the second's window is taken after the first
# commits.  "Second" by finishing order: each run's row (and run_id) is
# written before it waits for the cluster's lock, so either may load first.
two_at_once concurrent_sacct --quiet --cluster prod --sacct "$OUT/bin/sacct"
check_eq "two sacct syncs at once: the second window starts 5 min before the first's end" \
    "$(q -c "WITH two AS (SELECT * FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 2),
                   a AS (SELECT * FROM two ORDER BY finished_at LIMIT 1),
                   b AS (SELECT * FROM two ORDER BY finished_at DESC LIMIT 1)
              SELECT a.window_end - interval '5 min' = b.window_start AND a.outcome = 'ok' AND b.outcome = 'ok'
                FROM a, b")" t

# a first sacct sync of a cluster without --since pulls the last day; the
# cluster's name comes from sacctmgr when Slurm knows one
printf '#!/bin/sh\necho slurmnew\n' >"$OUT/bin/sacctmgr"; chmod +x "$OUT/bin/sacctmgr"
run sacct_new --quiet --sacct "$OUT/bin/sacct"
check_eq "no --cluster: sacctmgr's one cluster" "$rc $(last_run "cluster, outcome")" "0 slurmnew ok"
check_eq "first sync without --since: the last day" \
    "$(q -c "SELECT ('$(arg endtime)' || '+00')::timestamptz - interval '1 day' = ('$(arg starttime)' || '+00')::timestamptz")" t
printf '#!/bin/sh\necho a\necho b\n' >"$OUT/bin/sacctmgr"
expect two_slurm_clusters 64 'Slurm knows 2 clusters \(a b\); give --cluster NAME' --sacct "$OUT/bin/sacct"

# ---- pg_dump keeps the runs, and the restored sequence goes on after them
pg_dump -Fc -f "$OUT/dump.custom" e2e_sync || bad "pg_dump failed"
dropdb --if-exists e2e_sync_restored && createdb e2e_sync_restored && pg_restore -d e2e_sync_restored "$OUT/dump.custom" ||
    bad "pg_restore failed"
RUNS_SQL="SELECT md5(string_agg(r::text, '|' ORDER BY run_id)) FROM acmetrace.sync_runs r"
check_eq "pg_dump/pg_restore: the same runs" "$(q -d e2e_sync_restored -c "$RUNS_SQL")" "$(q -c "$RUNS_SQL")"
run restored --quiet --db dbname=e2e_sync_restored --cluster prod --file "$OUT/one.txt"
check_eq "pg_dump/pg_restore: the next run gets the next id" \
    "$rc $(q -d e2e_sync_restored -c "SELECT max(run_id) FROM acmetrace.sync_runs")" "0 $(($(q -c "SELECT max(run_id) FROM acmetrace.sync_runs") + 1))"

# ---- COMMENTs
check_eq "sync_runs and each of its columns have a COMMENT" \
    "$(q -c "SELECT count(*) FILTER (WHERE col_description('acmetrace.sync_runs'::regclass, attnum) IS NULL)
               FROM pg_attribute WHERE attrelid = 'acmetrace.sync_runs'::regclass AND attnum > 0 AND NOT attisdropped") $(q -c "SELECT obj_description('acmetrace.sync_runs'::regclass) IS NOT NULL")" "0 t"
finish
