-- Every bad file gives an ERROR naming the line or the job id, and leaves
-- acmetrace.jobs and acmetrace.clusters exactly as they were.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)

-- A fingerprint of everything loaded, compared after each bad load.
CREATE TEMP VIEW fingerprint AS
SELECT (SELECT md5(string_agg(j::text, '|' ORDER BY j.cluster COLLATE "C", j.job_id COLLATE "C")) FROM acmetrace.jobs j)
    || (SELECT md5(string_agg(c::text, '|' ORDER BY c.cluster COLLATE "C")) FROM acmetrace.clusters c)
    || (SELECT count(*) FROM acmetrace.trace_seren)::text
    || (SELECT count(*) FROM acmetrace.trace_kalos)::text AS fp;
SELECT fp AS before FROM fingerprint \gset
SELECT count(*) AS jobs_before FROM acmetrace.jobs;

-- The same file twice: rejected by the (cluster, job_id) key, with a hint.
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- The same job twice in one file (new cluster: nothing half-registered).
SET acmetrace.cluster = 'dup';
\copy acmetrace.trace_seren FROM 'bad/seren_duplicate_job.csv' (FORMAT csv, HEADER match)
RESET acmetrace.cluster;
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- A wrong file for the table: Kalos into the Seren table, and back.
\copy acmetrace.trace_seren FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- A Seren-format file into a cluster that holds Kalos jobs.
SET acmetrace.cluster = 'kalos';
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
RESET acmetrace.cluster;
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- Wrong header, same column count.
SET acmetrace.cluster = 'bad';
\copy acmetrace.trace_seren FROM 'bad/seren_wrong_header.csv' (FORMAT csv, HEADER match)
-- Malformed CSV: a quote that never closes.
\copy acmetrace.trace_seren FROM 'bad/seren_unterminated_quote.csv' (FORMAT csv, HEADER match)
-- A truncated last line.
\copy acmetrace.trace_seren FROM 'bad/seren_truncated.csv' (FORMAT csv, HEADER match)
-- An extra cell.
\copy acmetrace.trace_seren FROM 'bad/seren_extra_column.csv' (FORMAT csv, HEADER match)
-- A non-number, an impossible date, an empty required field.
\copy acmetrace.trace_seren FROM 'bad/seren_bad_number.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_seren FROM 'bad/seren_bad_timestamp.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_seren FROM 'bad/seren_missing_state.csv' (FORMAT csv, HEADER match)
RESET acmetrace.cluster;
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- Cluster names must be lower case identifiers; the hint suggests one.
-- The settings are checked when set, and a refused value leaves the
-- setting as it was.
SET acmetrace.cluster = 'Seren';
SET acmetrace.cluster = 'seren 2';
SHOW acmetrace.cluster;
-- An unknown time zone for naive Helios timestamps.
SET acmetrace.time_zone = 'Mars/Olympus';
SHOW acmetrace.time_zone;
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- A failed load inside a transaction: the transaction is aborted, and after
-- ROLLBACK nothing of it remains.
BEGIN;
SET LOCAL acmetrace.cluster = 'txn';
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
ROLLBACK;
SELECT fp = :'before' AS unchanged FROM fingerprint;
SELECT count(*) AS jobs_after FROM acmetrace.jobs;

DROP VIEW fingerprint;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
