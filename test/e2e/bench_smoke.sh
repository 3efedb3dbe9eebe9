#!/usr/bin/env bash
# The benchmark harness still works: 20,000 jobs and 100,000 utilization
# samples, one repetition, and every method's output equal to (or within
# the declared error of) the reference.  No timing is asserted.
. "$(dirname "$0")/lib.sh"
if bash "$ROOT/bench/run" --jobs 20000 --util-rows 100000 --reps 1 --out "$OUT/BENCHMARKS.md" >"$OUT/bench.log" 2>&1; then
    ok "bench/run completes"
else
    bad "bench/run failed: $(tail -5 "$OUT/bench.log")"
fi
md=$OUT/BENCHMARKS.md
check_eq "occupancy vs queue rows in BENCHMARKS.md" "$(grep -c '^| occupancy vs queue |' "$md")" "3"
check_eq "percentile methods (tdigest installed)" "$(grep -c '^| queue p50/p90/p99 by type |' "$md")" "5"
check_eq "methods whose output differs from the reference" "$(grep -c 'DIFFERENT' "$md")" "0"
check_eq "methods checked identical" "$(grep -c '| identical |$' "$md")" "4"
check_eq "utilization rows in BENCHMARKS.md" "$(grep -c '^| utilization ' "$md")" "4"
check_eq "sketch methods checked within 0.5%" "$(grep -c '| within 0.50% (largest ' "$md")" "2"
check_eq "state sizes reported" "$(grep -c '^| delay_sketch stored (pg_column_size) | [0-9]' "$md")" "1"
finish
