#!/usr/bin/env bash
# The warehouse on Citus: a coordinator and two workers on this machine
# (tools/multinode.sh with shared_preload_libraries = citus, own ports and
# directories, removed on exit), the warehouse distributed with
# acmetrace.distribute(), generated jobs, the published samples, a Slurm
# file (loaded twice, jobs changing state) and utilization loaded through the
# coordinator; the same loads into one server (database "single" on the
# coordinator, without Citus).  Every query of test/e2e/citus/calls.sql --
# every public function, aggregate and view -- must give the same text on
# both; EXPLAIN must show the aggregates split into worker partials and a
# coordinator combine.  Without Citus installed (tools/build-citus.sh builds
# it) the script reports a skip, never a pass.
if [ -z "${CITUS_UNDER_TIMEOUT:-}" ]; then
    CITUS_UNDER_TIMEOUT=1 exec timeout -k 15 900 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -f "$("$PGBIN/pg_config" --pkglibdir)/citus.so" ]; then
    echo "  SKIP: Citus is not installed (bash tools/build-citus.sh TARBALL builds it; doc/scaling.md)"
    exit 0
fi
MN=$ROOT/tools/multinode.sh
DIR=$(mktemp -d /tmp/acmetrace-citus.XXXXXX)
cleanup() {
    timeout 90 bash "$MN" destroy "$DIR" >/dev/null 2>&1
    [ ! -e "$DIR" ] || { sleep 1; rm -rf "$DIR"; }
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
CALLS=$ROOT/test/e2e/citus/calls.sql

if MULTINODE_PRELOAD=citus timeout 120 bash "$MN" start "$DIR" >"$OUT/start.log" 2>&1; then
    check_eq "servers running with Citus preloaded" "$(grep -c ': running on 127.0.0.1:' "$OUT/start.log")" "3"
else
    bad "tools/multinode.sh start failed: $(tail -5 "$OUT/start.log")"; finish
fi
eval "$(bash "$MN" env "$DIR")"
# pq PORT DB SQL...: unaligned tuples-only psql to one of our servers
pq() {
    local port=$1 db=$2; shift 2
    timeout 300 "$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$MN_SOCK" -p "$port" -U postgres -d "$db" "$@"
}
cq() { pq "$MN_COORD_PORT" acme "$@"; }
sq() { pq "$MN_COORD_PORT" single "$@"; }

# The cluster: citus in a database "acme" on every node, the workers added.
setup_ok=1
for port in "$MN_COORD_PORT" "$MN_NODE1_PORT" "$MN_NODE2_PORT"; do
    pq "$port" postgres -c "CREATE DATABASE acme" >>"$OUT/setup.log" 2>&1 &&
        pq "$port" acme -c "CREATE EXTENSION citus" >>"$OUT/setup.log" 2>&1 || setup_ok=0
done
pq "$MN_COORD_PORT" postgres -c "CREATE DATABASE single" >>"$OUT/setup.log" 2>&1 || setup_ok=0
cq -c "SELECT citus_set_coordinator_host('127.0.0.1', $MN_COORD_PORT)" \
   -c "SELECT citus_add_node('127.0.0.1', $MN_NODE1_PORT)" \
   -c "SELECT citus_add_node('127.0.0.1', $MN_NODE2_PORT)" >>"$OUT/setup.log" 2>&1 || setup_ok=0
[ "$setup_ok" = 1 ] || { bad "Citus setup failed: $(tail -5 "$OUT/setup.log")"; finish; }
check_eq "two workers in the Citus cluster" "$(cq -c "SELECT count(*) FROM citus_get_active_worker_nodes()")" 2

# distribute() refuses without citus, then distributes the empty warehouse
sq -c "CREATE EXTENSION acmetrace" >/dev/null
err=$(sq -c "SELECT * FROM acmetrace.distribute()" 2>&1)
case $err in *"acmetrace.distribute needs the citus extension"*) ok "distribute without Citus: an error naming it" ;;
             *) bad "distribute without Citus: $err" ;; esac
cq -c "CREATE EXTENSION acmetrace" >/dev/null || { bad "CREATE EXTENSION acmetrace on the coordinator"; finish; }
cq -F' ' -c "SELECT * FROM acmetrace.distribute(8)" >"$OUT/distribute.txt" 2>&1 ||
    { bad "acmetrace.distribute failed: $(tail -5 "$OUT/distribute.txt")"; finish; }
check_eq "distributed tables (by column, co-located with jobs)" \
    "$(awk '$2 == "distributed" { print $1, $3, $4 }' "$OUT/distribute.txt" | tr '\n' ';')" \
    "acmetrace.clusters cluster acmetrace.jobs;acmetrace.failure_reasons cluster acmetrace.jobs;acmetrace.job_gpus cluster acmetrace.jobs;acmetrace.jobs cluster ;acmetrace.philly_gpus cluster acmetrace.jobs;acmetrace.slurm_jobs cluster acmetrace.jobs;acmetrace.summary_clusters cluster acmetrace.jobs;acmetrace.summary_days cluster acmetrace.jobs;acmetrace.summary_extents cluster acmetrace.jobs;acmetrace.summary_groups cluster acmetrace.jobs;acmetrace.summary_hours cluster acmetrace.jobs;acmetrace.summary_jobs cluster acmetrace.jobs;acmetrace.summary_usage cluster acmetrace.jobs;acmetrace.summary_values cluster acmetrace.jobs;acmetrace.summary_weeks cluster acmetrace.jobs;acmetrace.utilization_blocks series ;acmetrace.utilization_hours cluster acmetrace.jobs;acmetrace.utilization_jobs cluster acmetrace.jobs;"
check_eq "reference tables" "$(awk '$2 == "reference" { print $1 }' "$OUT/distribute.txt" | tr '\n' ' ')" \
    "acmetrace.cluster_access acmetrace.job_type_rules "
err=$(cq -c "SELECT * FROM acmetrace.distribute()" 2>&1)
case $err in *"distributed already"*) ok "a second distribute: an error, nothing changed" ;;
             *) bad "a second distribute: $err" ;; esac

# The same loads on both
for db in acme single; do
    if pq "$MN_COORD_PORT" "$db" -v fixtures="$FIX" -f "$ROOT/test/e2e/citus/load.sql" >"$OUT/load-$db.log" 2>&1; then
        ok "loads through $( [ $db = acme ] && echo the Citus coordinator || echo one server)"
    else
        bad "loads into $db failed: $(grep -m3 -A3 ERROR "$OUT/load-$db.log")"; finish
    fi
done
check_eq "the load NOTICEs (samples stored, duplicates skipped) are the same" \
    "$(grep NOTICE "$OUT/load-acme.log" | sed 's/^psql:[^ ]* //')" "$(grep NOTICE "$OUT/load-single.log" | sed 's/^psql:[^ ]* //')"
# acmetrace-sync through the coordinator as through one server: a sacct
# window while jobs run, then after they ended (jobs updated, not doubled)
for db in acme single; do
    for f in sacct_running.txt sacct_final.txt; do
        PGHOST=$MN_SOCK PGPORT=$MN_COORD_PORT PGUSER=postgres PGDATABASE=$db \
            timeout 120 "$ROOT/bin/acmetrace-sync" --cluster synced --file "$FIX/slurm/$f" --quiet \
            >>"$OUT/sync-$db.log" 2>&1 || bad "acmetrace-sync --file $f into $db failed: $(tail -3 "$OUT/sync-$db.log")"
    done
done
check_eq "acmetrace-sync: jobs and runs through the coordinator as on one server" \
    "$(cq -c "SELECT count(*), count(DISTINCT job_id), string_agg(DISTINCT state, ',' ORDER BY state) FROM acmetrace.jobs WHERE cluster = 'synced'" \
          -c "SELECT string_agg(outcome, ',' ORDER BY run_id) FROM acmetrace.sync_runs")" \
    "$(sq -c "SELECT count(*), count(DISTINCT job_id), string_agg(DISTINCT state, ',' ORDER BY state) FROM acmetrace.jobs WHERE cluster = 'synced'" \
          -c "SELECT string_agg(outcome, ',' ORDER BY run_id) FROM acmetrace.sync_runs")"

# Where the rows went: shards of jobs and of blocks on both workers
# (citus_shards leaves out tables of an extension: the placements instead)
for tk in jobs:cluster utilization_blocks:series; do
    t=${tk%%:*} k=${tk#*:}
    check_eq "$t has rows on both workers" \
        "$(cq -c "SELECT count(DISTINCT p.groupid)
                    FROM (SELECT DISTINCT get_shard_id_for_distribution_column('acmetrace.$t', $k) AS shardid
                            FROM acmetrace.$t) r JOIN pg_dist_placement p USING (shardid)")" 2
done
check_eq "nothing loaded twice (jobs and samples per cluster)" \
    "$(cq -c "SELECT string_agg(cluster || ':' || n, ' ' ORDER BY cluster) FROM (SELECT cluster, count(*) n FROM acmetrace.jobs GROUP BY 1) j")
$(cq -c "SELECT string_agg(cluster || ':' || n, ' ' ORDER BY cluster) FROM (SELECT cluster, sum(n) n FROM acmetrace.utilization_blocks GROUP BY 1) j")" \
    "$(sq -c "SELECT string_agg(cluster || ':' || n, ' ' ORDER BY cluster) FROM (SELECT cluster, count(*) n FROM acmetrace.jobs GROUP BY 1) j")
$(sq -c "SELECT string_agg(cluster || ':' || n, ' ' ORDER BY cluster) FROM (SELECT cluster, sum(n) n FROM acmetrace.utilization_blocks GROUP BY 1) j")"
check_eq "the coordinator's own tables hold no rows (all on the workers)" \
    "$(cq -c "SELECT pg_relation_size('acmetrace.jobs') + pg_relation_size('acmetrace.utilization_blocks')")" 0

# Every public name of the catalog is called
names=$(sq -c "SELECT DISTINCT p.proname FROM pg_proc p WHERE p.pronamespace = 'acmetrace'::regnamespace
                  AND p.proname !~ '_(in|out|recv|send)$'
               UNION SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v'
               EXCEPT SELECT 'distribute'   -- checked above
               ORDER BY 1")
missing=""
for n in $names; do
    grep -v '^--' "$CALLS" | grep -qE "acmetrace\.$n\b" || missing="$missing $n"
done
check_eq "calls.sql names every public function, aggregate and view ($(echo $names | wc -w))" "$missing" ""

# The comparison, query by query
ref_q() { sq -c "SET jit = off" -c "$1"; }
test_q() { cq -c "SET jit = off" -c "$1"; }
compare_calls "$CALLS" "Citus"
check_eq "queries equal on Citus and one server" "$CALLS_DIFFER" 0

# Row-level security by cluster through the coordinator: the policies run on
# the workers' shards, reading the grants from their reference table.
cq -c "CREATE ROLE e2e_citus_team LOGIN" -c "GRANT USAGE ON SCHEMA acmetrace TO e2e_citus_team" \
   -c "GRANT SELECT ON ALL TABLES IN SCHEMA acmetrace TO e2e_citus_team" \
   -c "SELECT acmetrace.grant_cluster('synth', 'e2e_citus_team')" >"$OUT/rls.log" 2>&1 || bad "roles on Citus: $(tail -3 "$OUT/rls.log")"
check_eq "row-level security on Citus: a team sees its cluster only (jobs, blocks, cluster_summary)" \
    "$(cq -c "SET ROLE e2e_citus_team" -c "SELECT string_agg(DISTINCT cluster, ',') FROM acmetrace.jobs" \
          -c "SELECT string_agg(DISTINCT cluster, ',') FROM acmetrace.utilization_blocks" \
          -c "SELECT string_agg(cluster, ',') FROM acmetrace.cluster_summary()" 2>&1 | tr '\n' ' ')" "synth synth synth "
echo "  ($CALLS_SAME queries equal)"

# The report, unchanged, on both: the same page but for when and where
for db in acme single; do
    PGHOST=$MN_SOCK PGPORT=$MN_COORD_PORT PGUSER=postgres PGDATABASE=$db \
        timeout 300 "$ROOT/bin/acmetrace-report" --out "$OUT/report-$db.html" >"$OUT/report-$db.log" 2>&1 ||
        bad "acmetrace-report on $db failed: $(tail -3 "$OUT/report-$db.log")"
done
if [ -s "$OUT/report-acme.html" ] && [ -s "$OUT/report-single.html" ]; then
    check_eq "the report through the coordinator equals one server's (but its Generated and Database lines)" \
        "$(diff <(grep -v '^<dt>\(Generated\|Database\)</dt>' "$OUT/report-single.html") \
                <(grep -v '^<dt>\(Generated\|Database\)</dt>' "$OUT/report-acme.html") | head -5)" ""
fi

# The aggregates split: partial states on the workers, combined on the coordinator
for qy in "SELECT acmetrace.percentiles(acmetrace.delay_sketch_agg(wait_s), '{0.5}') FROM acmetrace.jobs" \
          "SELECT acmetrace.bins(samples, 0, 100, 10) FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL'" \
          "SELECT acmetrace.peak(acmetrace.occupancy_agg(start_time, end_time, gpu_num)) FROM acmetrace.jobs"; do
    plan=$(cq -c "EXPLAIN (VERBOSE) $qy")
    if grep -q 'worker_partial_agg' <<<"$plan" && grep -q 'coord_combine_agg' <<<"$plan"; then
        ok "EXPLAIN: split into worker partials and a coordinator combine: ${qy:0:60}"
    else
        bad "EXPLAIN shows no split for: $qy"; sed 's/^/      /' <<<"$plan" | head -20
    fi
done
finish
