#!/usr/bin/env bash
# BENCHMARKS.md is current, and the docs quote only what it holds.
#  (a) the top part (`# ` heading) and every `## ` section carry exactly one
#      stamp line as the first non-blank line below the heading, followed by
#      the visible "Commit `<12 hex>`, <date> UTC; ...; command: `...`" line
#      (format: the stamp notes; written by bench/lib.sh's `stamp`);
#  (b) the stamp's commit is in HEAD's history and not `+dirty`;
#  (c) no path of its files= list changed between that commit and HEAD
#      (changes to BENCHMARKS.md itself excepted), and every path exists;
#  (d) no absolute machine path (/work/, /tmp/, /home/, /root/);
#  (e) README.md and doc/*.md quote no benchmark figure that BENCHMARKS.md
#      does not hold. A benchmark figure is a number (or a range "N-M",
#      "N to M") directly followed by: a sub-second time unit (ms, µs, ns,
#      milliseconds ...); "B/sample", "bytes per sample", "bytes a sample";
#      a rate "<k|M> samples|rows|jobs|lines per second" or "/s", or
#      "MB/s"-style; or a speed ratio "N× faster|slower|quicker", "Nx
#      faster", "N times faster|slower|quicker|as fast". Seconds are left
#      out on purpose: the docs use them for data (delays, bins). BENCHMARKS.md
#      holds a figure when each of its numbers appears there as a number
#      (thousands commas ignored);
#  (f) a pointer `BENCHMARKS.md, section "X"` (or `section "X" of
#      BENCHMARKS.md`) in those docs names an existing `## ` heading (X is
#      the heading or its beginning).
# The checker first proves on crafted files in a throw-away repository that
# each of (a)-(f) catches its violation and that legitimate prose passes.
# BENCH_DOC=FILE checks FILE instead of BENCHMARKS.md (against this
# repository's history and docs); BENCH_DOCS_SELFTEST=only stops after the
# self-test. Needs no server; needs the git history (a full clone).
. "$(dirname "$0")/lib.sh"
BENCH_DOC=$(realpath -m "${BENCH_DOC:-$ROOT/BENCHMARKS.md}")

# lint_bench FILE REPO: one line per violation of (a)-(d), tagged.
lint_bench() {
    local file=$1 repo=$2 head commit files dirty p
    local -a paths
    head=$(git -C "$repo" rev-parse -q --verify HEAD) || { echo "(b) $repo is not a git repository with a HEAD"; return; }
    perl -ne '
        BEGIN { $fence = 0; @sec = (); }
        if (/^\s*```/) { $fence = !$fence; }
        if (m{(?<![\w.~-])/(?:work|tmp|home|root)/}) { chomp; print "(d) line $.: absolute path: $_\n"; }
        next if $fence && !/^\s*```/;
        chomp;
        if (!$fence && /^(#{1,2}) (.*)/) {
            if ($1 eq "#" && @sec) { next; }
            push @sec, { h => $_, line => $., want => "stamp", stamps => 0 };
            next;
        }
        if ($. == 1 || !@sec) {
            if (!@sec && /\S/) { print "(a) line $.: text before the top `# ` heading\n"; push @sec, { h => "(no heading)", line => $., want => "", stamps => 0 }; }
            next;
        }
        my $s = $sec[-1];
        if (/^<!-- stamp\b/) {
            $s->{stamps}++;
            if (!/^<!-- stamp commit=(\S+?)(\+dirty)? files=(\S+) -->\s*$/) {
                print "(a) line $.: malformed stamp under \"$s->{h}\": $_\n"; $s->{want} = ""; next;
            }
            my ($c, $d, $f) = ($1, $2 // "", $3);
            if ($s->{want} ne "stamp") { print "(a) line $.: stamp not right below \"$s->{h}\"\n"; }
            print join("\x1f", "STAMP", $., $c, $d, $f, $s->{h}), "\n";
            $s->{want} = "visible"; $s->{c} = substr($c, 0, 12) . $d;
            next;
        }
        next unless /\S/;
        if ($s->{want} eq "stamp") { print "(a) line $.: first line under \"$s->{h}\" is not a stamp\n"; }
        if ($s->{want} eq "visible") {
            my $q = quotemeta($s->{c});
            print "(a) line $.: the line after the stamp under \"$s->{h}\" is not \"Commit `$s->{c}`, YYYY-MM-DD HH:MM UTC; CPU, N cores, N GiB; command: `...`\"\n"
                unless /^Commit `$q`, \d{4}-\d\d-\d\d \d\d:\d\d UTC; .+, \d+ cores, \d+ GiB; command: `[^`]+`\s*$/;
        }
        $s->{want} = "";
        END {
            print "(a) no `# ` heading\n" unless @sec;
            for my $s (@sec) {
                print "(a) line $s->{line}: \"$s->{h}\" has no stamp line\n" if $s->{stamps} == 0;
                print "(a) line $s->{line}: \"$s->{h}\" has $s->{stamps} stamp lines\n" if $s->{stamps} > 1;
            }
        }' "$file" |
    while IFS= read -r line; do
        case $line in
            STAMP$'\x1f'*) ;;
            *) echo "$line"; continue ;;
        esac
        IFS=$'\x1f' read -r _ p commit dirty files sec <<<"$line"
        if [ -n "$dirty" ]; then echo "(b) line $p: \"$sec\" was measured on uncommitted changes (+dirty)"; continue; fi
        if ! [[ $commit =~ ^[0-9a-f]{40}$ ]] || ! git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null; then
            echo "(b) line $p: \"$sec\": commit $commit is not in the repository"; continue
        fi
        if ! git -C "$repo" merge-base --is-ancestor "$commit" "$head"; then
            echo "(b) line $p: \"$sec\": commit $commit is not in HEAD's history"; continue
        fi
        IFS=',' read -r -a paths <<<"$files"
        for f in "${paths[@]}"; do
            if [ -z "$f" ] || [[ $f == /* ]] || ! git -C "$repo" cat-file -e "HEAD:${f%/}" 2>/dev/null; then
                [ "$f" = . ] || echo "(c) line $p: \"$sec\": files= names '$f', which is not in HEAD's tree"
            fi
        done
        if ! git -C "$repo" diff --quiet "$commit" "$head" -- "${paths[@]}" ':(exclude)BENCHMARKS.md' 2>/dev/null; then
            echo "(c) line $p: \"$sec\": measured at ${commit:0:12}, since changed: $(git -C "$repo" diff --name-only "$commit" "$head" -- "${paths[@]}" ':(exclude)BENCHMARKS.md' | head -5 | tr '\n' ' ')"
        fi
    done
}

# lint_docs BENCHFILE DOC...: one line per violation of (e) and (f).
lint_docs() {
    local bench=$1; shift
    perl -e '
        my $bench = shift;
        open(my $b, "<", $bench) or die "cannot read $bench\n";
        my (%num, @heads);
        while (<$b>) {
            s/\b(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b//g;    # commit hashes are not figures
            push @heads, $1 if /^## (.*?)\s*$/;
            for my $n (/(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)/g) { (my $k = $n) =~ tr/,//d; $num{$k} = 1; }
        }
        my $N = qr/(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/;
        my $R = qr/$N(?:\s*(?:-|–|—|to)\s*$N)?/;
        my $fig = qr{
            $R\s*(?:ms|µs|μs|ns|milliseconds?|microseconds?|nanoseconds?)\b
          | $R\s*(?:B|bytes?)\s*(?:/|per|a|an|each)\s*(?:GPU[ _-]?)?sample\b
          | $R\s*[kKM]?\s*(?:samples|rows|jobs|lines|values)\s*(?:/\s*s\b|per\s+second\b|a\s+second\b)
          | $R\s*(?:[kMG]i?B)/s\b
          | $R\s*(?:×|x)\s*(?:faster|slower|quicker)\b
          | $R\s+times\s+(?:faster|slower|quicker|as\s+fast)\b
        }xi;
        for my $doc (@ARGV) {
            open(my $d, "<", $doc) or die "cannot read $doc\n";
            my $text = "";
            while (my $l = <$d>) {
                $text .= $l;
                chomp $l;
                while ($l =~ /($fig)/g) {
                    my $f = $1;
                    my @miss = grep { my $k = $_; $k =~ tr/,//d; !$num{$k} } ($f =~ /((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)/g);
                    print "(e) $doc:$.: \"$f\" is not a figure of BENCHMARKS.md: $l\n" if @miss;
                }
            }
            $text =~ s/\s+/ /g;
            my @ptr = ($text =~ /BENCHMARKS\.md`?\]?(?:\([^)]*\))?,?\s+section\s+"([^"]+)"/g,
                       $text =~ /section\s+"([^"]+)"\s+of\s+\[?`?BENCHMARKS\.md/g);
            for my $p (@ptr) {
                print "(f) $doc: section \"$p\" is not a heading of BENCHMARKS.md\n"
                    unless grep { index($_, $p) == 0 } @heads;
            }
        }' "$bench" "$@"
}

docs_of() { ls "$1/README.md" "$1"/doc/*.md 2>/dev/null; }

# ---- self-test on a throw-away repository ----
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
R=$T/repo
mkdir -p "$R/src" "$R/bench" "$R/doc"
g() { git -C "$R" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@"; }
g init -q
echo 'int a;' >"$R/src/a.c"; echo 'run' >"$R/bench/run"; echo '# placeholder' >"$R/BENCHMARKS.md"
cat >"$R/README.md" <<'EOF'
Loads at 12.5 ms a day, 3.2× faster than before, 0.69 bytes per sample,
11.1M samples/s, 1,200.5 ms, 5 to 7 ms (BENCHMARKS.md, section "Alpha").
Legitimate prose: Eval jobs in 20 s bins up to 300 s, a sketch of 128 KiB,
within 2x against 26.84%, the table is 3 times larger, 10-15 billion samples,
a 2-core machine, 5,760 samples at 15 s, `acmetrace.bins(x, 0, 100, 10)`,
v1.5.5, 2^21 s, 8 kB pages, 0.7 bytes on disk.
EOF
echo 'See section "Beta: the second" of BENCHMARKS.md.' >"$R/doc/d.md"
g add -A && g commit -q -m c1 && C1=$(g rev-parse HEAD)
echo 'int a = 1;' >"$R/src/a.c"; g commit -q -am c2 && C2=$(g rev-parse HEAD)
echo 'more' >>"$R/doc/d.md"; g commit -q -am c3 && C3=$(g rev-parse HEAD)
echo '# still a placeholder' >"$R/BENCHMARKS.md"; g commit -q -am c4

vis() { echo "Commit \`${1:0:12}${2:-}\`, 2026-11-25 10:05 UTC; Intel(R) Xeon(R) Processor, 2 cores, 24 GiB; command: \`bash bench/run --jobs 1000\`"; }
good() {
    echo '# Benchmarks'
    echo "<!-- stamp commit=$C2 files=src,bench -->"; vis "$C2"
    echo; echo '| what | ms |'; echo '| --- | ---: |'; echo '| load | 12.5 |'; echo '| x | 3.2 |'; echo '| y | 0.69 | 11.1M | 1200.5 | 5 | 7 |'
    echo; echo '```'; echo '## not a heading, in a fence'; echo '```'
    echo; echo '## Alpha (issue 21)'; echo
    echo "<!-- stamp commit=$C3 files=. -->"; vis "$C3"; echo 'text'
    echo; echo '## Beta: the second'
    echo "<!-- stamp commit=$C3 files=src/a.c,bench/ -->"; vis "$C3"
}
good >"$T/good.md"
# variant NAME SED-SCRIPT: a copy of the good file with one violation
variant() { sed "$2" "$T/good.md" >"$T/$1.md"; }
variant a_top_missing   '2,3d'
variant a_sec_missing   "/^<!-- stamp commit=$C3 files=\./d"
variant a_not_below     "s/^## Beta: the second$/&\nsome text first/"
variant a_two           "/^<!-- stamp commit=$C3 files=\./{p;n;p}"
variant a_visible       "s/^Commit \`${C3:0:12}\`/Commit \`${C1:0:12}\`/"
variant a_malformed     "s/^<!-- stamp commit=$C3 files=\. -->/<!-- stamp commit=$C3 -->/"
variant b_unknown       "s/commit=$C2/commit=0123456789abcdef0123456789abcdef01234567/"
variant b_dirty         "s/commit=$C2 /commit=$C2+dirty /; s/^Commit \`${C2:0:12}\`/Commit \`${C2:0:12}+dirty\`/"
variant c_changed       "s/commit=$C2 files=src,bench/commit=$C1 files=src,bench/; s/^Commit \`${C2:0:12}\`/Commit \`${C1:0:12}\`/"
variant c_dir_changed   "s/commit=$C3 files=\./commit=$C1 files=./; s/^Commit \`${C3:0:12}\`, \(.*\)$/Commit \`${C1:0:12}\`, \1/"
variant c_no_such_path  "s/files=src,bench/files=src,benchmarks/"
variant d_path          's/^text$/written to \/work\/main\/BENCHMARKS.md/'
variant e_figure        's/| load | 12.5 |/| load | 12.6 |/'
variant f_heading       's/^## Alpha (issue 21)$/## Gamma/'

check_eq "self-test: the crafted good file passes (a)-(d)" "$(lint_bench "$T/good.md" "$R")" ""
check_eq "self-test: the crafted docs pass (e), (f) against it" "$(lint_docs "$T/good.md" $(docs_of "$R"))" ""
for v in a_top_missing a_sec_missing a_not_below a_two a_visible a_malformed b_unknown b_dirty \
         c_changed c_dir_changed c_no_such_path d_path e_figure f_heading; do
    tag="(${v%%_*})"
    got=$( { lint_bench "$T/$v.md" "$R"; lint_docs "$T/$v.md" $(docs_of "$R"); } )
    if grep -qF "$tag" <<<"$got"; then ok "self-test: $tag catches $v"
    else bad "self-test: $tag misses $v; got: ${got:-nothing}"; fi
done
# (e) reports every offending line, and only those
got=$(lint_docs "$T/a_two.md" "$R/README.md" <(printf 'took 4.5 ms\nlegit 20 s\n2.5x faster and 7.25 times slower\n') | grep -c '^(e)')
check_eq "self-test: (e) reports each figure not held" "$got" 3

if [ "${BENCH_DOCS_SELFTEST:-}" = only ]; then finish; fi

# ---- the real file ----
if ! git -C "$ROOT" rev-parse -q --verify HEAD >/dev/null; then bad "$ROOT is not a git clone"; finish; fi
[ "$(git -C "$ROOT" rev-parse --is-shallow-repository)" = false ] || bad "shallow clone: stamps need the full history"
[ -f "$BENCH_DOC" ] || { bad "no $BENCH_DOC"; finish; }
name=${BENCH_DOC#"$ROOT"/}
out=$( (cd "$ROOT" && lint_bench "$BENCH_DOC" .; lint_docs "$BENCH_DOC" README.md doc/*.md) )
echo "$out" >"$OUT/violations.txt"
for t in a b c d e f; do
    lines=$(grep -F "($t)" <<<"$out")
    if [ -z "$lines" ]; then ok "$name: ($t) holds"
    else while IFS= read -r l; do bad "$name: $l"; done <<<"$lines"; fi
done
finish
