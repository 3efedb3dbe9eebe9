#!/usr/bin/env bash
# Every public acmetrace function, aggregate, type and table is documented
# in README.md (type I/O and operator functions are covered by their type).
. "$(dirname "$0")/lib.sh"
fresh_db e2e_docs
names=$(q -c "SELECT DISTINCT p.proname FROM pg_proc p
               WHERE p.pronamespace = 'acmetrace'::regnamespace AND p.proname !~ '^_'
                 AND NOT EXISTS (SELECT 1 FROM pg_type t
                                  WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
                 AND NOT EXISTS (SELECT 1 FROM pg_operator o WHERE o.oprcode = p.oid)
              UNION SELECT typname FROM pg_type WHERE typnamespace = 'acmetrace'::regnamespace AND typtype = 'b' AND typcategory <> 'A'
              UNION SELECT relname FROM pg_class WHERE relnamespace = 'acmetrace'::regnamespace AND relkind IN ('r','v','p')")
[ -n "$names" ] && ok "found $(wc -w <<<"$names") public objects" || bad "no public objects found"
missing=$(for name in $names; do grep -q "acmetrace\.$name\b" "$ROOT/README.md" || echo "$name"; done)
check_eq "objects missing from README" "$missing" ""
finish
