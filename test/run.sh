#!/usr/bin/env bash
# The test command: build and install, then plain-C core tests, the fuzz
# harnesses (short mode), pg_regress suites and end-to-end shell tests, each
# in a temporary PostgreSQL 15 cluster (pg_virtualenv), and the pg_regress
# suites again against an ASan/UBSan build.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
mkdir -p test/out
pass=0; fail=0
FUZZ_RUNS=${FUZZ_RUNS:-20000}
count() {  # count LOG: tally "ok ..." / "not ok ..." lines
    local p f
    p=$(grep -cE '^ok ' "$1"); f=$(grep -cE '^not ok ' "$1")
    pass=$((pass + p)); fail=$((fail + f))
}
summary() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]; exit $?; }

echo "== build"
if make -s >test/out/build.log 2>&1 && make -s install >>test/out/build.log 2>&1; then
    echo "ok - build and install"; pass=$((pass + 1))
else
    echo "not ok - build and install"; cat test/out/build.log; fail=$((fail + 1)); summary
fi

echo "== core (plain C)"
make -s check-core 2>&1 | tee test/out/core.log
grep -qE '^(ok|not ok) ' test/out/core.log || { echo "not ok - core tests did not run"; fail=$((fail + 1)); }
count test/out/core.log

echo "== fuzz (libFuzzer, $FUZZ_RUNS runs per harness; long mode: make fuzz FUZZ_RUNS=1000000)"
make -s fuzz FUZZ_RUNS="$FUZZ_RUNS" >test/out/fuzz.log 2>&1
grep -E '^(ok|not ok) ' test/out/fuzz.log | tee test/out/fuzz.tap
grep -q '^not ok ' test/out/fuzz.tap && grep -E '^#' test/out/fuzz.log | tail -40
grep -qE '^(ok|not ok) ' test/out/fuzz.tap || { echo "not ok - fuzz harnesses did not run"; tail -20 test/out/fuzz.log; fail=$((fail + 1)); }
count test/out/fuzz.tap

echo "== pg_regress"
pg_virtualenv -v 15 make -s installcheck >test/out/regress.log 2>&1
sed -nE 's/^(test|     ) *([a-z_0-9]+) +\.\.\. (ok|FAILED).*/\3 - regress\/\2/p' test/out/regress.log |
    sed 's/^FAILED/not ok/' | tee test/out/regress.tap
count test/out/regress.tap
grep -qE '^(ok|not ok) ' test/out/regress.tap || { echo "not ok - pg_regress did not run"; tail -20 test/out/regress.log; fail=$((fail + 1)); }
[ -f regression.diffs ] && head -100 regression.diffs

echo "== end-to-end"
pg_virtualenv -v 15 bash test/e2e/run_all.sh 2>&1 | tee test/out/e2e.log
count test/out/e2e.log

echo "== pg_regress under ASan/UBSan (make installcheck-asan)"
make -s installcheck-asan >test/out/asan.log 2>&1
# its core-test lines repeat the core run above
grep -E '^(ok|not ok) ' test/out/asan.log | grep -v ' - asan/core: ' | tee test/out/asan.tap
grep -q '^not ok ' test/out/asan.tap && tail -60 test/out/asan.log
grep -qE '^(ok|not ok) ' test/out/asan.tap || { echo "not ok - installcheck-asan did not run"; tail -20 test/out/asan.log; fail=$((fail + 1)); }
count test/out/asan.tap

summary
