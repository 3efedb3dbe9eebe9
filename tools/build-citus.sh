#!/usr/bin/env bash
# Builds and installs Citus from a source tarball, for the Citus test stage
# (test/e2e/citus.sh) and doc/scaling.md.  Run as root on Debian 12.
#
#   bash tools/build-citus.sh [TARBALL]    default ../shared/vendor/citus-13.2.2.tar.gz
#
# Citus is not in Debian's archive, so CI builds it from the vendored upstream
# tarball (.ci/run).  Nothing of Citus is kept in this repository.
set -euo pipefail
tarball=${1:-$(dirname "$0")/../../shared/vendor/citus-13.2.2.tar.gz}
[ -f "$tarball" ] || { echo "build-citus: no tarball at $tarball" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
    echo "build-citus: run as root (apt-get install, make install)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends \
    libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev \
    postgresql-server-dev-15 make gcc >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
# PostgreSQL 15.20's dbcommands.h declares have_createdb_privilege(); Citus
# 13.2.2 defines a static one for PostgreSQL < 16 and the build fails on the
# clash.  Renaming Citus's copy where it is defined and used fixes it.
sed -i 's/\bhave_createdb_privilege\b/citus_have_createdb_privilege/g' \
    "$src/src/include/pg_version_compat.h" \
    "$src/src/backend/distributed/commands/serialize_distributed_ddls.c"
(cd "$src" && ./configure -q --without-libcurl >/dev/null && make -s -j"$(nproc)" >/dev/null && make -s install >/dev/null)
echo "build-citus: $(basename "$tarball") installed into $(pg_config --pkglibdir)"
