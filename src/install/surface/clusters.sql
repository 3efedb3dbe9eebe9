-- Functions over the cluster registry.

-- GPU capacity of the clusters DOMAIN.md documents (NULL for others).
CREATE FUNCTION acmetrace_internal.known_capacity(cluster text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
-- (a searched CASE: Citus deparses an inlined simple CASE wrongly)
AS $$ SELECT CASE WHEN cluster = 'seren' THEN 2288 WHEN cluster = 'kalos' THEN 2416 END $$;

CREATE FUNCTION acmetrace.drop_cluster(cluster text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    n bigint;
BEGIN
    -- a cluster of utilization samples only has no registration: it counts as loaded
    IF cluster IS NULL OR (NOT EXISTS (SELECT 1 FROM acmetrace.utilization_blocks b WHERE b.cluster = drop_cluster.cluster)
                           AND NOT EXISTS (SELECT 1 FROM acmetrace.utilization_jobs u WHERE u.cluster = drop_cluster.cluster)) THEN
        PERFORM acmetrace_internal.one_cluster(cluster, 'drop_cluster');
    END IF;
    PERFORM acmetrace_internal.changing(cluster);
    DELETE FROM acmetrace.jobs j WHERE j.cluster = drop_cluster.cluster;
    GET DIAGNOSTICS n = ROW_COUNT;
    DELETE FROM acmetrace.clusters c WHERE c.cluster = drop_cluster.cluster;
    DELETE FROM acmetrace.utilization_blocks b WHERE b.cluster = drop_cluster.cluster;
    DELETE FROM acmetrace.utilization_jobs u WHERE u.cluster = drop_cluster.cluster;
    -- on Citus no trigger runs on the coordinator: the summaries and the
    -- hour rollup go here (on one server the triggers took them already)
    IF acmetrace_internal.distributed() THEN
        DELETE FROM acmetrace.utilization_hours h WHERE h.cluster = drop_cluster.cluster;
        PERFORM acmetrace_internal.jobs_written(cluster);
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION acmetrace.drop_cluster(text) IS
  'Deletes a cluster: its jobs, its registration, its utilization samples and job label spans; returns the number of jobs deleted. Not loaded: 42704; NULL: 22004.';
