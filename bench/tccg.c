/*
 * tccg.c: the TCCG benchmark's contractions (bench/tccg.ein) against
 * transpose-transpose-GEMM-transpose through OpenBLAS (ttgt.c), issue
 * 22's "tccg" section.
 */
#include <stdlib.h>
#include <string.h>
#include "issue22.h"
#include "ttgt.h"

/* A contraction: TCCG's C-A-B string (column-major, as TCCG writes it)
 * and its sizes from TCCG's benchmark/benchmark.py (every extent near
 * the d-th root of 100 MiB of float32, d the largest rank: a multiple
 * of 24 for an index contiguous in some tensor, of 4 otherwise). */
struct tc {
	const char *tccg;
	const char *sizes;
};

/* Sorted from bandwidth-bound to compute-bound as TCCG sorts them; the
 * last three (about 270 GFLOP each, a call of seconds for the peer and
 * of minutes for ein's default schedule) only with EIN_BENCH_TCCG_ALL. */
static const struct tc tcs[] = {
	{ "abcde-efbad-cf", "A=48,B=32,C=48,D=32,E=48,F=32" },
	{ "abcd-dbea-ec", "A=72,B=72,C=72,D=72,E=72" },
	{ "abcd-deca-be", "A=72,B=72,C=72,D=72,E=72" },
	{ "abcd-ebad-ce", "A=72,B=72,C=72,D=72,E=72" },
	{ "abcdef-dega-gfbc", "A=24,B=16,C=16,D=24,E=16,F=16,G=24" },
	{ "abcdef-dfgb-geac", "A=24,B=16,C=16,D=24,E=16,F=16,G=24" },
	{ "abcd-ea-ebcd", "A=72,B=72,C=72,D=72,E=72" },
	{ "abcd-eb-aecd", "A=72,B=72,C=72,D=72,E=72" },
	{ "abcd-ec-abed", "A=72,B=72,C=72,D=72,E=72" },
	{ "abc-adec-ebd", "A=72,B=72,C=72,D=72,E=72" },
	{ "abc-acd-db", "A=312,B=296,C=296,D=312" },
	{ "abc-adc-bd", "A=312,B=312,C=296,D=296" },
	{ "ab-ac-cb", "A=5136,B=5120,C=5136" },
	{ "abcd-aebf-fdec", "A=72,B=72,C=72,D=72,E=72,F=72" },
	{ "abcd-aebf-dfce", "A=72,B=72,C=72,D=72,E=72,F=72" },
};
#define N_DEFAULT 12

/* "s" reversed into "out": TCCG's column-major letters in ein's
 * row-major order. */
static void reverse(char *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; ++i)
		out[i] = s[len - 1 - i];
	out[len] = '\0';
}

static int run_ttgt(void *data, float *const *in, float *const *out)
{
	return bench_ttgt_run(data, in[0], in[1], out[0]);
}

static void free_ttgt(void *data)
{
	bench_ttgt_free(data);
}

/* A contraction and, once planned, its TTGT plan in words. */
struct tc_arg {
	const struct tc *tc;
	char what[128];
};

/* The TTGT peer of the contraction "arg" (a struct tc_arg). */
static int make_peers(struct i22_kernel *k, struct i22_data *d, void *arg)
{
	struct tc_arg *ta = arg;
	const struct tc *tc = ta->tc;
	const char *a = strchr(tc->tccg, '-') + 1, *b = strchr(a, '-') + 1;
	char rc[16], ra[16], rb[16], name[2] = "A";
	int64_t ext[26];
	struct bench_ttgt *t;
	int i;

	(void) d;
	reverse(rc, tc->tccg, a - 1 - tc->tccg);
	reverse(ra, a, b - 1 - a);
	reverse(rb, b, strlen(b));
	for (i = 0; i < 26; ++i) {
		name[0] = 'A' + i;
		ext[i] = i22_size(tc->sizes, name);
	}
	t = bench_ttgt_plan(rc, ra, rb, ext);
	if (!t)
		return -1;
	k->peers[0] = (struct i22_peer) { "OpenBLAS TTGT", &run_ttgt, t,
		&free_ttgt };
	k->n_peer = 1;
	snprintf(ta->what, sizeof(ta->what), "%s", bench_ttgt_describe(t));
	return 0;
}

int bench_tccg(struct bench_program *p, const struct bench_opts *o)
{
	ein_program *prog = i22_read(p, o, "tccg.ein");
	struct i22_result r[sizeof(tcs) / sizeof(tcs[0])];
	struct tc_arg ta[sizeof(tcs) / sizeof(tcs[0])];
	size_t i, n = getenv("EIN_BENCH_TCCG_ALL") ?
		sizeof(tcs) / sizeof(tcs[0]) : N_DEFAULT;
	int failed = 0;

	if (!prog)
		return 1;
	printf("\n### TCCG contractions (issue 22), 1 thread, ms\n\n"
		"bench/tccg.ein at the TCCG benchmark's sizes; the peer "
		"transposes each operand that is not already a matrix, calls "
		"cblas_sgemm and transposes the result (TTGT).\n");
	i22_print_head("OpenBLAS TTGT");
	for (i = 0; i < n; ++i) {
		char def[64];
		struct i22_kernel k = { tcs[i].tccg, prog, def, tcs[i].sizes,
			NULL, { { 0 } }, 0 };
		size_t j;

		snprintf(def, sizeof(def), "tccg_%s", tcs[i].tccg);
		for (j = 0; def[j]; ++j)
			if (def[j] == '-')
				def[j] = '_';
		ta[i].tc = &tcs[i];
		ta[i].what[0] = '\0';
		failed += i22_run(p, o, &k, &make_peers, &ta[i], &r[i]);
	}
	i22_print_geomean("TCCG", r, n);
	printf("\nTTGT's plans (N, T: cblas_sgemm's operand as it is or "
		"transposed):");
	for (i = 0; i < n; ++i)
		printf("%s %s: %s", i ? ";" : "", tcs[i].tccg, ta[i].what);
	printf(".\n");
	ein_program_free(prog);
	return failed;
}
