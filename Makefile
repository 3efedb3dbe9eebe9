# acmetrace: PGXS build.  `make && make install`, then `make installcheck`
# against a running server (test/run.sh does it in a temporary cluster).

EXTENSION  = acmetrace
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" acmetrace.control)

# Algorithms (no PostgreSQL headers) and fmgr glue.
CORE_SRCS  = $(sort $(wildcard src/core/*.c))
GLUE_SRCS  = $(sort $(wildcard src/*.c))
MODULE_big = acmetrace
OBJS       = $(GLUE_SRCS:.c=.o) $(CORE_SRCS:.c=.o)

# The install script is concatenated from these parts, in this order.
# types/: types, aggregates and accessors usable on any table; trace/: the
# trace warehouse's tables (what holds data); surface/: its functions,
# views and triggers (loaders, summaries, the views' shared comments),
# which hold no data and are dropped and created again by an update;
# analyses/: one file per public analysis (its scan, summary path,
# dispatcher, function and views), part of the surface, between the
# helpers they call and the views.sql that checks every view.
INSTALL_TYPES    = version sketch occupancy bins samples unpivot gbdt
INSTALL_TRACE    = tables load philly sacct failures utilization prometheus summaries sync job_gpus access
INSTALL_SURFACE  = settings checks bins occupancy clusters load sacct philly export audit generate replay history \
                   utilization prometheus summaries access distribute
INSTALL_ANALYSES = cluster_summary state_breakdown state_by_type type_distribution gpu_num_boxplot \
                   cancelled_by_queue gpu_time_lost gpu_time_lost_weekly queue_percentiles queue_by_occupancy \
                   duration_cdf queue_cdf gpu_num_cdf failure_taxonomy trace_comparison \
                   util_cdf util_histogram util_polarization job_utilization usage period_summary timeseries_jobs
INSTALL_SURFACE_END = views triggers
SURFACE_PARTS = $(INSTALL_SURFACE:%=src/install/surface/%.sql) \
                $(INSTALL_ANALYSES:%=src/install/analyses/%.sql) \
                $(INSTALL_SURFACE_END:%=src/install/surface/%.sql)
INSTALL_PARTS = src/install/header.sql \
                $(INSTALL_TYPES:%=src/install/types/%.sql) \
                $(INSTALL_TRACE:%=src/install/trace/%.sql) \
                $(SURFACE_PARTS)
# The update from the last release: its hand-written part (types, tables,
# data), the type and trace parts new since that release, then the surface
# (analyses included) as a fresh install creates it.  At release it is
# frozen into upgrade/ (upgrade/README.md).
UPDATE_FROM = 0.3.0
UPDATE_NEW_TYPES = src/install/types/gbdt.sql
UPDATE_NEW_TRACE = src/install/trace/sacct.sql src/install/trace/summaries.sql src/install/trace/sync.sql \
                   src/install/trace/prometheus.sql src/install/trace/job_gpus.sql \
                   src/install/trace/access.sql
UPDATE_SCRIPT = acmetrace--$(UPDATE_FROM)--$(EXTVERSION).sql
DATA_built = acmetrace--$(EXTVERSION).sql $(UPDATE_SCRIPT)
# The first release's install script, frozen, and the frozen upgrade scripts
# from each release to the next (upgrade/README.md).
DATA       = $(sort $(wildcard upgrade/acmetrace--*.sql))
SCRIPTS    = bin/acmetrace-report bin/acmetrace-sync
# the Prometheus converter acmetrace-sync runs, installed beside it
SCRIPTS_built = tools/acmetrace-prometheus

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --outputdir=.

PG_CPPFLAGS = -I$(srcdir)/src/core -DACMETRACE_VERSION='"$(EXTVERSION)"'
PG_CFLAGS   = -Werror
EXTRA_CLEAN = test/core/run_core tools/acmetrace-genutil tools/acmetrace-prometheus results regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

acmetrace--$(EXTVERSION).sql: $(INSTALL_PARTS) Makefile
	cat $(INSTALL_PARTS) > $@

$(UPDATE_SCRIPT): upgrade/$(UPDATE_FROM)--$(EXTVERSION).sql $(UPDATE_NEW_TYPES) $(UPDATE_NEW_TRACE) $(SURFACE_PARTS) Makefile
	cat upgrade/$(UPDATE_FROM)--$(EXTVERSION).sql $(UPDATE_NEW_TYPES) $(UPDATE_NEW_TRACE) $(SURFACE_PARTS) > $@

# acmetrace-report and acmetrace-sync on PATH: PGXS installs them in the
# server's bindir (/usr/lib/postgresql/15/bin on Debian, not on PATH), so
# make install also links them into LINKDIR; make install LINKDIR= skips
# the links, and a LINKDIR that is not a writable directory, or already
# holds a file of that name that is not our link, is skipped with a
# message.  make uninstall removes only links that point at bindir.
LINKDIR ?= /usr/local/bin
LINKED_SCRIPTS = acmetrace-report acmetrace-sync
.PHONY: install-links uninstall-links
install: install-links
uninstall: uninstall-links
install-links:
	@d='$(DESTDIR)$(LINKDIR)'; \
	 if [ -z '$(LINKDIR)' ]; then echo "acmetrace: LINKDIR is empty: $(LINKED_SCRIPTS) stay in $(bindir) only"; \
	 elif [ ! -d "$$d" ] || [ ! -w "$$d" ]; then \
	   echo "acmetrace: $$d is not a writable directory: $(LINKED_SCRIPTS) are in $(bindir); make install LINKDIR=DIR links them into DIR"; \
	 else for s in $(LINKED_SCRIPTS); do \
	   if [ -e "$$d/$$s" ] && [ ! -L "$$d/$$s" ]; then echo "acmetrace: $$d/$$s exists and is not a link: left alone"; \
	   else ln -sfn '$(bindir)'/$$s "$$d/$$s" && echo "acmetrace: $$d/$$s -> $(bindir)/$$s"; fi; done; fi
uninstall-links:
	@d='$(DESTDIR)$(LINKDIR)'; \
	 if [ -n '$(LINKDIR)' ]; then for s in $(LINKED_SCRIPTS); do \
	   if [ -L "$$d/$$s" ] && [ "$$(readlink "$$d/$$s")" = '$(bindir)'/$$s ]; then rm -f "$$d/$$s" && echo "acmetrace: removed $$d/$$s"; fi; \
	 done; fi

# Every part under src/install/ must be listed above.
.PHONY: check-install-parts
check-install-parts:
	@missing=$$(for f in src/install/*/*.sql; do case " $(INSTALL_PARTS) " in *" $$f "*) ;; *) echo $$f ;; esac; done); \
	 [ -z "$$missing" ] || { echo "not listed in INSTALL_PARTS: $$missing" >&2; exit 1; }
all: check-install-parts

# Every object depends on the core headers (PGXS tracks no header
# dependencies): a changed struct must not leave stale objects behind.
$(OBJS): $(wildcard src/core/*.h) src/glue.h

# acmetrace.version() reports the version compiled in from the control file.
src/acmetrace.o: acmetrace.control

# Plain-C unit tests of the core: no server, no PostgreSQL headers.  Built
# with AddressSanitizer and UndefinedBehaviorSanitizer, so the fuzz cases
# fail on any out-of-bounds access, overflow or bad float-to-int cast.
CORE_TESTS = $(sort $(wildcard test/core/*.c))
SANITIZE   = -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
test/core/run_core: $(CORE_TESTS) $(CORE_SRCS) $(wildcard src/core/*.h)
	$(CC) -std=c99 -O1 -g $(SANITIZE) -Wall -Wextra -Werror -Isrc/core -o $@ $(CORE_TESTS) $(CORE_SRCS) -lm

.PHONY: check-core
check-core: test/core/run_core
	test/core/run_core

# The realistic utilization file generator (tools/acmetrace-genutil.c) of
# the benchmarks and e2e tests: plain C over the core's model.
GENUTIL_SRCS = tools/acmetrace-genutil.c src/core/generate_util.c src/core/util_quantiles.c src/core/rng.c \
               src/core/placement.c src/core/generate_jobs.c src/core/scheduler.c
tools/acmetrace-genutil: $(GENUTIL_SRCS) $(wildcard src/core/*.h)
	$(CC) -std=c99 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Isrc/core -o $@ $(GENUTIL_SRCS) -lm

.PHONY: genutil
genutil: tools/acmetrace-genutil

# The Prometheus converter (tools/acmetrace-prometheus.c): JSON of
# Prometheus's HTTP API to lines of acmetrace.prometheus_samples, for
# acmetrace-sync; plain C over the core's prometheus files.
PROMETHEUS_SRCS = tools/acmetrace-prometheus.c src/core/prometheus.c src/core/prometheus_json.c
tools/acmetrace-prometheus: $(PROMETHEUS_SRCS) src/core/prometheus.h src/core/prometheus_json.h src/core/num.h
	$(CC) -std=c99 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Isrc/core -o $@ $(PROMETHEUS_SRCS) -lm

# ---- installcheck-asan (test/asan/, doc/sanitizers.md) ----
# Core tests and the whole pg_regress suite against acmetrace built with
# AddressSanitizer + UBSan, in a private copy of the sources and of the
# PostgreSQL tree under test/out/asan; the system install is not touched.
.PHONY: installcheck-asan
installcheck-asan:
	PG_CONFIG='$(PG_CONFIG)' bash test/asan/run.sh
# ---- end installcheck-asan ----

# libFuzzer harnesses: make fuzz, fuzz-build, fuzz-seeds, fuzz-coverage, fuzz-clean
include test/fuzz/fuzz.mk
