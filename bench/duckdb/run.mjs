// bench/duckdb/run.mjs: the DuckDB side of bench/run.  Loads the exported
// jobs and utilization CSV files into an in-memory DuckDB, times each query
// the way bench/run times psql (warm-up, then interleaved rounds), and
// writes the results in psql -A -t format for bench/compare.awk.
//
//   node bench/duckdb/run.mjs --jobs-csv FILE --util-csv FILE --reps R --out DIR NAME=QUERYFILE ...
//
// Writes DIR/info.txt, DIR/load.ms, DIR/NAME.ms (one time per round) and
// DIR/NAME.out (result rows, unsorted).
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const usage = 'usage: node bench/duckdb/run.mjs --jobs-csv FILE --util-csv FILE --reps R --out DIR NAME=QUERYFILE ...';

function die(msg) {
    console.error(`bench/duckdb: ${String(msg).split('\n')[0]}`);
    process.exit(1);
}

// Arguments.
const opt = {}, queries = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (['--jobs-csv', '--util-csv', '--reps', '--out'].includes(a)) {
        if (i + 1 >= argv.length) die(`${a} needs a value; ${usage}`);
        opt[a.slice(2)] = argv[++i];
    } else if (/^[A-Za-z0-9_.-]+=/.test(a) && !a.startsWith('-')) {
        const [name, file] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
        if (queries.some(q => q.name === name)) die(`query name ${name} given twice`);
        queries.push({ name, file });
    } else {
        die(`unexpected argument ${a}; ${usage}`);
    }
}
for (const k of ['jobs-csv', 'util-csv', 'reps', 'out']) if (!(k in opt)) die(`--${k} is missing; ${usage}`);
if (queries.length === 0) die(`no NAME=QUERYFILE given; ${usage}`);
const reps = Number(opt.reps);
if (!Number.isInteger(reps) || reps < 1) die(`--reps must be a positive integer, not ${opt.reps}`);
for (const f of [opt['jobs-csv'], opt['util-csv']]) if (!fs.existsSync(f)) die(`no such file: ${f}`);
for (const q of queries) {
    try { q.sql = fs.readFileSync(q.file, 'utf8'); } catch (e) { die(`cannot read ${q.file}: ${e.message}`); }
}
const out = opt.out;
fs.mkdirSync(out, { recursive: true });

// One value as psql -A -t prints it: NULL empty, arrays as {a,b}, PostgreSQL
// booleans t/f.  Numbers in shortest round-trip form, as float8out prints
// them; very large or small ones may be spelled differently (1e-7 for
// PostgreSQL's 1e-07, 10000000000000000 for 1e+16) but compare.awk reads
// them as the same number.
function text(v, inArray = false) {
    if (v === null || v === undefined) return inArray ? 'NULL' : '';
    if (Array.isArray(v)) return '{' + v.map(x => text(x, true)).join(',') + '}';
    if (typeof v === 'boolean') return v ? 't' : 'f';
    return Object.is(v, -0) ? '-0' : String(v);
}

const JOBS_COLUMNS = [['cluster', 'VARCHAR'], ['type', 'VARCHAR'], ['gpu_num', 'INTEGER'], ['queue', 'DOUBLE'],
    ['wait_s', 'DOUBLE'], ['submit_s', 'DOUBLE'], ['start_s', 'DOUBLE'], ['end_s', 'DOUBLE']];
const UTIL_COLUMNS = [['value', 'DOUBLE']];
// Columns are taken by position, so the header must name them in this order.
for (const [file, columns] of [[opt['jobs-csv'], JOBS_COLUMNS], [opt['util-csv'], UTIL_COLUMNS]]) {
    const fd = fs.openSync(file, 'r'), buf = Buffer.alloc(4096);
    const header = buf.subarray(0, fs.readSync(fd, buf)).toString().split('\n')[0].replace(/\r$/, '');
    fs.closeSync(fd);
    const want = columns.map(c => c[0]).join(',');
    if (header !== want) die(`${file}: header is "${header}", expected "${want}"`);
}

const sqlString = s => `'${s.replaceAll("'", "''")}'`;
// Explicit columns, no sniffing; quoted "" stays an empty string, as in COPY.
const csv = (file, columns) => `read_csv(${sqlString(path.resolve(file))}, header = true, auto_detect = false,
    delim = ',', quote = '"', escape = '"', nullstr = '', allow_quoted_nulls = false,
    columns = {${columns.map(([n, t]) => `'${n}': '${t}'`).join(', ')}})`;

let conn;
try {
    const db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
} catch (e) { die(`cannot open DuckDB: ${e.message}`); }

async function query(sql) {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowsJS();
}

try {
    const [[threads, version]] = await query("SELECT current_setting('threads'), version()");
    fs.writeFileSync(path.join(out, 'info.txt'), `duckdb_version=${version}\nthreads=${threads}\n`);

    const t0 = performance.now();
    await query(`CREATE TABLE jobs AS SELECT * FROM ${csv(opt['jobs-csv'], JOBS_COLUMNS)}`);
    await query(`CREATE TABLE utilization AS SELECT * FROM ${csv(opt['util-csv'], UTIL_COLUMNS)}`);
    fs.writeFileSync(path.join(out, 'load.ms'), `${(performance.now() - t0).toFixed(3)}\n`);
} catch (e) { die(`loading the CSV files: ${e.message}`); }

// Warm-up round 0 untimed, then reps interleaved rounds, like bench/run.
for (const q of queries) fs.writeFileSync(path.join(out, `${q.name}.ms`), '');
for (let round = 0; round <= reps; round++) {
    for (const q of queries) {
        let ms;
        try {
            const t = performance.now();
            await query(q.sql);
            ms = performance.now() - t;
        } catch (e) { die(`${q.name} (${q.file}): ${e.message}`); }
        if (round > 0) fs.appendFileSync(path.join(out, `${q.name}.ms`), `${ms.toFixed(3)}\n`);
    }
}

for (const q of queries) {
    let rows;
    try { rows = await query(q.sql); } catch (e) { die(`${q.name} (${q.file}): ${e.message}`); }
    fs.writeFileSync(path.join(out, `${q.name}.out`), rows.map(r => r.map(v => text(v)).join('|') + '\n').join(''));
}
