/*
 * runtime.c: OpenCL platforms, devices, programs and launches
 * (runtime.h).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
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
	F(GetDeviceIDs) \
	F(GetDeviceInfo) \
	F(GetPlatformIDs) \
	F(GetPlatformInfo) \
	F(GetProgramBuildInfo) \
	F(ReleaseCommandQueue) \
	F(ReleaseContext) \
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

/* Load the library if needed; -1 after reporting that it is missing. */
static int load(ein_ctx *ctx)
{
	pthread_once(&api_once, &load_api);
	if (api.loaded)
		return 0;
	if (ctx)
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: cannot load "
			"libOpenCL.so.1 (install ocl-icd-libopencl1 and a "
			"driver, e.g. pocl-opencl-icd)");
	return -1;
}

/* plan, scop: what runs (plan owned); context, queue, program, kernel:
 * the device's objects, one kernel per plan->kernel; max_group: the
 * device's largest work-group; lock: serialises calls. */
struct ein_ocl_code {
	struct ein_ocl_plan *plan;
	struct ein_scop *scop;
	cl_context context;
	cl_command_queue queue;
	cl_program program;
	cl_kernel *kernel;
	size_t max_group;
	pthread_mutex_t lock;
};

static int cl_error(ein_ctx *ctx, const char *what, cl_int err)
{
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: %s failed (error %d)", what,
		(int) err);
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

/* The first device of "type" on any platform, in *dev. */
static int first_device(cl_device_type type, cl_device_id *dev)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np, nd, i;

	platforms(p, &np);
	for (i = 0; i < np; ++i) {
		devices(p[i], type, d, &nd);
		if (nd > 0) {
			*dev = d[0];
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

/* The device to run on, in *dev. */
static int select_device(ein_ctx *ctx, int platform, int device,
	cl_device_id *dev)
{
	cl_platform_id p[MAX_CL];
	cl_device_id d[MAX_CL];
	cl_uint np, nd;

	if (platform < 0)
		from_environment(&platform, &device);
	if (platform < 0) {
		if (first_device(CL_DEVICE_TYPE_GPU, dev) == 0 ||
		    first_device(CL_DEVICE_TYPE_ALL, dev) == 0)
			return 0;
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: no platform with a "
			"device (is an OpenCL driver, e.g. pocl-opencl-icd, "
			"installed?)");
		return -1;
	}
	platforms(p, &np);
	nd = 0;
	if ((cl_uint) platform < np)
		devices(p[platform], CL_DEVICE_TYPE_ALL, d, &nd);
	if ((cl_uint) device >= nd) {
		ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: no device %d:%d "
			"(%u platforms; 'ein devices' lists them)", platform,
			device, np);
		return -1;
	}
	*dev = d[device];
	return 0;
}

/* Turn a failed build into an error with the device compiler's log. */
static int build_error(ein_ctx *ctx, struct ein_ocl_code *code,
	cl_device_id dev, cl_int err)
{
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

/* Create the context, queue, program and kernels of "code" on "dev". */
static int build(ein_ctx *ctx, struct ein_ocl_code *code, cl_device_id dev)
{
	const char *src = code->plan->source;
	cl_int err;
	int i;

	code->context = api.CreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (!code->context)
		return cl_error(ctx, "clCreateContext", err);
	code->queue = api.CreateCommandQueue(code->context, dev, 0, &err);
	if (!code->queue)
		return cl_error(ctx, "clCreateCommandQueue", err);
	code->program = api.CreateProgramWithSource(code->context, 1, &src, NULL,
		&err);
	if (!code->program)
		return cl_error(ctx, "clCreateProgramWithSource", err);
	err = api.BuildProgram(code->program, 1, &dev, "", NULL, NULL);
	if (err != CL_SUCCESS)
		return build_error(ctx, code, dev, err);
	if (api.GetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			sizeof(code->max_group), &code->max_group, NULL))
		code->max_group = 1;
	code->kernel = calloc(code->plan->n_kernel + 1, sizeof(cl_kernel));
	if (!code->kernel)
		return cl_error(ctx, "allocation", CL_OUT_OF_HOST_MEMORY);
	for (i = 0; i < code->plan->n_kernel; ++i) {
		code->kernel[i] = api.CreateKernel(code->program,
			code->plan->kernel[i].name, &err);
		if (!code->kernel[i])
			return cl_error(ctx, "clCreateKernel", err);
	}
	return 0;
}

struct ein_ocl_code *ein_ocl_code_build(ein_ctx *ctx,
	struct ein_ocl_plan *plan, struct ein_scop *scop, int platform,
	int device)
{
	struct ein_ocl_code *code;
	cl_device_id dev;

	if (!plan)
		return NULL;
	code = calloc(1, sizeof(*code));
	if (!code) {
		ein_ocl_plan_free(plan);
		return NULL;
	}
	code->plan = plan;
	code->scop = scop;
	pthread_mutex_init(&code->lock, NULL);
	if (load(ctx) < 0 || select_device(ctx, platform, device, &dev) < 0 ||
	    build(ctx, code, dev) < 0) {
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
	free(code->kernel);
	if (code->program)
		api.ReleaseProgram(code->program);
	if (code->queue)
		api.ReleaseCommandQueue(code->queue);
	if (code->context)
		api.ReleaseContext(code->context);
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

/* Create a buffer for each argument of the kernels (buf), filled from
 * the host's tensors for the definition's own. */
static int create_buffers(ein_ctx *ctx, struct ein_ocl_code *code,
	void *const *ptr, const size_t *bytes, const int64_t *sizes,
	cl_mem *buf)
{
	const struct ein_func *func = code->scop->func;
	int i, t, pos;
	cl_int err;

	for (i = 0; i < code->plan->n_arg; ++i) {
		size_t n;

		t = code->plan->arg[i];
		pos = t < func->n_tensor && func->tensor[t].role !=
			EIN_ROLE_TEMP ? t : -1;
		n = pos >= 0 ? bytes[pos] : temp_bytes(code, t, sizes);
		if (!n)
			return cl_error(ctx, "sizing a temporary", 0);
		buf[i] = api.CreateBuffer(code->context, CL_MEM_READ_WRITE, n ? n :
			1, NULL, &err);
		if (!buf[i])
			return cl_error(ctx, "clCreateBuffer", err);
		if (pos >= 0 && n > 0 && (err = api.EnqueueWriteBuffer(
				code->queue, buf[i], CL_FALSE, 0, n, ptr[pos],
				0, NULL, NULL)) != CL_SUCCESS)
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

/* Launch kernel "k" on the buffers. */
static int launch(ein_ctx *ctx, struct ein_ocl_code *code, int k,
	const cl_mem *buf, const int64_t *sizes)
{
	const struct ein_ocl_launch *l = &code->plan->kernel[k];
	const struct ein_func *func = code->scop->func;
	size_t global[EIN_GPU_MAX_DIM], local[EIN_GPU_MAX_DIM], items = 1;
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
	for (i = 0; items > code->max_group && i < EIN_GPU_MAX_DIM; ++i)
		while (local[i] > 1 && items > code->max_group) {
			items /= local[i];
			local[i] = (local[i] + 1) / 2;
			items *= local[i];
		}
	for (i = 0; i < EIN_GPU_MAX_DIM; ++i)
		global[i] = local[i] * (i < l->n_block ?
			n_groups(code, l, i, sizes) : 1);
	err = api.EnqueueNDRangeKernel(code->queue, code->kernel[k],
		dims ? dims : 1, NULL, global, local, 0, NULL, NULL);
	return err == CL_SUCCESS ? 0 : cl_error(ctx, "clEnqueueNDRangeKernel",
		err);
}

/* Read the outputs back. */
static int read_back(ein_ctx *ctx, struct ein_ocl_code *code,
	void *const *ptr, const size_t *bytes, const cl_mem *buf)
{
	const struct ein_func *func = code->scop->func;
	cl_int err;
	int i, t;

	for (i = 0; i < code->plan->n_arg; ++i) {
		t = code->plan->arg[i];
		if (t >= func->n_tensor ||
		    func->tensor[t].role != EIN_ROLE_OUTPUT || !bytes[t])
			continue;
		err = api.EnqueueReadBuffer(code->queue, buf[i], CL_TRUE, 0,
			bytes[t], ptr[t], 0, NULL, NULL);
		if (err != CL_SUCCESS)
			return cl_error(ctx, "clEnqueueReadBuffer", err);
	}
	return 0;
}

int ein_ocl_code_run(ein_ctx *ctx, struct ein_ocl_code *code,
	void *const *ptr, const size_t *bytes, const int64_t *sizes)
{
	int i, n = code->plan->n_arg, ok;
	cl_mem *buf = calloc(n + 1, sizeof(*buf));

	if (!buf)
		return cl_error(ctx, "allocation", CL_OUT_OF_HOST_MEMORY);
	pthread_mutex_lock(&code->lock);
	ok = create_buffers(ctx, code, ptr, bytes, sizes, buf);
	for (i = 0; ok == 0 && i < code->plan->n_kernel; ++i)
		ok = launch(ctx, code, i, buf, sizes);
	if (ok == 0)
		ok = read_back(ctx, code, ptr, bytes, buf);
	/* On an error, wait for what was queued before releasing. */
	api.Finish(code->queue);
	pthread_mutex_unlock(&code->lock);
	for (i = 0; i < n; ++i)
		if (buf[i])
			api.ReleaseMemObject(buf[i]);
	free(buf);
	return ok;
}

/* The target class of a device: opencl-<vendor> from its platform's
 * name, as schedule files are looked up. */
static const char *device_class(cl_platform_id p, cl_device_id d)
{
	char name[256] = "", vendor[256] = "";

	api.GetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
	api.GetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof(vendor) - 1, vendor, NULL);
	if (strcasestr(name, "portable") || strcasestr(name, "pocl"))
		return "opencl-pocl";
	if (strcasestr(vendor, "nvidia"))
		return "opencl-nvidia";
	if (strcasestr(vendor, "amd") || strcasestr(vendor, "advanced micro"))
		return "opencl-amd";
	if (strcasestr(vendor, "intel"))
		return "opencl-intel";
	return "opencl-generic";
}

static const char *type_name(cl_device_id d)
{
	cl_device_type type = 0;

	api.GetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	return type & CL_DEVICE_TYPE_GPU ? "gpu" :
		type & CL_DEVICE_TYPE_CPU ? "cpu" :
		type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
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
