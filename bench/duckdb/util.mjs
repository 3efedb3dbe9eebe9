// bench/duckdb/util.mjs: the DuckDB side of bench/utilization.  Loads one
// wide utilization file the idiomatic way (read_csv + UNPIVOT) into an
// in-memory table, then times the utilization queries (median of R rounds
// after a warm-up) and prints one JSON object: load time, rows, peak memory
// and each query's time and answer (in the form psql -A -t prints
// acmetrace's, for comparison).
//
//   node bench/duckdb/util.mjs --file F --reps R --from TS --to TS [--threads N]
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const opt = { threads: '2' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
    if (!['--file', '--reps', '--from', '--to', '--threads'].includes(argv[i]) || i + 1 >= argv.length) {
        console.error('usage: node bench/duckdb/util.mjs --file F --reps R --from TS --to TS [--threads N]');
        process.exit(2);
    }
    opt[argv[i].slice(2)] = argv[i + 1];
}
const reps = Number(opt.reps);

function peakKb() {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
}

// In memory, as the other DuckDB baselines; a 30-day file's rows may not
// fit, so DuckDB may spill to a temporary directory rather than fail.
const db = await DuckDBInstance.create(':memory:', { threads: opt.threads, memory_limit: '16GB',
                                                     temp_directory: (process.env.TMPDIR || '/tmp') + '/acmetrace-duckdb-spill' });
const con = await db.connect();
async function rows(sql) {
    const r = await con.runAndReadAll(sql);
    return r.getRows();
}

// The width_bucket(value, 0, 100, 10) of PostgreSQL's float.c, 100 in the last bin.
const bin = `CASE WHEN value = 100 THEN 10 WHEN value < 0 THEN 0 WHEN value >= 100 THEN 11
                  ELSE trunc(10 * value / 100 + 1)::BIGINT END`;
const queries = {
    bins: `SELECT '[0:11]={' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
             FROM range(0, 12) b(b)
             LEFT JOIN (SELECT ${bin} AS b, count(*) AS c FROM utilization GROUP BY 1) q USING (b)`,
    // the CDF at 0..100: counts per distinct value, summed up to each threshold
    cdf: `WITH h AS (SELECT value, count(*) AS c FROM utilization GROUP BY value),
                t AS (SELECT sum(c) AS n FROM h)
          SELECT '{' || string_agg(p::VARCHAR, ',' ORDER BY x) || '}'
            FROM (SELECT x, sum(c) FILTER (WHERE value <= x) * 100.0 / any_value(t.n) AS p
                    FROM range(0, 101) r(x), h, t GROUP BY x)`,
    mean_hist: `SELECT '{' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
                  FROM range(0, 12) b(b)
                  LEFT JOIN (SELECT CASE WHEN m = 100 THEN 10 WHEN m < 0 THEN 0 WHEN m >= 100 THEN 11
                                         ELSE trunc(10 * m / 100 + 1)::BIGINT END AS b, count(*) AS c
                               FROM (SELECT series, avg(value) AS m FROM utilization GROUP BY series) GROUP BY 1) q USING (b)`,
    window: `SELECT '[0:11]={' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
               FROM range(0, 12) b(b)
               LEFT JOIN (SELECT ${bin} AS b, count(*) AS c FROM utilization
                           WHERE ts >= '${opt.from}'::TIMESTAMPTZ AND ts < '${opt.to}'::TIMESTAMPTZ GROUP BY 1) q USING (b)`,
};

const result = { threads: Number(opt.threads), version: (await rows('SELECT version()'))[0][0] };
let t0 = performance.now();
// Idiomatic: let read_csv detect the types from the whole file (the Time
// column as TIMESTAMPTZ), UNPIVOT every other column into (series, value);
// empty cells are NULL and UNPIVOT leaves them out.
await con.run(`CREATE TABLE utilization AS
    UNPIVOT (SELECT * FROM read_csv('${opt.file}', header = true, sample_size = -1))
    ON COLUMNS(* EXCLUDE ("Time")) INTO NAME series VALUE value`);
await con.run(`ALTER TABLE utilization RENAME "Time" TO ts`);
result.load_ms = performance.now() - t0;
result.rows = Number((await rows('SELECT count(*) FROM utilization'))[0][0]);
result.types = (await rows(`SELECT string_agg(column_name || ' ' || data_type, ', ') FROM information_schema.columns WHERE table_name = 'utilization'`))[0][0];
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
