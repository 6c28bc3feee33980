/*
 * fma_loop.h: the FMA-throughput loops of fma_loop.c, one per instruction
 * set it was compiled for.  Each runs n iterations of BENCH_FMA_CHAINS
 * vector FMAs (2 flops per lane) and returns a sum of the results so that
 * the work cannot be dropped.
 */
#ifndef BENCH_FMA_LOOP_H
#define BENCH_FMA_LOOP_H

#define BENCH_FMA_CHAINS 12

float bench_fma_generic(long n);
float bench_fma_avx2(long n);
float bench_fma_avx512(long n);

#endif
