-- Final states, GPU time lost, cancellations by queue, box plots, audit.
SELECT * FROM acmetrace.state_by_type(NULL)
 ORDER BY cluster COLLATE "C", type COLLATE "C", final_state COLLATE "C";
SELECT * FROM acmetrace.gpu_num_boxplot(NULL) ORDER BY cluster COLLATE "C", type COLLATE "C";
SELECT * FROM acmetrace.cancelled_by_queue(NULL, NULL) ORDER BY cluster COLLATE "C", bin;
SELECT * FROM acmetrace.gpu_time_lost_weekly(NULL) ORDER BY cluster COLLATE "C", week;
SELECT cluster, anomaly, jobs, example_job_ids FROM acmetrace.audit()
 ORDER BY cluster COLLATE "C", anomaly COLLATE "C";
