#!/usr/bin/env bash
# tools/multinode.sh: three local PostgreSQL 15 servers -- a coordinator and
# two data nodes -- with acmetrace's job and utilization tables partitioned by
# cluster and by month across the data nodes through postgres_fdw, and a
# single-node reference database holding all the data (doc/scaling.md).
#
#   bash tools/multinode.sh start DIR     initdb (first time) and start the servers in DIR
#   bash tools/multinode.sh load DIR [--seren-jobs N] [--kalos-jobs N]
#                                    [--util-series N] [--util-samples N] [--util-step S]
#                                    (re)create the databases and load the data
#   bash tools/multinode.sh stop DIR      stop them (fast, then immediate); idempotent
#   bash tools/multinode.sh destroy DIR   stop them and remove DIR
#   bash tools/multinode.sh env DIR       print MN_SOCK, MN_COORD_PORT, MN_NODE1_PORT, MN_NODE2_PORT
#   bash tools/multinode.sh status DIR    which servers run, on which ports
#   bash tools/multinode.sh psql DIR coord|node1|node2|single [psql arguments]
#
# Servers: DIR/coord, DIR/node1, DIR/node2, initdb'd as the OS user postgres
# when run as root (PostgreSQL refuses root), --auth=trust, listening on
# 127.0.0.1 only, unix sockets in DIR/sock, free ports picked automatically,
# jit off, small shared_buffers (MULTINODE_SHARED_BUFFERS, default 64MB),
# random_page_cost 1.1 (the data is in memory), fsync off (throw-away data;
# MULTINODE_DURABLE=1 at the first start keeps fsync, synchronous_commit and
# full_page_writes on and syncs initdb, as benchmarks need).  Binaries: /usr/lib/postgresql/15/bin (PGBIN);
# acmetrace is the system-installed extension.  MULTINODE_PRELOAD at the
# first start sets shared_preload_libraries (test/e2e/citus.sh: citus).
#
# Databases: "acme" on every server (the data nodes hold their shards, the
# coordinator the distributed tables dist.jobs and dist.utilization) and
# "single" on the coordinator (all the data, the single-node reference).
#
# Data (load): every data node generates the same deterministic trace --
# acmetrace.load_generated('seren', 'seren', N, 42) and ('kalos', 'kalos', N,
# 43), and GPU_UTIL samples for both clusters through
# acmetrace.utilization_lines -- then deletes the rows of the months (UTC) it
# does not own: node1 keeps the odd months, node2 the even ones.  Each node
# then has schema shard: one view per (cluster, month) over acmetrace.jobs
# (shard.jobs_<cluster>_<yyyy>_<mm>) and over acmetrace.utilization
# (shard.util_<cluster>_<yyyy>_<mm>), each adding the column "month date",
# and a table shard.manifest listing them.  The coordinator reads both
# manifests and builds
#   dist.jobs         PARTITION BY LIST (cluster), each cluster PARTITION BY LIST (month),
#   dist.utilization  the same,
# every leaf a foreign table on the node that owns that month.
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
NAMES=(coord node1 node2)
DB=acme

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

die() { echo "multinode: $*" >&2; exit 1; }

# as_pg CMD...: run CMD as the OS user postgres when we are root.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# port_of NAME: the port recorded for a server (empty if none).
port_of() { [ ! -f "$DIR/ports" ] || sed -n "s/^$1 //p" "$DIR/ports" | tail -1; }

port_busy() { ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q .; }

free_port() {
    local p i used
    used=$([ ! -f "$DIR/ports" ] || awk '{ printf "%s ", $2 }' "$DIR/ports")
    for i in $(seq 1 500); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        case " $used " in *" $p "*) continue ;; esac
        port_busy "$p" || { echo "$p"; return 0; }
    done
    die "no free port found"
}

set_port() {  # set_port NAME PORT
    local tmp
    tmp=$(grep -v "^$1 " "$DIR/ports" 2>/dev/null || true)
    { [ -z "$tmp" ] || echo "$tmp"; echo "$1 $2"; } >"$DIR/ports.new"
    mv "$DIR/ports.new" "$DIR/ports"
    chmod 644 "$DIR/ports"
}

running() { as_pg "$PGBIN/pg_ctl" -D "$DIR/$1" status >/dev/null 2>&1; }

# qn NAME DB [psql args]: psql to one of our servers, never to whatever the
# PG* environment points at.
qn() {
    local name=$1 db=$2; shift 2
    env -u PGHOST -u PGHOSTADDR -u PGPORT -u PGUSER -u PGDATABASE -u PGPASSWORD -u PGPASSFILE \
        -u PGSERVICE -u PGSERVICEFILE -u PGOPTIONS -u PGSSLMODE -u PGTARGETSESSIONATTRS \
        "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR/sock" -p "$(port_of "$name")" -U postgres -d "$db" "$@"
}

cmd_start() {
    mkdir -p "$DIR/sock"
    [ "$(id -u)" != 0 ] || chown postgres: "$DIR" "$DIR/sock"
    [ "$(id -u)" != 0 ] || [ ! -f "$DIR/ports" ] || chown postgres: "$DIR/ports"
    local name port try changed=0
    for name in "${NAMES[@]}"; do
        if [ ! -f "$DIR/$name/PG_VERSION" ]; then
            rm -rf "${DIR:?}/$name"
            local nosync=--no-sync durability="fsync = off
synchronous_commit = off
full_page_writes = off"
            [ "${MULTINODE_DURABLE:-0}" != 1 ] || nosync="" durability="# durable (MULTINODE_DURABLE=1): fsync, synchronous_commit, full_page_writes at their defaults"
            (cd "$DIR" && as_pg "$PGBIN/initdb" -D "$DIR/$name" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
                 $nosync >"$DIR/$name.initdb.log" 2>&1) || { cat "$DIR/$name.initdb.log" >&2; die "initdb $name failed"; }
            cat >>"$DIR/$name/postgresql.conf" <<EOF

# tools/multinode.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/sock'
jit = off
shared_buffers = '${MULTINODE_SHARED_BUFFERS:-64MB}'
max_connections = 40
$durability
max_wal_size = '2GB'
random_page_cost = 1.1
cluster_name = 'multinode_$name'
${MULTINODE_PRELOAD:+shared_preload_libraries = '$MULTINODE_PRELOAD'}
include_if_exists = 'multinode_port.conf'
EOF
        fi
        if running "$name"; then continue; fi
        port=$(port_of "$name")
        for try in 1 2 3 4 5; do
            if [ -z "$port" ] || port_busy "$port"; then port=$(free_port); changed=1; fi
            echo "port = $port" >"$DIR/$name/multinode_port.conf"
            [ "$(id -u)" != 0 ] || chown postgres: "$DIR/$name/multinode_port.conf"
            set_port "$name" "$port"
            if (cd "$DIR" && as_pg "$PGBIN/pg_ctl" -D "$DIR/$name" -l "$DIR/$name.log" -w -t 60 start >/dev/null); then
                break
            fi
            running "$name" && break
            grep -q 'could not bind\|Address already in use\|could not create any TCP/IP sockets' "$DIR/$name.log" ||
                { tail -20 "$DIR/$name.log" >&2; die "cannot start $name"; }
            port=""   # somebody took the port: pick another
            [ "$try" != 5 ] || die "cannot start $name: no port"
        done
    done
    # A data node that moved to another port: tell the coordinator.
    if [ "$changed" = 1 ] && qn coord postgres -A -t -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" 2>/dev/null | grep -q 1; then
        for name in node1 node2; do
            qn coord "$DB" -c "DO \$\$ BEGIN IF EXISTS (SELECT 1 FROM pg_foreign_server WHERE srvname = '$name') THEN
                                 ALTER SERVER $name OPTIONS (SET port '$(port_of "$name")'); END IF; END \$\$" || true
        done
    fi
    cmd_status
}

cmd_stop() {
    [ -d "$DIR" ] || return 0
    local name
    for name in "${NAMES[@]}"; do
        [ -f "$DIR/$name/postmaster.pid" ] || continue
        (cd "$DIR" && as_pg "$PGBIN/pg_ctl" -D "$DIR/$name" -m fast -w -t 20 stop >/dev/null 2>&1) ||
            (cd "$DIR" && as_pg "$PGBIN/pg_ctl" -D "$DIR/$name" -m immediate -w -t 20 stop >/dev/null 2>&1) || true
        if [ -f "$DIR/$name/postmaster.pid" ] && running "$name"; then
            echo "multinode: $name did not stop" >&2
        fi
    done
}

cmd_status() {
    local name
    for name in "${NAMES[@]}"; do
        if running "$name"; then echo "$name: running on 127.0.0.1:$(port_of "$name") (socket dir $DIR/sock)"
        else echo "$name: stopped"; fi
    done
}

cmd_env() {
    echo "MN_DIR=$DIR"
    echo "MN_SOCK=$DIR/sock"
    echo "MN_COORD_PORT=$(port_of coord)"
    echo "MN_NODE1_PORT=$(port_of node1)"
    echo "MN_NODE2_PORT=$(port_of node2)"
}

# The generated trace, the same on every server that loads it.
load_sql() {  # load_sql SEREN KALOS SERIES SAMPLES STEP
    cat <<EOF
SELECT acmetrace.load_generated('seren', 'seren', $1, 42);
SELECT acmetrace.load_generated('kalos', 'kalos', $2, 43);
SET acmetrace.metric = 'GPU_UTIL';
SET acmetrace.cluster = 'seren';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util($3, $4, 7, '2023-03-01 00:00:00+00', $5);
SET acmetrace.cluster = 'kalos';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util($3, $4, 8, '2023-05-01 00:00:00+00', $5);
RESET acmetrace.cluster;
RESET acmetrace.metric;
EOF
}

# A data node keeps the months (UTC) of its parity: node1 odd, node2 even.
shard_sql() {  # shard_sql PARITY
    cat <<EOF
DELETE FROM acmetrace.jobs
 WHERE NOT extract(month FROM submit_time AT TIME ZONE 'UTC')::int % 2 = $1;
-- Utilization blocks hold one UTC day, so a block belongs to the month of its day.
DELETE FROM acmetrace.utilization_blocks
 WHERE NOT extract(month FROM day)::int % 2 = $1;
-- One month of a cluster is an index range, stored contiguously (CLUSTER
-- also compacts away the deleted months): a leaf reads only its own rows.
CREATE INDEX jobs_cluster_month ON acmetrace.jobs (cluster, submit_time);
CLUSTER acmetrace.jobs USING jobs_cluster_month;
CLUSTER acmetrace.utilization_blocks USING utilization_blocks_pkey;
ANALYZE acmetrace.jobs;
ANALYZE acmetrace.utilization_blocks;
CREATE SCHEMA shard;
CREATE TABLE shard.manifest (relation text, cluster text, month date, view_name text, rows bigint,
                             PRIMARY KEY (relation, cluster, month));
DO \$\$
DECLARE
    r record;
    lo text;
    hi text;
BEGIN
    FOR r IN SELECT 'jobs' AS relation, j.cluster, date_trunc('month', j.submit_time AT TIME ZONE 'UTC')::date AS month, count(*) AS n
               FROM acmetrace.jobs j GROUP BY 1, 2, 3
             UNION ALL
             SELECT 'utilization', b.cluster, date_trunc('month', b.day)::date, sum(b.n)
               FROM acmetrace.utilization_blocks b GROUP BY 1, 2, 3
             ORDER BY 1, 2, 3
    LOOP
        lo := r.month::timestamp || '+00';
        hi := (r.month + interval '1 month')::timestamp || '+00';
        IF r.relation = 'jobs' THEN
            EXECUTE format('CREATE VIEW shard.%I AS SELECT %L::date AS month, j.* FROM acmetrace.jobs j
                             WHERE j.cluster = %L AND j.submit_time >= %L::timestamptz AND j.submit_time < %L::timestamptz',
                           format('jobs_%s_%s', r.cluster, to_char(r.month, 'YYYY_MM')), r.month, r.cluster, lo, hi);
            INSERT INTO shard.manifest VALUES ('jobs', r.cluster, r.month, format('jobs_%s_%s', r.cluster, to_char(r.month, 'YYYY_MM')), r.n);
        ELSE
            -- the rows of acmetrace.utilization, decoded from the month's blocks only
            EXECUTE format('CREATE VIEW shard.%I AS SELECT %L::date AS month, u.value, u.ts, b.metric, b.cluster, b.series
                              FROM acmetrace.utilization_blocks b CROSS JOIN LATERAL acmetrace.unnest(b.samples) u
                             WHERE b.cluster = %L AND b.day >= %L::date AND b.day < %L::date',
                           format('util_%s_%s', r.cluster, to_char(r.month, 'YYYY_MM')), r.month, r.cluster,
                           r.month, (r.month + interval '1 month')::date);
            INSERT INTO shard.manifest VALUES ('utilization', r.cluster, r.month, format('util_%s_%s', r.cluster, to_char(r.month, 'YYYY_MM')), r.n);
        END IF;
    END LOOP;
END
\$\$;
EOF
}

coord_sql() {
    cat <<EOF
CREATE EXTENSION acmetrace;
CREATE EXTENSION postgres_fdw;
-- extensions 'acmetrace': acmetrace's functions, aggregates and types are
-- shippable, so a GROUP BY over a leaf runs its aggregate on the data node.
-- async_capable: an Append runs the foreign scans of both nodes at once.
CREATE SERVER node1 FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '$(port_of node1)', dbname '$DB', extensions 'acmetrace',
             fetch_size '10000', async_capable 'true');
CREATE SERVER node2 FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '$(port_of node2)', dbname '$DB', extensions 'acmetrace',
             fetch_size '10000', async_capable 'true');
CREATE USER MAPPING FOR PUBLIC SERVER node1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR PUBLIC SERVER node2 OPTIONS (user 'postgres');
CREATE SCHEMA dist;
CREATE FOREIGN TABLE dist.manifest_node1 (relation text, cluster text, month date, view_name text, rows bigint)
    SERVER node1 OPTIONS (schema_name 'shard', table_name 'manifest');
CREATE FOREIGN TABLE dist.manifest_node2 (relation text, cluster text, month date, view_name text, rows bigint)
    SERVER node2 OPTIONS (schema_name 'shard', table_name 'manifest');
CREATE VIEW dist.manifest AS
SELECT 'node1' AS node, * FROM dist.manifest_node1 UNION ALL SELECT 'node2', * FROM dist.manifest_node2;
-- month first, then acmetrace's columns (LIKE copies them as plain columns).
CREATE TABLE dist.jobs (month date NOT NULL, LIKE acmetrace.jobs) PARTITION BY LIST (cluster);
CREATE TABLE dist.utilization (month date NOT NULL, LIKE acmetrace.utilization) PARTITION BY LIST (cluster);
DO \$\$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT DISTINCT relation, cluster FROM dist.manifest ORDER BY 1, 2 LOOP
        EXECUTE format('CREATE TABLE dist.%I PARTITION OF dist.%I FOR VALUES IN (%L) PARTITION BY LIST (month)',
                       r.relation || '_' || r.cluster, r.relation, r.cluster);
    END LOOP;
    FOR r IN SELECT * FROM dist.manifest ORDER BY relation, cluster, month LOOP
        EXECUTE format('CREATE FOREIGN TABLE dist.%I PARTITION OF dist.%I FOR VALUES IN (%L) SERVER %I
                        OPTIONS (schema_name %L, table_name %L)',
                       r.view_name, r.relation || '_' || r.cluster, r.month, r.node, 'shard', r.view_name);
    END LOOP;
END
\$\$;
-- Element-wise sum of bins arrays (same bounds): merges per-shard acmetrace.bins.
CREATE FUNCTION dist.bins_add(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE AS \$f\$
DECLARE
    r bigint[];
BEGIN
    IF a IS NULL THEN RETURN b; END IF;
    IF b IS NULL THEN RETURN a; END IF;
    IF array_lower(a, 1) <> array_lower(b, 1) OR array_upper(a, 1) <> array_upper(b, 1) THEN
        RAISE EXCEPTION 'bins arrays of different shapes: % and %', array_dims(a), array_dims(b);
    END IF;
    r := a;
    FOR i IN array_lower(a, 1) .. array_upper(a, 1) LOOP
        r[i] := a[i] + b[i];
    END LOOP;
    RETURN r;
END
\$f\$;
CREATE AGGREGATE dist.bins_sum(bigint[]) (SFUNC = dist.bins_add, STYPE = bigint[]);
ANALYZE dist.jobs;
ANALYZE dist.utilization;
EOF
}

cmd_load() {
    local seren=50000 kalos=50000 series=100 samples=1000 step=10800
    while [ $# -gt 0 ]; do
        case $1 in
            --seren-jobs) seren=$2; shift 2 ;;
            --kalos-jobs) kalos=$2; shift 2 ;;
            --util-series) series=$2; shift 2 ;;
            --util-samples) samples=$2; shift 2 ;;
            --util-step) step=$2; shift 2 ;;
            *) usage ;;
        esac
    done
    local name
    for name in "${NAMES[@]}"; do running "$name" || die "$name is not running (tools/multinode.sh start $DIR)"; done
    # fresh databases
    for name in "${NAMES[@]}"; do
        qn "$name" postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
    done
    qn coord postgres -c "DROP DATABASE IF EXISTS single WITH (FORCE)" -c "CREATE DATABASE single"
    # the three loads run at once
    local pids=() parity
    for name in node1 node2; do
        [ "$name" = node1 ] && parity=1 || parity=0
        { echo "CREATE EXTENSION acmetrace;"; load_sql "$seren" "$kalos" "$series" "$samples" "$step"; shard_sql "$parity"; } |
            qn "$name" "$DB" >"$DIR/load_$name.log" 2>&1 &
        pids+=($!)
    done
    { echo "CREATE EXTENSION acmetrace;"; load_sql "$seren" "$kalos" "$series" "$samples" "$step"
      echo "VACUUM ANALYZE acmetrace.jobs;"; echo "VACUUM ANALYZE acmetrace.utilization_blocks;"; } |
        qn coord single >"$DIR/load_single.log" 2>&1 &
    pids+=($!)
    local failed=0 p
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    if [ "$failed" = 1 ]; then cat "$DIR"/load_*.log >&2; die "load failed"; fi
    printf 'SEREN=%s\nKALOS=%s\nSERIES=%s\nSAMPLES=%s\nSTEP=%s\n' "$seren" "$kalos" "$series" "$samples" "$step" >"$DIR/load.params"
    coord_sql | qn coord "$DB" >"$DIR/load_coord.log" 2>&1 || { cat "$DIR/load_coord.log" >&2; die "coordinator setup failed"; }
    qn coord "$DB" -c "SELECT node, relation, count(*) AS partitions, sum(rows) AS rows FROM dist.manifest GROUP BY 1, 2 ORDER BY 1, 2"
}

[ $# -ge 2 ] || usage
cmd=$1 DIR=$2; shift 2
case $DIR in /*) ;; *) DIR=$(pwd)/$DIR ;; esac
case $cmd in
    start) [ $# -eq 0 ] || usage; cmd_start ;;
    stop) cmd_stop ;;
    destroy) cmd_stop; rm -rf "${DIR:?}" ;;
    status) cmd_status ;;
    env) cmd_env ;;
    load) cmd_load "$@" ;;
    psql)
        [ $# -ge 1 ] || usage
        who=$1; shift
        case $who in
            single) qn coord single "$@" ;;
            coord|node1|node2) qn "$who" "$DB" "$@" ;;
            *) usage ;;
        esac ;;
    *) usage ;;
esac
