/*
 * none.c: the OpenCL runtime (runtime.h) of a build without OpenCL
 * (configure found no libOpenCL): every device request fails cleanly.
 */
#include <stdlib.h>
#include "diag.h"
#include "opencl/runtime.h"

struct ein_ocl_code *ein_ocl_code_build(ein_ctx *ctx,
	struct ein_ocl_plan *plan, struct ein_scop *scop, int platform,
	int device, unsigned flags)
{
	(void) flags;
	(void) scop;
	(void) platform;
	(void) device;
	ein_ocl_plan_free(plan);
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: ein was built without "
		"OpenCL (configure --with-opencl)");
	return NULL;
}

void ein_ocl_code_free(struct ein_ocl_code *code)
{
	(void) code;
}

/* Something to free, so that a context is the same with or without
 * OpenCL. */
struct ein_ocl_devices {
	int unused;
};

struct ein_ocl_devices *ein_ocl_devices_alloc(void)
{
	return calloc(1, sizeof(struct ein_ocl_devices));
}

void ein_ocl_devices_free(struct ein_ocl_devices *list)
{
	free(list);
}

int ein_ocl_resolve(ein_ctx *ctx, int *platform, int *device)
{
	(void) platform;
	(void) device;
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: ein was built without "
		"OpenCL (configure --with-opencl)");
	return -1;
}

int ein_ocl_code_run(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const int64_t *sizes)
{
	(void) code;
	(void) arg;
	(void) sizes;
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: not built in");
	return -1;
}

double ein_ocl_code_get_seconds(struct ein_ocl_code *code)
{
	(void) code;
	return -1;
}

int ein_ocl_code_get_queue(ein_ctx *ctx, struct ein_ocl_code *code,
	void **context, void **queue)
{
	(void) code;
	*context = NULL;
	*queue = NULL;
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: not built in");
	return -1;
}

int ein_ocl_device_info(ein_ctx *ctx, int platform, int device,
	struct ein_ocl_device_info *info)
{
	(void) platform;
	(void) device;
	(void) info;
	ein_error(ctx, EIN_ERROR_DEVICE, "OpenCL: ein was built without "
		"OpenCL (configure --with-opencl)");
	return -1;
}

int ein_ocl_code_check_buffer(ein_ctx *ctx, struct ein_ocl_code *code,
	void *mem, size_t bytes, const char *name, int pos)
{
	(void) code;
	(void) mem;
	(void) bytes;
	(void) pos;
	ein_error(ctx, EIN_ERROR_DEVICE, "tensor '%s': OpenCL is not built "
		"in", name);
	return -1;
}

const char *ein_ocl_device_class(int platform, int device)
{
	(void) platform;
	(void) device;
	return "opencl-generic";
}

int ein_ocl_list_devices(FILE *out)
{
	(void) out;
	return -1;
}

void ein_ocl_forbid_load(int forbid)
{
	(void) forbid;
}
