#!/usr/bin/env bash
# Concurrent loads: sessions racing to load the same cluster end with exactly
# one copy of it (the others get the duplicate-load error); sessions loading
# different clusters all succeed.  Loopback only, bounded by timeout.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_concurrent
cd "$FIX"
load() {  # load CLUSTER LOGFILE
    timeout 60 psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
        -c "SET acmetrace.cluster = '$1'" \
        -c "\\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)" \
        >"$2" 2>&1
}
pids=()
for i in 1 2 3 4 5 6; do load race "$OUT/race.$i" & pids+=($!); done
for i in 1 2 3 4 5 6; do load "c$i" "$OUT/c.$i" & pids+=($!); done
okc=0; failc=0
for p in "${pids[@]:0:6}"; do if wait "$p"; then okc=$((okc + 1)); else failc=$((failc + 1)); fi; done
for p in "${pids[@]:6}"; do wait "$p" || bad "a load into its own cluster failed"; done
check_eq "racing loads that succeeded" "$okc" 1
check_eq "racing loads rejected as duplicates" \
    "$(cat "$OUT"/race.* | grep -c 'ERROR:  23505: cluster "race" already holds 2 of the 2 jobs')" 5
check_eq "jobs in the raced cluster" "$(q -c "SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'race'")" 2
check_eq "clusters loaded side by side" \
    "$(q -c "SELECT count(*) || '/' || sum(n) FROM (SELECT count(*) n FROM acmetrace.jobs WHERE cluster ~ '^c[0-9]$' GROUP BY cluster) s")" "6/12"
check_eq "staging tables empty" "$(q -c "SELECT count(*) FROM acmetrace.trace_kalos")" 0
finish
