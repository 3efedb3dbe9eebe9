#!/usr/bin/env bash
# tools/calibrate_generator.sh [--write] [SEED]
#
# Generates a Seren-profile trace and five Kalos-profile traces (seeds SEED
# to SEED + 4; their median is compared) at the published job counts
# (1,031,550 and 62,413), loads them into a throw-away cluster
# (tools/tmp_cluster.sh) and compares acmetrace.cluster_summary() with the
# Seren and Kalos rows of test/fixtures/acme_cluster_summary.csv,
# column by column:
#   job counts within 1%; rates (*_rate_*) within 0.03 absolute; means,
#   medians, maxima and GPU-time totals within 15%.
# Prints one Markdown table per cluster and a last line
#   calibration: N of M columns within tolerance
# With --write, the tables replace the part of doc/generator.md between its
# "calibration table" markers.  Exit status 1 if any column is outside its
# tolerance (2 if the cluster could not start).
set -euo pipefail
cd "$(dirname "$0")/.."
write=
if [ "${1:-}" = --write ]; then write=1; shift; fi
seed=${1:-1}
fixture=test/fixtures/acme_cluster_summary.csv
[ -f "$fixture" ] || { echo "calibrate_generator: no $fixture" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

bash tools/tmp_cluster.sh psql -X -q -v ON_ERROR_STOP=1 -v seed="$seed" -v fixture="$(realpath "$fixture")" \
    -At -f tools/calibrate_generator.sql >"$out" || exit 2

tables=$(awk -F'|' -v seed="$seed" '
function fmt(x) { return (x == int(x) && (x > 999 || x < -999)) ? sprintf("%.0f", x) : sprintf("%.6g", x) }
BEGIN { tol["count"] = "1%"; tol["rate"] = "0.03"; tol["value"] = "15%" }
{
    if ($1 != cur) {
        if (cur != "") print ""
        cur = $1
        if (cur == "seren") printf "**Seren** (generated with seed %s)\n\n", seed
        else printf "**Kalos** (the median of five traces, seeds %s to %s)\n\n", seed, seed + 4
        print "| column | published | generated | difference | tolerance | within |"
        print "| --- | ---: | ---: | ---: | ---: | --- |"
    }
    d = $4 - $3
    diff = ($5 == "rate") ? sprintf("%+.3f", d) : ($3 != 0 ? sprintf("%+.1f%%", 100 * d / $3) : "")
    printf "| %s | %s | %s | %s | %s | %s |\n", $2, fmt($3), fmt($4), diff, tol[$5], ($6 == "t" ? "yes" : "**no**")
    n++; if ($6 == "t") ok++
}
END { printf "\ncalibration: %d of %d columns within tolerance\n", ok, n }' "$out")
echo "$tables"

if [ -n "$write" ]; then
    doc=doc/generator.md
    grep -q '<!-- calibration table: start -->' "$doc" || { echo "calibrate_generator: no markers in $doc" >&2; exit 2; }
    { sed '/<!-- calibration table: start -->/q' "$doc"
      echo "$tables"
      sed -n '/<!-- calibration table: end -->/,$p' "$doc"; } >"$doc.new"
    mv "$doc.new" "$doc"
fi
ok=$(echo "$tables" | sed -n 's/^calibration: \([0-9]*\) of \([0-9]*\).*/\1 \2/p')
[ "${ok% *}" = "${ok#* }" ]
