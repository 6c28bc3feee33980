/*
 * cache.c: the compile cache of a context (cache.h).
 *
 * Entries are a list in order of last use, newest first, compared by
 * their full key (a hash first, to skip most comparisons): a key holds
 * the whole source text, so two sources that differ anywhere never share
 * code.  A handful of kernels per context is the common case, for which a
 * list is as fast as anything.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "driver/program.h"
#include "runtime/cache.h"
#include "codegen/wrap.h"

/* key, hash: what the entry was compiled from, and its FNV-1a hash;
 * code: a reference to its code; next: the entry used before it. */
struct entry {
	char *key;
	uint64_t hash;
	struct ein_code *code;
	struct entry *next;
};

/* lock: guards everything below and the references of every code;
 * head: the entries, newest first; n_entry: how many;
 * hits, misses: the lookups so far. */
struct ein_cache {
	pthread_mutex_t lock;
	struct entry *head;
	int n_entry;
	long hits;
	long misses;
};

static uint64_t hash_string(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; ++s)
		h = (h ^ (unsigned char) *s) * 1099511628211ULL;
	return h;
}

struct ein_cache *ein_cache_alloc(void)
{
	struct ein_cache *cache = calloc(1, sizeof(*cache));

	if (cache)
		pthread_mutex_init(&cache->lock, NULL);
	return cache;
}

/* Drop a reference to "code"; the caller holds the lock, if any. */
static void code_unref(struct ein_code *code)
{
	if (!code || --code->ref > 0)
		return;
	ein_job_clear(&code->job);
	ein_program_free(code->prog);
	free(code->fixed);
	free(code);
}

static void entry_free(struct entry *e)
{
	code_unref(e->code);
	free(e->key);
	free(e);
}

void ein_cache_free(struct ein_cache *cache)
{
	struct entry *e, *next;

	if (!cache)
		return;
	for (e = cache->head; e; e = next) {
		next = e->next;
		entry_free(e);
	}
	pthread_mutex_destroy(&cache->lock);
	free(cache);
}

struct ein_code *ein_code_copy(struct ein_cache *cache, struct ein_code *code)
{
	if (!code)
		return NULL;
	if (cache)
		pthread_mutex_lock(&cache->lock);
	code->ref++;
	if (cache)
		pthread_mutex_unlock(&cache->lock);
	return code;
}

void ein_code_free(struct ein_cache *cache, struct ein_code *code)
{
	if (!cache)
		return code_unref(code);
	pthread_mutex_lock(&cache->lock);
	code_unref(code);
	pthread_mutex_unlock(&cache->lock);
}

/* Compare two "NAME=VALUE" strings, for qsort. */
static int cmp_string(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Print the sizes of "opts" to "f" sorted by name, so that the order in
 * which they were set does not matter. */
static int print_sizes(FILE *f, const ein_options *opts)
{
	int i, n = ein_options_n_size(opts);
	char *item[n + 1];

	for (i = 0; i < n; ++i)
		if (asprintf(&item[i], "%s%s%ld", ein_options_get_size_name(
				opts, i), ein_options_size_is_fixed(opts, i) ?
				"==" : "=", ein_options_get_size_value(opts,
				i)) < 0)
			break;
	if (i == n)
		qsort(item, n, sizeof(*item), &cmp_string);
	for (n = i, i = 0; i < n; ++i) {
		fprintf(f, "%s,", item[i]);
		free(item[i]);
	}
	return n == ein_options_n_size(opts) ? 0 : -1;
}

/* Each part is "name:length:text\n", so that no text can pass for
 * another part. */
static void print_part(FILE *f, const char *name, const char *text)
{
	fprintf(f, "%s:%zu:%s\n", name, strlen(text), text);
}

char *ein_cache_key(const struct ein_func *func,
	const struct ein_sched_choice *sched, const ein_options *opts,
	const char *target)
{
	const struct ein_src *src = func->def->loc.src;
	char *key = NULL;
	size_t len;
	FILE *f = open_memstream(&key, &len);
	int ok;

	if (!f)
		return NULL;
	print_part(f, "source", src ? src->text : "");
	print_part(f, "def", func->def->name);
	print_part(f, "schedule", sched->file ? sched->file->src->text : "");
	print_part(f, "target", target);
	fprintf(f, "strict-fp:%d\nsizes:", ein_options_get_strict_fp(opts));
	ok = print_sizes(f, opts);
	if (fclose(f) != 0 || ok < 0) {
		free(key);
		return NULL;
	}
	return key;
}

/* Move "e", found after "prev" (NULL: at the head), to the head. */
static void move_to_front(struct ein_cache *cache, struct entry *prev,
	struct entry *e)
{
	if (!prev)
		return;
	prev->next = e->next;
	e->next = cache->head;
	cache->head = e;
}

struct ein_code *ein_cache_find(struct ein_cache *cache, const char *key)
{
	uint64_t hash = hash_string(key);
	struct entry *e, *prev = NULL;
	struct ein_code *code = NULL;

	pthread_mutex_lock(&cache->lock);
	for (e = cache->head; e; prev = e, e = e->next)
		if (e->hash == hash && !strcmp(e->key, key))
			break;
	if (e) {
		move_to_front(cache, prev, e);
		code = e->code;
		code->ref++;
		cache->hits++;
	} else {
		cache->misses++;
	}
	pthread_mutex_unlock(&cache->lock);
	return code;
}

/* Drop the entry used longest ago once there are too many; the caller
 * holds the lock. */
static void evict(struct ein_cache *cache)
{
	struct entry **pos = &cache->head;

	if (cache->n_entry <= EIN_CACHE_CAPACITY)
		return;
	while ((*pos)->next)
		pos = &(*pos)->next;
	entry_free(*pos);
	*pos = NULL;
	cache->n_entry--;
}

int ein_cache_add(struct ein_cache *cache, const char *key,
	struct ein_code *code)
{
	struct entry *e = calloc(1, sizeof(*e));

	if (!e || !(e->key = strdup(key))) {
		free(e);
		return -1;
	}
	e->hash = hash_string(key);
	e->code = code;
	pthread_mutex_lock(&cache->lock);
	code->ref++;
	e->next = cache->head;
	cache->head = e;
	cache->n_entry++;
	evict(cache);
	pthread_mutex_unlock(&cache->lock);
	return 0;
}

/* The sizes "opts" fix for "func" into code->fixed, and as the parameter
 * set code->job.sizes, after checking that every tensor still has a
 * shape there (codegen/wrap.c, as for ein_aot_fix_size).  Nothing when
 * none is fixed. */
static int fixed_sizes(ein_ctx *ctx, struct ein_code *code,
	const struct ein_func *func, const ein_options *opts)
{
	code->fixed = calloc(func->n_size + 1, sizeof(*code->fixed));
	if (!code->fixed)
		return ein_error(ctx, EIN_ERROR_NOMEM, "out of memory"), -1;
	return ein_wrap_options_sizes(ctx, func, opts, code->fixed,
		&code->job.sizes);
}

struct ein_code *ein_code_compile(ein_ctx *ctx, ein_program *prog,
	const struct ein_func *func, const struct ein_sched_choice *sched,
	const ein_options *opts)
{
	struct ein_code *code = calloc(1, sizeof(*code));
	int ok;

	if (!code) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	code->ref = 1;
	code->prog = ein_program_copy(prog);
	code->func = func;
	code->job.func = func;
	code->job.until = EIN_PASS_JIT;
	code->job.sched_file = sched->file;
	code->job.strict_fp = ein_options_get_strict_fp(opts);
	code->job.cpu = ein_options_get_cpu(opts);
	code->job.timeout = ein_sched_choice_budget_left(opts, sched);
	code->job.gpu = ein_options_get_opencl(opts, &code->job.cl_platform,
		&code->job.cl_device);
	code->job.cl_flags = ein_options_get_opencl_flags(opts);
	ok = fixed_sizes(ctx, code, func, opts);
	if (ok == 0)
		ok = ein_compile(ctx, &code->job);
	code->job.sizes = isl_set_free(code->job.sizes);
	if (ok < 0) {
		code_unref(code);
		return NULL;
	}
	/* The schedule belongs to the kernel that chose it; the code no
	 * longer needs it. */
	code->job.sched_file = NULL;
	code->entry = (void (*)(void **, const int64_t *)) code->job.entry;
	return code;
}

struct ein_cache_stats ein_cache_get_stats(struct ein_cache *cache)
{
	struct ein_cache_stats stats = { 0, 0, 0 };

	if (!cache)
		return stats;
	pthread_mutex_lock(&cache->lock);
	stats.hits = cache->hits;
	stats.misses = cache->misses;
	stats.n_entry = cache->n_entry;
	pthread_mutex_unlock(&cache->lock);
	return stats;
}
