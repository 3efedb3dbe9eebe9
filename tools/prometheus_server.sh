#!/usr/bin/env bash
# tools/prometheus_server.sh [--backfill FILE] [--scrape HOST:PORT]... [--scrape-interval DURATION] COMMAND [ARG...]
#
# Runs COMMAND against a throw-away Prometheus of its own, in the spirit of
# tools/tmp_cluster.sh: its TSDB in a fresh temporary directory, listening
# on 127.0.0.1 on a port found free (retried if another server takes it).
#   --backfill FILE    OpenMetrics text (`metric{labels} value unix_seconds`,
#                      ending `# EOF`) turned into TSDB blocks first by
#                      `promtool tsdb create-blocks-from openmetrics`.  Every
#                      sample must be in the past: a block reaching past now
#                      makes every live scrape "out of bounds".  promtool
#                      drops a sample older than its series' previous one
#                      silently, so write each series in time order.
#   --scrape HOST:PORT a target scraped every --scrape-interval (default 1s),
#                      job "dcgm"; may be given more than once.
# Retention is 100 years: it counts from the newest block, and would drop an
# old backfill once live samples arrive.  COMMAND runs once /-/ready answers,
# with PROM_URL (http://127.0.0.1:PORT) and PROM_DIR (the directory)
# exported.  Prometheus is stopped and the directory removed on any exit.
# Exit status: COMMAND's, or 2 (the reason on stderr) if Prometheus could
# not be started.  Needs the Debian package prometheus (2.42, with promtool)
# and curl.
set -u
usage() { echo "usage: tools/prometheus_server.sh [--backfill FILE] [--scrape HOST:PORT]... [--scrape-interval DURATION] COMMAND [ARG...]" >&2; exit 64; }
die() { echo "prometheus_server: $*" >&2; exit 2; }
backfill='' interval=1s targets=()
while [ $# -gt 0 ]; do
    case $1 in
        --backfill) [ $# -ge 2 ] || usage; backfill=$2; shift 2 ;;
        --scrape) [ $# -ge 2 ] || usage; targets+=("$2"); shift 2 ;;
        --scrape-interval) [ $# -ge 2 ] || usage; interval=$2; shift 2 ;;
        --) shift; break ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || usage
for b in prometheus promtool curl; do
    command -v "$b" >/dev/null || die "$b not found: install the Debian packages prometheus and curl (bash tools/install-deps.sh)"
done
[ -z "$backfill" ] || [ -r "$backfill" ] || die "cannot read $backfill"

dir=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-prom.XXXXXX") || exit 2
pid=''
cleanup() {
    local i
    trap '' TERM INT HUP
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null
        for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
    fi
    [ -z "$pid" ] || wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
mkdir -p "$dir/data"

if [ -n "$backfill" ]; then
    # 24-hour blocks: a few large blocks build several times faster than 2-hour ones
    promtool tsdb create-blocks-from openmetrics --max-block-duration=24h "$backfill" "$dir/data" \
        >"$dir/promtool.log" 2>&1 || { tail -5 "$dir/promtool.log" >&2; die "promtool could not backfill $backfill"; }
fi
{
    echo "global:"
    echo "  scrape_interval: $interval"
    echo "  scrape_timeout: $interval"
    echo "  evaluation_interval: 1m"
    if [ ${#targets[@]} -gt 0 ]; then
        echo "scrape_configs:"
        echo "  - job_name: dcgm"
        echo "    static_configs:"
        echo "      - targets: [$(printf '"%s",' "${targets[@]}" | sed 's/,$//')]"
    fi
} >"$dir/prometheus.yml"

port_busy() { ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q .; }
ready=''
for try in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    port_busy "$port" && continue
    prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
        --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
        --log.level=warn >"$dir/prometheus.log" 2>&1 &
    pid=$!
    for i in $(seq 600); do
        kill -0 "$pid" 2>/dev/null || break
        if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/-/ready"; then ready=1; break; fi
        sleep 0.1
    done
    [ -n "$ready" ] && break
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=''
    grep -q 'address already in use' "$dir/prometheus.log" || break   # only a port race is retried
done
[ -n "$ready" ] || { tail -5 "$dir/prometheus.log" >&2; die "prometheus did not start"; }

export PROM_URL="http://127.0.0.1:$port" PROM_DIR=$dir
"$@"
