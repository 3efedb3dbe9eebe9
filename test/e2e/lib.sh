# Helpers for the end-to-end tests. Each test runs against the server that
# test/run.sh started (PG* variables set by tools/tmp_cluster.sh).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIX="$ROOT/test/fixtures"
OUT="$ROOT/test/out/$(basename "$0" .sh)"
rm -rf "$OUT"; mkdir -p "$OUT"
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
