#!/usr/bin/env bash
# Teams kept apart (row-level security by cluster, doc/reference.md "Roles
# and privileges"): two teams share one warehouse.  Team A's loader, not a
# superuser, loads A's data (test/e2e/citus/load.sql, acmetrace-sync --file)
# and team B's loader loads B's; then every query of test/e2e/citus/calls.sql
# (every public function, aggregate and view) run by a member of team A
# equals the superuser's answer in a database holding A's data alone, and so
# does the report.  B sees only B.
. "$(dirname "$0")/lib.sh"
CALLS=$ROOT/test/e2e/citus/calls.sql
LOAD=$ROOT/test/e2e/citus/load.sql
ONE=e2e_access_one ALL=e2e_access_all
SYNC=$ROOT/bin/acmetrace-sync

# Roles are per server: names of this test's own, dropped first and after.
roles="e2e_team_a e2e_team_b e2e_a_loader e2e_a_analyst e2e_b_loader"
drop_roles() {
    for db in $ALL $ONE; do psql -X -q -d "$db" -c "DROP OWNED BY ${roles// /, }" >/dev/null 2>&1; done
    for r in $roles; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_roles
trap drop_roles EXIT

# The reference: A's data alone, loaded by the superuser.
fresh_db $ONE
q -v fixtures="$FIX" -f "$LOAD" >"$OUT/load-one.log" 2>&1 || { bad "load into $ONE: $(grep -m3 ERROR "$OUT/load-one.log")"; finish; }
for f in sacct_running.txt sacct_final.txt; do
    "$SYNC" --cluster synced --file "$FIX/slurm/$f" --quiet >>"$OUT/sync-one.log" 2>&1 || bad "acmetrace-sync $f into $ONE"
done
a_clusters=$(q -c "SELECT string_agg(DISTINCT c, ' ' ORDER BY c) FROM (SELECT cluster FROM acmetrace.clusters UNION SELECT cluster FROM acmetrace.utilization_blocks
                                                                   UNION SELECT 'more') x(c)")

# The shared warehouse: roles as doc/reference.md gives them.
fresh_db $ALL
q -d postgres >"$OUT/roles.log" 2>&1 <<SQL || bad "roles: $(cat "$OUT/roles.log")"
CREATE ROLE e2e_team_a NOLOGIN;
CREATE ROLE e2e_team_b NOLOGIN;
CREATE ROLE e2e_a_loader LOGIN IN ROLE e2e_team_a;
CREATE ROLE e2e_a_analyst LOGIN IN ROLE e2e_team_a;
CREATE ROLE e2e_b_loader LOGIN IN ROLE e2e_team_b;
SQL
q >>"$OUT/roles.log" 2>&1 <<SQL || bad "grants: $(cat "$OUT/roles.log")"
GRANT USAGE ON SCHEMA acmetrace TO e2e_team_a, e2e_team_b;
GRANT SELECT ON ALL TABLES IN SCHEMA acmetrace TO e2e_team_a, e2e_team_b;
GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA acmetrace TO e2e_a_loader, e2e_b_loader;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA acmetrace TO e2e_a_loader, e2e_b_loader;
SELECT acmetrace.grant_cluster(c, 'e2e_team_a') FROM unnest(string_to_array('$a_clusters', ' ')) c;
SELECT acmetrace.grant_cluster('bee', 'e2e_team_b'), acmetrace.grant_cluster('beeslurm', 'e2e_team_b');
SQL
check_eq "no role of the test is a superuser or bypasses row-level security" \
    "$(q -c "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'e2e\_%' AND (rolsuper OR rolbypassrls)")" 0

# A's loader loads A's data, B's loader B's, neither a superuser.
if PGUSER=e2e_a_loader q -v fixtures="$FIX" -f "$LOAD" >"$OUT/load-all.log" 2>&1; then
    ok "team A's loader (no superuser) loads the files of load.sql"
else
    bad "team A's loader: $(grep -m3 ERROR "$OUT/load-all.log")"
fi
for f in sacct_running.txt sacct_final.txt; do
    PGUSER=e2e_a_loader "$SYNC" --cluster synced --file "$FIX/slurm/$f" --quiet >>"$OUT/sync-all.log" 2>&1 ||
        bad "acmetrace-sync --file $f as team A's loader: $(tail -2 "$OUT/sync-all.log")"
done
check_eq "acmetrace-sync runs without superuser (runs ok)" \
    "$(q -c "SELECT string_agg(outcome, ',' ORDER BY run_id) FROM acmetrace.sync_runs")" "ok,ok"
PGUSER=e2e_b_loader q >"$OUT/load-b.log" 2>&1 <<SQL || bad "team B's loader: $(grep -m3 ERROR "$OUT/load-b.log")"
SELECT acmetrace.load_generated('bee', 'kalos', 5000, 7);
SET acmetrace.cluster = 'bee';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util('kalos', 5000, 7, 'GPU_UTIL', '2023-03-01 00:00+00', 120);
SQL
PGUSER=e2e_b_loader "$SYNC" --cluster beeslurm --file "$FIX/slurm/sacct_final.txt" --quiet >>"$OUT/sync-b.log" 2>&1 ||
    bad "acmetrace-sync --file as team B's loader: $(tail -2 "$OUT/sync-b.log")"
check_eq "B's loader wrote B's clusters (jobs, samples, Slurm jobs)" \
    "$(q -c "SELECT (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'bee'), (SELECT sum(n) > 0 FROM acmetrace.utilization_blocks WHERE cluster = 'bee'),
                    (SELECT count(*) > 0 FROM acmetrace.jobs WHERE cluster = 'beeslurm')")" "5000|t|t"

# Writes across the line are refused, and change nothing.
err=$(PGUSER=e2e_b_loader q -c "SET acmetrace.cluster = 'synth'" \
        -c "\\copy acmetrace.trace_seren FROM '$FIX/acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)" 2>&1)
case $err in *"row-level security"*) ok "B's loader cannot load into A's cluster (42501)" ;; *) bad "B loading into A: $err" ;; esac
check_eq "B's DELETE and UPDATE of A's rows touch nothing" \
    "$(PGUSER=e2e_b_loader q -c "DELETE FROM acmetrace.jobs WHERE cluster = 'synth' RETURNING 1" -c "UPDATE acmetrace.clusters SET gpu_capacity = 1 WHERE cluster = 'synth' RETURNING 1" | wc -l)" 0
err=$(PGUSER=e2e_b_loader q -c "SELECT acmetrace.drop_cluster('synth')" 2>&1)
case $err in *'cluster "synth" is not loaded'*) ok "B cannot drop A's cluster: not loaded, for B" ;; *) bad "B dropping A: $err" ;; esac

# What B sees: B alone, in every table and every view with a cluster column.
leaks=$(PGUSER=e2e_b_loader q -c "WITH t AS MATERIALIZED (
    SELECT c.relname FROM pg_class c
     WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind IN ('r', 'v')
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'cluster' AND NOT a.attisdropped)
       AND has_table_privilege(c.oid, 'SELECT'))
  SELECT coalesce(string_agg(relname, ' ') FILTER (WHERE n > 0), 'none') || ' (' || count(*) || ' read)'
    FROM (SELECT relname, (xpath('/row/n/text()', query_to_xml(format(
                 'SELECT count(*) AS n FROM acmetrace.%I WHERE coalesce(cluster <> ALL (%L::text[]), %L <> %L)',
                 relname, '{bee,beeslurm}', relname, 'job_type_rules'), false, false, '')))[1]::text::int AS n FROM t) x")
nviews=$(q -c "SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind IN ('r', 'v')
                AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'cluster' AND NOT a.attisdropped)")
check_eq "B sees no other cluster's row in any of the tables and views with a cluster column" "$leaks" "none ($nviews read)"

# Every public function, aggregate and view: A's analyst in the shared
# warehouse = the superuser with A's data alone.  (calls.sql's changes run
# as A's loader; grant_cluster and revoke_cluster are the owner's.)
ref_q() { PGDATABASE=$ONE q -c "SET jit = off" -c "$1"; }
test_q() {
    local who=e2e_a_analyst
    case $1 in *refresh_summaries*|*apply_job_type_rules*|*load_generated*|*drop_cluster*) who=e2e_a_loader ;; esac
    PGDATABASE=$ALL PGUSER=$who q -c "SET jit = off" -c "$1"
}
SKIP_CALLS='acmetrace\.(grant|revoke)_cluster'
compare_calls "$CALLS" "team A"
check_eq "queries of team A's analyst equal those on A's data alone" "$CALLS_DIFFER" 0
check_eq "queries compared (calls.sql)" "$((CALLS_SAME > 100))" 1
echo "  ($CALLS_SAME queries equal)"

PGDATABASE=$ONE timeout 300 "$ROOT/bin/acmetrace-report" --out "$OUT/report-one.html" >"$OUT/report-one.log" 2>&1 ||
    bad "acmetrace-report on $ONE: $(tail -3 "$OUT/report-one.log")"
PGDATABASE=$ALL PGUSER=e2e_a_analyst timeout 300 "$ROOT/bin/acmetrace-report" --out "$OUT/report-a.html" >"$OUT/report-a.log" 2>&1 ||
    bad "acmetrace-report as team A's analyst: $(tail -3 "$OUT/report-a.log")"
if [ -s "$OUT/report-one.html" ] && [ -s "$OUT/report-a.html" ]; then
    check_eq "team A's report equals the report of A's data alone (but its Generated and Database lines)" \
        "$(diff <(grep -v '^<dt>\(Generated\|Database\)</dt>' "$OUT/report-one.html") \
                <(grep -v '^<dt>\(Generated\|Database\)</dt>' "$OUT/report-a.html") | head -5)" ""
    check_eq "team A's report never names B's clusters" "$(grep -c '\bbee\(slurm\)\?\b' "$OUT/report-a.html")" 0
fi
finish
