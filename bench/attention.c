/*
 * attention.c: BERT-base self-attention (12 heads, head size 64,
 * sequence 128 and 512; bench/contractions.ein) against OpenBLAS,
 * issue 22's "attention" section: the scores Q K^T (attention_scores)
 * against one cblas_sgemm per head, and softmax(Q K^T / 8) V
 * (attention) against cblas_sgemm per head, a C softmax over each row
 * and cblas_sgemm again.
 */
#include <math.h>
#include <stdlib.h>
#include <cblas.h>
#include "issue22.h"

/* The shapes: heads, sequence (queries and keys), head size; p: the
 * probabilities, scratch of B x S x S. */
struct attn {
	int64_t b, s, d;
	float *p;
};

/* Sc[h] = Q[h] K[h]^T for each head h. */
static int scores(void *data, float *const *in, float *const *out)
{
	struct attn *a = data;
	int64_t h, ss = a->s * a->s, sd = a->s * a->d;

	for (h = 0; h < a->b; ++h)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, a->s,
			a->s, a->d, 1.0f, in[0] + h * sd, a->d, in[1] + h * sd,
			a->d, 0.0f, out[0] + h * ss, a->s);
	return 0;
}

/* Each row of the n x n matrix x replaced by its softmax. */
static void softmax_rows(float *x, int64_t n)
{
	int64_t i, j;

	for (i = 0; i < n; ++i, x += n) {
		float mx = x[0], sum = 0;

		for (j = 1; j < n; ++j)
			mx = fmaxf(mx, x[j]);
		for (j = 0; j < n; ++j)
			sum += x[j] = expf(x[j] - mx);
		for (j = 0; j < n; ++j)
			x[j] /= sum;
	}
}

/* O[h] = softmax(Q[h] K[h]^T / sqrt(64)) V[h] for each head h. */
static int attention(void *data, float *const *in, float *const *out)
{
	struct attn *a = data;
	int64_t h, ss = a->s * a->s, sd = a->s * a->d;

	for (h = 0; h < a->b; ++h) {
		float *p = a->p + h * ss;

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, a->s,
			a->s, a->d, 0.125f, in[0] + h * sd, a->d,
			in[1] + h * sd, a->d, 0.0f, p, a->s);
		softmax_rows(p, a->s);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, a->s,
			a->d, a->s, 1.0f, p, a->s, in[2] + h * sd, a->d, 0.0f,
			out[0] + h * sd, a->d);
	}
	return 0;
}

static void free_attn(void *data)
{
	struct attn *a = data;

	free(a->p);
	free(a);
}

/* The OpenBLAS peer of k ("arg": the scores or the whole attention). */
static int make_peers(struct i22_kernel *k, struct i22_data *d, void *arg)
{
	struct attn *a = calloc(1, sizeof(*a));

	(void) d;
	if (!a)
		return -1;
	a->b = i22_size(k->sizes, "B");
	a->s = i22_size(k->sizes, "S");
	a->d = i22_size(k->sizes, "D");
	a->p = malloc(a->b * a->s * a->s * sizeof(float));
	if (!a->p) {
		free(a);
		return -1;
	}
	k->peers[0] = (struct i22_peer) { "OpenBLAS", arg ? &attention :
		&scores, a, &free_attn };
	k->n_peer = 1;
	return 0;
}

int bench_attention(struct bench_program *p, const struct bench_opts *o)
{
	static const char *const sizes[2] = {
		"B=12,S=128,T=128,D=64", "B=12,S=512,T=512,D=64"
	};
	static const char *const tuned[2][2] = {
		{ "attention_scores.s128", "attention.s128" },
		{ "attention_scores.s512", "attention.s512" },
	};
	static const char *const label[2][2] = {
		{ "scores Q K^T, 12 x 128x64 @ 64x128",
		  "softmax(Q K^T / 8) V, 12 heads, sequence 128" },
		{ "scores Q K^T, 12 x 512x64 @ 64x512",
		  "softmax(Q K^T / 8) V, 12 heads, sequence 512" },
	};
	ein_program *prog = i22_read(p, o, "contractions.ein");
	struct i22_result r;
	int failed = 0, i, whole;

	if (!prog)
		return 1;
	printf("\n### BERT-base attention (issue 22), 1 thread, ms\n\n"
		"bench/contractions.ein (attention_scores, attention); the "
		"peer is cblas_sgemm per head, with a C softmax over each row "
		"between two of them for the whole attention.\n");
	i22_print_head("OpenBLAS");
	for (i = 0; i < 2; ++i)
		for (whole = 0; whole < 2; ++whole) {
			struct i22_kernel k = { label[i][whole], prog,
				whole ? "attention" : "attention_scores",
				sizes[i], tuned[i][whole], { { 0 } }, 0 };

			failed += i22_run(p, o, &k, &make_peers,
				whole ? (void *) &k : NULL, &r);
		}
	ein_program_free(prog);
	return failed;
}
