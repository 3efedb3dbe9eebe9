#!/usr/bin/env bash
# The test command: build and install, then plain-C core tests, the fuzz
# harnesses (short mode), pg_regress suites and end-to-end shell tests, each
# in a throw-away PostgreSQL 15 cluster of its own (tools/tmp_cluster.sh: a
# temporary directory and a free port, so a user's own "regress" cluster or
# a second run never collides), and the pg_regress suites again against an
# ASan/UBSan build.  A stage, suite or script that could not run is a
# "not ok ... did not run" line, so the total never shrinks silently.
# Ends with "N passed, N failed".
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
did_not_run() {  # did_not_run STAGE LOG: a failure of its own, with the log's tail
    echo "not ok - $1 did not run"; [ -f "$2" ] && tail -20 "$2" | sed 's/^/# /'
    fail=$((fail + 1))
}
summary() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]; exit $?; }
# Every pg_regress suite in sql/ must report, whatever pg_regress did.
missing_suites() {  # missing_suites TAP PREFIX
    local f t
    for f in sql/*.sql; do
        t=$(basename "$f" .sql)
        grep -qE " - $2$t\$" "$1" || echo "not ok - $2$t did not run"
    done
}

echo "== build"
if make -s >test/out/build.log 2>&1 && make -s install >>test/out/build.log 2>&1; then
    echo "ok - build and install"; pass=$((pass + 1))
else
    echo "not ok - build and install"; cat test/out/build.log; fail=$((fail + 1)); summary
fi

echo "== core (plain C)"
make -s check-core 2>&1 | tee test/out/core.log
grep -qE '^(ok|not ok) ' test/out/core.log || did_not_run "core tests" test/out/core.log
count test/out/core.log

echo "== fuzz (libFuzzer, $FUZZ_RUNS runs per harness; long mode: make fuzz FUZZ_RUNS=1000000)"
make -s fuzz FUZZ_RUNS="$FUZZ_RUNS" >test/out/fuzz.log 2>&1
grep -E '^(ok|not ok) ' test/out/fuzz.log | tee test/out/fuzz.tap
grep -q '^not ok ' test/out/fuzz.tap && grep -E '^#' test/out/fuzz.log | tail -40
grep -qE '^(ok|not ok) ' test/out/fuzz.tap || did_not_run "fuzz harnesses" test/out/fuzz.log
count test/out/fuzz.tap

echo "== pg_regress"
rm -f regression.diffs
bash tools/tmp_cluster.sh make -s installcheck >test/out/regress.log 2>&1
sed -nE 's/^(test|     ) *([a-z_0-9]+) +\.\.\. (ok|FAILED).*/\3 - regress\/\2/p' test/out/regress.log |
    sed 's/^FAILED/not ok/' >test/out/regress.tap
missing_suites test/out/regress.tap regress/ >>test/out/regress.tap
cat test/out/regress.tap
grep -qE '^ok ' test/out/regress.tap || { echo "# pg_regress log:"; tail -20 test/out/regress.log | sed 's/^/# /'; }
count test/out/regress.tap
[ -f regression.diffs ] && head -100 regression.diffs

echo "== end-to-end"
bash tools/tmp_cluster.sh bash test/e2e/run_all.sh 2>&1 | tee test/out/e2e.log
grep -qE '^(ok|not ok) ' test/out/e2e.log || did_not_run "end-to-end tests" test/out/e2e.log
count test/out/e2e.log

echo "== pg_regress under ASan/UBSan (make installcheck-asan)"
make -s installcheck-asan >test/out/asan.log 2>&1
# its core-test lines repeat the core run above
grep -E '^(ok|not ok) ' test/out/asan.log | grep -v ' - asan/core: ' | tee test/out/asan.tap
grep -q '^not ok ' test/out/asan.tap && tail -60 test/out/asan.log
grep -qE '^(ok|not ok) ' test/out/asan.tap || did_not_run "installcheck-asan" test/out/asan.log
count test/out/asan.tap

summary
