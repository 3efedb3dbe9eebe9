#!/usr/bin/env bash
# Utilization files in the published layouts, made by tools/acmetrace-genutil
# and loaded with the README's \copy line: every cell stored once and
# exactly, under 3 (GPU_UTIL) and 5 (SM_ACTIVE) bytes per sample, the same
# samples from one file as from monthly files that overlap (epoch times),
# a second load adding nothing, a conflicting value refused with nothing
# loaded, and the aggregates over blocks equal to those over the values.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_util_files
(cd "$ROOT" && make -s genutil >/dev/null) || { bad "make genutil failed"; finish; }
GEN="$ROOT/tools/acmetrace-genutil"
COPY_OPTS="(FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"

load() {  # load METRIC CLUSTER FILE: psql's output (NOTICEs included)
    psql -X -q -v ON_ERROR_STOP=1 -c "SET acmetrace.metric = '$1'" -c "SET acmetrace.cluster = '$2'" \
         -c "\\copy acmetrace.utilization_lines FROM '$3' $COPY_OPTS" 2>&1
}
# cells FILE: the non-empty value cells of a wide file
cells() { awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "") n++ } END { print n + 0 }' "$1"; }

"$GEN" --series 300 --days 2 --seed 5 -o "$OUT/gpu.csv" || bad "generating gpu.csv failed"
"$GEN" --metric SM_ACTIVE --series 300 --days 2 --seed 6 -o "$OUT/sm.csv" || bad "generating sm.csv failed"
# Bytes on disk of everything that holds samples (table, TOAST, index):
# measured after each metric's load, so each gets its own delta.
size() { q -c "VACUUM acmetrace.utilization_blocks" -c "CHECKPOINT" -c "SELECT pg_total_relation_size('acmetrace.utilization_blocks')"; }
s0=$(size)
load GPU_UTIL seren "$OUT/gpu.csv" >/dev/null || bad "loading gpu.csv failed"
s1=$(size)
load SM_ACTIVE seren "$OUT/sm.csv" >/dev/null || bad "loading sm.csv failed"
s2=$(size)
check_eq "GPU_UTIL: one sample per non-empty cell" \
    "$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL'")" "$(cells "$OUT/gpu.csv")"
check_eq "SM_ACTIVE: one sample per non-empty cell" \
    "$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks WHERE metric = 'SM_ACTIVE'")" "$(cells "$OUT/sm.csv")"

# Every stored value is the file's cell, read as float8: compare the long
# rows awk makes of the file with the view, as text.
awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
         { for (i = 2; i <= NF; i++) if ($i != "") print $1 "\t" name[i] "\t" $i }' "$OUT/sm.csv" >"$OUT/sm.tsv"
q -c "CREATE TABLE want (ts timestamptz, series text, value float8)" \
  -c "\\copy want FROM '$OUT/sm.tsv'" >/dev/null || bad "reading sm.tsv failed"
check_eq "SM_ACTIVE: every sample equal to its cell (time, series, value bits)" \
    "$(q -c "SELECT count(*) FROM (SELECT ts, series, float8send(value) FROM want
                                   EXCEPT ALL
                                   SELECT ts, series, float8send(value) FROM acmetrace.utilization WHERE metric = 'SM_ACTIVE') d")" 0

gb=$(q -c "SELECT round(($s1 - $s0)::numeric / sum(n), 2) FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL'")
sb=$(q -c "SELECT round(($s2 - $s1)::numeric / sum(n), 2) FROM acmetrace.utilization_blocks WHERE metric = 'SM_ACTIVE'")
[ "$(q -c "SELECT $gb <= 3")" = t ] && ok "GPU_UTIL: $gb bytes per sample on disk (at most 3)" ||
    bad "GPU_UTIL: $gb bytes per sample on disk, more than 3"
[ "$(q -c "SELECT $sb <= 5")" = t ] && ok "SM_ACTIVE: $sb bytes per sample on disk (at most 5)" ||
    bad "SM_ACTIVE: $sb bytes per sample on disk, more than 5"

# A second load of the same file stores nothing more and says so.
before=$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks")
msg=$(load GPU_UTIL seren "$OUT/gpu.csv") || bad "reloading gpu.csv failed"
check_eq "the same file again adds no sample" "$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks")" "$before"
grep -qE "GPU_UTIL of cluster seren: 0 samples stored, [1-9][0-9]* duplicates skipped, [1-9][0-9]* series" <<<"$msg" &&
    ok "a NOTICE counts the skipped samples" || bad "no NOTICE on reload: $msg"

# Monthly files with epoch times that overlap by 20 lines give the same
# samples as one file with text times.
mkdir -p "$OUT/months"
"$GEN" --series 40 --start 2023-07-30 --days 4 --seed 9 -o "$OUT/whole.csv"
"$GEN" --series 40 --start 2023-07-30 --days 4 --seed 9 --time epoch --split-by-month "$OUT/months" --overlap 20
check_eq "split files: two months" "$(ls "$OUT/months" | tr '\n' ' ')" "GPU_UTIL-2023-07.csv GPU_UTIL-2023-08.csv "
load GPU_UTIL whole "$OUT/whole.csv" >/dev/null || bad "loading whole.csv failed"
for f in "$OUT"/months/*.csv; do load GPU_UTIL split "$f" >/dev/null || bad "loading $f failed"; done
check_eq "split files that overlap: each sample once, the same as the whole file" \
    "$(q -c "SELECT count(*) FROM (SELECT ts, series, value FROM acmetrace.utilization WHERE cluster = 'whole'
                                   EXCEPT ALL
                                   SELECT ts, series, value FROM acmetrace.utilization WHERE cluster = 'split') d")|$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks WHERE cluster = 'split'")" \
    "0|$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks WHERE cluster = 'whole'")"

# One changed cell in a copy: refused, naming series and time; nothing of it loaded.
awk -F, -v OFS=, 'NR == 100 { $2 = ($2 == "5" ? "6" : "5") } NR == 101 { $3 = "" } { print }' "$OUT/gpu.csv" >"$OUT/conflict.csv"
head -1 "$OUT/gpu.csv" | sed 's/$/,10.140.99.99-gpu0/' >"$OUT/conflict2.csv"
tail -n +2 "$OUT/conflict.csv" | sed 's/$/,1/' >>"$OUT/conflict2.csv"
before=$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks")
msg=$(load GPU_UTIL seren "$OUT/conflict2.csv")
grep -q 'has two values at' <<<"$msg" && ok "a conflicting value is refused: $(grep -o 'series .*' <<<"$msg" | head -1)" ||
    bad "conflict not refused: $msg"
check_eq "nothing of the refused file is loaded" \
    "$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks")|$(q -c "SELECT count(*) FROM acmetrace.utilization_blocks WHERE series = '10.140.99.99-gpu0'")" "$before|0"

# The aggregates over blocks equal the same aggregates over the values,
# serially and with two workers.
for par in 0 2; do
    check_eq "bins, cdf_at and the per-GPU mean histogram over blocks = over values (workers $par)" \
        "$(q -c "SET max_parallel_workers_per_gather = $par" -c "SET parallel_setup_cost = 0" -c "
            SELECT (SELECT acmetrace.bins(samples, 0, 100, 10) FROM acmetrace.utilization_blocks WHERE metric = 'SM_ACTIVE')
                 = (SELECT acmetrace.bins(value, 0, 100, 10) FROM acmetrace.utilization WHERE metric = 'SM_ACTIVE'),
                   (SELECT acmetrace.cdf_at(samples, acmetrace.steps(0, 100, 0.5)) FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL')
                 = (SELECT acmetrace.cdf_at(value, acmetrace.steps(0, 100, 0.5)) FROM acmetrace.utilization WHERE metric = 'GPU_UTIL'),
                   (SELECT array_agg(series ORDER BY bin) FROM acmetrace.util_histogram('seren', 'SM_ACTIVE'))
                 = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 11) b
                      LEFT JOIN (SELECT CASE WHEN m = 100 THEN 10 ELSE width_bucket(m, 0, 100, 10) END AS b, count(*) AS c
                                   FROM (SELECT avg(value::numeric)::float8 AS m FROM acmetrace.utilization
                                          WHERE metric = 'SM_ACTIVE' GROUP BY series) a GROUP BY 1) h USING (b))")" "t|t|t"
done
finish
