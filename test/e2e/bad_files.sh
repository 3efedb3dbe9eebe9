#!/usr/bin/env bash
# Bad files through psql's \copy, as a user runs them: each fails with the
# expected SQLSTATE and a message naming the line or job, and leaves the
# tables exactly as before.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_bad
cd "$FIX"
q -c "\\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)" >/dev/null
snapshot() {
    q -c "SELECT md5(coalesce(string_agg(j::text, '|' ORDER BY j.cluster COLLATE \"C\", j.job_id COLLATE \"C\"), ''))
                 || (SELECT count(*) FROM acmetrace.clusters)
                 || (SELECT count(*) FROM acmetrace.trace_seren)
                 || (SELECT count(*) FROM acmetrace.trace_kalos)
            FROM acmetrace.jobs j"
}
before=$(snapshot)
# file : table : cluster : sqlstate : text the message must contain
while IFS='|' read -r file table cluster state text; do
    [ -n "$file" ] || continue
    err=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
            -c "SET acmetrace.cluster = '$cluster'" \
            -c "\\copy acmetrace.$table FROM '$file' (FORMAT csv, HEADER match)" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 0 ]; then bad "$file loaded but must fail"; continue; fi
    if grep -q "ERROR:  $state:" <<<"$err" && grep -qF -- "$text" <<<"$err"; then
        ok "$file -> $state ($text)"
    else
        bad "$file: want $state and '$text', got: $(head -3 <<<"$err")"
    fi
    check_eq "tables unchanged after $file" "$(snapshot)" "$before"
done <<'CASES'
acme_trace_seren_sample.csv|trace_seren|seren|23505|HINT:  To reload it run SELECT acmetrace.drop_cluster('seren')
bad/seren_duplicate_job.csv|trace_seren|dup|23505|job id "5778432" appears more than once
acme_trace_kalos_sample.csv|trace_seren|other|22P04|wrong number of fields in header line
acme_trace_seren_sample.csv|trace_kalos|other|22P04|wrong number of fields in header line
bad/seren_wrong_header.csv|trace_seren|other|22P04|got "jobid", expected "job_id"
bad/seren_unterminated_quote.csv|trace_seren|other|22P04|line 4
bad/seren_truncated.csv|trace_seren|other|22P04|COPY trace_seren, line 3
bad/seren_extra_column.csv|trace_seren|other|22P04|extra data after last expected column
bad/seren_bad_number.csv|trace_seren|other|22P02|line 3, column gpu_num: "eight"
bad/seren_bad_timestamp.csv|trace_seren|other|22008|line 3, column start_time
bad/seren_missing_state.csv|trace_seren|other|23502|COPY trace_seren, line 3
acme_trace_seren_sample.csv|trace_seren|Seren|42602|HINT:  Cluster names are lower case
acme_trace_kalos_sample.csv|trace_kalos|seren|42809|cluster "seren" holds acme_seren jobs
CASES
finish
