-- Granting clusters to roles (row-level security, trace/access.sql).

CREATE FUNCTION acmetrace.grant_cluster(cluster text, grantee name)
RETURNS boolean
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    n bigint;
BEGIN
    IF cluster IS NULL OR cluster = '' THEN
        PERFORM acmetrace_internal.raise('22004', 'grant_cluster needs a cluster, not ' || CASE WHEN cluster IS NULL THEN 'NULL' ELSE 'an empty name' END,
                                         'Give a cluster''s name, or ''*'' for every cluster.');
    END IF;
    IF grantee IS NULL THEN
        PERFORM acmetrace_internal.raise('22004', 'grant_cluster needs a role, not NULL',
                                         'Give a role''s name, or public for every role.');
    END IF;
    IF grantee <> 'public' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = grantee) THEN
        PERFORM acmetrace_internal.raise('42704', format('role %s does not exist', quote_ident(grantee)),
                                         'CREATE ROLE it first; \du lists the roles.');
    END IF;
    BEGIN
        INSERT INTO acmetrace.cluster_access AS a (cluster, grantee)
        VALUES (grant_cluster.cluster, grant_cluster.grantee)
        ON CONFLICT DO NOTHING;
    EXCEPTION WHEN insufficient_privilege THEN
        PERFORM acmetrace_internal.raise('42501', format('only the owner of acmetrace''s tables may grant clusters, not %s', quote_ident(current_user)),
                                         'Ask the role that created the extension (or a superuser) to run grant_cluster.');
    END;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n > 0;
END
$$;
COMMENT ON FUNCTION acmetrace.grant_cluster(text, name) IS
  'Row-level security: lets grantee (and every role with its privileges; public: every role) read and write the rows of cluster in every acmetrace table, or of every cluster when cluster is ''*''. The cluster need not be loaded yet. Table privileges are still needed (doc/reference.md, "Roles and privileges"). Returns false when the grant existed. Owner only: 42501; NULL or empty: 22004; no such role: 42704.';

CREATE FUNCTION acmetrace.revoke_cluster(cluster text, grantee name)
RETURNS boolean
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    n bigint;
BEGIN
    IF cluster IS NULL OR grantee IS NULL THEN
        PERFORM acmetrace_internal.raise('22004', 'revoke_cluster needs a cluster and a role, not NULL',
                                         'SELECT * FROM acmetrace.cluster_access lists the grants.');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM acmetrace.cluster_access a WHERE a.cluster = revoke_cluster.cluster AND a.grantee = revoke_cluster.grantee) THEN
        RETURN false;
    END IF;
    BEGIN
        DELETE FROM acmetrace.cluster_access a WHERE a.cluster = revoke_cluster.cluster AND a.grantee = revoke_cluster.grantee;
        GET DIAGNOSTICS n = ROW_COUNT;
    EXCEPTION WHEN insufficient_privilege THEN
        n := 0;
    END;
    IF n = 0 THEN
        PERFORM acmetrace_internal.raise('42501', format('only the owner of acmetrace''s tables may revoke clusters, not %s', quote_ident(current_user)),
                                         'Ask the role that created the extension (or a superuser) to run revoke_cluster.');
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION acmetrace.revoke_cluster(text, name) IS
  'Row-level security: takes back a grant of acmetrace.grant_cluster (a grant of ''*'' is revoked as ''*'', not cluster by cluster). Returns false when there was no such grant. Owner only: 42501; NULL: 22004.';
