// bench/duckdb/tables.mjs: DuckDB for bench/summaries.  Loads CSV files
// into in-memory tables (columns and types given, no sniffing), times the
// load, then runs and times the --setup file (the tables a DuckDB user
// pre-aggregates at load: CREATE TABLE ... AS, statements separated by a
// line ending in ";"), then times each query as bench/run does (a warm-up round, then
// interleaved rounds) and writes its result rows.  The --macros file (the
// same statement form: CREATE MACRO, helpers the queries call) runs first,
// untimed: definitions, no data.
//
//   node bench/duckdb/tables.mjs --reps R --out DIR --table NAME=FILE=COL:TYPE,... ... [--macros FILE] [--setup FILE] NAME=QUERYFILE ...
//
// Writes DIR/info.txt, DIR/load.ms (all tables), DIR/setup.ms (the setup file), DIR/NAME.ms (one time per
// round) and DIR/NAME.out (rows, | between values).
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const usage = 'usage: node bench/duckdb/tables.mjs --reps R --out DIR --table NAME=FILE=COL:TYPE,... ... [--macros FILE] [--setup FILE] NAME=QUERYFILE ...';
function die(msg) {
    console.error(`bench/duckdb/tables: ${String(msg).split('\n')[0]}`);
    process.exit(1);
}

const opt = {}, tables = [], queries = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--reps' || a === '--out' || a === '--setup' || a === '--macros') {
        if (i + 1 >= argv.length) die(`${a} needs a value; ${usage}`);
        opt[a.slice(2)] = argv[++i];
    } else if (a === '--table') {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^=]+)=(.+)$/.exec(argv[++i] ?? '');
        if (!m) die(`--table needs NAME=FILE=COL:TYPE,...; ${usage}`);
        const columns = m[3].split(',').map(c => c.split(':'));
        if (columns.some(c => c.length !== 2 || !/^[a-z_][a-z0-9_]*$/.test(c[0]) || !/^[A-Z]+$/.test(c[1])))
            die(`bad column list for table ${m[1]}: ${m[3]}`);
        tables.push({ name: m[1], file: m[2], columns });
    } else if (/^[A-Za-z0-9_.-]+=/.test(a) && !a.startsWith('-')) {
        const [name, file] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
        if (queries.some(q => q.name === name)) die(`query name ${name} given twice`);
        try { queries.push({ name, file, sql: fs.readFileSync(file, 'utf8') }); } catch (e) { die(`cannot read ${file}: ${e.message}`); }
    } else {
        die(`unexpected argument ${a}; ${usage}`);
    }
}
for (const k of ['reps', 'out']) if (!(k in opt)) die(`--${k} is missing; ${usage}`);
const reps = Number(opt.reps);
if (!Number.isInteger(reps) || reps < 1) die(`--reps must be a positive integer, not ${opt.reps}`);
if (tables.length === 0 || queries.length === 0) die(usage);
for (const t of tables) {
    if (!fs.existsSync(t.file)) die(`no such file: ${t.file}`);
    const fd = fs.openSync(t.file, 'r'), buf = Buffer.alloc(4096);
    const header = buf.subarray(0, fs.readSync(fd, buf)).toString().split('\n')[0].replace(/\r$/, '');
    fs.closeSync(fd);
    const want = t.columns.map(c => c[0]).join(',');
    if (header !== want) die(`${t.file}: header is "${header}", expected "${want}"`);
}
fs.mkdirSync(opt.out, { recursive: true });

function text(v, inArray = false) {
    if (v === null || v === undefined) return inArray ? 'NULL' : '';
    if (Array.isArray(v)) return '{' + v.map(x => text(x, true)).join(',') + '}';
    if (typeof v === 'boolean') return v ? 't' : 'f';
    // a DATE as PostgreSQL prints it (ISO); a timestamp in UTC, +00 as in a UTC session
    if (v instanceof Date) {
        const iso = v.toISOString();
        return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('T', ' ').replace(/\.000Z$|Z$/, '') + '+00';
    }
    return Object.is(v, -0) ? '-0' : String(v);
}
const sqlString = s => `'${s.replaceAll("'", "''")}'`;

let conn;
try {
    const db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
} catch (e) { die(`cannot open DuckDB: ${e.message}`); }
const query = async sql => (await conn.runAndReadAll(sql)).getRowsJS();
// A file's statements: separated by a line ending in ";", leading comments dropped.
function statements(file) {
    let sql;
    try { sql = fs.readFileSync(file, 'utf8'); } catch (e) { die(`cannot read ${file}: ${e.message}`); }
    return sql.split(/;[ \t]*\n/).map(x => x.replace(/^\s*(--[^\n]*\n\s*)*/, '').trim()).filter(x => x && !/^;?$/.test(x));
}
if (opt.macros) {
    for (const st of statements(opt.macros)) {
        try { await query(st); } catch (e) { die(`${opt.macros}: ${e.message}`); }
    }
}

try {
    const [[threads, version]] = await query("SELECT current_setting('threads'), version()");
    fs.writeFileSync(path.join(opt.out, 'info.txt'), `duckdb_version=${version}\nthreads=${threads}\n`);
    const t0 = performance.now();
    for (const t of tables)
        await query(`CREATE TABLE ${t.name} AS SELECT * FROM read_csv(${sqlString(path.resolve(t.file))}, header = true,
            auto_detect = false, delim = ',', quote = '"', escape = '"', nullstr = '', allow_quoted_nulls = false,
            columns = {${t.columns.map(([n, ty]) => `'${n}': '${ty}'`).join(', ')}})`);
    fs.writeFileSync(path.join(opt.out, 'load.ms'), `${(performance.now() - t0).toFixed(3)}\n`);
} catch (e) { die(`loading the CSV files: ${e.message}`); }
if (opt.setup) {
    const setup = statements(opt.setup);
    const t0 = performance.now();
    for (const st of setup) {
        try { await query(st); } catch (e) { die(`${opt.setup}: ${e.message}`); }
    }
    fs.writeFileSync(path.join(opt.out, 'setup.ms'), `${(performance.now() - t0).toFixed(3)}\n`);
}

for (const q of queries) fs.writeFileSync(path.join(opt.out, `${q.name}.ms`), '');
for (let round = 0; round <= reps; round++) {
    for (const q of queries) {
        let ms;
        try {
            const t = performance.now();
            await query(q.sql);
            ms = performance.now() - t;
        } catch (e) { die(`${q.name} (${q.file}): ${e.message}`); }
        if (round > 0) fs.appendFileSync(path.join(opt.out, `${q.name}.ms`), `${ms.toFixed(3)}\n`);
    }
}
for (const q of queries) {
    const rows = await query(q.sql);
    fs.writeFileSync(path.join(opt.out, `${q.name}.out`), rows.map(r => r.map(v => text(v)).join('|') + '\n').join(''));
}
