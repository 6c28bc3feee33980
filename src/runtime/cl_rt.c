/*
 * cl_rt.c: the OpenCL runtime of kernels compiled ahead of time for
 * OpenCL (cl_rt.h), in libein_rt.
 *
 * An object from "ein compile --target opencl" holds, per definition, a
 * description of its kernels (opencl/aot.c writes it: the OpenCL C text,
 * each kernel's name and grid, each argument's place and size as
 * expressions of the sizes) and a slot for the state this file keeps for
 * it: the description parsed at the first call, and per OpenCL context
 * the program built once, its kernels and the buffers of host tensors
 * and temporaries, kept for the next call while large enough.  The host
 * functions (NAME) run on a context and queue of this process, made at
 * their first call on the device EIN_OPENCL_DEVICE=P:D names, else the
 * first GPU, else the first device; the _cl functions on the caller's
 * queue, with cl_mem tensors.  A definition's calls are serialised by its
 * state's lock (kernel arguments and kept buffers are state).
 *
 * The description, a text (prefix expressions: an integer, $i for size
 * i, or "(OP ARG...)"):
 *
 *   ein-opencl VERSION N_SIZE N_ARG N_KERNEL
 *   arg SIG ROLE BYTES N_DIM EXTENT...    (N_ARG lines; SIG: position in
 *                                          the signature, -1 for a
 *                                          temporary; ROLE 1 for an
 *                                          output, 2 for a constant
 *                                          input, else 0; BYTES per
 *                                          element)
 *   kernel NAME N_BLOCK N_THREAD L0 L1 L2 (then per block dimension:)
 *     INIT CMP BOUND INC                  (CMP le or lt, ? if unknown)
 *   source LENGTH
 *   TEXT
 *
 * VERSION is 1, or 2 where an argument is constant (ein compile --const):
 * its tensor is the object's own host array, whatever the call, uploaded
 * into a kept device buffer at the first call on each context and never
 * again (kernels do not write their inputs).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include "runtime/cl_rt.h"

#define MAX_DIM 3
#define MAX_CL 16

/* An expression node: an integer (op 0), a size (op '$'), or an operation
 * on n arguments. */
struct expr {
	int op;
	int64_t value;
	int n;
	struct expr **arg;
};

/* One argument of the kernels: sig, bytes, n_dim, extent as in the
 * description; out and konst from its role. */
struct arg {
	int sig;
	int out;
	int konst;
	int bytes;
	int n_dim;
	struct expr *extent[8];
};

/* One kernel: name, grid (init, cmp, bound, inc per block dimension),
 * and the work-group's extent. */
struct kernel {
	char name[128];
	int n_block;
	int n_thread;
	long local[MAX_DIM];
	struct expr *init[MAX_DIM];
	char cmp[MAX_DIM][4];
	struct expr *bound[MAX_DIM];
	struct expr *inc[MAX_DIM];
};

/* The program of a definition built for one context: context, device,
 * program, kernel (one per description kernel), buf and cap (per
 * argument, the kept buffer and its bytes), sent (per argument, 1 once a
 * constant's data are in buf), max_group, next. */
struct built {
	cl_context context;
	cl_device_id device;
	cl_program program;
	cl_kernel *kernel;
	cl_mem *buf;
	size_t *cap;
	char *sent;
	size_t max_group;
	struct built *next;
};

/* The state of a definition: lock, the parsed description and its
 * programs. */
struct state {
	pthread_mutex_t lock;
	int n_size;
	int n_arg;
	struct arg *arg;
	int n_kernel;
	struct kernel *kernel;
	char *source;
	struct built *built;
};

static __thread char message[512];

const char *ein_rt_cl_last_error(void)
{
	return message;
}

static int fail(const char *fmt, cl_int err)
{
	snprintf(message, sizeof(message), fmt, (int) err);
	return EIN_RT_CL_ERROR_DEVICE;
}

/* ---- the description ------------------------------------------------ */

static void skip_space(const char **s)
{
	while (**s == ' ' || **s == '\n' || **s == '\t')
		(*s)++;
}

static int read_int(const char **s, int64_t *v)
{
	char *end;

	skip_space(s);
	*v = strtoll(*s, &end, 10);
	if (end == *s)
		return -1;
	*s = end;
	return 0;
}

static int read_word(const char **s, char *buf, size_t size)
{
	size_t n;

	skip_space(s);
	n = strcspn(*s, " \n\t()");
	if (n == 0 || n >= size)
		return -1;
	memcpy(buf, *s, n);
	buf[n] = '\0';
	*s += n;
	return 0;
}

static void expr_free(struct expr *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < e->n; ++i)
		expr_free(e->arg[i]);
	free(e->arg);
	free(e);
}

static const char *const op_names[] = {
	"+", "-", "*", "/", "fdiv", "%", "min", "max", "neg", "and", "or",
	"eq", "le", "lt", "ge", "gt", "sel", NULL
};

/* expr: INT | '$' INT | '(' OP expr... ')' */
static struct expr *read_expr(const char **s)
{
	struct expr *e = calloc(1, sizeof(*e));
	char word[16];
	int i;

	if (!e)
		return NULL;
	skip_space(s);
	if (**s == '$') {
		(*s)++;
		e->op = '$';
		if (read_int(s, &e->value) == 0)
			return e;
	} else if (**s != '(') {
		if (read_int(s, &e->value) == 0)
			return e;
	} else {
		(*s)++;
		if (read_word(s, word, sizeof(word)) == 0)
			for (i = 0; op_names[i]; ++i)
				if (!strcmp(word, op_names[i]))
					e->op = 256 + i;
		skip_space(s);
		while (e->op && **s && **s != ')' && e->n < 8) {
			struct expr **more = realloc(e->arg,
				(e->n + 1) * sizeof(*more));

			if (!more)
				break;
			e->arg = more;
			if (!(e->arg[e->n] = read_expr(s)))
				break;
			e->n++;
			skip_space(s);
		}
		if (e->op && **s == ')' && e->n > 0) {
			(*s)++;
			return e;
		}
	}
	expr_free(e);
	return NULL;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The value of "e" at "sizes" in *v; -1 on a division by zero. */
static int eval(const struct expr *e, const int64_t *sizes, int64_t *v)
{
	int64_t a[8];
	int i;

	if (e->op == 0 || e->op == '$') {
		*v = e->op ? sizes[e->value] : e->value;
		return 0;
	}
	for (i = 0; i < e->n; ++i)
		if (eval(e->arg[i], sizes, &a[i]) < 0)
			return -1;
	switch (e->op - 256) {
	case 0: *v = a[0] + a[1]; return 0;
	case 1: *v = a[0] - a[1]; return 0;
	case 2: *v = a[0] * a[1]; return 0;
	case 3: if (!a[1]) return -1; *v = a[0] / a[1]; return 0;
	case 4: if (!a[1]) return -1; *v = floor_div(a[0], a[1]); return 0;
	case 5: if (!a[1]) return -1; *v = a[0] % a[1]; return 0;
	case 6:
	case 7:
		*v = a[0];
		for (i = 1; i < e->n; ++i)
			if ((e->op - 256 == 7) == (a[i] > *v))
				*v = a[i];
		return 0;
	case 8: *v = -a[0]; return 0;
	case 9: *v = a[0] && a[1]; return 0;
	case 10: *v = a[0] || a[1]; return 0;
	case 11: *v = a[0] == a[1]; return 0;
	case 12: *v = a[0] <= a[1]; return 0;
	case 13: *v = a[0] < a[1]; return 0;
	case 14: *v = a[0] >= a[1]; return 0;
	case 15: *v = a[0] > a[1]; return 0;
	default: *v = a[0] ? a[1] : a[2]; return 0;
	}
}

/* A size index of an expression out of range is a malformed
 * description. */
static int check_expr(const struct expr *e, int n_size)
{
	int i;

	if (!e)
		return -1;
	if (e->op == '$' && (e->value < 0 || e->value >= n_size))
		return -1;
	if (e->op == 256 + 16 && e->n != 3)
		return -1;
	if (e->op >= 256 && e->op != 256 + 6 && e->op != 256 + 7 &&
	    e->op != 256 + 8 && e->op != 256 + 16 && e->n != 2)
		return -1;
	for (i = 0; i < e->n; ++i)
		if (check_expr(e->arg[i], n_size) < 0)
			return -1;
	return 0;
}

static int parse_arg(const char **s, struct arg *a, int n_size)
{
	char word[8];
	int64_t v[4];
	int i, d;

	if (read_word(s, word, sizeof(word)) < 0 || strcmp(word, "arg"))
		return -1;
	for (i = 0; i < 4; ++i)
		if (read_int(s, &v[i]) < 0)
			return -1;
	if (v[1] < 0 || v[1] > 2 || (v[1] == 2 && v[0] < 0))
		return -1;
	a->sig = v[0];
	a->out = v[1] == 1;
	a->konst = v[1] == 2;
	a->bytes = v[2];
	a->n_dim = v[3];
	if (a->n_dim < 0 || a->n_dim > 8)
		return -1;
	for (d = 0; d < a->n_dim; ++d) {
		a->extent[d] = read_expr(s);
		if (check_expr(a->extent[d], n_size) < 0)
			return -1;
	}
	return 0;
}

static int parse_kernel(const char **s, struct kernel *k, int n_size)
{
	char word[8];
	int64_t v[5];
	int i;

	if (read_word(s, word, sizeof(word)) < 0 || strcmp(word, "kernel") ||
	    read_word(s, k->name, sizeof(k->name)) < 0)
		return -1;
	for (i = 0; i < 5; ++i)
		if (read_int(s, &v[i]) < 0)
			return -1;
	k->n_block = v[0];
	k->n_thread = v[1];
	if (k->n_block < 0 || k->n_block > MAX_DIM || k->n_thread < 0 ||
	    k->n_thread > MAX_DIM)
		return -1;
	for (i = 0; i < MAX_DIM; ++i)
		k->local[i] = v[2 + i] > 0 ? v[2 + i] : 1;
	for (i = 0; i < k->n_block; ++i) {
		k->init[i] = read_expr(s);
		if (read_word(s, k->cmp[i], sizeof(k->cmp[i])) < 0)
			return -1;
		k->bound[i] = read_expr(s);
		k->inc[i] = read_expr(s);
		if (check_expr(k->init[i], n_size) < 0 ||
		    check_expr(k->bound[i], n_size) < 0 ||
		    check_expr(k->inc[i], n_size) < 0)
			return -1;
	}
	return 0;
}

static void state_free(struct state *st);

/* The state of description "desc", parsed; NULL if it is malformed. */
static struct state *parse(const char *s)
{
	struct state *st = calloc(1, sizeof(*st));
	char word[16];
	int64_t v[4], len;
	int i, ok;

	if (!st)
		return NULL;
	pthread_mutex_init(&st->lock, NULL);
	ok = read_word(&s, word, sizeof(word)) == 0 &&
		!strcmp(word, "ein-opencl");
	for (i = 0; ok && i < 4; ++i)
		ok = read_int(&s, &v[i]) == 0;
	ok = ok && (v[0] == 1 || v[0] == 2) && v[1] >= 0 && v[2] >= 0 &&
		v[3] >= 0;
	if (ok) {
		st->n_size = v[1];
		st->n_arg = v[2];
		st->n_kernel = v[3];
		st->arg = calloc(st->n_arg + 1, sizeof(*st->arg));
		st->kernel = calloc(st->n_kernel + 1, sizeof(*st->kernel));
		ok = st->arg && st->kernel;
	}
	for (i = 0; ok && i < st->n_arg; ++i)
		ok = parse_arg(&s, &st->arg[i], st->n_size) == 0;
	for (i = 0; ok && i < st->n_kernel; ++i)
		ok = parse_kernel(&s, &st->kernel[i], st->n_size) == 0;
	ok = ok && read_word(&s, word, sizeof(word)) == 0 &&
		!strcmp(word, "source") && read_int(&s, &len) == 0 &&
		*s == '\n' && (int64_t) strlen(s + 1) == len;
	if (ok)
		st->source = strdup(s + 1);
	if (!ok || !st->source) {
		state_free(st);
		return NULL;
	}
	return st;
}

static void built_free(struct built *b, int n_kernel, int n_arg)
{
	int i;

	for (i = 0; b->kernel && i < n_kernel; ++i)
		if (b->kernel[i])
			clReleaseKernel(b->kernel[i]);
	for (i = 0; b->buf && i < n_arg; ++i)
		if (b->buf[i])
			clReleaseMemObject(b->buf[i]);
	if (b->program)
		clReleaseProgram(b->program);
	if (b->context)
		clReleaseContext(b->context);
	free(b->kernel);
	free(b->buf);
	free(b->cap);
	free(b->sent);
	free(b);
}

static void state_free(struct state *st)
{
	struct built *b, *next;
	int i, d;

	for (b = st->built; b; b = next) {
		next = b->next;
		built_free(b, st->n_kernel, st->n_arg);
	}
	for (i = 0; st->arg && i < st->n_arg; ++i)
		for (d = 0; d < st->arg[i].n_dim; ++d)
			expr_free(st->arg[i].extent[d]);
	for (i = 0; st->kernel && i < st->n_kernel; ++i)
		for (d = 0; d < st->kernel[i].n_block; ++d) {
			expr_free(st->kernel[i].init[d]);
			expr_free(st->kernel[i].bound[d]);
			expr_free(st->kernel[i].inc[d]);
		}
	free(st->arg);
	free(st->kernel);
	free(st->source);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* ---- the process's device ------------------------------------------- */

/* The queue of the host functions: made once, kept for the process. */
static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static cl_command_queue default_queue;
static cl_int default_err;

/* The device EIN_OPENCL_DEVICE=P:D names, else the first GPU, else the
 * first device, in *dev. */
static cl_int find_device(cl_device_id *dev)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np = 0, nd, i;
	const char *env = getenv("EIN_OPENCL_DEVICE");
	int want_p = -1, want_d = -1, pass;
	char end;

	if (env && (sscanf(env, "%d:%d%c", &want_p, &want_d, &end) != 2 ||
		    want_p < 0 || want_d < 0))
		want_p = -1;
	if (clGetPlatformIDs(MAX_CL, p, &np) != CL_SUCCESS || np == 0)
		return CL_DEVICE_NOT_FOUND;
	if (np > MAX_CL)
		np = MAX_CL;
	if (want_p >= 0) {
		if ((cl_uint) want_p >= np || clGetDeviceIDs(p[want_p],
				CL_DEVICE_TYPE_ALL, MAX_CL, d, &nd) !=
				CL_SUCCESS || (cl_uint) want_d >= nd)
			return CL_DEVICE_NOT_FOUND;
		*dev = d[want_d];
		return CL_SUCCESS;
	}
	for (pass = 0; pass < 2; ++pass)
		for (i = 0; i < np; ++i)
			if (clGetDeviceIDs(p[i], pass ? CL_DEVICE_TYPE_ALL :
					CL_DEVICE_TYPE_GPU, 1, d, &nd) ==
					CL_SUCCESS && nd > 0) {
				*dev = d[0];
				return CL_SUCCESS;
			}
	return CL_DEVICE_NOT_FOUND;
}

static void make_default_queue(void)
{
	cl_device_id dev;
	cl_context context;

	default_err = find_device(&dev);
	if (default_err != CL_SUCCESS)
		return;
	context = clCreateContext(NULL, 1, &dev, NULL, NULL, &default_err);
	if (!context)
		return;
	default_queue = clCreateCommandQueue(context, dev, 0, &default_err);
	/* The queue keeps its context. */
	clReleaseContext(context);
}

/* ---- a call ---------------------------------------------------------- */

/* The program of "st" for the context and device of "queue", built at
 * its first use there (the caller holds st->lock). */
static int get_built(struct state *st, cl_command_queue queue,
	struct built **out)
{
	struct built *b;
	const char *src = st->source;
	cl_context context;
	cl_device_id dev;
	cl_int err;
	int i;

	err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof(context),
		&context, NULL);
	if (err == CL_SUCCESS)
		err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(dev),
			&dev, NULL);
	if (err != CL_SUCCESS)
		return fail("ein: OpenCL: the queue is not valid (error %d)",
			err);
	for (b = st->built; b; b = b->next)
		if (b->context == context && b->device == dev) {
			*out = b;
			return 0;
		}
	b = calloc(1, sizeof(*b));
	if (!b)
		return fail("ein: out of memory (%d)", 0);
	clRetainContext(context);
	b->context = context;
	b->device = dev;
	b->next = st->built;
	st->built = b;
	b->kernel = calloc(st->n_kernel + 1, sizeof(*b->kernel));
	b->buf = calloc(st->n_arg + 1, sizeof(*b->buf));
	b->cap = calloc(st->n_arg + 1, sizeof(*b->cap));
	b->sent = calloc(st->n_arg + 1, sizeof(*b->sent));
	if (!b->kernel || !b->buf || !b->cap || !b->sent)
		return fail("ein: out of memory (%d)", 0);
	if (clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			sizeof(b->max_group), &b->max_group, NULL))
		b->max_group = 1;
	b->program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
	if (!b->program)
		return fail("ein: OpenCL: clCreateProgramWithSource failed "
			"(error %d)", err);
	err = clBuildProgram(b->program, 1, &dev, "", NULL, NULL);
	if (err != CL_SUCCESS)
		return fail("ein: OpenCL: the device could not build the "
			"kernels (error %d)", err);
	for (i = 0; i < st->n_kernel; ++i) {
		b->kernel[i] = clCreateKernel(b->program, st->kernel[i].name,
			&err);
		if (!b->kernel[i])
			return fail("ein: OpenCL: clCreateKernel failed "
				"(error %d)", err);
	}
	*out = b;
	return 0;
}

/* The bytes of argument "a" at "sizes" (at least 1), 0 if they cannot be
 * computed. */
static size_t arg_bytes(const struct arg *a, const int64_t *sizes)
{
	size_t n = a->bytes;
	int64_t v;
	int d;

	for (d = 0; d < a->n_dim; ++d) {
		if (eval(a->extent[d], sizes, &v) < 0 || v < 0)
			return 0;
		n *= (size_t) v;
	}
	return n ? n : 1;
}

/* The kept buffer of argument "i" of "b", at least "n" bytes, into
 * mem[i]. */
static int keep_buffer(struct built *b, int i, size_t n, cl_mem *mem)
{
	cl_int err = CL_SUCCESS;

	if (!b->buf[i] || b->cap[i] < n) {
		if (b->buf[i])
			clReleaseMemObject(b->buf[i]);
		b->cap[i] = 0;
		b->sent[i] = 0;
		b->buf[i] = clCreateBuffer(b->context, CL_MEM_READ_WRITE, n,
			NULL, &err);
		if (!b->buf[i])
			return fail("ein: OpenCL: clCreateBuffer failed "
				"(error %d)", err);
		b->cap[i] = n;
	}
	mem[i] = b->buf[i];
	return 0;
}

/* The buffer of argument "i" into mem[i]: the caller's cl_mem for a
 * tensor of a _cl call, else a kept buffer, a host tensor copied in; a
 * constant's host array (in every call) only at its first use on this
 * context, with a blocking write, so that "sent" never holds for data
 * that did not arrive. */
static int bind(struct state *st, struct built *b, int i, void **tensors,
	int host, const int64_t *sizes, cl_command_queue queue, cl_mem *mem)
{
	const struct arg *a = &st->arg[i];
	size_t n = arg_bytes(a, sizes);
	cl_int err = CL_SUCCESS;

	if (a->sig >= 0 && !host && !a->konst) {
		mem[i] = (cl_mem) tensors[a->sig];
		return 0;
	}
	if (!n)
		return fail("ein: OpenCL: cannot size a buffer (%d)", 0);
	if (keep_buffer(b, i, n, mem) < 0)
		return EIN_RT_CL_ERROR_DEVICE;
	if (a->konst && !b->sent[i]) {
		err = clEnqueueWriteBuffer(queue, mem[i], CL_TRUE, 0, n,
			tensors[a->sig], 0, NULL, NULL);
		b->sent[i] = err == CL_SUCCESS;
	} else if (a->sig >= 0 && !a->konst) {
		err = clEnqueueWriteBuffer(queue, mem[i], CL_FALSE, 0, n,
			tensors[a->sig], 0, NULL, NULL);
	}
	return err == CL_SUCCESS ? 0 : fail("ein: OpenCL: "
		"clEnqueueWriteBuffer failed (error %d)", err);
}

/* The work-groups of block dimension "d" of "k": the trip count of its
 * loop, else 64 (the loop strides over the groups there are). */
static size_t n_groups(const struct kernel *k, int d, const int64_t *sizes)
{
	int64_t init, ub, inc;

	if (strcmp(k->cmp[d], "le") && strcmp(k->cmp[d], "lt"))
		return 64;
	if (eval(k->init[d], sizes, &init) < 0 ||
	    eval(k->bound[d], sizes, &ub) < 0 ||
	    eval(k->inc[d], sizes, &inc) < 0 || inc <= 0)
		return 64;
	if (!strcmp(k->cmp[d], "lt"))
		ub--;
	return ub < init ? 1 : (size_t) ((ub - init) / inc + 1);
}

static int launch(struct state *st, struct built *b, int i,
	const cl_mem *mem, const int64_t *sizes, cl_command_queue queue)
{
	const struct kernel *k = &st->kernel[i];
	size_t global[MAX_DIM], local[MAX_DIM], items = 1;
	int d, dims = k->n_block > k->n_thread ? k->n_block : k->n_thread;
	cl_int err = CL_SUCCESS;

	for (d = 0; err == CL_SUCCESS && d < st->n_arg; ++d)
		err = clSetKernelArg(b->kernel[i], d, sizeof(cl_mem), &mem[d]);
	for (d = 0; err == CL_SUCCESS && d < st->n_size; ++d) {
		cl_long v = sizes[d];

		err = clSetKernelArg(b->kernel[i], st->n_arg + d, sizeof(v),
			&v);
	}
	if (err != CL_SUCCESS)
		return fail("ein: OpenCL: clSetKernelArg failed (error %d)",
			err);
	/* As the JIT's runtime: fewer work-items than the loop has
	 * iterations is still correct, so halve to the device's limit. */
	for (d = 0; d < MAX_DIM; ++d) {
		local[d] = d < k->n_thread ? (size_t) k->local[d] : 1;
		items *= local[d];
	}
	for (d = 0; items > b->max_group && d < MAX_DIM; ++d)
		while (local[d] > 1 && items > b->max_group) {
			items /= local[d];
			local[d] = (local[d] + 1) / 2;
			items *= local[d];
		}
	for (d = 0; d < MAX_DIM; ++d)
		global[d] = local[d] * (d < k->n_block ?
			n_groups(k, d, sizes) : 1);
	err = clEnqueueNDRangeKernel(queue, b->kernel[i], dims ? dims : 1,
		NULL, global, local, 0, NULL, NULL);
	return err == CL_SUCCESS ? 0 : fail("ein: OpenCL: "
		"clEnqueueNDRangeKernel failed (error %d)", err);
}

static int read_back(struct state *st, const cl_mem *mem, void **tensors,
	const int64_t *sizes, cl_command_queue queue)
{
	cl_int err;
	int i;

	for (i = 0; i < st->n_arg; ++i) {
		if (st->arg[i].sig < 0 || !st->arg[i].out)
			continue;
		err = clEnqueueReadBuffer(queue, mem[i], CL_FALSE, 0,
			arg_bytes(&st->arg[i], sizes), tensors[st->arg[i].sig],
			0, NULL, NULL);
		if (err != CL_SUCCESS)
			return fail("ein: OpenCL: clEnqueueReadBuffer failed "
				"(error %d)", err);
	}
	return 0;
}

/* The state in *slot, parsed from "desc" at the first call. */
static struct state *get_state(const char *desc, void **slot)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct state *st;

	pthread_mutex_lock(&lock);
	if (!*slot)
		*slot = parse(desc);
	st = *slot;
	pthread_mutex_unlock(&lock);
	return st;
}

static int run_locked(struct state *st, void **tensors, int host,
	const int64_t *sizes, cl_command_queue queue)
{
	cl_mem mem[st->n_arg + 1];
	struct built *b;
	int i, r;
	cl_int err;

	r = get_built(st, queue, &b);
	for (i = 0; r == 0 && i < st->n_arg; ++i)
		r = bind(st, b, i, tensors, host, sizes, queue, mem);
	for (i = 0; r == 0 && i < st->n_kernel; ++i)
		r = launch(st, b, i, mem, sizes, queue);
	if (r == 0 && host)
		r = read_back(st, mem, tensors, sizes, queue);
	/* Nothing of the call is left in flight when it returns. */
	err = clFinish(queue);
	if (r == 0 && err != CL_SUCCESS)
		r = fail("ein: OpenCL: clFinish failed (error %d)", err);
	return r;
}

int ein_rt_cl_run(const char *desc, void **slot, void **tensors,
	const int64_t *sizes, void *queue)
{
	struct state *st = get_state(desc, slot);
	int host = queue == NULL, r;

	if (!st)
		return fail("ein: OpenCL: the kernels' description in the "
			"object is malformed (%d)", 0);
	if (host) {
		pthread_once(&default_once, &make_default_queue);
		if (!default_queue)
			return fail("ein: OpenCL: no device (EIN_OPENCL_DEVICE, "
				"else the first GPU, else the first device; "
				"error %d)", default_err);
		queue = default_queue;
	}
	pthread_mutex_lock(&st->lock);
	r = run_locked(st, tensors, host, sizes, queue);
	pthread_mutex_unlock(&st->lock);
	return r;
}
