#!/usr/bin/env bash
# Builds the libFuzzer harnesses (make fuzz-build) and runs each for RUNS
# executions on a fresh copy of its corpus under test/out/fuzz/<name>/ (the
# committed corpus never grows).  One TAP line per harness:
#   ok - fuzz/<name>: N runs
#   not ok - fuzz/<name>: <why>, followed by the tail of the log as # lines
# Exits nonzero if any harness fails.  See doc/fuzzing.md.
#
#   test/fuzz/run.sh [RUNS [NAME...]]      (RUNS defaults to 20000)
set -u
cd "$(dirname "$0")/../.."

runs=${1:-20000}
shift || true
targets=${*:-sketch_text sketch_decode occupancy_text occupancy_binary occupancy_state_text unpivot bins bins_state samples_decode summary scheduler gbdt_decode sacct prometheus_json}
out=test/out/fuzz
make=${MAKE:-make}

# a crash aborts at once, with a stack; leaks are reported (LeakSanitizer)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for s in /usr/lib/llvm-14/bin/llvm-symbolizer "$(command -v llvm-symbolizer || true)"; do
	if [ -n "$s" ] && [ -x "$s" ]; then
		export ASAN_SYMBOLIZER_PATH=$s
		break
	fi
done

set -- $targets
echo "1..$#"
mkdir -p "$out"
if ! $make -s -j"$(nproc 2>/dev/null || echo 2)" fuzz-build > "$out/build.log" 2>&1; then
	for t in $targets; do
		echo "not ok - fuzz/$t: make fuzz-build failed"
	done
	tail -n 30 "$out/build.log" | sed 's/^/# /'
	exit 1
fi

failed=0
for t in $targets; do
	dir=$out/$t
	log=$out/$t.log
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	cp test/fuzz/corpus/"$t"/* "$dir/corpus/"
	dict=
	[ -f test/fuzz/"$t".dict ] && dict=-dict=test/fuzz/$t.dict
	test/fuzz/fuzz_"$t" -runs="$runs" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/" $dict "$dir/corpus" > "$log" 2>&1
	rc=$?
	done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
		n=$(echo "$done_line" | awk '{print $2}')
		secs=$(echo "$done_line" | awk '{print $5}')
		stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [^ ]+')
		echo "ok - fuzz/$t: $n runs"
		echo "# fuzz/$t: $n runs in ${secs}s, $stats"
	else
		crash=$(ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | head -n 1)
		echo "not ok - fuzz/$t: exit $rc${crash:+, input saved in $crash} (log: $log)"
		tail -n 40 "$log" | sed 's/^/# /'
		failed=1
	fi
done
exit $failed
