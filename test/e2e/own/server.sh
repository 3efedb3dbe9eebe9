# shellcheck shell=bash
# Sourced by end-to-end tests that need a server of their own (one they may
# fill up, load hard or stop), beside the shared one of test/run.sh:
#   own_server_start [-c NAME=VALUE]...  initdb in a fresh temporary directory
#       (as the OS user postgres when root), a free port, the unix socket in
#       that directory, TCP on 127.0.0.1 only; exports PG* for it; OWN_DIR,
#       OWN_PGDATA, OWN_LOG; returns 1 (reason on stderr) if it cannot start.
#   own_server_stop   stop it (immediate) and remove its directory; idempotent.
# The caller's EXIT trap must call own_server_stop.
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
OWN_DIR=''
if [ "$(id -u)" -eq 0 ]; then
    as_server() { runuser -u postgres -- "$@"; }
else
    as_server() { "$@"; }
fi
own_server_start() {
    local port
    OWN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-own.XXXXXX") || return 1
    chmod 755 "$OWN_DIR"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$OWN_DIR"
    OWN_PGDATA=$OWN_DIR/data OWN_LOG=$OWN_DIR/server.log
    as_server "$PGBIN/initdb" -D "$OWN_PGDATA" -U postgres --auth=trust --no-sync --no-instructions \
        -E UTF8 --locale=C.UTF-8 >"$OWN_DIR/initdb.log" 2>&1 ||
        { echo "own server: initdb failed: $(tail -3 "$OWN_DIR/initdb.log")" >&2; return 1; }
    for _ in 1 2 3 4 5 6 7 8; do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        ! ss -Htln "( sport = :$port )" 2>/dev/null | grep -q . || continue
        if as_server "$PGBIN/pg_ctl" -D "$OWN_PGDATA" -l "$OWN_LOG" -w -t 60 \
               -o "-p $port -k $OWN_DIR -c listen_addresses=127.0.0.1 $*" start >/dev/null 2>&1; then
            export PGHOST=$OWN_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
            unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS
            return 0
        fi
    done
    echo "own server: did not start: $(tail -3 "$OWN_LOG" 2>/dev/null)" >&2
    return 1
}
own_server_stop() {
    [ -n "$OWN_DIR" ] || return 0
    [ ! -f "$OWN_PGDATA/postmaster.pid" ] || as_server "$PGBIN/pg_ctl" -D "$OWN_PGDATA" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$OWN_DIR"; OWN_DIR=''
}
