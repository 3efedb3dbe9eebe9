#!/usr/bin/env bash
# tools/acmetrace-prometheus, the converter acmetrace-sync runs, on bodies
# written here (the real Prometheus is test/e2e/prometheus.sh's): its
# output lines and exit statuses, every sample of a random body against an
# exact decimal reference (python3), and that a large body is streamed
# (peak memory far below the body's size).  Needs no server.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
mkdir -p "$OUT"
make -s tools/acmetrace-prometheus >"$OUT/build.log" 2>&1 || { bad "make tools/acmetrace-prometheus failed"; finish; }
T=$ROOT/tools/acmetrace-prometheus

got=$("$T" fields | awk -F'\t' '{ print $1 "=" $2 "/" $3 }' | tr '\n' ' ')
check_eq "fields" "$got" "DCGM_FI_DEV_GPU_UTIL=GPU_UTIL/0 DCGM_FI_PROF_SM_ACTIVE=SM_ACTIVE/2 DCGM_FI_PROF_SM_OCCUPANCY=SM_OCCUPANCY/2 DCGM_FI_PROF_PIPE_TENSOR_ACTIVE=PIPE_TENSOR_ACTIVE/2 DCGM_FI_PROF_DRAM_ACTIVE=DRAM_ACTIVE/2 DCGM_FI_DEV_FB_USED=FB_USED/0 DCGM_FI_DEV_FB_FREE=FB_FREE/0 DCGM_FI_DEV_GPU_TEMP=GPU_TEMP/0 DCGM_FI_DEV_POWER_USAGE=POWER_USAGE/0 "

# run MODE METRIC BODY [options]: stdout, then "rc=N"
run() {
    local mode=$1 metric=$2 body=$3
    shift 3
    printf '%s' "$body" | "$T" "$mode" --metric "$metric" "$@" 2>"$OUT/stderr"
    echo "rc=$?"
}

body='{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_PROF_SM_ACTIVE","Hostname":"node01","gpu":"0","hpc_job":"4242"},"values":[[1688169600.123,"0.537"],[1688169615,"NaN"],[1688169630,"1e-05"],[1688169645,"1"]]},{"values":[[1688169600,"0.005"]],"metric":{"gpu":"1","Hostname":"node01","__name__":"DCGM_FI_PROF_SM_ACTIVE"}}]}}'
check_eq "samples" "$(run samples DCGM_FI_PROF_SM_ACTIVE "$body")" "$(printf 'node01-gpu0\t4242\t1688169600123:53.7 1688169630000:0.001 1688169645000:100\nnode01-gpu1\t\\N\t1688169600000:0.5\n!end\t\\N\t2 4 1\nrc=0')"
check_eq "samples: nothing on stderr" "$(cat "$OUT/stderr")" ""
check_eq "series" "$(run series DCGM_FI_DEV_GPU_UTIL '{"status":"success","data":[{"__name__":"DCGM_FI_DEV_GPU_UTIL","instance":"10.0.0.1:9400","gpu":"3","hpc_job":"7"},{"__name__":"DCGM_FI_DEV_GPU_UTIL","instance":"10.0.0.1:9400","gpu":"4"}]}' --host-label instance)" \
    "$(printf '10.0.0.1:9400-gpu3\t7\n10.0.0.1:9400-gpu4\t\\N\nrc=0')"
check_eq "timeout: exit 3, nothing on stdout" "$(run samples DCGM_FI_DEV_GPU_UTIL '{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}')" "rc=3"
check_eq "timeout: the message on stderr" "$(cat "$OUT/stderr")" "acmetrace-prometheus: Prometheus answered an error (errorType timeout): query timed out in expression evaluation"
check_eq "too many samples: exit 3" "$(run samples DCGM_FI_DEV_GPU_UTIL '{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}')" "rc=3"
check_eq "another error: exit 1 with an !error line, escaped" "$(run samples DCGM_FI_DEV_GPU_UTIL '{"status":"error","errorType":"bad_data","error":"1:5: parse error:\tunexpected \"]\""}')" \
    "$(printf '!error\t\\N\tPrometheus answered an error (errorType bad_data): 1:5: parse error:\\tunexpected "]"\nrc=1')"
got=$(run samples DCGM_FI_DEV_GPU_UTIL '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node01","gpu":"0"},"values":[[1688169600,"4')
check_eq "truncated: exit 1 with an !error line" "$got" "$(printf '!error\t\\N\tthe Prometheus response is not what was expected: truncated JSON at byte 160: the body ends inside a string\nrc=1')"
check_eq "truncated: the message on stderr" "$(cat "$OUT/stderr")" "acmetrace-prometheus: the Prometheus response is not what was expected: truncated JSON at byte 160: the body ends inside a string"
got=$(run samples DCGM_FI_DEV_GPU_UTIL '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","UUID":"GPU-1","gpu":"0"},"values":[]}]}}')
check_eq "no host label: exit 1" "$got" "$(printf '!error\t\\N\tseries {__name__="DCGM_FI_DEV_GPU_UTIL", UUID="GPU-1", gpu="0"} has no Hostname label (the host; --host-label names another)\nrc=1')"
check_eq "an empty body: exit 1" "$(run samples DCGM_FI_DEV_GPU_UTIL '')" "$(printf '!error\t\\N\tthe Prometheus response is not what was expected: truncated JSON at byte 0: the body is empty\nrc=1')"
for args in "" "bogus" "samples" "samples --metric GPU_UTIL" "samples --metric DCGM_FI_DEV_GPU_UTIL --bogus x" "fields --metric DCGM_FI_DEV_GPU_UTIL"; do
    "$T" $args </dev/null >"$OUT/usage.out" 2>&1
    rc=$?
    check_eq "usage error '$args': exit 2" "$rc" 2
done

# a random body: every sample against Python's exact decimals, lines of at most 4096 samples
python3 - "$T" >"$OUT/random.txt" 2>&1 <<'EOF'
import json, random, subprocess, sys
from decimal import Decimal
random.seed(34)
res = []
for s in range(4):
    vals, t = [], 1688169600000
    for k in range(9000):
        t += random.randint(1, 30000)
        v = random.choice(['%d' % random.randint(0, 100), '%.*f' % (random.randint(0, 6), random.random()),
                           '%de-%02d' % (random.randint(1, 9), random.randint(1, 12)), 'NaN', '+Inf', '-Inf', '-0',
                           '%.17g' % random.random()])
        vals.append([t / 1000 if t % 1000 else t // 1000, v])
    res.append({"metric": {"__name__": "DCGM_FI_PROF_DRAM_ACTIVE", "Hostname": "h%d" % s, "gpu": "%d" % s,
                           "hpc_job": "j%d" % s}, "values": vals})
body = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": res}})
p = subprocess.run([sys.argv[1], 'samples', '--metric', 'DCGM_FI_PROF_DRAM_ACTIVE'], input=body.encode(), capture_output=True)
lines = p.stdout.decode().rstrip('\n').split('\n')
got, longest = {}, 0
for l in lines[:-1]:
    ser, job, smp = l.split('\t')
    longest = max(longest, len(smp.split(' ')))
    got.setdefault(ser, []).extend((int(ms), float(v)) for ms, v in (x.split(':') for x in smp.split(' ')))
want, skipped = {}, 0
for s, r in enumerate(res):
    for t, v in r['values']:
        if v in ('NaN', '+Inf', '-Inf'):
            skipped += 1
            continue
        want.setdefault('h%d-gpu%d' % (s, s), []).append((int(Decimal(repr(t)) * 1000), float(Decimal(v) * 100)))
n = sum(len(x) for x in want.values())
print('exit', p.returncode)
print('end', lines[-1] == '!end\t\\N\t4 %d %d' % (n, skipped))
print('equal', got == want)
print('longest', longest)
EOF
check_eq "random body: exit 0" "$(sed -n 's/^exit //p' "$OUT/random.txt")" 0
check_eq "random body: the !end counts" "$(sed -n 's/^end //p' "$OUT/random.txt")" True
check_eq "random body: every sample is the exact decimal scaled, at its millisecond" "$(sed -n 's/^equal //p' "$OUT/random.txt")" True
check_eq "random body: lines of at most 4096 samples" "$(sed -n 's/^longest //p' "$OUT/random.txt")" 4096

# streamed: a body of about 60 MB converts in a few MB of memory (measured
# by a small python3 of its own, so that the child's peak is the converter's)
python3 - "$OUT/large.json" <<'EOF'
import sys
head = '{"status":"success","data":{"resultType":"matrix","result":['
with open(sys.argv[1], 'w') as f:
    f.write(head)
    for s in range(64):
        vals = ','.join('[%d.%03d,"%d"]' % (1688169600 + 15 * k, k % 1000, k % 101) for k in range(40000))
        f.write('%s{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node%02d","gpu":"%d"},"values":[%s]}' % (',' if s else '', s // 8, s % 8, vals))
    f.write(']}}')
EOF
# peak: python3 KB (its own size) running the converter on FILE
peak() {
    python3 -c '
import os, resource, subprocess, sys
with open(sys.argv[2], "rb") as f:
    out = subprocess.run([sys.argv[1], "samples", "--metric", "DCGM_FI_DEV_GPU_UTIL"], stdin=f, stdout=subprocess.PIPE).stdout
print("bytes", os.path.getsize(sys.argv[2]))
print("end", out.decode().rstrip("\n").split("\n")[-1])
print("maxrss_kb", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$T" "$1"
}
printf '%s' "$body" | sed 's/DCGM_FI_PROF_SM_ACTIVE/DCGM_FI_DEV_GPU_UTIL/g' >"$OUT/small.json"
peak "$OUT/small.json" >"$OUT/stream_small.txt" 2>&1
peak "$OUT/large.json" >"$OUT/stream.txt" 2>&1
rm -f "$OUT/large.json"
check_eq "a large body: all converted" "$(sed -n 's/^end //p' "$OUT/stream.txt")" "$(printf '!end\t\\N\t64 2560000 0')"
bytes=$(sed -n 's/^bytes //p' "$OUT/stream.txt")
rss=$(sed -n 's/^maxrss_kb //p' "$OUT/stream.txt")
base=$(sed -n 's/^maxrss_kb //p' "$OUT/stream_small.txt")
[ -n "$rss" ] && [ -n "$base" ] && [ $((rss - base)) -lt 8192 ] && [ "${bytes:-0}" -gt 50000000 ] &&
    ok "a body of $bytes bytes converted in $rss KB of peak memory, $base KB for a body of one line (under 8 MB more)" ||
    bad "a body of $bytes bytes took $rss KB of peak memory, against $base KB for a small one (8 MB more allowed)"

# installed beside acmetrace-sync (when the extension's programs are installed)
bindir=$(pg_config --bindir 2>/dev/null)
if [ -n "$bindir" ] && [ -x "$bindir/acmetrace-sync" ]; then
    [ -x "$bindir/acmetrace-prometheus" ] && cmp -s <("$bindir/acmetrace-prometheus" fields) <("$T" fields) &&
        ok "make install put acmetrace-prometheus beside acmetrace-sync in $bindir" ||
        bad "acmetrace-prometheus is not installed beside acmetrace-sync in $bindir (or differs)"
fi
finish
