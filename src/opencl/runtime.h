/*
 * runtime.h: running a planned definition (emit.h) on an OpenCL device.
 *
 * An ein context keeps one OpenCL context and in-order queue per device
 * it has used (ein_ocl_devices, released with the ein context); a code
 * holds a reference to its device, its program (built once, with the
 * device compiler's log turned into the error when it fails; the code
 * lives in the context's compile cache, so the same key is not built
 * again) and kernels, and keeps the device buffers of its last call for
 * the next one while they are large enough.  A call binds a buffer to
 * each tensor (a caller's cl_mem as it is, else a kept buffer with the
 * host tensor copied in), launches the kernels in order, reads the host
 * outputs back and waits for the queue.  Calls on one code are
 * serialised by its lock (kernel arguments and the kept buffers are
 * state); calls on different codes may run concurrently.  Every OpenCL
 * object is released on every path.
 */
#ifndef EIN_OPENCL_RUNTIME_H
#define EIN_OPENCL_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include "ein.h"
#include "opencl/emit.h"

struct ein_ocl_code;
struct ein_ocl_devices;

/* One tensor of a call: "mem" a cl_mem of the device's context to use in
 * place, or NULL for "host", "bytes" long, copied in (and out for an
 * output). */
struct ein_ocl_arg {
	void *host;
	void *mem;
	size_t bytes;
};

/* The devices of an ein context (none until one is used); freeing them
 * drops the context's references, the last releasing each device's
 * OpenCL context and queue. */
struct ein_ocl_devices *ein_ocl_devices_alloc(void);
void ein_ocl_devices_free(struct ein_ocl_devices *list);

/* Turn *platform, *device (-1: the default device) into the indices of
 * the device they name, loading OpenCL if needed.  -1 after reporting
 * EIN_ERROR_DEVICE when there is no such device. */
int ein_ocl_resolve(ein_ctx *ctx, int *platform, int *device);

/* The flags of ein_ocl_code_build.
 * EIN_OCL_LAZY: make the device and build the program at the first call
 *	(or ein_ocl_code_get_queue), in the process that calls, instead of
 *	now: an OpenCL runtime does not survive fork (PoCL's worker threads
 *	stay in the parent, and a child's launch waits for them forever),
 *	so the tuner compiles in its process and runs in forked children;
 * EIN_OCL_PROFILE: time each call's kernels by the device's profiling
 *	events (ein_ocl_code_get_seconds), on a queue made with
 *	CL_QUEUE_PROFILING_ENABLE; the device's queue is made by the first
 *	code built for it in the ein context, so a code that asks for
 *	profiling after one that did not gets no times. */
enum {
	EIN_OCL_LAZY = 1,
	EIN_OCL_PROFILE = 2
};

/* Build "plan" (taken) for scop "scop" (kept: it must outlive the code)
 * on device "device" of platform "platform" (-1: EIN_OPENCL_DEVICE=P:D if
 * set, else the first GPU, else the first device), as "flags" say (see
 * above).  NULL after reporting EIN_ERROR_DEVICE (no OpenCL, no such
 * device, a build failure with the device compiler's log); with
 * EIN_OCL_LAZY those are reported by the first call. */
struct ein_ocl_code *ein_ocl_code_build(ein_ctx *ctx,
	struct ein_ocl_plan *plan, struct ein_scop *scop, int platform,
	int device, unsigned flags);
void ein_ocl_code_free(struct ein_ocl_code *code);
/* Run "code" on the definition's tensors "arg" (indexed by position in
 * the definition; those of temporaries unused) with sizes "sizes".
 * Returns -1 after reporting EIN_ERROR_DEVICE. */
int ein_ocl_code_run(ein_ctx *ctx, struct ein_ocl_code *code,
	const struct ein_ocl_arg *arg, const int64_t *sizes);
/* The device time in seconds of the kernels of the last call of "code"
 * (built with EIN_OCL_PROFILE): from the start of the first kernel to
 * the end of the last, by the device's profiling events, without the
 * copies; -1 if unknown (no profiling, or the last call failed). */
double ein_ocl_code_get_seconds(struct ein_ocl_code *code);
/* The OpenCL context and queue of the device of "code" (the ein
 * context's), as cl_context and cl_command_queue (building a lazy code
 * first).  Returns -1 after reporting EIN_ERROR_DEVICE. */
int ein_ocl_code_get_queue(ein_ctx *ctx, struct ein_ocl_code *code,
	void **context, void **queue);
/* Check that "mem", the data of tensor "name" (argument "pos"), is a
 * cl_mem of the context of "code" holding at least "bytes".  Returns -1
 * after reporting EIN_ERROR_DEVICE. */
int ein_ocl_code_check_buffer(ein_ctx *ctx, struct ein_ocl_code *code,
	void *mem, size_t bytes, const char *name, int pos);
/* The target class of device "device" of platform "platform" (-1: the
 * default device), the directory schedules/<class>/ its schedule files
 * are looked up in (sched/lookup.h): "opencl-pocl" for any device of
 * PoCL, "opencl-nvidia", "opencl-amd" or "opencl-intel" for a GPU of that
 * vendor, else "opencl-generic" (also when there is no such device: the
 * compile reports that). */
const char *ein_ocl_device_class(int platform, int device);

/* Refuse (forbid != 0) or allow loading OpenCL in this process.  ein
 * tune's parent refuses it while it forks the children that build and
 * time candidates: a GPU driver initialised before fork() is not usable
 * in the child (CUDA's rule, under NVIDIA's OpenCL), so the parent
 * leaves the device to its children.  A refused load is an error that
 * names this, never a silent fallback. */
void ein_ocl_forbid_load(int forbid);
/* What the tuner needs of a device.
 * platform, device: its indices (the default resolved);
 * class: its target class (ein_ocl_device_class); name: CL_DEVICE_NAME;
 * max_group: CL_DEVICE_MAX_WORK_GROUP_SIZE;
 * local_mem: CL_DEVICE_LOCAL_MEM_SIZE in bytes;
 * host_memory: a CPU device, whose buffers are the host's memory. */
struct ein_ocl_device_info {
	int platform;
	int device;
	char class[32];
	char name[256];
	size_t max_group;
	size_t local_mem;
	int host_memory;
};

/* The information of device "device" of platform "platform" (-1: the
 * default device) into *info.  Returns -1 after reporting
 * EIN_ERROR_DEVICE (no OpenCL, no such device). */
int ein_ocl_device_info(ein_ctx *ctx, int platform, int device,
	struct ein_ocl_device_info *info);
/* Print every OpenCL platform and device, one a line as "P:D", the
 * device's name, type and target class ("opencl-pocl", "opencl-nvidia",
 * ...).  Returns the number of devices, -1 if OpenCL fails. */
int ein_ocl_list_devices(FILE *out);

#endif
