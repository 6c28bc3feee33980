/*
 * measure.c: timing and checking candidates in child processes.
 *
 * The parent forks, the child does the work and writes its result (a
 * fixed-size record) to a pipe, and the parent waits on the pipe with a
 * deadline.  The outcome is read from how the child ended:
 *
 *   exit 0, full record     ok (or wrong answer, per the record)
 *   exit CHILD_NOMEM        out of memory (a refused allocation)
 *   killed by SIGKILL       out of memory (the kernel's OOM killer)
 *   killed by the parent    timeout
 *   any other signal/exit   crash
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "cli/cli.h"
#include "driver/options.h"
#include "opencl/runtime.h"
#include "autotune/measure.h"
#include "autotune/rank.h"

#define CHILD_NOMEM 3
#define CHILD_FAILED 5
#define MAX_TENSOR 16
#define MAX_REPS 2000

static const char *const status_names[EIN_TRIAL_N_STATUS] = {
	"ok", "illegal", "compile-error", "crash", "timeout", "wrong-answer",
	"out-of-memory", "slow"
};

const char *ein_trial_status_name(enum ein_trial_status status)
{
	if ((int) status < 0 || status >= EIN_TRIAL_N_STATUS)
		return "unknown";
	return status_names[status];
}

int ein_trial_status_from_name(const char *name)
{
	int i;

	for (i = 0; name && i < EIN_TRIAL_N_STATUS; ++i)
		if (!strcmp(status_names[i], name))
			return i;
	return -1;
}

enum ein_fault ein_fault_for_trial(int trial)
{
	static const char *const kinds[] = { "", "crash", "hang", "oom",
		"wrong", "fluke", "lucky", "error" };
	const char *spec = getenv("EIN_TUNE_INJECT");
	char buf[256], *tok, *save = NULL;
	enum ein_fault fault = EIN_FAULT_NONE;

	if (!spec)
		return EIN_FAULT_NONE;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		int k;

		if (!colon || atoi(colon + 1) != trial)
			continue;
		*colon = '\0';
		for (k = 1; k < (int) (sizeof(kinds) / sizeof(*kinds)); ++k)
			if (!strcmp(tok, kinds[k]))
				fault = (enum ein_fault) k;
	}
	return fault;
}

int ein_inject_remeasure_budget(void)
{
	const char *spec = getenv("EIN_TUNE_INJECT");
	char buf[256], *tok, *save = NULL;
	int n = -1;

	if (!spec)
		return -1;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strncmp(tok, "budget:", 7))
			n = atoi(tok + 7);
	return n;
}

enum ein_fault ein_fault_at(enum ein_fault asked,
	enum ein_measure_phase phase)
{
	if (asked == EIN_FAULT_FLUKE)
		return phase == EIN_MEASURE_FIRST ? EIN_FAULT_FAST :
			EIN_FAULT_SLOWED;
	if (asked == EIN_FAULT_LUCKY)
		return phase == EIN_MEASURE_FINAL ? EIN_FAULT_SLOWED :
			EIN_FAULT_FAST;
	return phase == EIN_MEASURE_FIRST ? asked : EIN_FAULT_NONE;
}

/* The factor by which a child of fault "f" scales the times it
 * reports (the FAST and SLOWED test faults). */
static double time_scale(enum ein_fault f)
{
	return f == EIN_FAULT_FAST ? 0.01 : f == EIN_FAULT_SLOWED ? 100 : 1;
}

/* The child's result: status (EIN_TRIAL_OK or EIN_TRIAL_WRONG), the
 * median time, and a message for a wrong answer (or the device's
 * information, ein_measure_device). */
struct child_result {
	int status;
	double seconds;
	char msg[512];
};

_Static_assert(sizeof(struct ein_ocl_device_info) <=
	sizeof(((struct child_result *) 0)->msg), "device info fits");

/* The bytes this process maps now (from /proc/self/statm), 0 if
 * unknown. */
static long mapped_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * sysconf(_SC_PAGESIZE);
}

/* In the child: limits, and the injected fault that needs no kernel. */
static void child_setup(const struct ein_measure_opts *o, enum ein_fault f)
{
	struct rlimit rl;
	long base = mapped_bytes();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm((unsigned) o->timeout + 2);
	/* The child builds and runs the device's code (runtime.h). */
	ein_ocl_forbid_load(0);
	if (o->mem_limit > 0 && base > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t) base + o->mem_limit;
		setrlimit(RLIMIT_AS, &rl);
	}
	if (f == EIN_FAULT_CRASH)
		abort();
	while (f == EIN_FAULT_HANG)
		pause();
	/* The injected out-of-memory only exhausts the address space the
	 * limit allows: touching the pages as well would make the test's
	 * time depend on the machine's load. */
	while (f == EIN_FAULT_OOM) {
		char *p = mmap(NULL, 1L << 26, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(CHILD_NOMEM);
	}
}

/* Wait for child "pid" to send "res" on "fd" within "timeout" seconds,
 * then reap it and classify its end. */
static enum ein_trial_status wait_child(pid_t pid, int fd, double timeout,
	struct child_result *res)
{
	double deadline = ein_cli_now() + timeout;
	size_t got = 0;
	int status = 0, timed_out = 0;

	while (got < sizeof(*res)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = deadline - ein_cli_now();
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(&pfd, 1, (int) (left * 1000) + 1) <= 0)
			continue;
		n = read(fd, (char *) res + got, sizeof(*res) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return EIN_TRIAL_TIMEOUT;
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NOMEM)
		return EIN_TRIAL_OOM;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return EIN_TRIAL_OOM;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return EIN_TRIAL_TIMEOUT;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    got < sizeof(*res))
		return EIN_TRIAL_CRASH;
	return (enum ein_trial_status) res->status;
}

/* ein_measure_last_message's text. */
static char last_message[512];

const char *ein_measure_last_message(void)
{
	return last_message;
}

/* In the child, after "work" returned "code": a failed call's message
 * from the context of "o" into res->msg (sent only with a failure). */
static void child_failure(const struct ein_measure_opts *o, int code,
	struct child_result *res)
{
	const char *m;

	if (code != CHILD_FAILED || !o->ctx)
		return;
	m = ein_ctx_last_error(o->ctx);
	if (!strncmp(m, "error: ", 7))
		m += 7;
	snprintf(res->msg, sizeof(res->msg), "%.*s", (int) strcspn(m, "\n"),
		m);
}

/* Run "work" in a child under the limits of "o" with fault "f".  A
 * child whose work fails still sends its record, with the failure's
 * message (child_failure), before it exits with the failure's code. */
static enum ein_trial_status in_child(
	int (*work)(void *user, struct child_result *res), void *user,
	const struct ein_measure_opts *o, enum ein_fault f,
	struct child_result *res)
{
	int fds[2];
	pid_t pid;
	enum ein_trial_status st;

	memset(res, 0, sizeof(*res));
	fflush(NULL);
	if (pipe(fds) < 0)
		return EIN_TRIAL_CRASH;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return EIN_TRIAL_CRASH;
	}
	if (pid == 0) {
		int code;

		close(fds[0]);
		child_setup(o, f);
		code = work(user, res);
		child_failure(o, code, res);
		if (write(fds[1], res, sizeof(*res)) != (ssize_t) sizeof(*res)
				&& code == 0)
			code = CHILD_FAILED;
		_exit(code);
	}
	close(fds[1]);
	st = wait_child(pid, fds[0], o->timeout, res);
	close(fds[0]);
	last_message[0] = '\0';
	if (st == EIN_TRIAL_CRASH)
		snprintf(last_message, sizeof(last_message), "%s", res->msg);
	return st;
}

/* The tensors of one call of "k" at "sizes", inputs random. */
struct args {
	ein_kernel *k;
	const int64_t *sizes;
	int n;
	struct ein_cli_tensor t[MAX_TENSOR];
	DLTensor *dl[MAX_TENSOR];
};

/* Allocate the tensors of "a"; returns CHILD_NOMEM or 0. */
static int args_alloc(struct args *a, uint64_t seed)
{
	int i;

	a->n = ein_kernel_n_tensor(a->k);
	if (a->n > MAX_TENSOR)
		return CHILD_FAILED;
	for (i = 0; i < a->n; ++i) {
		if (ein_cli_tensor_alloc(&a->t[i], a->k, i, a->sizes) < 0)
			return CHILD_NOMEM;
		if (ein_kernel_tensor_is_input(a->k, i))
			ein_cli_tensor_randomize(&a->t[i], &seed);
		a->dl[i] = &a->t[i].dl;
	}
	return 0;
}

/* Call the kernel of "a"; with "bad", one tensor too few (the ERROR
 * fault: a call that fails with the library's message). */
static int call_as(struct args *a, int bad)
{
	ein_status st = ein_kernel_call(a->k, a->dl, a->n - (bad != 0),
		a->sizes, ein_kernel_n_size(a->k));

	return st == EIN_OK ? 0 : st == EIN_ERROR_NOMEM ? CHILD_NOMEM :
		CHILD_FAILED;
}

static int call(struct args *a)
{
	return call_as(a, 0);
}

/* The time of the call of "k" that took "host" seconds on the host: the
 * device's, from its profiling events, for a kernel compiled for OpenCL
 * with profiling (the kernels alone, without the copies of host tensors
 * or the launch), else "host". */
static double device_or_host(ein_kernel *k, double host)
{
	double d = ein_kernel_get_device_seconds(k);

	return d >= 0 ? d : host;
}

/* What the timing child needs. */
struct time_work {
	struct args a;
	double min_time, best, slow_factor, scale;
	int bad_call;
};

static int time_work(void *user, struct child_result *res)
{
	struct time_work *w = user;
	double t[MAX_REPS], start;
	int n = 0, r = args_alloc(&w->a, 1);

	if (r || (r = call_as(&w->a, w->bad_call)))
		return r;
	start = ein_cli_now();
	while (n < MAX_REPS && (n < 3 || ein_cli_now() - start < w->min_time)) {
		double t0 = ein_cli_now();

		if ((r = call(&w->a)))
			return r;
		t[n++] = w->scale * device_or_host(w->a.k,
			ein_cli_now() - t0);
		/* The first call after the warm-up: the warm-up itself
		 * also pays for first touches of the outputs. */
		if (n == 1 && ein_rank_too_slow(t[0], w->best,
				w->slow_factor)) {
			res->status = EIN_TRIAL_SLOW;
			res->seconds = t[0];
			return 0;
		}
	}
	res->status = EIN_TRIAL_OK;
	res->seconds = ein_cli_median(t, n);
	return 0;
}

enum ein_trial_status ein_measure_time(ein_kernel *k, const int64_t *sizes,
	const struct ein_measure_opts *o, enum ein_fault fault,
	double *seconds)
{
	struct time_work w = { .a = { .k = k, .sizes = sizes },
		.min_time = o->min_time, .best = o->best,
		.slow_factor = o->slow_factor, .scale = time_scale(fault),
		.bad_call = fault == EIN_FAULT_ERROR };
	struct child_result res;
	enum ein_trial_status st;

	st = in_child(&time_work, &w, o, fault == EIN_FAULT_WRONG ||
		fault == EIN_FAULT_ERROR ? EIN_FAULT_NONE : fault, &res);
	*seconds = st == EIN_TRIAL_OK || st == EIN_TRIAL_SLOW ? res.seconds :
		-1;
	return st;
}

/* What the checking child needs. */
struct check_work {
	struct args a, ref;
	long red;
	int corrupt;
};

/* Compare output "i" of the kernel's run with the reference's. */
static int compare_output(struct check_work *w, int i,
	struct child_result *res)
{
	struct ein_cli_tensor *t = &w->a.t[i], *r = &w->ref.t[i];
	double err, ref, eps, tol;

	ein_cli_tensor_compare(t, r, &err, &ref);
	eps = t->elem_size == 8 ? DBL_EPSILON : FLT_EPSILON;
	tol = ein_cli_tensor_is_integer(t) ? 0 :
		4.0 * (double) w->red * (double) w->red * eps * (ref + 1);
	if (err <= tol)
		return 0;
	res->status = EIN_TRIAL_WRONG;
	snprintf(res->msg, sizeof(res->msg), "output %s differs from the "
		"reference interpreter by %g (allowed %g)",
		ein_kernel_get_tensor_name(w->a.k, i), err, tol);
	return 1;
}

static int check_work(void *user, struct child_result *res)
{
	struct check_work *w = user;
	int r, i;

	if ((r = args_alloc(&w->a, 7)) || (r = args_alloc(&w->ref, 7)))
		return r;
	if ((r = call(&w->a)))
		return r;
	if (ein_kernel_call_reference(w->ref.k, w->ref.dl, w->ref.n,
			w->ref.sizes, ein_kernel_n_size(w->ref.k)) != EIN_OK)
		return CHILD_FAILED;
	res->status = EIN_TRIAL_OK;
	for (i = 0; i < w->a.n; ++i) {
		if (!ein_kernel_tensor_is_output(w->a.k, i))
			continue;
		if (w->corrupt && w->a.t[i].n > 0)
			memset(w->a.t[i].dl.data, 0x7f, w->a.t[i].elem_size);
		if (compare_output(w, i, res))
			break;
	}
	return 0;
}

enum ein_trial_status ein_measure_check(ein_kernel *k, const int64_t *sizes,
	long red, const struct ein_measure_opts *o, enum ein_fault fault,
	char *msg, int len)
{
	struct check_work w = { .a = { .k = k, .sizes = sizes },
		.ref = { .k = k, .sizes = sizes }, .red = red < 1 ? 1 : red,
		.corrupt = fault == EIN_FAULT_WRONG };
	struct child_result res;
	enum ein_trial_status st;
	struct ein_measure_opts co = *o;

	co.timeout = o->timeout * 4 + 10;
	st = in_child(&check_work, &w, &co, EIN_FAULT_NONE, &res);
	snprintf(msg, len, "%s", st == EIN_TRIAL_WRONG ? res.msg : "");
	return st;
}

/* What the device-information child needs: the target and the
 * answer. */
struct device_work {
	const char *target;
	struct ein_ocl_device_info info;
};

/* In the child, a context of its own: what it loads of OpenCL stays
 * there. */
static int device_work(void *user, struct child_result *res)
{
	struct device_work *w = user;
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	int p = -1, d = -1;

	res->status = EIN_TRIAL_WRONG;
	if (ctx && opts && ein_options_set_target(opts, w->target) == EIN_OK)
		ein_options_get_opencl(opts, &p, &d);
	if (ctx && ein_ocl_device_info(ctx, p, d, &w->info) == 0) {
		res->status = EIN_TRIAL_OK;
		res->seconds = 0;
		memcpy(res->msg, &w->info, sizeof(w->info));
	} else {
		snprintf(res->msg, sizeof(res->msg), "%s", ctx ?
			ein_ctx_last_error(ctx) : "out of memory");
	}
	return 0;
}

int ein_measure_device(const char *target, struct ein_ocl_device_info *info,
	char *msg, int len)
{
	struct device_work w = { .target = target };
	struct ein_measure_opts o = { .timeout = 60 };
	struct child_result res;
	enum ein_trial_status st;

	st = in_child(&device_work, &w, &o, EIN_FAULT_NONE, &res);
	if (st == EIN_TRIAL_OK) {
		memset(info, 0, sizeof(*info));
		memcpy(info, res.msg, sizeof(*info));
		return 0;
	}
	/* The context's message without its "error: " and newline. */
	snprintf(msg, len, "%s", st != EIN_TRIAL_WRONG ?
		ein_trial_status_name(st) : strncmp(res.msg, "error: ", 7) ?
		res.msg : res.msg + 7);
	msg[strcspn(msg, "\n")] = '\0';
	return -1;
}
