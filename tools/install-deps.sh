#!/usr/bin/env bash
# Installs what acmetrace needs to build and test on Debian 12 (run as root).
# Shared by tools/setup.sh and .ci/run so both install the same thing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: run as root (apt-get install)" >&2
    exit 1
fi
# Prometheus (with promtool), curl and python3 are for test/e2e/prometheus.sh
# (tools/prometheus_server.sh starts a private Prometheus; acmetrace-sync uses curl);
# GNU time measures bench/prometheus's peak memory.
# Slurm, its accounting daemon on MariaDB, and munge are for test/e2e/slurm.sh,
# which starts private ones (tools/slurm_cluster.sh): installing them must not
# start the system's.  A policy-rc.d that denies every start (exit 101) holds
# for this install only, unless the machine has one of its own already.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# tools/install-deps.sh: no daemon starts during its install\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    ca-certificates make gcc libc6-dev iproute2 \
    postgresql-15 postgresql-server-dev-15 postgresql-common postgresql-contrib \
    postgresql-15-tdigest \
    gnuplot-nox chromium fonts-dejavu-core \
    clang-14 libclang-rt-14-dev llvm-14 \
    slurm-wlm slurm-client slurmdbd mariadb-server mariadb-client munge gawk \
    prometheus curl python3 time \
    >/dev/null
echo "install-deps: $(pg_config --version), $(gcc --version | head -1), slurm $(dpkg-query -W -f '${Version}' slurm-client)"
