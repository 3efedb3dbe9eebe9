#!/usr/bin/env bash
# Beyond one machine: three real PostgreSQL 15 servers on loopback ports (a
# coordinator and two data nodes, tools/multinode.sh), the job and
# utilization tables partitioned by cluster and month across the data nodes
# as postgres_fdw foreign partitions, and the standard analyses run from the
# coordinator: each (cluster, month) leaf's sketch, bins or occupancy is
# computed on its data node (EXPLAIN shows the aggregate in the Remote SQL)
# and merged on the coordinator.  Every answer is compared with the same
# analysis on a single node holding all the data (database "single").
#
# It starts its own servers under a mktemp directory and removes them on any
# exit; it never connects to the server it runs under.  Fault injection, to
# see the checks fail: MULTINODE_SABOTAGE=drop-month (node1 loses the rows of
# one of its months) or no-pushdown (the coordinator's servers lose
# extensions 'acmetrace', so acmetrace aggregates no longer ship).
if [ -z "${MULTINODE_UNDER_TIMEOUT:-}" ]; then
    MULTINODE_UNDER_TIMEOUT=1 exec timeout -k 15 300 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
# Our connections go to our servers only (tools/multinode.sh passes -h/-p/-U
# and drops the PG* variables); drop them here too for anything else.
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS
MN=$ROOT/tools/multinode.sh
DIR=$(mktemp -d /tmp/acmetrace-multinode.XXXXXX)
cleanup() {
    timeout 90 bash "$MN" destroy "$DIR" >/dev/null 2>&1
    [ ! -e "$DIR" ] || { sleep 1; rm -rf "$DIR"; }
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
t_start=$(date +%s)

# cq/sq/n1q/n2q SQL...: unaligned tuples-only psql on coord (db acme),
# single, node1, node2.
cq()  { timeout 120 bash "$MN" psql "$DIR" coord  -A -t "$@"; }
sq()  { timeout 120 bash "$MN" psql "$DIR" single -A -t "$@"; }
n1q() { timeout 120 bash "$MN" psql "$DIR" node1  -A -t "$@"; }
n2q() { timeout 120 bash "$MN" psql "$DIR" node2  -A -t "$@"; }
PW="SET enable_partitionwise_aggregate = on;"
# check_same WHAT GOT WANT: check_eq, and an empty answer is a failure too
check_same() {
    if [ -z "$3" ]; then bad "$1: the single-node reference is empty"; else check_eq "$@"; fi
}

if timeout 120 bash "$MN" start "$DIR" >"$OUT/start.log" 2>&1; then
    check_eq "servers running after tools/multinode.sh start" "$(grep -c ': running on 127.0.0.1:' "$OUT/start.log")" "3"
else
    bad "tools/multinode.sh start failed: $(tail -5 "$OUT/start.log")"; finish
fi
if timeout 180 bash "$MN" load "$DIR" >"$OUT/load.log" 2>&1; then
    echo "  (data loaded, dist.jobs and dist.utilization built: $(($(date +%s) - t_start)) s so far)"
else
    bad "tools/multinode.sh load failed: $(tail -5 "$OUT/load.log")"; finish
fi
# What the load made, before any query through the coordinator: the single
# node has the sizes it was asked for (jobs per cluster; series x samples
# GPU_UTIL values, no blank cells), and the two data nodes' rows add up to
# the single node's (each keeps its months and drops the others).
. "$DIR/load.params"
rows_by_cluster() {  # rows_by_cluster CMD: "relation cluster rows" lines
    "$1" -c "SELECT 'jobs', cluster, count(*) FROM acmetrace.jobs GROUP BY 2
             UNION ALL SELECT 'utilization', cluster, count(*) FROM acmetrace.utilization GROUP BY 2" -F' ' | LC_ALL=C sort
}
single_rows=$(rows_by_cluster sq)
check_eq "single node: rows per relation and cluster = the sizes loaded" "$single_rows" \
    "$(printf 'jobs kalos %s\njobs seren %s\nutilization kalos %s\nutilization seren %s' \
              "$KALOS" "$SEREN" $((SERIES * SAMPLES)) $((SERIES * SAMPLES)))"
check_eq "node1 + node2: rows per relation and cluster = the single node's" \
    "$({ rows_by_cluster n1q; rows_by_cluster n2q; } | awk '{ s[$1 " " $2] += $3 } END { for (k in s) print k, s[k] }' | LC_ALL=C sort)" \
    "$single_rows"

# loopback only: every server listens on 127.0.0.1 and nowhere else
. <(bash "$MN" env "$DIR")
la=$(for p in "$MN_COORD_PORT" "$MN_NODE1_PORT" "$MN_NODE2_PORT"; do ss -Htln "( sport = :$p )" | awk '{ print $4 }'; done |
     sed 's/:[0-9]*$//' | sort | uniq -c | awk '{ print $2 " x" $1 }')
check_eq "the 3 servers' TCP sockets listen on loopback only" "$la" "127.0.0.1 x3"
la=$(for n in coord node1 node2; do timeout 30 bash "$MN" psql "$DIR" "$n" -A -t -c "SHOW listen_addresses"; done | sort -u)
check_eq "listen_addresses of the 3 servers" "$la" "127.0.0.1"

case ${MULTINODE_SABOTAGE:-} in
    drop-month)
        m=$(n1q -c "SELECT month FROM shard.manifest WHERE relation = 'jobs' AND cluster = 'seren' ORDER BY rows DESC LIMIT 1")
        echo "SABOTAGE: node1 deletes seren jobs of $m"
        n1q -c "DELETE FROM acmetrace.jobs WHERE cluster = 'seren' AND date_trunc('month', submit_time AT TIME ZONE 'UTC')::date = '$m'" ;;
    no-pushdown)
        echo "SABOTAGE: servers without extensions 'acmetrace'"
        cq -c "ALTER SERVER node1 OPTIONS (DROP extensions)" -c "ALTER SERVER node2 OPTIONS (DROP extensions)" ;;
    "") ;;
    *) bad "unknown MULTINODE_SABOTAGE=$MULTINODE_SABOTAGE"; finish ;;
esac

# --- Layout: every (cluster, month) of the data is one foreign leaf, each
# node owns months of every cluster.
leaves() {  # leaves REL: number of foreign leaf partitions under REL
    cq -c "SELECT count(*) FROM pg_partition_tree('$1') t JOIN pg_class c ON c.oid = t.relid
            WHERE t.isleaf AND c.relkind = 'f'"
}
JOB_LEAVES=$(leaves dist.jobs) UTIL_LEAVES=$(leaves dist.utilization)
check_same "dist.jobs leaves = (cluster, month) pairs of the single-node data" "$JOB_LEAVES" \
    "$(sq -c "SELECT count(DISTINCT (cluster, date_trunc('month', submit_time AT TIME ZONE 'UTC'))) FROM acmetrace.jobs")"
check_same "dist.utilization leaves = (cluster, month) pairs of the single-node data" "$UTIL_LEAVES" \
    "$(sq -c "SELECT count(DISTINCT (cluster, date_trunc('month', ts AT TIME ZONE 'UTC'))) FROM acmetrace.utilization")"
check_eq "both nodes own months of every cluster (jobs, utilization)" \
    "$(cq -c "SELECT string_agg(format('%s %s: %s', relation, cluster, nodes), '; ' ORDER BY relation, cluster)
                FROM (SELECT relation, cluster, string_agg(DISTINCT node, ',') AS nodes FROM dist.manifest GROUP BY 1, 2) m")" \
    "jobs kalos: node1,node2; jobs seren: node1,node2; utilization kalos: node1,node2; utilization seren: node1,node2"
cq -c "SELECT node, relation, cluster, month, rows FROM dist.manifest ORDER BY 2, 3, 4" >"$OUT/layout.txt"
# Rows per (cluster, month), read through the coordinator, equal the single node's.
got=$(cq -c "$PW SELECT cluster, month, count(*) FROM dist.jobs GROUP BY 1, 2 ORDER BY 1, 2")
want=$(sq -c "SELECT cluster, date_trunc('month', submit_time AT TIME ZONE 'UTC')::date, count(*) FROM acmetrace.jobs GROUP BY 1, 2 ORDER BY 1, 2")
check_same "jobs per (cluster, month) through dist.jobs = single node" "$got" "$want"
got=$(cq -c "$PW SELECT cluster, month, count(*) FROM dist.utilization GROUP BY 1, 2 ORDER BY 1, 2")
want=$(sq -c "SELECT cluster, date_trunc('month', ts AT TIME ZONE 'UTC')::date, count(*) FROM acmetrace.utilization GROUP BY 1, 2 ORDER BY 1, 2")
check_same "utilization samples per (cluster, month) through dist.utilization = single node" "$got" "$want"
echo "jobs: $(sq -c "SELECT count(*) FROM acmetrace.jobs"), utilization samples: $(sq -c "SELECT count(*) FROM acmetrace.utilization")"

# --- Pushdown: the inner query of every analysis, grouped by both partition
# keys, runs as one remote aggregate per leaf.
INNER_QUEUE="SELECT cluster, month, acmetrace.delay_sketch_agg(queue::float8) AS sk FROM dist.jobs GROUP BY cluster, month"
INNER_DURATION="SELECT cluster, month, acmetrace.delay_sketch_agg(duration::float8) AS sk FROM dist.jobs GROUP BY cluster, month"
INNER_BINS="SELECT cluster, month, acmetrace.bins(duration::float8, 0, 86400, 24) AS b FROM dist.jobs GROUP BY cluster, month"
INNER_UBINS="SELECT cluster, month, acmetrace.bins(value, 0, 100, 10) AS b FROM dist.utilization GROUP BY cluster, month"
INNER_OCC="SELECT cluster, month, acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ FROM dist.jobs GROUP BY cluster, month"
INNER_STATES="SELECT cluster, month, final_state, count(*) AS jobs, sum(gpu_time) AS gpu_time FROM dist.jobs GROUP BY cluster, month, final_state"
pushdown() {  # pushdown NAME INNER-SQL AGG-REGEX LEAVES
    local plan remote nonremote fscans
    [ "$4" -gt 0 ] 2>/dev/null || { bad "$1: no leaves to check ('$4')"; return; }
    plan=$(cq -c "$PW EXPLAIN (VERBOSE, COSTS OFF) $2")
    printf '%s\n\n' "$plan" >>"$OUT/explain.txt"
    fscans=$(grep -cE '^ *(-> +)?(Async )?Foreign Scan' <<<"$plan")
    remote=$(grep -E '^ *Remote SQL: ' <<<"$plan" | grep -E "$3" | grep -cE ' GROUP BY ')
    # plan nodes that aggregate locally (Partial, Finalize or plain)
    nonremote=$(grep -cE '^ *(-> +)?(Partial |Finalize )?(Hash|Group|Mixed)?Aggregate( |$)' <<<"$plan")
    if [ "$fscans" = "$4" ] && [ "$remote" = "$4" ] && [ "$nonremote" = 0 ]; then
        ok "$1: $remote of $4 leaves aggregate remotely (Remote SQL has the aggregate and GROUP BY), no local aggregate"
    else
        bad "$1: $fscans foreign scans, $remote with the aggregate in the Remote SQL, $nonremote local aggregate nodes; want $4, $4, 0"
    fi
}
: >"$OUT/explain.txt"
pushdown "queue sketches" "$INNER_QUEUE" 'acmetrace\.delay_sketch_agg\(queue' "$JOB_LEAVES"
pushdown "duration sketches" "$INNER_DURATION" 'acmetrace\.delay_sketch_agg\(duration' "$JOB_LEAVES"
pushdown "duration bins" "$INNER_BINS" 'acmetrace\.bins\(duration' "$JOB_LEAVES"
pushdown "utilization bins" "$INNER_UBINS" 'acmetrace\.bins\(value' "$UTIL_LEAVES"
pushdown "occupancy" "$INNER_OCC" 'acmetrace\.occupancy_agg\(start_time, end_time, gpu_num\)' "$JOB_LEAVES"
pushdown "counts and GPU time by final state" "$INNER_STATES" 'count\(\*\), sum\(gpu_time\)' "$JOB_LEAVES"

# --- Percentiles: per-leaf sketches rolled up = the single node's sketch.
for col in queue duration; do
    inner=$INNER_QUEUE; [ $col = queue ] || inner=$INNER_DURATION
    got=$(cq -c "$PW SELECT cluster, acmetrace.rollup(sk) FROM ($inner) s GROUP BY cluster ORDER BY cluster")
    want=$(sq -c "SELECT cluster, acmetrace.delay_sketch_agg($col::float8) FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster")
    if [ "$(grep -c '|v1 err=' <<<"$want")" != 2 ]; then
        bad "$col: the single node did not give two clusters' sketches: '$want'"
    else
        check_eq "$col: rollup of the per-(cluster, month) remote sketches = single-node sketch, text identical" \
            "$(md5sum <<<"$got")" "$(md5sum <<<"$want")"
    fi
    pct=$(cq -c "$PW SELECT cluster, acmetrace.percentiles(acmetrace.rollup(sk), '{0.5,0.9,0.99}') FROM ($inner) s
                    GROUP BY cluster ORDER BY cluster")
    exact=$(sq -c "SELECT cluster, percentile_disc('{0.5,0.9,0.99}'::float8[]) WITHIN GROUP (ORDER BY $col::float8)
                     FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster")
    { echo "$col p50,p90,p99 from the 3-node sketches:"; echo "$pct"; echo "exact percentile_disc on the single node:"; echo "$exact"; } |
        tee -a "$OUT/percentiles.txt"
    worst=$(paste -d'|' <(echo "$pct") <(echo "$exact") | tr -d '{}' | awk -F'|' '
        { if ($1 != $3) { print "cluster mismatch"; exit }
          n = split($2, a, ","); m = split($4, b, ",")
          if (n != 3 || m != 3) { print "bad arrays"; exit }
          for (i = 1; i <= 3; i++) {
              d = (b[i] == 0) ? (a[i] == 0 ? 0 : 1) : (a[i] - b[i]) / b[i]; if (d < 0) d = -d
              if (d > w) w = d } }
        END { if (NR != 2) print "rows: " NR; else printf "%.6f\n", w }')
    if awk -v w="$worst" 'BEGIN { exit !(w ~ /^[0-9.]+$/ && w <= 0.005) }'; then
        ok "$col p50/p90/p99 from the merged sketch within 0.5% of exact percentile_disc (largest relative difference $worst)"
    else
        bad "$col p50/p90/p99 not within 0.5% of percentile_disc: $worst"
    fi
done

# --- Bins: per-leaf bins summed element-wise = single-node bins, exactly.
got=$(cq -c "$PW SELECT cluster, dist.bins_sum(b) FROM ($INNER_BINS) s GROUP BY cluster ORDER BY cluster")
want=$(sq -c "SELECT cluster, acmetrace.bins(duration::float8, 0, 86400, 24) FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster")
check_same "duration bins (24 bins over a day): merged = single node" "$got" "$want"
echo "duration bins:"; echo "$got"
got=$(cq -c "$PW SELECT cluster, dist.bins_sum(b) FROM ($INNER_UBINS) s GROUP BY cluster ORDER BY cluster")
want=$(sq -c "SELECT cluster, acmetrace.bins(value, 0, 100, 10) FROM acmetrace.utilization GROUP BY cluster ORDER BY cluster")
check_same "utilization value bins (10 bins): merged = single node" "$got" "$want"
echo "utilization bins:"; echo "$got"

# --- Occupancy: per-leaf occupancy, merged on the coordinator.
want_steps=$(sq -c "SELECT cluster, count(*), md5(string_agg(st.at::text || ':' || st.gpus, ',' ORDER BY st.at))
                      FROM (SELECT cluster, acmetrace.occupancy_agg(start_time, end_time, gpu_num) occ FROM acmetrace.jobs GROUP BY cluster) o,
                           acmetrace.occupancy_steps(o.occ) st GROUP BY cluster ORDER BY cluster")
# Independent of any merge function: the step functions added up in SQL.
got_steps=$(cq -c "$PW
    WITH shards AS ($INNER_OCC),
         deltas AS (SELECT s.cluster, st.at,
                           st.gpus - coalesce(lag(st.gpus) OVER (PARTITION BY s.cluster, s.month ORDER BY st.at), 0) AS d
                      FROM shards s, acmetrace.occupancy_steps(s.occ) st),
         merged AS (SELECT cluster, at, sum(d) AS d FROM deltas GROUP BY 1, 2 HAVING sum(d) <> 0),
         levels AS (SELECT cluster, at, sum(d) OVER (PARTITION BY cluster ORDER BY at) AS gpus FROM merged)
    SELECT cluster, count(*), md5(string_agg(at::text || ':' || gpus, ',' ORDER BY at)) FROM levels GROUP BY cluster ORDER BY cluster")
check_same "occupancy: remote per-leaf step functions added up (SQL) = single-node occupancy_agg" "$got_steps" "$want_steps"
if [ "$(cq -c "SELECT to_regprocedure('acmetrace.rollup(acmetrace.occupancy)') IS NOT NULL")" = t ]; then
    got=$(cq -c "$PW SELECT cluster, md5(acmetrace.rollup(occ)::text) FROM ($INNER_OCC) s GROUP BY cluster ORDER BY cluster")
    want=$(sq -c "SELECT cluster, md5(acmetrace.occupancy_agg(start_time, end_time, gpu_num)::text) FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster")
    check_same "occupancy: rollup of the remote per-(cluster, month) occupancies = single-node occupancy_agg (text)" "$got" "$want"
    # the window of the single node's data, for mean_gpus
    win=$(sq -c "SELECT min(submit_time), max(end_time) FROM acmetrace.jobs" | tr '|' ' ')
    read -r w0d w0t w1d w1t <<<"$win"
    got=$(cq -c "$PW SELECT cluster, acmetrace.peak(o), acmetrace.mean_gpus(o, '$w0d $w0t', '$w1d $w1t')
                   FROM (SELECT cluster, acmetrace.rollup(occ) o FROM ($INNER_OCC) s GROUP BY cluster) r ORDER BY cluster")
    want=$(sq -c "SELECT cluster, acmetrace.peak(o), acmetrace.mean_gpus(o, '$w0d $w0t', '$w1d $w1t')
                    FROM (SELECT cluster, acmetrace.occupancy_agg(start_time, end_time, gpu_num) o FROM acmetrace.jobs GROUP BY cluster) r
                   ORDER BY cluster")
    check_same "occupancy: peak() and mean_gpus() of the merged occupancy = single node" "$got" "$want"
    echo "occupancy peak|mean_gpus:"; echo "$got"
    got=$(cq -c "$PW SELECT bool_and(r OPERATOR(acmetrace.=) o) FROM (SELECT cluster, acmetrace.rollup(occ) r FROM ($INNER_OCC) s GROUP BY cluster) a
                   JOIN (SELECT cluster, acmetrace.occupancy_agg(start_time, end_time, gpu_num) o FROM dist.jobs GROUP BY cluster) b USING (cluster)")
    check_eq "occupancy: rollup of remote occupancies OPERATOR(acmetrace.=) occupancy_agg over all rows on the coordinator" "$got" "t"
else
    bad "occupancy: acmetrace.rollup(acmetrace.occupancy) does not exist in the installed extension $(cq -c "SELECT extversion FROM pg_extension WHERE extname = 'acmetrace'") -- the per-shard occupancies cannot be merged with rollup yet (install the version that adds it and re-run)"
fi

# --- Counts and GPU time by final state, per (cluster, month) merged.
got=$(cq -c "$PW SELECT cluster, final_state, sum(jobs), sum(gpu_time) FROM ($INNER_STATES) s GROUP BY 1, 2 ORDER BY 1, 2")
want=$(sq -c "SELECT cluster, final_state, count(*), sum(gpu_time) FROM acmetrace.jobs GROUP BY 1, 2 ORDER BY 1, 2")
check_same "jobs and GPU time by final state: merged = single node" "$got" "$want"
echo "by final state:"; echo "$got"

# --- Portable partial states: a sketch and an occupancy computed on node1,
# shipped as their binary send() bytes through a foreign table, read back on
# the coordinator with binary COPY (the types' receive functions), equal the
# text form node1 printed.
leaf=$(n1q -c "SELECT view_name FROM shard.manifest WHERE relation = 'jobs' AND cluster = 'seren' ORDER BY rows DESC LIMIT 1")
n1q -c "CREATE VIEW shard.probe AS
        SELECT acmetrace.delay_sketch_send(sk) AS sk_bin, sk::text AS sk_txt,
               acmetrace.occupancy_send(occ) AS occ_bin, occ::text AS occ_txt
          FROM (SELECT acmetrace.delay_sketch_agg(queue::float8) AS sk,
                       acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ FROM shard.$leaf) s"
cq -c "CREATE FOREIGN TABLE dist.probe_node1 (sk_bin bytea, sk_txt text, occ_bin bytea, occ_txt text)
       SERVER node1 OPTIONS (schema_name 'shard', table_name 'probe')"
# PGCOPY signature, flags, header extension; one tuple of two fields; trailer
cq -c "SELECT encode('\\x5047434f50590aff0d0a00'::bytea || '\\x0000000000000000'::bytea || '\\x0002'::bytea
                     || int4send(length(sk_bin)) || sk_bin || int4send(length(occ_bin)) || occ_bin || '\\xffff'::bytea, 'base64')
         FROM dist.probe_node1" | base64 -d >"$OUT/probe.bin"
got=$(cq -v ON_ERROR_STOP=1 <<EOF
CREATE TEMP TABLE probe_in (sk acmetrace.delay_sketch, occ acmetrace.occupancy);
\copy probe_in FROM '$OUT/probe.bin' (FORMAT binary)
SELECT acmetrace.count(i.sk) > 0, i.sk::text = p.sk_txt, i.occ::text = p.occ_txt,
       i.occ OPERATOR(acmetrace.=) p.occ_txt::acmetrace.occupancy,
       i.sk::text = (SELECT acmetrace.delay_sketch_agg(queue::float8)::text FROM dist.$leaf)
  FROM probe_in i, dist.probe_node1 p;
EOF
)
check_eq "sketch and occupancy from node1 as send() bytes, received on the coordinator = their text form ($leaf)" "$got" "t|t|t|t|t"

elapsed=$(($(date +%s) - t_start))
echo "runtime: $elapsed s (reported, not asserted)"
finish
