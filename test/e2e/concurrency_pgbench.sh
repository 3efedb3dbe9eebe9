#!/usr/bin/env bash
# Concurrent loads and analyses under pgbench.
#
# Generates NFILES trace files in the published Seren and Kalos CSV formats
# with the extension's own generator (distinct seeds; file k always loads as
# cluster g<k>), then runs two pgbench processes side by side: 8 loader
# clients making LOADS attempts each, every one a server-side COPY of
# a random file through the test's wrapper cbench.load (test/e2e/concurrency/
# setup.sql), which records every attempt and catches only the extension's
# duplicate-load error; and 8 analyst clients running, for T seconds, the standard analyses
# (test/e2e/concurrency/analyses/*.sql) plus an observer that checks each
# snapshot shows whole clusters only.  Any other error aborts a pgbench
# client and fails the test.  Afterwards: every file loaded exactly once,
# each cluster holds exactly its file's job ids, duplicates happened and were
# refused with the documented error, nothing else is there, staging is empty,
# and every analysis equals the same analysis over the same files loaded
# serially with psql's \copy into a fresh database, byte for byte.
#
# The byte-for-byte comparison is sound although the two job tables differ
# in physical row order and parallel plans may combine partial aggregates in
# any order: every float the analyses sum is a whole number of seconds
# (published duration/queue and timestamp differences at 1 s resolution), so
# the float8 sums are exact; the rest are counts, numeric sums, sorts
# (medians, percentile_cont) and mergeable sketch buckets.
#
# Runs with default planner settings: the duplicate-load error path was
# quadratic in a file's size and every load's ANALYZE serialized concurrent
# loads until 0.2.0 (both fixed in src/install/trace/load.sql); this test found them.
#
# ACMETRACE_CBENCH_FILES (default 24), ACMETRACE_CBENCH_SECONDS (default 12,
# the analysts' run), ACMETRACE_CBENCH_LOADS (load attempts per loader
# client, default 30) and ACMETRACE_CBENCH_ANALYST_RATE (analyst transactions per second over
# all analyst clients, default 0 = unthrottled) change the sizes.
. "$(dirname "$0")/lib.sh"
HERE="$ROOT/test/e2e/concurrency"
NFILES=${ACMETRACE_CBENCH_FILES:-24}
T=${ACMETRACE_CBENCH_SECONDS:-12}
LOADS=${ACMETRACE_CBENCH_LOADS:-30}
RATE=${ACMETRACE_CBENCH_ANALYST_RATE:-0}
CLIENTS=8
ANALYSES=(summary sketch occupancy bins states)
started=$SECONDS

# Loopback or a local socket only.
case "${PGHOST:-}" in
    ''|/*|localhost|127.0.0.1|::1) ;;
    *) bad "PGHOST=$PGHOST is neither loopback nor a unix socket"; exit 1 ;;
esac

# The server (running as its own OS user) reads the files with server-side
# COPY: put them in a private world-readable directory, not under the clone.
FILES=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-cbench.XXXXXX") || { bad "mktemp failed"; exit 1; }
trap 'rm -rf "$FILES"' EXIT
chmod 755 "$FILES"

# ---------------------------------------------------------------- generate
# File k: Seren format for odd k, Kalos for even k; 2,000..5,000 jobs; seed
# SEED0 + k.  Each is generated into a scratch cluster and written out with
# the extension's exporters, i.e. exactly in the published format.  Kalos
# files go through the Kalos loader (so they are written with +00:00); the
# generator has no Kalos-only columns, so fail_time / stop_time are the end
# of FAILED / CANCELLED jobs (as in the published sample) and the memory
# columns are empty.
SEED0=7000
fresh_db e2e_cbench_gen
: >"$OUT/files.tsv"
{
    echo '\set ON_ERROR_STOP 1'
    for k in $(seq 1 "$NFILES"); do
        n=$((2000 + (k * 977) % 3001)); seed=$((SEED0 + k))
        if [ $((k % 2)) -eq 1 ]; then
            fmt=seren
            echo "SELECT acmetrace.load_generated('src$k', 'seren', $n, $seed) \\g /dev/null"
        else
            fmt=kalos
            cat <<EOF
SET acmetrace.cluster = 'src$k';
INSERT INTO acmetrace.trace_kalos (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, fail_time, stop_time,
                                   duration, queue, gpu_time)
SELECT job_id, "user", node_num, gpu_num, cpu_num, type, state, submit_time, start_time, end_time,
       CASE WHEN state = 'FAILED' THEN end_time END, CASE WHEN state = 'CANCELLED' THEN end_time END,
       duration, queue, gpu_time
  FROM acmetrace.generate_jobs('kalos', $n, $seed);
RESET acmetrace.cluster;
EOF
        fi
        echo "\\copy (SELECT * FROM acmetrace.trace_${fmt}_csv('src$k')) TO '$FILES/g$k.$fmt.csv' (FORMAT csv, HEADER)"
        # keep the scratch database small: every load ANALYZEs acmetrace.jobs
        echo "TRUNCATE acmetrace.jobs, acmetrace.clusters CASCADE;"
        printf '%s\tg%s\t%s\t%s\t%s\n' "$k" "$k" "$fmt" "$FILES/g$k.$fmt.csv" "$n" >>"$OUT/files.tsv"
    done
} >"$OUT/generate.psql"
if psql -X -q -f "$OUT/generate.psql" >"$OUT/generate.log" 2>&1; then
    echo "  (generated $NFILES trace files in $((SECONDS - started)) s)"
else
    bad "generating the files failed (see $OUT/generate.log)"; exit 1
fi
chmod 644 "$FILES"/*.csv
check_eq "generated files" "$(ls "$FILES" | grep -c '\.csv$')" "$NFILES"
check_eq "Seren files have the published header" \
    "$(head -qn1 "$FILES"/*.seren.csv | sort -u)" "$(head -1 "$FIX/acme_trace_seren_sample.csv")"
check_eq "Kalos files have the published header" \
    "$(head -qn1 "$FILES"/*.kalos.csv | sort -u)" "$(head -1 "$FIX/acme_trace_kalos_sample.csv")"
check_eq "Kalos files write times with +00:00 as published" \
    "$(cut -d, -f10 "$FILES"/g2.kalos.csv | sed -n 2p | grep -c '^2023-.*+00:00$')" 1

# Expected contents, computed outside the database: per file its cluster,
# job count and the md5 of its sorted job ids (one per line).
: >"$OUT/expected.txt"
while IFS=$'\t' read -r k cl fmt path n; do
    ids=$(tail -n +2 "$path" | cut -d, -f1 | LC_ALL=C sort)
    [ "$(wc -l <<<"$ids")" = "$n" ] || bad "file $k has $(wc -l <<<"$ids") jobs, not $n"
    [ "$(LC_ALL=C sort -u <<<"$ids" | wc -l)" = "$n" ] || bad "file $k repeats a job id"
    echo "$cl $n $(md5sum <<<"$ids" | cut -d' ' -f1)"
done <"$OUT/files.tsv" | LC_ALL=C sort >"$OUT/expected.txt"
# The files hold exactly the jobs the generator makes for their seeds: no
# job lost or added between generate_jobs, the load and the exporters.
vals=$(while IFS=$'\t' read -r k cl fmt path n; do printf "('%s', '%s', %s, %s)," "$cl" "$fmt" "$n" $((SEED0 + k)); done <"$OUT/files.tsv")
q -c "SELECT f.cl || ' ' || count(*) || ' ' || md5(string_agg(g.job_id || E'\n', '' ORDER BY g.job_id COLLATE \"C\"))
        FROM (VALUES ${vals%,}) f(cl, fmt, n, seed) CROSS JOIN LATERAL acmetrace.generate_jobs(f.fmt, f.n, f.seed) g
       GROUP BY f.cl" | LC_ALL=C sort >"$OUT/generator.txt"
check_eq "files compared with generate_jobs, and those whose jobs differ (count, md5 of sorted ids)" \
    "$(wc -l <"$OUT/generator.txt") compared; differ: $(LC_ALL=C comm -3 "$OUT/expected.txt" "$OUT/generator.txt" | tr -s '\t\n' '  ')" \
    "$NFILES compared; differ: "

# ---------------------------------------------------------------- setup
setup_db() {  # setup_db NAME: fresh database with the test schema and the file list
    fresh_db "$1"
    psql -X -q -v ON_ERROR_STOP=1 -f "$HERE/setup.sql" \
         -c "\\copy cbench.files (k, cluster, fmt, path, jobs) FROM '$OUT/files.tsv'" >/dev/null ||
        { bad "setting up $1 failed"; exit 1; }
}

# The server can read the files where they are.
setup_db e2e_cbench
check_eq "server reads the generated files" \
    "$(q -c "SELECT count(*) FROM cbench.files WHERE (pg_stat_file(path)).size > 0")" "$NFILES"

# --------------------------------------------------- preflight: the wrapper
# In its own database: a load, its duplicate (caught and logged), and two
# errors that must come through: a 23505 that is not the duplicate-load
# error (a job id twice in one file) and a wrong header (22P04).
setup_db e2e_cbench_pre
first=$(sed -n 1p "$OUT/files.tsv" | cut -f4)
{ cat "$first"; sed -n 2p "$first"; } >"$FILES/twice.csv"
chmod 644 "$FILES/twice.csv"
q -c "INSERT INTO cbench.files VALUES
        ($((NFILES + 1)), 'twice', 'seren', '$FILES/twice.csv', $(($(wc -l <"$first"))))" \
  -c "INSERT INTO cbench.files VALUES ($((NFILES + 2)), 'wrongfmt', 'kalos', '$first', 1)" >/dev/null
pre() { q -v VERBOSITY=verbose -c "SELECT cbench.load($1)" 2>&1; }
check_eq "wrapper: first load" "$(pre 1)" "loaded"
check_eq "wrapper: second load of the same file is a logged duplicate" "$(pre 1)" "duplicate"
out=$(pre $((NFILES + 1)))
grep -q '^ERROR:  23505: job id "[^"]*" appears more than once in this file' <<<"$out" &&
    ok "wrapper: re-raises a 23505 that is not a duplicate load" ||
    bad "wrapper: a job id twice in a file gave: $out"
out=$(pre $((NFILES + 2)))
grep -q '^ERROR:  22P04: ' <<<"$out" && ok "wrapper: re-raises a header mismatch (22P04)" ||
    bad "wrapper: a Seren file loaded as Kalos gave: $out"
check_eq "wrapper: attempts logged" \
    "$(q -c "SELECT string_agg(k || ':' || outcome, ' ' ORDER BY id) FROM cbench.attempts")" "1:loaded 1:duplicate"
check_eq "wrapper: failed loads leave no cluster" \
    "$(q -c "SELECT string_agg(cluster, ' ' ORDER BY cluster) FROM acmetrace.clusters")" "g1"

# ---------------------------------------------------------------- pgbench
export PGDATABASE=e2e_cbench
afiles=()
for a in "${ANALYSES[@]}"; do afiles+=(-f "$HERE/analyses/$a.sql@1"); done
t0=$SECONDS
# Loaders run a fixed number of attempts, not a time: on a busy machine a
# time limit could end before every file was tried (a failure that would
# only measure speed).  Each round of racing attempts loads at least one
# file, so LOADS attempts per client leave none behind.
timeout $((T + 600)) pgbench -n -c $CLIENTS -j 2 -t "$LOADS" -D nfiles="$NFILES" \
    -f "$HERE/load.pgb" e2e_cbench >"$OUT/pgbench-load.out" 2>"$OUT/pgbench-load.err" &
lpid=$!
rate=(); [ "$RATE" != 0 ] && rate=(-R "$RATE")
timeout $((T + 60)) pgbench -n -c $CLIENTS -j 2 -T "$T" "${rate[@]}" "${afiles[@]}" -f "$HERE/observe.pgb@2" \
    e2e_cbench >"$OUT/pgbench-analyses.out" 2>"$OUT/pgbench-analyses.err" &
apid=$!
wait $lpid; lrc=$?
wait $apid; arc=$?
echo "  (pgbench ran for $((SECONDS - t0)) s)"
check_eq "loader pgbench exit code" "$lrc" 0
check_eq "analyst pgbench exit code" "$arc" 0
for g in load analyses; do
    o="$OUT/pgbench-$g.out"; e="$OUT/pgbench-$g.err"
    check_eq "$g: clients" "$(sed -n 's/^number of clients: //p' "$o")" "$CLIENTS"
    check_eq "$g: failed transactions" "$(sed -n 's/^number of failed transactions: \([0-9]*\) .*/\1/p' "$o")" 0
    check_eq "$g: clients aborted or errors" "$(grep -ciE 'abort|error' "$e")" 0
    n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$o")
    [ "${n:-0}" -gt 0 ] && ok "$g: $n transactions processed" || bad "$g: no transactions processed"
done
LOADTX=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$OUT/pgbench-load.out")
for a in "${ANALYSES[@]}" observe; do
    n=$(grep -A3 "^SQL script [0-9]*: .*/${a}\.\(sql\|pgb\)\$" "$OUT/pgbench-analyses.out" |
        sed -n 's/^ - \([0-9]*\) transactions .*/\1/p')
    [ "${n:-0}" -gt 0 ] && ok "analyses: $a ran $n times" || bad "analyses: $a never completed"
done

# ---------------------------------------------------------------- results
check_eq "files not loaded exactly once" \
    "$(q -c "SELECT string_agg(f.k || ':' || n, ' ' ORDER BY f.k)
               FROM cbench.files f
               CROSS JOIN LATERAL (SELECT count(*) AS n FROM cbench.attempts a
                                    WHERE a.k = f.k AND a.outcome = 'loaded') a
              WHERE n <> 1")" ""
dups=$(q -c "SELECT count(*) FROM cbench.attempts WHERE outcome = 'duplicate'")
[ "$dups" -gt 0 ] && ok "duplicate load attempts happened: $dups" || bad "no duplicate load attempt happened"
check_eq "every loader transaction logged one attempt" \
    "$(q -c "SELECT count(*) FROM cbench.attempts")" "$LOADTX"
check_eq "duplicates refused with the documented 23505 message and hint" \
    "$(q -c "SELECT count(*) FROM cbench.attempts a JOIN cbench.files f USING (k)
              WHERE a.outcome = 'duplicate'
                AND NOT (a.sqlstate = '23505'
                         AND a.message = format('cluster \"%s\" already holds %s of the %s jobs in this file (first: job id \"%s\"); nothing was loaded',
                                                f.cluster, f.jobs, f.jobs,
                                                (SELECT min(j.job_id) FROM acmetrace.jobs j WHERE j.cluster = f.cluster))
                         AND a.hint = format('To reload it run SELECT acmetrace.drop_cluster(%L) first; to load it beside the loaded one, SET acmetrace.cluster to another name.', f.cluster))")" 0
check_eq "duplicates logged before their file's load" \
    "$(q -c "SELECT count(*) FROM cbench.attempts d JOIN cbench.attempts l ON l.k = d.k AND l.outcome = 'loaded'
              WHERE d.outcome = 'duplicate' AND d.at <= l.at")" 0
q -c "SELECT cluster || ' ' || count(*) || ' ' || md5(string_agg(job_id || E'\n', '' ORDER BY job_id COLLATE \"C\"))
        FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster COLLATE \"C\"" >"$OUT/loaded.txt"
check_eq "clusters whose jobs differ from their file's (count, md5 of sorted ids)" \
    "$(LC_ALL=C comm -3 "$OUT/expected.txt" "$OUT/loaded.txt" | tr -s '\t\n' '  ')" ""
check_eq "clusters registered without a loaded file" \
    "$(q -c "SELECT string_agg(c.cluster, ' ') FROM acmetrace.clusters c
              WHERE NOT EXISTS (SELECT FROM cbench.attempts a JOIN cbench.files f USING (k)
                                 WHERE a.outcome = 'loaded' AND f.cluster = c.cluster)")" ""
check_eq "loaded files without their cluster" \
    "$(q -c "SELECT string_agg(f.cluster, ' ') FROM cbench.files f
              WHERE EXISTS (SELECT FROM cbench.attempts a WHERE a.k = f.k AND a.outcome = 'loaded')
                AND NOT EXISTS (SELECT FROM acmetrace.clusters c WHERE c.cluster = f.cluster)")" ""
check_eq "clusters loaded as their file's format" \
    "$(q -c "SELECT count(*) FROM acmetrace.clusters c JOIN cbench.files f USING (cluster)
              WHERE c.source_format = 'acme_' || f.fmt")" "$NFILES"
check_eq "staging tables empty" \
    "$(q -c "SELECT (SELECT count(*) FROM acmetrace.trace_seren) + (SELECT count(*) FROM acmetrace.trace_kalos)")" 0
check_eq "server-reported deadlocks" \
    "$(q -c "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")" 0

# What the analysts saw while the files loaded.
check_eq "observations: partial clusters, sketch/SQL count mismatches, staged rows" \
    "$(q -c "SELECT sum(partial) || ' ' || sum(sketch_off) || ' ' || sum(staged) FROM cbench.observations")" "0 0 0"
mid=$(q -c "SELECT count(*) FROM cbench.observations WHERE job_clusters > 0 AND job_clusters < $NFILES")
[ "$mid" -gt 0 ] && ok "analyses ran while files were loading ($mid observations in between)" ||
    bad "no analysis observed a partly loaded database"

# ------------------------------------------------- serial recomputation
setup_db e2e_cbench_serial
q -d e2e_cbench -c "SELECT format(E'SET acmetrace.cluster = %L;\n\\\\copy acmetrace.trace_%s FROM %L (FORMAT csv, HEADER match)',
                               f.cluster, f.fmt, f.path)
                      FROM cbench.files f
                     WHERE EXISTS (SELECT FROM cbench.attempts a WHERE a.k = f.k AND a.outcome = 'loaded')
                     ORDER BY f.k" >"$OUT/serial.psql"
t0=$SECONDS
if q -d e2e_cbench_serial -f "$OUT/serial.psql" >"$OUT/serial.log" 2>&1; then
    echo "  (serial reload of $(grep -c '^\\copy' "$OUT/serial.psql") files in $((SECONDS - t0)) s)"
else
    bad "serial reload failed (see $OUT/serial.log)"
fi
# The reference holds every file, each with exactly its file's jobs, so the
# comparisons below are against whole data, not against what the race left.
q -d e2e_cbench_serial -c "SELECT cluster || ' ' || count(*) || ' ' || md5(string_agg(job_id || E'\n', '' ORDER BY job_id COLLATE \"C\"))
        FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster COLLATE \"C\"" >"$OUT/serial-loaded.txt"
check_eq "serial load: clusters, and those whose jobs differ from their file's (count, md5 of sorted ids)" \
    "$(wc -l <"$OUT/serial-loaded.txt") clusters; differ: $(LC_ALL=C comm -3 "$OUT/expected.txt" "$OUT/serial-loaded.txt" | tr -s '\t\n' '  ')" \
    "$NFILES clusters; differ: "
rows='md5(string_agg(j::text, '"'|'"' ORDER BY j.cluster COLLATE "C", j.job_id COLLATE "C"))'
check_eq "jobs rows identical to the serial load" \
    "$(q -d e2e_cbench -c "SELECT $rows FROM acmetrace.jobs j")" \
    "$(q -d e2e_cbench_serial -c "SELECT $rows FROM acmetrace.jobs j")"
check_eq "clusters rows identical to the serial load" \
    "$(q -d e2e_cbench -c "SELECT string_agg(c::text, ' ' ORDER BY c.cluster) FROM acmetrace.clusters c")" \
    "$(q -d e2e_cbench_serial -c "SELECT string_agg(c::text, ' ' ORDER BY c.cluster) FROM acmetrace.clusters c")"
# The summaries kept by the racing loads: what the serial loads kept, and
# what a rebuild from the jobs makes (built_at aside).
summ="md5(string_agg(t, '|' ORDER BY t COLLATE \"C\")) FROM (
        SELECT 'c ' || (s.cluster, s.jobs, s.occupancy_capacity, s.peak_allocated, s.exact)::text AS t FROM acmetrace.summary_clusters s
        UNION ALL SELECT 'j ' || s::text FROM acmetrace.summary_jobs s
        UNION ALL SELECT 'g ' || s::text FROM acmetrace.summary_groups s
        UNION ALL SELECT 'w ' || s::text FROM acmetrace.summary_weeks s
        UNION ALL SELECT 'v ' || s::text FROM acmetrace.summary_values s) x"
check_eq "every cluster summarized" "$(q -c "SELECT acmetrace_internal.summarized(NULL)")" t
concurrent_summaries=$(q -c "SELECT $summ")
check_eq "summaries identical to the serial load's" "$concurrent_summaries" "$(q -d e2e_cbench_serial -c "SELECT $summ")"
q -c "SELECT acmetrace.refresh_summaries()" >/dev/null
check_eq "summaries identical to a rebuild" "$concurrent_summaries" "$(q -c "SELECT $summ")"
# The premise of byte-for-byte equality (see the top): the float inputs
# that get summed are whole numbers.
check_eq "summed float inputs are whole seconds" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs
              WHERE wait_s <> trunc(wait_s) OR run_s <> trunc(run_s) OR gpu_s <> trunc(gpu_s)
                 OR duration <> trunc(duration) OR queue <> trunc(queue)")" 0
t0=$SECONDS
run_analyses() {  # run_analyses DB: every analysis script, one output file each
    local a rc=0
    for a in "${ANALYSES[@]}"; do
        psql -X -A -F '|' -P footer=on -v ON_ERROR_STOP=1 -d "$1" -f "$HERE/analyses/$a.sql" \
            >"$OUT/$a.$1.txt" 2>&1 || { echo "$a" >>"$OUT/failed-analyses.$1"; rc=1; }
    done
    return $rc
}
rm -f "$OUT"/failed-analyses.*
run_analyses e2e_cbench & p1=$!
run_analyses e2e_cbench_serial & p2=$!
wait $p1; wait $p2
for a in "${ANALYSES[@]}"; do
    failed=0
    for db in e2e_cbench e2e_cbench_serial; do
        if grep -qx "$a" "$OUT/failed-analyses.$db" 2>/dev/null; then
            bad "analysis $a failed in $db (see $OUT/$a.$db.txt)"; failed=1
        fi
    done
    [ $failed -eq 0 ] || continue
    lines=$(wc -l <"$OUT/$a.e2e_cbench.txt")
    if [ "$lines" -gt "$NFILES" ] && cmp -s "$OUT/$a.e2e_cbench.txt" "$OUT/$a.e2e_cbench_serial.txt"; then
        ok "analysis $a: concurrent load = serial load ($lines lines)"
    else
        bad "analysis $a: outputs differ or are short ($lines lines): diff $OUT/$a.e2e_cbench.txt $OUT/$a.e2e_cbench_serial.txt"
    fi
done

echo "  (analyses compared in $((SECONDS - t0)) s; whole test: $((SECONDS - started)) s)"
finish
