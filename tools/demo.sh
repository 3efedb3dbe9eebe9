#!/usr/bin/env bash
# The setup demo, inside a throw-away cluster (tools/tmp_cluster.sh): load
# the samples and two generated clusters and print a first analysis
# (tools/demo.sql), then write the HTML report of the generated clusters.
# ACMETRACE_DEMO_REPORT sets its path.
set -euo pipefail
cd "$(dirname "$0")/.."
psql -X -q -f tools/demo.sql
report=${ACMETRACE_DEMO_REPORT:-$PWD/acmetrace-demo-report.html}
bin/acmetrace-report --cluster synth --cluster synth_kalos --out "$report"
echo "HTML report of the generated clusters synth and synth_kalos: $report"
