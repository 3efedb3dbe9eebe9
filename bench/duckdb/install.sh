#!/usr/bin/env bash
# bench/duckdb/install.sh: make sure node, npm and the locked @duckdb/node-api
# are in place for bench/duckdb/run.mjs.  Idempotent and quiet; one line on
# stderr and a non-zero exit on failure.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
fail() { echo "bench/duckdb/install.sh: $*" >&2; exit 1; }
log=$(mktemp) || fail "mktemp failed"
trap 'rm -f "$log"' EXIT

apt_install() {
    [ "$(id -u)" = 0 ] || fail "$1 is missing; install it (apt-get install $1) or run this as root"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q "$1" || { apt-get update -q && apt-get install -y -q "$1"; }; } >"$log" 2>&1 ||
        fail "apt-get install $1 failed: $(grep -m1 -E '^E:' "$log")"
}
# Some nodejs packages (e.g. NodeSource's) bundle npm and conflict with
# Debian's npm package, so npm only if nodejs did not bring it.
command -v node >/dev/null || apt_install nodejs
command -v npm >/dev/null || apt_install npm
command -v node >/dev/null && command -v npm >/dev/null || fail "node or npm still missing after apt-get install"

# node_modules counts as in place when it was installed from this very lock
# (stamp written below) and the package loads (right platform binding).
stamp=node_modules/.acmetrace-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1) || fail "cannot read package-lock.json"
loads() { node --input-type=module -e "await import('@duckdb/node-api')" >/dev/null 2>&1; }
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && loads; then
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error --prefix . >"$log" 2>&1 ||
    fail "npm ci failed: $(grep -m1 -E 'npm (error|ERR!)' "$log" || tail -1 "$log")"
loads || fail "@duckdb/node-api does not load after npm ci (node $(node --version), $(uname -m))"
echo "$want" >"$stamp"
