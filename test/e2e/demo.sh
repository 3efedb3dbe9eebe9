#!/usr/bin/env bash
# The setup command's demo prints the state breakdown, flags the Kalos rows
# and writes the HTML report of its two generated clusters.
. "$(dirname "$0")/lib.sh"
dropdb --if-exists e2e_demo && createdb e2e_demo || { bad "createdb"; exit 1; }
cd "$ROOT"
if PGDATABASE=e2e_demo ACMETRACE_DEMO_REPORT="$OUT/demo-report.html" bash tools/demo.sh >"$OUT/demo.txt" 2>&1; then ok "demo runs"; else bad "demo failed: $(cat "$OUT/demo.txt")"; fi
grep -Eq '^ seren +\| COMPLETED +\| +1 \| +50\.00 \| +5\.98 \| +95\.84$' "$OUT/demo.txt" && ok "demo shows seren COMPLETED row" || bad "demo output lacks the seren COMPLETED row"
grep -Eq '^ kalos +\| duration_mismatch +\| +2 \|' "$OUT/demo.txt" && ok "demo shows the kalos duration mismatch" || bad "demo output lacks the kalos audit row"
grep -Eq '^ synth +\| CANCELLED +\| +4506 \| +7\.00 \|' "$OUT/demo.txt" && ok "demo shows the synthetic cluster" || bad "demo output lacks the synth rows"
grep -Eq '^ synth_kalos +\| COMPLETED +\| +[0-9]+ \|' "$OUT/demo.txt" && ok "demo shows the second synthetic cluster" || bad "demo output lacks the synth_kalos rows"
grep -Eq '^ Pretrain +\| +1 \| +0\.0 \| +457\.6 \| +18 \|' "$OUT/demo.txt" && ok "demo shows queueing delay by occupancy" || bad "demo output lacks the occupancy rows"
grep -Eq '^ Pretrain +\| +785 \| +1 \| +1 \| +3 \|' "$OUT/demo.txt" && ok "demo shows queueing delay percentiles" || bad "demo output lacks the percentile rows"
# The synthetic Seren shows the published finding: Eval waits longer than Pretrain in the upper occupancy bins.
for b in 4 5; do
    e=$(awk -F'|' -v b=$b '$1 ~ /^ Eval / && $2+0 == b {gsub(/ /, "", $6); print $6}' "$OUT/demo.txt")
    p=$(awk -F'|' -v b=$b '$1 ~ /^ Pretrain / && $2+0 == b {gsub(/ /, "", $6); print $6}' "$OUT/demo.txt")
    awk -v e="$e" -v p="$p" 'BEGIN { exit !(e != "" && p != "" && e + 0 > p + 0) }' &&
        ok "demo: occupancy bin $b, Eval's mean queue ($e s) above Pretrain's ($p s)" ||
        bad "demo: occupancy bin $b, Eval's mean queue ($e s) not above Pretrain's ($p s)"
done
grep -qxF "HTML report of the generated clusters synth and synth_kalos: $OUT/demo-report.html" "$OUT/demo.txt" &&
    ok "demo prints the report's path" || bad "demo does not print the report's path"
check_eq "demo report has both generated clusters" \
    "$(grep -o '<section class="cluster" id="cluster-[a-z_]*"' "$OUT/demo-report.html" 2>/dev/null | cut -d'"' -f4 | tr '\n' ' ')" \
    "cluster-synth cluster-synth_kalos "
check_eq "demo report has charts" "$(grep -c '<figure class="chart"' "$OUT/demo-report.html" 2>/dev/null)" 18
finish
