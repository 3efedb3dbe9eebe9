-- Test-only objects for concurrency_pgbench.sh, in the schema cbench (not
-- part of the extension).  psql variables: none.
CREATE SCHEMA cbench;

-- The generated files: file k loads as cluster g<k>, always.
CREATE TABLE cbench.files (
    k       integer PRIMARY KEY,
    cluster text NOT NULL UNIQUE,
    fmt     text NOT NULL CHECK (fmt IN ('seren', 'kalos')),
    path    text NOT NULL,
    jobs    integer NOT NULL
);

-- One row per load attempt that did not abort its transaction: 'loaded'
-- (written in the loading transaction, so it exists iff the load committed)
-- or 'duplicate' (the extension's duplicate-load error, caught).
CREATE TABLE cbench.attempts (
    id       bigserial PRIMARY KEY,
    k        integer NOT NULL REFERENCES cbench.files,
    outcome  text NOT NULL CHECK (outcome IN ('loaded', 'duplicate')),
    client   integer,
    pid      integer NOT NULL DEFAULT pg_backend_pid(),
    at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    sqlstate text,
    message  text,
    hint     text
);

-- What the analysts saw, one row per observation (one snapshot each).
CREATE TABLE cbench.observations (
    at            timestamptz NOT NULL DEFAULT statement_timestamp(),  -- ~ when the snapshot was taken
    clusters      integer NOT NULL,   -- clusters registered
    job_clusters  integer NOT NULL,   -- clusters with jobs
    partial       integer NOT NULL,   -- clusters whose job count differs from their file's
    sketch_off    integer NOT NULL,   -- clusters where queue_percentiles counts differ from SQL
    staged        bigint  NOT NULL    -- rows visible in the staging tables
);

-- One load attempt of file k.  Catches only the extension's duplicate-load
-- error (23505 with the "already holds N of the N jobs" message for this
-- cluster and this file's size); anything else propagates.
CREATE FUNCTION cbench.load(k integer, client integer DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    f     cbench.files;
    st    text;
    msg   text;
    hnt   text;
BEGIN
    SELECT * INTO STRICT f FROM cbench.files WHERE files.k = load.k;
    PERFORM set_config('acmetrace.cluster', f.cluster, true);
    BEGIN
        EXECUTE format('COPY acmetrace.%I FROM %L (FORMAT csv, HEADER match)', 'trace_' || f.fmt, f.path);
        INSERT INTO cbench.attempts (k, outcome, client) VALUES (f.k, 'loaded', client);
        RETURN 'loaded';
    EXCEPTION WHEN unique_violation THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hnt = PG_EXCEPTION_HINT;
        IF msg !~ ('^cluster "' || f.cluster || '" already holds ' || f.jobs || ' of the ' || f.jobs ||
                   ' jobs in this file \(first: job id "[^"]+"\); nothing was loaded$') THEN
            RAISE;   -- not the duplicate-load error: re-raise it unchanged
        END IF;
    END;
    INSERT INTO cbench.attempts (k, outcome, client, sqlstate, message, hint)
    VALUES (f.k, 'duplicate', client, st, msg, hnt);
    RETURN 'duplicate';
END
$$;
