#!/usr/bin/env bash
# A generated Seren trace (1,000,000 jobs by default) written to CSV in the
# published format and loaded back with the README's \copy line gives the
# same acmetrace.jobs rows.  ACMETRACE_E2E_JOBS sets the size.
. "$(dirname "$0")/lib.sh"
N=${ACMETRACE_E2E_JOBS:-1000000}
fresh_db e2e_generated
check_eq "generated $N jobs loaded" "$(q -c "SELECT acmetrace.load_generated('gen', 'seren', $N, 42)")" "$N"
q -c "\\copy (SELECT * FROM acmetrace.trace_seren_csv('gen')) TO '$OUT/trace_seren.csv' (FORMAT csv, HEADER)"
check_eq "CSV lines" "$(wc -l <"$OUT/trace_seren.csv")" "$((N + 1))"
check_eq "CSV header is the published one" "$(head -1 "$OUT/trace_seren.csv")" \
    "$(head -1 "$FIX/acme_trace_seren_sample.csv")"
line=$(grep -E "^\\\\copy acmetrace\.trace_seren FROM '[^']*' \(FORMAT csv, HEADER match\)$" "$ROOT/README.md" | head -1)
cmd=$(sed -E "s|FROM '[^']*'|FROM '$OUT/trace_seren.csv'|" <<<"$line")
if q -c "SET acmetrace.cluster = 'back'" -c "$cmd" >/dev/null; then ok "loaded back with: $line"; else bad "load back failed"; fi
cols="job_id, user_id, type, state, final_state, node_num, gpu_num, cpu_num, submit_time, start_time, end_time, duration, queue, gpu_time, run_s, wait_s, gpu_s"
check_eq "rows only in the generated cluster" \
    "$(q -c "SELECT count(*) FROM (SELECT $cols FROM acmetrace.jobs WHERE cluster = 'gen' EXCEPT ALL SELECT $cols FROM acmetrace.jobs WHERE cluster = 'back') d")" 0
check_eq "rows only in the loaded-back cluster" \
    "$(q -c "SELECT count(*) FROM (SELECT $cols FROM acmetrace.jobs WHERE cluster = 'back' EXCEPT ALL SELECT $cols FROM acmetrace.jobs WHERE cluster = 'gen') d")" 0
# The generator obeys the documented rules it publishes.
check_eq "audit: duration/queue/gpu_time agree with the timestamps" \
    "$(q -c "SELECT string_agg(anomaly || '=' || jobs, ' ') FROM acmetrace.audit('gen') WHERE jobs > 0 AND anomaly <> 'never_started'")" ""
finish
