/*
 * parallel.h: the runtime of parallel loops, a small pthread pool started
 * once and reused by every call.
 *
 * The LLVM emitter outlines the body of a loop a schedule marks parallel
 * into a function of type ein_rt_body, stores the values the body needs in
 * a "closure" (a struct on the caller's stack), and replaces the loop with
 *
 *     call void @ein_rt_parallel_for(ptr @body, ptr %closure, i64 lo, i64 hi)
 *
 * which the JIT resolves by name in libein.  The public controls of the
 * pool (ein_set_num_threads, ein_get_num_threads) are in ein.h.
 */
#ifndef EIN_RUNTIME_PARALLEL_H
#define EIN_RUNTIME_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The body of a parallel loop: runs iterations [lo, hi) of the loop with
 * the captured state "closure".  It is called once per chunk, possibly on
 * several threads at once, so the iterations must be independent (the
 * schedule's legality check proves that) and it must return normally. */
typedef void (*ein_rt_body)(void *closure, int64_t lo, int64_t hi);

/* Run iterations [lo, hi) of a loop across the pool's threads and the
 * caller, returning when all are done (nothing happens if hi <= lo).
 *
 * Static schedule: the range is cut into min(N, hi - lo) contiguous chunks
 * whose sizes differ by at most 1, N being ein_get_num_threads() when the
 * call starts; the caller runs the first chunk and worker k the chunk k+1.
 * Everything runs inline, in one call of "body" on the caller's thread,
 * when N is 1, when the call is nested in a parallel body, or when another
 * application thread is using the pool (no caller ever waits for another
 * caller's loop, so concurrent callers cannot deadlock).
 *
 * Called from generated code: an exported C symbol of exactly this
 * signature. */
void ein_rt_parallel_for(ein_rt_body body, void *closure, int64_t lo,
	int64_t hi);

#ifdef __cplusplus
}
#endif

#endif
