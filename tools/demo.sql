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
SELECT cluster, final_state, jobs, job_pct AS "% jobs", gpu_h AS "GPU-hours", gpu_h_pct AS "% GPU time"
  FROM acmetrace.state_breakdown();
\echo 'Where the published rows disagree with their own timestamps:'
SELECT cluster, anomaly, jobs, example_job_ids
  FROM acmetrace.audit() WHERE jobs > 0;
\echo 'Queueing delay of Eval and Pretrain GPU jobs by cluster occupancy when they arrived (synth):'
SELECT type, bin, gpus_from AS "GPUs from", gpus_to AS "GPUs to", jobs,
       mean_queue_s AS "mean queue (s)", median_queue_s AS "median (s)", p90_queue_s AS "p90 (s)"
  FROM acmetrace.queue_by_occupancy('synth', 5)
 WHERE type IN ('Eval', 'Pretrain');
\echo 'Queueing delay of GPU jobs (start - submit), all types and per type (synth), within 0.5% of the exact value:'
SELECT type, jobs, p50_s AS "p50 (s)", p90_s AS "p90 (s)", p99_s AS "p99 (s)",
       mean_s AS "mean (s)", max_s AS "max (s)"
  FROM acmetrace.v_queue_percentiles v
 WHERE cluster = 'synth' ORDER BY v.type = 'all' DESC, v.type;
