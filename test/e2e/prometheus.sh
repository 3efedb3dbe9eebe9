#!/usr/bin/env bash
# Real Prometheus: under tools/prometheus_server.sh (a private Prometheus
# 2.42), backfilled with two days of dcgm-exporter metrics of 64 GPUs
# (test/prometheus_openmetrics.sql: the generator's values and placement,
# hpc_job labels on 4 nodes, gaps and NaN samples) and scraping a small
# live exporter every second, bin/acmetrace-sync --no-sacct --prometheus
# loads GPU_UTIL, SM_ACTIVE and FB_USED.  Checks, sample by sample, that
# what is stored is what Prometheus holds (asked back with range selectors,
# scaled by each field's shift), that acmetrace.utilization_jobs spans are
# those of the hpc_job labels, that a second sync after more live samples
# adds exactly the new ones (nothing twice, gaps stay gaps), and hostile
# sources: Prometheus down, HTTP 404 and 500, a stalling server with a
# short --prom-timeout, malformed and truncated JSON, series that do not
# name a GPU: each a non-zero exit with a clear message, a 'failed'
# sync_runs row and the stored samples unchanged.
# Needs prometheus and promtool (Debian's prometheus), curl and python3.
if [ "${1:-}" != --inner ]; then
    . "$(dirname "$0")/lib.sh"
    missing=""
    for b in prometheus promtool curl python3; do command -v "$b" >/dev/null || missing+="$b "; done
    if [ -n "$missing" ]; then
        bad "not installed: ${missing% } (bash tools/install-deps.sh: packages prometheus curl python3)"; finish
    fi
    make -s -C "$ROOT" tools/acmetrace-prometheus >/dev/null || { bad "cannot build tools/acmetrace-prometheus"; finish; }
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-prom-e2e.XXXXXX") || { bad "mktemp failed"; finish; }
    pids=()
    cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
    trap cleanup EXIT
    fresh_db e2e_prometheus
    # the backfill ends 10 minutes ago (a block reaching past now would make
    # the live scrapes "out of bounds"), at .250 s to check milliseconds
    end_s=$(($(date +%s) - 600)).250
    psql -X -q -v ON_ERROR_STOP=1 -v cluster=promtest -v end_s="$end_s" -f "$ROOT/test/prometheus_openmetrics.sql" \
        -o "$tmp/backfill.om" 2>"$tmp/gen.err" || { bad "test/prometheus_openmetrics.sql failed: $(head -3 "$tmp/gen.err")"; finish; }
    # the servers of the test: an exporter and fakes (python3)
    cat >"$tmp/server.py" <<'EOF'
# server.py PORT MODE: exporter (dcgm-exporter's text of 4 GPUs, new values
# at each request), or a fake Prometheus API: 500, stall, malformed,
# truncated, nohost (its /api/v1/series lists a series without Hostname),
# toomany and timeout (query ranges logged to the file argv[3]), fixed7
# and fixed8 (two samples at fixed times)
import http.server, random, sys, time, urllib.parse
port, mode = int(sys.argv[1]), sys.argv[2]
SERIES = '{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"fake0","gpu":"0"}'
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'   # no Content-Length needed: the body ends when the connection closes
    def log_message(self, *a): pass
    def reply(self, code, body, ctype='application/json'):
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.end_headers()
        self.wfile.write(body.encode())
    def do_GET(self):
        path = self.path.split('?')[0]
        if mode == 'exporter':
            out = []
            for name, val in (('DCGM_FI_DEV_GPU_UTIL', lambda: str(random.randint(0, 100))),
                              ('DCGM_FI_PROF_SM_ACTIVE', lambda: '%.3f' % random.random()),
                              ('DCGM_FI_DEV_FB_USED', lambda: str(random.randint(0, 81920)))):
                out.append('# TYPE %s gauge' % name)
                for g in range(4):
                    job = ',hpc_job="900001"' if g < 2 else ''
                    out.append('%s{gpu="%d",UUID="GPU-live-%d",device="nvidia%d",modelName="NVIDIA A100-SXM4-80GB",Hostname="live0"%s} %s'
                               % (name, g, g, g, job, val()))
            return self.reply(200, '\n'.join(out) + '\n', 'text/plain; version=0.0.4')
        if mode == 'stall':
            time.sleep(60)
            return
        if mode == '500':
            return self.reply(500, 'internal server error\n', 'text/plain')
        if path == '/api/v1/series':
            s = SERIES.replace('"Hostname":"fake0",', '') if mode == 'nohost' else SERIES
            return self.reply(200, '{"status":"success","data":[%s]}' % s)
        if mode in ('toomany', 'timeout') and path == '/api/v1/query':
            # a query over more than 10 minutes would load too many samples;
            # timeout: every query times out
            r = int(urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)['query'][0].split('[')[1].rstrip('ms]'))
            with open(sys.argv[3], 'a') as log:
                log.write('%d\n' % r)
            if mode == 'timeout':
                return self.reply(503, '{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}')
            if r > 600000:
                return self.reply(422, '{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}')
            return self.reply(200, '{"status":"success","data":{"resultType":"matrix","result":[]}}')
        if mode in ('fixed7', 'fixed8'):   # the same two times at every query, valued 7 or 8
            return self.reply(200, '{"status":"success","data":{"resultType":"matrix","result":[{"metric":%s,"values":[[1795700000,"%s"],[1795700015,"%s"]]}]}}'
                              % (SERIES, mode[-1], mode[-1]))
        body = '{"status":"success","data":{"resultType":"matrix","result":[{"metric":%s,"values":[[%d.5,"7"],[%d,"8"]]}]}}' \
               % (SERIES, time.time() - 30, time.time() - 20)
        if mode == 'malformed':
            body = body.replace('],[', '] [')
        elif mode == 'truncated':
            body = body[:len(body) // 2]
        self.reply(200, body)
http.server.ThreadingHTTPServer(('127.0.0.1', port), H).serve_forever()
EOF
    # start_server MODE: a server.py on a free port; its port in $port
    start_server() {
        local try i
        for try in 1 2 3 4 5; do
            port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
            python3 "$tmp/server.py" "$port" "$1" "$tmp/$1.log" 2>>"$tmp/server_$1.err" &
            pids+=($!)
            for i in $(seq 100); do
                curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/metrics" && [ "$1" != stall ] && return 0
                [ "$1" = stall ] && ss -Htln "( sport = :$port )" | grep -q . && return 0
                kill -0 "${pids[-1]}" 2>/dev/null || break
                sleep 0.1
            done
        done
        bad "the $1 server did not start: $(tail -2 "$tmp/server_$1.err")"; return 1
    }
    start_server exporter || finish
    export_port=$port
    for m in 500 stall malformed truncated nohost toomany timeout fixed7 fixed8; do
        start_server "$m" || finish
        export "FAKE_${m^^}=http://127.0.0.1:$port"
    done
    export PT_TMP=$tmp PT_END_S=$end_s
    bash "$ROOT/tools/prometheus_server.sh" --backfill "$tmp/backfill.om" --scrape "127.0.0.1:$export_port" \
        bash "$0" --inner >"$tmp/out" 2>"$tmp/err"
    rc=$?
    cat "$tmp/out"; cat "$tmp/err" >&2
    if ! grep -qE '^  (ok|FAIL): ' "$tmp/out"; then
        bad "Prometheus did not start (exit $rc): $(tail -3 "$tmp/err" | tr '\n' ' ')"
    elif [ $rc -ne 0 ] && ! grep -q '^  FAIL: ' "$tmp/out"; then
        bad "exited $rc: $(tail -3 "$tmp/err" | tr '\n' ' ')"
    fi
    [ $rc -eq 0 ] && finish
    exit 1
fi

. "$(dirname "$0")/lib.sh"
SYNC=${ACMETRACE_SYNC:-$ROOT/bin/acmetrace-sync}   # or test an installed copy
CL=promtest
METRICS="GPU_UTIL SM_ACTIVE FB_USED"
declare -A DCGM=([GPU_UTIL]=DCGM_FI_DEV_GPU_UTIL [SM_ACTIVE]=DCGM_FI_PROF_SM_ACTIVE [FB_USED]=DCGM_FI_DEV_FB_USED)
declare -A SHIFT=([GPU_UTIL]=0 [SM_ACTIVE]=2 [FB_USED]=0)

# run NAME ARGS...: the sync's exit code in $rc, stdout in $out, stderr in $err
run() {
    local name=$1; shift
    "$SYNC" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"; rc=$?
    out=$(cat "$OUT/$name.stdout"); err=$(cat "$OUT/$name.stderr")
}
last_run() { q -F ' ' -c "SELECT $1 FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1"; }
prom() {  # prom PATH ARGS...: a GET of the Prometheus API
    local path=$1; shift
    curl -sS --fail-with-body -G "$PROM_URL$path" "$@"
}
# fetch_back FILE START_MS END_MS: every raw sample of the 3 metrics in
# [START, END] (range selectors, as the sync asks) as lines
# "metric series job ts_text value_text" from Prometheus's JSON, its texts kept
fetch_back() {
    local f=$1 s=$2 e=$3 m
    : >"$f"
    for m in $METRICS; do
        prom /api/v1/query --data-urlencode "query=${DCGM[$m]}[$((e - s))ms]" \
            --data-urlencode "time=$((e / 1000)).$(printf %03d $((e % 1000)))" |
            python3 -c '
import json, sys
m = sys.argv[1]
for r in json.load(sys.stdin, parse_float=str, parse_int=str)["data"]["result"]:
    l = r["metric"]
    for t, v in r["values"]:
        print("\t".join((m, l["Hostname"] + "-gpu" + l["gpu"], l.get("hpc_job", "\\N"), t, v)))' "$m" >>"$f" ||
            { bad "fetching $m back from Prometheus failed"; return 1; }
    done
}
# compare FILE: the stored samples against FILE's (NaN and infinities are
# not stored): one line per difference, nothing when all agree
compare() {
    q -F ' ' 2>"$OUT/compare.err" <<EOF || echo "the comparison failed: $(head -3 "$OUT/compare.err")"
CREATE TEMP TABLE p (metric text, series text, job text, ts text, value text);
\\copy p FROM '$1'
CREATE TEMP VIEW want AS
SELECT metric, series, timestamptz 'epoch' + ts::numeric * interval '1 s' AS ts,
       (value::numeric * power(10::numeric, CASE metric WHEN 'SM_ACTIVE' THEN 2 ELSE 0 END))::float8 AS value
  FROM p WHERE value NOT IN ('NaN', '+Inf', '-Inf');
CREATE TEMP VIEW got AS
SELECT metric, series, ts, value FROM acmetrace.utilization
 WHERE cluster = '$CL' AND metric IN ('GPU_UTIL', 'SM_ACTIVE', 'FB_USED')
   AND ts BETWEEN (SELECT min(ts) FROM want) AND (SELECT max(ts) FROM want);
SELECT coalesce(w.metric, g.metric), coalesce(w.series, g.series), coalesce(w.ts, g.ts),
       CASE WHEN g.ts IS NULL THEN 'missing' WHEN w.ts IS NULL THEN 'extra' ELSE 'got ' || g.value || ' want ' || w.value END
  FROM want w FULL JOIN got g USING (metric, series, ts)
 WHERE w.value IS DISTINCT FROM g.value
 ORDER BY 1, 2, 3 LIMIT 10;
EOF
}
stored() { q -c "SELECT count(*) FROM acmetrace.utilization WHERE cluster = '$CL' AND metric IN ('GPU_UTIL', 'SM_ACTIVE', 'FB_USED')"; }
fingerprint() {
    q -c "SELECT md5(coalesce((SELECT string_agg(b::text, '|' ORDER BY metric, cluster, day, series) FROM acmetrace.utilization_blocks b), '')
                 || coalesce((SELECT string_agg(j::text, '|' ORDER BY j::text) FROM acmetrace.utilization_jobs j), ''))"
}
live_count() {  # samples of the live exporter's GPUs that Prometheus holds after MS
    prom /api/v1/query --data-urlencode "query=count_over_time(DCGM_FI_DEV_GPU_UTIL{Hostname=\"live0\",gpu=\"0\"}[1h])" |
        python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
# wait_live N: until Prometheus has N scrapes of the exporter more than now (polled)
wait_live() {
    local want=$(( $(live_count) + $1 )) i
    for i in $(seq 600); do [ "$(live_count)" -ge "$want" ] && return 0; sleep 0.2; done
    bad "the exporter's samples did not arrive in Prometheus"; return 1
}

wait_live 3 || finish
check_eq "Prometheus serves the backfill: GPU_UTIL series with and without hpc_job, and the live ones" \
    "$(prom /api/v1/series --data-urlencode 'match[]=DCGM_FI_DEV_GPU_UTIL' | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(len({(s["Hostname"], s["gpu"]) for s in d}), any("hpc_job" in s for s in d), any(s["Hostname"] == "live0" for s in d))')" \
    "68 True True"

# ---- sync 1: the two days and the live samples so far
since=$(q -c "SELECT timestamptz '2023-03-03 00:00+00' + shift - interval '1 hour' FROM prom_shift")   # the backfill's start, less an hour
run sync1 --cluster "$CL" --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL,SM_ACTIVE,DCGM_FI_DEV_FB_USED,FB_FREE \
    --prom-since "$since" --prom-window '6 hours' --prom-lag 2s
check_eq "sync 1: exit code, nothing on stderr" "$rc $err" "0 "
grep -Eq "^acmetrace-sync: $CL: prometheus [0-9T:.-]+\.\.[0-9T:.-]+ UTC: [0-9]+ samples read, [0-9]+ stored, 0 unchanged, 3 skipped \(not finite\) in [0-9.]+ s \(run 1\); no series: FB_FREE$" <<<"$out" &&
    ok "sync 1: one summary line (3 NaN skipped, FB_FREE has no series)" || bad "sync 1: summary: $out"
read -r ws_ms we_ms < <(q -F ' ' -c "SELECT floor(extract(epoch FROM window_start) * 1000)::bigint, floor(extract(epoch FROM window_end) * 1000)::bigint
                                       FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1")
check_eq "sync 1: the run recorded" "$(last_run "source, outcome, window_start = '$since'::timestamptz, updated, unchanged, skipped, message IS NULL")" \
    "prometheus ok t 0 0 3 t"
fetch_back "$OUT/prom1.tsv" "$ws_ms" "$we_ms" || finish
n1=$(grep -cv -e $'\tNaN$' "$OUT/prom1.tsv")
check_eq "sync 1: samples read and stored = Prometheus's raw samples of the window (NaN not stored)" \
    "$(last_run "lines, inserted") $(stored)" "$n1 $n1 $n1"
check_eq "sync 1: every stored sample is Prometheus's, time and value (SM_ACTIVE x 100)" "$(compare "$OUT/prom1.tsv")" ""
check_eq "sync 1: SM_ACTIVE, DCGM's ratio, stored in percent as the published files and the generator write it" \
    "$(q -c "SELECT min(value) >= 0 AND max(value) > 1 AND max(value) <= 100 FROM acmetrace.utilization WHERE cluster = '$CL' AND metric = 'SM_ACTIVE'")" t
check_eq "sync 1: samples of the backfill's 64 GPUs and the exporter's 4" \
    "$(q -c "SELECT count(DISTINCT series) FROM acmetrace.utilization_blocks WHERE cluster = '$CL'")" 68
check_eq "sync 1: no sample stored in a gap of the backfill" \
    "$(q -c "SELECT count(*) FROM prom_holes h JOIN acmetrace.utilization u ON u.series = h.series AND u.ts = h.ts AND u.cluster = '$CL'
              WHERE h.kind = 'gap' OR u.metric = 'GPU_UTIL'")" 0
check_eq "sync 1: the hour-long gap of one GPU: no sample in it, the samples either side stored (each metric)" \
    "$(q -F ' ' -c "SELECT count(*) FILTER (WHERE u.ts > a AND u.ts < b), count(*) FILTER (WHERE u.ts IN (a, b))
                     FROM acmetrace.utilization u, prom_gpus g, prom_shift,
                          LATERAL (SELECT timestamptz '2023-03-03 00:00+00' + shift + interval '599 min' AS a,
                                          timestamptz '2023-03-03 00:00+00' + shift + interval '660 min' AS b) t
                    WHERE g.node = 5 AND g.gpu = 3 AND u.cluster = '$CL' AND u.series = g.series")" "0 6"
check_eq "sync 1: the hpc_job spans are those of the labels (metric, series, job, first and last time)" "$(q -F ' ' <<EOF
CREATE TEMP TABLE p (metric text, series text, job text, ts text, value text);
\\copy p FROM '$OUT/prom1.tsv'
WITH want AS (SELECT metric, series, job, min(timestamptz 'epoch' + ts::numeric * interval '1 s') f, max(timestamptz 'epoch' + ts::numeric * interval '1 s') l
                FROM p WHERE job IS NOT NULL AND value <> 'NaN' GROUP BY 1, 2, 3),
     got AS (SELECT metric, series, job_id AS job, first_ts f, last_ts l FROM acmetrace.utilization_jobs WHERE cluster = '$CL')
SELECT count(*) FILTER (WHERE w IS NULL OR g IS NULL), count(w), count(g)
  FROM want w FULL JOIN got g USING (metric, series, job, f, l);
EOF
)" "0 $(awk -F'\t' '$3 != "\\N" && $5 != "NaN" { print $1, $2, $3 }' "$OUT/prom1.tsv" | sort -u | wc -l | tr -d ' ') $(awk -F'\t' '$3 != "\\N" && $5 != "NaN" { print $1, $2, $3 }' "$OUT/prom1.tsv" | sort -u | wc -l | tr -d ' ')"
check_eq "sync 1: job spans on the 4 labelled nodes and the exporter's 2 labelled GPUs only" \
    "$(q -c "SELECT count(DISTINCT u.series) FILTER (WHERE g.labelled), count(*) FILTER (WHERE NOT g.labelled),
                     count(DISTINCT u.series) FILTER (WHERE u.series LIKE 'live0-%')
               FROM acmetrace.utilization_jobs u LEFT JOIN prom_gpus g USING (series) WHERE u.cluster = '$CL'")" \
    "$(awk -F'\t' '$3 != "\\N" && $2 !~ /^live0-/ { print $2 }' "$OUT/prom1.tsv" | sort -u | wc -l | tr -d ' ')|0|2"
check_eq "sync 1: the backfill's job labels are jobs of the generated trace that ran on those GPUs" \
    "$(q -c "SELECT count(*) FROM acmetrace.utilization_jobs u WHERE u.cluster = '$CL' AND u.series NOT LIKE 'live0-%'
               AND NOT EXISTS (SELECT 1 FROM prom_placement p JOIN acmetrace.jobs j ON j.cluster = '$CL' AND j.job_id = p.job_id
                                WHERE p.job_id = u.job_id AND u.series = ANY (p.series)
                                  AND u.first_ts >= p.start_time AND u.last_ts < p.end_time)")" 0

# ---- sync 2: more live samples; only they are added
before=$(stored)
wait_live 3 || finish
run sync2 --quiet --cluster "$CL" --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL,SM_ACTIVE,FB_USED --prom-lag 2s
check_eq "sync 2: exit code, --quiet prints nothing" "$rc $out$err" "0 "
read -r ws2_ms we2_ms < <(q -F ' ' -c "SELECT floor(extract(epoch FROM window_start) * 1000)::bigint, floor(extract(epoch FROM window_end) * 1000)::bigint
                                         FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1")
check_eq "sync 2: starts 1 ms after the last stored sample of sync 1" \
    "$ws2_ms" "$(q -c "SELECT min(floor(extract(epoch FROM l) * 1000)::bigint + 1) FROM
                   (SELECT max(u.ts) l FROM acmetrace.utilization u WHERE cluster = '$CL' AND metric IN ('GPU_UTIL', 'SM_ACTIVE', 'FB_USED')
                       AND ts <= timestamptz 'epoch' + $we_ms * interval '1 ms' GROUP BY metric) t")"
fetch_back "$OUT/prom2.tsv" "$ws2_ms" "$we2_ms" || finish
n2=$(wc -l <"$OUT/prom2.tsv")
[ "$n2" -gt 0 ] && ok "sync 2: Prometheus has new live samples ($n2)" || bad "sync 2: no new samples in Prometheus"
check_eq "sync 2: read and stored the new samples only, none twice" "$(last_run "lines, inserted, unchanged") $(stored)" "$n2 $n2 0 $((before + n2))"
fetch_back "$OUT/prom_all.tsv" "$ws_ms" "$we2_ms" || finish
check_eq "after sync 2: every stored sample is Prometheus's, each once" "$(compare "$OUT/prom_all.tsv")" ""
check_eq "after sync 2: gaps stay gaps" \
    "$(q -c "SELECT count(*) FROM prom_holes h JOIN acmetrace.utilization u ON u.series = h.series AND u.ts = h.ts AND u.cluster = '$CL'
              WHERE h.kind = 'gap' OR u.metric = 'GPU_UTIL'")" 0

# ---- job_utilization on the synced samples: the labelled nodes' jobs by
# their hpc_job spans, the others' by their placement (acmetrace.job_gpus,
# filled from the generator's), against a plain SQL join over the decoded
# samples (acmetrace.utilization)
q -c "INSERT INTO acmetrace.job_gpus (cluster, job_id, series)
      SELECT '$CL', p.job_id, p.series FROM prom_placement p
       WHERE p.job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = '$CL')
         AND EXISTS (SELECT 1 FROM unnest(p.series) s JOIN prom_gpus g ON g.series = s AND NOT g.labelled)" >/dev/null
for m in GPU_UTIL SM_ACTIVE; do
    check_eq "job_utilization('$CL', '$m') equals a plain join over acmetrace.utilization (rows only in one, only in the other; label and placement rows)" "$(q -F ' ' <<EOF
CREATE TEMP TABLE ref AS
WITH labelled AS (SELECT DISTINCT cluster, job_id FROM acmetrace.utilization_jobs WHERE metric = '$m' AND cluster = '$CL'),
w AS (
    SELECT j.cluster, j.job_id, 'label' AS matched_by, u.series, greatest(u.first_ts, j.start_time) AS lo,
           least(u.last_ts, j.end_time) AS hi, true AS hi_in
      FROM acmetrace.utilization_jobs u JOIN acmetrace.jobs j USING (cluster, job_id)
     WHERE u.metric = '$m' AND u.cluster = '$CL' AND j.gpu_num > 0
    UNION ALL
    SELECT j.cluster, j.job_id, 'placement', s, j.start_time, j.end_time, false
      FROM acmetrace.job_gpus g JOIN acmetrace.jobs j USING (cluster, job_id), unnest(g.series) s
     WHERE g.cluster = '$CL' AND j.gpu_num > 0 AND j.start_time IS NOT NULL
       AND (j.cluster, j.job_id) NOT IN (SELECT * FROM labelled)),
v AS (
    SELECT DISTINCT w.cluster, w.job_id, w.matched_by, u.series, u.ts, u.value
      FROM w JOIN acmetrace.utilization u ON u.metric = '$m' AND u.cluster = w.cluster AND u.series = w.series
     WHERE u.ts >= w.lo AND (w.hi IS NULL OR u.ts < w.hi OR (w.hi_in AND u.ts = w.hi)))
SELECT v.cluster, v.job_id, j.type, j.gpu_num, v.matched_by, count(DISTINCT v.series)::int AS series, count(*) AS samples,
       (sum(v.value::numeric) / count(*))::float8 AS mean, percentile_cont(0.5) WITHIN GROUP (ORDER BY v.value) AS median,
       round(100.0 * count(*) FILTER (WHERE v.value <= 1) / count(*), 2) AS idle_pct
  FROM v JOIN acmetrace.jobs j USING (cluster, job_id)
 GROUP BY 1, 2, 3, 4, 5;
SELECT (SELECT count(*) FROM (SELECT * FROM acmetrace.job_utilization('$CL', '$m') EXCEPT ALL SELECT * FROM ref) d),
       (SELECT count(*) FROM (SELECT * FROM ref EXCEPT ALL SELECT * FROM acmetrace.job_utilization('$CL', '$m')) d),
       (SELECT count(*) > 0 FROM ref WHERE matched_by = 'label'), (SELECT count(*) > 0 FROM ref WHERE matched_by = 'placement');
EOF
)" "0 0 t t"
done

# ---- hostile sources: a non-zero exit, a clear message, a failed run, nothing changed
fp=$(fingerprint)
# hostile NAME CODE MESSAGE-REGEX ARGS...: acmetrace-sync --no-sacct --prometheus ARGS...
hostile() {
    local name=$1 code=$2 re=$3 n; shift 3
    n=$(q -c "SELECT count(*) FROM acmetrace.sync_runs")
    run "$name" --cluster "$CL" --no-sacct --metrics GPU_UTIL --prom-lag 2s "$@"
    check_eq "$name: exit code" "$rc" "$code"
    if grep -Eq "^acmetrace-sync: $CL: prometheus [0-9T:.-]+\.\.[0-9T:.-]+ UTC: $re" <<<"$err"; then ok "$name: message"; else bad "$name: message: $err"; fi
    check_eq "$name: a failed run with the message, stored samples unchanged" \
        "$(q -c "SELECT count(*) FROM acmetrace.sync_runs") $(last_run "source, outcome, message = '$(sed "s/'/''/g; s/^acmetrace-sync: //" <<<"$err")'") $(fingerprint)" \
        "$((n + 1)) prometheus failed t $fp"
}
down=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
while ss -Htln "( sport = :$down )" | grep -q .; do down=$((down + 1)); done
hostile down 3 "cannot reach Prometheus at http://127.0.0.1:$down: .*; nothing loaded" --prometheus "http://127.0.0.1:$down"
hostile http404 3 "Prometheus answered HTTP 404 to the series of DCGM_FI_DEV_GPU_UTIL.*; nothing loaded" --prometheus "$PROM_URL/nonexistent"
hostile http500 3 "Prometheus answered HTTP 500 to the series of DCGM_FI_DEV_GPU_UTIL.*; nothing loaded" --prometheus "$FAKE_500"
hostile stall 3 "Prometheus did not answer the series of DCGM_FI_DEV_GPU_UTIL within 1.500 s \(--prom-timeout\); nothing loaded" \
    --prometheus "$FAKE_STALL" --prom-timeout 1.5s
hostile malformed 1 "DCGM_FI_DEV_GPU_UTIL over [0-9T:.-]+\.\.[0-9T:.-]+ UTC: .+; nothing loaded" --prometheus "$FAKE_MALFORMED"
hostile truncated 1 "DCGM_FI_DEV_GPU_UTIL over [0-9T:.-]+\.\.[0-9T:.-]+ UTC: .+; nothing loaded" --prometheus "$FAKE_TRUNCATED"
hostile nohost 1 "the series of DCGM_FI_DEV_GPU_UTIL: .*gpu.*; nothing loaded" --prometheus "$FAKE_NOHOST"
hostile no_such_label 1 "the series of DCGM_FI_DEV_GPU_UTIL: .*Hostname.*; nothing loaded" --prometheus "$PROM_URL" --host-label node
grep -q 'Hostname="' "$OUT/nohost.stderr" && bad "nohost: the message names a Hostname" || ok "nohost: the series' labels named, no Hostname among them"

# ---- another sync of the cluster holds the lock: --no-wait exits 75, recording nothing
coproc HOLD { psql -X -q -A -t 2>&1; }
hold_pid=$HOLD_PID hold_in=${HOLD[1]}
echo "SELECT 'held' FROM (SELECT pg_advisory_lock(hashtextextended('acmetrace-sync:$CL', 0))) l;" >&"$hold_in"
read -r held <&"${HOLD[0]}"
n=$(q -c "SELECT count(*) FROM acmetrace.sync_runs")
run busy --no-wait --cluster "$CL" --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL --prom-lag 2s
check_eq "--no-wait while another sync holds the lock: exit 75, its message, no run, samples unchanged" \
    "$held $rc $(grep -c "^acmetrace-sync: $CL: another sync of this cluster is running; not waiting (--no-wait), nothing loaded$" <<<"$err") $(q -c "SELECT count(*) FROM acmetrace.sync_runs") $(fingerprint)" \
    "held 75 1 $n $fp"
echo '\q' >&"$hold_in"; wait "$hold_pid" 2>/dev/null

# ---- two sources: each loads or fails on its own, the exit status the failing one's
n=$(q -c "SELECT count(*) FROM acmetrace.sync_runs")
run both --cluster slurmjobs --file "$ROOT/test/fixtures/slurm/sacct_final.txt" --prometheus "http://127.0.0.1:$down" --metrics GPU_UTIL
check_eq "a file and Prometheus down: exit 3, the file's jobs loaded and recorded, the Prometheus run failed" \
    "$rc $(q -F ' ' -c "SELECT string_agg(CASE WHEN source = 'prometheus' THEN source ELSE 'file' END || ':' || outcome, ' ' ORDER BY run_id)
                          FROM acmetrace.sync_runs WHERE run_id > (SELECT max(run_id) FROM acmetrace.sync_runs) - 2") $(q -c "SELECT count(*) > 0 FROM acmetrace.jobs WHERE cluster = 'slurmjobs'")" \
    "3 file:ok prometheus:failed t"
grep -q "^acmetrace-sync: slurmjobs: file .*: [0-9]* lines read, [0-9]* inserted" <<<"$out" && ok "two sources: the file's summary line on stdout" ||
    bad "two sources: stdout: $out"

# ---- halving: a window Prometheus refuses (too many samples, time-out) is split
run toomany --cluster fake --no-sacct --metrics GPU_UTIL --prometheus "$FAKE_TOOMANY" --prom-since "$(q -c "SELECT now() - interval '1 hour'")" --prom-lag 0s
check_eq "too many samples: the window halved until Prometheus answers, the hour read once" \
    "$rc $(last_run "cluster, outcome, lines") $(head -4 "$PT_TMP/toomany.log" | tr '\n' ' ')$(tail -n +4 "$PT_TMP/toomany.log" | awk '{ s += $1 + 1 } END { print s }')" \
    "0 fake ok 0 3599999 1799999 899999 449999 $(q -c "SELECT (extract(epoch FROM window_end - window_start) * 1000)::bigint + 1 FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1")"
run timeout --cluster fake --no-sacct --metrics GPU_UTIL --prometheus "$FAKE_TIMEOUT" --prom-lag 0s --prom-window 10s
check_eq "time-outs: halved down to 1 s, then a failed run (exit 3)" \
    "$rc $(tr '\n' ' ' <"$PT_TMP/timeout.log")$(last_run "outcome") $(grep -c 'Prometheus could not answer even for a 1 s window: .*timed out' <<<"$err")" \
    "3 9999 4999 2499 1249 999 failed 1"

# ---- a sample Prometheus now gives another value than the stored one: the loader's error
run fixed7 --cluster fake2 --no-sacct --metrics GPU_UTIL --prometheus "$FAKE_FIXED7" --prom-since '2026-11-25 00:00+00' --prom-window '30 days'
check_eq "two samples loaded" "$rc $(last_run "cluster, outcome, inserted")" "0 fake2 ok 2"
fp2=$(fingerprint)
run fixed8 --cluster fake2 --no-sacct --metrics GPU_UTIL --prometheus "$FAKE_FIXED8" --prom-since '2026-11-25 00:00+00' --prom-window '30 days'
check_eq "another value for a stored sample: exit 1, the loader's message naming the series, a failed run, nothing changed" \
    "$rc $(grep -c "^acmetrace-sync: fake2: load of prometheus .* failed, nothing loaded: .*fake0-gpu0" <<<"$err") $(grep -c -e awk -e curl <<<"$err") $(last_run "cluster, outcome") $(fingerprint)" \
    "1 1 0 fake2 failed $fp2"

# ---- a loader that is not a superuser, under row-level security by cluster
q -c "SET client_min_messages = warning" -c "DROP ROLE IF EXISTS e2e_prom_loader" -c "CREATE ROLE e2e_prom_loader LOGIN" \
  -c "GRANT USAGE ON SCHEMA acmetrace TO e2e_prom_loader" \
  -c "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA acmetrace TO e2e_prom_loader" \
  -c "GRANT USAGE ON ALL SEQUENCES IN SCHEMA acmetrace TO e2e_prom_loader" \
  -c "SELECT acmetrace.grant_cluster('promteam', 'e2e_prom_loader')" >/dev/null
PGUSER=e2e_prom_loader run team --cluster promteam --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL \
    --prom-since "$(q -c "SELECT now() - interval '1 hour'")"
check_eq "a loader that is not a superuser syncs from Prometheus: exit 0, an ok run, samples stored" \
    "$rc $(last_run "cluster, outcome") $(q -c "SELECT sum(n) > 0 FROM acmetrace.utilization_blocks WHERE cluster = 'promteam'")" "0 promteam ok t"
check_eq "that loader sees its cluster's samples and runs only" \
    "$(PGUSER=e2e_prom_loader q -c "SELECT string_agg(DISTINCT cluster, ',') FROM acmetrace.utilization_blocks" -c "SELECT string_agg(DISTINCT cluster, ',') FROM acmetrace.sync_runs" | tr '\n' ' ')" \
    "promteam promteam "
q -c "SELECT acmetrace.revoke_cluster('promteam', 'e2e_prom_loader')" -c "DROP OWNED BY e2e_prom_loader" -c "DROP ROLE e2e_prom_loader" >/dev/null

# ---- usage
n=$(q -c "SELECT count(*) FROM acmetrace.sync_runs")
run no_cluster --no-sacct --prometheus "$PROM_URL"
check_eq "--no-sacct without --cluster: usage error" "$rc $(grep -c 'give --cluster NAME' <<<"$err")" "64 1"
run bad_metric --cluster "$CL" --no-sacct --prometheus "$PROM_URL" --metrics GPU_UTIL,NOPE
check_eq "an unknown metric: usage error naming it" "$rc $(grep -c 'unknown metric NOPE' <<<"$err")" "64 1"
run bad_window --cluster "$CL" --no-sacct --prometheus "$PROM_URL" --prom-window '10 ms'
check_eq "--prom-window under 1 s: usage error" "$rc $(grep -c 'at least 1.000 s' <<<"$err")" "64 1"
run prom_opt_alone --cluster "$CL" --prom-lag 1s --file /dev/null
check_eq "a Prometheus option without --prometheus: usage error" "$rc $(grep -c 'give --prometheus URL' <<<"$err")" "64 1"
check_eq "usage errors record no run" "$(q -c "SELECT count(*) FROM acmetrace.sync_runs")" "$n"
finish
