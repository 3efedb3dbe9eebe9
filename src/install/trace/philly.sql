-- Loading Philly's cluster_job_log (Microsoft, ATC 2019): one JSON array.
--
--   \copy acmetrace.philly_job_log (line) FROM 'cluster_job_log' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
--
-- COPY reads lines, so the file arrives one physical line per row.  Quote
-- \x01 and delimiter \x02 are control bytes that JSON text never contains
-- (inside strings they must be escaped, between tokens only blanks are
-- allowed), and CSV mode has no backslash escapes, so every line arrives
-- verbatim: "\\", "\"" and "\u00e9" reach the JSON parser untouched.  The
-- statement trigger joins the lines in file order (line_no, numbered as COPY
-- reads them), parses the text once as json and maps every job into
-- acmetrace.jobs, all in the COPY's transaction: all or nothing.
--
-- Limits: the joined text is one text value, so the file must be under 1 GB
-- (it is parsed as json: jsonb would cap it near 256 MB); memory use is a
-- few times the file size.  The published cluster_job_log (117,325 jobs)
-- is far below that.

CREATE UNLOGGED TABLE acmetrace.philly_job_log (
    line    text,
    -- COPY evaluates the default row by row as it reads: file order.
    line_no bigint GENERATED ALWAYS AS IDENTITY
);
COMMENT ON TABLE acmetrace.philly_job_log IS
  E'COPY target for Philly cluster_job_log, one physical line per row, loaded with \\copy acmetrace.philly_job_log (line) FROM ''cluster_job_log'' (FORMAT csv, QUOTE E''\\x01'', DELIMITER E''\\x02'') (always empty: jobs move to acmetrace.jobs).';
COMMENT ON COLUMN acmetrace.philly_job_log.line IS 'One line of the file, verbatim.';
COMMENT ON COLUMN acmetrace.philly_job_log.line_no IS 'Increasing in file order; the lines are joined in this order.';

-- Philly publishes no GPU count; the GPUs its jobs ran on are the best
-- measure of the cluster.  A table rather than a count, so that appending a
-- second file counts the union, and drop_cluster clears it (cascade).
CREATE TABLE acmetrace.philly_gpus (
    cluster text NOT NULL REFERENCES acmetrace.clusters ON DELETE CASCADE,
    ip      text NOT NULL,
    gpu     text NOT NULL,
    PRIMARY KEY (cluster, ip, gpu)
);
COMMENT ON TABLE acmetrace.philly_gpus IS
  'Every (server ip, gpu) pair seen in any attempt of a loaded Philly job log; acmetrace.clusters.gpu_capacity of a Philly cluster is their count.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.philly_gpus', '');
