#!/usr/bin/env bash
# bin/acmetrace-report: exit codes and messages, HTML escaping of user data,
# and, in headless Chromium, every chart drawn with data, tick labels, axis
# titles and a legend where it has several series.
. "$(dirname "$0")/lib.sh"
REPORT=${ACMETRACE_REPORT:-$ROOT/bin/acmetrace-report}   # or test an installed copy

# run NAME ARGS...: the report's exit code in $rc, stderr in $err
run() { local name=$1; shift; "$REPORT" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"; rc=$?; err=$(cat "$OUT/$name.stderr"); }
# expect_fail NAME CODE MESSAGE-REGEX ARGS...
expect_fail() {
    local name=$1 code=$2 re=$3; shift 3
    run "$name" "$@"
    check_eq "$name: exit code" "$rc" "$code"
    if grep -Eq "^acmetrace-report: $re" <<<"$err"; then ok "$name: message"; else bad "$name: message: $err"; fi
    if [ -e "$OUT/$name.html" ]; then bad "$name: wrote a report"; else ok "$name: wrote no report"; fi
}

# ---- --version
run version --version
check_eq "--version: exit code" "$rc" 0
check_eq "--version prints the repository's version" "$(cat "$OUT/version.stdout")" \
    "acmetrace-report $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/acmetrace.control")"

# ---- usage and environment errors
expect_fail no_out 64 '--out FILE is required' --cluster x
grep -q '^usage: acmetrace-report' "$OUT/no_out.stderr" && ok "bad usage prints the usage text" || bad "no usage text"
expect_fail bad_option 64 'unknown argument: --bogus' --bogus --out "$OUT/bad_option.html"
expect_fail unreachable 2 'cannot connect to the database' --db 'host=/nonexistent port=1' --out "$OUT/unreachable.html"
# a PATH with bash and psql but no gnuplot
mkdir -p "$OUT/bin"
for t in bash dirname psql; do ln -sf "$(command -v "$t")" "$OUT/bin/$t"; done
PATH="$OUT/bin" "$REPORT" --out "$OUT/no_gnuplot.html" 2>"$OUT/no_gnuplot.stderr"
check_eq "no_gnuplot: exit code" "$?" 2
grep -Eq '^acmetrace-report: gnuplot is not installed.*apt-get install gnuplot-nox' "$OUT/no_gnuplot.stderr" &&
    ok "no_gnuplot: message" || bad "no_gnuplot: message: $(cat "$OUT/no_gnuplot.stderr")"

dropdb --if-exists e2e_report_noext 2>/dev/null && createdb e2e_report_noext || bad "createdb"
expect_fail no_extension 2 'the acmetrace extension is not installed.*CREATE EXTENSION acmetrace' \
    --db dbname=e2e_report_noext --out "$OUT/no_extension.html"
fresh_db e2e_report_empty
expect_fail no_jobs 3 'no jobs are loaded' --out "$OUT/no_jobs.html"

# ---- two generated clusters, failure reasons, GPU_UTIL for one, a hostile job type
fresh_db e2e_report
q -c "SELECT acmetrace.load_generated('alpha', 'seren', 20000, 42), acmetrace.load_generated('beta', 'kalos', 5000, 7)" >/dev/null ||
    { bad "load_generated"; finish; }
q >/dev/null <<'SQL' || bad "inserting the test rows"
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, node_num, cpu_num,
                            submit_time, start_time, end_time, duration, queue, gpu_time)
VALUES ('alpha', 'xss-1', '<b>x&y</b>', 'COMPLETED', 8, 1, 16, '2023-03-01 10:00+00',
        '2023-03-01 10:00:10+00', '2023-03-01 11:00:10+00', 3600, 10, 28800);
-- a queueing-delay bin (140-160 s) of fewer than 30 Eval jobs, which the cancellation chart marks n=...*
DELETE FROM acmetrace.jobs WHERE cluster = 'alpha' AND type = 'Eval' AND queue >= 140 AND queue < 160
   AND job_id NOT IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'alpha' AND type = 'Eval'
                         AND queue >= 140 AND queue < 160 ORDER BY job_id LIMIT 5);
INSERT INTO acmetrace.failure_reasons (cluster, job_id, category, reason)
SELECT cluster, job_id, CASE WHEN n % 2 = 0 THEN 'Infrastructure' ELSE 'Script' END,
       CASE WHEN n % 2 = 0 THEN 'NVLink error' ELSE 'FileNotFoundError' END
  FROM (SELECT cluster, job_id, row_number() OVER (ORDER BY job_id) AS n
          FROM acmetrace.jobs WHERE cluster = 'alpha' AND final_state = 'FAILED' AND gpu_num > 0 LIMIT 6) f;
SET acmetrace.cluster = 'alpha';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines SELECT line FROM acmetrace.generate_util(32, 48, 7) line;
-- 32 one-GPU jobs, one on each of those GPUs while it was sampled (job_utilization's chart)
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, node_num, cpu_num,
                            submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT 'alpha', 'util-' || i, CASE WHEN i % 2 = 0 THEN 'Eval' ELSE 'Pretrain' END, 'COMPLETED', 1, 1, 8,
       '2023-07-01 00:00+00', '2023-07-01 00:00+00', '2023-07-01 00:15+00', 900, 0, 900
  FROM generate_series(1, 32) i;
INSERT INTO acmetrace.job_gpus (cluster, job_id, series)
SELECT 'alpha', 'util-' || row_number() OVER (ORDER BY series), ARRAY[series]
  FROM (SELECT DISTINCT series FROM acmetrace.utilization_blocks WHERE cluster = 'alpha') s;
SQL

expect_fail unknown_cluster 3 'cluster "nosuch" is not loaded' --cluster alpha --cluster nosuch --out "$OUT/unknown_cluster.html"

run report --db dbname=e2e_report --cluster alpha --cluster beta --out "$OUT/report.html"
check_eq "report: exit code" "$rc" 0
check_eq "report: silent on success" "$err$(cat "$OUT/report.stdout")" ""
H="$OUT/report.html"
[ -s "$H" ] || { bad "no report written"; finish; }
check_eq "no temporary file left" "$(ls -A "$OUT" | grep -c '^\.acmetrace-report')" 0
head -1 "$H" | grep -q '^<!DOCTYPE html>' && tail -1 "$H" | grep -q '^</html>' && ok "one complete HTML document" || bad "not a complete HTML document"
if grep -Eiq "<link|<script|<img|<iframe|@import|src=|url\\([\"']?(https?:|//)|href=[\"'](https?:|//)" "$H"; then
    bad "report loads external resources: $(grep -Eio "<link[^>]*|src=[^ ]*|@import[^;]*|href=[\"'](https?:|//)[^ ]*" "$H" | head -3)"
else ok "self-contained: no external resources or scripts"; fi
check_eq "header shows the acmetrace version" \
    "$(grep -c "<dt>acmetrace</dt><dd>$(q -c 'SELECT acmetrace.version()') " "$H")" 1
for h in 'Cluster summary' 'Job types' 'Final state by job type' 'GPUs per job by type' 'GPU time lost per job type' 'Queueing delay percentiles' 'Audit'; do
    grep -q "<h3>$h" "$H" && ok "table: $h" || bad "table missing: $h"
done
for h in 'Run times predicted at submit time' 'Queueing delay of GPU jobs replayed under other policies'; do
    check_eq "table for both clusters: $h" "$(grep -c "<h3>$h" "$H")" 2
done
# the replay table: the recorded row and the four policies, each with a mean
check_eq "replay rows with a mean queue" \
    "$(sed -n '/<h3>Queueing delay of GPU jobs replayed/,/<\/table>/p' "$H" | tr -d '\n' | sed -E 's/>[[:space:]]+</></g' |
       grep -oE '<td align="left">(recorded|fifo|fifo \+ backfill|priority by type \+ backfill|shortest first \(recorded runs\) \+ backfill)</td><td align="right">[0-9.]+</td>' | wc -l)" 10
# the prediction table: both methods against both medians, each with a share within 2x
check_eq "prediction rows with a share within 2x" \
    "$(sed -n '/<h3>Run times predicted at submit time/,/<\/table>/p' "$H" | tr -d '\n' | sed -E 's/>[[:space:]]+</></g' |
       grep -oE '<td align="left">(boosted trees \(gbdt, 50 rounds of depth 5\)|users&#39; history \(QSSF style\)|users. history \(QSSF style\)|global median|type median)</td>(<td align="right">[0-9.]+</td>){4}' | wc -l)" 8
check_eq "failure taxonomy only for the cluster with reasons" "$(grep -c '<h3>Failure taxonomy' "$H")" 1
grep -q '<td align="left">NVLink error</td>' "$H" && ok "failure taxonomy lists the reasons" || bad "failure taxonomy lacks NVLink error"
if [ "$(q -c "SELECT count(*) FROM pg_proc WHERE proname = 'trace_comparison'")" = 1 ]; then
    grep -q '<h3>Trace comparison' "$H" && ok "table: Trace comparison" || bad "table missing: Trace comparison"
else
    grep -q 'no <code>acmetrace.trace_comparison()' "$H" && ok "trace comparison skipped with a note" || bad "no note for trace_comparison"
fi

# ---- the cluster's real source format (generated clusters are not acme_seren)
check_eq "source format of a generated cluster" "$(grep -c '<p class="about">Source format <b>generated</b>' "$H")" 2

# ---- the audit section lists what audit finds, with each check's meaning
q -c "UPDATE acmetrace.jobs SET duration = duration + 1000 WHERE cluster = 'beta' AND job_id IN
        (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'beta' AND duration > 0 ORDER BY job_id LIMIT 3)" >/dev/null
run audited --db dbname=e2e_report --cluster beta --out "$OUT/audited.html"
check_eq "audited report: exit code" "$rc" 0
grep -q '<td align="left">duration_mismatch</td>' "$OUT/audited.html" && ok "audit section lists duration_mismatch" ||
    bad "audit section lacks duration_mismatch"
grep -q "$(q -c "SELECT description FROM acmetrace.audit_checks() WHERE anomaly = 'duration_mismatch'")" "$OUT/audited.html" &&
    ok "audit section explains the check" || bad "audit section lacks the check's meaning"
# (the published Seren sample breaks no rule)
q -c "\\copy acmetrace.trace_seren FROM '$FIX/acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)" >/dev/null
run clean --db dbname=e2e_report --cluster seren --out "$OUT/clean.html"
grep -q '<p class="audit-clean">No anomalies' "$OUT/clean.html" && ok "a clean cluster says no anomalies" ||
    bad "no 'No anomalies' line for a clean cluster"

# ---- the percentile table and the queueing-delay CDF count the same jobs:
# the table's p90 lies where the CDF of the same cluster and type crosses 90%
p90=$(sed -n '/<h3>Queueing delay percentiles/,/<\/table>/p' "$H" | tr -d '\n' | sed -E 's/>[[:space:]]+</></g' |
      sed -E 's/<\/tr>/\n/g' | sed -nE 's/.*<td align="left">All GPU jobs<\/td><td align="right">[0-9]+<\/td><td align="right">[0-9.]+<\/td><td align="right">([0-9.]+)<\/td>.*/\1/p' | head -1)
[ -n "$p90" ] && ok "percentile table has the all-jobs p90 ($p90 s)" || bad "no all-jobs p90 in the percentile table"
check_eq "p90 of the table lies where the queue CDF crosses 90%" \
    "$(q -c "SELECT $p90::numeric >= max(x) FILTER (WHERE cdf_pct < 90)
                AND $p90::numeric <= min(x) FILTER (WHERE cdf_pct >= 90) * 1.005
           FROM (SELECT queue_s AS x, cdf_pct FROM acmetrace.queue_cdf('alpha') WHERE type = 'all') c")" t

# ---- escaping: the job type is user data
check_eq "escaped job type in the tables" "$(grep -c '<td align="left">&lt;b&gt;x&amp;y&lt;/b&gt;</td>' "$H")" 5
grep -q '&lt;b>x&amp;y&lt;/b>' "$H" && ok "escaped job type in the SVG text" || bad "job type not in the SVG text"
check_eq "raw <b>x nowhere" "$(grep -c '<b>x' "$H")" 0

# ---- the default: every loaded cluster
run all --out "$OUT/all.html"
check_eq "all clusters: exit code" "$rc" 0
check_eq "all clusters: sections" "$(grep -o '<section class="cluster" id="cluster-[a-z]*"' "$OUT/all.html" | tr '\n' ' ')" \
    '<section class="cluster" id="cluster-alpha" <section class="cluster" id="cluster-beta" <section class="cluster" id="cluster-seren" '

# ---- render in headless Chromium and measure every chart
# The script reports per chart: size, plotted series, drawn marks beyond the
# key samples, tick labels (texts with a digit outside the series), whether
# the figure's axis titles are drawn, and all its texts.
# measure HTML NAME: the measuring script run over HTML in Chromium, its lines in $OUT/NAME-results.txt
cat >"$OUT/measure.html" <<'EOF'
<pre id="results"></pre>
<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('figure.chart').forEach(function (fig) {
    var svg = fig.querySelector('svg');
    if (!svg) { out.push('chart ' + fig.id + ' nosvg'); return; }
    var r = svg.getBoundingClientRect(), bb = svg.getBBox();
    var groups = Array.from(svg.querySelectorAll('g[id*="gnuplot_plot_"]'));
    var texts = Array.from(svg.querySelectorAll('text'));
    var inSeries = function (t) { return groups.some(function (g) { return g.contains(t); }); };
    var labels = texts.map(function (t) { return t.textContent.trim(); });
    var ticks = texts.filter(function (t) { return !inSeries(t) && /[0-9]/.test(t.textContent); }).length;
    var marks = 0, empty = 0, legend = 0;
    groups.forEach(function (g) {
      var n = 0, poly = g.querySelectorAll('polygon').length;
      g.querySelectorAll('path').forEach(function (p) { n += ((p.getAttribute('d') || '').match(/[ML]/g) || []).length; });
      n += poly + g.querySelectorAll('use').length;
      if (Array.from(g.querySelectorAll('text')).some(function (t) { return t.textContent.trim() !== ''; })) {
        legend++;
        n -= poly ? 6 : 3;  // the key sample: a box (polygon + 5 points) or a line (2 points, maybe a point)
      }
      if (n < 1) empty++;
      marks += Math.max(n, 0);
    });
    // text size as drawn: the font size times the SVG's scale on the page
    var vb = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal.width : r.width;
    var scale = r.width / vb, minfont = 1e9;
    texts.forEach(function (t) {
      if (t.textContent.trim() === '') return;
      minfont = Math.min(minfont, parseFloat(getComputedStyle(t).fontSize) * scale);
    });
    var nlabels = labels.filter(function (l) { return /(^|\()n=[0-9]/.test(l); }).length;
    // texts overlapping: each text's box as a (maybe rotated) rectangle on the
    // page, compared pairwise by separating axes, 1 px of slack
    var quads = texts.filter(function (t) { return t.textContent.trim() !== ''; }).map(function (t) {
      var b = t.getBBox(), m = t.getScreenCTM(), pt = svg.createSVGPoint();
      var c = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(function (xy) {
        pt.x = xy[0]; pt.y = xy[1]; var q = pt.matrixTransform(m); return [q.x, q.y];
      });
      return { text: t.textContent.trim(), c: c };
    });
    var apart = function (a, b) {
      return [a, b].some(function (poly) {
        return poly.c.some(function (p0, i) {
          var p1 = poly.c[(i + 1) % 4], ax = p0[1] - p1[1], ay = p1[0] - p0[0], len = Math.hypot(ax, ay);
          if (len === 0) return false;
          var pa = a.c.map(function (p) { return (p[0] * ax + p[1] * ay) / len; });
          var pb = b.c.map(function (p) { return (p[0] * ax + p[1] * ay) / len; });
          return Math.max.apply(null, pa) - 1 <= Math.min.apply(null, pb) || Math.max.apply(null, pb) - 1 <= Math.min.apply(null, pa);
        });
      });
    };
    var overlaps = [];
    for (var i = 0; i < quads.length; i++)
      for (var j = i + 1; j < quads.length; j++)
        if (!apart(quads[i], quads[j])) overlaps.push(quads[i].text + ' / ' + quads[j].text);
    if (overlaps.length) out.push('overlap ' + fig.id + ' ' + overlaps.slice(0, 5).join(' ; '));
    var content = document.body.clientWidth;
    out.push(['chart', fig.id, 'w=' + Math.round(r.width), 'h=' + Math.round(r.height),
              'widthpct=' + Math.round(100 * fig.getBoundingClientRect().width / content),
              'minfont=' + Math.round(10 * minfont) / 10, 'nlabels=' + nlabels,
              'bw=' + Math.round(bb.width), 'bh=' + Math.round(bb.height), 'series=' + groups.length,
              'empty=' + empty, 'marks=' + marks, 'legend=' + legend, 'ticks=' + ticks,
              'xlabel=' + (labels.indexOf(fig.dataset.xlabel) >= 0 ? 1 : 0),
              'ylabel=' + (labels.indexOf(fig.dataset.ylabel) >= 0 ? 1 : 0),
              'caption=' + (fig.querySelector('figcaption') ? 1 : 0), 'overlaps=' + overlaps.length,
              'texts=' + labels.join('|')].join(' '));
  });
  // the headline: first section, its rows, top users
  var first = document.querySelector('section');
  out.push('first_section ' + (first ? first.id : 'none'));
  var hl = document.getElementById('headline'), fc = document.querySelector('figure.chart');
  out.push('headline_before_charts ' + (hl && fc && (hl.compareDocumentPosition(fc) & Node.DOCUMENT_POSITION_FOLLOWING) ? 1 : 0));
  document.querySelectorAll('#headline tr[data-measure]').forEach(function (tr) {
    var c = Array.from(tr.cells).map(function (td) { return td.textContent.trim().replace(/\s+/g, '_'); });
    out.push(['headline', tr.closest('div.headline').id, tr.dataset.measure, c[1], c[2], c[3], c[4], tr.className.replace(/ /g, '_')].join(' '));
  });
  document.querySelectorAll('table.top-users').forEach(function (t) {
    out.push('top_users ' + t.closest('div.headline').id + ' ' + (t.rows.length - 1) + ' ' + t.rows[1].cells[0].textContent.trim());
  });
  out.push('page_height ' + document.documentElement.scrollHeight);
  document.getElementById('results').textContent = out.join('\n') + '\nEND';
});
</script>
EOF
CHROME=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000)
measure() {
    cat "$1" "$OUT/measure.html" >"$OUT/$2-check.html"
    # measured on a 1,400 px wide window, a common laptop screen
    timeout 120 "${CHROME[@]}" --window-size=1400,1000 --dump-dom "file://$OUT/$2-check.html" >"$OUT/$2-dom.html" 2>"$OUT/chromium.log" ||
        bad "chromium --dump-dom failed: $(tail -3 "$OUT/chromium.log")"
    sed -n '/<pre id="results">/,/^END/p' "$OUT/$2-dom.html" | sed 's/^<pre id="results">//' >"$OUT/$2-results.txt"
    grep -q '^END' "$OUT/$2-results.txt" && ok "$2: chromium ran the measuring script" || bad "$2: no results from chromium"
}
measure "$H" report
cp "$OUT/report-results.txt" "$OUT/results.txt"

# expected charts: 9 per cluster, plus the utilization histogram where GPU_UTIL was loaded and the
# per-job utilization CDF where jobs ran on those GPUs (alpha)
want=''
for c in alpha beta; do
    for k in duration-cdf queue-cdf gpu-cdf state-jobs state-gputime occupancy cancelled lost-weekly predicted; do want+="$k-$c "; done
done
want+='util-alpha jobutil-alpha '
check_eq "charts drawn (ids)" "$(grep '^chart ' "$OUT/results.txt" | cut -d' ' -f2 | sort | tr '\n' ' ')" \
    "$(tr ' ' '\n' <<<"$want" | grep . | sort | tr '\n' ' ')"
check_eq "number of charts" "$(grep -c '^chart ' "$OUT/results.txt")" 20

field() { sed -nE "s/.* $1=([^ ]*).*/\\1/p" <<<"$2"; }
while read -r line; do
    id=$(cut -d' ' -f2 <<<"$line"); why=''
    for f in w h bw bh series marks ticks; do eval "$f=\$(field $f \"\$line\")"; done
    [ "${w:-0}" -gt 0 ] && [ "${h:-0}" -gt 0 ] && [ "${bw:-0}" -gt 0 ] && [ "${bh:-0}" -gt 0 ] || why+=" zero size;"
    [ "${series:-0}" -ge 1 ] || why+=" no series;"
    [ "$(field empty "$line")" = 0 ] || why+=" $(field empty "$line") empty series;"
    [ "${marks:-0}" -ge 4 ] || why+=" only ${marks:-0} marks;"
    [ "${ticks:-0}" -ge 3 ] || why+=" only ${ticks:-0} tick labels;"
    [ "$(field xlabel "$line")" = 1 ] || why+=" no x axis title;"
    [ "$(field ylabel "$line")" = 1 ] || why+=" no y axis title;"
    [ "$(field caption "$line")" = 1 ] || why+=" no caption;"
    [ "$(field widthpct "$line")" -ge 80 ] || why+=" $(field widthpct "$line")% of the page width;"
    awk -v f="$(field minfont "$line")" 'BEGIN { exit !(f >= 12) }' || why+=" text as small as $(field minfont "$line") px;"
    [ "$(field nlabels "$line")" -ge 1 ] || why+=" no n label;"
    [ "$(field overlaps "$line")" = 0 ] || why+=" $(field overlaps "$line") overlapping texts: $(grep "^overlap $id " "$OUT/results.txt" | cut -d' ' -f3-);"
    [ "${series:-0}" -lt 2 ] || [ "$(field legend "$line")" = "$series" ] || why+=" legend has $(field legend "$line") of $series series;"
    if [ -z "$why" ]; then
        ok "chart $id: $series series, $marks marks, $ticks tick labels, axis titles, $(field nlabels "$line") n labels, no overlapping texts, text >= $(field minfont "$line") px, $(field widthpct "$line")% wide"
    else bad "chart $id:$why"; fi
done < <(grep '^chart ' "$OUT/results.txt")

# the duration CDF has a panel per job type of alpha (up to 8), its legend
# naming the type and its jobs (HTML-escaped in the dump)
line=$(grep '^chart duration-cdf-alpha ' "$OUT/results.txt")
while IFS=$'\t' read -r t n; do
    e=$(sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' <<<"$t")
    grep -qF "|$e (n=$n)|" <<<"${line}|" && ok "duration CDF panel: $t (n=$n)" || bad "duration CDF lacks a panel '$t (n=$n)'"
done < <(q -F $'\t' -c "SELECT type, count(duration) FROM acmetrace.jobs WHERE cluster = 'alpha' AND gpu_num > 0
                         GROUP BY type ORDER BY count(*) DESC, type LIMIT 8")
# the per-job utilization CDF: all 32 jobs, then Eval and Pretrain, 16 each
line=$(grep '^chart jobutil-alpha ' "$OUT/results.txt")
for l in 'All GPU jobs (n=32)' 'Eval (n=16)' 'Pretrain (n=16)'; do
    grep -qF "|$l|" <<<"${line}|" && ok "job utilization CDF line: $l" || bad "job utilization CDF lacks a line '$l'"
done
# jobs that did not wait: the queue CDF starts at a tick "0"
grep '^chart queue-cdf-alpha ' "$OUT/results.txt" | grep -q '|0|' && ok "queue CDF shows the zero waits (tick 0)" ||
    bad "queue CDF has no 0 tick"
# bins resting on few jobs are marked: alpha's cancellation chart has some
grep '^chart cancelled-alpha ' "$OUT/results.txt" | grep -Eq '\|n=[0-9]+\*(\||$)' && ok "small bins are marked n=...*" ||
    bad "no small bin marked in the cancellation chart"

# the headline comes first, above every chart, for both clusters
check_eq "full report: the first section is the headline" "$(sed -n 's/^first_section //p' "$OUT/results.txt")" headline
check_eq "full report: the headline is above the charts" "$(sed -n 's/^headline_before_charts //p' "$OUT/results.txt")" 1
check_eq "full report: headline rows (8 measures for alpha with GPU_UTIL, 7 for beta)" \
    "$(grep -c '^headline headline-alpha ' "$OUT/results.txt") $(grep -c '^headline headline-beta ' "$OUT/results.txt")" "8 7"

# ---- a live-like cluster and a one-week report: the headline against the
# week before, top users, partial periods, JSON, thresholds
# Kalos-like jobs cut at "now", six hours into a local day 15 days after the
# first submission: later submissions not yet made, later starts pending,
# later ends still running; GPU_UTIL sampled for the 3 hours before midnight.
fresh_db e2e_report_live
q >/dev/null <<'SQL' || bad "the live-like cluster"
SELECT acmetrace.load_generated('live', 'kalos', 8000, 5);
CREATE TABLE cut AS
SELECT (date_trunc('day', min(submit_time) AT TIME ZONE 'Asia/Shanghai') + interval '15 days') AS midnight_local,
       (date_trunc('day', min(submit_time) AT TIME ZONE 'Asia/Shanghai') + interval '15 days') AT TIME ZONE 'Asia/Shanghai' AS midnight,
       ((date_trunc('day', min(submit_time) AT TIME ZONE 'Asia/Shanghai') + interval '15 days 6 hours') AT TIME ZONE 'Asia/Shanghai') AS now
  FROM acmetrace.jobs WHERE cluster = 'live';
DELETE FROM acmetrace.jobs j USING cut WHERE j.cluster = 'live' AND j.submit_time >= cut.now;
UPDATE acmetrace.jobs j SET start_time = NULL, end_time = NULL, state = 'PENDING', duration = NULL, queue = NULL, gpu_time = NULL
  FROM cut WHERE j.cluster = 'live' AND j.start_time >= cut.now;
UPDATE acmetrace.jobs j SET end_time = NULL, state = 'RUNNING', duration = NULL, gpu_time = NULL
  FROM cut WHERE j.cluster = 'live' AND j.end_time >= cut.now;
SET acmetrace.cluster = 'live';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines
SELECT line FROM cut, acmetrace.generate_util('kalos', 8000, 5, 'GPU_UTIL', cut.midnight - interval '3 hours', 720) line;
SQL
IFS=$'\t' read -r wsince wuntil < <(q -F $'\t' -c "SELECT to_char(midnight_local - interval '7 days', 'YYYY-MM-DD'), to_char(midnight_local, 'YYYY-MM-DD') FROM cut")
[ -n "$wuntil" ] && ok "live-like cluster cut at $wuntil 06:00 Asia/Shanghai" || bad "no cut time"
# the window as the report reads it: local dates in the cluster's zone
PS="acmetrace.period_summary('live', '$wsince'::timestamp AT TIME ZONE 'Asia/Shanghai', '$wuntil'::timestamp AT TIME ZONE 'Asia/Shanghai')"
run week --db dbname=e2e_report_live --since "$wsince" --until "$wuntil" --out "$OUT/week.html"
check_eq "week report: exit code" "$rc" 0
check_eq "week report: silent" "$err" ""
measure "$OUT/week.html" week
W="$OUT/week-results.txt"
check_eq "week report: the first section is the headline" "$(sed -n 's/^first_section //p' "$W")" headline
# every measure with this period's and the previous period's value, as period_summary gives them
while IFS=$'\t' read -r m v p; do
    line=$(grep "^headline headline-live $m " "$W")
    [ -n "$line" ] || { bad "headline lacks $m"; continue; }
    read -r _ _ _ hv hp hc hcov hcls <<<"$line"
    if [ "$hv" = "${v:-–}" ] && [ "$hp" = "${p:-–}" ]; then ok "headline $m: $hv against $hp ($hc, $hcov)"
    else bad "headline $m: '$hv' against '$hp', period_summary says '$v' against '$p'"; fi
done < <(q -F $'\t' -c "SELECT measure, value, previous FROM $PS")
check_eq "headline: previous-period values present" \
    "$(awk '$1 == "headline" && $5 ~ /^-?[0-9.]+$/' "$W" | wc -l)" "$(q -c "SELECT count(previous) FROM $PS")"
# partial periods: the GPU_UTIL samples cover 3 hours of the week, so that row is marked; the
# jobs cover both weeks, so theirs are not
check_eq "headline: util_mean_pct marked partial" "$(awk '$3 == "util_mean_pct" { print $7, $8 }' "$W")" "partial measure_partial"
check_eq "headline: job measures not partial" "$(awk '$1 == "headline" && $3 != "util_mean_pct" && $7 != "full"' "$W" | wc -l)" 0
check_eq "period_summary agrees on what is partial" "$(q -c "SELECT string_agg(measure, ',') FROM $PS WHERE partial")" util_mean_pct
# top users: the users of usage_by_user with most GPU-hours lost in the week
want_top=$(q -c "SELECT u.user_id FROM acmetrace.usage_by_user('live', '$wsince'::timestamp AT TIME ZONE 'Asia/Shanghai', '$wuntil'::timestamp AT TIME ZONE 'Asia/Shanghai') u
                 WHERE u.user_id <> 'all' AND u.gpu_jobs > 0 ORDER BY u.lost_gpu_h DESC, u.gpu_h DESC, u.user_id COLLATE \"C\" LIMIT 1")
check_eq "top users: 10 rows, most GPU-hours lost first" "$(sed -n 's/^top_users headline-live //p' "$W")" "10 $want_top"
# the weekly-loss chart marks the weeks the trace covers in part (its first and last)
grep '^chart lost-weekly-live ' "$W" | grep -q '(partial)|' && ok "weekly chart: partial weeks marked on their ticks" ||
    bad "weekly chart: no week marked (partial)"
grep '^chart lost-weekly-live ' "$W" | grep -q 'partial week|' && ok "weekly chart: partial weeks in the legend" ||
    bad "weekly chart: no partial-week series"
check_eq "week report: no overlapping texts in any chart" "$(grep -c '^overlap ' "$W")" 0
grep '^overlap ' "$W" | head -3

# ---- --format json: the headline and top users, against SQL
run json --db dbname=e2e_report_live --since "$wsince" --until "$wuntil" --format json --out -
check_eq "json: exit code" "$rc" 0
cp "$OUT/json.stdout" "$OUT/week.json"
q -F $'\t' -c "SELECT measure, coalesce(value::text, 'null'), coalesce(previous::text, 'null'), coalesce(change_pct::text, 'null'), partial FROM $PS" >"$OUT/week.sql.tsv"
if python3 - "$OUT/week.json" "$OUT/week.sql.tsv" "$want_top" >"$OUT/json.check" 2>&1 <<'PY'
import json, sys
from decimal import Decimal
doc = json.load(open(sys.argv[1]), parse_float=Decimal)
[c] = doc["clusters"]
assert c["cluster"] == "live" and c["time_zone"] == "Asia/Shanghai", c["cluster"]
got = {r["measure"]: r for r in c["summary"]}
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
assert [r[0] for r in rows] == [r["measure"] for r in c["summary"]], "measures differ"
num = lambda s: None if s == "null" else Decimal(s)
for m, v, p, ch, part in rows:
    r = got[m]
    assert r["value"] == num(v) and r["previous"] == num(p) and r["change_pct"] == num(ch), (m, r, v, p, ch)
    assert r["partial"] == (part == "t"), (m, r["partial"], part)
assert len(c["top_users"]) == 10 and c["top_users"][0]["user_id"] == sys.argv[3], c["top_users"][:1]
lost = [u["lost_gpu_h"] for u in c["top_users"]]
assert lost == sorted(lost, reverse=True), lost
assert doc["thresholds"] == []
print("json ok: %d measures, %d top users" % (len(rows), len(c["top_users"])))
PY
then ok "$(cat "$OUT/json.check")"; else bad "json: $(tail -3 "$OUT/json.check")"; fi
# a day: --period day is the last full local day before the last event
run day --db dbname=e2e_report_live --period day --format json --out "$OUT/day.json"
check_eq "json --period day: exit code" "$rc" 0
check_eq "--period day: the day before the cut, in the cluster's zone" \
    "$(python3 -c 'import json, sys, datetime as d; c = json.load(open(sys.argv[1]))["clusters"][0]
print(int(d.datetime.fromisoformat(c["since"]).timestamp()), int(d.datetime.fromisoformat(c["until"]).timestamp()))' "$OUT/day.json")" \
    "$(q -c "SELECT extract(epoch FROM midnight - interval '1 day')::bigint || ' ' || extract(epoch FROM midnight)::bigint FROM cut")"

# ---- --fail-if: exit 4 after writing when crossed, 0 when not, 64 when malformed
lost=$(q -c "SELECT value FROM $PS WHERE measure = 'lost_gpu_h'")
run crossed --db dbname=e2e_report_live --since "$wsince" --until "$wuntil" --format json --out "$OUT/crossed.json" \
    --fail-if "lost_gpu_h>0" --fail-if "submitted<0"
check_eq "--fail-if crossed: exit 4" "$rc" 4
check_eq "--fail-if crossed: the crossed threshold on stderr" "$err" "acmetrace-report: threshold crossed: cluster live: lost_gpu_h = $lost, > 0"
[ -s "$OUT/crossed.json" ] && ok "--fail-if crossed: the output is still written" || bad "--fail-if crossed: no output"
python3 -c 'import json,sys; t = json.load(open(sys.argv[1]))["thresholds"]; assert [x["crossed"] for x in t] == [True, False], t' "$OUT/crossed.json" &&
    ok "json lists both thresholds, one crossed" || bad "json thresholds wrong"
run not_crossed --db dbname=e2e_report_live --since "$wsince" --until "$wuntil" --out "$OUT/not_crossed.html" \
    --fail-if "lost_gpu_h>999999999" --fail-if 'p90_queue_s < 0'
check_eq "--fail-if not crossed: exit 0" "$rc" 0
check_eq "--fail-if not crossed: silent" "$err" ""
expect_fail bad_measure 64 '--fail-if .bogus>1.: unknown measure "bogus"' --fail-if 'bogus>1' --out "$OUT/bad_measure.html"
expect_fail bad_threshold 64 '--fail-if .lost_gpu_h=5. is not MEASURE>VALUE' --fail-if 'lost_gpu_h=5' --out "$OUT/bad_threshold.html"
expect_fail bad_period 64 '--period must be day or week' --period month --out "$OUT/bad_period.html"
expect_fail bad_format 64 '--format must be html or json' --format xml --out "$OUT/bad_format.html"
expect_fail three_bounds 64 'give at most two of --since, --until and --period' --since 2023-01-01 --until 2023-01-08 --period week --out "$OUT/three_bounds.html"
expect_fail bad_since 64 '--since/--until: not a date/time' --db dbname=e2e_report_live --since 'yesterday-ish' --out "$OUT/bad_since.html"
expect_fail empty_period 64 'the period of cluster live is empty' --db dbname=e2e_report_live --since "$wuntil" --until "$wsince" --out "$OUT/empty_period.html"

# ---- a full-page screenshot for people to look at
height=$(sed -n 's/^page_height \([0-9]*\)$/\1/p' "$OUT/results.txt")
[ "${height:-0}" -gt 1000 ] && ok "page is ${height}px tall" || bad "page height '${height:-}'"
timeout 120 "${CHROME[@]}" --window-size="1280,${height:-6000}" --screenshot="$OUT/report.png" "file://$H" \
    >>"$OUT/chromium.log" 2>&1 || bad "chromium --screenshot failed"
size=$(stat -c %s "$OUT/report.png" 2>/dev/null || echo 0)
[ "$size" -gt 100000 ] && ok "screenshot $OUT/report.png ($size bytes)" || bad "screenshot missing or tiny ($size bytes)"
check_eq "screenshot is a PNG" "$(head -c 8 "$OUT/report.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a
finish
