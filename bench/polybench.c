/*
 * polybench.c: PolyBench's 2mm, 3mm, gemver and atax at the LARGE sizes
 * (bench/polybench.ein), issue 22's "polybench" section: against
 * PolyBench's own loops compiled by clang -O3 with Polly
 * (polybench_loops.c; the reference of the checks) and against OpenBLAS
 * calls computing the same.
 */
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "issue22.h"
#include "polybench_loops.h"

/* Scratch of the peers: two buffers of "n" floats each. */
struct scratch {
	float *s1, *s2;
};

static void free_scratch(void *data)
{
	struct scratch *s = data;

	free(s->s1);
	free(s->s2);
	free(s);
}

static struct scratch *scratch_alloc(size_t n)
{
	struct scratch *s = calloc(1, sizeof(*s));

	if (s && (!(s->s1 = malloc(n * sizeof(float))) ||
	    !(s->s2 = malloc(n * sizeof(float))))) {
		free_scratch(s);
		return NULL;
	}
	return s;
}

static int polly_2mm(void *data, float *const *in, float *const *out)
{
	bench_pb_2mm(in[0], in[1], in[2], in[3], out[0],
		((struct scratch *) data)->s1);
	return 0;
}

static int blas_2mm(void *data, float *const *in, float *const *out)
{
	float *tmp = ((struct scratch *) data)->s1;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, PB_2MM_NI,
		PB_2MM_NJ, PB_2MM_NK, 1.5f, in[0], PB_2MM_NK, in[1], PB_2MM_NJ,
		0.0f, tmp, PB_2MM_NJ);
	memcpy(out[0], in[3], sizeof(float) * PB_2MM_NI * PB_2MM_NL);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, PB_2MM_NI,
		PB_2MM_NL, PB_2MM_NJ, 1.0f, tmp, PB_2MM_NJ, in[2], PB_2MM_NL,
		1.2f, out[0], PB_2MM_NL);
	return 0;
}

static int polly_3mm(void *data, float *const *in, float *const *out)
{
	struct scratch *s = data;

	bench_pb_3mm(in[0], in[1], in[2], in[3], out[0], s->s1, s->s2);
	return 0;
}

static int blas_3mm(void *data, float *const *in, float *const *out)
{
	struct scratch *s = data;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, PB_3MM_NI,
		PB_3MM_NJ, PB_3MM_NK, 1.0f, in[0], PB_3MM_NK, in[1], PB_3MM_NJ,
		0.0f, s->s1, PB_3MM_NJ);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, PB_3MM_NJ,
		PB_3MM_NL, PB_3MM_NM, 1.0f, in[2], PB_3MM_NM, in[3], PB_3MM_NL,
		0.0f, s->s2, PB_3MM_NL);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, PB_3MM_NI,
		PB_3MM_NL, PB_3MM_NJ, 1.0f, s->s1, PB_3MM_NJ, s->s2, PB_3MM_NL,
		0.0f, out[0], PB_3MM_NL);
	return 0;
}

static int polly_gemver(void *data, float *const *in, float *const *out)
{
	(void) data;
	bench_pb_gemver(in[0], in[1], in[2], in[3], in[4], in[5], in[6],
		in[7], in[8], out[0], out[1], out[2]);
	return 0;
}

static int blas_gemver(void *data, float *const *in, float *const *out)
{
	const int n = PB_GEMVER_N;

	(void) data;
	memcpy(out[0], in[0], sizeof(float) * n * n);
	cblas_sger(CblasRowMajor, n, n, 1.0f, in[1], 1, in[2], 1, out[0], n);
	cblas_sger(CblasRowMajor, n, n, 1.0f, in[3], 1, in[4], 1, out[0], n);
	memcpy(out[1], in[6], sizeof(float) * n);
	cblas_sgemv(CblasRowMajor, CblasTrans, n, n, 1.2f, out[0], n, in[7], 1,
		1.0f, out[1], 1);
	cblas_saxpy(n, 1.0f, in[8], 1, out[1], 1);
	memcpy(out[2], in[5], sizeof(float) * n);
	cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.5f, out[0], n,
		out[1], 1, 1.0f, out[2], 1);
	return 0;
}

static int polly_atax(void *data, float *const *in, float *const *out)
{
	bench_pb_atax(in[0], in[1], out[0], ((struct scratch *) data)->s1);
	return 0;
}

static int blas_atax(void *data, float *const *in, float *const *out)
{
	float *tmp = ((struct scratch *) data)->s1;

	cblas_sgemv(CblasRowMajor, CblasNoTrans, PB_ATAX_M, PB_ATAX_N, 1.0f,
		in[0], PB_ATAX_N, in[1], 1, 0.0f, tmp, 1);
	cblas_sgemv(CblasRowMajor, CblasTrans, PB_ATAX_M, PB_ATAX_N, 1.0f,
		in[0], PB_ATAX_N, tmp, 1, 0.0f, out[0], 1);
	return 0;
}

/* A kernel: its definition, sizes, peers and the floats of each of its
 * peers' two scratch buffers. */
struct pb {
	const char *def, *sizes;
	i22_peer_fn polly, blas;
	size_t scratch;
};

static const struct pb pbs[] = {
	{ "mm2", "NI=800,NJ=900,NK=1100,NL=1200", &polly_2mm, &blas_2mm,
	  PB_2MM_NI * PB_2MM_NJ },
	{ "mm3", "NI=800,NJ=900,NK=1000,NL=1100,NM=1200", &polly_3mm,
	  &blas_3mm, PB_3MM_NJ * PB_3MM_NL },
	{ "gemver", "N=2000", &polly_gemver, &blas_gemver, 1 },
	{ "atax", "M=1900,N=2100", &polly_atax, &blas_atax, PB_ATAX_M },
};

/* Polly's and OpenBLAS's implementations of "arg" (a struct pb). */
static int make_peers(struct i22_kernel *k, struct i22_data *d, void *arg)
{
	const struct pb *pb = arg;
	struct scratch *s1 = scratch_alloc(pb->scratch);
	struct scratch *s2 = scratch_alloc(pb->scratch);

	(void) d;
	if (!s1 || !s2) {
		if (s1)
			free_scratch(s1);
		if (s2)
			free_scratch(s2);
		return -1;
	}
	k->peers[0] = (struct i22_peer) { "clang Polly", pb->polly, s1,
		&free_scratch };
	k->peers[1] = (struct i22_peer) { "OpenBLAS", pb->blas, s2,
		&free_scratch };
	k->n_peer = 2;
	return 0;
}

int bench_polybench(struct bench_program *p, const struct bench_opts *o)
{
	ein_program *prog = i22_read(p, o, "polybench.ein");
	struct i22_result r;
	size_t i;
	int failed = 0;

	if (!prog)
		return 1;
	printf("\n### PolyBench, LARGE (issue 22), 1 thread, ms\n\n"
		"bench/polybench.ein; PolyBench's loops (bench/"
		"polybench_loops.c) compiled with `%s`, and the same through "
		"OpenBLAS (cblas_sgemm, cblas_sgemv, cblas_sger).\n",
		bench_polybench_compiler());
	i22_print_head("clang Polly | OpenBLAS");
	for (i = 0; i < sizeof(pbs) / sizeof(pbs[0]); ++i) {
		struct i22_kernel k = { pbs[i].def, prog, pbs[i].def,
			pbs[i].sizes, NULL, { { 0 } }, 0 };

		failed += i22_run(p, o, &k, &make_peers, (void *) &pbs[i], &r);
	}
	ein_program_free(prog);
	return failed;
}
