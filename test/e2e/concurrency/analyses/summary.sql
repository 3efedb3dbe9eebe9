-- Analyst script (pgbench -f) and part of the serial comparison (psql -f):
-- the dataset's cluster summary, rounded and unrounded, and the comparison
-- of datacenters.  Plain SQL only, every result in a fixed order.
SELECT * FROM acmetrace.cluster_summary() ORDER BY cluster COLLATE "C";
SELECT * FROM acmetrace.cluster_summary(NULL, NULL) ORDER BY cluster COLLATE "C";
SELECT * FROM acmetrace.trace_comparison() ORDER BY cluster COLLATE "C";
