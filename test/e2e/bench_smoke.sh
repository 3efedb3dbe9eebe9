#!/usr/bin/env bash
# The benchmark harness still works: 20,000 jobs and 100,000 utilization
# samples, one repetition, a two-size scaling table, DuckDB included, the
# summaries section (every view four ways, the cost at load), the
# three-node section (bench/multinode, its own servers), the
# utilization-at-scale section on one day of 50 GPUs (bench/utilization), the
# append section at 40,000 and 80,000 jobs (a day of 5,000 is under the
# quarter that makes summarize_delta rebuild), the Prometheus section at 8
# GPUs for 2 hours (bench/prometheus, its own Prometheus), the full
# report at 20,000 jobs against the same report with summaries off (bench/report), the
# time-series section on the 20,000 jobs and 8 GPUs over 2 days (bench/timeseries), the
# fleet section at 50 GPUs (bench/fleet, its own Citus servers), and
# every method's output equal to (or within the declared error of) the
# reference.  Every section carries a stamp and runs on a durable server
# (fsync = on listed); no absolute path is printed; a differing answer
# fails the comparison.  No timing is asserted.
. "$(dirname "$0")/lib.sh"
. "$ROOT/bench/lib.sh"

# (a) the comparison helper: a differing answer is DIFFERENT and fails.
printf 'seren|a|1.5\n' >"$OUT/ref.out"; printf 'seren|a|1.5000001\n' >"$OUT/close.out"
printf 'seren|a|1.6\n' >"$OUT/far.out"; printf 'seren|b|1.5\n' >"$OUT/text.out"
v=$(bench_compare "$OUT/ref.out" "$OUT/far.out" 1e-9); rc=$?
check_eq "a number outside the tolerance fails the comparison" "$rc ${v%% *}" "1 DIFFERENT"
v=$(bench_compare "$OUT/ref.out" "$OUT/text.out" 1); rc=$?
check_eq "a differing text field fails the comparison" "$rc ${v%% *}" "1 DIFFERENT"
v=$(bench_compare "$OUT/ref.out" "$OUT/close.out" 1e-6); rc=$?
check_eq "a number within the tolerance passes" "$rc ${v%% *}" "0 equal"
: >"$OUT/empty.out"
v=$(bench_compare "$OUT/ref.out" "$OUT/empty.out" 1); rc=$?
check_eq "a missing row fails the comparison" "$rc ${v%% *}" "1 DIFFERENT"

# The benches start their own durable servers: not the test server (fsync off).
if env -u PGHOST -u PGPORT -u PGDATABASE bash "$ROOT/bench/run" --jobs 20000 --util-rows 100000 --reps 1 --scale 5000,10000 \
        --multinode-jobs 20000 --multinode-util-samples 100000 \
        --utilization-days 1 --utilization-series 50 --replay-jobs 20000 --report-jobs 20000 \
        --append-sizes 40000,80000 --prometheus-series 8 --prometheus-hours 2 \
        --timeseries-util-series 8 --timeseries-util-days 2 --fleet-gpus 50 \
        --out "$OUT/BENCHMARKS.md" >"$OUT/bench.log" 2>&1; then
    ok "bench/run completes"
else
    bad "bench/run failed: $(tail -5 "$OUT/bench.log")"
fi
md=$OUT/BENCHMARKS.md
# (b) every section stamped, every server durable
check_eq "every section (and the top) has one stamp line" \
    "$(grep -c '^# \|^## ' "$md")" "$(grep -cE '^<!-- stamp commit=[0-9a-f]{40}(\+dirty)? files=[a-z./_,-]+ -->$' "$md")"
check_eq "every stamp line is right below its heading" \
    "$(awk '/^##? / { h = NR } /^<!-- stamp / && NR != h + 1 { bad++ } END { print bad + 0 }' "$md")" "0"
check_eq "every stamp has its visible line with the command" \
    "$(grep -c '^<!-- stamp ' "$md")" "$(grep -cE '^Commit `[0-9a-f]{12}(\+dirty)?`, [0-9-]+ [0-9:]+ UTC; .* cores, [0-9]+ GiB; command: `bash bench/' "$md")"
check_eq "fsync = on listed in the main, summaries, replay and multinode settings (at least)" "$(grep -c '^ *- fsync = on$' "$md" | awk '{ print ($1 >= 4) }')" "1"
check_eq "no fsync = off anywhere" "$(grep -c 'fsync = off' "$md")" "0"
# (c) no machine path
check_eq "no absolute path in BENCHMARKS.md" "$(grep -cE '(^|[ `(=])/(work|tmp|home|root|usr|var)/' "$md")" "0"
check_eq "the whole run's time recorded at the top" "$(grep -cE 'The whole run took [0-9.]+ min' "$md")" "1"
# section HEADING-REGEX: the table rows of the section whose header matches
# (the regex through the environment: awk -v would take its backslashes as
# escapes, and gawk, which mariadb-server brings, drops them)
section() { h="$1" awk '$0 ~ ENVIRON["h"] { on = 1; next } on && /^\| --- / { next } on && /^\|/ { print; seen = 1; next } on && seen { exit }' "$md"; }
main=$(section '^\| analysis \| method \| median ms')
check_eq "occupancy vs queue methods" "$(grep -c '^| occupancy vs queue |' <<<"$main")" "4"
check_eq "percentile methods (tdigest and DuckDB included)" "$(grep -c '^| queue p50/p90/p99 by type |' <<<"$main")" "8"
check_eq "DuckDB methods" "$(grep -c '| DuckDB ' <<<"$main")" "7"
# (the sections' text names the verdict too: only table rows count)
check_eq "methods whose output differs from the reference" "$(grep -c '^|.*DIFFERENT' "$md")" "0"
check_eq "methods checked identical" "$(grep -c '| identical |$' <<<"$main")" "5"
check_eq "DuckDB exact methods equal to PostgreSQL's" "$(grep -c '| DuckDB .*| equal (largest difference ' <<<"$main")" "4"
check_eq "no 101-FILTER CDF left" "$(grep -lc 'FILTER (WHERE value <= 100)' "$ROOT"/bench/queries/*.sql | wc -l)" "0"
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
check_eq "utilization at scale: no failure" "$(grep -c 'bench/utilization failed' "$md")" "0"
summ=$(section '^\| view \(analysis\) \| \(1\) acmetrace')
check_eq "summaries: every view timed from summaries, scan and DuckDB raw" \
    "$(grep -cE '^\| v_[a-z_]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+|-) \|' <<<"$summ")" "16"
check_eq "summaries: every answer (scan, DuckDB raw, DuckDB pre-aggregated) compared and equal" \
    "$(grep -cE '^\| v_.*\| (identical|equal [^|]*) \| (identical|equal [^|]*) \| (identical|equal [^|]*) \|$' <<<"$summ")" "16"
check_eq "summaries: every view timed over DuckDB's pre-aggregated tables" \
    "$(grep -cE '^\| v_[a-z_]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' <<<"$summ")" "16"
check_eq "summaries: no cluster's capacity, zone or name typed into a DuckDB query (they come from the export)" \
    "$(grep -lE "28800|2288|'seren'" "$ROOT"/bench/queries/summaries/*.sql | wc -l)" "0"
check_eq "summaries: a dashboard refresh row, four columns" "$(grep -cE '^\| \*\*dashboard refresh \(all 16 views\)\*\* \| \*\*[0-9.]+\*\* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' <<<"$summ")" "1"
loadcost=$(section '^\| load \| summaries off, ms')
check_eq "summaries: the cost at load, a load, an append and DuckDB's pre-aggregation" "$(grep -cE '^\| .* \| [0-9.]+ \| [0-9.]+ \| -?[0-9]+ \| -?[0-9.]+% \|$' <<<"$loadcost")" "3"
replay=$(section '^\| what \| method \| median ms \| jobs/s')
check_eq "replay section between its markers" "$(grep -c '^<!-- replay:\(begin\|end\) -->$' "$md")" "2"
prom=$(section '^\| GPUs \(series\) \| samples \| Prometheus answering')
check_eq "Prometheus section: one row (8 GPUs), samples counted, between its markers" \
    "$(grep -cE '^\| 8 \| [1-9][0-9,]* \| [0-9.]+ \| [0-9.]+ \| ' <<<"$prom") $(grep -c '^<!-- prometheus:\(begin\|end\) -->$' "$md")" "1 2"
check_eq "prediction and replay rows timed" "$(grep -cE '\| [0-9.]+ \| [0-9]+ \| ([0-9.]+ )?\|$' <<<"$replay")" "13"
check_eq "the FCFS-decided trace replays to its recorded starts" \
    "$(grep -oE 'replayed under FCFS on the same 1,200 GPUs: [0-9]+ start times differ' "$md" | grep -oE '[0-9]+ start')" "0 start"
report=$(section '^\| report \| runs \| median s')
check_eq "report section between its markers" "$(grep -c '^<!-- report:\(begin\|end\) -->$' "$md")" "2"
check_eq "the report timed now and at the baseline, its tables identical to the baseline's" \
    "$(grep -cE '^\| now \| 3 \| [0-9.]+ \| [0-9.]+ \| identical \|$' <<<"$report") $(grep -cE '^\| baseline: summaries off \| 1 \| [0-9.]+ \| 1.0 \| \|$' <<<"$report")" "1 1"
check_eq "the report's slowest statements listed" "$(grep -c '^| [0-9.]* | `' "$md" | awk '{ print ($1 >= 2) }')" "1"
ts=$(section '^\| view \| window \| rows \| view \(ms\)')
check_eq "timeseries: each job view for 1, 7 and 30 days, answers equal to plain SQL, between its markers" \
    "$(grep -cE '^\| v_(hourly_allocation|daily_jobs|daily_queue) \| (1|7|30) d \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9]+x \| (yes|NO) \| (identical|equal) \|$' <<<"$ts") $(grep -c '^<!-- timeseries:\(begin\|end\) -->$' "$md")" "9 2"
multinode=$(section '^\| analysis \| 1 node, median ms')
check_eq "three-node section between its markers" "$(grep -c '^<!-- multinode:\(begin\|end\) -->$' "$md")" "2"
check_eq "three-node analyses timed on both sides, outputs identical" \
    "$(grep -cE '^\| [^|]+ \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| [0-9.]+ \| identical \|$' <<<"$multinode")" "3"
finish
