-- What-if replay of a loaded trace through the scheduler core (src/core/replay.c).

CREATE FUNCTION acmetrace.replay(cluster text, policy text DEFAULT 'fifo', capacity integer DEFAULT NULL,
                                 backfill boolean DEFAULT false, predictions regclass DEFAULT NULL)
RETURNS TABLE (job_id text, type text, gpu_num integer, submit_time timestamptz,
               recorded_start timestamptz, recorded_queue_s bigint,
               start_time timestamptz, end_time timestamptz, queue_s bigint)
AS 'MODULE_PATHNAME', 'acmetrace_replay'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION acmetrace.replay(text, text, integer, boolean, regclass) IS
  'The GPU jobs of a loaded cluster run again through the scheduler at their recorded submit times and run times, under policy fifo, priority (by job type) or sjf (shortest first: predicted_s of the predictions table, else the recorded run time) on capacity GPUs (default: the cluster''s), with or without EASY backfill: every job with its recorded and its replayed start.';

CREATE FUNCTION acmetrace.replay_summary(cluster text, policy text DEFAULT 'fifo', capacity integer DEFAULT NULL,
                                         backfill boolean DEFAULT false, predictions regclass DEFAULT NULL)
RETURNS TABLE (type text, jobs bigint, started bigint,
               recorded_mean_queue_s numeric, mean_queue_s numeric,
               recorded_median_queue_s numeric, median_queue_s numeric,
               recorded_p90_queue_s numeric, p90_queue_s numeric,
               recorded_mean_jct_s numeric, mean_jct_s numeric,
               recorded_peak_gpus bigint, peak_gpus bigint,
               recorded_mean_gpus numeric, mean_gpus numeric)
AS 'MODULE_PATHNAME', 'acmetrace_replay_summary'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION acmetrace.replay_summary(text, text, integer, boolean, regclass) IS
  'acmetrace.replay summarized for all GPU jobs (type ''all'', the first row) and per job type (NULL: jobs without one): queueing delay (mean, median, p90) and mean job completion time (queue + run), peak and mean GPUs held, recorded beside replayed; computed in C over the replay''s arrays.';
