#!/usr/bin/env bash
# tools/tmp_cluster.sh [-d] [-o NAME=VALUE]... COMMAND [ARG...]
#
# Runs COMMAND against a throw-away PostgreSQL 15 cluster of its own, the
# way pg_virtualenv does, but safe to run beside any other server and any
# other run of itself: initdb in a fresh temporary directory, the unix
# socket in that directory, TCP on 127.0.0.1 only, on a port found free and
# retried if another server takes it first.  No cluster name is shared, so a
# user's own "regress" cluster or a second test run never collides.
# COMMAND gets PGHOST (the socket directory), PGPORT, PGUSER=postgres and
# PGDATABASE=postgres; -o sets a server setting (e.g. -o work_mem=64MB).
# Tests run with fsync=off (their clusters are thrown away; a crash test
# that needs durability sets -o fsync=on); -d (durable, for benchmarks)
# keeps every durability setting at its default: fsync, synchronous_commit
# and full_page_writes on, and an initdb that syncs.
# The cluster is stopped and removed on any exit.  Exit status: COMMAND's,
# or 2 (with the reason on stderr) if the cluster could not be started.
set -u
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir) || { echo "tmp_cluster: no pg_config at $PG_CONFIG" >&2; exit 2; }
sets=() fsync="-c fsync=off" nosync=--no-sync
while getopts do: opt; do
    case $opt in
        o) sets+=(-c "$OPTARG") ;;
        d) fsync="" nosync="" ;;
        *) echo "usage: tools/tmp_cluster.sh [-d] [-o NAME=VALUE]... COMMAND [ARG...]" >&2; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: tools/tmp_cluster.sh [-d] [-o NAME=VALUE]... COMMAND [ARG...]" >&2; exit 64; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-pg.XXXXXX") || exit 2
chmod 755 "$dir"
# initdb and the server refuse to run as root: run them as postgres.
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    as_server() { runuser -u postgres -- "$@"; }
else
    as_server() { "$@"; }
fi
cleanup() {
    [ -f "$dir/data/postmaster.pid" ] && as_server "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

as_server "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust $nosync --no-instructions \
    -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { echo "tmp_cluster: initdb failed:" >&2; tail -5 "$dir/initdb.log" >&2; exit 2; }

# ss comes with iproute2 (tools/install-deps.sh); the retry below covers a race.
port_busy() { ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q .; }
started=
for try in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    port_busy "$port" && continue
    if as_server "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
           -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $fsync ${sets[*]}" start >/dev/null 2>&1; then
        started=1; break
    fi
done
[ -n "$started" ] || { echo "tmp_cluster: the server did not start:" >&2; tail -5 "$dir/server.log" >&2; exit 2; }

export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres PG_CONFIG
unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS PGCLUSTER
"$@"
