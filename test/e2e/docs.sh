#!/usr/bin/env bash
# The documentation matches the extension:
#  - every function, aggregate, type, table and view of the schema acmetrace
#    is documented in doc/reference.md as acmetrace.<name> (type I/O and
#    operator functions are covered by their type), and the schema holds no
#    internal helper (they live in acmetrace_internal);
#  - every SQL example of the README, the reference and the cookbook runs
#    when pasted alone into psql, in order, against the data the text says
#    it uses (tools/doc_examples.sh).
. "$(dirname "$0")/lib.sh"
fresh_db e2e_docs
REF="$ROOT/doc/reference.md"
names=$(q -c "SELECT DISTINCT p.proname FROM pg_proc p
               WHERE p.pronamespace = 'acmetrace'::regnamespace
                 AND NOT EXISTS (SELECT 1 FROM pg_type t
                                  WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
                 AND NOT EXISTS (SELECT 1 FROM pg_operator o WHERE o.oprcode = p.oid)
              UNION SELECT typname FROM pg_type WHERE typnamespace = 'acmetrace'::regnamespace AND typtype = 'b' AND typcategory <> 'A'
              UNION SELECT relname FROM pg_class WHERE relnamespace = 'acmetrace'::regnamespace AND relkind IN ('r','v','p')")
[ -n "$names" ] && ok "found $(wc -w <<<"$names") public objects" || bad "no public objects found"
[ -f "$REF" ] && ok "doc/reference.md exists" || bad "doc/reference.md is missing"
missing=$(for name in $names; do grep -q "acmetrace\.$name\b" "$REF" || echo "$name"; done)
check_eq "objects missing from doc/reference.md" "$missing" ""
check_eq "internal helpers in the public schema" \
    "$(q -c "SELECT string_agg(proname, ' ') FROM pg_proc WHERE pronamespace = 'acmetrace'::regnamespace AND proname ~ '^_'")" ""

# Every example, each in a session of its own.
bash "$ROOT/tools/doc_examples.sh" "$ROOT/README.md" "$ROOT/doc/reference.md" "$ROOT/doc/analyses.md" >"$OUT/doc_examples.txt" 2>&1
examples=$(grep -c '^ok - ' "$OUT/doc_examples.txt")
[ "$examples" -ge 45 ] && ok "$examples SQL examples of README.md, doc/reference.md and doc/analyses.md run" ||
    bad "only $examples SQL examples ran"
if grep -q '^not ok' "$OUT/doc_examples.txt"; then
    bad "examples that fail: $(grep -A6 '^not ok' "$OUT/doc_examples.txt" | head -30)"
else ok "no example fails"; fi
finish
