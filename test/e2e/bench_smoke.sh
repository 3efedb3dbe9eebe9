#!/usr/bin/env bash
# The benchmark harness still works: 20,000 jobs and 100,000 utilization
# samples, one repetition, a two-size scaling table, DuckDB included, the
# summaries section (every view three ways, the cost at load), the
# three-node section at 20,000 jobs (bench/multinode, its own servers), the
# utilization-at-scale section on one day of 50 GPUs (bench/utilization), and
# every method's output equal to (or within the declared error of) the
# reference.  No timing is asserted.
. "$(dirname "$0")/lib.sh"
if bash "$ROOT/bench/run" --jobs 20000 --util-rows 100000 --reps 1 --scale 5000,10000 \
        --multinode-jobs 20000 --multinode-util-samples 100000 \
        --utilization-days 1 --utilization-series 50 --replay-jobs 20000 \
        --out "$OUT/BENCHMARKS.md" >"$OUT/bench.log" 2>&1; then
    ok "bench/run completes"
else
    bad "bench/run failed: $(tail -5 "$OUT/bench.log")"
fi
md=$OUT/BENCHMARKS.md
# section HEADING-REGEX: the table rows of the section whose header matches
section() { awk -v h="$1" '$0 ~ h { on = 1; next } on && /^\| --- / { next } on && /^\|/ { print; seen = 1; next } on && seen { exit }' "$md"; }
main=$(section '^\| analysis \| method \| median ms')
check_eq "occupancy vs queue methods" "$(grep -c '^| occupancy vs queue |' <<<"$main")" "4"
check_eq "percentile methods (tdigest and DuckDB included)" "$(grep -c '^| queue p50/p90/p99 by type |' <<<"$main")" "9"
check_eq "DuckDB methods" "$(grep -c '| DuckDB ' <<<"$main")" "8"
check_eq "methods whose output differs from the reference" "$(grep -c 'DIFFERENT' "$md")" "0"
check_eq "methods checked identical" "$(grep -c '| identical |$' <<<"$main")" "5"
check_eq "DuckDB exact methods equal to PostgreSQL's" "$(grep -c '| DuckDB .*| equal (largest difference ' <<<"$main")" "3"
check_eq "utilization methods" "$(grep -c '^| utilization ' <<<"$main")" "6"
check_eq "sketch methods checked within 0.5%" "$(grep -c '| within 0.50% (largest ' <<<"$main")" "2"
check_eq "every row has a median" "$(grep -cvE '^\| [^|]+ \| [^|]+ \| [0-9]+\.[0-9] \|' <<<"$main")" "0"
workers=$(section '^\| analysis \| method \| 2 workers')
check_eq "PostgreSQL methods timed with 0 and 2 workers" "$(grep -cE '\| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' <<<"$workers")" "15"
memory=$(section '^\| analysis \| method \| peak growth')
check_eq "backend memory measured for every PostgreSQL method" "$(grep -cE '\| [0-9]+\.[0-9] \|$' <<<"$memory")" "13"
scaling=$(section '^\| analysis \| method \| 5000 jobs \| 10000 jobs')
check_eq "scaling rows with both sizes" "$(grep -cE '\| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' <<<"$scaling")" "9"
check_eq "state sizes reported" "$(grep -c '^| delay_sketch stored (pg_column_size), largest job type | [0-9]' "$md")" "1"
util=$(section '^\| file \| samples \| CSV \| acmetrace load')
check_eq "utilization at scale: GPU_UTIL and SM_ACTIVE files loaded and sized; DuckDB's GPU_UTIL load compared" \
    "$(grep -cE '^\| (GPU_UTIL|SM_ACTIVE), 1 day \| [0-9]+ \| [0-9]+ MB \| [0-9.]+ s \| [0-9.]+M \| [0-9]+ MB \| [0-9.]+ MB \| [0-9.]+ \|' <<<"$util") $(grep -cE '^\| GPU_UTIL, 1 day .* \| [0-9.]+x \|$' <<<"$util")" "2 1"
summ=$(section '^\| view \(analysis\) \| from summaries')
check_eq "summaries: every view timed from summaries, scan and DuckDB" \
    "$(grep -cE '^\| v_[a-z_]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' <<<"$summ")" "16"
check_eq "summaries: the views' rows equal the scan's" "$(grep -c '(scan ' <<<"$summ")" "0"
check_eq "summaries: a dashboard refresh row" "$(grep -c '^| \*\*dashboard refresh (all 16 views)\*\* | \*\*[0-9.]*\*\* |' <<<"$summ")" "1"
loadcost=$(section '^\| load \| summaries off, ms')
check_eq "summaries: the cost at load, a load and an append" "$(grep -cE '^\| .* \| [0-9.]+ \| [0-9.]+ \| -?[0-9]+ \| -?[0-9.]+% \|$' <<<"$loadcost")" "2"
uq=$(section '^\| query \(GPU_UTIL\) \| days')
check_eq "utilization at scale: four queries timed on both sides" "$(grep -cE '\| [0-9.]+ ms \| [0-9.]+ ms \| [0-9.]+x \|$' <<<"$uq")" "4"
check_eq "utilization at scale: no failure" "$(grep -c 'bench/utilization failed' "$md")" "0"
replay=$(section '^\| what \| method \| median ms \| jobs/s')
check_eq "replay section between its markers" "$(grep -c '^<!-- replay:\(begin\|end\) -->$' "$md")" "2"
check_eq "prediction and replay rows timed" "$(grep -cE '\| [0-9.]+ \| [0-9]+ \| ([0-9.]+ )?\|$' <<<"$replay")" "13"
check_eq "the FCFS-decided trace replays to its recorded starts" \
    "$(grep -oE 'replayed under FCFS on the same 1,200 GPUs: [0-9]+ start times differ' "$md" | grep -oE '[0-9]+ start')" "0 start"
multinode=$(section '^\| analysis \| 1 node, median ms')
check_eq "three-node section between its markers" "$(grep -c '^<!-- multinode:\(begin\|end\) -->$' "$md")" "2"
check_eq "three-node analyses timed on both sides, outputs identical" \
    "$(grep -cE '^\| [^|]+ \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| [0-9.]+ \| identical \|$' <<<"$multinode")" "3"
finish
