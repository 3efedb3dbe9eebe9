# acmetrace: PGXS build.  `make && make install`, then `make installcheck`
# against a running server (test/run.sh does it in a temporary cluster).

EXTENSION  = acmetrace
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" acmetrace.control)

# Algorithms (no PostgreSQL headers) and fmgr glue.
CORE_SRCS  = $(sort $(wildcard src/core/*.c))
GLUE_SRCS  = $(sort $(wildcard src/*.c))
MODULE_big = acmetrace
OBJS       = $(GLUE_SRCS:.c=.o) $(CORE_SRCS:.c=.o)

# The install script is assembled from one file per concept.
SQL_PARTS  = $(sort $(wildcard src/sql/*.sql))
DATA_built = acmetrace--$(EXTVERSION).sql
DATA       = $(wildcard acmetrace--*--*.sql)
SCRIPTS    = bin/acmetrace-report

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --outputdir=.

PG_CPPFLAGS = -I$(srcdir)/src/core -DACMETRACE_VERSION='"$(EXTVERSION)"'
PG_CFLAGS   = -Werror
EXTRA_CLEAN = test/core/run_core results regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

acmetrace--$(EXTVERSION).sql: $(SQL_PARTS)
	cat $^ > $@

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
