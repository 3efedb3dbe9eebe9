#!/usr/bin/env bash
# The two C layers keep their shape (CONTRIBUTING.md, "Layers and names"):
#  - src/core/*.{c,h} include no PostgreSQL header;
#  - a glue file is src/<stem>_<role>.c (role: agg, type, fns, load, store, scan)
#    or one of the module's own files (acmetrace.c, settings.c, checks.c),
#    and never shares its name with a core file;
#  - no glue file is over 450 lines, no glue function over 80 (a function
#    is a body from "{" to "}" at column 0, counted with both lines).
# Needs no server. LAYERS_ROOT=DIR checks another tree (self-test).
. "$(dirname "$0")/lib.sh"
REPO=${LAYERS_ROOT:-$ROOT}
MAX_FILE=450
MAX_FN=80

pg=$(grep -lE '^#include[[:space:]]*[<"](postgres|fmgr|funcapi|executor/|utils/|catalog/|access/|nodes/|lib/)' \
    "$REPO"/src/core/*.c "$REPO"/src/core/*.h 2>/dev/null | sed "s|^$REPO/||" | tr '\n' ' ')
check_eq "core files including PostgreSQL headers" "$pg" ""

names=""
for f in "$REPO"/src/*.c; do
    b=$(basename "$f" .c)
    case $b in
        acmetrace|settings|checks) ;;
        *_agg|*_type|*_fns|*_load|*_store|*_scan) ;;
        *) names="$names$b.c (no role suffix) " ;;
    esac
    [ -e "$REPO/src/core/$b.c" ] && names="$names$b.c (a core file's name) "
done
check_eq "glue files breaking the naming rule" "$names" ""

long=""
for f in "$REPO"/src/*.c; do
    n=$(wc -l <"$f")
    [ "$n" -gt "$MAX_FILE" ] && long="$long$(basename "$f"):$n "
done
check_eq "glue files over $MAX_FILE lines" "$long" ""

fns=$(awk -v max="$MAX_FN" '
    FNR == 1 { inb = 0 }
    /^[A-Za-z_].*\(/ && !inb { sig = $0; sigline = FNR }
    /^\{/ && !inb { inb = 1; start = FNR; next }
    /^\}/ && inb { inb = 0; if (FNR - start + 1 > max) printf "%s:%d(%d) ", FILENAME, sigline, FNR - start + 1 }
' "$REPO"/src/*.c | sed "s|$REPO/src/||g")
check_eq "glue functions over $MAX_FN lines" "$fns" ""

# The rules must be able to fail: a tree with a long glue function, a glue
# file named like a core file and a core file including postgres.h.
if [ -z "${LAYERS_ROOT:-}" ]; then
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/src/core"
    printf '#include "postgres.h"\n' >"$tmp/src/core/bad.c"
    { echo 'int'; echo 'bad(void)'; echo '{'; for i in $(seq 1 $MAX_FN); do echo '	x();'; done; echo '}'; } >"$tmp/src/bad.c"
    got=$(LAYERS_ROOT=$tmp bash "$0" 2>&1 | grep -c '^  FAIL:')
    check_eq "self-test: a bad tree fails the rules (core header, name, function)" "$got" "3"
fi
finish
