-- The setup demo: load the bundled AcmeTrace and Helios samples exactly as
-- the real files are loaded, then print a first analysis.
\set ON_ERROR_STOP on
\pset footer off
CREATE EXTENSION IF NOT EXISTS acmetrace;
\cd test/fixtures
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
-- and 100,000 synthetic jobs with Seren's published marginals, 20,000 with Kalos's
SELECT acmetrace.load_generated('synth', 'seren', 100000, 42) AS "synthetic jobs loaded";
SELECT acmetrace.load_generated('synth_kalos', 'kalos', 20000, 7) AS "synthetic Kalos jobs loaded";
\echo
\echo 'Final state of GPU jobs per cluster, by job count and by GPU time:'
SELECT cluster, final_state, gpu_jobs,
       round(100 * job_share::numeric, 1)      AS "% jobs",
       gpu_time                                AS "GPU time (s)",
       round(100 * gpu_time_share::numeric, 1) AS "% GPU time"
  FROM acmetrace.state_breakdown();
\echo 'Where the published rows disagree with their own timestamps:'
SELECT cluster, anomaly, jobs, example_job_ids
  FROM acmetrace.audit() WHERE jobs > 0;
\echo 'Queueing delay of Eval and Pretrain GPU jobs by cluster occupancy when they arrived (synth):'
SELECT type, bin, gpus_from::int AS "GPUs from", gpus_to::int AS "GPUs to", jobs,
       round(mean_queue_s::numeric) AS "mean queue (s)", round(median_queue_s::numeric, 1) AS "median (s)", round(p90_queue_s::numeric, 1) AS "p90 (s)"
  FROM acmetrace.queue_by_occupancy('synth', 5)
 WHERE type IN ('Eval', 'Pretrain');
\echo 'Queueing delay percentiles per job type (synth), each within 0.5% of the exact value:'
SELECT type, jobs, p50_s AS "p50 (s)", p90_s AS "p90 (s)", p99_s AS "p99 (s)",
       round(mean_s::numeric, 1) AS "mean (s)", max_s AS "max (s)"
  FROM acmetrace.queue_delay_summary
 WHERE cluster = 'synth' ORDER BY type;
