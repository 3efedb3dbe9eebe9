/*
 * test_summary.c: counting (group, value) pairs and numbering strings
 * against brute force, through growth and out of memory.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"
#include "summary.h"
#include "tap.h"

static int
cmp_entry(const void *a, const void *b)
{
	const at_vmap_entry *x = a,
			   *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static void
test_vmap(void)
{
	enum
	{
		N = 20000
	};
	static at_vmap_entry pairs[N],
				want[N],
				got[N];
	at_vmap		m;
	at_rng		r;
	tap_counted c = {0, 0, 0};
	size_t		k = 0;
	int			ok = 1;

	at_rng_seed(&r, 3);
	CHECK(at_vmap_init(&m, tap_counted_mem, &c), "vmap: init");
	for (int i = 0; i < N; i++)
	{
		/* few groups, values often repeated, -0 beside 0 */
		pairs[i].group = at_rng_next(&r) % 7;
		pairs[i].value = (double) (int64_t) (at_rng_next(&r) % 3000) / 4 - 100;
		if (pairs[i].value == 0 && i % 2)
			pairs[i].value = -0.0;
		ok &= at_vmap_add(&m, pairs[i].group, pairs[i].value);
	}
	/* brute force: sort the pairs (-0 as 0), count runs */
	for (int i = 0; i < N; i++)
	{
		pairs[i].value = pairs[i].value == 0 ? 0.0 : pairs[i].value;
		pairs[i].count = 1;
	}
	qsort(pairs, N, sizeof(at_vmap_entry), cmp_entry);
	for (int i = 0; i < N; i++)
		if (k > 0 && want[k - 1].group == pairs[i].group && want[k - 1].value == pairs[i].value)
			want[k - 1].count++;
		else
			want[k++] = pairs[i];
	at_vmap_sorted(&m, got);
	for (size_t i = 0; ok && i < k; i++)
		if (!(got[i].group == want[i].group && got[i].value == want[i].value &&
			  !(got[i].value == 0 && signbit(got[i].value)) && got[i].count == want[i].count))
		{
			printf("# %zu: got (%llu, %g, %lld), want (%llu, %g, %lld)\n", i, (unsigned long long) got[i].group,
				   got[i].value, (long long) got[i].count, (unsigned long long) want[i].group, want[i].value,
				   (long long) want[i].count);
			ok = 0;
		}
	CHECK(ok && m.n == k && m.cap > 1024, "vmap: %zu distinct pairs of %d by group and value, -0 as 0, after "
		  "growing to %zu slots", k, N, m.cap);
	at_vmap_free(&m);
	CHECK(c.live == 0, "vmap: every block freed");

	/* out of memory at the first growth: refused, the map as it was */
	c = (tap_counted) {0, 2, 0};
	at_vmap_init(&m, tap_counted_mem, &c);
	ok = 1;
	for (int i = 0; i < 512 && ok; i++)
		ok = at_vmap_add(&m, 1, i);
	CHECK(ok && at_vmap_add(&m, 1, 512) == 0 && m.n == 512 && m.cap == 1024 && at_vmap_add(&m, 1, 512) == 1 &&
		  m.n == 513 && m.cap == 2048, "vmap: out of memory when growing: 0 and nothing changed; then it grows");
	at_vmap_free(&m);
	CHECK(c.live == 0, "vmap: freed after the failure");
}

static void
test_intern(void)
{
	at_intern	t;
	tap_counted c = {0, 0, 0};
	char		s[32];
	int			ok = 1;

	CHECK(at_intern_init(&t, tap_counted_mem, &c), "intern: init");
	/* first sight numbers in order; a prefix and an embedded NUL are other strings */
	CHECK(at_intern_id(&t, "Pretrain", 8) == 0 && at_intern_id(&t, "Eval", 4) == 1 &&
		  at_intern_id(&t, "Pretrain", 8) == 0 && at_intern_id(&t, "Pre", 3) == 2 &&
		  at_intern_id(&t, "Eval\0x", 6) == 3 && at_intern_id(&t, "", 0) == 4 && at_intern_id(&t, "Eval", 4) == 1,
		  "intern: ids in first-seen order, equal strings one id, prefixes and lengths apart");
	for (int i = 0; i < 1000; i++)
	{
		int			n = snprintf(s, sizeof s, "type-%d", i);

		ok &= at_intern_id(&t, s, (size_t) n) == 5 + i;
	}
	for (int i = 999; i >= 0; i--)
	{
		int			n = snprintf(s, sizeof s, "type-%d", i);

		ok &= at_intern_id(&t, s, (size_t) n) == 5 + i;
	}
	CHECK(ok && t.n == 1005, "intern: 1,000 more through growth (%zu slots), found again", t.cap);
	at_intern_free(&t);
	CHECK(c.live == 0, "intern: every block freed");

	/* out of memory: for the copy (call 2), then for growth */
	c = (tap_counted) {0, 2, 0};
	at_intern_init(&t, tap_counted_mem, &c);
	CHECK(at_intern_id(&t, "a", 1) == -1 && t.n == 0 && at_intern_id(&t, "a", 1) == 0,
		  "intern: out of memory for the copy: -1, then numbered when memory returns");
	at_intern_free(&t);
	CHECK(c.live == 0, "intern: freed after the failure");
}

void
test_summary(void)
{
	test_vmap();
	test_intern();
}
