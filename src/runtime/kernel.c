/*
 * kernel.c: ein_kernel, a compiled definition, and its calls with DLPack
 * tensors.
 *
 * A call checks every descriptor against the signature before running any
 * code: generated kernels trust their arguments (that is what makes them
 * fast), so this is the one place where wrong shapes must be caught.
 * Element types map to DLPack as float32 and float64 to kDLFloat, int32
 * and int8 to kDLInt, uint8 to kDLUInt, and bool to one byte per element,
 * kDLUInt with 8 bits (or kDLBool, code 6 in DLPack 0.8 and later); a
 * non-zero byte is true.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctx.h"
#include "diag.h"
#include "driver/pipeline.h"
#include "driver/program.h"
#include "driver/options.h"
#include "frontend/type.h"
#include "interp/interp.h"
#include "frontend/canon.h"
#include "runtime/cache.h"
#include "runtime/kernel.h"
#include "opencl/runtime.h"

/* ctx: the context (not owned);
 * code: a reference to the compiled code, shared through the context's
 *	compile cache with every kernel compiled from the same key;
 * prog: a reference to func's program, where func is not code's (a
 *	kernel of ein_kernel_reference, or one sharing the code of
 *	another definition, ein_kernel_compile_like), else NULL;
 * func: the definition (owned by code's program, or by prog);
 * sched: the schedule chosen for this compile (its path and reason are
 *	this kernel's, even when the code was compiled for another);
 * n_arg, arg: the tensors of the signature (positions in func);
 * memo: the arguments' shapes at the sizes of the last call. */
struct ein_kernel {
	ein_ctx *ctx;
	struct ein_code *code;
	ein_program *prog;
	const struct ein_func *func;
	struct ein_sched_choice sched;
	int n_arg;
	int *arg;
	struct shape_memo *memo;
};

/* The shapes of a kernel's arguments at one set of sizes, so that a call
 * at the sizes of the one before asks isl nothing: a network calls each
 * of its kernels at the same sizes every time, and isl's evaluation in a
 * context grown by compiling them all cost more than their code
 * (MobileNetV2, one thread: about 19 ms per run in isl_hash_table_find
 * against 12.7 ms in the kernels; docs/performance.md).
 * sizes: the sizes (func->n_size of them) the shapes were evaluated at;
 * off: where argument pos's dimensions start in "shape";
 * known: known[pos] when argument pos's shape is kept. */
struct shape_memo {
	int64_t *sizes;
	int64_t *shape;
	int *off;
	unsigned char *known;
};

static void memo_free(struct shape_memo *m)
{
	if (!m)
		return;
	free(m->sizes);
	free(m->shape);
	free(m->off);
	free(m->known);
	free(m);
}

void ein_kernel_free(ein_kernel *k)
{
	if (!k)
		return;
	ein_code_free(ein_ctx_get_cache(k->ctx), k->code);
	ein_program_free(k->prog);
	ein_sched_choice_clear(&k->sched);
	free(k->arg);
	memo_free(k->memo);
	free(k);
}

static int init_signature(ein_kernel *k)
{
	int i;

	k->arg = calloc(k->func->n_tensor + 1, sizeof(*k->arg));
	if (!k->arg)
		return -1;
	for (i = 0; i < k->func->n_tensor; ++i)
		if (k->func->tensor[i].role != EIN_ROLE_TEMP)
			k->arg[k->n_arg++] = i;
	return 0;
}

ein_kernel *ein_kernel_compile(ein_program *prog, const char *def)
{
	return ein_kernel_compile_with(prog, def, NULL);
}

/* The cache key of compiling k->func with k->sched and "opts", NULL after
 * reporting an error. */
static char *cache_key(ein_kernel *k, const ein_options *opts)
{
	int p, d;
	char *target = NULL;

	if (ein_options_get_opencl(opts, &p, &d)) {
		unsigned flags = ein_options_get_opencl_flags(opts);

		/* The device itself, not "the default": EIN_OPENCL_DEVICE
		 * may name another one at the next compile.  A lazy compile
		 * of a device given explicitly loads no OpenCL (its
		 * process may fork children that run it). */
		if (!((flags & EIN_OCL_LAZY) && p >= 0) &&
		    ein_ocl_resolve(k->ctx, &p, &d) < 0)
			return NULL;
		if (asprintf(&target, "opencl:%d:%d%s%s", p, d,
				flags & EIN_OCL_LAZY ? "+lazy" : "",
				flags & EIN_OCL_PROFILE ? "+profile" : "") < 0)
			target = NULL;
	} else if (ein_options_get_cpu(opts)) {
		/* Code for a named target, not the host's own. */
		if (asprintf(&target, "cpu:%s", ein_options_get_cpu(opts)) < 0)
			target = NULL;
	} else {
		target = ein_target_host_name(k->ctx);
	}
	char *key;

	key = target ? ein_cache_key(k->func, &k->sched, opts, target) : NULL;

	free(target);
	if (!key && ein_diag_n_error(k->ctx) == 0)
		ein_error(k->ctx, EIN_ERROR_NOMEM, "out of memory");
	return key;
}

/* Find the code of k in the cache, or compile it and cache it. */
static int get_code(ein_kernel *k, ein_program *prog,
	const ein_options *opts)
{
	struct ein_cache *cache = ein_ctx_get_cache(k->ctx);
	char *key = cache_key(k, opts);

	if (!key)
		return -1;
	k->code = ein_cache_find(cache, key);
	if (!k->code) {
		k->code = ein_code_compile(k->ctx, prog, k->func, &k->sched,
			opts);
		/* Failing to cache only costs a later compile. */
		if (k->code)
			ein_cache_add(cache, key, k->code);
	}
	free(key);
	if (!k->code)
		return -1;
	/* On a hit, the signature is read from the program the code was
	 * compiled from: the same text, checked the same way. */
	k->func = k->code->func;
	return 0;
}

/* A kernel of definition "def" of "prog", without schedule or code yet;
 * NULL after an error. */
static ein_kernel *kernel_alloc(ein_program *prog, const char *def)
{
	ein_ctx *ctx = ein_program_get_ctx(prog);
	ein_kernel *k;

	if (!prog)
		return NULL;
	ein_ctx_clear_error(ctx);
	k = calloc(1, sizeof(*k));
	if (!k) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	k->ctx = ctx;
	k->func = ein_program_get_func(prog, def);
	if (!k->func)
		return (ein_kernel_free(k), NULL);
	return k;
}

/* Choose the schedule of "k" and find or compile its code. */
static ein_kernel *compile(ein_kernel *k, ein_program *prog,
	const ein_options *opts)
{
	if (ein_options_choose_schedule(k->ctx, opts, k->func, &k->sched) < 0)
		return (ein_kernel_free(k), NULL);
	if (get_code(k, prog, opts) < 0 || init_signature(k) < 0)
		return (ein_kernel_free(k), NULL);
	return k;
}

ein_kernel *ein_kernel_compile_with(ein_program *prog, const char *def,
	const ein_options *opts)
{
	ein_kernel *k = kernel_alloc(prog, def);

	return k ? compile(k, prog, opts) : NULL;
}

/* Is "func" the definition of "like" modulo names (canon.h), "like"
 * compiled without a schedule file? */
static int same_definition(const ein_kernel *like,
	const struct ein_func *func)
{
	char *a, *b;
	int same;

	if (!like || !like->code || like->sched.path)
		return 0;
	a = ein_canon_func(like->func);
	b = ein_canon_func(func);
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* Give "k" (of "prog", no schedule file found) the code of "like". */
static ein_kernel *share(ein_kernel *k, ein_program *prog,
	const ein_kernel *like)
{
	ein_sched_choice_clear(&k->sched);
	k->sched.automatic = like->sched.automatic;
	if (asprintf(&k->sched.why, "the code of '%s' (the same definition "
			"modulo names)", like->func->def->name) < 0)
		k->sched.why = NULL;
	k->prog = ein_program_copy(prog);
	k->code = ein_code_copy(ein_ctx_get_cache(k->ctx), like->code);
	if (!k->sched.why || init_signature(k) < 0) {
		ein_error(k->ctx, EIN_ERROR_NOMEM, "out of memory");
		return (ein_kernel_free(k), NULL);
	}
	return k;
}

ein_kernel *ein_kernel_compile_like(ein_program *prog, const char *def,
	const ein_options *opts, const ein_kernel *like)
{
	ein_kernel *k = kernel_alloc(prog, def);

	if (!k || !same_definition(like, k->func))
		return k ? compile(k, prog, opts) : NULL;
	if (ein_options_find_schedule_file(k->ctx, opts, k->func,
			&k->sched) < 0)
		return (ein_kernel_free(k), NULL);
	if (k->sched.path) {
		ein_sched_choice_clear(&k->sched);
		return compile(k, prog, opts);
	}
	return share(k, prog, like);
}

int ein_kernel_shares_code(const ein_kernel *a, const ein_kernel *b)
{
	return a && b && a->code && a->code == b->code;
}

/* No schedule, no code: the kernel keeps a reference to the program,
 * whose definition the interpreter runs. */
ein_kernel *ein_kernel_reference(ein_program *prog, const char *def)
{
	ein_ctx *ctx = ein_program_get_ctx(prog);
	ein_kernel *k = kernel_alloc(prog, def);

	if (!k)
		return NULL;
	k->prog = ein_program_copy(prog);
	if (init_signature(k) < 0) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return (ein_kernel_free(k), NULL);
	}
	return k;
}

const char *ein_kernel_get_schedule(const ein_kernel *k)
{
	return k ? k->sched.path : NULL;
}

const char *ein_kernel_get_schedule_reason(const ein_kernel *k)
{
	return k ? k->sched.why : NULL;
}

int ein_kernel_n_tensor(const ein_kernel *k)
{
	return k ? k->n_arg : -1;
}

static const struct ein_tensor *arg_tensor(const ein_kernel *k, int pos)
{
	if (!k || pos < 0 || pos >= k->n_arg)
		return NULL;
	return &k->func->tensor[k->arg[pos]];
}

const char *ein_kernel_get_tensor_name(const ein_kernel *k, int pos)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	return t ? t->name : NULL;
}

int ein_kernel_tensor_is_output(const ein_kernel *k, int pos)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	return t ? t->role == EIN_ROLE_OUTPUT : -1;
}

int ein_kernel_tensor_is_input(const ein_kernel *k, int pos)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	return t ? t->role == EIN_ROLE_INPUT || t->in_place : -1;
}

int ein_kernel_tensor_ndim(const ein_kernel *k, int pos)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	return t ? t->n_dim : -1;
}

int ein_kernel_n_size(const ein_kernel *k)
{
	return k ? k->func->n_size : -1;
}

const char *ein_kernel_get_size_name(const ein_kernel *k, int pos)
{
	if (!k || pos < 0 || pos >= k->func->n_size)
		return NULL;
	return k->func->size[pos];
}

/* A memo for "k"'s arguments, none of them known yet; NULL if out of
 * memory (then every call asks isl). */
static struct shape_memo *memo_alloc(const ein_kernel *k)
{
	struct shape_memo *m = calloc(1, sizeof(*m));
	int pos, n = 0;

	if (!m)
		return NULL;
	m->off = calloc(k->n_arg + 1, sizeof(*m->off));
	m->known = calloc(k->n_arg + 1, 1);
	m->sizes = calloc(k->func->n_size + 1, sizeof(*m->sizes));
	for (pos = 0; m->off && pos < k->n_arg; ++pos) {
		m->off[pos] = n;
		n += arg_tensor(k, pos)->n_dim;
	}
	m->shape = calloc(n + 1, sizeof(*m->shape));
	if (!m->off || !m->known || !m->sizes || !m->shape)
		return memo_free(m), NULL;
	return m;
}

/* Are "sizes" those of k's memo? */
static int memo_same_sizes(const ein_kernel *k, const int64_t *sizes)
{
	int n = k->func->n_size;

	return n == 0 || !memcmp(k->memo->sizes, sizes, n * sizeof(*sizes));
}

/* Keep "shape", argument pos's at "sizes", in k's memo (forgetting the
 * shapes of other sizes). */
static void memo_keep(ein_kernel *k, const int64_t *sizes, int pos,
	const int64_t *shape)
{
	struct shape_memo *m;

	if (!k->memo)
		k->memo = memo_alloc(k);
	m = k->memo;
	if (!m)
		return;
	if (!memo_same_sizes(k, sizes)) {
		memset(m->known, 0, k->n_arg);
		memcpy(m->sizes, sizes, k->func->n_size * sizeof(*sizes));
	}
	memcpy(m->shape + m->off[pos], shape,
		arg_tensor(k, pos)->n_dim * sizeof(*shape));
	m->known[pos] = 1;
}

/* The shape of argument "pos" at "sizes", from the memo or by isl, under
 * the context's isl lock: calls may run concurrently. */
static int eval_shape(ein_kernel *k, const int64_t *sizes, int pos,
	int64_t *shape)
{
	int r = 0;

	ein_ctx_lock_isl(k->ctx);
	if (k->memo && k->memo->known[pos] && memo_same_sizes(k, sizes)) {
		memcpy(shape, k->memo->shape + k->memo->off[pos],
			arg_tensor(k, pos)->n_dim * sizeof(*shape));
	} else {
		r = ein_func_eval_shape(k->ctx, k->func, sizes, k->arg[pos],
			shape);
		if (r >= 0)
			memo_keep(k, sizes, pos, shape);
	}
	ein_ctx_unlock_isl(k->ctx);
	return r;
}

static int check_sizes(ein_kernel *k, const int64_t *sizes, int n_size)
{
	int i;

	if (n_size != k->func->n_size) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s' takes %d "
			"size%s, not %d", k->func->def->name, k->func->n_size,
			k->func->n_size == 1 ? "" : "s", n_size);
		return -1;
	}
	if (n_size > 0 && !sizes) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s': the array of "
			"sizes is NULL (it takes %d)", k->func->def->name,
			n_size);
		return -1;
	}
	for (i = 0; i < n_size; ++i)
		if (sizes[i] < 1) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "size %s is %lld: "
				"sizes must be at least 1", k->func->size[i],
				(long long) sizes[i]);
			return -1;
		}
	for (i = 0; i < n_size; ++i)
		if (k->code && k->code->fixed[i] &&
		    sizes[i] != k->code->fixed[i]) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "size %s is %lld, "
				"but kernel '%s' was compiled for %s = %lld "
				"(ein_options_fix_size)", k->func->size[i],
				(long long) sizes[i], k->func->def->name,
				k->func->size[i],
				(long long) k->code->fixed[i]);
			return -1;
		}
	return 0;
}

ein_status ein_kernel_tensor_shape(ein_kernel *k, int pos,
	const int64_t *sizes, int n_size, int64_t *shape)
{
	if (!k)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(k->ctx);
	if (!arg_tensor(k, pos)) {
		ein_error(k->ctx, EIN_ERROR_INVALID, "kernel '%s' has no "
			"tensor %d (it has %d)", k->func->def->name, pos,
			k->n_arg);
		return EIN_ERROR_INVALID;
	}
	if (!shape) {
		ein_error(k->ctx, EIN_ERROR_INVALID, "the shape array for "
			"tensor '%s' is NULL", arg_tensor(k, pos)->name);
		return EIN_ERROR_INVALID;
	}
	if (check_sizes(k, sizes, n_size) < 0 ||
	    eval_shape(k, sizes, pos, shape) < 0) {
		if (ein_diag_n_error(k->ctx) == 0)
			ein_error(k->ctx, EIN_ERROR_SHAPE, "these sizes give "
				"tensor '%s' no shape",
				arg_tensor(k, pos)->name);
		return EIN_ERROR_SHAPE;
	}
	return EIN_OK;
}

/* kDLBool, which DLPack 0.8 added: also accepted for bool tensors. */
enum { DL_BOOL_CODE = 6 };

/* The DLPack type of elements of "type": bool is one byte, kDLUInt. */
static DLDataType dl_type(enum ein_type type)
{
	DLDataType dt = { kDLFloat, 32, 1 };

	switch (type) {
	case EIN_TYPE_F64: dt.bits = 64; break;
	case EIN_TYPE_I32: dt.code = kDLInt; break;
	case EIN_TYPE_I8: dt.code = kDLInt; dt.bits = 8; break;
	case EIN_TYPE_U8:
	case EIN_TYPE_BOOL: dt.code = kDLUInt; dt.bits = 8; break;
	default: break;
	}
	return dt;
}

static int dtype_matches(const DLDataType *dt, enum ein_type type)
{
	DLDataType want = dl_type(type);

	if (dt->lanes != 1 || dt->bits != want.bits)
		return 0;
	return dt->code == want.code ||
		(type == EIN_TYPE_BOOL && dt->code == DL_BOOL_CODE);
}

const char *ein_kernel_get_tensor_type(const ein_kernel *k, int pos)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	return t ? ein_type_name(t->type) : NULL;
}

ein_status ein_kernel_tensor_dtype(const ein_kernel *k, int pos,
	DLDataType *dtype)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	if (!k)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(k->ctx);
	if (!t)
		ein_error(k->ctx, EIN_ERROR_INVALID, "kernel '%s' has no "
			"tensor %d (it has %d)", k->func->def->name, pos,
			k->n_arg);
	else if (!dtype)
		ein_error(k->ctx, EIN_ERROR_INVALID, "ein_kernel_tensor_dtype: "
			"the result pointer for tensor '%s' is NULL", t->name);
	if (!t || !dtype)
		return EIN_ERROR_INVALID;
	*dtype = dl_type(t->type);
	return EIN_OK;
}

/* Are the strides of "t" (in elements) those of a dense row-major array? */
static int is_compact(const DLTensor *t)
{
	int64_t expect = 1;
	int d;

	if (!t->strides)
		return 1;
	for (d = t->ndim - 1; d >= 0; --d) {
		if (t->shape[d] != 1 && t->strides[d] != expect)
			return 0;
		expect *= t->shape[d];
	}
	return 1;
}

/* Is descriptor "t" of argument "pos" usable at all: not NULL, with data,
 * the kernel's number of dimensions and a shape if it has any?  ndim is
 * checked before anything reads the shape or the strides, whose length
 * it gives. */
static int check_descriptor(ein_kernel *k, int pos, const DLTensor *t)
{
	const struct ein_tensor *et = arg_tensor(k, pos);
	const char *what = NULL;

	if (!t)
		what = "is NULL";
	else if (!t->data)
		what = "has NULL data";
	else if (t->ndim != et->n_dim) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"has %d dimensions, the kernel expects %d", et->name,
			pos, t->ndim, et->n_dim);
		return -1;
	} else if (et->n_dim > 0 && !t->shape)
		what = "has a NULL shape";
	if (what)
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"%s", et->name, pos, what);
	return what ? -1 : 0;
}

double ein_kernel_get_device_seconds(ein_kernel *k)
{
	if (!k || !k->code || !k->code->job.ocl)
		return -1;
	return ein_ocl_code_get_seconds(k->code->job.ocl);
}

static int64_t n_elements(const DLTensor *t);

/* Is "t" a tensor on an OpenCL device (its data a cl_mem)? */
static int is_device(const DLTensor *t)
{
	return t->device.device_type == kDLOpenCL;
}

/* The bytes of the elements of "t" (checked). */
static size_t tensor_bytes(const DLTensor *t)
{
	return (size_t) n_elements(t) * ((t->dtype.bits + 7) / 8);
}

/* Is "t" on a device that kernel k takes as argument "pos": the CPU, or
 * for a kernel compiled for OpenCL, its device (the buffer itself is
 * checked once the shape is known)? */
static int check_device(ein_kernel *k, int pos, const DLTensor *t)
{
	const struct ein_tensor *et = arg_tensor(k, pos);
	/* A kernel of ein_kernel_reference has no code: it runs on the CPU. */
	int ocl = k->code && k->code->job.ocl != NULL;

	if (t->device.device_type == kDLCPU)
		return 0;
	if (is_device(t) && ocl) {
		if (t->byte_offset == 0)
			return 0;
		ein_error(k->ctx, EIN_ERROR_DEVICE, "tensor '%s' (argument "
			"%d) has byte_offset %llu: an OpenCL tensor must start "
			"at the start of its cl_mem", et->name, pos,
			(unsigned long long) t->byte_offset);
		return -1;
	}
	ein_error(k->ctx, EIN_ERROR_DEVICE, "tensor '%s' (argument %d) is on "
		"DLPack device type %d%s, but kernel '%s' runs on %s: it takes "
		"%s", et->name, pos, (int) t->device.device_type,
		is_device(t) ? " (kDLOpenCL)" : "", k->func->def->name,
		ocl ? "an OpenCL device" : "the CPU", ocl ? "kDLCPU tensors "
		"and kDLOpenCL tensors of its OpenCL context" :
		"kDLCPU tensors");
	return -1;
}

/* Check descriptor "t" against argument "pos" at the given sizes. */
static int check_tensor(ein_kernel *k, int pos, const DLTensor *t,
	const int64_t *sizes)
{
	const struct ein_tensor *et = arg_tensor(k, pos);
	int64_t shape[et->n_dim + 1];
	int d;

	if (check_descriptor(k, pos, t) < 0 || check_device(k, pos, t) < 0)
		return -1;
	if (!dtype_matches(&t->dtype, et->type) || !is_compact(t)) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"must be a dense row-major %s tensor%s", et->name, pos,
			ein_type_name(et->type), is_device(t) ? "" :
			" on the CPU");
		return -1;
	}
	if (eval_shape(k, sizes, pos, shape) < 0)
		return -1;
	for (d = 0; d < et->n_dim; ++d)
		if (t->shape[d] != shape[d]) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' "
				"(argument %d): dimension %d is %lld but the "
				"sizes make it %lld", et->name, pos, d,
				(long long) t->shape[d], (long long) shape[d]);
			return -1;
		}
	if (is_device(t))
		return ein_ocl_code_check_buffer(k->ctx, k->code->job.ocl,
			t->data, tensor_bytes(t), et->name, pos);
	return 0;
}

/* The bytes tensor "t" (checked) addresses, [*lo, *hi): every element
 * data + byte_offset + sum_d i_d stride_d * size for 0 <= i_d < shape[d]
 * (strides in elements, NULL for row-major).  Empty (lo == hi) if an
 * extent is 0. */
static void byte_range(const DLTensor *t, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t base = (uintptr_t) t->data + t->byte_offset;
	int64_t elem = (t->dtype.bits + 7) / 8, below = 0, above = 0;
	int64_t stride = 1;
	int d;

	for (d = t->ndim - 1; d >= 0; --d) {
		int64_t s = t->strides ? t->strides[d] : stride;

		if (t->shape[d] == 0) {
			*lo = *hi = base;
			return;
		}
		if (s < 0)
			below += (t->shape[d] - 1) * -s;
		else
			above += (t->shape[d] - 1) * s;
		stride *= t->shape[d];
	}
	*lo = base - below * elem;
	*hi = base + (above + 1) * elem;
}

/* Do "a" and "b" share memory: host tensors whose bytes overlap, or
 * OpenCL tensors of the same cl_mem?  A host tensor and a device one
 * never do. */
static int overlap(const DLTensor *a, const DLTensor *b)
{
	uintptr_t lo, hi, lo2, hi2;

	if (is_device(a) || is_device(b))
		return is_device(a) && is_device(b) && a->data == b->data;
	byte_range(a, &lo, &hi);
	byte_range(b, &lo2, &hi2);
	return lo < hi && lo2 < hi2 && lo < hi2 && lo2 < hi;
}

/* Does output "out" share memory with another tensor of the call?  The
 * generated code assumes it does not (its pointers are noalias): an output
 * that is also an input would be read after being partly overwritten. */
static int check_aliasing(ein_kernel *k, DLTensor *const *tensors, int out)
{
	int i;

	for (i = 0; i < k->n_arg; ++i) {
		if (i == out)
			continue;
		if (overlap(tensors[out], tensors[i])) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "output '%s' "
				"(argument %d) shares memory with %s '%s' "
				"(argument %d): outputs must not overlap "
				"any other tensor of the call",
				arg_tensor(k, out)->name, out,
				ein_kernel_tensor_is_output(k, i) ?
				"output" : "input", arg_tensor(k, i)->name, i);
			return -1;
		}
	}
	return 0;
}

/* The status of a call that check_call refused: its error's. */
static ein_status check_status(ein_kernel *k)
{
	ein_status status = ein_ctx_last_status(k->ctx);

	return status == EIN_OK ? EIN_ERROR_SHAPE : status;
}

static int check_call(ein_kernel *k, DLTensor *const *tensors, int n_tensor,
	const int64_t *sizes, int n_size)
{
	int i;

	if (check_sizes(k, sizes, n_size) < 0)
		return -1;
	if (n_tensor != k->n_arg) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s' takes %d "
			"tensors, not %d", k->func->def->name, k->n_arg,
			n_tensor);
		return -1;
	}
	if (!tensors) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s': the array of "
			"tensors is NULL (it takes %d)", k->func->def->name,
			k->n_arg);
		return -1;
	}
	for (i = 0; i < n_tensor; ++i)
		if (check_tensor(k, i, tensors[i], sizes) < 0)
			return -1;
	for (i = 0; i < n_tensor; ++i)
		if (ein_kernel_tensor_is_output(k, i) &&
		    check_aliasing(k, tensors, i) < 0)
			return -1;
	return 0;
}

static void *tensor_data(const DLTensor *t)
{
	return (char *) t->data + t->byte_offset;
}

/* Run the OpenCL code of k on "tensors" (checked), by position in the
 * definition: host tensors copied to the device and the outputs back,
 * device tensors used in place. */
static ein_status run_device(ein_kernel *k, DLTensor *const *tensors,
	const int64_t *sizes)
{
	int n = k->func->n_tensor, i;
	struct ein_ocl_arg arg[n + 1];

	memset(arg, 0, sizeof(arg));
	for (i = 0; i < k->n_arg; ++i) {
		if (is_device(tensors[i]))
			arg[k->arg[i]].mem = tensors[i]->data;
		else
			arg[k->arg[i]].host = tensor_data(tensors[i]);
		arg[k->arg[i]].bytes = tensor_bytes(tensors[i]);
	}
	if (ein_ocl_code_run(k->ctx, k->code->job.ocl, arg, sizes) < 0)
		return EIN_ERROR_DEVICE;
	return EIN_OK;
}

/* Run the compiled code on "tensors" (checked: k->n_arg of them), sized
 * only now, so that a wrong count never sizes an array on the stack. */
static ein_status run_code(ein_kernel *k, DLTensor *const *tensors,
	const int64_t *sizes)
{
	void *ptr[k->n_arg + 1];
	int i;

	for (i = 0; i < k->n_arg; ++i)
		ptr[i] = tensor_data(tensors[i]);
	if (k->code->job.ocl)
		return run_device(k, tensors, sizes);
	k->code->entry(ptr, sizes);
	return EIN_OK;
}

ein_status ein_kernel_call(ein_kernel *k, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size)
{
	if (!k)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(k->ctx);
	if (!k->code) {
		ein_error(k->ctx, EIN_ERROR_INVALID, "kernel '%s' has no code "
			"(ein_kernel_reference): only "
			"ein_kernel_call_reference runs it", k->func->def->name);
		return EIN_ERROR_INVALID;
	}
	if (check_call(k, tensors, n_tensor, sizes, n_size) < 0)
		return check_status(k);
	return run_code(k, tensors, sizes);
}

ein_status ein_kernel_get_opencl(ein_kernel *k, void **context,
	void **queue)
{
	void *c, *q;

	if (!k)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(k->ctx);
	if (!k->code->job.ocl) {
		ein_error(k->ctx, EIN_ERROR_INVALID, "kernel '%s' was compiled "
			"for the CPU, not for OpenCL (ein_options_set_target)",
			k->func->def->name);
		return EIN_ERROR_INVALID;
	}
	if (ein_ocl_code_get_queue(k->ctx, k->code->job.ocl, &c, &q) < 0)
		return EIN_ERROR_DEVICE;
	if (context)
		*context = c;
	if (queue)
		*queue = q;
	return EIN_OK;
}

static int64_t n_elements(const DLTensor *t)
{
	int64_t n = 1;
	int d;

	for (d = 0; d < t->ndim; ++d)
		n *= t->shape[d];
	return n;
}

/* Element "i" of "p", an array of "type", as a double. */
static double get_element(const void *p, enum ein_type type, int64_t i)
{
	switch (type) {
	case EIN_TYPE_F64: return ((const double *) p)[i];
	case EIN_TYPE_I32: return ((const int32_t *) p)[i];
	case EIN_TYPE_I8: return ((const int8_t *) p)[i];
	case EIN_TYPE_U8: return ((const uint8_t *) p)[i];
	case EIN_TYPE_BOOL: return ((const uint8_t *) p)[i] != 0;
	default: return ((const float *) p)[i];
	}
}

/* Store "v" (an integer for integer types) as element "i" of "p". */
static void set_element(void *p, enum ein_type type, int64_t i, double v)
{
	int64_t w = ein_type_is_integer(type) ?
		ein_type_wrap(type, (int64_t) v) : 0;

	switch (type) {
	case EIN_TYPE_F64: ((double *) p)[i] = v; break;
	case EIN_TYPE_I32: ((int32_t *) p)[i] = (int32_t) w; break;
	case EIN_TYPE_I8: ((int8_t *) p)[i] = (int8_t) w; break;
	case EIN_TYPE_U8:
	case EIN_TYPE_BOOL: ((uint8_t *) p)[i] = (uint8_t) w; break;
	default: ((float *) p)[i] = (float) v; break;
	}
}

/* Copy tensor "t" of type "type" to or from the double array "buf". */
static void convert(const DLTensor *t, enum ein_type type, double *buf,
	int to_double)
{
	int64_t i, n = n_elements(t);
	void *p = tensor_data(t);

	for (i = 0; i < n; ++i) {
		if (to_double)
			buf[i] = get_element(p, type, i);
		else
			set_element(p, type, i, buf[i]);
	}
}

ein_status ein_kernel_call_reference(ein_kernel *k, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size)
{
	int n = k ? k->func->n_tensor : 0, i, ok = 0;
	double *data[n + 1];

	if (!k)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(k->ctx);
	if (check_call(k, tensors, n_tensor, sizes, n_size) < 0)
		return check_status(k);
	for (i = 0; i < n_tensor; ++i)
		if (is_device(tensors[i])) {
			ein_error(k->ctx, EIN_ERROR_DEVICE, "tensor '%s' "
				"(argument %d): the reference interpreter "
				"takes host (kDLCPU) tensors only",
				arg_tensor(k, i)->name, i);
			return EIN_ERROR_DEVICE;
		}
	memset(data, 0, sizeof(data));
	for (i = 0; i < n_tensor && ok == 0; ++i) {
		data[k->arg[i]] = malloc(n_elements(tensors[i]) *
			sizeof(double) + 1);
		if (!data[k->arg[i]]) {
			ein_error(k->ctx, EIN_ERROR_NOMEM, "out of memory for "
				"a copy of tensor '%s' in doubles",
				arg_tensor(k, i)->name);
			ok = -1;
		} else
			convert(tensors[i], arg_tensor(k, i)->type,
				data[k->arg[i]], 1);
	}
	if (ok == 0) {
		ein_ctx_lock_isl(k->ctx);
		ok = ein_interp_run(k->ctx, k->func, sizes, data);
		ein_ctx_unlock_isl(k->ctx);
	}
	for (i = 0; i < n_tensor; ++i) {
		if (ok == 0 && ein_kernel_tensor_is_output(k, i))
			convert(tensors[i], arg_tensor(k, i)->type,
				data[k->arg[i]], 0);
		free(data[k->arg[i]]);
	}
	if (ok == 0)
		return EIN_OK;
	if (ein_ctx_last_status(k->ctx) == EIN_OK)
		ein_internal(k->ctx, "the reference interpreter failed "
			"without a message");
	return ein_ctx_last_status(k->ctx);
}

/* ein_kernel_flops, or with "ints" ein_kernel_ops. */
static double kernel_work(ein_kernel *k, const int64_t *sizes, int n_size,
	int ints)
{
	double work;

	if (!k)
		return -1;
	ein_ctx_clear_error(k->ctx);
	if (check_sizes(k, sizes, n_size) < 0)
		return -1;
	ein_ctx_lock_isl(k->ctx);
	work = ints ? ein_interp_count_ops(k->ctx, k->func, sizes, NULL) :
		ein_interp_count_flops(k->ctx, k->func, sizes, NULL);
	ein_ctx_unlock_isl(k->ctx);
	return work;
}

double ein_kernel_flops(ein_kernel *k, const int64_t *sizes, int n_size)
{
	return kernel_work(k, sizes, n_size, 0);
}

double ein_kernel_ops(ein_kernel *k, const int64_t *sizes, int n_size)
{
	return kernel_work(k, sizes, n_size, 1);
}
