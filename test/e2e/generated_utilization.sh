#!/usr/bin/env bash
# Utilization that follows a generated trace's placement, at the published
# Seren size (1,031,550 jobs, 2,288 GPUs), six hours of GPU_UTIL:
#  - generate_placement gives every GPU job that ran, at the loaded jobs'
#    own times, on as many GPUs as it has, never two at once on a GPU;
#  - joined with the samples: a GPU no job runs on is idle (<= 1), the
#    jobs' GPUs are busy (median >= 95; published median of all samples 99),
#    so the samples are polarized as published;
#  - texture (doc/generator.md): GPUs no job runs on read 0 but now and
#    then a small value (1), about 4% of their samples; the jobs' GPUs dip
#    to idle for single samples (data-loading stalls) among others;
#  - the window's per-sample CDF is within 0.03 of the published one
#    (test/fixtures/published/acme_util_quantiles.csv, read here) at every
#    integer 0..100: the jobs run on 73% of the GPU-samples in it, more
#    than the published busy share, so both the split and the shape can hold;
#  - tools/acmetrace-genutil --jobs writes the same samples as the SQL.
. "$(dirname "$0")/lib.sh"
QUANTILES="$FIX/published/acme_util_quantiles.csv"
N=1031550
SEED=1
T0='2023-06-03 00:00:00+00'
SAMPLES=1440
[ -f "$QUANTILES" ] || { bad "no published quantiles at $QUANTILES"; finish; }
(cd "$ROOT" && make -s genutil >/dev/null) || { bad "make genutil failed"; finish; }

fresh_db e2e_generated_util
check_eq "generated Seren at the published size" \
    "$(q -c "SELECT acmetrace.load_generated('synth', 'seren', $N, $SEED)")" $N
q -c "CREATE TABLE placed AS SELECT * FROM acmetrace.generate_placement('seren', $N, $SEED)"
check_eq "placed jobs missing from the loaded trace, or placed at other times or sizes" \
    "$(q -c "SELECT count(*) FROM placed p LEFT JOIN acmetrace.jobs j ON j.cluster = 'synth' AND j.job_id = p.job_id
              WHERE j.job_id IS NULL OR j.start_time <> p.start_time OR j.end_time <> p.end_time
                 OR j.gpu_num <> cardinality(p.series)")" 0
check_eq "loaded GPU jobs that ran but were not placed" \
    "$(q -c "SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = 'synth' AND j.gpu_num > 0 AND j.end_time > j.start_time
                AND NOT EXISTS (SELECT 1 FROM placed p WHERE p.job_id = j.job_id)")" 0
q -c "CREATE TABLE ran AS SELECT job_id, start_time, end_time, unnest(series) AS series FROM placed"
# consecutive jobs of a GPU, in start order: each starts after the one before ended
check_eq "GPUs running two jobs at once (whole trace)" \
    "$(q -c "SELECT count(*) FROM (SELECT start_time, lag(end_time) OVER (PARTITION BY series ORDER BY start_time, end_time) AS prev_end
                                    FROM ran) x WHERE start_time < prev_end")" 0

q -c "SET acmetrace.cluster = 'synth'; SET acmetrace.metric = 'GPU_UTIL';
      INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util('seren', $N, $SEED, 'GPU_UTIL', '$T0', $SAMPLES)"
check_eq "samples loaded (6 hours of 2,288 GPUs)" \
    "$(q -c "SELECT count(*) FROM acmetrace.utilization WHERE cluster = 'synth' AND metric = 'GPU_UTIL'")" $((SAMPLES * 2288))
q -c "CREATE TABLE s AS
        SELECT u.value, r.job_id IS NOT NULL AS running
          FROM acmetrace.utilization u
          LEFT JOIN (SELECT * FROM ran WHERE end_time > '$T0' AND start_time < timestamptz '$T0' + interval '$((SAMPLES * 15)) seconds') r
                 ON r.series = u.series AND u.ts >= r.start_time AND u.ts < r.end_time
         WHERE u.cluster = 'synth' AND u.metric = 'GPU_UTIL'"
check_eq "samples joined to at most one job" \
    "$(q -c "SELECT count(*) FROM s")" $((SAMPLES * 2288))
check_eq "samples above 1 on a GPU no job runs on" \
    "$(q -c "SELECT count(*) FROM s WHERE NOT running AND value > 1")" 0
# 4% of idle samples read a small value (AT_UTIL_TOUCH): not all 0, and not many more
check_eq "samples not 0 on GPUs no job runs on between 2% and 6% of them" \
    "$(q -c "SELECT avg((value > 0)::int) BETWEEN 0.02 AND 0.06 FROM s WHERE NOT running")" t
check_eq "running share of the window over the published busy share, with free GPUs in it too" \
    "$(q -c "SELECT avg(running::int) > 0.7 AND bool_or(NOT running) FROM s")" t
check_eq "median of the samples on GPUs a job runs on at least 95" \
    "$(q -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY value) >= 95 FROM s WHERE running")" t
q -c "CREATE TABLE published (cluster text, metric text, quantile float8, value float8)"
q -c "\\copy published FROM '$QUANTILES' (FORMAT csv, HEADER)"
ks=$(q -c "WITH x AS (SELECT generate_series(0, 100) AS x),
                gen AS (SELECT x, (SELECT avg((value <= x)::int) FROM s) AS f FROM x),
                pub AS (SELECT x, (SELECT count(*) FILTER (WHERE value <= x)::float8 / count(*) FROM published
                                    WHERE cluster = 'seren' AND metric = 'GPU_UTIL') AS f FROM x)
           SELECT round(max(abs(gen.f - pub.f))::numeric, 3) FROM gen JOIN pub USING (x)")
check_eq "largest distance of the window's CDF from the published one ($ks) at most 0.03" \
    "$(q -c "SELECT $ks <= 0.03")" t
echo "  figures: $(q -c "SELECT 'running share ' || round(avg(running::int), 3) || ', idle (<= 1) ' || round(avg((value <= 1)::int), 3)
                                || ', idle not 0 ' || round(avg((value > 0)::int) FILTER (WHERE value <= 1), 3)
                                || ', running at or below 1 ' || round(avg((value <= 1)::int) FILTER (WHERE running), 3)
                                || ', median running ' || percentile_disc(0.5) WITHIN GROUP (ORDER BY value) FILTER (WHERE running)
                                || ', KS $ks' FROM s")"

# The file writer gives the same samples.
"$ROOT/tools/acmetrace-genutil" --cluster seren --jobs $N --seed $SEED --start "${T0%% *}" --samples $SAMPLES \
    --offline 0 --gaps 0 --time epoch -o "$OUT/gpu_util.csv" 2>"$OUT/genutil.err" ||
    bad "acmetrace-genutil --jobs failed: $(cat "$OUT/genutil.err")"
q -c "SET acmetrace.cluster = 'synth_file'" -c "SET acmetrace.metric = 'GPU_UTIL'" \
  -c "\\copy acmetrace.utilization_lines FROM '$OUT/gpu_util.csv' (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"
check_eq "samples of the file that differ from the SQL's, either way" \
    "$(q -c "SELECT count(*) FROM ((SELECT series, ts, value FROM acmetrace.utilization WHERE cluster = 'synth_file'
                                   EXCEPT ALL SELECT series, ts, value FROM acmetrace.utilization WHERE cluster = 'synth')
                                  UNION ALL
                                  (SELECT series, ts, value FROM acmetrace.utilization WHERE cluster = 'synth'
                                   EXCEPT ALL SELECT series, ts, value FROM acmetrace.utilization WHERE cluster = 'synth_file')) d")" 0
finish
