-- test/e2e/citus.sh: the data, loaded the same way into the Citus coordinator
-- and into one server (psql variable fixtures: test/fixtures).
\cd :fixtures
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SELECT acmetrace.load_generated('synth', 'seren', 20000, 42);
SET acmetrace.metric = 'GPU_UTIL';
SET acmetrace.cluster = 'synth';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util('seren', 20000, 42, 'GPU_UTIL', '2023-03-01 00:00+00', 120);
RESET acmetrace.cluster; RESET acmetrace.metric;
INSERT INTO acmetrace.job_gpus SELECT 'synth', p.job_id, p.series FROM acmetrace.generate_placement('seren', 20000, 42) p WHERE p.start_time < '2023-03-01 02:00+00' AND p.end_time > '2023-03-01 00:00+00';
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
SET acmetrace.cluster = 'seren';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster; RESET acmetrace.metric;
\cd slurm
\copy acmetrace.sacct_jobs FROM 'sacct_running.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
\copy acmetrace.sacct_jobs FROM 'sacct_final.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
\copy acmetrace.sacct_jobs FROM 'sacct_final.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
\cd ..
SET acmetrace.cluster = 'philly';
SET acmetrace.metric = 'GPU_UTIL';
\copy acmetrace.utilization_lines FROM 'philly_cluster_gpu_util_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster; RESET acmetrace.metric;
-- the same files again change nothing; an overlapping, longer stretch of
-- samples merges into the stored blocks (the path of every append)
SET acmetrace.cluster = 'seren';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SET acmetrace.cluster = 'synth';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util('seren', 20000, 42, 'GPU_UTIL', '2023-03-01 00:00+00', 180);
RESET acmetrace.cluster; RESET acmetrace.metric;
-- GPU metrics as acmetrace-sync streams them from Prometheus (its
-- converter's lines): two windows, the second overlapping the first, with
-- the job labels dcgm-exporter carries
SET acmetrace.cluster = 'acmetest';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.prometheus_samples VALUES
  ('acme1-gpu0', '13', '1795710635000:50 1795710637000:70 1795710639000:90'),
  ('acme1-gpu1', '13', '1795710635000:10 1795710637000:0'),
  ('acme1-gpu0', '10', '1795710664000:99'),
  ('acme1-gpu2', NULL, '1795710600000:0 1795710660000:1'),
  ('!end', NULL, '3 8 2'),
  ('!end', NULL, '0 0 0');
INSERT INTO acmetrace.prometheus_samples VALUES
  ('acme1-gpu0', '10', '1795710664000:99 1795710665000:98'),
  ('acme1-gpu3', '10', '1795710664000:97 1795710665000:96'),
  ('!end', NULL, '2 4 1'),
  ('!end', NULL, '0 0 0');
RESET acmetrace.cluster; RESET acmetrace.metric;
