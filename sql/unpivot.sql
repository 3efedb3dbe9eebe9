-- acmetrace.unpivot and the utilization loader.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- Cells: numbers, blanks, NA/NaN skipped, quotes, CRLF, trailing comma.
SELECT * FROM acmetrace.unpivot('Time,a,b,c', '2023-07-01 08:00:00+08:00,1.5,,NA');
SELECT * FROM acmetrace.unpivot('Time,a,b,c', E'2023-07-01 08:00:00+08:00,"2",NaN,-3e2\r\n');
SELECT * FROM acmetrace.unpivot('Time,"x,y",b', '2023-07-01 00:00:00+00,7,8,');
SELECT count(*) FROM acmetrace.unpivot(NULL, '2023-07-01 00:00:00+00,1');
SELECT count(*) FROM acmetrace.unpivot('Time,a', NULL);

-- A key column (Philly's machineId) names the machine: its cells are not
-- values, and series are <key>/<column>, wherever the column stands.
SELECT * FROM acmetrace.unpivot('time,machineId,gpu0_util,gpu1_util', '2017-10-03 00:08:00 PST,m7,NA,12.5,', 'machineId');
SELECT * FROM acmetrace.unpivot('time,gpu0_util,host,gpu1_util', '2017-10-03 00:08:00 PST,1,m8,2', 'host');
-- Without one, every column is a series: machineId's "m7" is no number.
SELECT * FROM acmetrace.unpivot('time,machineId,gpu0_util', '2017-10-03 00:08:00 PST,m7,1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('time,machineId,gpu0_util', '2017-10-03 00:08:00 PST,m7,1', NULL);
\echo :LAST_ERROR_SQLSTATE
-- A key that is not a value column of the header, or the only one.
SELECT * FROM acmetrace.unpivot('time,machineId,gpu0_util', '2017-10-03 00:08:00 PST,m7,1', 'machineid');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('time,machineId,gpu0_util', '2017-10-03 00:08:00 PST,m7,1', 'time');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('time,machineId', '2017-10-03 00:08:00 PST,m7', 'machineId');
\echo :LAST_ERROR_SQLSTATE
-- The cache follows the key argument as well as the header.
SELECT v.k, u.* FROM (VALUES ('machineId'), (NULL), ('machineId')) v(k),
     acmetrace.unpivot('time,machineId,gpu0_util', '2017-10-03 00:08:00 PST,7,1', v.k) u;

-- Two headers in one query: the cache follows the header argument.
SELECT h, u.* FROM (VALUES ('Time,a,b', '2023-07-01 00:00:00+00,1,2'), ('Time,c', '2023-07-01 00:00:00+00,3'),
                           ('Time,a,b', '2023-07-01 00:00:15+00,4,5')) v(h, l),
     acmetrace.unpivot(v.h, v.l) u;

-- Errors, each with its SQLSTATE.
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,1,2,3,4,5');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,1,"2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,"1"x,2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,1,inf');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-07-01 00:00:00+00,1,0x10');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,b', 'yesterday-ish,1,2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time', '2023-07-01 00:00:00+00');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,a,', '2023-07-01 00:00:00+00,1,2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('Time,"a', '2023-07-01 00:00:00+00,1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.unpivot('', '');
\echo :LAST_ERROR_SQLSTATE

-- The loader: the fixtures, with metric and cluster from settings.
SET acmetrace.cluster = 'seren';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SET acmetrace.cluster = 'philly';
SET acmetrace.metric = 'gpu_util';
\copy acmetrace.utilization_lines FROM 'philly_cluster_gpu_util_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT metric, cluster, count(*), count(DISTINCT series) AS series, min(ts), round(avg(value)::numeric, 3) AS avg
  FROM acmetrace.utilization GROUP BY 1, 2 ORDER BY 1;
SELECT metric, cluster, ts, series, value FROM acmetrace.utilization WHERE cluster = 'philly' ORDER BY series;
SELECT value FROM acmetrace.utilization WHERE series IN ('10.140.1.10', '10.140.0.171') ORDER BY series DESC;
SELECT count(*) AS staged FROM acmetrace.utilization_lines;

-- Loader errors leave everything as it was.
SELECT count(*) AS rows_before FROM acmetrace.utilization \gset
RESET acmetrace.metric;
\copy acmetrace.utilization_lines FROM 'philly_cluster_gpu_util_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SET acmetrace.metric = 'gpu_util';
SET acmetrace.cluster = 'Philly';
\copy acmetrace.utilization_lines FROM 'philly_cluster_gpu_util_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SET acmetrace.cluster = 'philly';
INSERT INTO acmetrace.utilization_lines VALUES ('2017-10-03 00:08:00 PDT,m29,1,2,3,4,5,6,7,8,');
INSERT INTO acmetrace.utilization_lines VALUES ('time,machineId,gpu0_util,gpu1_util'), ('2017-10-03 00:08:00 PDT,m29,1'), ('2017-10-03 00:09:00 PDT,m29,1,2');
INSERT INTO acmetrace.utilization_lines VALUES ('time,machineId,gpu0_util'), ('2017-10-03 00:08:00 PDT,m29,1'), ('2017-10-03 00:09:00 PDT,m29,x');
SELECT count(*) = :rows_before AS unchanged FROM acmetrace.utilization;
SELECT count(*) AS staged FROM acmetrace.utilization_lines;
-- A repeated header and blank lines are skipped.
INSERT INTO acmetrace.utilization_lines VALUES ('time,machineId,gpu0_util'), ('2017-10-03 00:08:00 PDT,m30,1'), (''),
  ('time,machineId,gpu0_util'), (NULL), ('2017-10-03 00:09:00 PDT,m30,2');
SELECT ts, series, value FROM acmetrace.utilization WHERE series LIKE 'm30/%' ORDER BY ts;

-- Generated wide lines unpivot back to their cells.
WITH lines AS (SELECT row_number() OVER () AS n, line FROM acmetrace.generate_util(50, 20, 3, blank_share => 0.2) line)
SELECT count(*) AS cells,
       count(*) = (SELECT sum(array_length(string_to_array(line, ','), 1) - 1
                              - (array_length(string_to_array(line, ','), 1)
                                 - array_length(array_remove(string_to_array(line, ','), ''), 1)))
                     FROM lines WHERE n > 1) AS matches_nonblank_cells
  FROM lines, acmetrace.unpivot((SELECT line FROM lines WHERE n = 1), lines.line) u
 WHERE n > 1;

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
