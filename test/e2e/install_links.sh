#!/usr/bin/env bash
# make install links acmetrace-report and acmetrace-sync into LINKDIR (on
# PATH), make uninstall removes them; a LINKDIR that is not writable, an
# empty LINKDIR, and a file of that name that is not our link are skipped
# with a message.  Only the Makefile's install-links / uninstall-links
# targets run here: nothing is installed into PostgreSQL.
. "$(dirname "$0")/lib.sh"
bindir=$(pg_config --bindir)
d=$OUT/links
rm -rf "$d"; mkdir -p "$d/bin"
mk() { make -s -C "$ROOT" "$@" 2>&1; }

out=$(mk install-links LINKDIR="$d/bin")
for s in acmetrace-report acmetrace-sync; do
    check_eq "$s linked into LINKDIR, to bindir" "$(readlink "$d/bin/$s")" "$bindir/$s"
done
check_eq "the links found on PATH" "$(PATH=$d/bin:/usr/bin:/bin command -v acmetrace-report)" "$d/bin/acmetrace-report"
check_eq "a second install keeps the same links" "$(mk install-links LINKDIR="$d/bin" >/dev/null; readlink "$d/bin/acmetrace-sync")" "$bindir/acmetrace-sync"
mk uninstall-links LINKDIR="$d/bin" >/dev/null
check_eq "uninstall removes both links" "$(ls -A "$d/bin" | wc -l)" "0"

out=$(mk install-links LINKDIR="$d/missing")
check_eq "a LINKDIR that is not a directory: skipped with a message, nothing made" \
    "$(grep -c 'is not a writable directory' <<<"$out") $([ -e "$d/missing" ] && echo made || echo none)" "1 none"
out=$(mk install-links LINKDIR=)
check_eq "an empty LINKDIR: skipped with a message" "$(grep -c 'LINKDIR is empty' <<<"$out")" "1"

echo 'not ours' >"$d/bin/acmetrace-report"
out=$(mk install-links LINKDIR="$d/bin")
check_eq "a file that is not our link is left alone" "$(cat "$d/bin/acmetrace-report") $(grep -c 'is not a link: left alone' <<<"$out")" "not ours 1"
check_eq "the other script is still linked" "$(readlink "$d/bin/acmetrace-sync")" "$bindir/acmetrace-sync"
ln -sfn /elsewhere/acmetrace-sync "$d/bin/acmetrace-sync"
mk uninstall-links LINKDIR="$d/bin" >/dev/null
check_eq "uninstall leaves a file and a foreign link alone" \
    "$(cat "$d/bin/acmetrace-report") $(readlink "$d/bin/acmetrace-sync")" "not ours /elsewhere/acmetrace-sync"
finish
