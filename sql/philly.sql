-- Philly's cluster_job_log (one JSON array) loads with one \copy line into
-- acmetrace.jobs; acmetrace.trace_comparison() gives the paper's comparison
-- of datacenters for every loaded cluster.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
\set SHOW_CONTEXT never

-- The documented command, on the published sample (47 lines, one job).
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
SELECT count(*) AS staged FROM acmetrace.philly_job_log;
SELECT * FROM acmetrace.clusters;
-- The setting used for the default zone does not leak into the session.
SELECT coalesce(current_setting('acmetrace.time_zone', true), '') AS time_zone_setting;

SELECT * FROM acmetrace.jobs WHERE cluster = 'philly' \gx
-- Every column against values computed by hand from the file, read in
-- America/Los_Angeles (PDT, UTC-7, in October 2017):
--   submitted 01:11:39, first attempt starts 01:12:09 (queue 30 s), the
--   last attempt ends 2017-10-09 06:53:12 (2 d 5 h 41 min 3 s after the
--   start = 193263 s), on m412 with gpu0..gpu7.
SELECT job_id = 'application_1506638472019_14199' AS job_id,
       user_id = 'ce2f4c' AS user_id,
       vc = 'ee9e8c' AS vc,
       state = 'COMPLETED' AND final_state = 'COMPLETED' AS state_from_pass,
       type IS NULL AS type_null,
       submit_time = '2017-10-07 01:11:39-07' AS submit_time,
       start_time = '2017-10-07 01:12:09-07' AS first_attempt_start,
       end_time = '2017-10-09 06:53:12-07' AS last_attempt_end,
       gpu_num = 8 AS gpu_num,
       node_num = 1 AS node_num,
       cpu_num IS NULL AS cpu_num_null,
       queue = 30 AND wait_s = 30 AS queue,
       duration = 193263 AND run_s = 193263 AS duration,
       gpu_time = 193263 * 8 AND gpu_s = 193263 * 8 AS gpu_time,
       mem_per_pod_gb IS NULL AND shared_mem_per_pod IS NULL AND fail_time IS NULL AND stop_time IS NULL AS others_null
  FROM acmetrace.jobs WHERE cluster = 'philly';
-- Capacity: the distinct GPUs of both attempts, m47 and m412 with 8 each.
SELECT gpu_capacity = 16 AS capacity FROM acmetrace.clusters WHERE cluster = 'philly';
SELECT ip, count(*) AS gpus, min(gpu), max(gpu) FROM acmetrace.philly_gpus GROUP BY ip ORDER BY ip;

-- The comparison table on the four published samples.
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SELECT * FROM acmetrace.trace_comparison();
-- By hand: Helios 3 jobs of 1, 4, 1 GPUs all running at 18:41:28 (peak 6,
-- mean 2); Kalos submits 27 min 44 s apart (0.02 days), 64 GPUs each, not
-- overlapping; Seren 8 GPUs each, not overlapping; Philly as above.
SELECT cluster, year, span_days, jobs, gpu_jobs, avg_gpus_per_gpu_job, gpus, peak_allocated
  FROM acmetrace.trace_comparison()
 WHERE (cluster, year, span_days, jobs, gpu_jobs, avg_gpus_per_gpu_job, gpus, peak_allocated) NOT IN
       (('helios', 2020, 0.00, 3, 3, 2.00, NULL, 6),
        ('kalos', 2023, 0.02, 2, 2, 64.00, 2416, 64),
        ('philly', 2017, 0.00, 1, 1, 8.00, 16, 8),
        ('seren', 2023, 0.00, 2, 2, 8.00, 2288, 8))
    OR cluster IS NULL;
-- The same table in plain SQL: peak by counting, at each start, the GPUs
-- of the jobs running then.
CREATE TEMP VIEW comparison_plain AS
SELECT c.cluster, c.source_format,
       to_char(min(j.submit_time AT TIME ZONE c.time_zone), 'YYYY')::integer AS year,
       min(j.submit_time) AS first_submit, max(j.submit_time) AS last_submit,
       round(extract(epoch FROM max(j.submit_time) - min(j.submit_time)) / 86400, 2) AS span_days,
       round(extract(epoch FROM max(j.submit_time) - min(j.submit_time)) / (86400 * 30.44), 1) AS months,
       count(*) AS jobs,
       sum(CASE WHEN j.gpu_num > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
       round(sum(CASE WHEN j.gpu_num > 0 THEN j.gpu_num END)::numeric
             / nullif(sum(CASE WHEN j.gpu_num > 0 THEN 1 ELSE 0 END), 0), 2) AS avg_gpus_per_gpu_job,
       c.gpu_capacity AS gpus,
       (SELECT max((SELECT sum(k.gpu_num) FROM acmetrace.jobs k
                     WHERE k.cluster = c.cluster AND k.gpu_num > 0
                       AND k.start_time <= s.start_time AND (k.end_time IS NULL OR k.end_time > s.start_time)))
          FROM acmetrace.jobs s
         WHERE s.cluster = c.cluster AND s.gpu_num > 0 AND s.start_time IS NOT NULL) AS peak_allocated
  FROM acmetrace.clusters c JOIN acmetrace.jobs j ON j.cluster = c.cluster
 GROUP BY c.cluster;
SELECT (SELECT count(*) FROM (SELECT * FROM acmetrace.trace_comparison() EXCEPT SELECT * FROM comparison_plain) d) AS only_in_function,
       (SELECT count(*) FROM (SELECT * FROM comparison_plain EXCEPT SELECT * FROM acmetrace.trace_comparison()) d) AS only_in_plain,
       (SELECT count(*) FROM acmetrace.v_trace_comparison) AS view_rows;
-- The view and every one of its columns are documented.
SELECT obj_description('acmetrace.v_trace_comparison'::regclass, 'pg_class') IS NOT NULL AS view_comment,
       count(*) AS columns, count(col_description(a.attrelid, a.attnum)) AS commented
  FROM pg_attribute a WHERE a.attrelid = 'acmetrace.v_trace_comparison'::regclass AND a.attnum > 0;

-- Crafted jobs: no attempts (empty, missing), a first attempt without
-- start_time, null and "None" times, a last attempt still running on two
-- servers, backslash and unicode escapes, an attempt without servers, a
-- job crossing the end of daylight saving time, and a New Year's Eve
-- submission (2016 in Los Angeles, 2017 in UTC).
SET acmetrace.cluster = 'crafted';
\copy acmetrace.philly_job_log (line) FROM STDIN (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
[
  {"status": "Killed", "vc": "vc1", "jobid": "no_attempts", "attempts": [],
   "submitted_time": "2017-11-01 10:00:00", "user": "u1"},
  {"status": "Failed", "vc": "vc1", "jobid": "no_attempts_key",
   "submitted_time": "2017-11-01 10:00:05", "user": "u1"},
  {"status": "Pass", "vc": "vc2", "jobid": "missing_start",
   "attempts": [
     {"end_time": "2017-11-01 11:00:00", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]},
     {"start_time": "2017-11-01 11:05:00", "end_time": "2017-11-01 12:00:00",
      "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1"]}]}
   ],
   "submitted_time": "2017-11-01 10:30:00", "user": "u2"},
  {"status": "Pass", "vc": "vc2", "jobid": "none_times",
   "attempts": [{"start_time": "None", "end_time": null, "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}],
   "submitted_time": "2017-11-01 10:40:00", "user": "u2"},
  {"status": "Killed", "vc": "vc3", "jobid": "running",
   "attempts": [
     {"start_time": "2017-12-22 23:00:00", "end_time": "2017-12-22 23:10:00",
      "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]},
     {"start_time": "2017-12-22 23:20:00", "end_time": null,
      "detail": [{"ip": "m3", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]},
                 {"ip": "m4", "gpus": ["gpu4", "gpu5", "gpu6", "gpu7"]}]}
   ],
   "submitted_time": "2017-12-22 22:59:00", "user": "u3"},
  {"status": "Pass", "vc": "v\/4", "jobid": "escapes",
   "attempts": [{"start_time": "2017-11-05 00:30:00", "end_time": "2017-11-05 03:00:00",
                 "detail": [{"ip": "m2", "gpus": ["gpu1"]}]}],
   "submitted_time": "2017-11-05 00:00:00", "user": "a\\b\"c\u00e9 \u00fc ü"},
  {"status": "Failed", "vc": "vc1", "jobid": "empty_detail",
   "attempts": [{"start_time": "2017-11-02 00:00:00", "end_time": "2017-11-02 00:01:00", "detail": []}],
   "submitted_time": "2017-11-02 00:00:00", "user": "u1"},
  {"status": "Killed", "vc": "vc1", "jobid": "new_year", "attempts": [],
   "submitted_time": "2016-12-31 20:00:00", "user": "u1"}
]
\.
RESET acmetrace.cluster;
SELECT job_id, state, user_id, vc, submit_time, start_time, end_time, gpu_num, node_num,
       duration, queue, gpu_time
  FROM acmetrace.jobs WHERE cluster = 'crafted' ORDER BY job_id COLLATE "C";
-- The same, each value against its hand-computed expectation (times in
-- PDT, UTC-7, until 2017-11-05 02:00, then PST, UTC-8).
SELECT job_id,
       CASE job_id
         WHEN 'no_attempts' THEN state = 'CANCELLED' AND submit_time = '2017-11-01 17:00:00+00'
              AND start_time IS NULL AND end_time IS NULL AND gpu_num IS NULL AND node_num IS NULL
              AND duration IS NULL AND queue IS NULL AND gpu_time IS NULL
         WHEN 'no_attempts_key' THEN state = 'FAILED' AND submit_time = '2017-11-01 17:00:05+00'
              AND start_time IS NULL AND end_time IS NULL AND gpu_num IS NULL AND node_num IS NULL
         -- first attempt has no start: NULL, not the second's; last attempt's 2 GPUs
         WHEN 'missing_start' THEN state = 'COMPLETED' AND start_time IS NULL
              AND end_time = '2017-11-01 19:00:00+00' AND gpu_num = 2 AND node_num = 1
              AND duration IS NULL AND queue IS NULL AND gpu_time IS NULL
         WHEN 'none_times' THEN start_time IS NULL AND end_time IS NULL AND gpu_num = 1 AND node_num = 1
         -- still running: no end; 4 + 4 GPUs on two servers in the last attempt
         WHEN 'running' THEN state = 'CANCELLED' AND submit_time = '2017-12-23 06:59:00+00'
              AND start_time = '2017-12-23 07:00:00+00' AND end_time IS NULL
              AND gpu_num = 8 AND node_num = 2 AND queue = 60 AND duration IS NULL AND gpu_time IS NULL
         -- 00:30 PDT to 03:00 PST is 3.5 hours, not 2.5
         WHEN 'escapes' THEN user_id = E'a\\b"c\u00e9 \u00fc \u00fc' AND vc = 'v/4'
              AND submit_time = '2017-11-05 07:00:00+00' AND start_time = '2017-11-05 07:30:00+00'
              AND end_time = '2017-11-05 11:00:00+00'
              AND queue = 1800 AND duration = 12600 AND gpu_num = 1 AND gpu_time = 12600
         WHEN 'empty_detail' THEN state = 'FAILED' AND duration = 60 AND queue = 0
              AND gpu_num IS NULL AND node_num IS NULL AND gpu_time IS NULL
         WHEN 'new_year' THEN submit_time = '2017-01-01 04:00:00+00'
       END AS as_expected
  FROM acmetrace.jobs WHERE cluster = 'crafted' ORDER BY job_id COLLATE "C";
SELECT length(user_id) AS chars, octet_length(user_id) AS bytes FROM acmetrace.jobs WHERE job_id = 'escapes';
-- Distinct GPUs: m1 gpu0-3, m2 gpu0-1, m3 gpu0-3, m4 gpu4-7.
SELECT gpu_capacity, gpu_capacity = 4 + 2 + 4 + 4 AS capacity FROM acmetrace.clusters WHERE cluster = 'crafted';
SELECT * FROM acmetrace.trace_comparison() WHERE cluster = 'crafted';
SELECT (SELECT count(*) FROM (SELECT * FROM acmetrace.trace_comparison() EXCEPT SELECT * FROM comparison_plain) d) AS only_in_function,
       (SELECT count(*) FROM (SELECT * FROM comparison_plain EXCEPT SELECT * FROM acmetrace.trace_comparison()) d) AS only_in_plain;

-- Appending a second file counts the GPUs of both: one new GPU (m5 gpu0)
-- and one already seen (m1 gpu0).
SET acmetrace.cluster = 'crafted';
INSERT INTO acmetrace.philly_job_log (line) VALUES
  ('[{"status": "Pass", "jobid": "appended", "submitted_time": "2017-11-03 00:00:00",'),
  (' "attempts": [{"start_time": "2017-11-03 00:00:10", "end_time": "2017-11-03 00:00:20",'),
  ('   "detail": [{"ip": "m5", "gpus": ["gpu0"]}, {"ip": "m1", "gpus": ["gpu0"]}]}]}]');
RESET acmetrace.cluster;
SELECT gpu_capacity FROM acmetrace.clusters WHERE cluster = 'crafted';
SELECT gpu_num, node_num, duration, queue FROM acmetrace.jobs WHERE cluster = 'crafted' AND job_id = 'appended';

-- Bad input: an error with its SQLSTATE, and nothing changes.
CREATE TEMP VIEW fingerprint AS
SELECT (SELECT md5(string_agg(j::text, '|' ORDER BY j.cluster COLLATE "C", j.job_id COLLATE "C")) FROM acmetrace.jobs j)
    || (SELECT md5(string_agg(c::text, '|' ORDER BY c.cluster COLLATE "C")) FROM acmetrace.clusters c)
    || (SELECT md5(string_agg(g::text, '|' ORDER BY g.cluster COLLATE "C", g.ip COLLATE "C", g.gpu COLLATE "C")) FROM acmetrace.philly_gpus g)
    || (SELECT count(*) FROM acmetrace.philly_job_log)::text AS fp;
SELECT fp AS before FROM fingerprint \gset
SET acmetrace.cluster = 'bad';
-- (psql's \copy does not set LAST_ERROR_SQLSTATE: the crafted files are
-- INSERTed line by line, which runs the same trigger.)
-- An unknown status (the other job of the file is not loaded either).
INSERT INTO acmetrace.philly_job_log (line) VALUES
  ('[{"status": "Pass", "jobid": "fine", "submitted_time": "2017-11-01 10:00:00", "attempts": []},'),
  (' {"status": "Running", "jobid": "j_running", "submitted_time": "2017-11-01 10:00:00", "attempts": []}]');
\echo :LAST_ERROR_SQLSTATE
-- No status at all.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"jobid": "j_nostatus", "attempts": []}]');
\echo :LAST_ERROR_SQLSTATE
-- No jobid.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "attempts": []}]');
\echo :LAST_ERROR_SQLSTATE
-- Malformed JSON: a missing comma on line 3; the error names the line.
\set SHOW_CONTEXT errors
INSERT INTO acmetrace.philly_job_log (line) VALUES
  ('['),
  (' {"status": "Pass", "jobid": "a1", "attempts": []},'),
  (' {"status": "Pass" "jobid": "a2", "attempts": []}'),
  (']');
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT never
-- A truncated file.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1", "attempts": ['), ('  {"start_time": "2017-11-01 10:00:00"');
\echo :LAST_ERROR_SQLSTATE
-- An empty file.
INSERT INTO acmetrace.philly_job_log (line) SELECT 'x' WHERE false;
\echo :LAST_ERROR_SQLSTATE
-- Valid JSON of the wrong shape.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('{"status": "Pass", "jobid": "a1"}');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1"}, 42]');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1", "attempts": {"start_time": null}}]');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1", "attempts": [{"detail": [{"ip": "m1", "gpus": "gpu0"}]}]}]');
\echo :LAST_ERROR_SQLSTATE
-- A time in another format.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1", "submitted_time": "10/07/2017 01:11:39"}]');
\echo :LAST_ERROR_SQLSTATE
-- The same job twice in one file.
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1"},'), ('{"status": "Failed", "jobid": "a1"}]');
\echo :LAST_ERROR_SQLSTATE
RESET acmetrace.cluster;
-- Appending to philly in another zone.
SET acmetrace.time_zone = 'UTC';
INSERT INTO acmetrace.philly_job_log (line) VALUES ('[{"status": "Pass", "jobid": "a1"}]');
\echo :LAST_ERROR_SQLSTATE
RESET acmetrace.time_zone;
-- The file through \copy: each error once with its message and hint, once
-- with its SQLSTATE only.
-- The sample loaded again: rejected with the drop_cluster hint.
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY sqlstate
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY default
-- A cluster name that is not an identifier; a Philly file into a Helios cluster.
-- (the setting refuses the name, and keeps its value)
SET acmetrace.cluster = 'Philly';
\set VERBOSITY sqlstate
SET acmetrace.cluster = 'Philly';
\set VERBOSITY default
SHOW acmetrace.cluster;
SET acmetrace.cluster = 'helios';
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY sqlstate
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY default
RESET acmetrace.cluster;
-- Forgetting "(line)": COPY wants the line_no column too.
\copy acmetrace.philly_job_log FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY sqlstate
\copy acmetrace.philly_job_log FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
\set VERBOSITY default
SELECT fp = :'before' AS unchanged FROM fingerprint;
SELECT count(*) AS bad_cluster FROM acmetrace.clusters WHERE cluster = 'bad';

-- The zone can be chosen, as for Helios: the same digits read as UTC.
SET acmetrace.cluster = 'philly_utc';
SET acmetrace.time_zone = 'UTC';
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
RESET acmetrace.cluster;
RESET acmetrace.time_zone;
SELECT cluster, time_zone, submit_time, submit_time = '2017-10-07 01:11:39+00' AS read_as_utc
  FROM acmetrace.jobs JOIN acmetrace.clusters USING (cluster)
 WHERE cluster LIKE 'philly%' ORDER BY cluster;

-- drop_cluster removes the jobs, the registration and the GPU list.
SELECT acmetrace.drop_cluster('crafted');
SELECT count(*) AS gpus_left FROM acmetrace.philly_gpus WHERE cluster = 'crafted';
SELECT cluster, count(*) FROM acmetrace.philly_gpus GROUP BY cluster ORDER BY cluster;

DROP VIEW fingerprint;
DROP VIEW comparison_plain;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
