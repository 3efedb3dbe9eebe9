#!/usr/bin/env bash
# tools/doc_examples.sh [--update] FILE...
#
# Runs every ```sql block of each Markdown FILE, in order, each in a psql
# session of its own (so a block works when pasted alone: no variable, temp
# table or setting carries over), against a database prepared as the file
# assumes: for the README and the reference, the bundled samples loaded as
# the README's Loading section does; for the cookbook (doc/analyses.md), the
# demo's data (tools/demo.sql).  Prints
# "ok - FILE: block N" or "not ok - FILE: block N" with psql's error.
#
# --update: also writes each block's output into the plain ``` block that
# follows it (the cookbook's shown output), psql's aligned format without
# the row count; "-- \x on" in a block's first line shows it expanded.
#
# Needs a server (PGHOST/PGPORT, e.g. under tools/tmp_cluster.sh) with
# acmetrace installed.  Exit status: 0 when every block ran.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
[ $# -gt 0 ] || { echo "usage: tools/doc_examples.sh [--update] FILE..." >&2; exit 64; }
work=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

prepare() {  # prepare DB FILE: a fresh database as FILE's examples expect
    dropdb --if-exists "$1" >/dev/null 2>&1
    createdb "$1" || return 1
    case $(basename "$2") in
        analyses.md) psql -X -q -d "$1" -v ON_ERROR_STOP=1 -f tools/demo.sql >/dev/null ;;
        *) psql -X -q -d "$1" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION acmetrace;
\cd test/fixtures
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SQL
        ;;
    esac
}

for file in "$@"; do
    db=acmetrace_doc_examples
    if ! prepare "$db" "$file"; then
        echo "not ok - $file: could not prepare its database"; failed=1; continue
    fi
    # Split the file: blocks/N.sql, and which line each sql block ends on.
    rm -rf "$work/blocks"; mkdir -p "$work/blocks"
    awk -v dir="$work/blocks" '
        /^```sql[ \t]*$/ { n++; f = dir "/" n ".sql"; inside = 1; printf "" > f; next }
        inside && /^```[ \t]*$/ { inside = 0; close(f); next }
        inside { print > f }' "$file"
    n=$(ls "$work/blocks" | wc -l)
    [ "$n" -gt 0 ] || { echo "not ok - $file: no sql block"; failed=1; continue; }
    for k in $(seq 1 "$n"); do
        b="$work/blocks/$k.sql"
        opts=(-X -q -d "$db" -v ON_ERROR_STOP=1 -P footer=off -P null=)
        head -1 "$b" | grep -q -- '-- \\x on' && opts+=(-x)
        t0=$(date +%s.%N)
        if (cd "$work" && psql "${opts[@]}" -f "$b" >"$work/blocks/$k.out" 2>"$work/blocks/$k.err"); then
            out=$(cat "$work/blocks/$k.out"); printf '%s\n' "$out" >"$work/blocks/$k.out"   # no trailing blank lines
            echo "ok - $file: block $k ($(head -1 "$b" | cut -c1-60)) $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')"
        else
            echo "not ok - $file: block $k ($(head -1 "$b" | cut -c1-60))"
            sed 's/^/#   /' "$b" | head -8; sed 's/^/# /' "$work/blocks/$k.err" | head -5
            failed=1
        fi
    done
    if [ "$update" = 1 ]; then
        # Replace the plain ``` block right after each sql block with its output.
        awk -v dir="$work/blocks" '
            function emit(k,   line, f) {
                f = dir "/" k ".out"
                while ((getline line < f) > 0) print line
                close(f)
            }
            /^```sql[ \t]*$/ { n++; print; insql = 1; next }
            insql && /^```[ \t]*$/ { print; insql = 0; after = 1; next }
            insql { print; next }
            after && /^```[ \t]*$/ && !inout { print; emit(n); inout = 1; next }
            inout && /^```[ \t]*$/ { print; inout = 0; after = 0; next }
            inout { next }
            { after = 0; print }' "$file" >"$work/updated.md" && cp "$work/updated.md" "$file"
        # psql pads aligned output with trailing blanks: drop them.
        sed -i 's/[ \t]*$//' "$file"
    fi
    dropdb --if-exists "$db" >/dev/null 2>&1
done
exit $failed
