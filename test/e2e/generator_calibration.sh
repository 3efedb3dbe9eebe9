#!/usr/bin/env bash
# The synthetic traces reproduce the published summary and findings:
#  - tools/calibrate_generator.sh 1: cluster_summary() of the generated
#    Seren and Kalos traces of seed 1 at the published sizes within tolerance of every
#    column of the published rows (test/fixtures/acme_cluster_summary.csv,
#    nothing typed here);
#  - in the generated Seren: Eval waits longer than Pretrain in the upper
#    occupancy bins and over 100 s on average, Pretrain's cancelled share by
#    GPU time is above Eval's by at least 0.2, and the per-type duration CDFs
#    are distinct lines;
#  - users' habits make run times predictable: on that trace (split at the
#    median submit time) the history predictor and the boosted trees are
#    each at least 15 points of "within 2x" above the per-type median.
. "$(dirname "$0")/lib.sh"
SEED=1
if bash "$ROOT/tools/calibrate_generator.sh" "$SEED" >"$OUT/calibration.txt" 2>&1; then
    ok "$(tail -1 "$OUT/calibration.txt") (seed $SEED)"
else
    bad "calibration: $(grep -E 'no\*\*|calibration' "$OUT/calibration.txt" | head -20)"
fi

fresh_db e2e_generator
check_eq "generated Seren at the published size" \
    "$(q -c "SELECT acmetrace.load_generated('seren', 'seren', 1031550, $SEED)")" 1031550
# bins 8 to 11 (80% of capacity and up): Eval's mean queue above Pretrain's wherever both have jobs
check_eq "upper occupancy bins where Pretrain waits as long as Eval or longer" \
    "$(q -c "SELECT coalesce(string_agg(e.bin || ': Eval ' || e.mean_queue_s || ' s, Pretrain ' || p.mean_queue_s || ' s', '; '), '')
               FROM acmetrace.queue_by_occupancy('seren') e
               JOIN acmetrace.queue_by_occupancy('seren') p USING (bin)
              WHERE e.type = 'Eval' AND p.type = 'Pretrain' AND e.bin >= 8 AND e.mean_queue_s <= p.mean_queue_s")" ""
check_eq "upper occupancy bins compared" \
    "$(q -c "SELECT count(*) >= 2 FROM acmetrace.queue_by_occupancy('seren') e
               JOIN acmetrace.queue_by_occupancy('seren') p USING (bin)
              WHERE e.type = 'Eval' AND p.type = 'Pretrain' AND e.bin >= 8")" t
check_eq "Eval's mean queue over 100 s" \
    "$(q -c "SELECT avg(queue) > 100 FROM acmetrace.jobs WHERE cluster = 'seren' AND type = 'Eval' AND gpu_num > 0")" t
check_eq "Pretrain's cancelled share by GPU time above Eval's by 0.2 or more" \
    "$(q -c "SELECT max(gpu_h_pct) FILTER (WHERE type = 'Pretrain') - max(gpu_h_pct) FILTER (WHERE type = 'Eval') >= 20
               FROM acmetrace.state_by_type('seren') WHERE final_state = 'CANCELLED'")" t
# each pair of types' duration CDFs apart by 10 points or more somewhere
check_eq "pairs of job types whose duration CDFs stay within 10 points everywhere" \
    "$(q -c "SELECT coalesce(string_agg(a.type || '/' || b.type, ' '), '') FROM
               (SELECT a.type AS ta, b.type AS tb FROM (SELECT DISTINCT type FROM acmetrace.duration_cdf('seren') WHERE type <> 'all') a,
                       (SELECT DISTINCT type FROM acmetrace.duration_cdf('seren') WHERE type <> 'all') b WHERE a.type < b.type) p
               JOIN LATERAL (SELECT max(abs(x.cdf_pct - y.cdf_pct)) AS d FROM acmetrace.duration_cdf('seren') x
                               JOIN acmetrace.duration_cdf('seren') y USING (duration_s)
                              WHERE x.type = p.ta AND y.type = p.tb) m ON true
               CROSS JOIN LATERAL (SELECT p.ta AS type) a CROSS JOIN LATERAL (SELECT p.tb AS type) b
              WHERE m.d < 10")" ""
split=$(q -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY submit_time) FROM acmetrace.jobs WHERE cluster = 'seren' AND gpu_num > 0")
q -c "CREATE TABLE pe AS SELECT * FROM acmetrace.prediction_error('seren', '$split'::timestamptz, methods => '{history,gbdt}') WHERE type = 'all'" >/dev/null
within=$(q -c "SELECT string_agg(method || ' ' || within_2x_pct || '%', ', ' ORDER BY method) FROM pe")
check_eq "history and gbdt each 15 points or more of within 2x above the type median ($within)" \
    "$(q -c "SELECT count(*) FROM pe p, pe t WHERE t.method = 'type median' AND p.method IN ('history', 'gbdt')
              AND p.within_2x_pct >= t.within_2x_pct + 15")" 2
finish
