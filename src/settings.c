/*
 * settings.c: acmetrace's settings (GUCs) and the one reader every load
 * path uses.
 *
 * The settings are registered when the library loads, and the prefix
 * "acmetrace" is reserved, so a misspelt acmetrace.* setting is an error.
 * A setting made before the library was loaded in the session (without
 * session_preload_libraries) was a placeholder: a misspelt one is
 * remembered here and reported by the next load, rather than dropped with
 * only a WARNING.
 */
#include "postgres.h"

#include <ctype.h>

#include "fmgr.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"

#include "glue.h"

static char *setting_cluster = NULL;
static char *setting_metric = NULL;
static char *setting_time_zone = NULL;
static bool setting_summaries = true;

/*
 * What was wrong with acmetrace.* values set before the library loaded (a
 * name that is not a setting, a value the check refused): PostgreSQL only
 * warns and drops them, so the next load reports the first.
 */
typedef struct early_error
{
	int			code;
	char	   *msg;
	char	   *hint;
} early_error;
static List *early_errors = NIL;

static void
remember(int code, char *msg, const char *hint)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	early_error *e = palloc(sizeof(early_error));

	e->code = code;
	e->msg = pstrdup(msg);
	e->hint = pstrdup(hint);
	early_errors = lappend(early_errors, e);
	MemoryContextSwitchTo(old);
}

/* Defines a setting, remembering a value set earlier that the check refused. */
static void
define(const char *name, const char *desc, const char *long_desc, char **var,
	   GucStringCheckHook check, int code, const char *hint)
{
	const char *early = GetConfigOption(name, true, false);
	char	   *raw = early && *early ? pstrdup(early) : NULL;
	const char *now;

	DefineCustomStringVariable(name, desc, long_desc, var, "", PGC_USERSET, 0, check, NULL, NULL);
	now = GetConfigOption(name, true, false);
	if (raw != NULL && (now == NULL || pg_strcasecmp(raw, now) != 0))
		remember(code, psprintf("invalid value \"%s\" for %s, set before the acmetrace library was loaded", raw, name), hint);
}

void		_PG_init(void);

static bool
name_chars_ok(const char *s, bool lower_only)
{
	if (!((*s >= 'a' && *s <= 'z') || (!lower_only && *s >= 'A' && *s <= 'Z')))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (!lower_only && *p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static bool
check_cluster(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || **newval == '\0' || name_chars_ok(*newval, true))
		return true;
	{
		/* suggest the name lower-cased, other characters as _ */
		char	   *s = pstrdup(*newval);

		for (char *p = s; *p; p++)
			*p = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a'
				: ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) ? *p : '_';
		if (!name_chars_ok(s, true) || strlen(s) > 63)
			s = "mycluster";
		GUC_check_errcode(ERRCODE_INVALID_NAME);
		GUC_check_errmsg("invalid cluster name \"%s\"", *newval);
		GUC_check_errhint("Cluster names are lower case letters, digits and _, starting with a letter, e.g. SET acmetrace.cluster = '%s'.", s);
	}
	return false;
}

/* Metric names are stored upper case: 'gpu_util' is GPU_UTIL. */
static bool
check_metric(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || **newval == '\0')
		return true;
	if (!name_chars_ok(*newval, false))
	{
		GUC_check_errmsg("invalid metric name \"%s\"", *newval);
		GUC_check_errhint("Metric names are letters, digits and _, starting with a letter, e.g. SET acmetrace.metric = 'GPU_UTIL'.");
		return false;
	}
	for (char *p = *newval; *p; p++)
		*p = pg_toupper((unsigned char) *p);
	return true;
}

static bool
check_time_zone(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || **newval == '\0' || pg_tzset(*newval) != NULL)
		return true;
	GUC_check_errmsg("unknown time zone \"%s\"", *newval);
	GUC_check_errhint("Use a name from pg_timezone_names, e.g. SET acmetrace.time_zone = 'Asia/Shanghai'.");
	return false;
}

void
_PG_init(void)
{
	struct config_generic **vars;
	int			nvars;

	define("acmetrace.cluster", "Cluster the next load writes to.",
		   "Empty: the format's own (seren, kalos, helios, philly); a utilization load needs one.",
		   &setting_cluster, check_cluster, ERRCODE_INVALID_NAME,
		   "Cluster names are lower case letters, digits and _, starting with a letter.");
	define("acmetrace.metric", "Metric of the next utilization load, stored upper case.",
		   NULL, &setting_metric, check_metric, ERRCODE_INVALID_PARAMETER_VALUE,
		   "Metric names are letters, digits and _, starting with a letter, e.g. GPU_UTIL.");
	define("acmetrace.time_zone", "Zone of the timestamps without an offset in the next load.",
		   "Empty: UTC for Helios and utilization files, America/Los_Angeles for Philly.",
		   &setting_time_zone, check_time_zone, ERRCODE_INVALID_PARAMETER_VALUE,
		   "Use a name from pg_timezone_names, e.g. Asia/Shanghai.");

	DefineCustomBoolVariable("acmetrace.summaries",
							 "Answer the standard analyses from the summaries kept at load.",
							 "off: every analysis scans acmetrace.jobs (the path the summaries are tested against).",
							 &setting_summaries, true, PGC_USERSET, 0, NULL, NULL, NULL);

	/* Placeholders left under our prefix are misspellings: remember them. */
	vars = get_guc_variables();
	nvars = GetNumConfigOptions();
	for (int i = 0; i < nvars; i++)
	{
		struct config_generic *v = vars[i];

		if ((v->flags & GUC_CUSTOM_PLACEHOLDER) != 0 &&
			strncmp(v->name, "acmetrace.", 10) == 0)
			remember(ERRCODE_UNDEFINED_OBJECT,
					 psprintf("unrecognized configuration parameter \"%s\", set before the acmetrace library was loaded", v->name),
					 "acmetrace's settings are acmetrace.cluster, acmetrace.metric, acmetrace.time_zone and acmetrace.summaries.");
	}
	MarkGUCPrefixReserved("acmetrace");
}

/*
 * The value of an acmetrace setting, or NULL when it is empty.  Errors out
 * on a misspelt acmetrace.* setting made before the library was loaded
 * (once: the session can go on after the user has seen it).
 */
char *
at_setting(const char *name)
{
	const char *s;

	if (early_errors != NIL)
	{
		early_error *e = (early_error *) linitial(early_errors);

		/* reported once: the session goes on once the user has seen it */
		early_errors = NIL;
		error_context_stack = NULL;	/* the user's SET, not our helpers */
		ereport(ERROR,
				(errcode(e->code),
				 errmsg_internal("%s", e->msg),
				 errdetail("Nothing was loaded. With session_preload_libraries = 'acmetrace' such a SET is refused at once."),
				 errhint("%s", e->hint)));
	}
	s = GetConfigOption(name, false, false);
	return s != NULL && *s != '\0' ? pstrdup(s) : NULL;
}

PG_FUNCTION_INFO_V1(acmetrace_setting);
PG_FUNCTION_INFO_V1(acmetrace_use_summaries);

/* acmetrace_internal.use_summaries(): the analyses' switch between paths. */
Datum
acmetrace_use_summaries(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(setting_summaries);
}


/* acmetrace_internal.setting(name): the loaders' reader. */
Datum
acmetrace_setting(PG_FUNCTION_ARGS)
{
	char	   *name;
	char	   *v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (strcmp(name, "acmetrace.cluster") != 0 && strcmp(name, "acmetrace.metric") != 0 &&
		strcmp(name, "acmetrace.time_zone") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unrecognized configuration parameter \"%s\"", name)));
	v = at_setting(name);
	if (v == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(v));
}

