#!/usr/bin/env bash
# Each published job-trace fixture loads unmodified with the README's own
# \copy line, and the cluster written back in its format equals the file
# byte for byte.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_fixtures
cd "$FIX"
for pair in trace_seren:acme_trace_seren_sample.csv:seren \
            trace_kalos:acme_trace_kalos_sample.csv:kalos \
            helios_cluster_log:helios_cluster_log_sample.csv:helios; do
    IFS=: read -r table file cluster <<<"$pair"
    # The documented command, taken from the README so the docs stay true.
    line=$(grep -E "^\\\\copy acmetrace\.$table FROM '[^']*' \(FORMAT csv, HEADER match\)$" "$ROOT/README.md" | head -1)
    if [ -z "$line" ]; then bad "README has no \\copy line for $table"; continue; fi
    cmd=$(sed -E "s/FROM '[^']*'/FROM '$file'/" <<<"$line")
    if q -c "$cmd" >/dev/null 2>"$OUT/$table.err"; then ok "$file loads with: $line"
    else bad "$file did not load: $(cat "$OUT/$table.err")"; continue; fi
    check_eq "$cluster rows" "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = '$cluster'")" "$(($(wc -l <"$file") - 1))"
    q -c "\\copy (SELECT * FROM acmetrace.${table}_csv('$cluster')) TO '$OUT/$file' (FORMAT csv, HEADER)"
    if cmp -s "$file" "$OUT/$file"; then ok "$cluster written back equals $file"
    else bad "$cluster written back differs from $file:"; diff "$file" "$OUT/$file" | head; fi
done
check_eq "kalos duration mismatch flagged" \
    "$(q -c "SELECT jobs FROM acmetrace.audit('kalos') WHERE anomaly = 'duration_mismatch'")" 2
finish
