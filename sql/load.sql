-- The published job-trace files load unmodified with the documented \copy
-- lines, into one normalized relation, and read back equal to the files.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)

-- Staging tables are left empty.
SELECT (SELECT count(*) FROM acmetrace.trace_seren) AS seren_staged,
       (SELECT count(*) FROM acmetrace.trace_kalos) AS kalos_staged,
       (SELECT count(*) FROM acmetrace.helios_cluster_log) AS helios_staged;

SELECT * FROM acmetrace.clusters ORDER BY cluster COLLATE "C";

-- Published columns untouched (numeric keeps "10.0"), both offsets read.
SELECT cluster, job_id, user_id, type, state, final_state, node_num, gpu_num, cpu_num,
       submit_time, start_time, end_time, duration, queue, gpu_time
  FROM acmetrace.jobs ORDER BY cluster COLLATE "C", submit_time;

-- Derived from the timestamps; Kalos published duration is end - submit.
SELECT cluster, job_id, duration, run_s, queue, wait_s, gpu_time, gpu_s
  FROM acmetrace.jobs ORDER BY cluster COLLATE "C", submit_time;

-- Kalos-only and Helios-only columns.
SELECT cluster, job_id, vc, mem_per_pod_gb, shared_mem_per_pod, fail_time, stop_time
  FROM acmetrace.jobs WHERE cluster IN ('kalos', 'helios')
 ORDER BY cluster COLLATE "C", submit_time;

-- Seren "+08:00": 00:18:22 local is 16:18:22 UTC the day before.
SELECT submit_time = '2023-02-28 16:18:22+00' AS seren_offset_applied
  FROM acmetrace.jobs WHERE cluster = 'seren' AND job_id = '5778432';

-- Read back in the published format: identical to the fixture files.
\copy (SELECT * FROM acmetrace.trace_seren_csv('seren')) TO STDOUT (FORMAT csv, HEADER)
\copy (SELECT * FROM acmetrace.trace_kalos_csv('kalos')) TO STDOUT (FORMAT csv, HEADER)
\copy (SELECT * FROM acmetrace.helios_cluster_log_csv('helios')) TO STDOUT (FORMAT csv, HEADER)
-- The export leaves the session's TimeZone alone.
SHOW TimeZone;

-- Several clusters side by side: the same format under another name.
SET acmetrace.cluster = 'seren_copy';
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
-- Helios naive timestamps read in a chosen zone.
SET acmetrace.cluster = 'venus';
SET acmetrace.time_zone = 'Asia/Shanghai';
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
RESET acmetrace.cluster;
RESET acmetrace.time_zone;
SELECT cluster, source_format, gpu_capacity, time_zone, (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = c.cluster) AS jobs
  FROM acmetrace.clusters c ORDER BY cluster COLLATE "C";
SELECT v.job_id, v.submit_time, h.submit_time - v.submit_time AS shift
  FROM acmetrace.jobs v JOIN acmetrace.jobs h ON h.job_id = v.job_id AND h.cluster = 'helios'
 WHERE v.cluster = 'venus' ORDER BY v.job_id;
-- ...and written back with the same wall-clock digits.
\copy (SELECT * FROM acmetrace.helios_cluster_log_csv('venus')) TO STDOUT (FORMAT csv, HEADER)

-- final_state counts TIMEOUT and NODE_FAIL as FAILED; a plain INSERT into
-- a staging table loads like COPY does.
SET acmetrace.cluster = 'states';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, state) VALUES
  ('1', 8, 'COMPLETED'), ('2', 8, 'CANCELLED'), ('3', 8, 'FAILED'),
  ('4', 8, 'TIMEOUT'), ('5', 8, 'NODE_FAIL'), ('6', 0, 'RUNNING');
RESET acmetrace.cluster;
SELECT job_id, state, final_state, run_s, wait_s, gpu_s
  FROM acmetrace.jobs WHERE cluster = 'states' ORDER BY job_id;

-- Appending a disjoint file to a loaded cluster is allowed (monthly files).
SET acmetrace.cluster = 'states';
INSERT INTO acmetrace.trace_seren (job_id, state) VALUES ('7', 'COMPLETED');
RESET acmetrace.cluster;
SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'states';

-- drop_cluster removes the jobs and the registration.
SELECT acmetrace.drop_cluster('states');
SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'states';
SELECT count(*) FROM acmetrace.clusters WHERE cluster = 'states';
SELECT acmetrace.drop_cluster('states');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.drop_cluster(NULL);

-- Export of an unknown cluster.
SELECT * FROM acmetrace.trace_seren_csv('nope');
\echo :LAST_ERROR_SQLSTATE

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
