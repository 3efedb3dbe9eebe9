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

CREATE TRIGGER load_begin BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_load();
CREATE TRIGGER load_line BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH ROW EXECUTE FUNCTION acmetrace_internal.utilization_load();
CREATE TRIGGER load_end AFTER INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_load();
