-- acmetrace.audit lists, per anomaly, how many jobs break the published
-- rules and a few example ids.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)

SELECT anomaly, description FROM acmetrace.audit_checks();

-- The Kalos sample rows: duration (and so gpu_time) counts the queue.
SELECT * FROM acmetrace.audit('kalos') WHERE jobs > 0;
-- The Seren and Helios samples obey the documented rules.
SELECT cluster, sum(jobs) AS anomalies FROM acmetrace.audit() GROUP BY 1 ORDER BY cluster COLLATE "C";

-- One crafted job per anomaly: each check fires on its own job and
-- (mostly) only there.
SET acmetrace.cluster = 'crafted';
INSERT INTO acmetrace.trace_seren VALUES
  ('ok',        'u', 1, 8, 1, 'Eval',    'COMPLETED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:01:10+08', 60, 10, 480),
  ('dur',       'u', 1, 8, 1, 'Eval',    'COMPLETED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:01:10+08', 61.5, 10, 492),
  ('dur_sub',   'u', 1, 1, 1, 'Eval',    'COMPLETED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:01:10+08', 70, 10, 70),
  ('que',       'u', 1, 8, 1, 'Eval',    'COMPLETED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:01:10+08', 60, 12, 480),
  ('gpu',       'u', 1, 8, 1, 'Eval',    'COMPLETED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:01:10+08', 60, 10, 500),
  ('endbefore', 'u', 1, 0, 1, 'Debug',   'FAILED',    '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', '2023-03-01 00:00:05+08', NULL, NULL, NULL),
  ('startbefore','u',1, 0, 1, 'Debug',   'FAILED',    '2023-03-01 00:00:00+08', '2023-02-28 23:59:00+08', '2023-03-01 00:00:05+08', NULL, NULL, NULL),
  ('never',     'u', 1, 8, 1, 'Pretrain','CANCELLED', '2023-03-01 00:00:00+08', NULL, NULL, NULL, NULL, NULL),
  ('noend',     'u', 1, 8, 1, 'Pretrain','CANCELLED', '2023-03-01 00:00:00+08', '2023-03-01 00:00:10+08', NULL, NULL, NULL, NULL),
  ('nosubmit',  'u', 1, 8, 1, 'Pretrain','CANCELLED', NULL, NULL, NULL, NULL, NULL, NULL),
  ('neg',       'u', 1, -8, 1, 'SFT',    'COMPLETED', NULL, NULL, NULL, NULL, NULL, NULL),
  ('huge',      'u', 1, 4096, 1, 'SFT',  'COMPLETED', NULL, NULL, NULL, NULL, NULL, NULL),
  ('long',      'u', 1, 0, 1, 'MLLM',    'COMPLETED', '2021-03-01 00:00:00+08', '2021-03-01 00:00:00+08', '2023-03-01 00:00:00+08', NULL, NULL, NULL),
  ('y1970',     'u', 1, 0, 1, 'MLLM',    'COMPLETED', '1970-01-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL),
  ('state',     'u', 1, 0, 1, 'Other',   'PREEMPTED', NULL, NULL, NULL, NULL, NULL, NULL),
  ('type',      'u', 1, 0, 1, 'Inference','COMPLETED', NULL, NULL, NULL, NULL, NULL, NULL);
RESET acmetrace.cluster;
UPDATE acmetrace.clusters SET gpu_capacity = 2288 WHERE cluster = 'crafted';
SELECT anomaly, jobs, example_job_ids FROM acmetrace.audit('crafted');
-- The tolerance: the 1.5 s duration difference is flagged at 1 s, not at 2 s.
SELECT jobs, example_job_ids FROM acmetrace.audit('crafted', 2) WHERE anomaly = 'duration_mismatch';
-- Fewer examples on request.
SELECT example_job_ids FROM acmetrace.audit('crafted', 1, 1) WHERE anomaly = 'never_started';
-- An empty cluster lists every check with 0.
INSERT INTO acmetrace.clusters (cluster, source_format) VALUES ('empty', 'generated');
SELECT count(*) AS checks, sum(jobs) AS anomalies FROM acmetrace.audit('empty');

-- Bad arguments.
SELECT * FROM acmetrace.audit('nope');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.audit('kalos', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.audit('kalos', 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.audit('kalos', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.audit('kalos', 1, -1);
\echo :LAST_ERROR_SQLSTATE

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
