-- acmetrace.job_utilization: how busy each job's GPUs were.
--
-- A job's GPUs are found three ways, the first that names the job winning:
-- 'label' the series whose samples carried its job label
-- (acmetrace.utilization_jobs), read within the label's span and the job's
-- [start_time, end_time], both ends included; 'placement' the series of its
-- acmetrace.job_gpus row, read within [start_time, end_time); 'nodes' the
-- <host>-gpu<N> series of the hosts of its Slurm NodeList, when the job held
-- all of them (gpu_num equals their count), read as placement.  A job with
-- no end_time (running) is read up to its last sample; placement and nodes
-- need a start_time, label bounds a missing one by the label alone.
--
-- Blocks are found by their primary key (metric, cluster, day, series), one
-- lookup per series and UTC day the window touches (within the days the
-- cluster's blocks cover), and only the window is decoded (samples_between).

-- The windows of every matched job: (cluster, job_id, matched_by, series,
-- from_ts, to_ts), to_ts excluded.
CREATE FUNCTION acmetrace_internal.job_utilization_windows(cluster text, metric text)
RETURNS TABLE (out_cluster text, job_id text, type text, gpu_num integer, matched_by text, series text,
               from_ts timestamptz, to_ts timestamptz)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
WITH cl AS (
    SELECT c.cluster FROM acmetrace.clusters c
     WHERE job_utilization_windows.cluster IS NULL OR c.cluster = job_utilization_windows.cluster
),
label AS (
    SELECT j.cluster, j.job_id, j.type, j.gpu_num, u.series,
           greatest(u.first_ts, j.start_time) AS from_ts,
           least(u.last_ts, j.end_time) + interval '1 microsecond' AS to_ts
      FROM cl
      JOIN acmetrace.utilization_jobs u ON u.metric = upper(job_utilization_windows.metric) AND u.cluster = cl.cluster
      JOIN acmetrace.jobs j ON j.cluster = u.cluster AND j.job_id = u.job_id
     WHERE j.gpu_num > 0
),
labelled AS (SELECT DISTINCT l.cluster, l.job_id FROM label l),
placement AS (
    SELECT j.cluster, j.job_id, j.type, j.gpu_num, s.series, j.start_time AS from_ts,
           coalesce(j.end_time, 'infinity') AS to_ts
      FROM cl
      JOIN acmetrace.job_gpus g ON g.cluster = cl.cluster
      JOIN acmetrace.jobs j ON j.cluster = g.cluster AND j.job_id = g.job_id
     CROSS JOIN LATERAL (SELECT DISTINCT x AS series FROM unnest(g.series) x) s
     WHERE j.gpu_num > 0 AND j.start_time IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM labelled l WHERE l.cluster = j.cluster AND l.job_id = j.job_id)
),
-- Slurm jobs named by neither: the hosts of their NodeList
node_hosts AS (
    SELECT j.cluster, j.job_id, j.type, j.gpu_num, j.start_time, j.end_time, h.host
      FROM cl
      JOIN acmetrace.slurm_jobs s ON s.cluster = cl.cluster
      JOIN acmetrace.jobs j ON j.cluster = s.cluster AND j.job_id = s.job_id
     CROSS JOIN LATERAL (SELECT DISTINCT x AS host FROM unnest(acmetrace_internal.hostlist_expand(s.nodelist)) x) h
     WHERE s.nodelist IS NOT NULL AND j.gpu_num > 0 AND j.start_time IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM labelled l WHERE l.cluster = j.cluster AND l.job_id = j.job_id)
       AND NOT EXISTS (SELECT 1 FROM acmetrace.job_gpus g WHERE g.cluster = j.cluster AND g.job_id = j.job_id)
),
-- every <host>-gpu<N> series of the metric stored for those hosts
host_series AS (
    SELECT DISTINCT b.cluster, b.series, substring(b.series FROM '^(.*)-gpu[0-9]+$') AS host
      FROM acmetrace.utilization_blocks b
     WHERE b.metric = upper(job_utilization_windows.metric)
       AND b.cluster IN (SELECT n.cluster FROM node_hosts n)
       AND b.series ~ '-gpu[0-9]+$'
),
nodes AS (
    SELECT n.cluster, n.job_id, n.type, n.gpu_num, n.series, n.from_ts, n.to_ts
      FROM (SELECT h.cluster, h.job_id, h.type, h.gpu_num, s.series, h.start_time AS from_ts,
                   coalesce(h.end_time, 'infinity') AS to_ts,
                   count(*) OVER (PARTITION BY h.cluster, h.job_id) AS held
              FROM node_hosts h JOIN host_series s ON s.cluster = h.cluster AND s.host = h.host) n
     WHERE n.held = n.gpu_num
)
SELECT l.cluster, l.job_id, l.type, l.gpu_num, 'label', l.series, l.from_ts, l.to_ts FROM label l
UNION ALL
SELECT p.cluster, p.job_id, p.type, p.gpu_num, 'placement', p.series, p.from_ts, p.to_ts FROM placement p
UNION ALL
SELECT n.cluster, n.job_id, n.type, n.gpu_num, 'nodes', n.series, n.from_ts, n.to_ts FROM nodes n;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.job_utilization_windows(text, text) IS
  'The series and time window [from_ts, to_ts) of every GPU job acmetrace.job_utilization can read, and how its series were found (label, placement, nodes: the first that names the job).';

-- mean: the numeric sum of the values (each float8 cast to numeric) over
-- their count, rounded once to float8, as util_histogram's averages.
CREATE FUNCTION acmetrace_internal.job_utilization_scan(cluster text, metric text, idle_at_most double precision)
RETURNS TABLE (out_cluster text, job_id text, type text, gpu_num integer, matched_by text, series integer,
               samples bigint, mean double precision, median double precision, idle_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
    day_row   record;
    d_cluster text[] := '{}';
    d_first   date[] := '{}';
    d_last    date[] := '{}';
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(job_utilization_scan.cluster, job_utilization_scan.metric);
    IF job_utilization_scan.idle_at_most = 'NaN' THEN
        PERFORM acmetrace_internal.raise('22023', 'idle_at_most must be a number, not NaN',
                                         'A sample at or below idle_at_most counts as idle; the default is 1.');
    END IF;
    -- the first and last day of each cluster's blocks of the metric: two
    -- index probes a cluster, here rather than correlated subqueries, which
    -- Citus cannot run over blocks spread by series
    FOR day_row IN SELECT c.cluster FROM acmetrace.clusters c
              WHERE job_utilization_scan.cluster IS NULL OR c.cluster = job_utilization_scan.cluster
              ORDER BY c.cluster COLLATE "C" LOOP
        d_cluster := d_cluster || day_row.cluster;
        d_first := d_first || (SELECT min(b.day) FROM acmetrace.utilization_blocks b
                                WHERE b.metric = upper(job_utilization_scan.metric) AND b.cluster = day_row.cluster);
        d_last := d_last || (SELECT max(b.day) FROM acmetrace.utilization_blocks b
                              WHERE b.metric = upper(job_utilization_scan.metric) AND b.cluster = day_row.cluster);
    END LOOP;
    RETURN QUERY
WITH days AS MATERIALIZED (  -- the days each cluster's blocks of the metric cover (read above)
    SELECT d.cluster, d.first_day, d.last_day FROM unnest(d_cluster, d_first, d_last) AS d(cluster, first_day, last_day)
),
-- each window with every stored day it touches: a key of the blocks
win AS MATERIALIZED (
    SELECT w.*, d.first_day + k AS day
      FROM acmetrace_internal.job_utilization_windows(job_utilization_scan.cluster, job_utilization_scan.metric)
           AS w(cluster, job_id, type, gpu_num, matched_by, series, from_ts, to_ts)  -- its first column is out_cluster
      JOIN days d ON d.cluster = w.cluster
     CROSS JOIN LATERAL generate_series(greatest((w.from_ts AT TIME ZONE 'UTC')::date, d.first_day) - d.first_day,
                                        least(((w.to_ts - interval '1 microsecond') AT TIME ZONE 'UTC')::date,
                                              d.last_day) - d.first_day) k
     WHERE w.from_ts < w.to_ts
),
vals AS (
    SELECT w.cluster, w.job_id, w.type, w.gpu_num, w.matched_by, w.series, v.value
      FROM win w
      JOIN acmetrace.utilization_blocks b
        ON b.metric = upper(job_utilization_scan.metric) AND b.cluster = w.cluster AND b.day = w.day AND b.series = w.series
     CROSS JOIN LATERAL acmetrace.unnest(acmetrace.samples_between(b.samples, w.from_ts, w.to_ts)) v
     WHERE b.first_ts < w.to_ts AND b.last_ts >= w.from_ts
)
SELECT v.cluster, v.job_id, v.type, v.gpu_num, v.matched_by, count(DISTINCT v.series)::integer, count(*),
       (sum(v.value::numeric) / count(*))::double precision,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY v.value),
       CASE WHEN job_utilization_scan.idle_at_most IS NOT NULL
            THEN acmetrace_internal.pct(count(*) FILTER (WHERE v.value <= job_utilization_scan.idle_at_most), count(*)) END
  FROM vals v
 GROUP BY v.cluster, v.job_id, v.type, v.gpu_num, v.matched_by
 ORDER BY v.cluster COLLATE "C", v.job_id COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.job_utilization_scan(text, text, double precision) IS
  'The body of acmetrace.job_utilization (PL/pgSQL, so that Citus can plan its query on distributed blocks).';

CREATE FUNCTION acmetrace.job_utilization(cluster text, metric text DEFAULT 'GPU_UTIL',
                                          idle_at_most double precision DEFAULT 1)
RETURNS TABLE (cluster text, job_id text, type text, gpu_num integer, matched_by text, series integer,
               samples bigint, mean double precision, median double precision, idle_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.job_utilization_scan($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.job_utilization(text, text, double precision) IS
  'How busy each GPU job''s GPUs were: per job with samples of metric (default GPU_UTIL, any case) in its window, the series read, samples, exact mean, median and percent of samples at or below idle_at_most (default 1; 2 decimals). GPUs found by job label (acmetrace.utilization_jobs), else acmetrace.job_gpus, else the Slurm NodeList when the job held every GPU of its nodes (matched_by).';

CREATE VIEW acmetrace.v_job_utilization WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.job_utilization(NULL, 'GPU_UTIL', 1);
COMMENT ON VIEW acmetrace.v_job_utilization IS
  'GPU_UTIL of every GPU job with samples, per job: mean, median and idle share (acmetrace.job_utilization).';
COMMENT ON COLUMN acmetrace.v_job_utilization.job_id IS 'Job id (acmetrace.jobs.job_id)';
COMMENT ON COLUMN acmetrace.v_job_utilization.type IS 'Job type (acmetrace.jobs.type)';
COMMENT ON COLUMN acmetrace.v_job_utilization.gpu_num IS 'GPUs the job held (acmetrace.jobs.gpu_num)';
COMMENT ON COLUMN acmetrace.v_job_utilization.matched_by IS 'How its GPUs were found: label (the samples'' job label), placement (acmetrace.job_gpus) or nodes (its Slurm NodeList)';
COMMENT ON COLUMN acmetrace.v_job_utilization.series IS 'GPUs (utilization series) with samples in the job''s window';
COMMENT ON COLUMN acmetrace.v_job_utilization.samples IS 'GPU_UTIL samples in the job''s window, all its GPUs';
COMMENT ON COLUMN acmetrace.v_job_utilization.mean IS 'Mean GPU_UTIL of those samples (exact numeric sum over the count, rounded once to float8)';
COMMENT ON COLUMN acmetrace.v_job_utilization.median IS 'Median GPU_UTIL of those samples (percentile_cont(0.5))';
COMMENT ON COLUMN acmetrace.v_job_utilization.idle_pct IS 'Percent of those samples at or below 1 (2 decimals)';
