#!/usr/bin/env bash
# Line and branch coverage of the core files each harness reaches with the
# corpus a run left in test/out/fuzz/<name>/corpus (run test/fuzz/run.sh
# first), measured with clang's source-based coverage: the harnesses are
# rebuilt with -fprofile-instr-generate into test/out/fuzz/cov/ and replay
# the corpus once (-runs=0).  Prints one llvm-cov summary line per harness.
#
#   test/fuzz/coverage.sh [NAME...]
set -eu
cd "$(dirname "$0")/../.."

targets=${*:-sketch_text sketch_decode occupancy_text occupancy_binary unpivot bins bins_state samples_decode sacct prometheus_json}
cc=${FUZZ_CC:-clang-14}
bin=/usr/lib/llvm-14/bin
[ -x "$bin/llvm-cov" ] || bin=$(dirname "$(command -v llvm-cov)")
out=test/out/fuzz/cov
mkdir -p "$out"

# the entry points each harness fuzzes, reported one by one
entries_of() {
	case $1 in
		sketch_text) echo at_sk_parse at_sk_format at_sk_quantile at_sk_rank ;;
		sketch_decode) echo at_sk_decode at_sk_encode at_sk_merge at_sk_check ;;
		occupancy_text) echo at_occ_parse_text at_occ_check at_occ_at_hint at_occ_segments at_occ_integral ;;
		occupancy_binary) echo at_occ_state_decode at_occ_state_open at_occ_state_read at_occ_lists_check at_occ_sweep_runs at_occ_check ;;
		unpivot) echo at_csv_split at_parse_value ;;
		bins) echo at_bins_check_equal at_bins_check_edges at_bins_check_thresholds at_bins_decode at_bins_cdf ;;
		bins_state) echo at_bins_parse at_bins_format at_bins_decode ;;
		sacct) echo at_sacct_parse at_sacct_parse_time at_sacct_parse_timelimit at_sacct_message ;;
		prometheus_json) echo at_pj_feed at_pj_finish at_pc_feed at_pc_end at_prom_scale at_prom_time_ms at_prom_sample_next ;;
		samples_decode) echo at_samples_check at_samples_decode at_samples_iter_next at_samples_iter_next_scaled at_samples_slice at_samples_sum_text at_samples_encode at_samples_parse ;;
	esac
}

core_of() {
	case $1 in
		sketch_*) echo src/core/sketch.c ;;
		occ_*) echo src/core/occupancy.c ;;
		unpivot) echo src/core/unpivot.c ;;
		bins | bins_state) echo src/core/bins.c ;;
		samples_*) echo src/core/samples.c ;;
		sacct) echo src/core/sacct.c ;;
		prometheus_json) echo src/core/prometheus.c src/core/prometheus_json.c ;;
	esac
}

printf '%-14s %-22s %s\n' harness file "lines covered / branches covered"
for t in $targets; do
	core=$(core_of "$t")
	corpus=test/out/fuzz/$t/corpus
	[ -d "$corpus" ] || corpus=test/fuzz/corpus/$t
	$cc -g -O1 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping -Isrc/core \
		-o "$out/fuzz_$t" test/fuzz/fuzz_"$t".c $core -lm
	rm -f "$out/$t".profraw
	LLVM_PROFILE_FILE="$out/$t.profraw" "$out/fuzz_$t" -runs=0 "$corpus" > "$out/$t.log" 2>&1
	"$bin/llvm-profdata" merge -sparse "$out/$t.profraw" -o "$out/$t.profdata"
	"$bin/llvm-cov" report "$out/fuzz_$t" -instr-profile="$out/$t.profdata" $core |
		awk -v t="$t" -v f="$core" -v n="$(ls "$corpus" | wc -l)" '$1 ~ /\.c$/ {
			printf "%-14s %-22s lines %s, branches %s (%s corpus files)\n", t, index(f, " ") ? $1 : f, $10, $13, n }'
	"$bin/llvm-cov" report -show-functions "$out/fuzz_$t" -instr-profile="$out/$t.profdata" $core |
		awk -v want=" $(entries_of "$t") " 'index(want, " " $1 " ") {
			printf "%-14s   %-35s lines %s, branches %s\n", "", $1, $7, $8 == 0 ? "(none)" : $10 }'
done
