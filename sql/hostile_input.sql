-- Hostile input: crafted values for every input and receive function, for
-- rollup, and for every aggregate and function that takes an array or text.
-- Each must give an ERROR with an SQLSTATE that is not XX000 (internal
-- error) and a message a user can act on, or a correct result; the server
-- must stay up.  sketch.sql, occupancy.sql, bins.sql and unpivot.sql hold
-- the first bad-input cases; this suite does not repeat them.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
\i :abs_srcdir/test/regress_binary_copy.sql

-- pg_temp.try(sql) runs one statement and returns 'ok: <first value>' or
-- 'ERROR <SQLSTATE>: <message> (<detail>)' (no LOCATION, no file:line), so
-- one query tries hundreds of values.  Long messages and values are cut,
-- keeping their length.  Every outcome is logged in pg_temp.tried for the
-- final count.
CREATE TEMP TABLE tried (result text);
CREATE FUNCTION pg_temp.cut(s text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN CASE WHEN length(s) > 300 THEN left(s, 100) || '... (' || length(s) || ' characters)' ELSE s END;
CREATE FUNCTION pg_temp.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    st text;
    msg text;
    detail text;
BEGIN
    BEGIN
        EXECUTE sql INTO r;
        r := 'ok: ' || coalesce(pg_temp.cut(r), 'NULL');
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
        r := 'ERROR ' || st || ': ' || pg_temp.cut(msg) || coalesce(' (' || nullif(detail, '') || ')', '');
    END;
    INSERT INTO pg_temp.tried VALUES (r);
    RETURN r;
END
$$;
-- Shorthands: text into a type, bytes through binary COPY into a column.
CREATE TEMP TABLE sk_bin (s acmetrace.delay_sketch);
CREATE TEMP TABLE occ_bin (o acmetrace.occupancy);
CREATE TEMP TABLE int8_bin (i bigint);
CREATE FUNCTION pg_temp.sk_in(t text) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT %L::acmetrace.delay_sketch', t));
CREATE FUNCTION pg_temp.occ_in(t text) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT %L::acmetrace.occupancy', t));
CREATE FUNCTION pg_temp.sk_recv(b bytea) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT pg_temp.copy_binary(%L, %L::bytea)', 'sk_bin', b));
CREATE FUNCTION pg_temp.occ_recv(b bytea) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT pg_temp.copy_binary(%L, %L::bytea)', 'occ_bin', b));
-- For summaries of many cases: a result with "ok: <value>" folded to "ok";
-- the gist of an error, without the input it echoes nor positions in it.
CREATE FUNCTION pg_temp.kind(r text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN CASE WHEN r LIKE 'ok:%' THEN 'ok' ELSE r END;
CREATE FUNCTION pg_temp.gist(r text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(r,
    '^(ERROR 22P02: invalid input syntax for type occupancy): ".*" \((.*) at byte \d+\.\)$', '\1: \2'),
    '^(ERROR 22\d\d\d: [^"]*(timestamp|date/time|time zone)[^"]*): ".*$', '\1: "..."'),
    ' \((At character \d+|The value is \d+ bytes long)\.\)$', ''),
    'claims -?\d+ steps but holds \d+ bytes', 'claims more steps than its bytes hold'),
    '(occupancy version|occupancy has) \d+', '\1 <n>');
-- Positions 0, 1, 2, 5, 6, 7 as '0-2,5-7'.
CREATE FUNCTION pg_temp.ranges(k int[]) RETURNS text LANGUAGE sql IMMUTABLE RETURN (
    SELECT string_agg(CASE WHEN lo = hi THEN lo::text ELSE lo || '-' || hi END, ',' ORDER BY lo)
      FROM (SELECT min(x) AS lo, max(x) AS hi
              FROM (SELECT x, x - row_number() OVER (ORDER BY x) AS grp FROM unnest(k) x) s
             GROUP BY grp) r);

-- Tokens put in every field of a valid text form: numbers out of every
-- range, NaN and infinities in every spelling, signs, hexadecimal, 100,000
-- digits, and digits and spaces from other scripts.
CREATE TEMP TABLE tokens (ord int, label text, tok text);
INSERT INTO tokens VALUES
    (1, 'empty', ''), (2, 'space', ' '), (3, 'NaN', 'NaN'), (4, 'nan', 'nan'), (5, '-nan', '-nan'),
    (6, 'Infinity', 'Infinity'), (7, 'inf', 'inf'), (8, '-inf', '-inf'), (9, '-Infinity', '-Infinity'),
    (10, '1e309', '1e309'), (11, '1e308', '1e308'), (12, '-1', '-1'), (13, '-0', '-0'), (14, '+1', '+1'),
    (15, '2^31', '2147483648'), (16, '2^63', '9223372036854775808'),
    (17, '2^64-1', '18446744073709551615'), (18, '2^64', '18446744073709551616'),
    (19, '0x10', '0x10'), (20, '1e3', '1e3'), (21, '1.5', '1.5'), (22, '9x100000', repeat('9', 100000)),
    (23, 'fullwidth 1', U&'\FF11'), (24, 'arabic-indic 3', U&'\0663'), (25, 'nbsp 1', U&'\00A01'),
    (26, 'zero-width space 1', U&'\200B1'), (27, 'null', 'null'), (28, 'quoted 4', '"4"');

-- 1. delay_sketch text input (delay_sketch_in).  The valid text is
--   v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1
-- (values 0, 12, 20); each field in turn gets every token.  The sum is not
-- checked against the values (mean() clamps to [min, max]), so a sum that
-- parses is accepted.
CREATE FUNCTION pg_temp.sk_text(f text, t text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN format('v%s err=%s n=%s zeros=%s min=%s max=%s sum=%s int=%s b=%s:%s,+%s:1',
              CASE f WHEN 'version' THEN t ELSE '1' END, CASE f WHEN 'err' THEN t ELSE '0.005' END,
              CASE f WHEN 'n' THEN t ELSE '3' END, CASE f WHEN 'zeros' THEN t ELSE '1' END,
              CASE f WHEN 'min' THEN t ELSE '0' END, CASE f WHEN 'max' THEN t ELSE '20' END,
              CASE f WHEN 'sum' THEN t ELSE '32' END, CASE f WHEN 'int' THEN t ELSE '1' END,
              CASE f WHEN 'index' THEN t ELSE '249' END, CASE f WHEN 'count' THEN t ELSE '1' END,
              CASE f WHEN 'step' THEN t ELSE '51' END);
SELECT pg_temp.sk_in(pg_temp.sk_text('none', '')) AS valid_base;
SELECT f.ord, f.field, r.result, string_agg(r.label, ', ' ORDER BY r.tord) AS tokens
  FROM unnest('{version,err,n,zeros,min,max,sum,int,index,count,step}'::text[]) WITH ORDINALITY f(field, ord),
       LATERAL (SELECT t.ord AS tord, t.label, pg_temp.gist(pg_temp.sk_in(pg_temp.sk_text(f.field, t.tok))) AS result
                  FROM tokens t) r
 GROUP BY f.ord, f.field, r.result
 ORDER BY f.ord, min(r.tord);
-- Every prefix of the valid text (the whole text is 64 characters).
SELECT pg_temp.ranges(array_agg(k)) AS prefix_lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.sk_in(left(pg_temp.sk_text('none', ''), k))) AS result
          FROM generate_series(0, 63) k) p
 GROUP BY result ORDER BY min(k);
-- Whole texts.
SELECT label, pg_temp.sk_in(t) AS result
  FROM (VALUES
    ('white space only', E' \t\n\r '),
    ('v alone', 'v'),
    ('v1 alone', 'v1'),
    ('upper case V1', 'V1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('fullwidth v', U&'\FF561 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('v0', 'v0 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('v2^64', 'v18446744073709551616 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('two spaces', 'v1  err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('tab between fields', E'v1\terr=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('em space between fields', U&'v1\2003err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('fields reordered', 'v1 n=0 err=0.005 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('no b=', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1'),
    ('upper case B=', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 B='),
    ('nbsp after b=', U&'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=\00A0'),
    ('right-to-left override after b=', U&'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=\202E'),
    ('emoji after b=', U&'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=\+01F680'),
    ('combining accent after v', U&'v\03011 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('100,000 leading spaces', repeat(' ', 100000) || 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('100,000 trailing spaces', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=' || repeat(' ', 100000)),
    ('err 0.000...05 (100,000 zeros)', 'v1 err=0.' || repeat('0', 100000) || '5 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('err 0.005000... (100,000 zeros)', 'v1 err=0.005' || repeat('0', 100000) || ' n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('unsorted buckets (negative step)', 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=300:1,+-51:1'),
    ('second bucket without +', 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,300:1'),
    ('empty bucket list entry', 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,,+51:1'),
    ('bucket without count', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=249'),
    ('bucket index 2^24 (the limit)', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=16777216:1'),
    ('bucket index 2^24+1', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=16777217:1'),
    ('bucket index -2^24', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=-16777216:1'),
    ('bucket index -2^24-1', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=-16777217:1'),
    ('bucket index -2^63', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=-9223372036854775808:1'),
    ('bucket index --1', 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=--1:1'),
    ('step past 2^24', 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=16777000:1,+1000:1'),
    ('buckets span 16,385', 'v1 err=0.005 n=2 zeros=0 min=1 max=1 sum=2 int=1 b=0:1,+16384:1'),
    ('16,385 buckets', 'v1 err=0.005 n=16385 zeros=0 min=1 max=1 sum=1 int=1 b=0:1' || repeat(',+1:1', 16384)),
    ('bucket counts overflow 2^64', 'v1 err=0.005 n=18446744073709551615 zeros=0 min=12 max=20 sum=32 int=1 b=249:18446744073709551615,+51:1'),
    ('zeros > n', 'v1 err=0.005 n=1 zeros=2 min=0 max=0 sum=0 int=1 b='),
    ('n=0 with a bucket', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=249:1'),
    ('n=0 with int=0', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=0 b='),
    ('n=0 with sum 1', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=1 int=1 b='),
    ('min > max', 'v1 err=0.005 n=2 zeros=0 min=20 max=12 sum=32 int=1 b=249:1,+51:1'),
    ('zeros without min 0', 'v1 err=0.005 n=2 zeros=1 min=12 max=12 sum=12 int=1 b=249:1'),
    ('min 0 without zeros', 'v1 err=0.005 n=1 zeros=0 min=0 max=12 sum=12 int=1 b=249:1'),
    ('only zeros but max 12', 'v1 err=0.005 n=2 zeros=2 min=0 max=12 sum=12 int=1 b='),
    ('valid: a denormal at 0.25', 'v1 err=0.25 n=1 zeros=0 min=4.9406564584124654e-324 max=4.9406564584124654e-324 sum=4.9406564584124654e-324 int=0 b=-1457:1'),
    ('valid: 2^64-1 zeros', 'v1 err=0.005 n=18446744073709551615 zeros=18446744073709551615 min=0 max=0 sum=0 int=1 b='),
    ('valid: extremes at 0.25', 'v1 err=0.25 n=2 zeros=0 min=4.9406564584124654e-324 max=1.7976931348623157e308 sum=1.7976931348623157e308 int=0 b=-1457:1,+2847:1')
  ) v(label, t);

-- 2. occupancy text input (occupancy_in).  The valid text
--   [["2023-07-01 00:00:00+00",4],["2023-07-01 01:00:00+00",0]]
-- with each timestamp and GPU count in turn replaced by every token, then
-- by timestamps out of range, in other scripts and 100,000 characters long.
CREATE FUNCTION pg_temp.occ_text(f text, t text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN format('[["%s",%s],["%s",%s]]',
              CASE f WHEN 'time1' THEN t ELSE '2023-07-01 00:00:00+00' END, CASE f WHEN 'gpus1' THEN t ELSE '4' END,
              CASE f WHEN 'time2' THEN t ELSE '2023-07-01 01:00:00+00' END, CASE f WHEN 'gpus2' THEN t ELSE '0' END);
SELECT pg_temp.occ_in(pg_temp.occ_text('none', '')) AS valid_base;
INSERT INTO tokens VALUES
    (29, 'infinity', 'infinity'), (30, '-infinity', '-infinity'), (31, 'epoch', 'epoch'),
    (32, 'first instant', '4714-11-24 00:00:00+00 BC'), (33, 'before the first', '4714-11-23 23:59:59+00 BC'),
    (34, 'last instant', '294276-12-31 23:59:59.999999+00'), (35, 'after the last', '294277-01-01 00:00:00+00'),
    (36, 'month 13', '2023-13-01'), (37, 'hour 25', '2023-07-01 25:00'), (38, 'unknown zone', '2023-07-01 00:00 Mars/Olympus'),
    (39, 'fullwidth date', U&'\FF12\FF10\FF12\FF13-07-01'), (40, 'trailing zero-width space', U&'2023-07-01 00:30\200B'),
    (41, 'tab inside', E'2023-07-01\t00:30'), (42, 'JSON escape', '2023\u002d07-01 00:30'),
    (43, '-2^63', '-9223372036854775808'), (44, '2^63-1', '9223372036854775807'), (45, 'leading zeros 00002', '00002'),
    (46, '2 2', '2 2'), (47, 'true', 'true'), (48, '100,000 digits', repeat('2', 100000));
SELECT f.ord, f.field, r.result, string_agg(r.label, ', ' ORDER BY r.tord) AS tokens
  FROM unnest('{time1,gpus1,time2,gpus2}'::text[]) WITH ORDINALITY f(field, ord),
       LATERAL (SELECT t.ord AS tord, t.label, pg_temp.gist(pg_temp.occ_in(pg_temp.occ_text(f.field, t.tok))) AS result
                  FROM tokens t) r
 GROUP BY f.ord, f.field, r.result
 ORDER BY f.ord, min(r.tord);
-- Every prefix of the valid text (59 characters).
SELECT pg_temp.ranges(array_agg(k)) AS prefix_lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.occ_in(left(pg_temp.occ_text('none', ''), k))) AS result
          FROM generate_series(0, 58) k) p
 GROUP BY result ORDER BY min(k);
-- Whole texts.
SELECT label, pg_temp.gist(pg_temp.occ_in(t)) AS result
  FROM (VALUES
    ('white space only', E' \t\n\r '),
    ('[', '['), (']', ']'), ('[[]]', '[[]]'), ('[[', '[['), ('[]]', '[]]'), ('[ [ ] ]', '[ [ ] ]'),
    ('unclosed list', '[["2023-07-01",4]'),
    ('extra ]', '[["2023-07-01",4]]]'),
    ('trailing comma in pair', '[["2023-07-01",4,]]'),
    ('three elements', '[["2023-07-01",4,5]]'),
    ('count then time', '[[4,"2023-07-01"]]'),
    ('flat pair', '["2023-07-01",4]'),
    ('object', '{"2023-07-01":4}'),
    ('null', 'null'),
    ('no comma', '[["2023-07-01" 4]]'),
    ('unterminated time', '[["2023-07-01,4]]'),
    ('byte order mark', U&'\FEFF[["2023-07-01",4]]'),
    ('100,000 [', repeat('[', 100000)),
    ('100,000 ]', repeat(']', 100000)),
    ('same instant, two spellings', '[["2023-07-01 02:00+02",4],["2023-07-01 00:00+00",0]]'),
    ('-infinity twice', '[["-infinity",4],["-infinity",0]]'),
    ('-infinity then 0', '[["-infinity",0]]'),
    ('valid: from -infinity', '[["-infinity",4]]'),
    ('valid: 2^63-1 GPUs', '[["2023-07-01",9223372036854775807]]')
  ) v(label, t);
-- 100,000 steps are fine.
SELECT pg_temp.try($$SELECT acmetrace.peak(t::acmetrace.occupancy) || ' GPUs in '
                          || (SELECT count(*) FROM acmetrace.occupancy_steps(t::acmetrace.occupancy)) || ' steps'
                     FROM (SELECT '[' || string_agg(format('["%s",%s]', '2023-07-01 00:00+00'::timestamptz + k * interval '1 s', k % 3 + 1),
                                                    ',' ORDER BY k) || ']' AS t
                             FROM generate_series(1, 100000) k) s$$) AS many_steps;

-- 3. delay_sketch binary receive (delay_sketch_recv), through COPY (FORMAT
-- binary).  The header: version, flags, 2 zero bytes, relative error (4),
-- count (12), zeros (20), min (28), max (36), sum (44), bucket count (52);
-- then varint buckets.  The valid bytes hold 12 and 20 (61 bytes).
CREATE FUNCTION pg_temp.hdr(version int, flags int, err float8, n int8, zeros int8,
                            mn float8, mx float8, total float8, nb int) RETURNS bytea
LANGUAGE sql AS $$
SELECT set_byte(set_byte('\x0000'::bytea, 0, version), 1, flags) || '\x0000'::bytea
       || float8send(err) || int8send(n) || int8send(zeros)
       || float8send(mn) || float8send(mx) || float8send(total) || int4send(nb)
$$;
SELECT pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf203013301'::bytea AS b \gset
SELECT pg_temp.sk_recv(:'b') AS valid_base;
-- Cut at every length: no prefix is a sketch.
SELECT pg_temp.ranges(array_agg(k)) AS lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.sk_recv(substr(:'b'::bytea, 1, k))) AS result FROM generate_series(0, 60) k) p
 GROUP BY result ORDER BY min(k);
-- Every byte in turn set to 0x00, 0x01, 0x7f, 0x80 and 0xff ("ok" where the
-- changed field is still consistent: a low bit of a double, say).
SELECT pg_temp.ranges(array_agg(DISTINCT pos)) AS byte_positions, result
  FROM (SELECT pos, pg_temp.gist(pg_temp.kind(pg_temp.sk_recv(set_byte(:'b'::bytea, pos, v)))) AS result
          FROM generate_series(0, 60) pos, unnest('{0,1,127,128,255}'::int[]) v
         WHERE get_byte(:'b'::bytea, pos) <> v) p
 GROUP BY result ORDER BY min(pos), result;
-- NaN, infinities, -0 and extremes in every double.
SELECT f.field, r.result, string_agg(r.label, ', ' ORDER BY r.ord) AS doubles
  FROM (VALUES (1, 'relative error', 4), (2, 'min', 28), (3, 'max', 36), (4, 'sum', 44)) f(ford, field, pos),
       LATERAL (SELECT d.ord, d.label,
                       pg_temp.gist(pg_temp.sk_recv(overlay(:'b'::bytea PLACING d.bytes FROM f.pos + 1 FOR 8))) AS result
                  FROM (VALUES (1, 'NaN', float8send('NaN')), (2, '-NaN', '\xfff8000000000000'::bytea),
                               (3, 'signalling NaN', '\x7ff0000000000001'::bytea),
                               (4, 'Infinity', float8send('Infinity')), (5, '-Infinity', float8send('-Infinity')),
                               (6, '-0', float8send('-0')), (7, '0', float8send(0)), (8, '5e-324', float8send(5e-324)),
                               (9, 'DBL_MAX', float8send(1.7976931348623157e308)), (10, '-1', float8send(-1))) d(ord, label, bytes)) r
 GROUP BY f.ford, f.field, r.result
 ORDER BY f.ford, min(r.ord);
-- Counts: 2^31, 2^63 and 2^64-1 (read as -1 by int8send) in count and zeros.
SELECT f.field, r.result, string_agg(r.label, ', ' ORDER BY r.ord) AS counts
  FROM (VALUES (1, 'count', 12), (2, 'zeros', 20)) f(ford, field, pos),
       LATERAL (SELECT c.ord, c.label,
                       pg_temp.gist(pg_temp.sk_recv(overlay(:'b'::bytea PLACING int8send(c.v) FROM f.pos + 1 FOR 8))) AS result
                  FROM (VALUES (1, '0', 0::int8), (2, '1', 1), (3, '3', 3), (4, '2^31', 2147483648),
                               (5, '2^63-1', 9223372036854775807), (6, '2^63', -9223372036854775808),
                               (7, '2^64-1', -1)) c(ord, label, v)) r
 GROUP BY f.ford, f.field, r.result
 ORDER BY f.ford, min(r.ord);
-- The bucket count against the bytes present.
SELECT label, pg_temp.sk_recv(overlay(:'b'::bytea PLACING int4send(v) FROM 53 FOR 4)) AS result
  FROM (VALUES ('0 buckets', 0), ('1 bucket', 1), ('3 buckets', 3), ('16,384 buckets', 16384),
               ('16,385 buckets', 16385), ('2^31 buckets', -2147483648), ('2^32-1 buckets', -1)) v(label, v);
-- Crafted buckets (varints: 7 bits a byte, low first; the first index is
-- zigzag coded, 2i for i >= 0 and -2i-1 for i < 0).
SELECT label, pg_temp.sk_recv(pg_temp.hdr(1, 1, 0.005, n, 0, 12, 20, 32, nb) || buckets) AS result
  FROM (VALUES
    ('first index 2^24 (the limit)', 2, 2, '\x808080100133 01'::bytea),
    ('first index 2^24+1', 2, 2, '\x828080100133 01'::bytea),
    ('first index -2^24-1', 2, 2, '\x818080100133 01'::bytea),
    ('first index 2^63', 2, 2, '\x80808080808080808001 01 3301'::bytea),
    ('11-byte varint', 2, 2, '\xf2838080808080808080 00 01 3301'::bytea),
    ('10th varint byte 0x02', 2, 2, '\xf2838080808080808002 01 3301'::bytea),
    ('step 2^32', 2, 2, '\xf20301 8080808010 01'::bytea),
    ('step 0 (duplicate bucket)', 2, 2, '\xf20301 00 01'::bytea),
    ('count 2^64-1 and 1', -1, 2, '\xf203ffffffffffffffffff01 3301'::bytea),
    ('count missing', 2, 2, '\xf20301 33'::bytea),
    ('buckets listed, header says none', 2, 0, '\xf20301 3301'::bytea),
    ('1,000 trailing bytes', 2, 2, '\xf20301 3301'::bytea || decode(repeat('ff', 1000), 'hex')),
    ('one trailing byte 0x00', 2, 2, '\xf20301 3301 00'::bytea)
  ) v(label, n, nb, buckets);
-- Sent bytes read back as the same value: a sketch of 2^64-1 zeros, and one
-- spanning 5e-324 to 1.8e308 at 0.25.
SELECT pg_temp.sk_recv(acmetrace.delay_sketch_send(s::acmetrace.delay_sketch)) AS round_trip
  FROM (VALUES ('v1 err=0.005 n=18446744073709551615 zeros=18446744073709551615 min=0 max=0 sum=0 int=1 b='),
               ('v1 err=0.25 n=2 zeros=0 min=4.9406564584124654e-324 max=1.7976931348623157e308 sum=1.7976931348623157e308 int=0 b=-1457:1,+2847:1')) v(s);

-- 4. occupancy binary receive (occupancy_recv): version byte, int64 step
-- count, then (int64 time, int64 gpus) per step.  The valid bytes hold two
-- steps: 2023-07-01 00:00 UTC 4 GPUs, 01:00 UTC 0 (41 bytes).  Bytes
-- missing inside the version or count give PostgreSQL's own "no data left"
-- / "insufficient data left in message" (08P01), as they do for bigint.
SELECT '\x01'::bytea || int8send(2) || int8send(741484800000000) || int8send(4)
       || int8send(741488400000000) || int8send(0) AS o \gset
SELECT pg_temp.occ_recv(:'o') AS valid_base;
SELECT pg_temp.try(format('SELECT pg_temp.copy_binary(%L, %L::bytea)', 'int8_bin', '\x000102'::bytea)) AS bigint_from_3_bytes;
SELECT pg_temp.ranges(array_agg(k)) AS lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.occ_recv(substr(:'o'::bytea, 1, k))) AS result FROM generate_series(0, 40) k) p
 GROUP BY result ORDER BY min(k);
SELECT pg_temp.ranges(array_agg(DISTINCT pos)) AS byte_positions, result
  FROM (SELECT pos, pg_temp.gist(pg_temp.kind(pg_temp.occ_recv(set_byte(:'o'::bytea, pos, v)))) AS result
          FROM generate_series(0, 40) pos, unnest('{0,1,127,128,255}'::int[]) v
         WHERE get_byte(:'o'::bytea, pos) <> v) p
 GROUP BY result ORDER BY min(pos), result;
SELECT label, pg_temp.occ_recv(bytes) AS result
  FROM (VALUES
    ('version 0', '\x00'::bytea || substr(:'o'::bytea, 2)),
    ('version 255', '\xff'::bytea || substr(:'o'::bytea, 2)),
    ('count 0, two steps follow', '\x01'::bytea || int8send(0) || substr(:'o'::bytea, 10)),
    ('count 3', '\x01'::bytea || int8send(3) || substr(:'o'::bytea, 10)),
    ('count 2^31', '\x01'::bytea || int8send(2147483648) || substr(:'o'::bytea, 10)),
    ('count 2^32-1', '\x01'::bytea || int8send(4294967295) || substr(:'o'::bytea, 10)),
    ('count -2^63', '\x01'::bytea || int8send(-9223372036854775808) || substr(:'o'::bytea, 10)),
    ('count 0, nothing follows', '\x01'::bytea || int8send(0)),
    ('1,000 trailing bytes', :'o'::bytea || decode(repeat('00', 1000), 'hex')),
    ('first time -infinity (valid)', '\x01'::bytea || int8send(2) || int8send(-9223372036854775808) || int8send(4)
                                     || int8send(741488400000000) || int8send(0)),
    ('second time -infinity', '\x01'::bytea || int8send(2) || int8send(741484800000000) || int8send(4)
                              || int8send(-9223372036854775808) || int8send(0)),
    ('time before 4714 BC', '\x01'::bytea || int8send(1) || int8send(-211813488000000001) || int8send(4)),
    ('time 4714-11-24 BC (valid)', '\x01'::bytea || int8send(1) || int8send(-211813488000000000) || int8send(4)),
    ('time after 294276 AD', '\x01'::bytea || int8send(1) || int8send(9223371331200000000) || int8send(4)),
    ('gpus -1', '\x01'::bytea || int8send(1) || int8send(741484800000000) || int8send(-1)),
    ('gpus -2^63', '\x01'::bytea || int8send(1) || int8send(741484800000000) || int8send(-9223372036854775808)),
    ('gpus 2^63-1 (valid)', '\x01'::bytea || int8send(1) || int8send(741484800000000) || int8send(9223372036854775807))
  ) v(label, bytes);

-- 4b. occupancy_state input (occupancy_state_in, text, 22P02) and receive
-- (occupancy_state_recv, through COPY, 22P03): both read the same bytes
-- through the core's one decoder, at_occ_state_decode.  The valid bytes
-- hold two jobs, 2023-07-01 00:00-01:00 UTC 4 GPUs and 00:30- (running) 2
-- GPUs: version 1, 3 zero bytes, 2 starts, 1 end, then (int64 time, int32
-- gpus) per event (56 bytes).
CREATE TEMP TABLE ost_bin (s acmetrace.occupancy_state);
CREATE FUNCTION pg_temp.ost_in(t text) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT %L::acmetrace.occupancy_state', t));
CREATE FUNCTION pg_temp.ost_recv(b bytea) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT pg_temp.copy_binary(%L, %L::bytea)', 'ost_bin', b));
-- the gist of an occupancy_state error, without the text it echoes
CREATE FUNCTION pg_temp.ost_gist(r text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN regexp_replace(r, '^(ERROR 22P02: invalid input syntax for type occupancy_state): ".*" \((.*) at byte \d+\.\)$', '\1: \2');
SELECT '\x01000000'::bytea || int8send(2) || int8send(1) || int8send(741484800000000) || int4send(4)
       || int8send(741486600000000) || int4send(2) || int8send(741488400000000) || int4send(4) AS ost \gset
SELECT pg_temp.ost_in('v1:' || encode(:'ost', 'hex')) AS valid_text, pg_temp.ost_recv(:'ost') AS valid_binary;
-- Every prefix, and every byte set to 0, 1, 127, 128, 255: text and binary
-- give the same verdict (22P02 for text, 22P03 for binary).
SELECT pg_temp.ranges(array_agg(k)) AS lengths, t AS result, bool_and(b = replace(t, '22P02', '22P03')) AS binary_same
  FROM (SELECT k, pg_temp.ost_in('v1:' || encode(substr(:'ost'::bytea, 1, k), 'hex')) AS t,
               pg_temp.ost_recv(substr(:'ost'::bytea, 1, k)) AS b
          FROM generate_series(0, 55) k) p
 GROUP BY t ORDER BY min(k);
SELECT pg_temp.ranges(array_agg(DISTINCT pos)) AS byte_positions, t AS result,
       bool_and(b = replace(t, '22P02', '22P03')) AS binary_same
  FROM (SELECT pos, pg_temp.kind(pg_temp.ost_in('v1:' || encode(set_byte(:'ost'::bytea, pos, v), 'hex'))) AS t,
               pg_temp.kind(pg_temp.ost_recv(set_byte(:'ost'::bytea, pos, v))) AS b
          FROM generate_series(0, 55) pos, unnest('{0,1,127,128,255}'::int[]) v
         WHERE get_byte(:'ost'::bytea, pos) <> v) p
 GROUP BY t ORDER BY min(pos), t;
-- Counts and times at the limits.
SELECT label, pg_temp.ost_in('v1:' || encode(bytes, 'hex')) AS text_result, pg_temp.ost_recv(bytes) AS binary_result
  FROM (VALUES
    ('empty state', '\x01000000'::bytea || int8send(0) || int8send(0)),
    ('starts 2^63', '\x01000000'::bytea || int8send(-9223372036854775808) || int8send(0)),
    ('starts 2^64-1', '\x01000000'::bytea || int8send(-1) || int8send(1) || substr(:'ost'::bytea, 21)),
    ('starts and ends wrap to 3', '\x01000000'::bytea || int8send(-1) || int8send(4) || substr(:'ost'::bytea, 21)),
    ('ends 2^62 (x12 wraps)', '\x01000000'::bytea || int8send(2) || int8send(4611686018427387904) || substr(:'ost'::bytea, 21)),
    ('1,000 trailing bytes', :'ost'::bytea || decode(repeat('00', 1000), 'hex')),
    ('start at -infinity (valid)', overlay(:'ost'::bytea PLACING int8send(-9223372036854775808) FROM 21 FOR 8)),
    ('start at infinity', overlay(:'ost'::bytea PLACING int8send(9223372036854775807) FROM 33 FOR 8)),
    ('end at -infinity', overlay(:'ost'::bytea PLACING int8send(-9223372036854775808) FROM 45 FOR 8)),
    ('end at infinity', overlay(:'ost'::bytea PLACING int8send(9223372036854775807) FROM 45 FOR 8)),
    ('time after 294276 AD', overlay(:'ost'::bytea PLACING int8send(9223371331200000000) FROM 45 FOR 8)),
    ('starts out of order', overlay(:'ost'::bytea PLACING int8send(741490000000000) FROM 21 FOR 8)),
    ('end at its start', overlay(:'ost'::bytea PLACING int8send(741484800000000) FROM 45 FOR 8)),
    ('end releases 6 of 6 (valid)', overlay(:'ost'::bytea PLACING int4send(6) FROM 53 FOR 4)),
    ('end releases 7 of 6', overlay(:'ost'::bytea PLACING int4send(7) FROM 53 FOR 4)),
    ('gpus 2^31-1 (valid)', overlay(:'ost'::bytea PLACING int4send(2147483647) FROM 29 FOR 4)),
    ('gpus -2^31', overlay(:'ost'::bytea PLACING int4send(-2147483648) FROM 29 FOR 4)),
    ('100,000 jobs of 2^31-1 GPUs at one instant (valid)',
     '\x01000000'::bytea || int8send(100000) || int8send(0)
     || (SELECT string_agg(int8send(741484800000000) || int4send(2147483647), ''::bytea) FROM generate_series(1, 100000)))
  ) v(label, bytes);
-- Text that is not "v1:" and lower-case hex.
SELECT label, pg_temp.ost_gist(pg_temp.ost_in(t)) AS result
  FROM (VALUES
    ('empty', ''), ('v1 only', 'v1'), ('v1: only', 'v1:'), ('upper-case V', 'V1:' || encode(:'ost', 'hex')),
    ('upper-case hex', 'v1:' || upper(encode(:'ost', 'hex'))), ('odd digits', 'v1:' || encode(:'ost', 'hex') || '0'),
    ('leading space', ' v1:' || encode(:'ost', 'hex')), ('trailing space', 'v1:' || encode(:'ost', 'hex') || ' '),
    ('trailing newline', 'v1:' || encode(:'ost', 'hex') || E'\n'), ('0x prefix', 'v1:0x' || encode(:'ost', 'hex')),
    ('fullwidth digits', 'v1:' || U&'\FF10\FF11'), ('v2', 'v2:' || encode(:'ost', 'hex')),
    ('100,000 zeros', 'v1:' || repeat('0', 100000)), ('100,001 zeros', 'v1:' || repeat('0', 100001)),
    ('the occupancy text form', '[["2023-07-01 00:00+00",4]]'), ('the delay_sketch text form', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=')
  ) v(label, t);
-- What the state type's values become: a final function over a crafted
-- (but valid) state, and the send of a received one.
SELECT pg_temp.try(format('SELECT acmetrace_internal.occupancy_final(%L)', 'v1:' || encode(:'ost', 'hex'))) AS final_of_valid,
       pg_temp.try(format('SELECT acmetrace.occupancy_state_send(%L) = %L::bytea', 'v1:' || encode(:'ost', 'hex'), :'ost')) AS send_gives_the_bytes;

-- 5. rollup(delay_sketch): NULLs, empty sketches, mixed relative errors,
-- and sketches at the limits of count, sum and span.  A rollup names no
-- single value when the sum or the span overflows.
SELECT label, pg_temp.try(format('SELECT acmetrace.rollup(s) FROM unnest(%L::acmetrace.delay_sketch[]) s', arr)) AS result
  FROM (VALUES
    ('only NULLs', ARRAY[NULL, NULL]::text[]),
    ('NULL and empty', ARRAY[NULL, 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=']),
    ('empty at 0.01 and empty at 0.005', ARRAY['v1 err=0.01 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=',
                                               'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=']),
    ('empty at 0.01 and 12 at 0.005', ARRAY['v1 err=0.01 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=',
                                            'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=249:1']),
    ('NULL, 12 at 0.005, NULL, 20 at 0.25', ARRAY[NULL, 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=249:1',
                                                  NULL, 'v1 err=0.25 n=1 zeros=0 min=20 max=20 sum=20 int=1 b=6:1']),
    ('integers and fractions', ARRAY['v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=249:1',
                                     'v1 err=0.005 n=1 zeros=0 min=12.5 max=12.5 sum=12.5 int=0 b=253:1']),
    ('2^63 zeros twice', ARRAY['v1 err=0.005 n=9223372036854775808 zeros=9223372036854775808 min=0 max=0 sum=0 int=1 b=',
                               'v1 err=0.005 n=9223372036854775808 zeros=9223372036854775808 min=0 max=0 sum=0 int=1 b=']),
    ('2^64-2 and 1 zeros', ARRAY['v1 err=0.005 n=18446744073709551614 zeros=18446744073709551614 min=0 max=0 sum=0 int=1 b=',
                                 'v1 err=0.005 n=1 zeros=1 min=0 max=0 sum=0 int=1 b=']),
    ('sum 1e308 twice', ARRAY['v1 err=0.005 n=1 zeros=0 min=1e308 max=1e308 sum=1e308 int=1 b=70920:1',
                              'v1 err=0.005 n=1 zeros=0 min=1e308 max=1e308 sum=1e308 int=1 b=70920:1']),
    ('1e-300 and 1e300 at 0.005', ARRAY['v1 err=0.005 n=1 zeros=0 min=1e-300 max=1e-300 sum=1e-300 int=0 b=-69076:1',
                                        'v1 err=0.005 n=1 zeros=0 min=1e300 max=1e300 sum=1e300 int=1 b=69077:1']),
    ('5e-324 and 1.8e308 at 0.25', ARRAY['v1 err=0.25 n=1 zeros=0 min=4.9406564584124654e-324 max=4.9406564584124654e-324 sum=4.9406564584124654e-324 int=0 b=-1457:1',
                                         'v1 err=0.25 n=1 zeros=0 min=1.7976931348623157e308 max=1.7976931348623157e308 sum=1.7976931348623157e308 int=1 b=1390:1'])
  ) v(label, arr);
-- The accessors on extreme sketches.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('count of 2^64-1 values', $$SELECT acmetrace.count('v1 err=0.005 n=18446744073709551615 zeros=18446744073709551615 min=0 max=0 sum=0 int=1 b=')$$),
    ('median of 2^64-1 values', $$SELECT acmetrace.percentiles('v1 err=0.005 n=18446744073709551615 zeros=18446744073709551614 min=0 max=12 sum=12 int=1 b=249:1', '{0,0.5,1}')$$),
    ('rank_pct NaN, -Infinity, Infinity', $$SELECT ARRAY[acmetrace.rank_pct(s, 'NaN'), acmetrace.rank_pct(s, '-Infinity'), acmetrace.rank_pct(s, 'Infinity')]
                                           FROM (SELECT 'v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=12 int=1 b=249:1'::acmetrace.delay_sketch s) q$$),
    ('percentiles at 5e-324 and 1.8e308', $$SELECT acmetrace.percentiles('v1 err=0.25 n=2 zeros=0 min=4.9406564584124654e-324 max=1.7976931348623157e308 sum=1.7976931348623157e308 int=0 b=-1457:1,+2847:1', '{0,0.5,1}')$$),
    ('mean of a crafted sum', $$SELECT acmetrace.mean('v1 err=0.005 n=1 zeros=0 min=12 max=12 sum=1e308 int=1 b=249:1')$$)
  ) v(label, q);
-- The occupancy accessors over the widest window timestamptz allows: more
-- than INT64_MAX microseconds, whose length overflowed into a negative mean.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('mean_gpus', $$SELECT acmetrace.mean_gpus('[["2023-07-01",5]]', '4714-11-24 00:00+00 BC', '294276-12-31 23:59:59+00')$$),
    ('allocation_pct', $$SELECT acmetrace.allocation_pct('[["2023-07-01",5]]', 10, '4714-11-24 00:00+00 BC', '294276-12-31 23:59:59+00')$$),
    ('occupancy_levels', $$SELECT string_agg(gpus || ' GPUs ' || seconds || ' s', ', ' ORDER BY gpus)
                             FROM acmetrace.occupancy_levels('[["2023-07-01",5]]', '4714-11-24 00:00+00 BC', '294276-12-31 23:59:59+00')$$),
    ('mean_gpus, 2^63-1 GPUs from -infinity', $$SELECT acmetrace.mean_gpus('[["-infinity",9223372036854775807]]', '4714-11-24 00:00+00 BC', '294276-12-31 23:59:59+00')$$),
    ('occupancy_time_bins time_pct', $$SELECT string_agg(bin || ': ' || time_pct, ', ' ORDER BY bin)
                                      FROM acmetrace.occupancy_time_bins('[["2023-07-01",5]]', 0, 10, 2, '4714-11-24 00:00+00 BC', '294276-12-31 23:59:59+00')$$),
    ('allocation_pct, capacity -2^63', $$SELECT acmetrace.allocation_pct('[]', -9223372036854775808, '2023-07-01', '2023-07-02')$$)
  ) v(label, q);

-- 6. Arrays: percentiles(fractions), bins_at(edges), cdf_at and
-- weighted_cdf_at(thresholds): NULL, empty, NULL elements, two dimensions,
-- lower bound 5, unsorted, repeats, NaN, infinities, a million elements.
-- Edges and thresholds are lists, so more than one dimension is refused, as
-- width_bucket(x, thresholds) does; percentiles keeps its fractions' shape.
CREATE TEMP TABLE arrays (ord int, label text, arr text);
INSERT INTO arrays VALUES
    (1, 'NULL', NULL), (2, 'empty', '{}'), (3, 'one', '{0.5}'), (4, 'NULL element', '{0.25,NULL}'),
    (5, 'two dimensions', '{{0,0.25},{0.5,1}}'), (6, 'three dimensions', '{{{0.5}}}'),
    (7, 'lower bound 5', '[5:6]={0.25,0.75}'), (8, 'unsorted', '{0.75,0.25}'), (9, 'repeats', '{0.5,0.5}'),
    (10, 'NaN', '{0.25,NaN}'), (11, 'Infinity', '{0.25,Infinity}'), (12, '-Infinity', '{-Infinity,0.25}'),
    (13, '-0 and 0', '{-0,0}'), (14, 'huge', '{-1e308,1e308}'),
    (15, 'a million', (SELECT array_agg(k / 1e6)::text FROM generate_series(1, 1000000) k)),
    (16, 'a million and one', (SELECT array_agg(k / 1e6)::text FROM generate_series(0, 1000000) k));
SELECT a.label AS array, f.fn, pg_temp.try(format(f.q, quote_nullable(a.arr))) AS result
  FROM arrays a,
       (VALUES (1, 'percentiles', $$SELECT cardinality(p) || ' ' || left(p::text, 60) FROM acmetrace.percentiles('v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1', %s) p$$),
               (2, 'bins_at', $$SELECT cardinality(b) || ' ' || left(b::text, 60) FROM (SELECT acmetrace.bins_at(x, %s) b FROM unnest('{0,0.5,1}'::float8[]) x) q$$),
               (3, 'cdf_at', $$SELECT cardinality(c) || ' ' || left(c::text, 60) FROM (SELECT acmetrace.cdf_at(x, %s) c FROM unnest('{0,0.5,1}'::float8[]) x) q$$),
               (4, 'weighted_cdf_at', $$SELECT cardinality(c) || ' ' || left(c::text, 60) FROM (SELECT acmetrace.weighted_cdf_at(x, 2, %s) c FROM unnest('{0,0.5,1}'::float8[]) x) q$$))
         f(ford, fn, q)
 ORDER BY a.ord, f.ford;
-- Arrays that change between the rows of one group: a NULL array, a NULL
-- element, another length, two dimensions with the same elements, -0
-- for 0 (another value to a byte comparison), then the same values again.
SELECT label, pg_temp.try(format($$SELECT acmetrace.%s FROM (VALUES (1, 0), (2, 1), (3, 2)) v(k, x)$$, call)) AS result
  FROM (VALUES
    ('bins_at, NULL on row 2', $$bins_at(x, CASE k WHEN 2 THEN NULL ELSE '{0,1,2}' END::float8[])$$),
    ('bins_at, NULL element on row 2', $$bins_at(x, CASE k WHEN 2 THEN '{0,NULL,2}' ELSE '{0,1,2}' END::float8[])$$),
    ('bins_at, longer on row 3', $$bins_at(x, CASE k WHEN 3 THEN '{0,1,2,3}' ELSE '{0,1,2}' END::float8[])$$),
    ('bins_at, 2-D on row 2', $$bins_at(x, CASE k WHEN 2 THEN '{{0,1},{2,3}}' ELSE '{0,1,2,3}' END::float8[])$$),
    ('bins_at, -0 on row 3', $$bins_at(x, CASE k WHEN 3 THEN '{-0,1,2}' ELSE '{0,1,2}' END::float8[])$$),
    ('bins_at, equal arrays from a column', $$bins_at(x, ARRAY[0, 1, k - k + 2]::float8[])$$),
    ('cdf_at, NULL on row 3', $$cdf_at(x, CASE k WHEN 3 THEN NULL ELSE '{1}' END::float8[])$$),
    ('cdf_at, reordered on row 2', $$cdf_at(x, CASE k WHEN 2 THEN '{2,1}' ELSE '{1,2}' END::float8[])$$),
    ('weighted_cdf_at, NaN on row 2', $$weighted_cdf_at(x, 1, CASE k WHEN 2 THEN '{NaN}' ELSE '{1}' END::float8[])$$),
    ('bins, nbins NULL on row 2', $$bins(x, 0, 2, CASE k WHEN 2 THEN NULL ELSE 4 END)$$),
    ('bins, hi NaN on row 3', $$bins(x, 0, CASE k WHEN 3 THEN 'NaN'::float8 ELSE 2 END, 4)$$)
  ) v(label, call);

-- 7. bins(value, lo, hi, nbins).
SELECT label, pg_temp.try(format($$SELECT acmetrace.bins(x, %s) FROM unnest('{-1,0,0.5,1,2,NaN,Infinity,-Infinity}'::float8[]) x$$, args)) AS result
  FROM (VALUES
    ('nbins 2^31-1', $$0, 1, 2147483647$$), ('nbins -2^31', $$0, 1, -2147483648$$), ('nbins -1', $$0, 1, -1$$),
    ('nbins 1,000,001', $$0, 1, 1000001$$), ('nbins NULL', $$0, 1, NULL$$), ('hi NULL', $$0, NULL, 1$$),
    ('lo > hi', $$1, 0, 1$$), ('lo -0, hi 0', $$'-0', 0, 1$$), ('lo NaN', $$'NaN', 1, 1$$), ('hi NaN', $$0, 'NaN', 1$$),
    ('lo -Infinity', $$'-Infinity', 1, 1$$), ('lo and hi 5e-324 apart', $$0, 5e-324, 2$$),
    ('lo -DBL_MAX, hi DBL_MAX', $$-1.7976931348623157e308, 1.7976931348623157e308, 4$$),
    ('nbins 1,000,000', $$0, 1, 1000000) FILTER (WHERE false$$)
  ) v(label, args);
SELECT pg_temp.try($$SELECT array_length(b, 1) || ' cells, ' || (SELECT sum(c) FROM unnest(b) c) || ' counted'
                     FROM (SELECT acmetrace.bins(x, 0, 1, 1000000) b FROM unnest('{-1,0,0.5,1,2,NaN}'::float8[]) x) q$$) AS million_bins;
-- bin_rows, the companion, with arrays that are not what bins returns.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('bin_rows, empty', $$SELECT count(*) FROM acmetrace.bin_rows('{}', 0, 1)$$),
    ('bin_rows, 2-D', $$SELECT count(*) FROM acmetrace.bin_rows('[0:0][0:2]={{1,2,3}}', 0, 1)$$),
    ('bin_rows, NULL count', $$SELECT string_agg(coalesce(count::text, 'NULL'), ',' ORDER BY bin) FROM acmetrace.bin_rows('[0:2]={1,NULL,3}', 0, 1)$$),
    ('bin_rows, edges for another length', $$SELECT count(*) FROM acmetrace.bin_rows('[0:2]={1,2,3}', '{0,1,2}')$$),
    ('bin_rows, NULL edges', $$SELECT count(*) FROM acmetrace.bin_rows('[0:2]={1,2,3}', NULL::float8[])$$)
  ) v(label, q);

-- 8. weighted_cdf_at weights.
SELECT label, pg_temp.try(format($$SELECT acmetrace.weighted_cdf_at(x, w, '{1,2}') FROM (VALUES %s) v(x, w)$$, rows)) AS result
  FROM (VALUES
    ('NaN and NULL weights are skipped', $$(1::float8, 'NaN'::float8), (2, NULL), (2, 1)$$),
    ('-0 weight', $$(1::float8, '-0'::float8), (2, 1)$$),
    ('-Infinity weight', $$(1::float8, '-Infinity'::float8)$$),
    ('5e-324 weights', $$(1::float8, 5e-324::float8), (2, 5e-324)$$),
    ('1e308 twice', $$(1::float8, 1e308::float8), (2, 1e308)$$)
  ) v(label, rows);

-- 9. unpivot(header, line).  Messages quote at most 64 bytes of a cell and
-- never half a character: with LATIN1 as the client encoding a cut "é"
-- would replace the message by an encoding error.  A header has at most
-- one column more than it has commas (",,," has four, not "more fields
-- than expected"); 45 million columns are refused with 54000, not an
-- internal error from palloc.
SELECT label, pg_temp.try(format('SELECT string_agg(series || ''='' || value, '','') FROM acmetrace.unpivot(%L, %L)', h, l)) AS result
  FROM (VALUES
    ('empty line', 'Time,a', ''),
    ('white space line', 'Time,a', '   '),
    ('white space header', ' ', '2023-07-01 00:00:00+00,1'),
    ('header of commas', ',,,', '2023-07-01 00:00:00+00,1,2,3'),
    ('header of 45,000,001 columns', repeat('a,', 45000000) || 'a', '2023-07-01 00:00:00+00,1'),
    ('duplicate column names', 'Time,a,a', '2023-07-01 00:00:00+00,1,2'),
    ('cell -0', 'Time,a', '2023-07-01 00:00:00+00,-0'),
    ('cell 1e309', 'Time,a', '2023-07-01 00:00:00+00,1e309'),
    ('cell 1e-400', 'Time,a', '2023-07-01 00:00:00+00,1e-400'),
    ('cell -Infinity', 'Time,a', '2023-07-01 00:00:00+00,-Infinity'),
    ('cell nan (missing)', 'Time,a', '2023-07-01 00:00:00+00, nan '),
    ('cell N/A', 'Time,a', '2023-07-01 00:00:00+00,N/A'),
    ('cell +-1', 'Time,a', '2023-07-01 00:00:00+00,+-1'),
    ('cell 1e', 'Time,a', '2023-07-01 00:00:00+00,1e'),
    ('cell fullwidth 1', 'Time,a', U&'2023-07-01 00:00:00+00,\FF11'),
    ('cell 100,000 nines', 'Time,a', '2023-07-01 00:00:00+00,' || repeat('9', 100000)),
    ('cell x and 40 é (cut inside a character)', 'Time,a', '2023-07-01 00:00:00+00,x' || repeat('é', 40)),
    ('time x and 40 é, too few cells', 'Time,a,b', 'x' || repeat('é', 40) || ',1'),
    ('time of 40 emoji', 'Time,a', repeat(U&'\+01F680', 40) || ',1'),
    ('time infinity', 'Time,a', 'infinity,1'),
    ('time 100,000 characters', 'Time,a', repeat('2', 100000) || ',1'),
    ('carriage return inside', 'Time,a', E'2023-07-01 00:00:00+00\r,1'),
    ('quote inside a cell', 'Time,a', '2023-07-01 00:00:00+00,1"2'),
    ('100,000 columns', 'Time,' || (SELECT string_agg('c' || k, ',') FROM generate_series(1, 100000) k),
                        '2023-07-01 00:00:00+00,' || repeat('1,', 99999) || '1'),
    ('100,000 columns, one cell short', 'Time,' || (SELECT string_agg('c' || k, ',') FROM generate_series(1, 100000) k),
                        '2023-07-01 00:00:00+00,' || repeat('1,', 99998) || '1')
  ) v(label, h, l);
SET client_encoding = 'LATIN1';
SELECT pg_temp.try($$SELECT * FROM acmetrace.unpivot('Time,a', '2023-07-01 00:00:00+00,x' || repeat(U&'\00E9', 40))$$) = 'ERROR 22P02: invalid value "x' || repeat(U&'\00E9', 31) || '" in column "a"' AS cut_between_characters;
RESET client_encoding;

-- 10. Every other function with a text argument, with hostile names: NULL,
-- empty, white space, case, quotes and SQL, format directives, 100,000
-- characters, and characters from other scripts.  Results are summarized
-- per function and SQLSTATE.  (load_generated's cluster name: an empty
-- one fell back to the loader's default cluster, seren, before 0.2.0.)
SELECT acmetrace.load_generated('g', 'seren', 300, 7);
SET client_min_messages = warning;
CREATE TEMP TABLE names (ord int, label text, name text);
INSERT INTO names VALUES
    (1, 'NULL', NULL), (2, 'empty', ''), (3, 'space', ' '), (4, 'upper case', 'G'), (5, 'trailing space', 'g '),
    (6, 'SQL', $$g'); DROP TABLE acmetrace.jobs; --$$), (7, 'quotes', '"g"'), (8, 'format', '%s %I %L %n %1$s'),
    (9, '100,000 characters', repeat('g', 100000)), (10, 'accent', 'é'), (11, 'right-to-left', U&'\202Eg'),
    (12, 'emoji', U&'\+01F680'), (13, 'zero-width space', U&'g\200B'), (14, 'newline', E'g\n');
-- One row per function and outcome (ok or SQLSTATE), the names that gave
-- it, and the message for the first of them.
SELECT f.call, r.outcome, string_agg(r.label, ', ' ORDER BY r.ord) AS names,
       (array_agg(r.result ORDER BY r.ord))[1] AS first_result
  FROM (VALUES
    ('queue_percentiles(%s)'), ('queue_percentiles(%s, ''{0.5}'', true)'), ('queue_by_occupancy(%s)'),
    ('queue_by_occupancy(''g'', 10, %s)'), ('drop_cluster(%s)'), ('audit(%s)'), ('state_breakdown(%s)'),
    ('generate_jobs(%s, 1)'), ('load_generated(''h'', %s, 1)'), ('load_generated(%s, ''no_such_profile'', 1)'), ('trace_seren_csv(%s)'), ('trace_kalos_csv(%s)'),
    ('helios_cluster_log_csv(%s)'), ('duration_cdf(%s)'), ('queue_cdf(%s)'), ('gpu_num_cdf(%s)'),
    ('util_cdf(NULL, %s)'), ('util_cdf(%s)'), ('util_cdf(%s, ''GPU_UTIL'')'), ('util_histogram(%s)'),
    ('util_polarization(%s)'), ('state_by_type(%s)'), ('type_distribution(%s)'), ('gpu_num_boxplot(%s)'),
    ('cancelled_by_queue(%s)'), ('cancelled_by_queue(''g'', %s)'), ('gpu_time_lost(%s)'),
    ('gpu_time_lost_weekly(%s)'), ('failure_taxonomy(%s)'), ('unpivot(%s, ''2023-07-01 00:00:00+00,1'')'),
    ('unpivot(''Time,a'', %s)')) f(call),
       LATERAL (SELECT n.ord, n.label, t.result, CASE WHEN t.result LIKE 'ok%' THEN 'ok' ELSE substr(t.result, 7, 5) END AS outcome
                  FROM names n,
                       LATERAL (SELECT pg_temp.try(format('SELECT count(*) FROM acmetrace.' || f.call, quote_nullable(n.name))) AS result) t) r
 GROUP BY 1, 2 ORDER BY 1, 2;
RESET client_min_messages;
SELECT count(*) AS jobs_still_there FROM acmetrace.jobs WHERE cluster = 'g';
-- Arrays of the paper's figures and of queue_percentiles.
SELECT f.call, a.label AS array, pg_temp.try(format('SELECT count(*) FROM acmetrace.' || f.call, quote_nullable(a.arr))) AS result
  FROM (VALUES ('queue_percentiles(''g'', %s)'), ('duration_cdf(''g'', %s)'), ('gpu_num_cdf(''g'', %s)')) f(call),
       arrays a
 WHERE a.ord IN (1, 2, 4, 5, 7, 10, 11)
 ORDER BY f.call, a.ord;

-- 11. The aggregates' support functions take or return internal, which SQL
-- cannot make: no literal, cast or SQL-language function gives one, and a
-- NULL is not accepted for it either.  So the deserialize functions only
-- ever see bytes their own serialize function wrote in a parallel worker,
-- and are exercised by parallel aggregation below.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('NULL::internal', $$SELECT NULL::internal IS NULL$$),
    ('bytea::internal', $$SELECT '\x01'::bytea::internal IS NULL$$),
    ('_sketch_deserialize(bytea, NULL)', $$SELECT acmetrace._sketch_deserialize('\x01', NULL) IS NULL$$),
    ('_occupancy_deserialize(bytea, NULL)', $$SELECT acmetrace._occupancy_deserialize('\x01', NULL) IS NULL$$),
    ('_sketch_final(NULL)', $$SELECT acmetrace._sketch_final(NULL) IS NULL$$),
    ('delay_sketch_recv(NULL)', $$SELECT acmetrace.delay_sketch_recv(NULL) IS NULL$$),
    ('occupancy_recv(bytea)', $$SELECT acmetrace.occupancy_recv('\x01'::bytea) IS NULL$$),
    ('SQL function taking internal', $$CREATE FUNCTION pg_temp.f(internal) RETURNS int LANGUAGE sql AS 'SELECT 1'$$)
  ) v(label, q);

-- 12. Parallel aggregation over hostile but valid data, so that serialize,
-- deserialize and combine run: NULLs, NaN, infinities, -0, denormals,
-- DBL_MAX, huge integers, NULL ends and infinite times, and empty groups
-- (FILTER (WHERE false)).  Values are chosen so every sum is exact in any
-- order; the results must equal the serial ones.  Leader participation off:
-- the workers scan, the leader only combines.
CREATE TABLE hostile_vals (k int, g int, v float8, w float8, s timestamptz, e timestamptz, gpus int, pad text);
INSERT INTO hostile_vals
SELECT k, k % 6,
       CASE k % 6
           WHEN 0 THEN NULL
           WHEN 1 THEN (ARRAY[NULL, 'NaN', '-0', '0'])[k / 6 % 4 + 1]::float8
           WHEN 2 THEN (ARRAY['Infinity', '-Infinity', '5e-324', '-5e-324', '1.7976931348623157e308',
                              '-1.7976931348623157e308'])[k / 6 % 6 + 1]::float8
           WHEN 3 THEN k % 5000
           WHEN 4 THEN (k % 1000) * 5e-324
           ELSE (k % 7 + 1) * 2.0::float8 ^ 1000
       END,
       CASE WHEN k % 11 = 0 THEN NULL WHEN k % 13 = 0 THEN 'NaN'::float8 ELSE k % 100 END,
       CASE WHEN k % 50 = 0 THEN '-infinity' ELSE '2023-07-01 00:00+00'::timestamptz + (k % 100) * interval '1 minute' END,
       CASE WHEN k % 11 = 0 THEN NULL WHEN k % 13 = 0 THEN 'infinity'
            ELSE '2023-07-01 00:00+00'::timestamptz + (k % 100 + k % 7) * interval '1 minute' END,
       CASE k % 17 WHEN 0 THEN 0 WHEN 1 THEN 2147483647 ELSE k % 8 + 1 END,
       repeat('x', 200)
  FROM generate_series(1, 30000) k;
ANALYZE hostile_vals;
CREATE TEMP VIEW hostile_aggs AS
SELECT g,
       acmetrace.delay_sketch_agg(v) FILTER (WHERE v >= 0 AND v < 1e308) AS sketch,
       acmetrace.delay_sketch_agg(v, 0.25) FILTER (WHERE v >= 0 AND v < 1e308) AS sketch_25,
       acmetrace.delay_sketch_agg(v) FILTER (WHERE false) AS sketch_empty,
       acmetrace.bins(v, -1.7976931348623157e308, 1.7976931348623157e308, 8) AS bins,
       md5(acmetrace.bins(v, 0, 1, 1000000)::text) AS bins_million,
       acmetrace.bins(v, 0, 1, 2) FILTER (WHERE false) AS bins_empty,
       acmetrace.bins_at(v, '{-1.7976931348623157e308,-1,-5e-324,0,5e-324,1,1e300,1.7976931348623157e308}') AS bins_at,
       acmetrace.cdf_at(v, '{Infinity,-Infinity,-0,0,5e-324,1,1e300}') AS cdf,
       acmetrace.weighted_cdf_at(v, w, '{Infinity,-Infinity,0,5e-324,1,1e300}') AS wcdf,
       acmetrace.occupancy_agg(s, e, gpus) AS occ
  FROM hostile_vals GROUP BY g;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial_aggs AS SELECT * FROM hostile_aggs;
SELECT g, acmetrace.count(sketch) AS n, acmetrace.min(sketch), acmetrace.max(sketch),
       acmetrace.percentiles(sketch_25, '{0.5,1}') AS sketch_25, sketch_empty IS NULL AS sketch_empty_null
  FROM serial_aggs ORDER BY g;
SELECT g, bins, bins_empty IS NULL AS bins_empty_null, bins_at, cdf, wcdf FROM serial_aggs ORDER BY g;
SELECT g, acmetrace.peak(occ), (SELECT count(*) FROM acmetrace.occupancy_steps(occ)) AS steps,
       (SELECT min(at) FROM acmetrace.occupancy_steps(occ)) AS first_step
  FROM serial_aggs ORDER BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT * FROM hostile_aggs;
CREATE TEMP TABLE parallel_aggs AS SELECT * FROM hostile_aggs;
SELECT g, p.sketch::text IS NOT DISTINCT FROM s.sketch::text AS sketch,
       p.sketch_25::text IS NOT DISTINCT FROM s.sketch_25::text AS sketch_25,
       p.sketch_empty IS NULL AS sketch_empty_null, p.bins = s.bins AS bins, p.bins_million = s.bins_million AS bins_million,
       p.bins_empty IS NULL AS bins_empty_null, p.bins_at = s.bins_at AS bins_at, p.cdf IS NOT DISTINCT FROM s.cdf AS cdf,
       p.wcdf IS NOT DISTINCT FROM s.wcdf AS wcdf, p.occ::text = s.occ::text AS occ
  FROM parallel_aggs p JOIN serial_aggs s USING (g) ORDER BY g;
-- rollup of stored hostile sketches (NULLs, empty ones, extremes) per group.
CREATE TABLE hostile_sketches AS
SELECT k % 3 AS g,
       CASE WHEN k % 5 = 0 THEN NULL
            WHEN k % 7 = 0 THEN ('v1 err=' || (ARRAY['0.005', '0.25', '0.001'])[k % 3 + 1]
                                 || ' n=0 zeros=0 min=0 max=0 sum=0 int=1 b=')::acmetrace.delay_sketch
            ELSE (SELECT acmetrace.delay_sketch_agg(x, (ARRAY[0.005, 0.25, 0.001])[k % 3 + 1])
                    FROM unnest(ARRAY[0, k, (k % 9) * 2.0::float8 ^ (ARRAY[0, -1000, 10])[k % 3 + 1]]) x)
       END AS s,
       repeat('x', 200) AS pad
  FROM generate_series(1, 6000) k;
ANALYZE hostile_sketches;
EXPLAIN (COSTS OFF) SELECT g, acmetrace.rollup(s) FROM hostile_sketches GROUP BY g;
CREATE TEMP TABLE parallel_rollups AS SELECT g, acmetrace.rollup(s) AS s FROM hostile_sketches GROUP BY g;
SET max_parallel_workers_per_gather = 0;
SELECT g, r.s::text = p.s::text AS parallel_equals_serial, acmetrace.relative_error(r.s), acmetrace.count(r.s),
       acmetrace.min(r.s), acmetrace.max(r.s), acmetrace.mean(r.s)
  FROM (SELECT g, acmetrace.rollup(s) AS s FROM hostile_sketches GROUP BY g) r JOIN parallel_rollups p USING (g)
 ORDER BY g;
SET max_parallel_workers_per_gather = 2;
-- Errors through workers.  Where the row that fails depends on how the
-- rows are shared out the message may too, so only the SQLSTATE shows;
-- combine gives the transition function's message where it can.
\set VERBOSITY terse
SELECT acmetrace.delay_sketch_agg(v) FROM hostile_vals WHERE g = 1;
-- Two weights of 1e308, in the first and the last blocks: their sum
-- overflows in one worker, or when the leader combines two workers' states.
SELECT acmetrace.weighted_cdf_at(v, CASE WHEN k IN (3, 29997) THEN 1e308 ELSE 1 END, '{1}') FROM hostile_vals;
SELECT acmetrace.cdf_at(v, ARRAY[g]::float8[]) FROM hostile_vals;
SELECT acmetrace.bins(v, g, 10, 2) FROM hostile_vals;
SELECT acmetrace.bins_at(v, ARRAY[0, 1 + g]::float8[]) FROM hostile_vals;
SELECT acmetrace.occupancy_agg(s, CASE k WHEN 12345 THEN s - interval '1 second' ELSE e END, gpus) FROM hostile_vals;
SELECT acmetrace.rollup(s) FROM hostile_sketches;
\set VERBOSITY sqlstate
SELECT acmetrace.delay_sketch_agg(v, 0.001 * (1 + g % 2)) FILTER (WHERE v >= 0 AND v < 1e308) FROM hostile_vals;
SELECT acmetrace.delay_sketch_agg(v) FROM hostile_vals WHERE g = 5 OR v = 1.7976931348623157e308;
SELECT acmetrace.delay_sketch_agg(v, 0.001) FILTER (WHERE v >= 0 AND v < 1e308) FROM hostile_vals WHERE g IN (4, 5);
\set VERBOSITY default
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- 13. A job type of 300 MB: queue_percentiles' grouping once overflowed int
-- on it and indexed memory before the array (a crash, in a C scan since
-- replaced by SQL).  lz4 keeps the insert quick.
SET default_toast_compression = 'lz4';
INSERT INTO acmetrace.clusters (cluster, source_format) VALUES ('huge_type', 'generated');
INSERT INTO acmetrace.jobs (cluster, type, gpu_num, submit_time, start_time, state, job_id)
VALUES ('huge_type', repeat('a', 310000000), 1, '2023-07-01 00:00+00', '2023-07-01 00:01+00', 'COMPLETED', '1');
RESET default_toast_compression;
SELECT pg_temp.try($$SELECT octet_length(type) || ' bytes, ' || jobs || ' job'
                      FROM acmetrace.queue_percentiles('huge_type') WHERE type <> 'all'$$) AS huge_type;
SELECT acmetrace.drop_cluster('huge_type');

-- 14. bins_state text input (bins_state_in: v1: and hexadecimal) and
-- binary receive (bins_state_recv, through binary COPY), both read by the
-- core's one decoder.  The valid value: bins(x, 0, 10, 2) over {1, 11}, 80
-- bytes: version (byte 0), kind (1), two zero bytes, slots (4), parameters
-- (8), thresholds as given (12), n (16), total weight (24), lo (32), hi
-- (40), four counts (48..79).
CREATE TEMP TABLE bs_bin (s acmetrace.bins_state);
CREATE FUNCTION pg_temp.bs_in(t text) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT %L::acmetrace.bins_state', t));
CREATE FUNCTION pg_temp.bs_recv(b bytea) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT pg_temp.copy_binary(%L, %L::bytea)', 'bs_bin', b));
CREATE FUNCTION pg_temp.bs_text(b bytea) RETURNS text LANGUAGE sql IMMUTABLE
RETURN 'v1:' || encode(b, 'hex');
SELECT '\x01010000'::bytea || int4send(4) || int4send(2) || int4send(0) || int8send(2) || float8send(0)
       || float8send(0) || float8send(10) || int8send(0) || int8send(1) || int8send(0) || int8send(1) AS bs \gset
SELECT pg_temp.bs_recv(:'bs') AS valid_base, pg_temp.bs_in(pg_temp.bs_text(:'bs')) = pg_temp.bs_recv(:'bs') AS same_as_text;
-- Cut at every length, as bytes and as text: no prefix is a state.
SELECT pg_temp.ranges(array_agg(k)) AS lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.bs_recv(substr(:'bs'::bytea, 1, k))) AS result FROM generate_series(0, 79) k) p
 GROUP BY result ORDER BY min(k);
SELECT pg_temp.ranges(array_agg(k)) AS text_lengths, result
  FROM (SELECT k, pg_temp.gist(pg_temp.bs_in(left(pg_temp.bs_text(:'bs'), k))) AS result FROM generate_series(0, 162) k) p
 GROUP BY result ORDER BY min(k);
-- Every byte in turn set to 0x00, 0x01, 0x7f, 0x80 and 0xff; the text of
-- each gives the same value or the same message as its bytes.
SELECT pg_temp.ranges(array_agg(DISTINCT pos)) AS byte_positions, pg_temp.gist(pg_temp.kind(r)) AS result,
       bool_and(CASE WHEN r LIKE 'ok:%' THEN t = r
                     ELSE regexp_replace(r, '^ERROR 22P03: invalid bins_state: (.*) \(The value is \d+ bytes long\.\)$', '\1')
                        = regexp_replace(t, '^ERROR 22P02: invalid input syntax for type bins_state: (.*) \(At character \d+\.\)$', '\1')
                END) AS text_agrees
  FROM (SELECT pos, pg_temp.bs_recv(b) AS r, pg_temp.bs_in(pg_temp.bs_text(b)) AS t
          FROM (SELECT pos, set_byte(:'bs'::bytea, pos, v) AS b
                  FROM generate_series(0, 79) pos, unnest('{0,1,127,128,255}'::int[]) v
                 WHERE get_byte(:'bs'::bytea, pos) <> v) c) p
 GROUP BY 2 ORDER BY min(pos), 2;
-- NaN, infinities, -0 and extremes in lo, hi and the total weight.
SELECT f.field, r.result, string_agg(r.label, ', ' ORDER BY r.ord) AS doubles
  FROM (VALUES (1, 'total weight', 24), (2, 'lo', 32), (3, 'hi', 40)) f(ford, field, pos),
       LATERAL (SELECT d.ord, d.label,
                       pg_temp.gist(pg_temp.bs_recv(overlay(:'bs'::bytea PLACING d.bytes FROM f.pos + 1 FOR 8))) AS result
                  FROM (VALUES (1, 'NaN', float8send('NaN')), (2, '-NaN', '\xfff8000000000000'::bytea),
                               (3, 'Infinity', float8send('Infinity')), (4, '-Infinity', float8send('-Infinity')),
                               (5, '-0', float8send('-0')), (6, '0', float8send(0)), (7, '5e-324', float8send(5e-324)),
                               (8, 'DBL_MAX', float8send(1.7976931348623157e308)), (9, '-1', float8send(-1)),
                               (10, '20', float8send(20))) d(ord, label, bytes)) r
 GROUP BY f.ford, f.field, r.result
 ORDER BY f.ford, min(r.ord);
-- Sizes and counts against the bytes present.
SELECT label, pg_temp.gist(pg_temp.bs_recv(b)) AS result
  FROM (VALUES
    ('kind 0', set_byte(:'bs'::bytea, 1, 0)),
    ('kind 5', set_byte(:'bs'::bytea, 1, 5)),
    ('slots 2^31', overlay(:'bs'::bytea PLACING int4send(-2147483648) FROM 5 FOR 4)),
    ('slots 1,000,003', overlay(:'bs'::bytea PLACING int4send(1000003) FROM 5 FOR 4)),
    ('slots 5', overlay(:'bs'::bytea PLACING int4send(5) FROM 5 FOR 4)),
    ('slots 5, one more count', overlay(:'bs'::bytea PLACING int4send(5) FROM 5 FOR 4) || int8send(0)),
    ('thresholds 1', overlay(:'bs'::bytea PLACING int4send(1) FROM 13 FOR 4)),
    ('n 3', overlay(:'bs'::bytea PLACING int8send(3) FROM 17 FOR 8)),
    ('n -1', overlay(:'bs'::bytea PLACING int8send(-1) FROM 17 FOR 8)),
    ('a count -1, n 1', overlay(overlay(:'bs'::bytea PLACING int8send(-1) FROM 57 FOR 8) PLACING int8send(0) FROM 17 FOR 8)),
    ('counts 2^63-1 and 1, n 2^63 (wraps)', overlay(overlay(:'bs'::bytea PLACING int8send(9223372036854775807) FROM 57 FOR 8)
                                              PLACING int8send(-9223372036854775808) FROM 17 FOR 8)),
    ('1,000 trailing bytes', :'bs'::bytea || decode(repeat('00', 1000), 'hex'))
  ) v(label, b);
-- The other kinds: edges, thresholds and weights that the aggregates'
-- arguments could never have made.
CREATE FUNCTION pg_temp.bs_state(kind int, params float8[], given float8[], counts int8[], weights float8[],
                                 n int8, wtotal float8) RETURNS bytea LANGUAGE sql AS $$
SELECT set_byte('\x01000000'::bytea, 1, kind) || int4send(cardinality(counts)) || int4send(cardinality(params))
       || int4send(coalesce(cardinality(given), 0)) || int8send(n) || float8send(wtotal)
       || coalesce((SELECT string_agg(float8send(x), '' ORDER BY i) FROM unnest(params) WITH ORDINALITY u(x, i)), '')
       || coalesce((SELECT string_agg(float8send(x), '' ORDER BY i) FROM unnest(given) WITH ORDINALITY u(x, i)), '')
       || coalesce((SELECT string_agg(int8send(x), '' ORDER BY i) FROM unnest(counts) WITH ORDINALITY u(x, i)), '')
       || coalesce((SELECT string_agg(float8send(x), '' ORDER BY i) FROM unnest(weights) WITH ORDINALITY u(x, i)), '')
$$;
SELECT label, pg_temp.gist(pg_temp.bs_recv(b)) AS binary, pg_temp.gist(pg_temp.bs_in(pg_temp.bs_text(b))) AS text
  FROM (VALUES
    ('edges: valid', pg_temp.bs_state(2, '{0,1,2}', NULL, '{0,1,1,0}', NULL, 2, 0)),
    ('edges: not increasing', pg_temp.bs_state(2, '{0,2,1}', NULL, '{0,1,1,0}', NULL, 2, 0)),
    ('edges: repeated', pg_temp.bs_state(2, '{0,1,1}', NULL, '{0,1,1,0}', NULL, 2, 0)),
    ('edges: infinite', pg_temp.bs_state(2, '{0,1,Infinity}', NULL, '{0,1,1,0}', NULL, 2, 0)),
    ('edges: one', pg_temp.bs_state(2, '{0}', NULL, '{0,1}', NULL, 1, 0)),
    ('edges: one slot too few', pg_temp.bs_state(2, '{0,1,2}', NULL, '{1,1,0}', NULL, 2, 0)),
    ('edges: with a weight', pg_temp.bs_state(2, '{0,1,2}', NULL, '{0,1,1,0}', NULL, 2, 1)),
    ('cdf: valid', pg_temp.bs_state(3, '{1,2}', '{2,1,2}', '{1,1,1}', NULL, 3, 0)),
    ('cdf: thresholds not sorted', pg_temp.bs_state(3, '{2,1}', '{2,1,2}', '{1,1,1}', NULL, 3, 0)),
    ('cdf: sorted not the given', pg_temp.bs_state(3, '{1,3}', '{2,1,2}', '{1,1,1}', NULL, 3, 0)),
    ('cdf: -0 sorted', pg_temp.bs_state(3, '{-0}', '{-0}', '{1,1}', NULL, 2, 0)),
    ('cdf: -0 given', pg_temp.bs_state(3, '{0}', '{-0}', '{1,1}', NULL, 2, 0)),
    ('cdf: NaN', pg_temp.bs_state(3, '{NaN}', '{NaN}', '{1,1}', NULL, 2, 0)),
    ('cdf: none given', pg_temp.bs_state(3, '{}', NULL, '{1}', NULL, 1, 0)),
    ('wcdf: valid', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{0.5,0.5}', 2, 1)),
    ('wcdf: weights do not add up', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{0.5,0.5}', 2, 2)),
    ('wcdf: negative weight', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{-0.5,1.5}', 2, 1)),
    ('wcdf: -0 weight', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{-0,1}', 2, 1)),
    ('wcdf: NaN weight', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{NaN,1}', 2, 1)),
    ('wcdf: infinite total', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{Infinity,1}', 2, 'Infinity')),
    ('wcdf: weights missing', pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', NULL, 2, 1)),
    ('bins: -0 total weight', overlay(:'bs'::bytea PLACING float8send('-0') FROM 25 FOR 8))
  ) v(label, b);
-- Whole texts.
SELECT label, pg_temp.gist(pg_temp.bs_in(t)) AS result
  FROM (VALUES
    ('empty', ''),
    ('v1: alone', 'v1:'),
    ('upper case V1:', 'V' || substr(pg_temp.bs_text(:'bs'), 2)),
    ('upper-case digits', 'v1:' || upper(encode(:'bs'::bytea, 'hex'))),
    ('v2:', 'v2:' || encode(:'bs'::bytea, 'hex')),
    ('v01:', 'v01:' || encode(:'bs'::bytea, 'hex')),
    ('v1 without colon', 'v1' || encode(:'bs'::bytea, 'hex')),
    ('leading space', ' ' || pg_temp.bs_text(:'bs')),
    ('trailing space', pg_temp.bs_text(:'bs') || ' '),
    ('trailing newline', pg_temp.bs_text(:'bs') || E'\n'),
    ('space between digit pairs', 'v1:01 ' || substr(encode(:'bs'::bytea, 'hex'), 3)),
    ('\x prefix', 'v1:\x' || encode(:'bs'::bytea, 'hex')),
    ('fullwidth digit', 'v1:' || U&'\FF10' || substr(encode(:'bs'::bytea, 'hex'), 2)),
    ('odd digits', left(pg_temp.bs_text(:'bs'), -1)),
    ('a digit too many', pg_temp.bs_text(:'bs') || '0'),
    ('100,000 zeros', 'v1:' || repeat('0', 100000)),
    ('old sketch text', 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='),
    ('an array', '{0,1,0,1}')
  ) v(label, t);
-- Sent bytes read back as the same value, and the support functions on
-- stored values: combine only inside an aggregate, the finals on any state.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('send then receive', format($$SELECT pg_temp.copy_binary('bs_bin', acmetrace.bins_state_send(%L)) = %L$$,
                                 pg_temp.bs_text(:'bs'), pg_temp.bs_text(:'bs'))),
    ('_bins_combine outside an aggregate', format($$SELECT acmetrace_internal.bins_combine(%L, %L)$$, pg_temp.bs_text(:'bs'), pg_temp.bs_text(:'bs'))),
    ('_bins_combine(NULL, NULL)', $$SELECT acmetrace_internal.bins_combine(NULL, NULL) IS NULL$$),
    ('_bins_trans outside an aggregate', format($$SELECT acmetrace_internal.bins_trans(%L, 1, 0, 10, 2)$$, pg_temp.bs_text(:'bs'))),
    ('_bins_final', format($$SELECT acmetrace_internal.bins_final(%L)$$, pg_temp.bs_text(:'bs'))),
    ('_bins_final(NULL)', $$SELECT acmetrace_internal.bins_final(NULL) IS NULL$$),
    ('_bins_cdf_final of bins', format($$SELECT acmetrace_internal.bins_cdf_final(%L)$$, pg_temp.bs_text(:'bs'))),
    ('_bins_cdf_final of wcdf', format($$SELECT acmetrace_internal.bins_cdf_final(%L)$$,
                                       pg_temp.bs_text(pg_temp.bs_state(4, '{1}', '{1}', '{1,1}', '{0.5,0.5}', 2, 1)))),
    ('bins_state_recv(bytea)', $$SELECT acmetrace.bins_state_recv('\x01'::bytea) IS NULL$$)
  ) v(label, q);

-- 15. samples text input (samples_in: v1: and lower-case hexadecimal) and
-- binary receive (samples_recv, through binary COPY), both checked in full
-- by the core's at_samples_check.  The valid value: 300 samples at 15 s with
-- two gaps, integers and 3-decimal values (scale 3).
CREATE TEMP TABLE sa_bin (s acmetrace.samples);
CREATE FUNCTION pg_temp.sa_in(t text) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT (acmetrace.samples_info(%L::acmetrace.samples)).samples', t));
CREATE FUNCTION pg_temp.sa_recv(b bytea) RETURNS text LANGUAGE sql
RETURN pg_temp.try(format('SELECT (acmetrace.samples_info(pg_temp.copy_binary(%L, %L::bytea)::acmetrace.samples)).samples', 'sa_bin', b));
SELECT acmetrace.samples_send(acmetrace.samples_agg(ts, v)) AS sa
  FROM (SELECT '2023-07-01'::timestamptz + i * interval '15 s' AS ts,
               CASE WHEN i % 50 < 20 THEN 0 ELSE round((i * 7.919 % 100)::numeric, 3) END::float8 AS v
          FROM generate_series(0, 309) i WHERE i NOT IN (17, 200, 201, 202, 203, 204, 205, 206, 207, 208)) x \gset
SELECT length(:'sa'::bytea) AS bytes, pg_temp.sa_recv(:'sa') AS valid_base,
       pg_temp.sa_in('v1:' || encode(:'sa'::bytea, 'hex')) = pg_temp.sa_recv(:'sa') AS same_as_text;
-- Cut at every length: no prefix is a block.
SELECT pg_temp.gist(pg_temp.sa_recv(substr(:'sa'::bytea, 1, k))) AS cut_bytes, count(*) AS lengths
  FROM generate_series(0, length(:'sa'::bytea) - 1) k GROUP BY 1 ORDER BY 1;
SELECT pg_temp.gist(pg_temp.sa_in(left('v1:' || encode(:'sa'::bytea, 'hex'), k))) AS cut_text, count(*) AS lengths
  FROM generate_series(0, 2 * length(:'sa'::bytea) + 2) k GROUP BY 1 ORDER BY 1;
-- Every byte in turn set to 0x00, 0x01, 0x7f, 0x80 and 0xff: refused, or a
-- valid block of its own; the text form of each agrees with its bytes.
SELECT pg_temp.kind(r) AS result, count(*) AS mutants,
       bool_and(CASE WHEN r LIKE 'ok:%' THEN t = r
                     ELSE regexp_replace(r, '^ERROR 22P03: invalid samples: (.*) \(The value is \d+ bytes long\.\)$', '\1')
                        = regexp_replace(t, '^ERROR 22P02: invalid input syntax for type samples: (.*) \(At character \d+\.\)$', '\1')
                END) AS text_agrees
  FROM (SELECT pg_temp.sa_recv(b) AS r, pg_temp.sa_in('v1:' || encode(b, 'hex')) AS t
          FROM (SELECT set_byte(:'sa'::bytea, pos, v) AS b
                  FROM generate_series(0, length(:'sa'::bytea) - 1) pos, unnest('{0,1,127,128,255}'::int[]) v
                 WHERE get_byte(:'sa'::bytea, pos) <> v) c) p
 GROUP BY 1 ORDER BY 1;
-- A block with value counts (1,200 integers in 0..100): every byte of the
-- header's sizes and of the counts section mutated.
SELECT acmetrace.samples_send(acmetrace.samples_agg('2023-07-01'::timestamptz + i * interval '15 s', (i * 7 % 101)::float8)) AS sc
  FROM generate_series(0, 1199) i \gset
SELECT pg_temp.kind(pg_temp.sa_recv(b)) AS counted_result, count(*) AS mutants
  FROM (SELECT set_byte(:'sc'::bytea, pos, v) AS b
          FROM generate_series(40, 48 + 4 + get_byte(:'sc'::bytea, 44) + 256 * get_byte(:'sc'::bytea, 45)) pos,
               unnest('{0,1,127,128,255}'::int[]) v
         WHERE get_byte(:'sc'::bytea, pos) <> v) c
 GROUP BY 1 ORDER BY 1;
-- Text that is not hexadecimal, upper case, odd, or another version.
SELECT label, pg_temp.sa_in(t) AS result
  FROM (VALUES ('empty', ''), ('prefix only', 'v1:'), ('v2', 'v2:' || encode(:'sa'::bytea, 'hex')),
               ('upper case', 'v1:' || upper(encode(:'sa'::bytea, 'hex'))),
               ('odd digits', 'v1:' || encode(:'sa'::bytea, 'hex') || '0'),
               ('a space', 'v1: ' || encode(:'sa'::bytea, 'hex')),
               ('a trailing byte', 'v1:' || encode(:'sa'::bytea, 'hex') || '00'),
               ('48 zero bytes', 'v1:' || repeat('00', 48)),
               ('1 MB of ff', 'v1:' || repeat('ff', 1000000))) v(label, t);
-- The functions on blocks: windows, NULLs, the aggregates' support
-- functions outside an aggregate.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('samples_between, to before from', format($$SELECT acmetrace.samples_between(%L, '2023-07-02', '2023-07-01') IS NULL$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('samples_between, -infinity to infinity', format($$SELECT (acmetrace.samples_info(acmetrace.samples_between(%L, '-infinity', 'infinity'))).samples$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('samples_between, one sample', format($$SELECT (acmetrace.samples_info(acmetrace.samples_between(%L, '2023-07-01 00:00:30', '2023-07-01 00:00:31'))).samples$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('samples_between(NULL, ...)', $$SELECT acmetrace.samples_between(NULL, now(), now()) IS NULL$$),
    ('unnest count', format($$SELECT count(*) FROM acmetrace.unnest(%L::acmetrace.samples)$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('_samples_trans outside an aggregate', $$SELECT acmetrace_internal.samples_trans(NULL, now(), 1)$$),
    ('_samples_combine outside an aggregate', format($$SELECT acmetrace_internal.samples_combine(%L, %L)$$, 'v1:' || encode(:'sa'::bytea, 'hex'), 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('_samples_combine(NULL, NULL)', $$SELECT acmetrace_internal.samples_combine(NULL, NULL) IS NULL$$),
    ('_bins_samples_trans outside an aggregate', format($$SELECT acmetrace_internal.bins_samples_trans(NULL, %L, 0, 10, 2)$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('_sketch_samples_trans outside an aggregate', format($$SELECT acmetrace_internal.sketch_samples_trans(NULL, %L)$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('_samples_sum', format($$SELECT acmetrace_internal.samples_sum(%L)$$, 'v1:' || encode(:'sa'::bytea, 'hex'))),
    ('samples_recv(bytea)', $$SELECT acmetrace.samples_recv('\x01'::bytea) IS NULL$$),
    ('samples_agg of 2 values at one time', $$SELECT acmetrace.samples_agg(t, v) FROM (VALUES ('2023-07-01'::timestamptz, 1.0::float8), ('2023-07-01', 2.0)) x(t, v)$$),
    ('samples_agg, times far apart', $$SELECT (acmetrace.samples_info(acmetrace.samples_agg(t, 1))).samples FROM (VALUES ('4713-01-01 BC'::timestamptz), ('294276-12-31'), ('2000-01-01')) x(t)$$),
    ('samples_agg, extreme values', $$SELECT acmetrace.unnest(acmetrace.samples_agg(t, v))::text FROM (VALUES ('2000-01-01'::timestamptz, 1.7976931348623157e308::float8), ('2000-01-02', -1.7976931348623157e308), ('2000-01-03', 5e-324)) x(t, v) LIMIT 1$$)
  ) v(label, q);
-- The loader: lines a file could hold (a series of its own per case: the
-- cases that load stay loaded).
SET acmetrace.metric = 'GPU_UTIL';
SET acmetrace.cluster = 'hostile';
SELECT label, pg_temp.try(format('INSERT INTO acmetrace.utilization_lines SELECT unnest(%L::text[]) RETURNING 1', lines)) AS result
  FROM (VALUES
    ('100,000 columns', ARRAY['Time,' || (SELECT string_agg('c' || i, ',') FROM generate_series(1, 100000) i),
                              '2023-07-01 00:00:00+00' || repeat(',1', 100000)]),
    ('a 256-byte column name', ARRAY['Time,' || repeat('x', 256), '2023-07-01 00:00:00+00,1']),
    ('a 10 MB line', ARRAY['Time,h1', '2023-07-01 00:00:00+00,' || repeat('1', 10000000)]),
    ('epoch with 40 digits', ARRAY['Time,h2', repeat('9', 40) || ',1']),
    ('epoch past the range', ARRAY['Time,h3', '9300000000000,1']),
    ('epoch -1.5', ARRAY['Time,h4', '-1.5,1']),
    ('a lone minus', ARRAY['Time,h5', '-,1']),
    ('an empty time', ARRAY['Time,h6', ',1']),
    ('time infinity', ARRAY['Time,h7', 'infinity,1']),
    ('1e400', ARRAY['Time,h8', '2023-07-01 00:00:00+00,1e400']),
    ('hexadecimal', ARRAY['Time,h9', '2023-07-01 00:00:00+00,0x10']),
    ('blanks around', ARRAY['Time,h10', '2023-07-01 00:00:00+00, 5 ']),
    ('quoted cell with a comma', ARRAY['Time,qa,qb', '2023-07-01 00:00:00+00,"1,5",2']),
    ('unterminated quote', ARRAY['Time,h11', '2023-07-01 00:00:00+00,"1']),
    ('a header only', ARRAY['Time,h12']),
    ('duplicate column names', ARRAY['Time,dup,dup', '2023-07-01 00:00:00+00,1,2']),
    ('16-digit value', ARRAY['Time,h13', '2023-07-01 00:00:00+00,1234567890123456']),
    ('20 decimals', ARRAY['Time,h14', '2023-07-01 00:00:00+00,0.12345678901234567890'])
  ) v(label, lines);
RESET acmetrace.metric;
RESET acmetrace.cluster;

-- 16. The surface's checks (acmetrace_internal, usable by every role): the
-- error raiser, the cluster check, the settings reader, the fraction check
-- and the rounding, on hostile arguments.
SELECT label, pg_temp.try(q) AS result
  FROM (VALUES
    ('raise(NULL, NULL)', $$SELECT acmetrace_internal.raise(NULL, NULL)$$),
    ('raise empty code', $$SELECT acmetrace_internal.raise('', 'm')$$),
    ('raise lower case', $$SELECT acmetrace_internal.raise('22p02', 'm')$$),
    ('raise 4 characters', $$SELECT acmetrace_internal.raise('2202', 'm')$$),
    ('raise 6 characters', $$SELECT acmetrace_internal.raise('220230', 'm')$$),
    ('raise success class', $$SELECT acmetrace_internal.raise('00000', 'm')$$),
    ('raise warning class', $$SELECT acmetrace_internal.raise('01000', 'm')$$),
    ('raise no-data class', $$SELECT acmetrace_internal.raise('02000', 'm')$$),
    ('raise NULL message, hint, detail', $$SELECT acmetrace_internal.raise('22023', NULL, NULL, NULL)$$),
    ('raise format directives', $$SELECT acmetrace_internal.raise('22023', '%s %n %1$s', '%d %%')$$),
    ('raise 1 MB message', $$SELECT acmetrace_internal.raise('22023', repeat('m', 1000000))$$),
    ('known_cluster(NULL, NULL)', $$SELECT acmetrace_internal.known_cluster(NULL, NULL)$$),
    ('known_cluster metric NULL', $$SELECT acmetrace_internal.known_cluster('g', NULL)$$),
    ('known_cluster 100,000-character metric', $$SELECT acmetrace_internal.known_cluster('g', repeat('m', 100000))$$),
    ('known_cluster quotes', $$SELECT acmetrace_internal.known_cluster($q$g'; --$q$, $q$m'); --$q$)$$),
    ('setting(NULL)', $$SELECT acmetrace_internal.setting(NULL) IS NULL$$),
    ('setting of another prefix', $$SELECT acmetrace_internal.setting('work_mem')$$),
    ('setting empty', $$SELECT acmetrace_internal.setting('')$$),
    ('setting acmetrace.cluster', $$SELECT coalesce(acmetrace_internal.setting('acmetrace.cluster'), 'unset')$$),
    ('check_fractions(NULL)', $$SELECT acmetrace_internal.check_fractions(NULL)$$),
    ('check_fractions empty', $$SELECT acmetrace_internal.check_fractions('{}')$$),
    ('check_fractions NULL element', $$SELECT acmetrace_internal.check_fractions('{NULL,0.5}')$$),
    ('check_fractions NaN', $$SELECT acmetrace_internal.check_fractions('{NaN}')$$),
    ('check_fractions -0', $$SELECT acmetrace_internal.check_fractions('{-0}')$$),
    ('check_fractions 2-D', $$SELECT acmetrace_internal.check_fractions('{{0.5,1},{0,2}}')$$),
    ('sig3 NaN', $$SELECT acmetrace_internal.sig3('NaN')$$),
    ('sig3 -Infinity', $$SELECT acmetrace_internal.sig3('-Infinity')$$),
    ('sig3 largest', $$SELECT length(acmetrace_internal.sig3(1.7976931348623157e308)::text)$$),
    ('sig3 smallest', $$SELECT acmetrace_internal.sig3(5e-324)$$),
    ('pct of 0', $$SELECT acmetrace_internal.pct(1, 0) IS NULL$$),
    ('pct huge', $$SELECT length(acmetrace_internal.pct(1e300, 1e-300)::text)$$)
  ) v(label, q);

-- Every case above gave a result or an ERROR with a proper SQLSTATE.
SELECT count(*) AS cases, count(*) FILTER (WHERE result LIKE 'ok%') AS ok,
       count(*) FILTER (WHERE result LIKE 'ERROR%') AS errors,
       count(*) FILTER (WHERE result LIKE 'ERROR XX%') AS internal_errors
  FROM tried;
SELECT 1 AS server_still_up;

DISCARD TEMP;
DROP TABLE hostile_vals, hostile_sketches;
DROP EXTENSION acmetrace;
