#!/usr/bin/env bash
# Runs each end-to-end test against the current server and reports every
# check it makes as a TAP-style line.  A script that made no check at all
# is a failure of its own ("did not run"), whatever its exit status.
cd "$(dirname "$0")"
mkdir -p ../out
if ! psql -X -q -c 'SELECT 1' >/dev/null 2>&1; then
    echo "not ok - e2e: no server to run against"; exit 1
fi
for t in $(ls *.sh | grep -v -e '^lib.sh$' -e '^run_all.sh$' | sort); do
    log="../out/e2e-${t%.sh}.log"
    bash "$t" >"$log" 2>&1
    rc=$?
    sed -nE "s/^  ok: (.*)/ok - e2e\/${t%.sh}: \1/p; s/^  FAIL: (.*)/not ok - e2e\/${t%.sh}: \1/p; s/^  SKIP: (.*)/ok - e2e\/${t%.sh} # SKIP \1/p" "$log"
    if ! grep -qE '^  (ok|FAIL|SKIP): ' "$log"; then
        echo "not ok - e2e/${t%.sh} did not run (exit $rc)"; tail -20 "$log" | sed 's/^/    /'
    elif [ $rc -ne 0 ] && ! grep -q '^  FAIL: ' "$log"; then
        echo "not ok - e2e/${t%.sh}: exited $rc"; sed 's/^/    /' "$log"
    fi
done
