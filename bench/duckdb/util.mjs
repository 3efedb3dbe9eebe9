// bench/duckdb/util.mjs: the DuckDB side of bench/utilization.  Loads one
// wide utilization file with read_csv given every column's type (one read
// of the file, no type detection) + UNPIVOT into an in-memory table, builds
// the rollup a DuckDB user would keep to answer from counts (series, day,
// value, count), then times the utilization queries on both (median of R
// rounds after a warm-up) and prints one JSON object: load and rollup
// times, rows, peak memory and each query's time and answer (in the form
// psql -A -t prints acmetrace's, for comparison).
//
//   node bench/duckdb/util.mjs --file F --reps R --from TS --to TS [--type INTEGER|DOUBLE] [--threads N]
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const opt = { threads: '2', type: 'DOUBLE' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
    if (!['--file', '--reps', '--from', '--to', '--threads', '--type'].includes(argv[i]) || i + 1 >= argv.length ||
        (argv[i] === '--type' && !['INTEGER', 'DOUBLE'].includes(argv[i + 1]))) {
        console.error('usage: node bench/duckdb/util.mjs --file F --reps R --from TS --to TS [--type INTEGER|DOUBLE] [--threads N]');
        process.exit(2);
    }
    opt[argv[i].slice(2)] = argv[i + 1];
}
const reps = Number(opt.reps);

function peakKb() {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
}

// The header line only (the column names), to give read_csv every type.
function header(file) {
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(1 << 16);
    let text = '';
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) {
        text += buf.toString('latin1', 0, n);
        const eol = text.indexOf('\n');
        if (eol >= 0) { text = text.slice(0, eol); break; }
    }
    fs.closeSync(fd);
    return text.replace(/\r$/, '').split(',');
}
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// In memory, as the other DuckDB baselines; a 30-day file's rows may not
// fit, so DuckDB may spill to a temporary directory rather than fail.
const db = await DuckDBInstance.create(':memory:', { threads: opt.threads, memory_limit: '16GB',
                                                     temp_directory: (process.env.TMPDIR || '/tmp') + '/acmetrace-duckdb-spill' });
const con = await db.connect();
async function rows(sql) {
    const r = await con.runAndReadAll(sql);
    return r.getRows();
}

// The width_bucket(x, 0, 100, 10) of PostgreSQL's float.c, 100 in the last bin.
const bucket = (x) => `CASE WHEN ${x} = 100 THEN 10 WHEN ${x} < 0 THEN 0 WHEN ${x} >= 100 THEN 11
                            ELSE trunc(10 * ${x} / 100 + 1)::BIGINT END`;
// bins as acmetrace prints them: every bin 0..11, empty ones 0
const binsOf = (counted) => `SELECT '[0:11]={' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
                               FROM range(0, 12) b(b) LEFT JOIN (${counted}) q USING (b)`;
// the CDF at 0..100 from counts per distinct value, summed up to each threshold
const cdfOf = (counts) => `WITH h AS (${counts}), t AS (SELECT sum(c) AS n FROM h)
          SELECT '{' || string_agg(p::VARCHAR, ',' ORDER BY x) || '}'
            FROM (SELECT x, sum(c) FILTER (WHERE value <= x) * 100.0 / any_value(t.n) AS p
                    FROM range(0, 101) r(x), h, t GROUP BY x)`;
const meanHistOf = (means) => `SELECT '{' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
                  FROM range(0, 12) b(b)
                  LEFT JOIN (SELECT ${bucket('m')} AS b, count(*) AS c FROM (${means}) GROUP BY 1) q USING (b)`;
const queries = {
    bins: binsOf(`SELECT ${bucket('value')} AS b, count(*) AS c FROM utilization GROUP BY 1`),
    cdf: cdfOf('SELECT value, count(*) AS c FROM utilization GROUP BY value'),
    mean_hist: meanHistOf('SELECT series, avg(value) AS m FROM utilization GROUP BY series'),
    window: binsOf(`SELECT ${bucket('value')} AS b, count(*) AS c FROM utilization
                     WHERE ts >= ${sqlString(opt.from)}::TIMESTAMPTZ AND ts < ${sqlString(opt.to)}::TIMESTAMPTZ GROUP BY 1`),
    // the same questions over the rollup
    bins_r: binsOf(`SELECT ${bucket('value')} AS b, sum(n) AS c FROM rollup GROUP BY 1`),
    cdf_r: cdfOf('SELECT value, sum(n) AS c FROM rollup GROUP BY value'),
    mean_hist_r: meanHistOf('SELECT series, sum(value * n) / sum(n) AS m FROM rollup GROUP BY series'),
};

const result = { threads: Number(opt.threads), type: opt.type, version: (await rows('SELECT version()'))[0][0] };
const cols = header(opt.file);
if (cols[0] !== 'Time' || cols.length < 2) {
    console.error(`bench/duckdb/util.mjs: ${opt.file}: the header does not start with Time`);
    process.exit(1);
}
// Time as TIMESTAMPTZ (the published '2023-07-01 08:00:00+08:00'), each GPU
// column of the metric's type (INTEGER for GPU_UTIL and MiB, DOUBLE for
// 3-decimal ratios); empty cells are NULL and UNPIVOT leaves them out.
const columns = '{' + cols.map((c, i) => `${sqlString(c)}: '${i === 0 ? 'TIMESTAMPTZ' : opt.type}'`).join(', ') + '}';
let t0 = performance.now();
await con.run(`CREATE TABLE utilization AS
    UNPIVOT (SELECT * FROM read_csv(${sqlString(opt.file)}, header = true, auto_detect = false, delim = ',',
                                    quote = '"', columns = ${columns}))
    ON COLUMNS(* EXCLUDE ("Time")) INTO NAME series VALUE value`);
await con.run('ALTER TABLE utilization RENAME "Time" TO ts');
result.load_ms = performance.now() - t0;
result.rows = Number((await rows('SELECT count(*) FROM utilization'))[0][0]);
t0 = performance.now();
await con.run(`CREATE TABLE rollup AS
    SELECT series, CAST(ts AS DATE) AS day, value, count(*) AS n FROM utilization GROUP BY ALL`);
result.rollup_ms = performance.now() - t0;
result.rollup_rows = Number((await rows('SELECT count(*) FROM rollup'))[0][0]);
try {
    result.memory_bytes = Number((await rows('SELECT sum(memory_usage_bytes) FROM duckdb_memory()'))[0][0]);
} catch (e) {
    result.memory_bytes = null;
}
result.queries = {};
for (const [name, sql] of Object.entries(queries)) {
    const answer = String((await rows(sql))[0][0]);		// warm-up
    const times = [];
    for (let i = 0; i < reps; i++) {
        t0 = performance.now();
        await rows(sql);
        times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    result.queries[name] = { ms: times[Math.floor(times.length / 2)], answer };
}
result.peak_rss_kb = peakKb();
console.log(JSON.stringify(result));
