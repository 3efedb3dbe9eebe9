#!/usr/bin/env bash
# A full disk: a server of its own whose test database lives in a tablespace
# on a small tmpfs.  A job file, a utilization file and an acmetrace-sync
# run, each given only part of the space it needs (a filler file, or the
# tmpfs remounted smaller), fail with SQLSTATE 53100 (disk_full) and a
# message naming the file; the server keeps running, nothing of the load is
# stored, and once space is freed (filler deleted, tmpfs remounted larger)
# the same load stores exactly what it stores on a roomy disk, with
# summaries equal to a rebuild.  Needs root (mount).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/own/server.sh"
SYNC=$ROOT/bin/acmetrace-sync
JOBS=${FULL_DISK_JOBS:-20000}   # jobs in the job file and in the sacct file
MNT=''
cleanup() {
    own_server_stop
    # lazily if busy, so no mount outlives the test
    if [ -n "$MNT" ]; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; rmdir "$MNT" 2>/dev/null; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

# ---- the server and the small file system
own_server_start -c fsync=off -c autovacuum=off || { bad "full disk: cannot start a server of its own"; finish; }
MNT=$(mktemp -d "${TMPDIR:-/tmp}/acmetrace-full.XXXXXX")
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o "size=256m,uid=$(id -u postgres),mode=0700" tmpfs "$MNT" 2>"$OUT/mount.err"; then
    bad "full disk: cannot mount a tmpfs at $MNT ($( [ "$(id -u)" -eq 0 ] && cat "$OUT/mount.err" || echo 'not root'))"
    rmdir "$MNT"; MNT=''; finish
fi
ok "full disk: a 256 MB tmpfs mounted at $MNT"
mkdir "$MNT/ts" && chown postgres: "$MNT/ts" && chmod 700 "$MNT/ts"
q -c "CREATE TABLESPACE small LOCATION '$MNT/ts'" >/dev/null || { bad "CREATE TABLESPACE on the tmpfs"; finish; }

avail_kb() { df -k --output=avail "$MNT" | tail -1 | tr -d ' '; }
used_kb() { df -k --output=used "$MNT" | tail -1 | tr -d ' '; }
# leave_free KB: a filler file takes all but KB of the tmpfs
leave_free() {
    rm -f "$MNT/filler"
    fallocate -l "$(( ($(avail_kb) - $1) * 1024 ))" "$MNT/filler"
}
# what a load may write: rows of every table it touches, and checksums
state() {
    q -F ' ' -c "SELECT (SELECT count(*) FROM acmetrace.jobs), (SELECT count(*) FROM acmetrace.clusters),
                        (SELECT count(*) FROM acmetrace.slurm_jobs),
                        (SELECT count(*) FROM acmetrace.trace_seren), (SELECT count(*) FROM acmetrace.sacct_jobs),
                        (SELECT coalesce(sum(n), 0) FROM acmetrace.utilization_blocks),
                        (SELECT count(*) FROM acmetrace.utilization_hours),
                        (SELECT count(*) FROM acmetrace.sync_runs WHERE outcome = 'ok'),
                        md5((SELECT coalesce(string_agg(j::text, '|' ORDER BY cluster, job_id), '') FROM acmetrace.jobs j))" | tr -d '\n'
    echo " $(summaries_text)"
}
jobs_md5() { q -c "SELECT md5(coalesce(string_agg(j::text, '|' ORDER BY cluster, job_id), '')) FROM acmetrace.jobs j WHERE cluster = '$1'"; }
blocks_md5() { q -c "SELECT md5(coalesce(string_agg(b::text, '|' ORDER BY metric, cluster, day, series), '')) FROM acmetrace.utilization_blocks b"; }
started() { q -c "SELECT pg_postmaster_start_time()"; }
# what_failed FILE: the relation (or temporary file) the error names
what_failed() {
    local f node
    f=$(grep -m1 -oE 'file "[^"]+"' "$1" | sed 's/^file "//; s/"$//')
    case $f in
        '') echo "no file named" ;;
        *pgsql_tmp*) echo "a temporary file" ;;
        *) node=$(basename "$f" | sed -E 's/[._].*$//')
           q -c "SELECT coalesce((SELECT c.oid::regclass::text FROM pg_class c WHERE pg_relation_filenode(c.oid) = $node), 'file $f')" ;;
    esac
}
# disk_full NAME LOG: the load's error is 53100 and says so; the server runs
disk_full() {
    local msg ctx
    msg=$(grep -m1 -E 'ERROR: +53100:' "$2" | sed -E 's/^(psql:[^ ]* )?ERROR: +//')
    ctx=$(sed -n -E 's/^CONTEXT: +//p' "$2" | head -1 | cut -c1-60)
    # a short write says "wrote only 4096 of 8192 bytes" instead of ENOSPC's text
    [ -n "$msg" ] && grep -Eq 'No space left on device|HINT: +Check free disk space' "$2" &&
        ok "$1: fails with $msg (in $(what_failed "$2")${ctx:+; $ctx})" ||
        bad "$1: not the disk-full error: $(head -3 "$2" | tr '\n' ' ')"
    check_eq "$1: the server keeps running (same postmaster, a new session answers)" "$(started)" "$pm_start"
}

# ---- the files, and what each load stores on a roomy disk (pg_default)
createdb e2e_full_roomy || { bad "createdb"; finish; }
export PGDATABASE=e2e_full_roomy
q -c "CREATE EXTENSION acmetrace" -c "CREATE DATABASE e2e_full_gen" >/dev/null || { bad "CREATE EXTENSION"; finish; }
PGDATABASE=e2e_full_gen q -c "CREATE EXTENSION acmetrace" -c "SELECT acmetrace.load_generated('seren', 'seren', $JOBS, 42)" \
    -c "\\copy (SELECT * FROM acmetrace.trace_seren_csv('seren')) TO '$OUT/seren.csv' (FORMAT csv, HEADER)" >/dev/null ||
    { bad "generating the job file"; finish; }
(cd "$ROOT" && make -s genutil >/dev/null) || { bad "make genutil failed"; finish; }
"$ROOT/tools/acmetrace-genutil" --series 200 --days 3 --seed 5 -o "$OUT/gpu.csv" || { bad "generating gpu.csv failed"; finish; }
cells=$(awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "") n++ } END { print n + 0 }' "$OUT/gpu.csv")
# a sacct file of JOBS jobs (test/e2e/sync.sh's format), and a small first one
US=$'\x1f'
sacct_file() {  # sacct_file FIRST LAST
    echo "JobIDRaw JobID Cluster Partition QOS Account User JobName Submit Eligible Start End State ExitCode NNodes NCPUS ReqTRES AllocTRES Timelimit NodeList" | tr ' ' "$US"
    awk -v first="$1" -v last="$2" -v OFS="$US" 'BEGIN {
        for (i = first; i <= last; i++) {
            t = 1763625600 + i * 37; s = t + i % 300; e = s + 600 + i % 7200; g = 2 ^ (i % 4)
            tres = "billing=16,cpu=16,gres/gpu=" g ",mem=500G,node=1"
            print i, i, "slurmfull", "gpu", "normal", "acct" i % 7, "user" i % 50, "job_" i,
                  strftime("%Y-%m-%dT%H:%M:%S", t, 1), strftime("%Y-%m-%dT%H:%M:%S", t, 1),
                  strftime("%Y-%m-%dT%H:%M:%S", s, 1), strftime("%Y-%m-%dT%H:%M:%S", e, 1),
                  (i % 5 ? "COMPLETED" : "FAILED"), (i % 5 ? "0:0" : "1:0"), 1, 16, tres, tres, "1-00:00:00", "node" sprintf("%02d", i % 40)
        } }'
}
sacct_file 1 20 >"$OUT/first.txt"; sacct_file 21 $((JOBS + 20)) >"$OUT/sacct.txt"
loader_env=(env)
load_jobs() { "${loader_env[@]}" psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SET acmetrace.cluster = 'seren'" \
                   -c "\\copy acmetrace.trace_seren FROM '$OUT/seren.csv' (FORMAT csv, HEADER match)"; }
load_util() { "${loader_env[@]}" psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SET acmetrace.metric = 'GPU_UTIL'" -c "SET acmetrace.cluster = 'seren'" \
                   -c "\\copy acmetrace.utilization_lines FROM '$OUT/gpu.csv' (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"; }
sync_file() { "${loader_env[@]}" "$SYNC" --quiet --cluster full --file "$1"; }
size() { q -c "SELECT pg_database_size(current_database()) / 1024"; }
s0=$(size); load_jobs >/dev/null 2>&1 || { bad "the job file on a roomy disk"; finish; }
s1=$(size); load_util >/dev/null 2>&1 || { bad "the utilization file on a roomy disk"; finish; }
s2=$(size); sync_file "$OUT/first.txt" && sync_file "$OUT/sacct.txt" || { bad "the sacct files on a roomy disk"; finish; }
s3=$(size)
need_jobs=$((s1 - s0)) need_util=$((s2 - s1)) need_sync=$((s3 - s2))
roomy_jobs=$(jobs_md5 seren) roomy_util=$(blocks_md5) roomy_sync=$(jobs_md5 full)
ok "on a roomy disk: the job file ($JOBS jobs) takes $need_jobs kB, the utilization file ($cells samples) $need_util kB, the sacct file ($JOBS jobs) $need_sync kB"

# ---- the test database, all of it on the tmpfs.  The loads' temporary
# files go there too (its default tablespace); the checks' sorts (md5 of
# every job) get theirs on the roomy disk, so they answer while it is full.
loader_env=(env -u PGOPTIONS)
export PGOPTIONS='-c temp_tablespaces=pg_default'
q -c "CREATE DATABASE e2e_full TABLESPACE small" >/dev/null || { bad "CREATE DATABASE on the tmpfs"; finish; }
export PGDATABASE=e2e_full
q -c "CREATE EXTENSION acmetrace" >/dev/null || { bad "CREATE EXTENSION on the tmpfs"; finish; }
pm_start=$(started)
runs=0

# ---- a job file, with 5%, 35% and 65% of the space it needs
for pct in 5 35 65; do
    before=$(state)
    leave_free $((need_jobs * pct / 100))
    if load_jobs >"$OUT/jobs.$pct.log" 2>&1; then bad "job file with $pct% of its space free: it loaded"; continue; fi
    runs=$((runs + 1))
    disk_full "job file with $pct% of its space free" "$OUT/jobs.$pct.log"
    check_eq "job file with $pct% of its space free: nothing stored (jobs, clusters, staging, samples, runs, summaries)" "$(state)" "$before"
done
rm -f "$MNT/filler"
if load_jobs >"$OUT/jobs.freed.log" 2>&1; then ok "job file after the filler is deleted: loaded"; else bad "job file after the filler is deleted: $(head -2 "$OUT/jobs.freed.log")"; fi
check_eq "job file after the filler is deleted: the same jobs as on a roomy disk" "$(jobs_md5 seren)" "$roomy_jobs"
check_summaries "job file after the filler is deleted"

# ---- a utilization file: the tmpfs remounted to leave 5%, 35%, 65%, then larger
for pct in 5 35 65; do
    before=$(state)
    rm -f "$MNT/filler"
    mount -o "remount,size=$(( $(used_kb) + need_util * pct / 100 ))k" "$MNT" ||
        { bad "utilization file with $pct% of its space free: cannot remount the tmpfs smaller"; continue; }
    if load_util >"$OUT/util.$pct.log" 2>&1; then bad "utilization file with $pct% of its space free: it loaded"; continue; fi
    runs=$((runs + 1))
    disk_full "utilization file with $pct% of its space free" "$OUT/util.$pct.log"
    check_eq "utilization file with $pct% of its space free: nothing stored (jobs, samples, hours, runs, summaries)" "$(state)" "$before"
done
mount -o remount,size=256m "$MNT" && ok "the tmpfs remounted at 256 MB ($(avail_kb) kB free)" || bad "cannot remount the tmpfs larger"
if load_util >"$OUT/util.freed.log" 2>&1; then ok "utilization file after the remount: loaded"; else bad "utilization file after the remount: $(head -2 "$OUT/util.freed.log")"; fi
check_eq "utilization file after the remount: one sample per non-empty cell" \
    "$(q -c "SELECT sum(n) FROM acmetrace.utilization_blocks")" "$cells"
check_eq "utilization file after the remount: the same blocks as on a roomy disk" "$(blocks_md5)" "$roomy_util"
check_eq "utilization file after the remount: utilization_hours equal a rebuild from the blocks" \
    "$(q -c "SELECT count(*) FROM ((SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace.utilization_hours
                                     EXCEPT ALL SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace_internal.utilization_hours_of_blocks)
                                    UNION ALL
                                    (SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace_internal.utilization_hours_of_blocks
                                     EXCEPT ALL SELECT metric, cluster, bucket, series, samples, sum, min, max FROM acmetrace.utilization_hours)) d") $(q -c "SELECT count(*) > 0 FROM acmetrace.utilization_hours")" "0 t"

# ---- acmetrace-sync: a first small file, then a large one on a full disk
sync_file "$OUT/first.txt" && ok "acmetrace-sync: a first small file synced" || bad "acmetrace-sync: the first small file"
before=$(state); nruns=$(q -c "SELECT count(*) FROM acmetrace.sync_runs")
leave_free $((need_sync * 20 / 100))
sync_file "$OUT/sacct.txt" >"$OUT/sync.stdout" 2>"$OUT/sync.stderr"; rc=$?
runs=$((runs + 1))
err=$(cat "$OUT/sync.stderr")
if [ $rc -eq 1 ] && grep -Eq "^acmetrace-sync: full: load of file $OUT/sacct.txt failed, nothing loaded: .*No space left on device" <<<"$err"; then
    ok "acmetrace-sync with 20% of its space free: exit 1, $(head -1 <<<"$err")"
else
    bad "acmetrace-sync with 20% of its space free: exit $rc: $err"
fi
check_eq "acmetrace-sync with 20% of its space free: the server keeps running" "$(started)" "$pm_start"
check_eq "acmetrace-sync with 20% of its space free: nothing stored (jobs, slurm_jobs, staging, ok runs, summaries)" "$(state)" "$before"
check_eq "acmetrace-sync with 20% of its space free: the run log has its failed run, with the message" \
    "$(q -F ' ' -c "SELECT count(*) - $nruns, (SELECT outcome || ' ' || (message ~ 'No space left on device') FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1)
                     FROM acmetrace.sync_runs")" "1 failed true"
rm -f "$MNT/filler"
sync_file "$OUT/sacct.txt" 2>"$OUT/sync.freed.stderr" && ok "acmetrace-sync after the filler is deleted: synced" ||
    bad "acmetrace-sync after the filler is deleted: $(cat "$OUT/sync.freed.stderr")"
check_eq "acmetrace-sync after the filler is deleted: the same jobs as on a roomy disk" "$(jobs_md5 full)" "$roomy_sync"
check_eq "acmetrace-sync after the filler is deleted: an ok run with every job inserted" \
    "$(q -F ' ' -c "SELECT outcome, inserted FROM acmetrace.sync_runs ORDER BY run_id DESC LIMIT 1")" "ok $JOBS"
check_summaries "after every load"
check_eq "no PANIC in the server log" "$(grep -c PANIC "$OWN_LOG")" 0
[ "$FAILS" -eq 0 ] && ok "disk-full runs: $runs, each failed with 53100 and left nothing behind" ||
    bad "disk-full runs: $runs, with $FAILS failed checks"
finish
