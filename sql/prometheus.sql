-- The loader of Prometheus's samples: the converter's lines (series, job
-- label, "<ms>:<value>" pairs; !end and !error control lines) streamed
-- into the utilization blocks and the job label spans; repeats skipped and
-- counted, conflicts and every malformed line refused, all or nothing.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- Everything a load writes, compared after each refused load.
CREATE TEMP VIEW fingerprint AS
SELECT md5(coalesce((SELECT string_agg(b::text, '|' ORDER BY b.metric, b.cluster, b.day, b.series)
                       FROM acmetrace.utilization_blocks b), '') || '#' ||
           coalesce((SELECT string_agg(j::text, '|' ORDER BY j.metric, j.cluster, j.series, j.job_id)
                       FROM acmetrace.utilization_jobs j), '')) AS fp;

-- The metric and the cluster are required.
INSERT INTO acmetrace.prometheus_samples VALUES ('!end', NULL, '0 0 0');
\echo :LAST_ERROR_SQLSTATE
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.prometheus_samples VALUES ('!end', NULL, '0 0 0');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS last_loads FROM acmetrace_internal.prometheus_last_load();

-- A cluster with jobs: seren's published sample.
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'seren';

-- Two windows of two GPUs, as the converter writes them: the first starts
-- on 2023-06-30 UTC, 15 s before midnight (two blocks per series), one GPU
-- carries a job label.  Values are stored as given (the converter scaled
-- them).
COPY acmetrace.prometheus_samples FROM STDIN;
node01-gpu0	\N	1688169585000:0 1688169600000:45.5 1688169615000:100
node01-gpu0	7001	1688169630000:99 1688169645000:98
node01-gpu1	7001	1688169585000:12 1688169600000:0.001
!end	\N	2 7 1
node01-gpu0	7001	1688169660000:97
node01-gpu1	\N	1688169615000:0 1688169660000:-0
!end	\N	2 3 0
\.
SELECT count(*) AS staged FROM acmetrace.prometheus_samples;
SELECT * FROM acmetrace_internal.prometheus_last_load();
SELECT metric, cluster, day, series, n, min, max, sum, first_ts, last_ts
  FROM acmetrace.utilization_blocks ORDER BY day, series;
SELECT series, ts, value, float8send(value) AS bits FROM acmetrace.utilization ORDER BY series, ts;
SELECT * FROM acmetrace.utilization_jobs ORDER BY series, job_id;
SELECT fp AS loaded FROM fingerprint \gset

-- The same lines again: nothing doubled, every sample counted a duplicate.
COPY acmetrace.prometheus_samples FROM STDIN;
node01-gpu0	\N	1688169585000:0 1688169600000:45.5 1688169615000:100
node01-gpu0	7001	1688169630000:99 1688169645000:98
node01-gpu1	7001	1688169585000:12 1688169600000:0.001
!end	\N	2 7 1
node01-gpu0	7001	1688169660000:97
node01-gpu1	\N	1688169615000:0 1688169660000:-0
!end	\N	2 3 0
\.
SELECT * FROM acmetrace_internal.prometheus_last_load();
SELECT fp = :'loaded' AS unchanged FROM fingerprint;

-- Interleaved series, lines out of time order and across days: a window
-- that overlaps the stored samples (repeats skipped), a series whose line
-- crosses midnight, then a line back on the first day (merged with the
-- stored block), and a job label seen earlier and later than its span.
INSERT INTO acmetrace.prometheus_samples VALUES
  ('node02-gpu3', 'x.y-1', '1688169570000:5'),
  ('node01-gpu0', '7001', '1688169645000:98 1688169675000:96'),
  ('node02-gpu3', 'x.y-1', '1688169555000:4 1688169600000:6 1688169690000:7'),
  ('node01-gpu1', '7001', '1688169570000:11'),
  ('node02-gpu3', NULL, '1688169540000:3'),
  ('!end', NULL, '3 8 2'),
  ('!end', NULL, '0 0 0');
SELECT * FROM acmetrace_internal.prometheus_last_load();
SELECT series, day, n, first_ts, last_ts FROM acmetrace.utilization_blocks WHERE series <> 'node01-gpu0' ORDER BY series, day;
SELECT series, array_agg(value ORDER BY ts) AS values FROM acmetrace.utilization GROUP BY series ORDER BY series;
SELECT * FROM acmetrace.utilization_jobs ORDER BY series, job_id;
SELECT fp AS loaded FROM fingerprint \gset

-- A different value for a stored sample: an ERROR naming the series, the
-- time, both values, the metric and the cluster; nothing of the load stays
-- (not the new series before it, nor its job span) and the counts are the
-- last load's.
COPY acmetrace.prometheus_samples FROM STDIN;
node09-gpu0	9	1688169600000:1
node01-gpu0	\N	1688169600000:45.5 1688169615000:99
!end	\N	2 3 0
\.
SELECT fp = :'loaded' AS unchanged FROM fingerprint;
SELECT * FROM acmetrace_internal.prometheus_last_load();
-- the same within one load
INSERT INTO acmetrace.prometheus_samples VALUES
  ('node09-gpu0', NULL, '1688169600000:1'), ('node09-gpu0', NULL, '1688169600000:2'), ('!end', NULL, '1 2 0');
\echo :LAST_ERROR_SQLSTATE
SELECT fp = :'loaded' AS unchanged FROM fingerprint;

-- Hostile lines: each an ERROR naming the line and the value, with a hint;
-- the valid lines before it are not loaded.
CREATE TEMP TABLE hostile (n serial, what text, series text, job text, samples text);
INSERT INTO hostile (what, series, job, samples) VALUES
  ('series: underscore', 'node01_gpu0', NULL, '1688169600000:1'),
  ('series: leading zero', 'node01-gpu01', NULL, '1688169600000:1'),
  ('series: no host', '-gpu0', NULL, '1688169600000:1'),
  ('series: blank', 'node 1-gpu0', NULL, '1688169600000:1'),
  ('series: GPU 10000', 'node01-gpu10000', NULL, '1688169600000:1'),
  ('series: empty', '', NULL, '1688169600000:1'),
  ('series: long, clipped', repeat('n', 300) || '-gpu0', NULL, '1688169600000:1'),
  ('series: NULL', NULL, NULL, '1688169600000:1'),
  ('job: blank', 'node01-gpu0', 'job 7', '1688169600000:1'),
  ('job: backslash', 'node01-gpu0', 'a\b', '1688169600000:1'),
  ('job: quote', 'node01-gpu0', 'a"b', '1688169600000:1'),
  ('job: empty', 'node01-gpu0', '', '1688169600000:1'),
  ('job: 65 bytes', 'node01-gpu0', repeat('j', 65), '1688169600000:1'),
  ('job: not ASCII', 'node01-gpu0', 'jöb', '1688169600000:1'),
  ('samples: NULL', 'node01-gpu0', NULL, NULL),
  ('samples: empty', 'node01-gpu0', NULL, ''),
  ('samples: no value', 'node01-gpu0', NULL, '1688169600000'),
  ('samples: not a number', 'node01-gpu0', NULL, '1688169600000:1 1688169615000:abc'),
  ('samples: NaN', 'node01-gpu0', NULL, '1688169600000:NaN'),
  ('samples: Infinity', 'node01-gpu0', NULL, '1688169600000:Infinity'),
  ('samples: two spaces', 'node01-gpu0', NULL, '1688169600000:1  1688169615000:2'),
  ('samples: trailing space', 'node01-gpu0', NULL, '1688169600000:1 '),
  ('samples: a tab', 'node01-gpu0', NULL, '1688169600000:1	1688169615000:2'),
  ('samples: seconds with decimals', 'node01-gpu0', NULL, '1688169600.5:1'),
  ('samples: negative time', 'node01-gpu0', NULL, '-1000:1'),
  ('samples: after year 9999', 'node01-gpu0', NULL, '253402300800000:1'),
  ('samples: long, clipped', 'node01-gpu0', NULL, '1688169600000:' || repeat('9', 400)),
  ('times: repeated', 'node01-gpu0', NULL, '1688169600000:1 1688169600000:1'),
  ('times: decreasing', 'node01-gpu0', NULL, '1688169615000:1 1688169600000:2'),
  ('samples: 4097 in a line', 'node01-gpu0', NULL,
     (SELECT string_agg((1688169600000 + i * 1000)::text || ':1', ' ' ORDER BY i) FROM generate_series(1, 4097) i)),
  ('control: unknown', '!begin', NULL, ''),
  ('control: upper case', '!END', NULL, '0 0 0'),
  ('!end: a job', '!end', '7001', '1 1 0'),
  ('!end: NULL counts', '!end', NULL, NULL),
  ('!end: two counts', '!end', NULL, '1 1'),
  ('!end: not a count', '!end', NULL, '1 x 0'),
  ('!end: negative', '!end', NULL, '1 1 -1'),
  ('!end: leading zero', '!end', NULL, '1 01 0'),
  ('!end: fewer samples than the lines', '!end', NULL, '1 0 0'),
  ('!end: more samples than the lines', '!end', NULL, '1 2 0'),
  ('!error', '!error', NULL, 'Prometheus: bad_data: invalid parameter "query": 1:11: parse error'),
  ('!error: no message', '!error', NULL, NULL);
-- Each hostile line after a valid one, then a valid !end (psql's COPY
-- and INSERT show the same errors, with the load's context).
CREATE FUNCTION pg_temp.try(k int) RETURNS TABLE (what text, code text, message text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
    h hostile;
BEGIN
    SELECT * INTO h FROM hostile WHERE n = k;
    what := h.what;
    BEGIN
        INSERT INTO acmetrace.prometheus_samples VALUES ('node05-gpu0', 'ok', '1688169600000:1'),
               (h.series, h.job, h.samples), ('!end', NULL, '2 2 0');
        code := 'none';
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    END;
    RETURN NEXT;
END
$$;
SELECT t.* FROM hostile h, pg_temp.try(h.n) t ORDER BY h.n;
SELECT fp = :'loaded' AS unchanged FROM fingerprint;
SELECT * FROM acmetrace_internal.prometheus_last_load();

-- What psql shows: the message, the detail, the hint and the load's context.
INSERT INTO acmetrace.prometheus_samples VALUES ('node05-gpu0', NULL, '1688169600000:1 1688169615000:x');
INSERT INTO acmetrace.prometheus_samples VALUES ('!error', NULL, 'Prometheus answered 503: service unavailable');
\echo :LAST_ERROR_SQLSTATE

-- A stream cut short: rows came but the last is not !end.
INSERT INTO acmetrace.prometheus_samples VALUES ('node05-gpu0', NULL, '1688169600000:1');
\echo :LAST_ERROR_SQLSTATE
COPY acmetrace.prometheus_samples FROM STDIN;
node05-gpu0	\N	1688169600000:1
!end	\N	1 1 0
node05-gpu0	\N	1688169615000:1
\.
SELECT fp = :'loaded' AS unchanged FROM fingerprint;
-- Nothing at all is a load of nothing.
INSERT INTO acmetrace.prometheus_samples SELECT * FROM acmetrace.prometheus_samples;
SELECT * FROM acmetrace_internal.prometheus_last_load();
-- A rolled-back load leaves the counts of the last committed one.
BEGIN;
INSERT INTO acmetrace.prometheus_samples VALUES ('node05-gpu0', NULL, '1688169600000:1'), ('!end', NULL, '1 1 0');
SELECT lines, stored FROM acmetrace_internal.prometheus_last_load();
ROLLBACK;
SELECT * FROM acmetrace_internal.prometheus_last_load();
SELECT fp = :'loaded' AS unchanged FROM fingerprint;

-- A cluster of samples only, and another metric of the same GPUs: their own
-- blocks and spans.
SET acmetrace.cluster = 'gpulab';
SET acmetrace.metric = 'SM_ACTIVE';
INSERT INTO acmetrace.prometheus_samples VALUES
  ('a.b:9100-gpu0', 'j1', '1688169600000:53.7 1688169601000:0.0000001'), ('!end', NULL, '1 2 0');
SET acmetrace.cluster = 'seren';
INSERT INTO acmetrace.prometheus_samples VALUES ('node01-gpu0', '7001', '1688169600000:12.5'), ('!end', NULL, '1 1 0');
RESET acmetrace.metric;
SELECT metric, cluster, series, count(*) AS samples, sum(value) AS total
  FROM acmetrace.utilization GROUP BY metric, cluster, series ORDER BY metric, cluster, series;
SELECT metric, cluster, series, job_id, first_ts, last_ts FROM acmetrace.utilization_jobs ORDER BY metric, cluster, series, job_id;
SELECT count(*) AS seren_jobs FROM acmetrace.jobs WHERE cluster = 'seren';

-- drop_cluster takes the spans with the samples: a cluster of samples only,
-- one of spans only, and one with jobs.
SELECT acmetrace.drop_cluster('gpulab');
INSERT INTO acmetrace.utilization_jobs VALUES ('GPU_UTIL', 'spans', 'n-gpu0', '1', '2023-07-01', '2023-07-02');
SELECT acmetrace.drop_cluster('spans');
SELECT acmetrace.drop_cluster('seren') > 0 AS dropped_jobs;
SELECT (SELECT count(*) FROM acmetrace.utilization_blocks) AS blocks,
       (SELECT count(*) FROM acmetrace.utilization_jobs) AS spans,
       (SELECT count(*) FROM acmetrace.jobs) AS jobs;
SELECT acmetrace.drop_cluster('gpulab');
\echo :LAST_ERROR_SQLSTATE
-- the span table refuses what a load never writes
INSERT INTO acmetrace.utilization_jobs VALUES ('gpu_util', 'c', 's', '1', '2023-07-01', '2023-07-01');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_jobs VALUES ('GPU_UTIL', 'c', 's', '1', '2023-07-02', '2023-07-01');
\echo :LAST_ERROR_SQLSTATE

DROP FUNCTION pg_temp.try(int);
DROP TABLE hostile;
DROP VIEW fingerprint;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
