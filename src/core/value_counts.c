/*
 * value_counts.c: exact distributions as sorted (value, count) pairs.
 */
#include "value_counts.h"

#include <math.h>

const char *
at_vc_check(const double *vals, const int64_t *counts, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n; i++)
	{
		*bad = i;
		if (!isfinite(vals[i]))
			return "a value is not finite";
		if (i > 0 && !(vals[i] > vals[i - 1]))
			return "values are not distinct and increasing";
		if (counts[i] < 1 || counts[i] > ((int64_t) 1 << 52))
			return "a count is not between 1 and 2^52";
	}
	return NULL;
}

uint64_t
at_vc_prefix(const int64_t *counts, size_t n, uint64_t *cum)
{
	uint64_t	t = 0;

	for (size_t i = 0; i < n; i++)
	{
		t += (uint64_t) counts[i];
		if (t > ((uint64_t) 1 << 62))
			return 0;
		cum[i] = t;
	}
	return t;
}

/* First i with cum[i] > r: the row's value. */
double
at_vc_row(const double *vals, const uint64_t *cum, size_t n, uint64_t r)
{
	size_t		lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (cum[mid] > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return vals[lo];
}

/* PostgreSQL's percentile_cont_final_common with float8_lerp, row numbers 0-based. */
double
at_vc_percentile_cont(const double *vals, const uint64_t *cum, size_t n, double q)
{
	int64_t		rows = (int64_t) cum[n - 1];
	double		pos = q * (rows - 1);
	int64_t		first = (int64_t) floor(pos);
	int64_t		second = (int64_t) ceil(pos);
	double		lo = at_vc_row(vals, cum, n, (uint64_t) first);
	double		hi;

	if (second == first)
		return lo;
	hi = at_vc_row(vals, cum, n, (uint64_t) second);
	return lo + ((pos - first) * (hi - lo));
}

uint64_t
at_vc_count_at(const double *vals, const uint64_t *cum, size_t n, double x, int strict)
{
	size_t		lo = 0,
				hi = n;

	/* first i with vals[i] > x (strict: >= x) */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (strict ? vals[mid] >= x : vals[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo == 0 ? 0 : cum[lo - 1];
}

long
at_vc_merge(const double *vals, const int64_t *counts, size_t n,
			const double *dvals, const int64_t *dcounts, size_t m,
			double *out_vals, int64_t *out_counts)
{
	size_t		i = 0,
				j = 0;
	long		k = 0;

	while (i < n || j < m)
	{
		double		v;
		int64_t		c;

		if (j >= m || (i < n && vals[i] < dvals[j]))
		{
			v = vals[i];
			c = counts[i++];
		}
		else if (i >= n || dvals[j] < vals[i])
		{
			v = dvals[j] == 0 ? 0.0 : dvals[j];
			c = dcounts[j++];
		}
		else
		{
			v = vals[i];
			c = counts[i++] + dcounts[j++];
		}
		if (c < 0)
			return -1;
		if (c > 0)
		{
			out_vals[k] = v;
			out_counts[k++] = c;
		}
	}
	return k;
}
