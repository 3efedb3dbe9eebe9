#!/usr/bin/env bash
# The file lists of the contributor docs match the tracked tree (git ls-files):
#  - src/core/README.md: the first column of its table names every file of
#    src/core/ (brace forms like `occupancy.{c,h}` expanded), and nothing
#    that is not there;
#  - every src/core/NAME.c has its unit tests, test/core/test_NAME.c;
#  - CONTRIBUTING.md, "## Layout": every path of the table's first column
#    exists (a file, a directory with tracked files, or a glob), every
#    tracked file is under one of them, and the rows that list their
#    directory's members name each of them (below) and no missing file;
#  - src/install/: every public analysis acmetrace.NAME (a function that
#    calls acmetrace_internal.NAME_run) is created in one file, and its
#    NAME_scan, NAME_summary and NAME_run in that file too.
# Needs no server. FILE_LISTS_ROOT=DIR checks another checkout (self-test).
. "$(dirname "$0")/lib.sh"
REPO=${FILE_LISTS_ROOT:-$ROOT}
tracked=$(git -C "$REPO" ls-files) || { bad "$REPO is not a git checkout"; finish; }

# backticked tokens of stdin, one a line, brace forms expanded
ticks() { grep -o '`[^`]*`' | tr -d '`' | perl -ne 'chomp; if (/^(.*)\{([^}]*)\}(.*)$/) { print "$1$_$3\n" for split /,/, $2 } else { print "$_\n" }'; }

# ---- src/core/README.md ----
core_readme="$REPO/src/core/README.md"
named=$(grep '^| `' "$core_readme" | cut -d'|' -f2 | ticks | sed 's|^|src/core/|' | sort -u)
files=$(grep '^src/core/' <<<"$tracked" | grep -vx 'src/core/README.md' | sort -u)
check_eq "src/core files missing from src/core/README.md" "$(comm -23 <(echo "$files") <(echo "$named") | tr '\n' ' ')" ""
check_eq "src/core/README.md names files not in src/core" "$(comm -13 <(echo "$files") <(echo "$named") | tr '\n' ' ')" ""

# ---- every core file has its unit tests: src/core/NAME.c, test/core/test_NAME.c ----
untested=$(grep -E '^src/core/[^/]+\.c$' <<<"$tracked" | sed -E 's|^src/core/(.*)\.c$|\1|' |
    while IFS= read -r s; do grep -qx "test/core/test_$s.c" <<<"$tracked" || echo "$s"; done | tr '\n' ' ')
check_eq "src/core files without test/core/test_<stem>.c" "$untested" ""

# ---- CONTRIBUTING.md, Layout ----
rows=$(awk '/^## Layout/ { on = 1; next } on && /^## / { exit } on && /^\| `/' "$REPO/CONTRIBUTING.md")
[ -n "$rows" ] && ok "CONTRIBUTING.md has a Layout table" || { bad "CONTRIBUTING.md: no Layout table"; finish; }
first() { cut -d'|' -f2 <<<"$1" | ticks; }
paths=$(while IFS= read -r r; do first "$r"; done <<<"$rows")
under() {  # under PATH FILE: FILE is PATH, or under directory PATH, or matches glob PATH
    case $1 in */) [[ $2 == "$1"* ]] ;; *'*'*) [[ $2 == $1 ]] ;; *) [ "$2" = "$1" ] ;; esac
}
gone=""
for p in $paths; do
    found=""
    while IFS= read -r f; do under "$p" "$f" && { found=1; break; }; done <<<"$tracked"
    [ -n "$found" ] || gone+="$p "
done
check_eq "CONTRIBUTING.md Layout paths that are not in the tree" "$gone" ""
uncovered=$(while IFS= read -r f; do
    c=""; for p in $paths; do under "$p" "$f" && { c=1; break; }; done
    [ -n "$c" ] || echo "$f"
done <<<"$tracked" | awk -F/ '{ print (NF > 2 ? $1 "/" $2 "/..." : $0) }' | sort -u | tr '\n' ' ')
check_eq "tracked files under no CONTRIBUTING.md Layout path" "$uncovered" ""

# row DIR: the description of the row whose first column is exactly DIR
row() { while IFS= read -r r; do [ "$(first "$r")" = "$1" ] && cut -d'|' -f3- <<<"$r"; done <<<"$rows"; }
# members RULE DIR: what the row of DIR must name
#   names  every direct child (file, or subdirectory as name/) without a row of its own
#   subdirs  every direct subdirectory, as name/
#   stems  every direct child NAME.sql, as NAME
#   fuzz   every fuzz_NAME.c, as NAME
members() {
    local rule=$1 d=$2
    grep "^$d" <<<"$tracked" | sed "s|^$d||" | case $rule in
        names) sed -E 's|/.*|/|' | sort -u | while IFS= read -r m; do
                   grep -qF "$d$m" <<<"$paths" || echo "$m"; done ;;
        subdirs) grep / | sed -E 's|/.*|/|' | sort -u ;;
        stems) grep -E '^[^/]+\.sql$' | sed 's/\.sql$//' ;;
        fuzz) grep -E '^fuzz_[^/]+\.c$' | sed -E 's/^fuzz_(.*)\.c$/\1/' ;;
    esac
}
for spec in names:src/ names:bench/ names:tools/ names:doc/ subdirs:test/fixtures/ \
            stems:src/install/types/ stems:src/install/trace/ stems:src/install/surface/ \
            stems:src/install/analyses/ fuzz:test/fuzz/; do
    rule=${spec%%:*} d=${spec#*:}
    desc=$(row "$d")
    if [ -z "$desc" ]; then bad "CONTRIBUTING.md Layout has no row for $d"; continue; fi
    listed=$(ticks <<<"$desc" | sort -u)
    want=$(members "$rule" "$d" | sort -u)
    check_eq "CONTRIBUTING.md row $d names every member ($rule)" "$(comm -23 <(echo "$want") <(echo "$listed") | tr '\n' ' ')" ""
    # names that look like files or directories of DIR but are not in it
    if [ "$rule" = names ] || [ "$rule" = subdirs ]; then
        stale=$(grep -E '^[A-Za-z0-9_.-]+(\.(c|h|sh|sql|md|mjs|awk|json)|/)$' <<<"$listed" | while IFS= read -r m; do
            grep -q "^$d$m" <<<"$tracked" || echo "$m"; done | tr '\n' ' ')
        check_eq "CONTRIBUTING.md row $d names nothing missing from $d" "$stale" ""
    fi
done

# ---- src/install/: one file per public analysis ----
# Prints "analysis NAME" for each public function calling its _run, "many
# NAME" when acmetrace.NAME is created in several files, "away NAME_x:FILE"
# for a NAME_scan, NAME_summary or NAME_run created outside NAME's file.
layout=$(cd "$REPO" && grep -E '^src/install/.+\.sql$' <<<"$tracked" | xargs -r perl -e '
    my (%pub, %int, %analysis);
    for my $f (@ARGV) {
        open my $fh, "<", $f or next; local $/; my $t = <$fh>;
        # a function runs to the next statement that starts a line
        while ($t =~ /^CREATE (?:OR REPLACE )?FUNCTION (acmetrace(?:_internal)?)\.(\w+)\((.*?)(?=^(?:CREATE|COMMENT|DO|SELECT) |\z)/msg) {
            my ($schema, $name, $rest) = ($1, $2, $3);
            if ($schema eq "acmetrace") {
                $pub{$name}{$f} = 1;
                $analysis{$name} = 1 if $rest =~ /\bacmetrace_internal\.\Q$name\E_run\(/;
            } else {
                $int{$name}{$f} = 1;
            }
        }
    }
    for my $name (sort keys %analysis) {
        print "analysis $name\n";
        my @home = sort keys %{$pub{$name}};
        if (@home != 1) { print "many $name\n"; next }
        for my $x (map { "${name}_$_" } qw(scan summary run)) {
            print "away $x:$_\n" for grep { $_ ne $home[0] } sort keys %{$int{$x} || {}};
        }
    }')
n=$(grep -c '^analysis ' <<<"$layout")
[ "$n" -gt 0 ] && ok "src/install/ holds $n public analyses that dispatch to their _run" ||
    bad "src/install/: no public analysis found (a function calling acmetrace_internal.NAME_run)"
check_eq "public analyses created in more than one file under src/install/" \
    "$(sed -n 's/^many //p' <<<"$layout" | tr '\n' ' ')" ""
check_eq "analysis functions created outside their public function's file" \
    "$(sed -n 's/^away //p' <<<"$layout" | tr '\n' ' ')" ""

# Self-test: in a copy of the tree's file names with one file added to each
# checked list (and two listed files removed), each check catches its drift.
if [ -z "${FILE_LISTS_ROOT:-}" ]; then
    T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
    ( cd "$T" && git init -q . &&
      while IFS= read -r f; do mkdir -p "$(dirname "$f")" && : >"$f"; done <<<"$tracked" &&
      cp "$REPO/CONTRIBUTING.md" CONTRIBUTING.md && cp "$REPO/src/core/README.md" src/core/README.md &&
      grep -E '^src/install/.+\.sql$' <<<"$tracked" | while IFS= read -r f; do cp "$REPO/$f" "$f"; done &&
      rm bench/compare.awk bin/acmetrace-report && mkdir -p extra test/fixtures/new src/install/types &&
      : >src/core/new.c && : >src/new_glue.c && : >bench/new && : >tools/new.sh && : >doc/new.md &&
      : >test/fixtures/new/x && : >src/install/types/new.sql && : >src/install/trace/new.sql &&
      : >src/install/surface/new.sql && : >test/fuzz/fuzz_new.c && : >extra/x &&
      printf 'CREATE FUNCTION acmetrace_internal.gpu_time_lost_summary(cluster text)\n' >src/install/analyses/new.sql &&
      printf 'CREATE FUNCTION acmetrace.queue_cdf(cluster text)\nAS %s;\n' \
             "'SELECT * FROM acmetrace_internal.queue_cdf_run(\$1)'" >src/install/surface/new.sql &&
      git add -A ) >/dev/null 2>&1
    got=$(FILE_LISTS_ROOT=$T bash "$0" 2>&1 | sed -n 's/^  FAIL: //p')
    for want in "src/core files missing from src/core/README.md: got 'src/core/new.c '" \
                "src/core files without test/core/test_<stem>.c: got 'new '" \
                "Layout paths that are not in the tree: got 'bin/acmetrace-report '" \
                "tracked files under no CONTRIBUTING.md Layout path: got 'extra/x '" \
                "row src/ names every member (names): got 'new_glue.c '" \
                "row bench/ names every member (names): got 'new '" \
                "row bench/ names nothing missing from bench/: got 'compare.awk '" \
                "row tools/ names every member (names): got 'new.sh '" \
                "row doc/ names every member (names): got 'new.md '" \
                "row test/fixtures/ names every member (subdirs): got 'new/ '" \
                "row src/install/types/ names every member (stems): got 'new '" \
                "row src/install/trace/ names every member (stems): got 'new '" \
                "row src/install/surface/ names every member (stems): got 'new '" \
                "row src/install/analyses/ names every member (stems): got 'new '" \
                "public analyses created in more than one file under src/install/: got 'queue_cdf '" \
                "analysis functions created outside their public function's file: got 'gpu_time_lost_summary:src/install/analyses/new.sql '" \
                "row test/fuzz/ names every member (fuzz): got 'new '"; do
        grep -qF "$want" <<<"$got" && ok "self-test: drift caught: ${want%%: got*}" ||
            bad "self-test: drift not caught: $want"
    done
    check_eq "self-test: no other check fails" "$(grep -c . <<<"$got")" 17
fi
finish
