/*
 * fuzz_gbdt_decode.c: the boosted-trees model and its training rows as
 * users can send them: acmetrace.gbdt and acmetrace.gbdt_state binary
 * receive (at_gbdt_decode, at_gbdt_rows_decode) and text input
 * (at_gbdt_unhex, then the same decoders).
 *
 * A refused value leaves nothing allocated.  An accepted model encodes to
 * the same bytes and predicts a finite number for rows made of its own
 * bytes, NaN included.  Accepted rows encode to the same bytes; small ones
 * are trained on (a few rounds), and the model they give must decode.
 */
#include "fuzz_common.h"

#include "gbdt.h"

static void
check_model(const uint8_t *data, size_t size)
{
	at_gbdt		m;
	const char *msg = at_gbdt_decode(&m, data, size, fuzz_mem, &fuzz_live);

	if (msg != NULL)
	{
		FUZZ_CHECK(m.nodes == NULL && m.roots == NULL, "a refused model kept memory");
		return;
	}
	{
		size_t		n = at_gbdt_encoded_size(&m);
		uint8_t    *e = malloc(n);
		double	   *x = calloc(m.nfeatures, sizeof(double));

		FUZZ_CHECK(n == size, "re-encoded to %zu bytes, not %zu", n, size);
		at_gbdt_encode(&m, e);
		FUZZ_CHECK(memcmp(e, data, n) == 0, "re-encoded to other bytes");
		for (int round = 0; round < 3; round++)
		{
			double		p;

			for (int32_t f = 0; f < m.nfeatures; f++)
				x[f] = round == 0 ? NAN : (double) data[(f * 7 + round) % size] - 100.0 * round;
			p = at_gbdt_predict(&m, x);
			FUZZ_CHECK(!isnan(p), "a prediction is NaN");
		}
		free(e);
		free(x);
	}
	at_gbdt_free(&m, fuzz_mem, &fuzz_live);
}

static void
check_rows(const uint8_t *data, size_t size)
{
	at_gbdt_rows r;
	const char *msg = at_gbdt_rows_decode(&r, data, size, fuzz_mem, &fuzz_live);

	if (msg != NULL)
	{
		FUZZ_CHECK(r.x == NULL && r.y == NULL, "refused rows kept memory");
		return;
	}
	{
		size_t		n = at_gbdt_rows_encoded_size(&r);
		uint8_t    *e = malloc(n);

		FUZZ_CHECK(n == size, "re-encoded to %zu bytes, not %zu", n, size);
		at_gbdt_rows_encode(&r, e);
		FUZZ_CHECK(memcmp(e, data, n) == 0, "re-encoded to other bytes");
		free(e);
	}
	if (r.n >= 1 && r.n * r.nfeatures <= 4096)
	{
		at_gbdt		m,
					back;
		size_t		n;
		uint8_t    *e;

		if (r.params.rounds > 4)
			r.params.rounds = 4;
		FUZZ_CHECK(at_gbdt_train(&r, fuzz_mem, &fuzz_live, NULL, NULL, &m) == 0, "training failed");
		n = at_gbdt_encoded_size(&m);
		e = malloc(n);
		at_gbdt_encode(&m, e);
		/* (a sum of finite leaves may overflow only past 1e308 targets) */
		if (isfinite(m.train_rmse))
		{
			FUZZ_CHECK(at_gbdt_decode(&back, e, n, fuzz_mem, &fuzz_live) == NULL, "a trained model does not decode");
			at_gbdt_free(&back, fuzz_mem, &fuzz_live);
		}
		free(e);
		at_gbdt_free(&m, fuzz_mem, &fuzz_live);
	}
	at_gbdt_rows_free(&r, fuzz_mem, &fuzz_live);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_model(data, size);
	check_rows(data, size);
	if (size > 0 && data[0] == 'v')
	{
		unsigned char *b;
		size_t		n,
					pos;

		if (at_gbdt_unhex((const char *) data, size, &b, &n, fuzz_mem, &fuzz_live, &pos) == NULL)
		{
			check_model(b, n);
			check_rows(b, n);
			fuzz_mem(&fuzz_live, b, 0);
		}
		else
			FUZZ_CHECK(b == NULL && pos <= size, "refused text kept memory or a position past its end");
	}
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations leaked", fuzz_live);
	return 0;
}
