/*
 * polybench_loops.h: PolyBench/C 4.2's 2mm, 3mm, gemver and atax at the
 * LARGE dataset, float32 (PolyBench's DATA_TYPE_IS_FLOAT), as PolyBench
 * writes their loops (bench/polybench_loops.c), the peer of
 * bench/polybench.ein in issue 22's benchmark.  The file is compiled by
 * the compiler configure found for it (clang with Polly: POLLY_CC and
 * POLLY_CFLAGS), apart from the rest of the benchmark.  The arrays that
 * PolyBench updates in place are copied from an input first (d_in, x_in,
 * w_in, a_in), so that repeated calls compute the same result.
 */
#ifndef BENCH_POLYBENCH_LOOPS_H
#define BENCH_POLYBENCH_LOOPS_H

#define PB_2MM_NI 800
#define PB_2MM_NJ 900
#define PB_2MM_NK 1100
#define PB_2MM_NL 1200
#define PB_3MM_NI 800
#define PB_3MM_NJ 900
#define PB_3MM_NK 1000
#define PB_3MM_NL 1100
#define PB_3MM_NM 1200
#define PB_GEMVER_N 2000
#define PB_ATAX_M 1900
#define PB_ATAX_N 2100

/* The compiler and flags the loops were compiled with. */
const char *bench_polybench_compiler(void);

/* d := 1.5 a b c + 1.2 d_in; tmp: NI x NJ scratch. */
void bench_pb_2mm(const float *a, const float *b, const float *c,
	const float *d_in, float *d, float *tmp);
/* g := (a b) (c d); e: NI x NJ, f: NJ x NL scratch. */
void bench_pb_3mm(const float *a, const float *b, const float *c,
	const float *d, float *g, float *e, float *f);
/* PolyBench's gemver on a (copied from a_in), x (from x_in), w (from
 * w_in), alpha 1.5, beta 1.2. */
void bench_pb_gemver(const float *a_in, const float *u1, const float *v1,
	const float *u2, const float *v2, const float *w_in,
	const float *x_in, const float *y, const float *z, float *a, float *x,
	float *w);
/* y := a' (a x); tmp: M scratch. */
void bench_pb_atax(const float *a, const float *x, float *y, float *tmp);

#endif
