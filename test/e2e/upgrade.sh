#!/usr/bin/env bash
# Upgrades and dump/restore keep data:
#  - every released version plus the upgrade scripts gives the same catalog
#    as a fresh install of the current version (pg_dump --binary-upgrade
#    lists every member object with its definition, comment and grants);
#  - a database created at the oldest release, holding sketches, occupancy
#    values, loaded traces and failure reasons, answers the same before and
#    after ALTER EXTENSION acmetrace UPDATE, value for value and byte for byte;
#  - values written by each release's library (test/fixtures/golden/) read
#    back unchanged, in text and binary form;
#  - pg_dump/pg_restore (custom and plain format) of that database keeps
#    every value and every extension table row.
. "$(dirname "$0")/lib.sh"
GOLD="$ROOT/test/fixtures/golden"
NEW=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/acmetrace.control")
OLD=0.1.0
export PGTZ=UTC

# catalog DB: the extension's objects as pg_dump --binary-upgrade sees them,
# with OIDs, xids and the per-dump \restrict key masked.
catalog() {
    pg_dump --binary-upgrade --schema-only -d "$1" |
        sed -E '/^\\(un)?restrict /d; /binary_upgrade_set_next_/d;
                /binary_upgrade_create_empty_extension/s/[0-9]{4,}/N/g
                s/relfrozenxid = .[0-9]+./relfrozenxid = N/; s/WHERE oid = .[0-9]+.;/WHERE oid = N;/'
}

# --- 1. Catalog: every older release + upgrade scripts == fresh NEW.
fresh_db e2e_up_fresh
catalog e2e_up_fresh >"$OUT/fresh.sql"
members=$(grep -c '^ALTER EXTENSION acmetrace ADD ' "$OUT/fresh.sql")
[ "$members" -gt 100 ] && ok "fresh install lists $members member objects" ||
    bad "fresh install lists only $members member objects"
# (every version an upgrade script starts from; older ones install through the chain)
for old in $(ls "$ROOT"/upgrade/acmetrace--*--*.sql "$ROOT"/acmetrace--*--*.sql | sed -nE 's/.*acmetrace--([0-9.]+)--[0-9.]+\.sql$/\1/p' | sort -uV); do
    dropdb --if-exists e2e_up_cat && createdb e2e_up_cat
    PGDATABASE=e2e_up_cat q -c "CREATE EXTENSION acmetrace VERSION '$old'" -c "ALTER EXTENSION acmetrace UPDATE" >/dev/null ||
        bad "install $old and update failed"
    catalog e2e_up_cat >"$OUT/from-$old.sql"
    if diff -u "$OUT/fresh.sql" "$OUT/from-$old.sql" >"$OUT/from-$old.diff"; then
        ok "$old updated to $NEW has the catalog of a fresh $NEW"
    else
        bad "$old updated to $NEW differs from a fresh $NEW (see $OUT/from-$old.diff)"; head -40 "$OUT/from-$old.diff"
    fi
done

# --- 2. Data kept across ALTER EXTENSION UPDATE.
export PGDATABASE=e2e_upgrade
dropdb --if-exists $PGDATABASE && createdb $PGDATABASE
q -c "CREATE EXTENSION acmetrace VERSION '$OLD'" >/dev/null
check_eq "installed version" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'acmetrace'")" "$OLD"
(cd "$FIX" && q >/dev/null <<'SQL'
SET acmetrace.cluster = 'seren';
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'kalos';
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'seren';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Samples stored twice, as a second load of the same file did before 0.4.0.
INSERT INTO acmetrace.utilization SELECT * FROM acmetrace.utilization WHERE series IN ('10.140.1.10', '10.140.0.171');
SELECT acmetrace.load_generated('synth', 'seren', 4000, 3);
INSERT INTO acmetrace.failure_reasons
SELECT cluster, job_id, 'Script', 'FileNotFoundError' FROM acmetrace.jobs
 WHERE cluster = 'synth' AND state = 'FAILED' ORDER BY job_id LIMIT 20;
-- A user's own table of stored values, with a NULL and a typed-in value.
CREATE TABLE kept (id serial PRIMARY KEY, cluster text, sk acmetrace.delay_sketch, occ acmetrace.occupancy);
INSERT INTO kept (cluster, sk, occ)
SELECT cluster, acmetrace.delay_sketch_agg(queue), acmetrace.occupancy_agg(start_time, end_time, gpu_num)
  FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster;
INSERT INTO kept (cluster, sk, occ)
VALUES ('typed', 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1', NULL);
SQL
) || bad "loading the $OLD database failed"

snapshot() {  # everything a user could read back
    q <<'SQL'
SELECT id, cluster, sk::text, encode(acmetrace.delay_sketch_send(sk), 'hex'),
       md5(occ::text), encode(sha256(acmetrace.occupancy_send(occ)), 'hex')
  FROM kept ORDER BY id;
SELECT md5(string_agg(j::text, '|' ORDER BY j.cluster COLLATE "C", j.job_id COLLATE "C")) FROM acmetrace.jobs j;
SELECT c::text FROM acmetrace.clusters c ORDER BY c.cluster COLLATE "C";
SELECT count(DISTINCT u::text), md5(string_agg(DISTINCT u::text COLLATE "C", '|' ORDER BY u::text COLLATE "C")) FROM acmetrace.utilization u;
SELECT count(*), md5(string_agg(f::text, '|' ORDER BY f::text COLLATE "C")) FROM acmetrace.failure_reasons f;
SELECT cluster, acmetrace.percentiles(sk, '{0.5,0.9,0.99}'), acmetrace.peak(occ),
       acmetrace.gpus_at(occ, '2023-03-01 12:00+00') FROM kept WHERE sk IS NOT NULL ORDER BY id;
SELECT * FROM acmetrace.cluster_summary() ORDER BY 1;
-- (0.4.0 rounds these analyses' shares and seconds and renamed some
-- columns, CHANGELOG.md; what they count must not change)
-- (0.4.0 adds the rows of type 'all' and reports GPU time in GPU-hours)
SELECT type, bin, jobs FROM acmetrace.queue_by_occupancy('synth') WHERE type IS DISTINCT FROM 'all';
SELECT category, reason, jobs, coalesce((to_jsonb(t) ->> 'gpu_h')::numeric, round((to_jsonb(t) ->> 'gpu_time')::numeric / 3600, 2)) AS gpu_h
  FROM acmetrace.failure_taxonomy('synth') t;
SQL
}
snapshot >"$OUT/before.txt" || bad "analyses fail on $OLD SQL with the $NEW library"
[ "$(grep -c . "$OUT/before.txt")" -gt 20 ] && ok "snapshot at $OLD has $(grep -c . "$OUT/before.txt") lines" ||
    bad "snapshot at $OLD is too short"

q -c "ALTER EXTENSION acmetrace UPDATE" >/dev/null || bad "ALTER EXTENSION acmetrace UPDATE failed"
check_eq "version after update" \
    "$(q -c "SELECT extversion || ' ' || acmetrace.version() FROM pg_extension WHERE extname = 'acmetrace'")" "$NEW $NEW"
snapshot >"$OUT/after.txt" || bad "analyses fail after the update"
# The doubled samples are kept once in the blocks, every other one as it was.
check_eq "samples stored twice before the update, once after" \
    "$(q -c "SELECT count(*) = count(DISTINCT u::text) AND count(*) > 100 FROM acmetrace.utilization u")" t
# The blocks made by the update carry their hour summaries, and the rollup
# acmetrace.utilization_hours the update fills from them: the hourly view
# (which reads the rollup) equals the plain hourly aggregate of the samples.
check_eq "hour summaries of the updated blocks equal the samples' hourly aggregate" \
    "$(q -c "SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM acmetrace.v_hourly_utilization)
               AND bool_and(ok) FROM (
             SELECT coalesce(v.samples = p.samples AND v.series = p.series AND v.mean = p.mean
                             AND v.min = p.min AND v.max = p.max, false) AS ok
               FROM (SELECT metric, cluster, date_trunc('hour', ts, 'UTC') AS bucket, count(*) AS samples,
                            count(DISTINCT series) AS series, round(avg(value::numeric), 2) AS mean,
                            min(value) AS min, max(value) AS max
                       FROM acmetrace.utilization GROUP BY 1, 2, 3) p
               LEFT JOIN acmetrace.v_hourly_utilization v USING (metric, cluster, bucket)) x")" t
check_eq "the rollup filled by the update has the hours of the blocks" \
    "$(q -c "SELECT count(*) > 0 FROM acmetrace.utilization_hours")" t
if cmp -s "$OUT/before.txt" "$OUT/after.txt"; then ok "stored values and analyses unchanged by the update"
else bad "update changed stored values or analyses"; diff "$OUT/before.txt" "$OUT/after.txt" | head -20; fi

# The summaries: in use for every cluster, and what a rebuild from the jobs
# makes (the update builds them; a restore rebuilds them as it loads the jobs).
summaries_text() {
    q -c "SELECT md5(string_agg(t, '|' ORDER BY t COLLATE \"C\")) FROM (
            SELECT 'c ' || (s.cluster, s.jobs, s.occupancy_capacity, s.peak_allocated, s.exact)::text AS t FROM acmetrace.summary_clusters s
            UNION ALL SELECT 'j ' || s::text FROM acmetrace.summary_jobs s
            UNION ALL SELECT 'v ' || s::text FROM acmetrace.summary_values s) x"
}
check_summaries() {  # check_summaries WHAT: in the current PGDATABASE
    local before
    check_eq "$1: every cluster's summaries in use" "$(q -c "SELECT acmetrace_internal.summarized(NULL) AND count(*) > 0 FROM acmetrace.summary_clusters")" t
    before=$(summaries_text)
    q -c "SELECT acmetrace.refresh_summaries()" >/dev/null
    check_eq "$1: summaries equal a rebuild" "$(summaries_text)" "$before"
}

# --- 3. Values written by each release's library read back unchanged.
for csv in "$GOLD"/v*.csv; do
    v=$(basename "$csv" .csv)
    q >"$OUT/golden-$v.txt" 2>&1 <<SQL
CREATE TEMP TABLE g (id integer, note text, sk text, sk_hex text, occ text, occ_hex text);
\\copy g FROM '$csv' (FORMAT csv, HEADER match)
CREATE TEMP TABLE b (id integer, sk acmetrace.delay_sketch, occ acmetrace.occupancy);
\\copy b FROM '$GOLD/$v.bin' (FORMAT binary)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE g.sk IS NOT DISTINCT FROM g.sk::acmetrace.delay_sketch::text
                          AND g.sk_hex IS NOT DISTINCT FROM encode(acmetrace.delay_sketch_send(g.sk::acmetrace.delay_sketch), 'hex')
                          AND g.occ IS NOT DISTINCT FROM g.occ::acmetrace.occupancy::text
                          AND g.occ_hex IS NOT DISTINCT FROM encode(acmetrace.occupancy_send(g.occ::acmetrace.occupancy), 'hex')) AS text_ok,
       count(*) FILTER (WHERE g.sk IS NOT DISTINCT FROM b.sk::text AND g.occ IS NOT DISTINCT FROM b.occ::text) AS binary_ok
  FROM g JOIN b USING (id);
SQL
    n=$(grep -c . "$csv"); n=$((n - 1))
    check_eq "golden $v: rows whose text and send form read back unchanged | rows read from binary COPY unchanged" \
        "$(tail -1 "$OUT/golden-$v.txt")" "$n|$n|$n"
done

# --- 4. pg_dump / pg_restore keep every value.
pg_dump -Fc -f "$OUT/dump.custom" || bad "pg_dump -Fc failed"
pg_dump -Fp -f "$OUT/dump.sql" || bad "pg_dump -Fp failed"
dropdb --if-exists e2e_restored && createdb e2e_restored
if pg_restore --exit-on-error -d e2e_restored "$OUT/dump.custom" 2>"$OUT/restore.err"; then
    ok "pg_restore of the custom-format dump"
else
    bad "pg_restore failed: $(head -3 "$OUT/restore.err")"
fi
PGDATABASE=e2e_restored snapshot >"$OUT/restored.txt"
if cmp -s "$OUT/after.txt" "$OUT/restored.txt"; then ok "custom-format dump restores every value"
else bad "restored database differs"; diff "$OUT/after.txt" "$OUT/restored.txt" | head -20; fi
dropdb --if-exists e2e_restored_plain && createdb e2e_restored_plain
PGDATABASE=e2e_restored_plain q -f "$OUT/dump.sql" >/dev/null 2>"$OUT/restore_plain.err" ||
    bad "plain dump failed to load: $(head -3 "$OUT/restore_plain.err")"
PGDATABASE=e2e_restored_plain snapshot >"$OUT/restored_plain.txt"
if cmp -s "$OUT/after.txt" "$OUT/restored_plain.txt"; then ok "plain-format dump restores every value"
else bad "plain-format restore differs"; diff "$OUT/after.txt" "$OUT/restored_plain.txt" | head -20; fi
PGDATABASE=e2e_upgrade check_summaries "after the update"
PGDATABASE=e2e_restored check_summaries "after pg_restore"
PGDATABASE=e2e_restored_plain check_summaries "after the plain dump"
check_eq "restored version" \
    "$(PGDATABASE=e2e_restored q -c "SELECT extversion FROM pg_extension WHERE extname = 'acmetrace'")" "$NEW"

for d in e2e_up_fresh e2e_up_cat e2e_upgrade e2e_restored e2e_restored_plain; do dropdb --if-exists "$d"; done
finish
