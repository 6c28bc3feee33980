/*
 * check_parallel.c: the thread pool of parallel loops (ein_rt_parallel_for)
 * and the public thread count: every iteration runs exactly once, chunks
 * are contiguous, disjoint and balanced, the pool survives many calls,
 * concurrent and nested callers, and fork().
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <check.h>
#include "ein.h"
#include "runtime/parallel.h"

/* The thread count main() puts in EIN_NUM_THREADS before any call. */
#define ENV_THREADS 3
#define MAX_CHUNKS 64

/* One call of a body: its range and the thread that ran it. */
struct chunk {
	int64_t lo;
	int64_t hi;
	pthread_t thread;
};

/* The chunks of one parallel_for, in the order they ran. */
struct record {
	pthread_mutex_t lock;
	int n;
	struct chunk chunk[MAX_CHUNKS];
};

static void record_body(void *closure, int64_t lo, int64_t hi)
{
	struct record *r = closure;

	pthread_mutex_lock(&r->lock);
	if (r->n < MAX_CHUNKS)
		r->chunk[r->n] = (struct chunk) { lo, hi, pthread_self() };
	r->n++;
	pthread_mutex_unlock(&r->lock);
}

static int by_lo(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Run [lo, hi) and return its chunks sorted by lo in *r. */
static void run_recorded(struct record *r, int64_t lo, int64_t hi)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	ein_rt_parallel_for(&record_body, r, lo, hi);
	pthread_mutex_destroy(&r->lock);
	ck_assert_int_le(r->n, MAX_CHUNKS);
	qsort(r->chunk, r->n, sizeof(*r->chunk), &by_lo);
}

/* The number of different threads among the chunks of "r". */
static int n_thread(const struct record *r)
{
	int i, j, n = 0;

	for (i = 0; i < r->n; ++i) {
		for (j = 0; j < i; ++j)
			if (pthread_equal(r->chunk[i].thread, r->chunk[j].thread))
				break;
		n += j == i;
	}
	return n;
}

/* Counts of each iteration in [lo, lo + n), and of iterations outside
 * it (a body cannot fail a Check assertion on a worker thread). */
struct counts {
	int64_t lo;
	int64_t n;
	int *count;
	int outside;
};

static void count_body(void *closure, int64_t lo, int64_t hi)
{
	struct counts *c = closure;
	int64_t i;

	for (i = lo; i < hi; ++i)
		if (i >= c->lo && i < c->lo + c->n)
			__atomic_add_fetch(&c->count[i - c->lo], 1,
				__ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&c->outside, 1, __ATOMIC_RELAXED);
}

static const int64_t ranges[][2] = {
	{ 0, 0 }, { 5, 5 }, { 5, 3 }, { 0, 1 }, { 0, 2 }, { 0, 3 },
	{ 0, 7 }, { 0, 13 }, { 10, 41 }, { -17, 4 }, { -100, -97 },
	{ -5, 5 }, { 0, 100003 }, { 1000, 1997 },
};

static const int thread_counts[] = { 1, 2, 3, 4, 8 };

/* Every iteration of [lo, hi) runs exactly once, and none outside it. */
START_TEST(every_iteration_once)
{
	int t, i;

	for (t = 0; t < 5; ++t) {
		ck_assert_int_eq(ein_set_num_threads(thread_counts[t]),
			EIN_OK);
		for (i = 0; i < (int) (sizeof(ranges) / sizeof(*ranges)); ++i) {
			int64_t lo = ranges[i][0], hi = ranges[i][1], k;
			struct counts c = { lo, hi > lo ? hi - lo : 0, NULL, 0 };

			c.count = calloc(c.n + 1, sizeof(*c.count));
			ein_rt_parallel_for(&count_body, &c, lo, hi);
			for (k = 0; k < c.n; ++k)
				ck_assert_msg(c.count[k] == 1,
					"%d threads, [%ld, %ld): %ld ran %d times",
					thread_counts[t], (long) lo, (long) hi,
					(long) (lo + k), c.count[k]);
			ck_assert_int_eq(c.outside, 0);
			free(c.count);
		}
	}
	ein_set_num_threads(0);
}
END_TEST

/* Assert that the sorted chunks of "r" tile [lo, hi) in min(n, hi - lo)
 * pieces whose sizes differ by at most 1, each on its own thread. */
static void assert_static_chunks(const struct record *r, int n, int64_t lo,
	int64_t hi)
{
	uint64_t len = (uint64_t) hi - (uint64_t) lo;
	uint64_t want = len < (uint64_t) n ? len : (uint64_t) n;
	uint64_t min = UINT64_MAX, max = 0;
	int i;

	ck_assert_int_eq(r->n, (int) want);
	ck_assert_int_eq(r->chunk[0].lo, lo);
	ck_assert_int_eq(r->chunk[r->n - 1].hi, hi);
	for (i = 0; i < r->n; ++i) {
		uint64_t size = (uint64_t) r->chunk[i].hi -
			(uint64_t) r->chunk[i].lo;

		ck_assert(r->chunk[i].lo < r->chunk[i].hi);
		if (i > 0)
			ck_assert_int_eq(r->chunk[i].lo, r->chunk[i - 1].hi);
		min = size < min ? size : min;
		max = size > max ? size : max;
	}
	ck_assert(max - min <= 1);
	ck_assert_int_eq(n_thread(r), r->n);
}

/* Chunks are contiguous, disjoint and balanced, one per thread, even for
 * ranges wider than INT64_MAX. */
START_TEST(static_chunks)
{
	static const int64_t wide[][2] = {
		{ INT64_MIN, INT64_MAX }, { INT64_MIN, 0 },
		{ INT64_MAX - 5, INT64_MAX }, { -1, INT64_MAX },
	};
	struct record r;
	int t, i;

	for (t = 0; t < 5; ++t) {
		int n = thread_counts[t];

		ein_set_num_threads(n);
		for (i = 0; i < (int) (sizeof(ranges) / sizeof(*ranges)); ++i) {
			run_recorded(&r, ranges[i][0], ranges[i][1]);
			if (ranges[i][1] <= ranges[i][0])
				ck_assert_int_eq(r.n, 0);
			else
				assert_static_chunks(&r, n, ranges[i][0],
					ranges[i][1]);
		}
		for (i = 0; i < 4; ++i) {
			run_recorded(&r, wide[i][0], wide[i][1]);
			assert_static_chunks(&r, n, wide[i][0], wide[i][1]);
		}
	}
	ein_set_num_threads(0);
}
END_TEST

static void sum_body(void *closure, int64_t lo, int64_t hi)
{
	int64_t *sum = closure, s = 0, i;

	for (i = lo; i < hi; ++i)
		s += i;
	__atomic_add_fetch(sum, s, __ATOMIC_RELAXED);
}

/* The pool survives 10^5 tiny calls (each wakes the worker). */
START_TEST(many_calls)
{
	int64_t sum = 0;
	int i;

	ein_set_num_threads(2);
	for (i = 0; i < 100000; ++i)
		ein_rt_parallel_for(&sum_body, &sum, i % 5, 4);
	/* i % 5 = 0..4 gives sums 6, 6, 5, 3, 0 over [i % 5, 4). */
	ck_assert_int_eq(sum, 20000 * (6 + 6 + 5 + 3 + 0));
	ein_set_num_threads(0);
}
END_TEST

/* An application thread issuing parallel loops and checking each. */
static void *caller_main(void *arg)
{
	int *wrong = arg, i;

	for (i = 0; i < 1000; ++i) {
		int64_t sum = 0, n = 1 + (i * 7919) % 1000;

		ein_rt_parallel_for(&sum_body, &sum, 0, n);
		if (sum != n * (n - 1) / 2)
			++*wrong;
	}
	return NULL;
}

/* Four application threads share the pool: every result is right and
 * none of them deadlocks. */
START_TEST(concurrent_callers)
{
	pthread_t thread[4];
	int wrong[4] = { 0 };
	int i;

	ein_set_num_threads(2);
	for (i = 0; i < 4; ++i)
		ck_assert_int_eq(pthread_create(&thread[i], NULL, &caller_main,
			&wrong[i]), 0);
	for (i = 0; i < 4; ++i) {
		ck_assert_int_eq(pthread_join(thread[i], NULL), 0);
		ck_assert_int_eq(wrong[i], 0);
	}
	ein_set_num_threads(0);
}
END_TEST

/* out[i][j] = 100 i + j, by an inner parallel loop over j inside an outer
 * one over i; "inner_calls" counts the calls of the inner body. */
struct nest {
	int out[8][100];
	int inner_calls;
};

struct row {
	struct nest *nest;
	int64_t i;
};

static void inner_body(void *closure, int64_t lo, int64_t hi)
{
	struct row *row = closure;
	int64_t j;

	__atomic_add_fetch(&row->nest->inner_calls, 1, __ATOMIC_RELAXED);
	for (j = lo; j < hi; ++j)
		row->nest->out[row->i][j] = 100 * row->i + j;
}

static void outer_body(void *closure, int64_t lo, int64_t hi)
{
	int64_t i;

	for (i = lo; i < hi; ++i) {
		struct row row = { closure, i };

		ein_rt_parallel_for(&inner_body, &row, 0, 100);
	}
}

/* A parallel loop inside a parallel body runs inline: one call of its
 * body per loop, with the right result. */
START_TEST(nested_calls)
{
	struct nest nest;
	int i, j;

	memset(&nest, 0, sizeof(nest));
	ein_set_num_threads(2);
	ein_rt_parallel_for(&outer_body, &nest, 0, 8);
	for (i = 0; i < 8; ++i)
		for (j = 0; j < 100; ++j)
			ck_assert_int_eq(nest.out[i][j], 100 * i + j);
	ck_assert_int_eq(nest.inner_calls, 8);
	ein_set_num_threads(0);
}
END_TEST

/* With 1 thread everything runs inline on the caller; with 2, two
 * iterations run on two threads, the caller's being the first. */
START_TEST(thread_count)
{
	struct record r;

	ck_assert_int_eq(ein_set_num_threads(1), EIN_OK);
	ck_assert_int_eq(ein_get_num_threads(), 1);
	run_recorded(&r, 0, 100);
	ck_assert_int_eq(r.n, 1);
	ck_assert(pthread_equal(r.chunk[0].thread, pthread_self()));

	ck_assert_int_eq(ein_set_num_threads(2), EIN_OK);
	ck_assert_int_eq(ein_get_num_threads(), 2);
	run_recorded(&r, 0, 2);
	ck_assert_int_eq(r.n, 2);
	ck_assert(pthread_equal(r.chunk[0].thread, pthread_self()));
	ck_assert(!pthread_equal(r.chunk[1].thread, pthread_self()));
	ck_assert_int_eq(n_thread(&r), 2);

	ck_assert_int_eq(ein_set_num_threads(1), EIN_OK);
	run_recorded(&r, 0, 2);
	ck_assert_int_eq(r.n, 1);
	ck_assert(pthread_equal(r.chunk[0].thread, pthread_self()));
}
END_TEST

/* 0 restores the default (EIN_NUM_THREADS, set by main); a negative or
 * huge count is refused and changes nothing. */
START_TEST(default_and_invalid_counts)
{
	ck_assert_int_eq(ein_set_num_threads(0), EIN_OK);
	ck_assert_int_eq(ein_get_num_threads(), ENV_THREADS);
	ck_assert_int_eq(ein_set_num_threads(-1), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_set_num_threads(257), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_get_num_threads(), ENV_THREADS);
	ck_assert_int_eq(ein_set_num_threads(256), EIN_OK);
	ck_assert_int_eq(ein_get_num_threads(), 256);
	ck_assert_int_eq(ein_set_num_threads(0), EIN_OK);
}
END_TEST

/* A child forked after the pool started gets a working pool of its own
 * (Check itself forks each test). */
START_TEST(fork_child_has_a_pool)
{
	struct record r;
	int status;
	pid_t pid;

	ein_set_num_threads(2);
	run_recorded(&r, 0, 2);
	ck_assert_int_eq(n_thread(&r), 2);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int64_t sum = 0;

		ein_rt_parallel_for(&sum_body, &sum, 0, 1000);
		run_recorded(&r, 0, 2);
		_exit(sum == 999 * 1000 / 2 && n_thread(&r) == 2 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ein_set_num_threads(0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("parallel");
	SRunner *sr;
	int failed;

	/* Before any call: the default is read once per process. */
	setenv("EIN_NUM_THREADS", "3", 1);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_iteration_once);
	tcase_add_test(tc, static_chunks);
	tcase_add_test(tc, many_calls);
	tcase_add_test(tc, concurrent_callers);
	tcase_add_test(tc, nested_calls);
	tcase_add_test(tc, thread_count);
	tcase_add_test(tc, default_and_invalid_counts);
	tcase_add_test(tc, fork_child_has_a_pool);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
