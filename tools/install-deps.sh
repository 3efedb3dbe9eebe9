#!/usr/bin/env bash
# Installs what acmetrace needs to build and test on Debian 12 (run as root).
# Shared by tools/setup.sh and .ci/run so both install the same thing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: run as root (apt-get install)" >&2
    exit 1
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    ca-certificates make gcc libc6-dev iproute2 \
    postgresql-15 postgresql-server-dev-15 postgresql-common postgresql-contrib \
    postgresql-15-tdigest \
    gnuplot-nox chromium fonts-dejavu-core \
    clang-14 libclang-rt-14-dev llvm-14 \
    >/dev/null
echo "install-deps: $(pg_config --version), $(gcc --version | head -1)"
