/*
 * parallel.c: ein_rt_parallel_for, the pthread pool that runs the parallel
 * loops of generated code, and the thread count of the public API.
 *
 * The pool runs one job at a time.  A caller that finds it idle claims it
 * ("busy"), starts the workers the job needs, publishes the job and bumps
 * the generation under the lock, runs chunk 0 itself, waits until
 * "pending" (the workers' chunks not yet done) is 0, and releases the pool.
 * A caller that finds it busy (another application thread's loop) or is
 * itself inside a parallel body runs its loop inline: nobody ever waits
 * for a pool that might be waiting for them, so there is no deadlock.
 *
 * Each worker remembers the last generation it saw and takes at most one
 * chunk per generation.  It cannot miss a job either: a job is published
 * only after every chunk of the previous one is done, so the generation a
 * worker finds when it wakes is the job it has a chunk in.
 *
 * Waiting (for a job, or for the workers' chunks) spins briefly before it
 * sleeps on a condition variable: the loops of one kernel follow each other
 * within microseconds, which is shorter than a futex wake-up, while an
 * idle pool must not steal the cores from the application.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "ein.h"
#include "runtime/parallel.h"

/* The most threads (workers and the caller) a pool may have. */
#define MAX_THREADS 256
/* How many times a waiting thread polls before it sleeps (a few µs). */
#define SPIN_COUNT 2000
/* How often a spinning thread yields its core. */
#define YIELD_EVERY 64

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void) 0)
#endif

/* A loop to run: "body" over [lo, hi) in "n_chunk" chunks. */
struct job {
	ein_rt_body body;
	void *closure;
	int64_t lo;
	int64_t hi;
	int n_chunk;
};

/* A worker thread and the last generation it saw (its own after start). */
struct worker {
	pthread_t thread;
	uint64_t seen;
};

/* The pool.  "lock" guards every field; "generation" and "pending" are
 * also read without it while spinning, so they are accessed atomically.
 *
 * wake: the workers sleep on it until a new generation or "stop";
 * done: the caller sleeps on it until "pending" is 0;
 * busy: a caller owns the pool;
 * stop: the process is exiting; every call runs inline from then on;
 * n_worker, worker: the workers started so far;
 * generation: the number of jobs published;
 * pending: the current job's chunks that workers have not finished;
 * job: the current job.
 */
struct pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t done;
	int busy;
	int stop;
	int n_worker;
	struct worker worker[MAX_THREADS - 1];
	uint64_t generation;
	int pending;
	struct job job;
};

static struct pool pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
/* The thread count from the environment, set once by pool_init. */
static int default_threads = 1;
/* The count set by ein_set_num_threads, 0 for the default (atomic). */
static int requested_threads;
/* Whether this thread is running a parallel body (nested calls run
 * inline), and which worker it is (-1 for application threads). */
static _Thread_local int in_body;
static _Thread_local int worker_index = -1;

/* The number of CPUs this process may run on. */
static int cpu_count(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int) n;
}

/* The thread count "text" (EIN_NUM_THREADS) asks for, 0 unless it is a
 * whole number in [1, MAX_THREADS]. */
static int parse_threads(const char *text)
{
	char *end;
	long n;

	if (!text || !*text)
		return 0;
	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || *end || n < 1 || n > MAX_THREADS)
		return 0;
	return (int) n;
}

/* fork() copies only the forking thread: the child gets a pool without
 * workers.  The lock is held across fork so that its state is known. */
static void before_fork(void)
{
	pthread_mutex_lock(&pool.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&pool.lock);
}

static void after_fork_child(void)
{
	pool.n_worker = 0;
	pool.busy = 0;
	pool.pending = 0;
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	pthread_mutex_unlock(&pool.lock);
}

/* Read the default thread count once: EIN_NUM_THREADS if it is valid,
 * else the CPUs of the process's affinity mask (which taskset and
 * container limits narrow), else the online CPUs. */
static void pool_init(void)
{
	int n = parse_threads(getenv("EIN_NUM_THREADS"));

	default_threads = n ? n : cpu_count();
	pthread_atfork(&before_fork, &after_fork_parent, &after_fork_child);
}

int ein_get_num_threads(void)
{
	int n = __atomic_load_n(&requested_threads, __ATOMIC_RELAXED);

	pthread_once(&pool_once, &pool_init);
	return n > 0 ? n : default_threads;
}

ein_status ein_set_num_threads(int n)
{
	if (n < 0 || n > MAX_THREADS)
		return EIN_ERROR_INVALID;
	__atomic_store_n(&requested_threads, n, __ATOMIC_RELAXED);
	return EIN_OK;
}

/* Run chunk "c" of "job": the chunks cut [lo, hi) into n_chunk contiguous
 * pieces whose sizes differ by at most 1, the larger ones first.  The
 * arithmetic is unsigned so that a range wider than INT64_MAX (lo very
 * negative, hi very positive) cannot overflow. */
static void run_chunk(const struct job *job, int c)
{
	uint64_t len = (uint64_t) job->hi - (uint64_t) job->lo;
	uint64_t n = job->n_chunk, k = c;
	uint64_t base = len / n, rem = len % n;
	uint64_t start = (uint64_t) job->lo + k * base + (k < rem ? k : rem);
	uint64_t end = start + base + (k < rem);

	job->body(job->closure, (int64_t) start, (int64_t) end);
}

/* Pause in step "i" of a spin: mostly a CPU pause, now and then a yield,
 * so that a spinning thread sharing its core with the thread it waits for
 * (more threads than cores) lets that one run. */
static void relax(int i)
{
	if (i % YIELD_EVERY == YIELD_EVERY - 1)
		sched_yield();
	else
		cpu_relax();
}

/* Poll "*p" until it differs from "value" or the spin budget runs out. */
static void spin_while_u64(uint64_t *p, uint64_t value)
{
	int i;

	for (i = 0; i < SPIN_COUNT; ++i) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) != value)
			return;
		relax(i);
	}
}

static void spin_while_nonzero(int *p)
{
	int i;

	for (i = 0; i < SPIN_COUNT; ++i) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == 0)
			return;
		relax(i);
	}
}

/* Wait until a job newer than worker k's last one is published and copy
 * it to *job.  Returns -1 when the pool stops instead.  A job published
 * before "stop" is still taken: its caller waits for this worker's chunk. */
static int next_job(struct worker *w, struct job *job)
{
	spin_while_u64(&pool.generation, w->seen);
	pthread_mutex_lock(&pool.lock);
	while (!pool.stop &&
	    __atomic_load_n(&pool.generation, __ATOMIC_RELAXED) == w->seen)
		pthread_cond_wait(&pool.wake, &pool.lock);
	if (__atomic_load_n(&pool.generation, __ATOMIC_RELAXED) == w->seen) {
		pthread_mutex_unlock(&pool.lock);
		return -1;
	}
	w->seen = __atomic_load_n(&pool.generation, __ATOMIC_RELAXED);
	*job = pool.job;
	pthread_mutex_unlock(&pool.lock);
	return 0;
}

/* Tell the caller that one more of its workers' chunks is done. */
static void finish_chunk(void)
{
	pthread_mutex_lock(&pool.lock);
	if (__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_ACQ_REL) == 0)
		pthread_cond_signal(&pool.done);
	pthread_mutex_unlock(&pool.lock);
}

/* Worker k runs chunk k + 1 of every job that has one. */
static void *worker_main(void *arg)
{
	int k = (int) (intptr_t) arg;
	struct worker *w = &pool.worker[k];
	struct job job;

	in_body = 1;
	worker_index = k;
	while (next_job(w, &job) == 0) {
		if (k + 1 >= job.n_chunk)
			continue;
		run_chunk(&job, k + 1);
		finish_chunk();
	}
	return NULL;
}

/* Start workers until there are "n" (or thread creation fails: the pool
 * then runs with fewer).  Workers block asynchronous signals, which belong
 * to the application's threads; faults still reach their handlers.
 * Called with the lock held. */
static void grow(int n)
{
	static const int sync_signals[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS
	};
	sigset_t mask, old;
	size_t i;

	sigfillset(&mask);
	for (i = 0; i < sizeof(sync_signals) / sizeof(*sync_signals); ++i)
		sigdelset(&mask, sync_signals[i]);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	while (pool.n_worker < n) {
		struct worker *w = &pool.worker[pool.n_worker];

		w->seen = __atomic_load_n(&pool.generation, __ATOMIC_RELAXED);
		if (pthread_create(&w->thread, NULL, &worker_main,
		    (void *) (intptr_t) pool.n_worker) != 0)
			break;
		pool.n_worker++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Claim the pool for a job of up to "n_chunk" chunks, starting the
 * workers it needs.  Returns the number of chunks the pool can run, or 1
 * (run inline) when it is busy, stopped, or has no worker. */
static int claim(int n_chunk)
{
	pthread_mutex_lock(&pool.lock);
	if (pool.busy || pool.stop) {
		pthread_mutex_unlock(&pool.lock);
		return 1;
	}
	grow(n_chunk - 1);
	if (pool.n_worker + 1 < n_chunk)
		n_chunk = pool.n_worker + 1;
	pool.busy = n_chunk > 1;
	pthread_mutex_unlock(&pool.lock);
	return n_chunk;
}

/* Hand "job" to the workers of a claimed pool. */
static void publish(const struct job *job)
{
	pthread_mutex_lock(&pool.lock);
	pool.job = *job;
	__atomic_store_n(&pool.pending, job->n_chunk - 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pool.generation, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);
}

/* Wait until the workers' chunks are done, and release the pool. */
static void wait_and_release(void)
{
	spin_while_nonzero(&pool.pending);
	pthread_mutex_lock(&pool.lock);
	while (__atomic_load_n(&pool.pending, __ATOMIC_ACQUIRE) != 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pool.busy = 0;
	pthread_mutex_unlock(&pool.lock);
}

/* Run "body" over [lo, hi) on this thread, as a parallel body. */
static void run_inline(ein_rt_body body, void *closure, int64_t lo,
	int64_t hi)
{
	int outer = in_body;

	in_body = 1;
	body(closure, lo, hi);
	in_body = outer;
}

/* The number of chunks for [lo, hi) (hi > lo): one per thread, at most
 * one per iteration, and one inside a parallel body. */
static int count_chunks(int64_t lo, int64_t hi)
{
	uint64_t len = (uint64_t) hi - (uint64_t) lo;
	int n;

	if (in_body)
		return 1;
	n = ein_get_num_threads();
	return len < (uint64_t) n ? (int) len : n;
}

void ein_rt_parallel_for(ein_rt_body body, void *closure, int64_t lo,
	int64_t hi)
{
	struct job job = { body, closure, lo, hi, 1 };

	if (hi <= lo)
		return;
	job.n_chunk = count_chunks(lo, hi);
	if (job.n_chunk > 1)
		job.n_chunk = claim(job.n_chunk);
	if (job.n_chunk == 1) {
		run_inline(body, closure, lo, hi);
		return;
	}
	publish(&job);
	in_body = 1;
	run_chunk(&job, 0);
	in_body = 0;
	wait_and_release();
}

/* At exit (or when libein is unloaded), stop the workers and join them, so
 * that no thread runs libein's code after it is gone and LeakSanitizer sees
 * no thread alive.  A worker that is running a chunk finishes it first.
 * If exit() is called from a parallel body on a worker, that worker cannot
 * join itself: it is left to end with the process. */
__attribute__((destructor))
static void pool_shutdown(void)
{
	int i, n;

	pthread_mutex_lock(&pool.lock);
	pool.stop = 1;
	n = pool.n_worker;
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < n; ++i)
		if (i != worker_index)
			pthread_join(pool.worker[i].thread, NULL);
}
