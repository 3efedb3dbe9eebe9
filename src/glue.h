/*
 * glue.h: helpers shared by the fmgr glue files.
 */
#ifndef ACMETRACE_GLUE_H
#define ACMETRACE_GLUE_H

#include "postgres.h"

#include "datatype/timestamp.h"

/* Unix seconds to TimestampTz (no range check: callers pass sane times). */
static inline TimestampTz
at_unix_to_timestamptz(int64 unix_s)
{
	return (TimestampTz) ((unix_s - ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)) * USECS_PER_SEC);
}

#endif
