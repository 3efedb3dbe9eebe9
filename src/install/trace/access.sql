-- Teams kept apart: row-level security by cluster.  Every table keyed by
-- cluster lets a role that is not its owner (nor a superuser, nor BYPASSRLS)
-- read and write only the rows of the clusters granted to it, or to a role
-- whose privileges it has, in acmetrace.cluster_access.  The functions run
-- with the caller's rights and the views are security_invoker, so every
-- analysis, view, summary and the report see the same rows.  With no grant a
-- role sees no cluster.  The grants are user data: pg_dump dumps them.

CREATE TABLE acmetrace.cluster_access (
    cluster    text NOT NULL CHECK (cluster <> ''),
    grantee    name NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster, grantee)
);
COMMENT ON TABLE acmetrace.cluster_access IS
  'Which roles see which clusters (row-level security): a role sees a cluster''s rows in every acmetrace table when the cluster, or ''*'' (every cluster, present and future), is granted to it, to a role whose privileges it has, or to public. Written by acmetrace.grant_cluster and acmetrace.revoke_cluster (the tables'' owner only); each role reads only the grants that apply to it. Owners, superusers and BYPASSRLS roles see every cluster.';
COMMENT ON COLUMN acmetrace.cluster_access.cluster IS 'the cluster granted (it need not be loaded yet), or ''*'' for every cluster';
COMMENT ON COLUMN acmetrace.cluster_access.grantee IS 'the role it is granted to (by name: a renamed role loses its grants), or public';
COMMENT ON COLUMN acmetrace.cluster_access.granted_at IS 'when the grant was made';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.cluster_access', '');

-- Whether a grant to this role applies to the current role.  A dropped
-- role's grant applies to nobody (pg_has_role would fail on its name).
CREATE FUNCTION acmetrace_internal.grant_applies(grantee name)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT grantee = 'public'
    OR coalesce(pg_catalog.pg_has_role((SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = grantee), 'USAGE'), false)
$$;
COMMENT ON FUNCTION acmetrace_internal.grant_applies(name) IS
  'Row-level security of acmetrace.cluster_access: true when a grant to this role (or public) applies to the current role; a dropped role''s grants apply to nobody.';

-- The policies call one C function per row, which reads the grants once per
-- query (fn_extra): a subquery in a policy is refused by Citus.
CREATE FUNCTION acmetrace_internal.cluster_visible(cluster text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_cluster_visible'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.cluster_visible(text) IS
  'Row-level security of every table keyed by cluster: true when acmetrace.cluster_access grants the cluster (or ''*'') to the current role; reads the grants once per query.';

-- Every reader of any acmetrace table reads the grants (the policies do):
-- each role sees only those that apply to it.
ALTER TABLE acmetrace.cluster_access ENABLE ROW LEVEL SECURITY;
CREATE POLICY cluster_access ON acmetrace.cluster_access FOR SELECT
    USING (acmetrace_internal.grant_applies(grantee));
GRANT SELECT ON acmetrace.cluster_access TO PUBLIC;

-- The grants' policy is RESTRICTIVE, so that it holds whatever permissive
-- policy a user adds (a user narrows further with a restrictive one of his
-- own); every_row is the permissive policy a restrictive one needs.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['clusters', 'jobs', 'philly_gpus', 'slurm_jobs', 'failure_reasons',
                             'utilization_blocks', 'utilization_hours', 'utilization_jobs',
                             'summary_clusters', 'summary_jobs', 'summary_groups', 'summary_weeks',
                             'summary_values', 'summary_extents', 'summary_hours', 'summary_days',
                             'summary_usage', 'sync_runs', 'job_gpus'] LOOP
        EXECUTE format('ALTER TABLE acmetrace.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY every_row ON acmetrace.%I USING (true)', t);
        EXECUTE format('CREATE POLICY cluster_access ON acmetrace.%I AS RESTRICTIVE USING (acmetrace_internal.cluster_visible(cluster))', t);
    END LOOP;
END
$$;
-- Rules with cluster NULL apply to every cluster: everyone reads them, only
-- the owner writes them.
ALTER TABLE acmetrace.job_type_rules ENABLE ROW LEVEL SECURITY;
CREATE POLICY every_row ON acmetrace.job_type_rules USING (true);
CREATE POLICY cluster_access ON acmetrace.job_type_rules AS RESTRICTIVE
    USING (cluster IS NULL OR acmetrace_internal.cluster_visible(cluster))
    WITH CHECK (acmetrace_internal.cluster_visible(cluster));
CREATE POLICY every_cluster_update ON acmetrace.job_type_rules AS RESTRICTIVE FOR UPDATE
    USING (cluster IS NOT NULL);
CREATE POLICY every_cluster_delete ON acmetrace.job_type_rules AS RESTRICTIVE FOR DELETE
    USING (cluster IS NOT NULL);
