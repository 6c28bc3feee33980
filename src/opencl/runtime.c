/*
 * runtime.c: OpenCL platforms, devices, programs and launches
 * (runtime.h).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include "ctx.h"
#include "diag.h"
#include "frontend/type.h"
#include "opencl/runtime.h"

/* The most platforms and devices looked at. */
#define MAX_CL 16

/* The OpenCL library, loaded once per process into a link-map namespace
 * of its own (dlmopen): an OpenCL driver built on another LLVM (PoCL 3.1
 * on LLVM 15) would otherwise bind its LLVM calls to the LLVM 16 that
 * ein links, and crash in its compiler.  The table is written once,
 * under pthread_once, and only read afterwards. */
#define EIN_CL_FUNCTIONS(F) \
	F(BuildProgram) \
	F(CreateBuffer) \
	F(CreateCommandQueue) \
	F(CreateContext) \
	F(CreateKernel) \
	F(CreateProgramWithSource) \
	F(EnqueueNDRangeKernel) \
	F(EnqueueReadBuffer) \
	F(EnqueueWriteBuffer) \
	F(Finish) \
	F(GetEventProfilingInfo) \
	F(GetDeviceIDs) \
	F(GetDeviceInfo) \
	F(GetMemObjectInfo) \
	F(GetPlatformIDs) \
	F(GetPlatformInfo) \
	F(GetProgramBuildInfo) \
	F(ReleaseCommandQueue) \
	F(ReleaseContext) \
	F(ReleaseEvent) \
	F(ReleaseKernel) \
	F(ReleaseMemObject) \
	F(ReleaseProgram) \
	F(SetKernelArg)

struct cl_api {
#define FIELD(n) __typeof__(cl##n) *n;
	EIN_CL_FUNCTIONS(FIELD)
#undef FIELD
	int loaded;
};

static struct cl_api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void load_api(void)
{
	void *h = dlmopen(LM_ID_NEWLM, "libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
#define LOAD(n) if (!(api.n = (__typeof__(cl##n) *) dlsym(h, "cl" #n))) \
		return;
	EIN_CL_FUNCTIONS(LOAD)
#undef LOAD
	api.loaded = 1;
}

/* ein_ocl_forbid_load's flag (runtime.h). */
static int load_forbidden;

void ein_ocl_forbid_load(int forbid)
{
	load_forbidden = forbid != 0;
}

/* Load the library if needed; -1 after reporting that it is missing or
 * that this process must not load it. */
static int load(ein_ctx *ctx)
{
	if (load_forbidden && !api.loaded) {
		static const char msg[] = "OpenCL: internal error: the "
			"library was about to be loaded in ein tune's parent "
			"process, whose forked children could then not use a "
			"GPU driver";

		if (ctx)
			ein_error(ctx, EIN_ERROR_DEVICE, "%s", msg);
		else
			fprintf(stderr, "ein: error: %s\n", msg);
		return -1;
	}
	pthread_once(&api_once, &load_api);
	if (api.loaded)
		return 0;
	if (ctx)
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: cannot load "
			"libOpenCL.so.1 (install ocl-icd-libopencl1 and a "
			"driver, e.g. pocl-opencl-icd)");
	return -1;
}

/* One device of a context, shared by every code built for it.
 * ref: references (the context's list and one per code), atomic, so that
 *	a code may be freed from any thread;
 * platform, index: the device's place, as 'ein devices' lists it;
 * id, context, queue: the device, a context holding only it and one
 *	in-order queue that every code built for it enqueues on (OpenCL
 *	calls are thread-safe except clSetKernelArg, which each code's lock
 *	serialises);
 * max_group: the device's largest work-group;
 * max_alloc: the device's largest buffer in bytes (0: unknown);
 * profiling: the queue was made with CL_QUEUE_PROFILING_ENABLE (by the
 *	first code built for the device that asked for it);
 * next: the device made before it. */
struct ein_ocl_device {
	int ref;
	int platform;
	int index;
	cl_device_id id;
	cl_context context;
	cl_command_queue queue;
	size_t max_group;
	cl_ulong max_alloc;
	int profiling;
	struct ein_ocl_device *next;
};

/* The devices a context has used.
 * lock: guards the list (codes are compiled from one thread at a time,
 *	but a context's list is cheap to guard);
 * head: the devices, newest first. */
struct ein_ocl_devices {
	pthread_mutex_t lock;
	struct ein_ocl_device *head;
};

/* plan, scop: what runs (plan owned); device: a reference to the device
 *	(NULL until built, for a code built lazily);
 * platform, index: the device asked for (-1: the default), kept for a
 *	lazy build;
 * flags: EIN_OCL_LAZY, EIN_OCL_PROFILE (runtime.h);
 * seconds: the device time of the last call's kernels, -1 if unknown;
 * built: 1 once the program and kernels are made, -1 if that failed (a
 *	lazy code's later calls fail too, without building again);
 * program, kernel: the device's program, one kernel per plan->kernel;
 * buf, cap: per argument of the kernels, the device buffer kept from the
 *	last call that needed one and its size in bytes, reused while a
 *	call fits in it;
 * lock: serialises calls (kernel arguments and buf are state). */
struct ein_ocl_code {
	struct ein_ocl_plan *plan;
	struct ein_scop *scop;
	struct ein_ocl_device *device;
	int platform;
	int index;
	unsigned flags;
	double seconds;
	int built;
	cl_program program;
	cl_kernel *kernel;
	cl_mem *buf;
	size_t *cap;
	pthread_mutex_t lock;
};

/* What the OpenCL error codes a user can cause mean: the message names
 * the code and the likely cause, not only its number. */
static const char *cl_error_meaning(cl_int err)
{
	switch (err) {
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
		return "CL_MEM_OBJECT_ALLOCATION_FAILURE: out of device memory";
	case CL_OUT_OF_RESOURCES:
		return "CL_OUT_OF_RESOURCES: the device ran out of resources "
			"(memory, __local memory or registers)";
	case CL_OUT_OF_HOST_MEMORY:
		return "CL_OUT_OF_HOST_MEMORY: out of host memory";
	case CL_INVALID_BUFFER_SIZE:
		return "CL_INVALID_BUFFER_SIZE: larger than the device's "
			"largest buffer";
	case CL_INVALID_WORK_GROUP_SIZE:
		return "CL_INVALID_WORK_GROUP_SIZE: a work-group the device "
			"does not allow";
	case CL_INVALID_MEM_OBJECT:
		return "CL_INVALID_MEM_OBJECT: not a buffer of this device";
	case CL_INVALID_KERNEL_ARGS:
		return "CL_INVALID_KERNEL_ARGS";
	}
	return NULL;
}

static int cl_error(ein_ctx *ctx, const char *what, cl_int err)
{
	const char *meaning = cl_error_meaning(err);

	if (meaning)
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: %s failed (error %d, "
			"%s)", what, (int) err, meaning);
	else
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: %s failed (error %d)",
			what, (int) err);
	return -1;
}

/* The platforms, in *n. */
static int platforms(cl_platform_id *p, cl_uint *n)
{
	if (api.GetPlatformIDs(MAX_CL, p, n) != CL_SUCCESS)
		*n = 0;
	if (*n > MAX_CL)
		*n = MAX_CL;
	return 0;
}

/* The devices of platform "p" of "type", in *n. */
static void devices(cl_platform_id p, cl_device_type type, cl_device_id *d,
	cl_uint *n)
{
	if (api.GetDeviceIDs(p, type, MAX_CL, d, n) != CL_SUCCESS)
		*n = 0;
	if (*n > MAX_CL)
		*n = MAX_CL;
}

static int is_type(cl_device_id d, cl_device_type type)
{
	cl_device_type t = 0;

	api.GetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(t), &t, NULL);
	return (t & type) != 0;
}

/* The first device of "type" on any platform, as its platform and index
 * in *platform and *device. */
static int first_device(cl_device_type type, int *platform, int *device)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np, nd, i, j;

	platforms(p, &np);
	for (i = 0; i < np; ++i) {
		devices(p[i], CL_DEVICE_TYPE_ALL, d, &nd);
		for (j = 0; j < nd; ++j)
			if (is_type(d[j], type)) {
				*platform = i;
				*device = j;
				return 0;
			}
	}
	return -1;
}

/* The platform and device EIN_OPENCL_DEVICE names, if set and well
 * formed. */
static void from_environment(int *platform, int *device)
{
	const char *s = getenv("EIN_OPENCL_DEVICE");
	int p, d;
	char end;

	if (s && sscanf(s, "%d:%d%c", &p, &d, &end) == 2 && p >= 0 &&
	    d >= 0) {
		*platform = p;
		*device = d;
	}
}

/* Turn a platform of -1 into the device that stands for (EIN_OPENCL_DEVICE,
 * else the first GPU, else the first device). */
static int choose_default(ein_ctx *ctx, int *platform, int *device)
{
	if (*platform < 0)
		from_environment(platform, device);
	if (*platform >= 0 ||
	    first_device(CL_DEVICE_TYPE_GPU, platform, device) == 0 ||
	    first_device(CL_DEVICE_TYPE_ALL, platform, device) == 0)
		return 0;
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: no platform with a device "
		"(is an OpenCL driver, e.g. pocl-opencl-icd, installed?)");
	return -1;
}

/* Device *device of platform *platform (both -1: the default) in *dev,
 * with the indices it has. */
static int select_device(ein_ctx *ctx, int *platform, int *device,
	cl_device_id *dev)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np, nd;

	if (load(ctx) < 0 || choose_default(ctx, platform, device) < 0)
		return -1;
	platforms(p, &np);
	nd = 0;
	if ((cl_uint) *platform < np)
		devices(p[*platform], CL_DEVICE_TYPE_ALL, d, &nd);
	if ((cl_uint) *device >= nd) {
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: no device %d:%d "
			"(%u platforms; 'ein devices' lists them)", *platform,
			*device, np);
		return -1;
	}
	*dev = d[*device];
	return 0;
}

int ein_ocl_resolve(ein_ctx *ctx, int *platform, int *device)
{
	cl_device_id dev;

	return select_device(ctx, platform, device, &dev);
}

struct ein_ocl_devices *ein_ocl_devices_alloc(void)
{
	struct ein_ocl_devices *list = calloc(1, sizeof(*list));

	if (list)
		pthread_mutex_init(&list->lock, NULL);
	return list;
}

/* Drop a reference to "d"; the last releases its queue and context. */
static void device_unref(struct ein_ocl_device *d)
{
	if (!d || __atomic_sub_fetch(&d->ref, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (d->queue)
		api.ReleaseCommandQueue(d->queue);
	if (d->context)
		api.ReleaseContext(d->context);
	free(d);
}

void ein_ocl_devices_free(struct ein_ocl_devices *list)
{
	struct ein_ocl_device *d, *next;

	if (!list)
		return;
	for (d = list->head; d; d = next) {
		next = d->next;
		device_unref(d);
	}
	pthread_mutex_destroy(&list->lock);
	free(list);
}

/* A new device object for "id" at "platform", "index" (one reference),
 * with its context and queue. */
static struct ein_ocl_device *device_create(ein_ctx *ctx, cl_device_id id,
	int platform, int index, int profiling)
{
	struct ein_ocl_device *d = calloc(1, sizeof(*d));
	cl_int err;

	if (!d)
		return cl_error(ctx, "allocation", CL_OUT_OF_HOST_MEMORY), NULL;
	d->ref = 1;
	d->platform = platform;
	d->index = index;
	d->id = id;
	d->context = api.CreateContext(NULL, 1, &id, NULL, NULL, &err);
	if (!d->context) {
		cl_error(ctx, "clCreateContext", err);
		return device_unref(d), NULL;
	}
	d->profiling = profiling;
	d->queue = api.CreateCommandQueue(d->context, id, profiling ?
		CL_QUEUE_PROFILING_ENABLE : 0, &err);
	if (!d->queue) {
		cl_error(ctx, "clCreateCommandQueue", err);
		return device_unref(d), NULL;
	}
	if (api.GetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			sizeof(d->max_group), &d->max_group, NULL))
		d->max_group = 1;
	if (api.GetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			sizeof(d->max_alloc), &d->max_alloc, NULL))
		d->max_alloc = 0;
	return d;
}

/* A new reference to the device of "ctx" at "platform", "device" (-1: the
 * default), made at its first use, its queue with profiling if
 * "profiling" asks for it then. */
static struct ein_ocl_device *device_get(ein_ctx *ctx, int platform,
	int device, int profiling)
{
	struct ein_ocl_devices *list = ein_ctx_get_ocl_devices(ctx);
	struct ein_ocl_device *d;
	cl_device_id id;

	if (select_device(ctx, &platform, &device, &id) < 0)
		return NULL;
	pthread_mutex_lock(&list->lock);
	for (d = list->head; d; d = d->next)
		if (d->platform == platform && d->index == device)
			break;
	if (!d && (d = device_create(ctx, id, platform, device,
			profiling))) {
		d->next = list->head;
		list->head = d;
	}
	if (d)
		__atomic_add_fetch(&d->ref, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&list->lock);
	return d;
}

/* Turn a failed build into an error with the device compiler's log. */
static int build_error(ein_ctx *ctx, struct ein_ocl_code *code, cl_int err)
{
	cl_device_id dev = code->device->id;
	size_t len = 0;
	char *log;

	api.GetProgramBuildInfo(code->program, dev, CL_PROGRAM_BUILD_LOG, 0,
		NULL, &len);
	log = calloc(1, len + 1);
	if (log)
		api.GetProgramBuildInfo(code->program, dev, CL_PROGRAM_BUILD_LOG,
			len, log, NULL);
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: the device could not build "
		"the kernels (error %d):\n%s", (int) err, log ? log : "");
	free(log);
	return -1;
}

/* Build the program and kernels of "code" on its device, once: the code
 * lives in the context's compile cache (runtime/cache.h), so that a
 * definition compiled again is not built again. */
static int build(ein_ctx *ctx, struct ein_ocl_code *code)
{
	const char *src = code->plan->source;
	cl_device_id dev = code->device->id;
	int i, n = code->plan->n_arg;
	cl_int err;

	code->program = api.CreateProgramWithSource(code->device->context, 1,
		&src, NULL, &err);
	if (!code->program)
		return cl_error(ctx, "clCreateProgramWithSource", err);
	err = api.BuildProgram(code->program, 1, &dev, "", NULL, NULL);
	if (err != CL_SUCCESS)
		return build_error(ctx, code, err);
	code->kernel = calloc(code->plan->n_kernel + 1, sizeof(cl_kernel));
	code->buf = calloc(n + 1, sizeof(*code->buf));
	code->cap = calloc(n + 1, sizeof(*code->cap));
	if (!code->kernel || !code->buf || !code->cap)
		return cl_error(ctx, "allocation", CL_OUT_OF_HOST_MEMORY);
	for (i = 0; i < code->plan->n_kernel; ++i) {
		code->kernel[i] = api.CreateKernel(code->program,
			code->plan->kernel[i].name, &err);
		if (!code->kernel[i])
			return cl_error(ctx, "clCreateKernel", err);
	}
	return 0;
}

/* Make the device and program of "code" if not yet made (a lazy code's
 * first call); its lock is held or it is not yet shared. */
static int ensure_built(ein_ctx *ctx, struct ein_ocl_code *code)
{
	if (code->built < 0)
		return ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: the kernels "
			"could not be built (an earlier call said why)"), -1;
	if (code->built)
		return 0;
	code->device = device_get(ctx, code->platform, code->index,
		(code->flags & EIN_OCL_PROFILE) != 0);
	code->built = code->device && build(ctx, code) == 0 ? 1 : -1;
	return code->built > 0 ? 0 : -1;
}

struct ein_ocl_code *ein_ocl_code_build(ein_ctx *ctx,
	struct ein_ocl_plan *plan, struct ein_scop *scop, int platform,
	int device, unsigned flags)
{
	struct ein_ocl_code *code;

	if (!plan)
		return NULL;
	code = calloc(1, sizeof(*code));
	if (!code) {
		ein_ocl_plan_free(plan);
		return NULL;
	}
	code->plan = plan;
	code->scop = scop;
	code->platform = platform;
	code->index = device;
	code->flags = flags;
	code->seconds = -1;
	pthread_mutex_init(&code->lock, NULL);
	if (!(flags & EIN_OCL_LAZY) && ensure_built(ctx, code) < 0) {
		ein_ocl_code_free(code);
		return NULL;
	}
	return code;
}

void ein_ocl_code_free(struct ein_ocl_code *code)
{
	int i;

	if (!code)
		return;
	for (i = 0; code->kernel && i < code->plan->n_kernel; ++i)
		if (code->kernel[i])
			api.ReleaseKernel(code->kernel[i]);
	for (i = 0; code->buf && i < code->plan->n_arg; ++i)
		if (code->buf[i])
			api.ReleaseMemObject(code->buf[i]);
	free(code->kernel);
	free(code->buf);
	free(code->cap);
	if (code->program)
		api.ReleaseProgram(code->program);
	device_unref(code->device);
	pthread_mutex_destroy(&code->lock);
	ein_ocl_plan_free(code->plan);
	free(code);
}

/* The bytes of one element of scop tensor "t". */
static size_t element_bytes(const struct ein_scop *scop, int t)
{
	switch (ein_scop_tensor_type(scop, t)) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_F32:
	case EIN_TYPE_I32: return 4;
	default: return 1;
	}
}

/* The bytes of temporary "t" at "sizes", 0 if the host cannot tell. */
static size_t temp_bytes(const struct ein_ocl_code *code, int t,
	const int64_t *sizes)
{
	size_t bytes = element_bytes(code->scop, t);
	int64_t v;
	int d;

	for (d = 0; d < code->plan->n_dim[t]; ++d) {
		if (ein_ocl_eval(code->scop, code->plan->extent[t][d], sizes,
				&v) < 0 || v < 0)
			return 0;
		bytes *= (size_t) v;
	}
	return bytes ? bytes : 1;
}

/* The buffer of argument "i" (tensor "name") for "n" bytes into *mem: the
 * one kept from an earlier call when it is large enough, else a new one,
 * kept for the next.  A tensor larger than the device's largest buffer is
 * an error naming it (drivers that allocate lazily would otherwise fail
 * later, at a launch, without saying which). */
static int reuse_buffer(ein_ctx *ctx, struct ein_ocl_code *code, int i,
	const char *name, size_t n, cl_mem *mem)
{
	cl_ulong max_alloc = code->device->max_alloc;
	cl_int err;

	if (max_alloc && n > max_alloc) {
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: tensor '%s' needs "
			"%zu bytes, more than the device's largest buffer (%llu "
			"bytes): out of device memory", name, n,
			(unsigned long long) max_alloc);
		return -1;
	}
	if (code->buf[i] && code->cap[i] >= n) {
		*mem = code->buf[i];
		return 0;
	}
	if (code->buf[i])
		api.ReleaseMemObject(code->buf[i]);
	code->cap[i] = 0;
	code->buf[i] = api.CreateBuffer(code->device->context,
		CL_MEM_READ_WRITE, n, NULL, &err);
	if (!code->buf[i])
		return cl_error(ctx, "clCreateBuffer", err);
	code->cap[i] = n;
	*mem = code->buf[i];
	return 0;
}

/* The buffer of each argument of the kernels into mem: a tensor already
 * on the device as it is, the others in the code's buffers, the host's
 * tensors copied in. */
static int bind_buffers(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const size_t *temp, cl_mem *mem)
{
	const struct ein_func *func = code->scop->func;
	int i, t, pos;
	cl_int err;

	for (i = 0; i < code->plan->n_arg; ++i) {
		size_t n;

		t = code->plan->arg[i];
		pos = t < func->n_tensor && func->tensor[t].role !=
			EIN_ROLE_TEMP ? t : -1;
		if (pos >= 0 && arg[pos].mem) {
			mem[i] = (cl_mem) arg[pos].mem;
			continue;
		}
		n = pos >= 0 ? arg[pos].bytes : temp[i];
		if (!n)
			return cl_error(ctx, "sizing a temporary", 0);
		if (reuse_buffer(ctx, code, i, func->tensor[t].name, n,
				&mem[i]) < 0)
			return -1;
		if (pos >= 0 && (err = api.EnqueueWriteBuffer(
				code->device->queue, mem[i], CL_FALSE, 0, n,
				arg[pos].host, 0, NULL, NULL)) != CL_SUCCESS)
			return cl_error(ctx, "clEnqueueWriteBuffer", err);
	}
	return 0;
}

/* The number of work-groups of dimension "d" of launch "l": the trip
 * count of its loop where the host can compute it, else a guess (the
 * loop strides over the groups there are); 1 if the dimension has no
 * loop (isl generated none, as it runs once). */
static size_t n_groups(const struct ein_ocl_code *code,
	const struct ein_ocl_launch *l, int d, const int64_t *sizes)
{
	isl_ast_expr *bound = NULL;
	int64_t init, ub, inc;
	enum isl_ast_expr_op_type op;
	size_t n = 64;

	if (!l->cond[d])
		return 1;
	if (isl_ast_expr_get_type(l->cond[d]) != isl_ast_expr_op)
		return n;
	op = isl_ast_expr_op_get_type(l->cond[d]);
	if (op == isl_ast_expr_op_le || op == isl_ast_expr_op_lt)
		bound = isl_ast_expr_op_get_arg(l->cond[d], 1);
	if (bound && ein_ocl_eval(code->scop, l->init[d], sizes, &init) == 0 &&
	    ein_ocl_eval(code->scop, bound, sizes, &ub) == 0 &&
	    ein_ocl_eval(code->scop, l->inc[d], sizes, &inc) == 0 && inc > 0) {
		if (op == isl_ast_expr_op_lt)
			ub--;
		n = ub < init ? 1 : (size_t) ((ub - init) / inc + 1);
	}
	isl_ast_expr_free(bound);
	return n;
}

/* Launch kernel "k" on the buffers; its event into *event if not NULL
 * (profiling). */
static int launch(ein_ctx *ctx, struct ein_ocl_code *code, int k,
	const cl_mem *buf, const int64_t *sizes, const size_t *groups,
	cl_event *event)
{
	const struct ein_ocl_launch *l = &code->plan->kernel[k];
	const struct ein_func *func = code->scop->func;
	size_t global[EIN_GPU_MAX_DIM], local[EIN_GPU_MAX_DIM], items = 1;
	size_t max_group = code->device->max_group;
	int i, dims = l->n_block > l->n_thread ? l->n_block : l->n_thread;
	cl_int err = CL_SUCCESS;

	for (i = 0; err == CL_SUCCESS && i < code->plan->n_arg; ++i)
		err = api.SetKernelArg(code->kernel[k], i, sizeof(cl_mem),
			&buf[i]);
	for (i = 0; err == CL_SUCCESS && i < func->n_size; ++i) {
		cl_long v = sizes[i];

		err = api.SetKernelArg(code->kernel[k], code->plan->n_arg + i,
			sizeof(v), &v);
	}
	if (err != CL_SUCCESS)
		return cl_error(ctx, "clSetKernelArg", err);
	/* Fewer work-items than the loop has iterations is still correct
	 * (each strides over the group): halve to the device's limit. */
	for (i = 0; i < EIN_GPU_MAX_DIM; ++i) {
		local[i] = i < l->n_thread ? (size_t) l->local[i] : 1;
		items *= local[i];
	}
	for (i = 0; items > max_group && i < EIN_GPU_MAX_DIM; ++i)
		while (local[i] > 1 && items > max_group) {
			items /= local[i];
			local[i] = (local[i] + 1) / 2;
			items *= local[i];
		}
	for (i = 0; i < EIN_GPU_MAX_DIM; ++i)
		global[i] = local[i] * (i < l->n_block ? groups[i] : 1);
	err = api.EnqueueNDRangeKernel(code->device->queue, code->kernel[k],
		dims ? dims : 1, NULL, global, local, 0, NULL, event);
	return err == CL_SUCCESS ? 0 : cl_error(ctx, "clEnqueueNDRangeKernel",
		err);
}

/* Read the outputs that live on the host back. */
static int read_back(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const cl_mem *mem)
{
	const struct ein_func *func = code->scop->func;
	cl_int err;
	int i, t;

	for (i = 0; i < code->plan->n_arg; ++i) {
		t = code->plan->arg[i];
		if (t >= func->n_tensor ||
		    func->tensor[t].role != EIN_ROLE_OUTPUT || arg[t].mem ||
		    !arg[t].bytes)
			continue;
		err = api.EnqueueReadBuffer(code->device->queue, mem[i],
			CL_FALSE, 0, arg[t].bytes, arg[t].host, 0, NULL, NULL);
		if (err != CL_SUCCESS)
			return cl_error(ctx, "clEnqueueReadBuffer", err);
	}
	return 0;
}

/* The time from the start of the first of the "n" finished kernels of
 * "event" to the end of the last, in seconds (the gaps between kernels
 * included: the device spends them), -1 if the device does not say. */
static double kernel_span(const cl_event *event, int n)
{
	cl_ulong start = 0, end = 0;

	if (n < 1 || api.GetEventProfilingInfo(event[0],
			CL_PROFILING_COMMAND_START, sizeof(start), &start,
			NULL) != CL_SUCCESS ||
	    api.GetEventProfilingInfo(event[n - 1], CL_PROFILING_COMMAND_END,
			sizeof(end), &end, NULL) != CL_SUCCESS || end < start)
		return -1;
	return (double) (end - start) * 1e-9;
}

/* What the host computes from isl's expressions for a call at "sizes":
 * the bytes of each temporary argument into temp (0 for the others) and
 * the work-groups of each kernel's dimensions into groups.  Under the
 * context's isl lock: the expressions' identifiers are the context's
 * (one isl_id per size name) and isl counts their references without
 * atomics, so that two calls evaluating at once, or one evaluating while
 * another thread's call asks isl for its shapes, corrupted the heap. */
static void eval_extents(ein_ctx *ctx, const struct ein_ocl_code *code,
	const int64_t *sizes, size_t *temp, size_t (*groups)[EIN_GPU_MAX_DIM])
{
	const struct ein_func *func = code->scop->func;
	int i, t, d;

	ein_ctx_lock_isl(ctx);
	for (i = 0; i < code->plan->n_arg; ++i) {
		t = code->plan->arg[i];
		temp[i] = t < func->n_tensor && func->tensor[t].role !=
			EIN_ROLE_TEMP ? 0 : temp_bytes(code, t, sizes);
	}
	for (i = 0; i < code->plan->n_kernel; ++i)
		for (d = 0; d < EIN_GPU_MAX_DIM; ++d)
			groups[i][d] = d < code->plan->kernel[i].n_block ?
				n_groups(code, &code->plan->kernel[i], d,
					sizes) : 1;
	ein_ctx_unlock_isl(ctx);
}

/* Bind, launch and read back (the lock held); the kernels' events into
 * "event" (NULL: none), how many launched into *n_event. */
static int run_locked(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const int64_t *sizes, cl_event *event,
	int *n_event)
{
	int i, ok;
	cl_mem mem[code->plan->n_arg + 1];
	size_t temp[code->plan->n_arg + 1];
	size_t groups[code->plan->n_kernel + 1][EIN_GPU_MAX_DIM];

	*n_event = 0;
	eval_extents(ctx, code, sizes, temp, groups);
	ok = bind_buffers(ctx, code, arg, temp, mem);
	for (i = 0; ok == 0 && i < code->plan->n_kernel; ++i) {
		ok = launch(ctx, code, i, mem, sizes, groups[i],
			event ? &event[i] : NULL);
		*n_event += ok == 0;
	}
	return ok == 0 ? read_back(ctx, code, arg, mem) : ok;
}

int ein_ocl_code_run(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const int64_t *sizes)
{
	int i, n = 0, ok, timed;
	cl_event event[code->plan->n_kernel + 1];
	cl_int err;

	pthread_mutex_lock(&code->lock);
	code->seconds = -1;
	ok = ensure_built(ctx, code);
	if (ok < 0) {
		pthread_mutex_unlock(&code->lock);
		return -1;
	}
	timed = (code->flags & EIN_OCL_PROFILE) && code->device->profiling;
	ok = run_locked(ctx, code, arg, sizes, timed ? event : NULL, &n);
	/* Whatever happened, nothing of this call is left in flight when it
	 * returns: the host's outputs are written, and the buffers are free
	 * for the next call. */
	err = api.Finish(code->device->queue);
	if (ok == 0 && err != CL_SUCCESS)
		ok = cl_error(ctx, "clFinish", err);
	if (ok == 0 && timed && n == code->plan->n_kernel)
		code->seconds = kernel_span(event, n);
	for (i = 0; timed && i < n; ++i)
		api.ReleaseEvent(event[i]);
	pthread_mutex_unlock(&code->lock);
	return ok;
}

double ein_ocl_code_get_seconds(struct ein_ocl_code *code)
{
	double s;

	pthread_mutex_lock(&code->lock);
	s = code->seconds;
	pthread_mutex_unlock(&code->lock);
	return s;
}

int ein_ocl_code_get_queue(ein_ctx *ctx, struct ein_ocl_code *code,
	void **context, void **queue)
{
	int ok;

	pthread_mutex_lock(&code->lock);
	ok = ensure_built(ctx, code);
	*context = ok == 0 ? code->device->context : NULL;
	*queue = ok == 0 ? code->device->queue : NULL;
	pthread_mutex_unlock(&code->lock);
	return ok;
}

int ein_ocl_code_check_buffer(ein_ctx *ctx, struct ein_ocl_code *code,
	void *mem, size_t bytes, const char *name, int pos)
{
	cl_context owner = NULL;
	size_t size = 0;
	cl_int err;

	pthread_mutex_lock(&code->lock);
	err = ensure_built(ctx, code);
	pthread_mutex_unlock(&code->lock);
	if (err < 0)
		return -1;

	err = api.GetMemObjectInfo((cl_mem) mem, CL_MEM_CONTEXT,
		sizeof(owner), &owner, NULL);
	if (err == CL_SUCCESS)
		err = api.GetMemObjectInfo((cl_mem) mem, CL_MEM_SIZE,
			sizeof(size), &size, NULL);
	if (err != CL_SUCCESS) {
		ein_error(ctx, EIN_ERROR_DEVICE, "tensor '%s' (argument %d): "
			"its data is not a cl_mem (clGetMemObjectInfo: error "
			"%d)", name, pos, (int) err);
		return -1;
	}
	if (owner != code->device->context) {
		ein_error(ctx, EIN_ERROR_DEVICE, "tensor '%s' (argument %d): "
			"its cl_mem belongs to another OpenCL context than "
			"the kernel's (create it in the context "
			"ein_kernel_get_opencl gives)", name, pos);
		return -1;
	}
	if (size < bytes) {
		ein_error(ctx, EIN_ERROR_DEVICE, "tensor '%s' (argument %d): "
			"its cl_mem holds %zu bytes, the tensor needs %zu",
			name, pos, size, bytes);
		return -1;
	}
	return 0;
}

/* The target class of a device (runtime.h): PoCL by its platform's
 * name, whatever the device; a GPU by its vendor; anything else generic
 * (a vendor's CPU runtime has nothing of its GPUs' schedules). */
static const char *device_class(cl_platform_id p, cl_device_id d)
{
	char name[256] = "", vendor[256] = "";

	api.GetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
	api.GetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof(vendor) - 1, vendor, NULL);
	if (strcasestr(name, "portable") || strcasestr(name, "pocl"))
		return "opencl-pocl";
	if (!is_type(d, CL_DEVICE_TYPE_GPU))
		return "opencl-generic";
	if (strcasestr(vendor, "nvidia"))
		return "opencl-nvidia";
	if (strcasestr(vendor, "amd") || strcasestr(vendor, "advanced micro"))
		return "opencl-amd";
	if (strcasestr(vendor, "intel"))
		return "opencl-intel";
	return "opencl-generic";
}

const char *ein_ocl_device_class(int platform, int device)
{
	cl_platform_id p[MAX_CL];
	cl_device_id dev;
	cl_uint np;

	if (select_device(NULL, &platform, &device, &dev) < 0)
		return "opencl-generic";
	platforms(p, &np);
	return device_class(p[platform], dev);
}

int ein_ocl_device_info(ein_ctx *ctx, int platform, int device,
	struct ein_ocl_device_info *info)
{
	cl_platform_id p[MAX_CL];
	cl_device_id dev;
	cl_ulong local = 0;
	cl_uint np;

	memset(info, 0, sizeof(*info));
	if (select_device(ctx, &platform, &device, &dev) < 0)
		return -1;
	platforms(p, &np);
	info->platform = platform;
	info->device = device;
	snprintf(info->class, sizeof(info->class), "%s",
		device_class(p[platform], dev));
	api.GetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(info->name) - 1,
		info->name, NULL);
	if (api.GetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			sizeof(info->max_group), &info->max_group, NULL))
		info->max_group = 1;
	if (api.GetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local),
			&local, NULL) == CL_SUCCESS)
		info->local_mem = (size_t) local;
	info->host_memory = is_type(dev, CL_DEVICE_TYPE_CPU);
	return 0;
}

static const char *type_name(cl_device_id d)
{
	return is_type(d, CL_DEVICE_TYPE_GPU) ? "gpu" :
		is_type(d, CL_DEVICE_TYPE_CPU) ? "cpu" :
		is_type(d, CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator" :
		"other";
}

int ein_ocl_list_devices(FILE *out)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np, nd, i, j;
	int n = 0;

	if (load(NULL) < 0)
		return -1;
	platforms(p, &np);
	for (i = 0; i < np; ++i) {
		char pname[256] = "";

		api.GetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof(pname) - 1,
			pname, NULL);
		fprintf(out, "platform %u: %s\n", i, pname);
		devices(p[i], CL_DEVICE_TYPE_ALL, d, &nd);
		for (j = 0; j < nd; ++j, ++n) {
			char dname[256] = "";

			api.GetDeviceInfo(d[j], CL_DEVICE_NAME, sizeof(dname) - 1,
				dname, NULL);
			fprintf(out, "  opencl:%u:%u  %s (%s)  %s\n", i, j, dname,
				type_name(d[j]), device_class(p[i], d[j]));
		}
	}
	return n;
}
