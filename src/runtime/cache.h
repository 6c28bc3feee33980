/*
 * cache.h: the compile cache of a context, so that compiling the same
 * definition twice costs a lookup.
 *
 * ein_kernel_compile builds a key from everything the generated code
 * depends on (the source text, the definition, the schedule file's text,
 * the target, strict floating point and the sizes given in the options)
 * and looks it up here before running the passes.  An entry is an
 * ein_code: the checked definition (with a reference to its program) and
 * the JIT holding its native code, shared by every kernel compiled to it
 * and freed with the last of them and the cache.
 *
 * The cache keeps the EIN_CACHE_CAPACITY entries used last; older ones
 * stay alive only as long as kernels use them.  It has a lock of its own,
 * so lookups are safe from any thread, but the compile around it follows
 * the context's rule of one thread at a time.
 */
#ifndef EIN_RUNTIME_CACHE_H
#define EIN_RUNTIME_CACHE_H

#include <stdint.h>
#include "ein.h"
#include "driver/options.h"
#include "driver/pipeline.h"

/* The most entries a cache keeps for reuse. */
#define EIN_CACHE_CAPACITY 64

/* Compiled code shared by kernels.
 * ref: references (the cache's and one per kernel), changed under the
 *	cache's lock;
 * prog: a reference to the program func belongs to;
 * func: the checked definition (owned by prog);
 * job: its compilation, which owns the JIT;
 * fixed: per size of func, the value the code is specialised to (0: none,
 *	a parameter);
 * entry: the native entry point. */
struct ein_code {
	int ref;
	ein_program *prog;
	const struct ein_func *func;
	struct ein_job job;
	int64_t *fixed;
	void (*entry)(void **tensors, const int64_t *sizes);
};

struct ein_cache;

/* What a cache has done: lookups that found an entry, lookups that did
 * not, and the entries it holds now. */
struct ein_cache_stats {
	long hits;
	long misses;
	int n_entry;
};

__isl_give struct ein_cache *ein_cache_alloc(void);
/* Drop the cache's references; entries still used by kernels live on. */
void ein_cache_free(__isl_take struct ein_cache *cache);

/* The key of compiling "func" with the schedule "sched" and options
 * "opts" (NULL: the defaults) for target "target", as a string the caller
 * frees; NULL when out of memory. */
char *ein_cache_key(const struct ein_func *func,
	const struct ein_sched_choice *sched, const ein_options *opts,
	const char *target);

/* A new reference to the code cached under "key", or NULL (a miss). */
__isl_give struct ein_code *ein_cache_find(__isl_keep struct ein_cache *cache,
	const char *key);
/* Keep "code" under "key" (the cache takes a reference of its own).
 * Returns -1 when out of memory (then nothing is cached). */
int ein_cache_add(__isl_keep struct ein_cache *cache, const char *key,
	__isl_keep struct ein_code *code);

/* Compile "func" of "prog" with "sched" and "opts" (strict floating
 * point, fixed sizes; NULL: the defaults) into new code (one reference),
 * NULL after reporting an error on ctx. */
__isl_give struct ein_code *ein_code_compile(ein_ctx *ctx,
	__isl_keep ein_program *prog, const struct ein_func *func,
	const struct ein_sched_choice *sched, const ein_options *opts);
/* A new reference to "code", whose references "cache" guards (NULL: one
 * no cache has seen). */
__isl_give struct ein_code *ein_code_copy(__isl_keep struct ein_cache *cache,
	__isl_keep struct ein_code *code);
/* Drop a reference to "code" taken from "cache" (NULL: one no cache has
 * seen). */
void ein_code_free(__isl_keep struct ein_cache *cache,
	__isl_take struct ein_code *code);

struct ein_cache_stats ein_cache_get_stats(__isl_keep struct ein_cache *cache);

#endif
