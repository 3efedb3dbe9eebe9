#!/usr/bin/env bash
# The benchmark harness still works: a 20,000-job run, one repetition, and
# every method's output equal to acmetrace's.  No timing is asserted.
. "$(dirname "$0")/lib.sh"
if bash "$ROOT/bench/run" --jobs 20000 --reps 1 --out "$OUT/BENCHMARKS.md" >"$OUT/bench.log" 2>&1; then
    ok "bench/run completes"
else
    bad "bench/run failed: $(tail -5 "$OUT/bench.log")"
fi
rows=$(grep -c '^| occupancy vs queue |' "$OUT/BENCHMARKS.md" 2>/dev/null)
check_eq "occupancy vs queue rows in BENCHMARKS.md" "$rows" "3"
check_eq "methods whose output differs from acmetrace's" "$(grep -c 'DIFFERENT' "$OUT/BENCHMARKS.md")" "0"
check_eq "methods checked identical" "$(grep -c '| identical |$' "$OUT/BENCHMARKS.md")" "2"
finish
