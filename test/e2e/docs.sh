#!/usr/bin/env bash
# Every public acmetrace function and table is documented in README.md.
. "$(dirname "$0")/lib.sh"
fresh_db e2e_docs
names=$(q -c "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'acmetrace'::regnamespace AND proname !~ '^_'
              UNION SELECT relname FROM pg_class WHERE relnamespace = 'acmetrace'::regnamespace AND relkind IN ('r','v','p')")
[ -n "$names" ] && ok "found $(wc -w <<<"$names") public objects" || bad "no public objects found"
missing=$(for name in $names; do grep -q "acmetrace\.$name\b" "$ROOT/README.md" || echo "$name"; done)
check_eq "objects missing from README" "$missing" ""
finish
