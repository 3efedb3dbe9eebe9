# Helpers for the end-to-end tests. Each test runs against the server that
# test/run.sh started (PG* variables set by tools/tmp_cluster.sh).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIX="$ROOT/test/fixtures"
# (a script's second pass, e.g. faults.sh's --inner, sets OUT and keeps it)
if [ -z "${E2E_KEEP_OUT:-}" ]; then
    OUT="$ROOT/test/out/$(basename "$0" .sh)"
    rm -rf "$OUT"; mkdir -p "$OUT"
fi
FAILS=0

# fresh_db NAME: an empty database with acmetrace installed; PGDATABASE set.
fresh_db() {
    dropdb --if-exists "$1" && createdb "$1" || { bad "cannot create database $1"; exit 1; }
    export PGDATABASE="$1"
    psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION acmetrace' >/dev/null ||
        { bad "CREATE EXTENSION failed in $1"; exit 1; }
}
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
ok()  { echo "  ok: $*"; }
bad() { echo "  FAIL: $*"; FAILS=$((FAILS + 1)); }
check_eq() {  # check_eq WHAT GOT WANT
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}
finish() { [ "$FAILS" -eq 0 ]; exit $?; }

# summaries_text: one md5 of every summary table (built_at left out) in the
# current PGDATABASE; check_summaries WHAT: they equal a rebuild.
summaries_text() {
    q -c "SELECT md5(string_agg(t, '|' ORDER BY t COLLATE \"C\")) FROM (
            SELECT 'c ' || (s.cluster, s.jobs, s.occupancy_capacity, s.peak_allocated, s.exact)::text AS t FROM acmetrace.summary_clusters s
            UNION ALL SELECT 'j ' || s::text FROM acmetrace.summary_jobs s
            UNION ALL SELECT 'g ' || s::text FROM acmetrace.summary_groups s
            UNION ALL SELECT 'w ' || s::text FROM acmetrace.summary_weeks s
            UNION ALL SELECT 'v ' || s::text FROM acmetrace.summary_values s
            UNION ALL SELECT 'e ' || s::text FROM acmetrace.summary_extents s
            UNION ALL SELECT 'h ' || s::text FROM acmetrace.summary_hours s
            UNION ALL SELECT 'd ' || s::text FROM acmetrace.summary_days s
            UNION ALL SELECT 'u ' || s::text FROM acmetrace.summary_usage s) x"
}
check_summaries() {
    local before; before=$(summaries_text)
    q -c "SELECT acmetrace.refresh_summaries()" >/dev/null
    check_eq "$1: summaries equal a rebuild" "$(summaries_text)" "$before"
}

# compare_calls FILE WHAT: every query line of FILE (test/e2e/citus/calls.sql:
# one query a line, sorted first after a "-- any order" line) run by ref_q
# and by test_q (the caller's functions, given the line); their outputs must
# be equal as text, and the reference's neither empty nor an error.  Lines
# matching the regex SKIP_CALLS are left out.  One FAIL per line that
# differs; CALLS_SAME and CALLS_DIFFER count them.
compare_calls() {
    local file=$1 what=$2 any=0 line a b
    CALLS_SAME=0 CALLS_DIFFER=0
    while IFS= read -r line; do
        case $line in
            "-- any order") any=1; continue ;;
            --*|"") continue ;;
        esac
        if [ -n "${SKIP_CALLS:-}" ] && [[ $line =~ $SKIP_CALLS ]]; then any=0; continue; fi
        a=$(ref_q "$line" 2>&1 </dev/null); b=$(test_q "$line" 2>&1 </dev/null)
        if [ "$any" = 1 ]; then a=$(sort <<<"$a"); b=$(sort <<<"$b"); fi
        any=0
        if [ -z "$a" ] || grep -q '^\(psql:.*\)\?ERROR' <<<"$a"; then
            bad "the reference gave nothing or an error for: $line: $(head -3 <<<"$a")"
        elif [ "$a" = "$b" ]; then
            CALLS_SAME=$((CALLS_SAME + 1))
        else
            CALLS_DIFFER=$((CALLS_DIFFER + 1))
            bad "$what differs from the reference: $line"
            diff <(echo "$a") <(echo "$b") | head -8 | sed 's/^/      /'
        fi
    done <"$file"
}
