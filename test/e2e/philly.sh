#!/usr/bin/env bash
# Philly's cluster_job_log loads with the documented one-line \copy: the
# published sample, and a generated 20,000-job file pretty-printed like the
# real one (jobs without attempts, jobs still running, missing times,
# backslash and unicode escapes), checked against totals that awk computes
# while it writes the file.  Bad files fail with their SQLSTATE and load
# nothing.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_philly
DOC="$ROOT/README.md"

# The documented command, taken from the docs so that they stay true.
line=$(grep -E "^\\\\copy acmetrace\.philly_job_log \(line\) FROM '[^']*' \(FORMAT csv, QUOTE E'\\\\x01', DELIMITER E'\\\\x02'\)$" "$DOC" | head -1)
if [ -z "$line" ]; then bad "no \\copy line for acmetrace.philly_job_log in $DOC"; finish; fi
ok "documented command: $line"
copy_cmd() { sed -E "s|FROM '[^']*'|FROM '$1'|" <<<"$line"; }

# 1. The published sample.
cd "$FIX"
if q -c "$(copy_cmd philly_cluster_job_log_sample.json)" >/dev/null 2>"$OUT/sample.err"; then ok "sample loads"
else bad "sample did not load: $(cat "$OUT/sample.err")"; fi
check_eq "sample job" \
    "$(q -F' ' -c "SELECT job_id, state, gpu_num, node_num, queue, duration, gpu_time, start_time = '2017-10-07 01:12:09-07', end_time = '2017-10-09 06:53:12-07'
                   FROM acmetrace.jobs WHERE cluster = 'philly'")" \
    "application_1506638472019_14199 COMPLETED 8 1 30 193263 1546104 t t"
check_eq "sample cluster" "$(q -F' ' -c "SELECT source_format, time_zone, gpu_capacity FROM acmetrace.clusters WHERE cluster = 'philly'")" \
    "philly America/Los_Angeles 16"

# 2. A generated file.  Times stay within October 2017 (PDT all month), so
# wall-clock differences are real durations.
GEN="$OUT/cluster_job_log"
N=20000
awk -v N=$N -v expect="$OUT/expected" '
function ts(s,  d, r) { d = int(s / 86400); r = s - d * 86400
    return sprintf("2017-10-%02d %02d:%02d:%02d", d + 1, int(r / 3600), int((r % 3600) / 60), r % 60) }
BEGIN {
    srand(20171007)
    print "["
    for (i = 1; i <= N; i++) {
        status = (i % 3 == 0) ? "Pass" : (i % 3 == 1) ? "Killed" : "Failed"
        nstate[status]++
        submit = int(rand() * 86400 * 25); sum_submit += submit
        natt = (i % 7 == 0) ? 0 : 1 + int(rand() * 3)
        # every 50th user name holds an escaped backslash, quote and e-acute
        user = (i % 50 == 0) ? ("u" i "\\\\x\\\"y\\u00e9") : ("u" (i % 97))
        if (i % 50 == 0) nescaped++
        printf "%s{\n", (i > 1 ? "}, " : "")
        printf "    \"status\": \"%s\",\n    \"vc\": \"v\\/%d\",\n    \"jobid\": \"application_%d\",\n", status, i % 5, i
        printf "    \"attempts\": ["
        t = submit + int(rand() * 600)
        first_start = ""; last_end = ""; last_gpus = 0
        for (a = 1; a <= natt; a++) {
            start = t; end = start + 1 + int(rand() * 7200)
            start_txt = "\"" ts(start) "\""; end_txt = "\"" ts(end) "\""
            # a missing first start (null or "None"); a last attempt still running
            if (a == 1) first_start = start
            if (a == 1 && i % 13 == 0) { start_txt = (i % 2 ? "null" : "\"None\""); first_start = "" }
            if (a == natt) last_end = end
            if (a == natt && i % 11 == 0) { end_txt = "null"; last_end = "" }
            printf "%s\n        {\n            \"start_time\": %s,\n            \"end_time\": %s,\n            \"detail\": [", (a > 1 ? "," : ""), start_txt, end_txt
            nsrv = 1 + int(rand() * 2); g_attempt = 0
            for (s = 1; s <= nsrv; s++) {
                ip = "m" int(rand() * 20000); k = 2 ^ int(rand() * 4); off = (k == 8) ? 0 : int(rand() * (8 / k)) * k
                printf "%s\n                {\n                    \"ip\": \"%s\",\n                    \"gpus\": [", (s > 1 ? "," : ""), ip
                for (g = 0; g < k; g++) {
                    printf "%s\n                        \"gpu%d\"", (g > 0 ? "," : ""), off + g
                    seen[ip "/gpu" (off + g)] = 1
                }
                printf "\n                    ]\n                }"
                g_attempt += k
            }
            printf "\n            ]\n        }"
            if (a == natt) last_gpus = g_attempt
            t = end + int(rand() * 60)
        }
        printf "%s],\n", (natt > 0 ? "\n    " : "")
        printf "    \"submitted_time\": \"%s\",\n    \"user\": \"%s\"\n", ts(submit), user
        if (natt == 0) nnoatt++
        else { gpu_jobs++; sum_gpus += last_gpus }
        if (first_start == "") nostart++
        if (last_end == "") noend++
        if (first_start != "") sum_queue += first_start - submit
        if (first_start != "" && last_end != "") { sum_dur += last_end - first_start; sum_gpu_time += (last_end - first_start) * last_gpus }
    }
    print "}]"
    for (x in seen) capacity++
    printf "jobs %d\nstates %d %d %d\nno_attempts %d\nno_start %d\nno_end %d\ngpu_jobs %d\nsum_gpus %.0f\n", \
        N, nstate["Pass"], nstate["Killed"], nstate["Failed"], nnoatt, nostart, noend, gpu_jobs, sum_gpus > expect
    printf "sum_queue %.0f\nsum_duration %.0f\nsum_gpu_time %.0f\ncapacity %d\nescaped_users %d\nsum_submit %.0f\n", \
        sum_queue, sum_dur, sum_gpu_time, capacity, nescaped, sum_submit > expect
}' > "$GEN"
want() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$OUT/expected"; }
# The file is what the test means to load, read by PostgreSQL's own JSON
# parser (not acmetrace's): an array of N objects with distinct job ids.
check_eq "generated file is a JSON array of $N distinct jobs (jsonb reads it)" \
    "$(q -c "CREATE TEMP TABLE raw (n bigserial, line text)" \
         -c "\\copy raw (line) FROM '$GEN' (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')" \
         -c "SELECT jsonb_array_length(j) || ' ' || (SELECT count(DISTINCT e->>'jobid') FROM jsonb_array_elements(j) e)
               FROM (SELECT string_agg(line, E'\\n' ORDER BY n)::jsonb AS j FROM raw) x")" \
    "$N $N"
echo "  (generated file: $(wc -l <"$GEN") lines, $(wc -c <"$GEN") bytes)"

start=$(date +%s.%N)
if q -c "SET acmetrace.cluster = 'gen'" -c "$(copy_cmd "$GEN")" >/dev/null 2>"$OUT/gen.err"; then
    ok "generated file loads in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
else bad "generated file did not load: $(head -3 "$OUT/gen.err")"; fi
g() { q -c "SELECT $1 FROM acmetrace.jobs WHERE cluster = 'gen'"; }
check_eq "jobs" "$(g 'count(*)')" "$(want jobs)"
check_eq "states (Pass Killed Failed)" \
    "$(g "count(*) FILTER (WHERE state = 'COMPLETED') || ' ' || count(*) FILTER (WHERE state = 'CANCELLED') || ' ' || count(*) FILTER (WHERE state = 'FAILED')")" \
    "$(want states)"
check_eq "jobs without attempts (no start, end, GPUs)" \
    "$(g 'count(*) FILTER (WHERE start_time IS NULL AND end_time IS NULL AND gpu_num IS NULL AND node_num IS NULL)')" \
    "$(want no_attempts)"
check_eq "jobs without start_time" "$(g 'count(*) FILTER (WHERE start_time IS NULL)')" "$(want no_start)"
check_eq "jobs without end_time" "$(g 'count(*) FILTER (WHERE end_time IS NULL)')" "$(want no_end)"
check_eq "GPU jobs" "$(g 'count(*) FILTER (WHERE gpu_num > 0)')" "$(want gpu_jobs)"
check_eq "sum of gpu_num (last attempts)" "$(g 'sum(gpu_num)')" "$(want sum_gpus)"
check_eq "sum of queue" "$(g 'sum(queue)')" "$(want sum_queue)"
check_eq "sum of duration" "$(g 'sum(duration)')" "$(want sum_duration)"
check_eq "sum of gpu_time" "$(g 'sum(gpu_time)')" "$(want sum_gpu_time)"
check_eq "derived columns equal the timestamps" \
    "$(g 'count(*) FILTER (WHERE duration IS DISTINCT FROM run_s::numeric OR queue IS DISTINCT FROM wait_s::numeric OR gpu_time IS DISTINCT FROM gpu_s::numeric)')" 0
check_eq "submit times read as Los Angeles wall clock" \
    "$(g "sum(date_part('epoch', (submit_time AT TIME ZONE 'America/Los_Angeles') - '2017-10-01 00:00:00'))::bigint")" "$(want sum_submit)"
check_eq "backslash, quote and unicode escapes decoded" \
    "$(g "count(*) FILTER (WHERE user_id = 'u' || substr(job_id, 13) || E'\\\\x\"y\\u00e9')")" "$(want escaped_users)"
check_eq "escaped slash in vc decoded" "$(g "count(*) FILTER (WHERE vc !~ '^v/[0-4]\$')")" 0
check_eq "GPU capacity = distinct (ip, gpu)" \
    "$(q -c "SELECT gpu_capacity FROM acmetrace.clusters WHERE cluster = 'gen'")" "$(want capacity)"
check_eq "trace_comparison row" \
    "$(q -F' ' -c "SELECT jobs, gpu_jobs, gpus, year FROM acmetrace.trace_comparison() WHERE cluster = 'gen'")" \
    "$(want jobs) $(want gpu_jobs) $(want capacity) 2017"
check_eq "staging table empty" "$(q -c 'SELECT count(*) FROM acmetrace.philly_job_log')" 0

# 3. Bad files through the documented command: SQLSTATE, message, nothing loaded.
snapshot() {
    q -c "SELECT md5(string_agg(j::text, '|' ORDER BY j.cluster COLLATE \"C\", j.job_id COLLATE \"C\"))
                 || (SELECT count(*) FROM acmetrace.clusters) || (SELECT count(*) FROM acmetrace.philly_gpus)
                 || (SELECT count(*) FROM acmetrace.philly_job_log)
            FROM acmetrace.jobs j"
}
before=$(snapshot)
head -c 5000 "$GEN" > "$OUT/truncated.json"
sed '3s/,$//' "$FIX/philly_cluster_job_log_sample.json" > "$OUT/missing_comma.json"
sed 's/"Pass"/"Queued"/' "$FIX/philly_cluster_job_log_sample.json" > "$OUT/unknown_status.json"
sed 's/"jobid": "application_1506638472019_14199",//' "$FIX/philly_cluster_job_log_sample.json" > "$OUT/no_jobid.json"
# file : cluster : sqlstate : text the message must contain
while IFS='|' read -r file cluster state text; do
    [ -n "$file" ] || continue
    err=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SET acmetrace.cluster = '$cluster'" \
               -c "$(copy_cmd "$file")" 2>&1 >/dev/null)
    if [ $? -eq 0 ]; then bad "$file loaded but must fail"; continue; fi
    if grep -q "ERROR:  $state:" <<<"$err" && grep -qF -- "$text" <<<"$err"; then ok "$(basename "$file") -> $state ($text)"
    else bad "$file: want $state and '$text', got: $(head -3 <<<"$err")"; fi
    check_eq "tables unchanged after $(basename "$file")" "$(snapshot)" "$before"
done <<CASES
$FIX/philly_cluster_job_log_sample.json|philly|23505|HINT:  To reload it run SELECT acmetrace.drop_cluster('philly')
$GEN|gen|23505|cluster "gen" already holds 20000 of the 20000 jobs
$OUT/truncated.json|other|22P02|invalid input syntax for type json
$OUT/missing_comma.json|other|22P02|JSON data, line 4
$OUT/unknown_status.json|other|22P02|job "application_1506638472019_14199" has unknown status "Queued"
$OUT/no_jobid.json|other|23502|element 1 of the array has no jobid
CASES

# 4. drop_cluster frees the cluster, its GPU list included; it reloads.
q -c "SELECT acmetrace.drop_cluster('gen')" >/dev/null
check_eq "GPU list dropped with the cluster" "$(q -c "SELECT count(*) FROM acmetrace.philly_gpus WHERE cluster = 'gen'")" 0
q -c "SET acmetrace.cluster = 'gen'" -c "$(copy_cmd "$GEN")" >/dev/null 2>"$OUT/reload.err" || bad "reload failed: $(cat "$OUT/reload.err")"
check_eq "reloaded jobs" "$(g 'count(*)')" "$(want jobs)"
finish
