#!/usr/bin/env bash
# Every public acmetrace function, aggregate, type, table and view is
# documented in doc/reference.md as acmetrace.<name> (type I/O and operator
# functions are covered by their type).
. "$(dirname "$0")/lib.sh"
fresh_db e2e_docs
REF="$ROOT/doc/reference.md"
names=$(q -c "SELECT DISTINCT p.proname FROM pg_proc p
               WHERE p.pronamespace = 'acmetrace'::regnamespace AND p.proname !~ '^_'
                 AND NOT EXISTS (SELECT 1 FROM pg_type t
                                  WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
                 AND NOT EXISTS (SELECT 1 FROM pg_operator o WHERE o.oprcode = p.oid)
              UNION SELECT typname FROM pg_type WHERE typnamespace = 'acmetrace'::regnamespace AND typtype = 'b' AND typcategory <> 'A'
              UNION SELECT relname FROM pg_class WHERE relnamespace = 'acmetrace'::regnamespace AND relkind IN ('r','v','p')")
[ -n "$names" ] && ok "found $(wc -w <<<"$names") public objects" || bad "no public objects found"
[ -f "$REF" ] && ok "doc/reference.md exists" || bad "doc/reference.md is missing"
missing=$(for name in $names; do grep -q "acmetrace\.$name\b" "$REF" || echo "$name"; done)
check_eq "objects missing from doc/reference.md" "$missing" ""
finish
