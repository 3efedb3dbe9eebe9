# bench/lib.sh: helpers every bench script sources (bash).  Defines:
#
#   stamp FILES COMMAND...   the two stamp lines of a BENCHMARKS.md section
#                            (format agreed in the bench notes): the hidden
#                            <!-- stamp commit=... files=... --> line, then the
#                            visible "Commit ..., date UTC; machine; command: `...`"
#                            line.  FILES: comma-separated repo paths the
#                            section measures (commit gets +dirty if any of
#                            them has uncommitted changes).  COMMAND is printed
#                            with the repository root stripped from every word
#                            (a path outside it shortened to .../NAME).
#   bench_settings [PSQL...] the server's non-default settings (pg_settings,
#                            source <> 'default', less the per-run port, socket
#                            and paths; plus fsync, synchronous_commit and
#                            full_page_writes) as "- name = setting" lines; asks
#                            through PSQL (default: psql with the PG* environment).
#   bench_check_durable [PSQL...]
#                            fails (exit status 1, a message on stderr) unless
#                            the server runs with fsync = on.
#   bench_relpath PATH       PATH relative to the repository root if under it.
#   bench_compare REF OUT TOL
#                            compares two sorted result files (psql -A -t
#                            style, '|' separated) row by row: non-numeric
#                            fields equal, numbers within relative TOL.
#                            Prints "identical", "equal (largest relative
#                            difference D, allowed TOL)" or "DIFFERENT (...)",
#                            and returns 1 when DIFFERENT.
#
# Nothing here writes outside stdout; nothing here depends on the current
# directory.
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_relpath() {
    local p=$1
    case $p in
        "$BENCH_ROOT") echo . ;;
        "$BENCH_ROOT"/*) echo "${p#"$BENCH_ROOT"/}" ;;
        *) echo "$p" ;;
    esac
}

stamp() {
    local files=$1 f commit dirty="" cpu cores mem cmd="" w
    shift
    commit=$(git -C "$BENCH_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
    local paths=()
    IFS=',' read -r -a paths <<<"$files"
    if [ -n "$(git -C "$BENCH_ROOT" status --porcelain -- "${paths[@]}" 2>/dev/null)" ]; then dirty=+dirty; fi
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    cores=$(nproc)
    mem=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
    for w in "$@"; do
        w=${w//"$BENCH_ROOT"\//}
        w=${w//"$BENCH_ROOT"/.}
        # a path outside the repository (an --out file elsewhere): its name only
        [[ $w != /* ]] || w=".../${w##*/}"
        cmd+="${cmd:+ }$w"
    done
    echo "<!-- stamp commit=$commit$dirty files=$files -->"
    echo "Commit \`${commit:0:12}$dirty\`, $(date -u '+%Y-%m-%d %H:%M') UTC; ${cpu:-unknown CPU}, $cores cores, $mem GiB; command: \`$cmd\`"
}

bench_settings() {
    [ $# -gt 0 ] || set -- psql
    # The durability settings are listed even at their defaults: a reader
    # checks fsync = on without knowing the defaults.
    "$@" -X -A -t -F' = ' -v ON_ERROR_STOP=1 -c "SELECT name, setting || coalesce(' (unit ' || unit || ')', '')
        FROM pg_settings
        WHERE (source <> 'default' OR name IN ('fsync', 'synchronous_commit', 'full_page_writes'))
          AND name NOT IN ('port', 'unix_socket_directories', 'data_directory', 'hba_file',
                           'ident_file', 'config_file', 'external_pid_file')
        ORDER BY name" | sed 's/^/- /'
}

bench_check_durable() {
    local f
    [ $# -gt 0 ] || set -- psql
    f=$("$@" -X -A -t -c "SELECT setting FROM pg_settings WHERE name = 'fsync'") || return 1
    [ "$f" = on ] || { echo "bench: the server runs with fsync = $f; benchmarks need a durable server (tools/tmp_cluster.sh -d)" >&2; return 1; }
}

bench_compare() {
    local ref=$1 out=$2 tol=$3 d
    if cmp -s "$ref" "$out"; then echo identical; return 0; fi
    d=$(awk -f "$BENCH_ROOT/bench/compare.awk" "$ref" "$out")
    if [ "$d" = mismatch ]; then
        echo "DIFFERENT (rows differ: $(wc -l <"$ref") against $(wc -l <"$out"), or a non-numeric field)"
        return 1
    fi
    if awk -v d="$d" -v t="$tol" 'BEGIN { exit !(d <= t * (1 + 1e-9)) }'; then
        echo "equal (largest relative difference $d, allowed $tol)"
    else
        echo "DIFFERENT (largest relative difference $d, allowed $tol)"
        return 1
    fi
}
