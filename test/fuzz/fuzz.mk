# test/fuzz/fuzz.mk: the fuzzing rules, included by the Makefile (run make
# from the repository root; doc/fuzzing.md).
# libFuzzer harnesses of the core's parsers and state readers, built with
# clang, AddressSanitizer and UBSan.  `make fuzz` runs each for FUZZ_RUNS
# executions (short, for CI) on a copy of its corpus under test/out/fuzz,
# one TAP line per harness; `make fuzz FUZZ_RUNS=1000000` is the long run.
# `make fuzz-seeds` rewrites the generated seeds (corpus/*/gen-*).
FUZZ_CC      ?= clang-14
FUZZ_RUNS    ?= 20000
FUZZ_CFLAGS   = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -Wall -Wextra -Werror -Isrc/core
FUZZ_TARGETS  = sketch_text sketch_decode occupancy_text occupancy_binary occupancy_state_text unpivot bins bins_state \
                samples_decode summary scheduler gbdt_decode sacct prometheus_json
# names with or without their fuzz_ prefix (FUZZ_TARGETS=fuzz_sacct is sacct)
FUZZ_NAMES    = $(patsubst fuzz_%,%,$(FUZZ_TARGETS))
FUZZ_BINS     = $(FUZZ_NAMES:%=test/fuzz/fuzz_%)

# each harness links only the core files it fuzzes (bins.c counts samples blocks too)
test/fuzz/fuzz_sketch_text test/fuzz/fuzz_sketch_decode: src/core/sketch.c
test/fuzz/fuzz_occupancy_text test/fuzz/fuzz_occupancy_binary test/fuzz/fuzz_occupancy_state_text: src/core/occupancy.c
test/fuzz/fuzz_unpivot: src/core/unpivot.c src/core/utilization.c src/core/summary.c src/core/occupancy.c
test/fuzz/fuzz_bins test/fuzz/fuzz_bins_state: src/core/bins.c src/core/samples.c
test/fuzz/fuzz_samples_decode: src/core/samples.c
test/fuzz/fuzz_summary: src/core/summary.c src/core/value_counts.c src/core/occupancy.c
test/fuzz/fuzz_scheduler: src/core/scheduler.c
test/fuzz/fuzz_gbdt_decode: src/core/gbdt.c
test/fuzz/fuzz_sacct: src/core/sacct.c
test/fuzz/fuzz_prometheus_json: src/core/prometheus.c src/core/prometheus_json.c
$(FUZZ_BINS): test/fuzz/fuzz_%: test/fuzz/fuzz_%.c $(wildcard src/core/*.h test/fuzz/*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -lm

test/fuzz/make_seeds: test/fuzz/make_seeds.c src/core/sketch.c src/core/occupancy.c src/core/bins.c \
                      src/core/samples.c src/core/rng.c src/core/gbdt.c $(wildcard src/core/*.h)
	$(CC) -std=c99 -O1 -g -Wall -Wextra -Werror -Isrc/core -o $@ $(filter %.c,$^) -lm

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-coverage fuzz-clean
fuzz-build: $(FUZZ_BINS)

fuzz:
	MAKE='$(MAKE)' FUZZ_CC='$(FUZZ_CC)' bash test/fuzz/run.sh $(FUZZ_RUNS) $(FUZZ_NAMES)

fuzz-seeds: test/fuzz/make_seeds
	mkdir -p $(FUZZ_NAMES:%=test/fuzz/corpus/%)
	test/fuzz/make_seeds test/fuzz/corpus

# line and branch coverage the last `make fuzz` corpus reaches (llvm-cov)
fuzz-coverage:
	FUZZ_CC='$(FUZZ_CC)' bash test/fuzz/coverage.sh

fuzz-clean:
	rm -f $(FUZZ_BINS) test/fuzz/make_seeds
	rm -rf test/out/fuzz

clean: fuzz-clean
