#!/usr/bin/env bash
# One command from a fresh Debian 12 (as root): install dependencies, build
# and install acmetrace, then run a demo analysis in a temporary cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
make -s
make -s install >/dev/null
echo "setup: acmetrace $(sed -n "s/^default_version = '\(.*\)'/\1/p" acmetrace.control) installed into $(pg_config --pkglibdir)"
# A throw-away PostgreSQL 15 cluster of its own (tools/tmp_cluster.sh), so
# whatever other clusters the machine runs, nothing collides.
# session_preload_libraries: acmetrace's settings exist from the start of
# every session (SHOW works, a misspelt acmetrace.* setting is an error).
bash tools/tmp_cluster.sh -o session_preload_libraries=acmetrace bash tools/demo.sh
