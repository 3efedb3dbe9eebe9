#!/usr/bin/env bash
# Wide utilization files load with the README's \copy line and read back
# equal to an independent parse of the file (awk): the AcmeTrace fixture
# (248 servers), the Philly GPU fixture (machineId column, PDT, trailing
# comma), and a generated 2,600-column x 1,000-line file.  A line with a
# missing cell is an error naming its line and timestamp, and nothing is loaded.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_wide
line=$(grep -E "^\\\\copy acmetrace\.utilization_lines FROM '[^']*' " "$ROOT/README.md" | head -1)
[ -n "$line" ] && ok "README has the utilization \\copy line" || bad "README lacks the utilization \\copy line"

load() {  # load FILE METRIC CLUSTER -> psql exit status
    psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SET acmetrace.metric = '$2'" -c "SET acmetrace.cluster = '$3'" \
        -c "$(sed -E "s|FROM '[^']*'|FROM '$1'|" <<<"$line")" >"$OUT/load.err" 2>&1
}
# Independent parse: one "ts<TAB>series<TAB>value" line per non-empty cell.
triples() {
    awk -F, -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; key = (h[2] == "machineId"); next }
        { for (i = 2 + key; i <= NF; i++) if ($i != "" && $i != "NA" && i in h)
              print $1, (key ? $2 "/" h[i] : h[i]), $i }' "$1"
}
compare() {  # compare FILE METRIC CLUSTER
    triples "$1" >"$OUT/expected.tsv"
    q -c "DROP TABLE IF EXISTS expected" -c "CREATE TABLE expected (ts text, series text, value text)" \
      -c "\\copy expected FROM '$OUT/expected.tsv'"
    check_eq "$(basename "$1"): cells loaded" \
        "$(q -c "SELECT count(*) FROM acmetrace.utilization WHERE metric = upper('$2') AND cluster = '$3'")" "$(wc -l <"$OUT/expected.tsv")"
    check_eq "$(basename "$1"): every cell equal to the file's" \
        "$(q -c "SELECT count(*) FROM (SELECT ts::timestamptz, series, value::float8 FROM expected
                                       EXCEPT ALL SELECT ts, series, value FROM acmetrace.utilization WHERE metric = upper('$2') AND cluster = '$3') d")" 0
}

load "$FIX/acme_NODE_CPU_UTILIZATION_sample.csv" NODE_CPU_UTILIZATION seren && ok "AcmeTrace fixture loads" || bad "fixture: $(cat "$OUT/load.err")"
compare "$FIX/acme_NODE_CPU_UTILIZATION_sample.csv" NODE_CPU_UTILIZATION seren
check_eq "248 server series" "$(q -c "SELECT count(DISTINCT series) FROM acmetrace.utilization WHERE cluster = 'seren'")" 248
load "$FIX/philly_cluster_gpu_util_sample.csv" gpu_util philly && ok "Philly fixture loads" || bad "Philly: $(cat "$OUT/load.err")"
compare "$FIX/philly_cluster_gpu_util_sample.csv" gpu_util philly
# metric names are stored upper case: Philly's gpu_util is GPU_UTIL
check_eq "Philly metric stored as GPU_UTIL" "$(q -c "SELECT DISTINCT metric FROM acmetrace.utilization_blocks WHERE cluster = 'philly'")" GPU_UTIL
check_eq "Philly PDT read as UTC-7" "$(q -c "SELECT DISTINCT ts = '2017-10-03 07:08:00+00' FROM acmetrace.utilization WHERE cluster = 'philly'")" t

q -c "\\copy (SELECT line FROM acmetrace.generate_util(2600, 1000, 7, blank_share => 0.01) line) TO '$OUT/wide.csv'"
check_eq "generated file: 1,001 lines of 2,601 cells" "$(awk -F, '{ print NF }' "$OUT/wide.csv" | sort -u | tr '\n' ' ')$(wc -l <"$OUT/wide.csv")" "2601 1001"
load "$OUT/wide.csv" GPU_UTIL synth && ok "2,600-column file loads" || bad "wide: $(cat "$OUT/load.err")"
compare "$OUT/wide.csv" GPU_UTIL synth
check_eq "2.6M cells minus the blanks" "$(q -c "SELECT count(*) BETWEEN 2560000 AND 2590000 FROM acmetrace.utilization WHERE cluster = 'synth'")" t

before=$(q -c "SELECT count(*) FROM acmetrace.utilization")
awk -F, -v OFS=, 'NR == 501 { $1234 = ""; $0 = $0; sub(",,", ",") } { print }' "$OUT/wide.csv" >"$OUT/missing_cell.csv"
ts=$(sed -n 501p "$OUT/missing_cell.csv" | cut -d, -f1)
if load "$OUT/missing_cell.csv" GPU_UTIL synth2; then bad "a line with a missing cell loaded"
elif grep -q "ERROR:  22P04: line 501 (\"$ts\") has 2600 cells, the header has 2601" "$OUT/load.err"; then ok "missing cell -> 22P04 naming line 501 and $ts"
else bad "missing cell: $(head -3 "$OUT/load.err")"; fi
check_eq "nothing loaded from the bad file" "$(q -c "SELECT count(*) FROM acmetrace.utilization")" "$before"
check_eq "staging table empty" "$(q -c "SELECT count(*) FROM acmetrace.utilization_lines")" 0

# Loading without saying which metric it is.
if psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SET acmetrace.cluster = 'seren'" \
     -c "$(sed -E "s|FROM '[^']*'|FROM '$FIX/acme_NODE_CPU_UTILIZATION_sample.csv'|" <<<"$line")" >"$OUT/nometric.err" 2>&1; then
    bad "loaded without acmetrace.metric"
else
    grep -q "22023: set acmetrace.metric" "$OUT/nometric.err" && ok "no metric set -> 22023" || bad "no metric: $(cat "$OUT/nometric.err")"
fi
finish
