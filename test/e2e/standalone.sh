#!/usr/bin/env bash
# The repository stands alone (a clone with nothing beside it passes):
#  - no tracked file refers to the directory "shared" beside the clone,
#    except .ci/run, which may build test-only third-party software from its
#    vendor/ (the pattern is written with brackets, so no file, this one
#    included, may spell the path);
#  - the published facts the tests and tools read are in test/fixtures, and
#    src/core/util_quantiles.c is what tools/gen_util_quantiles.sh makes of
#    the repository's copy of the published quantiles.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    refs=$(git grep -n -e '[.][.]/shared' -- . ':!.ci/run')
else
    refs=$(grep -rn --exclude-dir=.git --exclude=run -e '[.][.]/shared' .)
fi
check_eq "tracked files referring to the directory shared beside the clone (other than .ci/run)" "$refs" ""
check_eq "published quantiles: rows per cluster and metric" \
    "$(tail -n +2 test/fixtures/published/acme_util_quantiles.csv | cut -d, -f1,2 | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')" "1000 "
check_eq "cluster summary rows for Seren and Kalos" \
    "$(cut -d, -f1 test/fixtures/acme_cluster_summary.csv | grep -cx -e Seren -e Kalos)" 2
if bash tools/gen_util_quantiles.sh | cmp -s - src/core/util_quantiles.c; then
    ok "src/core/util_quantiles.c regenerates from test/fixtures/published/acme_util_quantiles.csv"
else
    bad "src/core/util_quantiles.c differs from what tools/gen_util_quantiles.sh makes of the repository's quantiles"
fi
finish
