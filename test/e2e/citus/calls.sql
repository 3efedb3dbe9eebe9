-- test/e2e/citus.sh: one query per line, run on the Citus coordinator and on
-- one server loaded the same way; their outputs must be equal as text
-- (sorted first for a line starting with "-- any order" above it).  Every
-- public function, aggregate and view of the extension must be named here
-- (the script checks against the catalog).
SELECT acmetrace.version() IS NOT NULL
-- the standard analyses, one cluster and all
SELECT * FROM acmetrace.cluster_summary()
SELECT * FROM acmetrace.cluster_summary('synth', 4)
SELECT * FROM acmetrace.state_breakdown()
SELECT * FROM acmetrace.state_breakdown('synth', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.state_by_type('synth')
SELECT * FROM acmetrace.state_by_type('acmetest', '2020-01-01', '2030-01-01')
SELECT * FROM acmetrace.type_distribution()
SELECT * FROM acmetrace.type_distribution('synth', '2023-03-01', NULL)
SELECT * FROM acmetrace.gpu_num_boxplot()
SELECT * FROM acmetrace.gpu_num_boxplot('synth', NULL, '2023-03-02')
SELECT * FROM acmetrace.cancelled_by_queue()
SELECT * FROM acmetrace.cancelled_by_queue('synth', 'Eval', 60, 600, true)
SELECT * FROM acmetrace.gpu_time_lost()
SELECT * FROM acmetrace.gpu_time_lost('synth', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.gpu_time_lost_weekly()
SELECT * FROM acmetrace.gpu_time_lost_weekly('synth', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.queue_percentiles()
SELECT * FROM acmetrace.queue_percentiles('synth', '{0.5,0.99}', true, '2023-03-01', '2023-03-02')
SELECT acmetrace.queue_sketch('synth')::text
SELECT acmetrace.queue_sketch(NULL, 'Eval', true)::text
SELECT * FROM acmetrace.queue_by_occupancy()
SELECT * FROM acmetrace.queue_by_occupancy('synth', 5, 'start', 1000, true)
SELECT * FROM acmetrace.duration_cdf()
SELECT * FROM acmetrace.duration_cdf('synth', '{60,3600}', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.queue_cdf()
SELECT * FROM acmetrace.queue_cdf('synth', '{0,60,600}', true, NULL, '2023-03-02')
SELECT * FROM acmetrace.gpu_num_cdf()
SELECT * FROM acmetrace.gpu_num_cdf('synth', '{1,8,64}', '2023-03-01', NULL)
SELECT * FROM acmetrace.failure_taxonomy()
SELECT * FROM acmetrace.failure_taxonomy('acmetest', '2020-01-01', '2030-01-01')
SELECT * FROM acmetrace.trace_comparison()
SELECT * FROM acmetrace.trace_comparison('philly')
SELECT * FROM acmetrace.util_cdf()
SELECT * FROM acmetrace.util_cdf('seren', 'NODE_CPU_UTILIZATION', '{10,50,90}')
SELECT * FROM acmetrace.util_histogram()
SELECT * FROM acmetrace.util_histogram('philly', 'GPU_UTIL', 4)
SELECT * FROM acmetrace.util_polarization()
SELECT * FROM acmetrace.util_polarization('synth', 'GPU_UTIL')
SELECT * FROM acmetrace.job_utilization('synth')
SELECT * FROM acmetrace.job_utilization('acmetest')
SELECT * FROM acmetrace.usage_by_user()
SELECT * FROM acmetrace.usage_by_user('synth', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.usage_by_group()
SELECT * FROM acmetrace.usage_by_group('acmetest', NULL, NULL, 'account')
SELECT * FROM acmetrace.period_summary()
SELECT * FROM acmetrace.period_summary('synth', '2023-03-01', '2023-03-02')
SELECT * FROM acmetrace.audit_checks()
SELECT * FROM acmetrace.audit()
SELECT * FROM acmetrace.audit('synth', 0, 2)
-- predictions and what-if replay
SELECT * FROM acmetrace.job_feature_names()
SELECT * FROM acmetrace.job_features('synth') ORDER BY job_id LIMIT 100
SELECT * FROM acmetrace.predict_history('synth', 5) ORDER BY job_id LIMIT 100
SELECT count(*), sum(predicted_s), sum(in_training::int) FROM acmetrace.predict_gbdt('synth', '2023-03-02 12:00', 10, 3)
SELECT * FROM acmetrace.prediction_error('synth', '2023-03-02 12:00'::timestamptz, NULL, 10, NULL, 10, 3)
SELECT * FROM acmetrace.prediction_error('synth', '2023-03-02 12:00', NULL, 10, '{history}', 10, 3)
SELECT acmetrace.gbdt_info(acmetrace.gbdt_train(f.features, f.run_s::float8)) FROM acmetrace.job_features('synth') f WHERE f.run_s IS NOT NULL
SELECT acmetrace.gbdt_predict(acmetrace.gbdt_train(f.features, f.run_s::float8, 5, 3, 0.3), '{1,2,3,4,5,6,7,8,9,10,11,12,13,14}') FROM acmetrace.job_features('synth') f WHERE f.run_s IS NOT NULL
SELECT count(*), md5(string_agg(r::text, ',' ORDER BY r::text)) FROM acmetrace.replay('synth', 'fifo') r
SELECT count(*), md5(string_agg(r::text, ',' ORDER BY r::text)) FROM acmetrace.replay('synth', 'sjf', 2000, true) r
SELECT * FROM acmetrace.replay_summary('synth', 'fifo')
SELECT * FROM acmetrace.replay_summary('acmetest', 'sjf', 8, false)
-- exports
SELECT md5(string_agg(t::text, E'\n' ORDER BY t::text)) FROM acmetrace.trace_seren_csv('synth') t
SELECT * FROM acmetrace.trace_seren_csv('seren')
SELECT * FROM acmetrace.trace_kalos_csv('kalos')
SELECT * FROM acmetrace.helios_cluster_log_csv('helios')
-- aggregates over the distributed tables: split into partial and combine
SELECT acmetrace.percentiles(acmetrace.delay_sketch_agg(wait_s), '{0.5,0.9,0.99}') FROM acmetrace.jobs
SELECT cluster, acmetrace.percentile(s, 0.5), acmetrace.rank_pct(s, 600), acmetrace.count(s), acmetrace.mean(s), acmetrace.min(s), acmetrace.max(s), acmetrace.relative_error(s) FROM (SELECT cluster, acmetrace.delay_sketch_agg(run_s, 0.01) AS s FROM acmetrace.jobs GROUP BY cluster) x ORDER BY 1
SELECT acmetrace.rollup(s)::text FROM (SELECT cluster, acmetrace.delay_sketch_agg(wait_s) AS s FROM acmetrace.jobs GROUP BY cluster) x
SELECT acmetrace.peak(o), acmetrace.gpus_at(o, '2023-03-01 12:00'), acmetrace.mean_gpus(o, '2023-03-01', '2023-03-02'), acmetrace.allocation_pct(o, 2288, '2023-03-01', '2023-03-02') FROM (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS o FROM acmetrace.jobs WHERE cluster = 'synth') x
SELECT (acmetrace.occupancy_steps(o)).* FROM (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS o FROM acmetrace.jobs) x LIMIT 200
SELECT (acmetrace.occupancy_levels(o, '2023-03-01', '2023-03-01 06:00')).* FROM (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS o FROM acmetrace.jobs WHERE cluster = 'synth') x
SELECT (acmetrace.occupancy_time_bins(o, 0, 2288, 8, '2023-03-01', '2023-03-02')).* FROM (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS o FROM acmetrace.jobs WHERE cluster = 'synth') x
SELECT cluster, acmetrace.occupancy_eq(acmetrace.rollup(o), acmetrace.rollup(o)), acmetrace.peak(acmetrace.rollup(o)), acmetrace.occupancy_ne(acmetrace.rollup(o), acmetrace.rollup(o)) FROM (SELECT cluster, acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS o FROM acmetrace.jobs GROUP BY cluster) x GROUP BY cluster ORDER BY 1
SELECT acmetrace.bins(run_s::float8, 0, 86400, 12)::text, acmetrace.bins_at(run_s::float8, acmetrace.powers_of_two(0, 20))::text, acmetrace.cdf_at(wait_s::float8, acmetrace.steps(0, 3600, 600))::text FROM acmetrace.jobs
SELECT acmetrace.weighted_cdf_at(run_s::float8, gpu_num, '{60,600,3600}')::text FROM acmetrace.jobs WHERE gpu_num > 0
SELECT * FROM acmetrace.bin_rows((SELECT acmetrace.bins(run_s::float8, 0, 86400, 6) FROM acmetrace.jobs), 0, 86400)
SELECT * FROM acmetrace.bin_rows((SELECT acmetrace.bins_at(wait_s::float8, '{0,10,100}') FROM acmetrace.jobs), '{0,10,100}')
SELECT series, acmetrace.samples_info(samples) FROM acmetrace.utilization_blocks WHERE cluster = 'synth' ORDER BY series LIMIT 5
SELECT count(*), sum(value) FROM acmetrace.utilization_blocks b, acmetrace.unnest(b.samples) WHERE b.cluster = 'synth'
SELECT series, acmetrace.samples_between(samples, '2023-03-01 06:00+00', '2023-03-01 07:00+00')::text FROM acmetrace.utilization_blocks WHERE cluster = 'synth' ORDER BY series LIMIT 5
SELECT acmetrace.samples_agg(ts, value)::text FROM acmetrace.utilization WHERE cluster = 'seren' AND series = (SELECT min(series) FROM acmetrace.utilization_blocks WHERE cluster = 'seren')
SELECT acmetrace.bins(samples, 0, 100, 10)::text, acmetrace.bins_at(samples, '{1,50,99}')::text, acmetrace.cdf_at(samples, '{1,50,99}')::text FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL'
SELECT acmetrace.percentiles(acmetrace.delay_sketch_agg(samples), '{0.1,0.5,0.9}'), acmetrace.percentiles(acmetrace.delay_sketch_agg(samples, 0.02), '{0.5}') FROM acmetrace.utilization_blocks WHERE metric = 'GPU_UTIL'
SELECT cluster, acmetrace.bins(samples, 0, 100, 4)::text FROM acmetrace.utilization_blocks GROUP BY cluster ORDER BY 1
-- functions of no table, here so that every public name is covered
SELECT * FROM acmetrace.unpivot('Time,a,b', '2023-03-01 00:00:00+08:00,1,2')
SELECT count(*), md5(string_agg(j::text, ',' ORDER BY j::text)) FROM acmetrace.generate_jobs('seren', 500, 3) j
SELECT count(*), sum(length(l)) FROM acmetrace.generate_util(8, 50, 1, '2023-03-01 00:00+00', 60) l
SELECT count(*), sum(length(l)) FROM acmetrace.generate_util('seren', 200, 1, 'GPU_UTIL', '2023-03-01 00:00+00', 20) l
SELECT count(*), md5(string_agg(p::text, ',' ORDER BY p::text)) FROM acmetrace.generate_placement('seren', 300, 2) p
-- the views
-- any order
SELECT * FROM acmetrace.utilization WHERE cluster = 'synth' AND ts < '2023-03-01 01:00+00'
-- any order
SELECT * FROM acmetrace.utilization_series
SELECT * FROM acmetrace.v_cancelled_by_queue_eval
SELECT * FROM acmetrace.v_cluster_summary
-- any order
SELECT * FROM acmetrace.v_daily_jobs
-- any order
SELECT * FROM acmetrace.v_daily_queue
SELECT * FROM acmetrace.v_duration_cdf
SELECT * FROM acmetrace.v_failure_taxonomy
SELECT * FROM acmetrace.v_gpu_num_boxplot
SELECT * FROM acmetrace.v_gpu_num_cdf
SELECT * FROM acmetrace.v_gpu_time_lost
SELECT * FROM acmetrace.v_gpu_time_lost_weekly
-- any order
SELECT * FROM acmetrace.v_hourly_allocation
-- any order
SELECT * FROM acmetrace.v_hourly_utilization
SELECT * FROM acmetrace.v_job_utilization
SELECT * FROM acmetrace.v_queue_by_occupancy
SELECT * FROM acmetrace.v_queue_cdf
SELECT * FROM acmetrace.v_queue_percentiles
SELECT * FROM acmetrace.v_state_breakdown
SELECT * FROM acmetrace.v_state_by_type
SELECT * FROM acmetrace.v_trace_comparison
SELECT * FROM acmetrace.v_type_distribution
SELECT * FROM acmetrace.v_usage_by_group
SELECT * FROM acmetrace.v_usage_by_user
SELECT * FROM acmetrace.v_util_histogram
-- the cluster grants (row-level security; the owner's)
SELECT acmetrace.grant_cluster('synth', 'public')
SELECT acmetrace.revoke_cluster('synth', 'public')
-- changes through the coordinator, then what they changed
SELECT acmetrace.refresh_summaries('synth')
SELECT * FROM acmetrace.state_breakdown('synth')
SELECT acmetrace.apply_job_type_rules()
SELECT acmetrace.load_generated('more', 'kalos', 3000, 9)
SELECT * FROM acmetrace.cluster_summary('more')
SELECT acmetrace.drop_cluster('helios')
SELECT acmetrace.refresh_summaries()
-- any order
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster
SELECT * FROM acmetrace.v_cluster_summary
SELECT * FROM acmetrace.v_queue_percentiles
