/*
 * runtime.h: running a planned definition (emit.h) on an OpenCL device.
 *
 * A code holds its own context, in-order queue, program (built once,
 * with the device compiler's log turned into the error when it fails)
 * and kernels; a call creates the buffers, copies the inputs and outputs
 * in, launches the kernels in order, reads the outputs back and releases
 * the buffers.  Calls on one code are serialised by its lock (kernel
 * arguments are state of the cl_kernel).  Every OpenCL object is released
 * on every path.
 */
#ifndef EIN_OPENCL_RUNTIME_H
#define EIN_OPENCL_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include "ein.h"
#include "opencl/emit.h"

struct ein_ocl_code;

/* Build "plan" (taken) for scop "scop" (kept: it must outlive the code)
 * on device "device" of platform "platform" (-1: EIN_OPENCL_DEVICE=P:D if
 * set, else the first GPU, else the first device).  NULL after reporting
 * EIN_ERROR_DEVICE (no OpenCL, no such device, a build failure with the
 * device compiler's log). */
struct ein_ocl_code *ein_ocl_code_build(ein_ctx *ctx,
	struct ein_ocl_plan *plan, struct ein_scop *scop, int platform,
	int device);
void ein_ocl_code_free(struct ein_ocl_code *code);
/* Run "code" on the definition's tensors "ptr" (those that are not
 * temporaries, in order; "bytes" their sizes) with sizes "sizes".
 * Returns -1 after reporting EIN_ERROR_DEVICE. */
int ein_ocl_code_run(ein_ctx *ctx, struct ein_ocl_code *code,
	void *const *ptr, const size_t *bytes, const int64_t *sizes);
/* Print every OpenCL platform and device, one a line as "P:D", the
 * device's name, type and target class ("opencl-pocl", "opencl-nvidia",
 * ...).  Returns the number of devices, -1 if OpenCL fails. */
int ein_ocl_list_devices(FILE *out);

#endif
