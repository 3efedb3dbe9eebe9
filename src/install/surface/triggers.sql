-- The loaders' triggers, created after the functions they run.

CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.trace_seren
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.load_staged('acme_seren', 'seren');
CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.trace_kalos
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.load_staged('acme_kalos', 'kalos');
CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.helios_cluster_log
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.load_staged('helios', 'helios');

CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.philly_job_log
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.load_philly();

CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.sacct_jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.load_sacct();
CREATE TRIGGER check_rule BEFORE INSERT OR UPDATE ON acmetrace.job_type_rules
    FOR EACH ROW EXECUTE FUNCTION acmetrace_internal.job_type_rule_check();

CREATE TRIGGER load_begin BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_load();
CREATE TRIGGER load_line BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH ROW EXECUTE FUNCTION acmetrace_internal.utilization_load();
CREATE TRIGGER load_end AFTER INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_load();

-- Summaries follow every change of the jobs and of a cluster's settings.
CREATE TRIGGER summaries_insert AFTER INSERT ON acmetrace.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.jobs_changed();
CREATE TRIGGER summaries_update AFTER UPDATE ON acmetrace.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.jobs_changed();
CREATE TRIGGER summaries_delete AFTER DELETE ON acmetrace.jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.jobs_changed();
CREATE TRIGGER summaries_truncate AFTER TRUNCATE ON acmetrace.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.jobs_changed();
CREATE TRIGGER summaries_insert AFTER INSERT ON acmetrace.clusters
    REFERENCING NEW TABLE AS new_clusters
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.clusters_changed();
CREATE TRIGGER summaries_update AFTER UPDATE ON acmetrace.clusters
    REFERENCING OLD TABLE AS old_clusters NEW TABLE AS new_clusters
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.clusters_changed();
CREATE TRIGGER summaries_delete AFTER DELETE ON acmetrace.clusters
    REFERENCING OLD TABLE AS old_clusters
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.clusters_changed();
CREATE TRIGGER summaries_truncate AFTER TRUNCATE ON acmetrace.clusters
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.clusters_changed();

-- An update from a release without summaries builds them here (a new
-- install has no clusters yet).
SELECT acmetrace_internal.summarize_all();
