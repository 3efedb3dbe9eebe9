#!/usr/bin/env bash
# Builds and installs Citus from a source tarball, for the Citus test stage
# (test/e2e/citus.sh) and doc/scaling.md.  Run as root on Debian 12.
#
#   bash tools/build-citus.sh TARBALL
#
# TARBALL: Citus 13.2.2's source (`git archive` of upstream tag v13.2.2, or
# the release tarball from github.com/citusdata/citus).  Citus is not in
# Debian's archive; CI builds it from the copy its machines carry (.ci/run).
# Nothing of Citus is kept in this repository.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: bash tools/build-citus.sh CITUS_SOURCE_TARBALL" >&2; exit 64; }
tarball=$1
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
