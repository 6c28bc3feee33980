/*
 * kernel.c: ein_kernel, a compiled definition, and its calls with DLPack
 * tensors.
 *
 * A call checks every descriptor against the signature before running any
 * code: generated kernels trust their arguments (that is what makes them
 * fast), so this is the one place where wrong shapes must be caught.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctx.h"
#include "diag.h"
#include "driver/pipeline.h"
#include "driver/program.h"
#include "interp/interp.h"

/* ctx: the context (not owned); prog: a reference to the program;
 * func: the definition (owned by prog); job: its compilation;
 * n_arg, arg: the tensors of the signature (positions in func);
 * entry: the compiled code. */
struct ein_kernel {
	ein_ctx *ctx;
	ein_program *prog;
	const struct ein_func *func;
	struct ein_job job;
	int n_arg;
	int *arg;
	void (*entry)(void **tensors, const int64_t *sizes);
};

void ein_kernel_free(ein_kernel *k)
{
	if (!k)
		return;
	ein_job_clear(&k->job);
	ein_program_free(k->prog);
	free(k->arg);
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
	k->prog = ein_program_copy(prog);
	k->func = ein_program_get_func(prog, def);
	if (!k->func || init_signature(k) < 0)
		return (ein_kernel_free(k), NULL);
	k->job.func = k->func;
	k->job.until = EIN_PASS_JIT;
	if (ein_compile(ctx, &k->job) < 0)
		return (ein_kernel_free(k), NULL);
	k->entry = (void (*)(void **, const int64_t *)) k->job.entry;
	return k;
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

static int check_sizes(ein_kernel *k, const int64_t *sizes, int n_size)
{
	int i;

	if (n_size != k->func->n_size || (n_size > 0 && !sizes)) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s' takes %d "
			"size%s, not %d", k->func->def->name, k->func->n_size,
			k->func->n_size == 1 ? "" : "s", n_size);
		return -1;
	}
	for (i = 0; i < n_size; ++i)
		if (sizes[i] < 1) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "size %s is %lld: "
				"sizes must be at least 1", k->func->size[i],
				(long long) sizes[i]);
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
	if (!arg_tensor(k, pos) || !shape) {
		ein_error(k->ctx, EIN_ERROR_INVALID, "no tensor %d", pos);
		return EIN_ERROR_INVALID;
	}
	if (check_sizes(k, sizes, n_size) < 0 ||
	    ein_func_eval_shape(k->ctx, k->func, sizes, k->arg[pos],
			shape) < 0) {
		if (ein_diag_n_error(k->ctx) == 0)
			ein_error(k->ctx, EIN_ERROR_SHAPE, "these sizes give "
				"tensor '%s' no shape",
				arg_tensor(k, pos)->name);
		return EIN_ERROR_SHAPE;
	}
	return EIN_OK;
}

static int dtype_matches(const DLDataType *dt, enum ein_type type)
{
	int bits = type == EIN_TYPE_F64 ? 64 : 32;

	return dt->code == kDLFloat && dt->bits == bits && dt->lanes == 1;
}

ein_status ein_kernel_tensor_dtype(const ein_kernel *k, int pos,
	DLDataType *dtype)
{
	const struct ein_tensor *t = arg_tensor(k, pos);

	if (!t || !dtype)
		return EIN_ERROR_INVALID;
	dtype->code = kDLFloat;
	dtype->bits = t->type == EIN_TYPE_F64 ? 64 : 32;
	dtype->lanes = 1;
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

/* Check descriptor "t" against argument "pos" at the given sizes. */
static int check_tensor(ein_kernel *k, int pos, const DLTensor *t,
	const int64_t *sizes)
{
	const struct ein_tensor *et = arg_tensor(k, pos);
	int64_t shape[et->n_dim + 1];
	int d;

	if (!t || !t->data || (et->n_dim > 0 && !t->shape)) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"has no data", et->name, pos);
		return -1;
	}
	if (t->device.device_type != kDLCPU ||
	    !dtype_matches(&t->dtype, et->type) || !is_compact(t)) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"must be a dense row-major %s tensor on the CPU",
			et->name, pos, ein_type_name(et->type));
		return -1;
	}
	if (t->ndim != et->n_dim) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' (argument %d) "
			"has %d dimensions, the kernel expects %d", et->name,
			pos, t->ndim, et->n_dim);
		return -1;
	}
	if (ein_func_eval_shape(k->ctx, k->func, sizes, k->arg[pos],
			shape) < 0)
		return -1;
	for (d = 0; d < et->n_dim; ++d)
		if (t->shape[d] != shape[d]) {
			ein_error(k->ctx, EIN_ERROR_SHAPE, "tensor '%s' "
				"(argument %d): dimension %d is %lld but the "
				"sizes make it %lld", et->name, pos, d,
				(long long) t->shape[d], (long long) shape[d]);
			return -1;
		}
	return 0;
}

static int check_call(ein_kernel *k, DLTensor *const *tensors, int n_tensor,
	const int64_t *sizes, int n_size)
{
	int i;

	if (check_sizes(k, sizes, n_size) < 0)
		return -1;
	if (n_tensor != k->n_arg || !tensors) {
		ein_error(k->ctx, EIN_ERROR_SHAPE, "kernel '%s' takes %d "
			"tensors, not %d", k->func->def->name, k->n_arg,
			n_tensor);
		return -1;
	}
	for (i = 0; i < n_tensor; ++i)
		if (check_tensor(k, i, tensors[i], sizes) < 0)
			return -1;
	return 0;
}

static void *tensor_data(const DLTensor *t)
{
	return (char *) t->data + t->byte_offset;
}

ein_status ein_kernel_call(ein_kernel *k, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size)
{
	void *ptr[n_tensor > 0 ? n_tensor : 1];
	int i;

	if (!k)
		return EIN_ERROR_INVALID;
	if (check_call(k, tensors, n_tensor, sizes, n_size) < 0)
		return EIN_ERROR_SHAPE;
	for (i = 0; i < n_tensor; ++i)
		ptr[i] = tensor_data(tensors[i]);
	k->entry(ptr, sizes);
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

/* Copy tensor "t" to or from the double array "buf". */
static void convert(const DLTensor *t, double *buf, int to_double)
{
	int64_t i, n = n_elements(t);
	float *f = tensor_data(t);
	double *d = tensor_data(t);

	for (i = 0; i < n; ++i) {
		if (t->dtype.bits == 64 && to_double)
			buf[i] = d[i];
		else if (t->dtype.bits == 64)
			d[i] = buf[i];
		else if (to_double)
			buf[i] = f[i];
		else
			f[i] = (float) buf[i];
	}
}

ein_status ein_kernel_call_reference(ein_kernel *k, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size)
{
	int n = k ? k->func->n_tensor : 0, i, ok = 0;
	double *data[n + 1];

	if (!k)
		return EIN_ERROR_INVALID;
	if (check_call(k, tensors, n_tensor, sizes, n_size) < 0)
		return EIN_ERROR_SHAPE;
	memset(data, 0, sizeof(data));
	for (i = 0; i < n_tensor && ok == 0; ++i) {
		data[k->arg[i]] = malloc(n_elements(tensors[i]) *
			sizeof(double) + 1);
		if (!data[k->arg[i]])
			ok = -1;
		else
			convert(tensors[i], data[k->arg[i]], 1);
	}
	if (ok == 0)
		ok = ein_interp_run(k->ctx, k->func, sizes, data);
	for (i = 0; i < n_tensor; ++i) {
		if (ok == 0 && ein_kernel_tensor_is_output(k, i))
			convert(tensors[i], data[k->arg[i]], 0);
		free(data[k->arg[i]]);
	}
	return ok == 0 ? EIN_OK : ein_ctx_last_status(k->ctx);
}

double ein_kernel_flops(ein_kernel *k, const int64_t *sizes, int n_size)
{
	if (!k)
		return -1;
	ein_ctx_clear_error(k->ctx);
	if (check_sizes(k, sizes, n_size) < 0)
		return -1;
	return ein_interp_count_flops(k->ctx, k->func, sizes);
}
