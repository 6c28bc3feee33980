/*
 * ttgt.c: transpose-transpose-GEMM-transpose through OpenBLAS (ttgt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "ttgt.h"

#define MAX_RANK 8

/* One operand of the GEMM.
 * order: the index letters of the layout cblas_sgemm reads;
 * copy: whether the tensor is first copied into "buf" in that order;
 * trans: whether cblas_sgemm reads it transposed (order is K x M, N x K);
 * ld: its leading dimension; buf: the scratch buffer, or NULL. */
struct operand {
	char order[MAX_RANK + 1];
	int copy;
	CBLAS_TRANSPOSE trans;
	int64_t ld;
	float *buf;
};

/* The plan.  ext: the extents by letter; a, b, c: the tensors' letters;
 * m, n, k: the GEMM's dimensions (the products of the extents of M's,
 * N's and K's letters); A, B: the operands; c_copy: whether C is computed
 * into c_buf (in M then N order) and copied out; c_swap: whether C is
 * N x M, computed as B^T A^T; what: the plan in words. */
struct bench_ttgt {
	int64_t ext[26];
	char a[MAX_RANK + 1], b[MAX_RANK + 1], c[MAX_RANK + 1];
	int64_t m, n, k;
	struct operand A, B;
	char c_order[2 * MAX_RANK + 1];
	int c_copy, c_swap;
	float *c_buf;
	char what[128];
};

static int64_t extent(const struct bench_ttgt *t, const char *s)
{
	int64_t e = 1;

	for (; *s; ++s)
		e *= t->ext[*s - 'a'];
	return e;
}

/* The letters of "from" that "in" holds, in from's order (keep != 0) or
 * that it does not hold (keep == 0), into "out". */
static void select_letters(char *out, const char *from, const char *in,
	int keep)
{
	for (; *from; ++from)
		if ((strchr(in, *from) != NULL) == keep)
			*out++ = *from;
	*out = '\0';
}

/* Whether "s" is "x" followed by "y". */
static int is_concat(const char *s, const char *x, const char *y)
{
	size_t n = strlen(x);

	return strncmp(s, x, n) == 0 && strcmp(s + n, y) == 0;
}

/* Lay out an operand whose tensor has letters "s", of which "outer" are
 * the GEMM's free letters and "inner" the contracted ones: as it is when
 * s is outer+inner (not transposed for A, transposed for B: "free_first"
 * says which reads as not transposed) or inner+outer, else copied into
 * the not-transposed order.  Returns the elements copied. */
static int64_t layout(struct bench_ttgt *t, struct operand *op,
	const char *s, const char *outer, const char *inner, int free_first)
{
	const char *x = free_first ? outer : inner;
	const char *y = free_first ? inner : outer;

	op->copy = 0;
	if (is_concat(s, x, y)) {
		op->trans = CblasNoTrans;
		op->ld = extent(t, y);
	} else if (is_concat(s, y, x)) {
		op->trans = CblasTrans;
		op->ld = extent(t, x);
	} else {
		op->copy = 1;
		op->trans = CblasNoTrans;
		op->ld = extent(t, y);
	}
	snprintf(op->order, sizeof(op->order), "%s%s",
		op->copy ? x : s, op->copy ? y : "");
	return op->copy ? extent(t, s) : 0;
}

/* Lay out A and B with the contracted letters in the order "k"; returns
 * the elements copied. */
static int64_t plan_operands(struct bench_ttgt *t, const char *k)
{
	char fa[MAX_RANK + 1], fb[MAX_RANK + 1];

	select_letters(fa, t->c, t->a, 1);
	select_letters(fb, t->c, t->b, 1);
	return layout(t, &t->A, t->a, fa, k, 1) +
		layout(t, &t->B, t->b, fb, k, 0);
}

static int valid(const char *c, const char *a, const char *b)
{
	const char *s;

	if (strlen(a) > MAX_RANK || strlen(b) > MAX_RANK ||
	    strlen(c) > MAX_RANK)
		return 0;
	for (s = c; *s; ++s)
		if (*s < 'a' || *s > 'z' || !(strchr(a, *s) || strchr(b, *s)) ||
		    (strchr(a, *s) && strchr(b, *s)))
			return 0;
	for (s = a; *s; ++s)
		if (*s < 'a' || *s > 'z' || (!strchr(c, *s) && !strchr(b, *s)))
			return 0;
	for (s = b; *s; ++s)
		if (*s < 'a' || *s > 'z' || (!strchr(c, *s) && !strchr(a, *s)))
			return 0;
	return 1;
}

/* Choose the order of the contracted letters (A's or B's) that copies
 * less, then how C is written. */
static void plan(struct bench_ttgt *t)
{
	char ka[MAX_RANK + 1], kb[MAX_RANK + 1], fa[MAX_RANK + 1],
		fb[MAX_RANK + 1];

	select_letters(ka, t->a, t->c, 0);
	select_letters(kb, t->b, t->c, 0);
	if (plan_operands(t, kb) >= plan_operands(t, ka))
		plan_operands(t, ka);
	select_letters(fa, t->c, t->a, 1);
	select_letters(fb, t->c, t->b, 1);
	t->m = extent(t, fa);
	t->n = extent(t, fb);
	t->k = extent(t, ka);
	snprintf(t->c_order, sizeof(t->c_order), "%s%s", fa, fb);
	t->c_swap = is_concat(t->c, fb, fa);
	t->c_copy = !t->c_swap && !is_concat(t->c, fa, fb);
	snprintf(t->what, sizeof(t->what), "%sGEMM %s%s%s",
		t->A.copy && t->B.copy ? "copy A and B, " : t->A.copy ?
		"copy A, " : t->B.copy ? "copy B, " : "",
		t->A.trans == CblasTrans ? "T" : "N",
		t->B.trans == CblasTrans ? "T" : "N",
		t->c_copy ? ", copy C" : t->c_swap ? " (C transposed)" : "");
}

struct bench_ttgt *bench_ttgt_plan(const char *c, const char *a,
	const char *b, const int64_t *ext)
{
	struct bench_ttgt *t;

	if (!valid(c, a, b))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t->ext, ext, sizeof(t->ext));
	strcpy(t->a, a);
	strcpy(t->b, b);
	strcpy(t->c, c);
	plan(t);
	if ((t->A.copy && !(t->A.buf = malloc(extent(t, a) * sizeof(float)))) ||
	    (t->B.copy && !(t->B.buf = malloc(extent(t, b) * sizeof(float)))) ||
	    (t->c_copy && !(t->c_buf = malloc(extent(t, c) * sizeof(float))))) {
		bench_ttgt_free(t);
		return NULL;
	}
	return t;
}

void bench_ttgt_free(struct bench_ttgt *t)
{
	if (!t)
		return;
	free(t->A.buf);
	free(t->B.buf);
	free(t->c_buf);
	free(t);
}

/* dst (letters "dst", row-major) = src (letters "src", the same set):
 * an odometer over dst's outer dimensions and a loop along its last,
 * which writes contiguously and reads with src's stride. */
static void permute(const struct bench_ttgt *t, float *dst, const char *ds,
	const float *src, const char *ss)
{
	int nd = strlen(ds), d, e;
	int64_t stride[MAX_RANK], ext[MAX_RANK], idx[MAX_RANK] = { 0 };
	int64_t inner, in_stride, off = 0;

	for (d = 0; d < nd; ++d) {
		ext[d] = t->ext[ds[d] - 'a'];
		stride[d] = 1;
		for (e = strchr(ss, ds[d]) - ss + 1; ss[e]; ++e)
			stride[d] *= t->ext[ss[e] - 'a'];
	}
	inner = ext[nd - 1];
	in_stride = stride[nd - 1];
	for (;;) {
		int64_t i;

		for (i = 0; i < inner; ++i)
			dst[i] = src[off + i * in_stride];
		dst += inner;
		for (d = nd - 2; d >= 0; --d) {
			off += stride[d];
			if (++idx[d] < ext[d])
				break;
			off -= stride[d] * ext[d];
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}

int bench_ttgt_run(struct bench_ttgt *t, const float *a, const float *b,
	float *c)
{
	const float *pa = a, *pb = b;
	float *pc = t->c_copy ? t->c_buf : c;

	if (t->A.copy)
		permute(t, t->A.buf, t->A.order, a, t->a), pa = t->A.buf;
	if (t->B.copy)
		permute(t, t->B.buf, t->B.order, b, t->b), pb = t->B.buf;
	if (t->c_swap)
		cblas_sgemm(CblasRowMajor,
			t->B.trans == CblasTrans ? CblasNoTrans : CblasTrans,
			t->A.trans == CblasTrans ? CblasNoTrans : CblasTrans,
			t->n, t->m, t->k, 1.0f, pb, t->B.ld, pa, t->A.ld,
			0.0f, pc, t->m);
	else
		cblas_sgemm(CblasRowMajor, t->A.trans, t->B.trans, t->m, t->n,
			t->k, 1.0f, pa, t->A.ld, pb, t->B.ld, 0.0f, pc, t->n);
	if (t->c_copy)
		permute(t, c, t->c, t->c_buf, t->c_order);
	return 0;
}

const char *bench_ttgt_describe(const struct bench_ttgt *t)
{
	return t->what;
}
