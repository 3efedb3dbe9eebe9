#!/usr/bin/env bash
# make installcheck-asan: the plain-C core tests and the WHOLE pg_regress
# suite against acmetrace built with AddressSanitizer + UndefinedBehavior-
# Sanitizer.  See doc/sanitizers.md.
#
# Nothing outside test/out/asan/ is written: the sources are copied to
# test/out/asan/src and built there; the system PostgreSQL tree (bin, lib,
# share) is copied to test/out/asan/root, where the binaries relocate their
# sharedir/pkglibdir to the copy, and the sanitized build is installed into
# it with DESTDIR.  A private server (unix socket in test/out/asan/run, no
# TCP) runs from that copy with libasan preloaded.
#
# Prints TAP lines ("ok - asan/..."), exits nonzero on any failure.
# Environment: PG_CONFIG (default pg_config), ASAN_TIMEOUT (seconds for the
# pg_regress run, default 900), ASAN_PATCH (a patch -p1 applied to the
# copy before building: used to prove the harness catches planted bugs).
set -u -o pipefail
umask 022
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd -P)
OUT=$TOP/test/out/asan
SRC=$OUT/src ROOT=$OUT/root RUN=$OUT/run PRIV=
# As root the server runs as postgres, which must reach the private
# PostgreSQL tree and its run directory: a clone under a 0700 directory
# (/root) would hide them, so they live in a directory of their own in /tmp.
if [ "$(id -u)" -eq 0 ]; then
    PRIV=$(mktemp -d /tmp/acmetrace-asan.XXXXXX) && chmod 755 "$PRIV" || exit 1
    ROOT=$PRIV/root RUN=$PRIV/run
fi
INITFIRST=${PRIV:-$OUT}/asan_initfirst
DATA=$RUN/data SOCK=$RUN/sock LOG=$OUT/server.log
PG_CONFIG=${PG_CONFIG:-pg_config}
REGRESS_TIMEOUT=${ASAN_TIMEOUT:-900}
# Appended to PostgreSQL's CFLAGS.  -fno-wrapv undoes PostgreSQL's -fwrapv,
# under which signed overflow is defined and UBSan does not check it (the
# core tests, built without -fwrapv, hold the core to the same rule).
SAN='-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-wrapv -fno-omit-frame-pointer -g -O1'
t0=$(date +%s)
fail=0 server_pid=

ok() { echo "ok - asan/$1"; }
notok() { echo "not ok - asan/$1"; fail=$((fail + 1)); }
bail() {  # bail TEST LOGFILE: a setup step failed, nothing more can run
    notok "$1"; [ -n "${2:-}" ] && [ -f "$2" ] && tail -40 "$2" | sed 's/^/# /'
    exit 1
}

mkdir -p "$TOP/test/out"
exec 9>"$TOP/test/out/asan.lock"
flock -n 9 || { echo "not ok - asan/lock: another installcheck-asan is running in this tree"; exit 1; }

# The server runs as an unprivileged user: postgres refuses to run as root.
if [ "$(id -u)" -eq 0 ]; then
    PGRUN=(setpriv --reuid=postgres --regid=postgres --init-groups --)
else
    PGRUN=()
fi
as_pg() { (cd "$RUN" && exec "${PGRUN[@]}" "$@"); }

stop_server() {
    [ -n "$server_pid" ] || return 0
    local sig
    for sig in INT QUIT KILL; do  # fast, then immediate shutdown, then kill
        kill -"$sig" "$server_pid" 2>/dev/null || break
        for _ in $(seq 30); do kill -0 "$server_pid" 2>/dev/null || break 2; sleep 0.5; done
    done
    wait "$server_pid" 2>/dev/null
    server_pid=
}
# Long steps run in the background so that a signal is handled at once
# (bash runs traps only between foreground commands); each is under
# timeout(1), which passes a TERM on to its whole process group.
child=
run_bg() { "$@" & child=$!; wait "$child"; local rc=$?; child=; return $rc; }
cleanup() { stop_server; [ -n "$PRIV" ] && rm -rf "$PRIV"; }
trap 'cleanup' EXIT
trap 'echo "not ok - asan/interrupted"; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null; cleanup; exit 130' INT TERM

# A server left behind by a killed run of this script: stop it by its pid.
if [ -f "$DATA/postmaster.pid" ]; then
    old=$(head -1 "$DATA/postmaster.pid")
    if [ -n "$old" ] && [ "$(readlink "/proc/$old/exe" 2>/dev/null)" = "$ROOT$($PG_CONFIG --bindir)/postgres" ]; then
        kill -QUIT "$old"; sleep 2; kill -KILL "$old" 2>/dev/null
    fi
fi
rm -rf "$OUT"
mkdir -p "$SRC" "$ROOT" "$RUN"

bindir=$($PG_CONFIG --bindir) pkglibdir=$($PG_CONFIG --pkglibdir) sharedir=$($PG_CONFIG --sharedir) ||
    bail "pg_config ($PG_CONFIG)"
libasan=$(gcc -print-file-name=libasan.so) libubsan=$(gcc -print-file-name=libubsan.so)
[ -e "$libasan" ] && [ -e "$libubsan" ] || bail "libasan/libubsan not found (gcc -print-file-name=libasan.so)"

# 1. Private copy of the sources (no objects, results or bench data).
tar -C "$TOP" --exclude=./.git --exclude=./test/out --exclude=./bench --exclude=./results \
    --exclude=./log --exclude=./tmp_check --exclude=./regression.diffs --exclude=./regression.out \
    --exclude='*.o' --exclude='*.bc' --exclude='*.so' --exclude=./test/core/run_core -cf - . |
    tar -C "$SRC" -xf - || bail "copy sources"
make -C "$SRC" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
if [ -n "${ASAN_PATCH:-}" ]; then
    patch -d "$SRC" -p1 <"$ASAN_PATCH" >"$OUT/patch.log" 2>&1 || bail "apply ASAN_PATCH" "$OUT/patch.log"
    echo "# applied $ASAN_PATCH to the copy"
fi

# 2. Core tests (already ASan/UBSan), in the copy so no binary lands in the tree.
run_bg timeout 600 make -C "$SRC" -s check-core >"$OUT/core.log" 2>&1
rc=$?
sed -nE 's/^(ok|not ok) [0-9]+ - (.*)/\1 - asan\/core: \2/p' "$OUT/core.log"
fail=$((fail + $(grep -cE '^not ok ' "$OUT/core.log")))
if [ $rc -ne 0 ] || ! grep -qE '^ok ' "$OUT/core.log"; then
    notok "core (exit status $rc)"; grep -vE '^(ok|not ok|1\.\.)' "$OUT/core.log" | head -60 | sed 's/^/# /'
fi

# 3. Private PostgreSQL tree: the system one minus the system acmetrace.
for d in "$bindir" "$pkglibdir" "$sharedir"; do
    mkdir -p "$ROOT$d" && cp -a "$d/." "$ROOT$d/" || bail "copy $d"
done
rm -rf "$ROOT$pkglibdir"/acmetrace.so "$ROOT$pkglibdir"/bitcode/acmetrace* \
    "$ROOT$sharedir"/extension/acmetrace[.-]* "$ROOT$bindir"/acmetrace-report "$ROOT$bindir"/acmetrace-sync
[ "$("$ROOT$bindir/pg_config" --sharedir)" = "$ROOT$sharedir" ] &&
    [ "$("$ROOT$bindir/pg_config" --pkglibdir)" = "$ROOT$pkglibdir" ] ||
    bail "private PostgreSQL tree does not relocate (pg_config --sharedir: $("$ROOT$bindir/pg_config" --sharedir))"

# 4. Sanitized build, installed only into the private tree.  No bitcode:
# the server runs with jit=off, and bitcode would skip the sanitizers.
if run_bg timeout 600 make -C "$SRC" -s -j"$(nproc)" with_llvm=no PG_CONFIG="$PG_CONFIG" COPT="$SAN" >"$OUT/build.log" 2>&1 &&
    run_bg timeout 120 make -C "$SRC" -s install with_llvm=no PG_CONFIG="$PG_CONFIG" COPT="$SAN" DESTDIR="$ROOT" >>"$OUT/build.log" 2>&1; then
    ok "sanitized build"
else
    bail "sanitized build" "$OUT/build.log"
fi
so=$ROOT$pkglibdir/acmetrace.so
syms=$(nm -D "$so")
grep -q ' U __asan_report_load' <<<"$syms" && grep -q ' U __ubsan_handle_' <<<"$syms" ||
    bail "sanitized build: $so has no __asan/__ubsan references"

# 5. Private server: unix socket in a private directory, no TCP, libasan
# preloaded (the postgres binary is not instrumented, the dlopen'ed module is).
mkdir -p "$DATA" "$SOCK"
chmod 700 "$DATA" "$SOCK"
[ "$(id -u)" -eq 0 ] && chown postgres: "$RUN" "$DATA" "$SOCK"
as_pg test -x "$ROOT$bindir/initdb" ||
    bail "postgres cannot run $ROOT$bindir/initdb (a directory on its path is not searchable by postgres)"
as_pg timeout 120 "$ROOT$bindir/initdb" -D "$DATA" -U postgres --auth=trust --no-sync --no-instructions \
    -E UTF8 --locale=C.UTF-8 >"$OUT/initdb.log" 2>&1 || bail "initdb" "$OUT/initdb.log"
# A small preloaded shim, asan_initfirst.so:
# - libasan must initialize before any other library constructor, as in an
#   ASan-linked executable.  Preloaded, it initializes lazily on the first
#   malloc, which in postgres happens inside libgpg-error's constructor
#   while bindtextdomain() holds glibc's _nl_state_lock; ASan's init then
#   calls dlerror() -> dcgettext(), corrupting that lock, and postgres hangs
#   in its own bindtextdomain().  Linked -z initfirst, the shim's
#   constructor calls __asan_init before any other.
# - UBSan reads its options at its first report, from /proc/self/environ,
#   which in a backend holds the process title by then: the options would
#   be lost (no stack, no abort).  The shim supplies them through the
#   __ubsan_default_options hook (it precedes libubsan in LD_PRELOAD).
symbolizer=$(command -v llvm-symbolizer || true)
UBSAN_OPTS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:print_summary=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
printf '%s\n' 'extern void __asan_init(void);' \
    '__attribute__((constructor)) static void asan_initfirst(void) { __asan_init(); }' \
    'const char *__ubsan_default_options(void);' \
    "const char *__ubsan_default_options(void) { return \"$UBSAN_OPTS\"; }" >"$INITFIRST.c"
gcc -shared -fPIC -O1 -Wl,-z,initfirst -o "$INITFIRST.so" "$INITFIRST.c" || bail "build asan_initfirst.so"
port=$((20000 + RANDOM % 40000))
(cd "$RUN" && exec "${PGRUN[@]}" env LD_PRELOAD="$libasan:$INITFIRST.so:$libubsan" ASAN_SYMBOLIZER_PATH="$symbolizer" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:disable_coredump=1:print_summary=1:detect_stack_use_after_return=0 \
    UBSAN_OPTIONS="$UBSAN_OPTS" \
    "$ROOT$bindir/postgres" -D "$DATA" -c listen_addresses= -c port="$port" \
    -c unix_socket_directories="$SOCK" -c unix_socket_permissions=0700 -c jit=off \
    -c fsync=off -c logging_collector=off -c log_line_prefix='%m [%p] ') >"$LOG" 2>&1 &
server_pid=$!
export PGHOST=$SOCK PGPORT=$port PGUSER=postgres
unset PGDATABASE PGSERVICE PGHOSTADDR PGOPTIONS PGPASSWORD
for _ in $(seq 120); do
    "$ROOT$bindir/pg_isready" -q && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
done
"$ROOT$bindir/pg_isready" -q || bail "server start" "$LOG"

# 6. The whole pg_regress suite, from the copy (so PG_ABS_SRCDIR and the
# fixtures are the copy's), with the private tree's pg_regress and psql.
t1=$(date +%s)
run_bg timeout "$REGRESS_TIMEOUT" make -C "$SRC" -s installcheck PG_CONFIG="$ROOT$bindir/pg_config" >"$OUT/regress.log" 2>&1
rc=$?
regress_s=$(($(date +%s) - t1))
[ $rc -eq 124 ] && echo "# pg_regress timed out after ${REGRESS_TIMEOUT}s"
sed -nE 's/^(test|     ) *([a-z_0-9]+) +\.\.\. +(ok|FAILED|failed).*/\3 - asan\/regress\/\2/p' "$OUT/regress.log" |
    sed -E 's/^(FAILED|failed)/not ok/' >"$OUT/regress.tap"
cat "$OUT/regress.tap"
fail_before=$fail
fail=$((fail + $(grep -c '^not ok' "$OUT/regress.tap")))
for f in "$SRC"/sql/*.sql; do  # tests pg_regress never reported (it aborted)
    t=$(basename "$f" .sql)
    grep -qE " - asan/regress/$t\$" "$OUT/regress.tap" || notok "regress/$t (no result)"
done
if [ $rc -ne 0 ]; then  # a failure of its own only if no test failed
    [ "$fail" -eq "$fail_before" ] && notok "regress: make installcheck exit status $rc"
    echo "# make installcheck exit status $rc"
    grep -vE '^(test|     ) ' "$OUT/regress.log" | tail -8 | sed 's/^/# /'
fi
[ -s "$SRC/regression.diffs" ] && head -40 "$SRC/regression.diffs" | sed 's/^/# /' &&
    echo "# (all diffs: test/out/asan/src/regression.diffs)"

# 7. The suite's server really ran the sanitized module from the private tree
# (after a backend crash the server first needs a moment to recover).
for _ in $(seq 60); do "$ROOT$bindir/pg_isready" -q && break; sleep 0.5; done
maps=$("$ROOT$bindir/psql" -X -At -d postgres -c "LOAD '\$libdir/acmetrace'" \
    -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'" -c "SELECT pg_read_file('/proc/self/maps')" 2>&1)
if grep -qxF "$ROOT$pkglibdir" <<<"$maps" && grep -qF " $so" <<<"$maps" &&
    grep -q 'libasan\.so' <<<"$maps" && grep -q 'libubsan\.so' <<<"$maps" &&
    ! grep -qE " $pkglibdir/acmetrace\.so" <<<"$maps"; then
    ok "sanitized library loaded"
else
    notok "sanitized library loaded"
    grep -E 'acmetrace|asan|ubsan|ERROR|^/' <<<"$maps" | head -20 | sed 's/^/# /'
fi

# 8. Any sanitizer report, crash or abnormal backend exit in the server log.
stop_server
reports=$(grep -nE 'AddressSanitizer|LeakSanitizer|runtime error:|terminated by signal|server process .* exited with exit code|PANIC' "$LOG")
if [ -z "$reports" ]; then
    ok "no sanitizer reports"
else
    notok "no sanitizer reports"
    sed 's/^/# /' <<<"$reports" | head -40
    # The first report with its stack, and the statement that triggered it.
    grep -nE -m1 -A25 'ERROR: AddressSanitizer|runtime error:' "$LOG" | sed 's/^/# /'
    echo "# (full server log: test/out/asan/server.log)"
fi

echo "# asan: ${regress_s}s pg_regress, $(($(date +%s) - t0))s total; logs in test/out/asan/"
[ "$fail" -eq 0 ] || exit 1
rm -rf "$DATA" || true  # ~200 MB; kept after a failure, for a look at the cluster
