/*
 * aot.h: the host side of a definition compiled ahead of time for OpenCL
 * ("ein compile --target opencl", docs/opencl.md).
 *
 * The kernels stay OpenCL C (emit.h), built by the device's compiler at
 * the first call; the object holds their text in a description of the
 * plan (the grid and every buffer's size as expressions of the sizes,
 * in the format runtime/cl_rt.c reads) and a function
 *
 *	int32_t NAME(void *queue, T *t0, ..., int64_t s0, ...)
 *
 * that calls ein_rt_cl_run (libein_rt) with them, for codegen/wrap.c to
 * wrap as NAME (no queue: host arrays on the default device) and NAME_cl
 * (a cl_command_queue and cl_mem buffers).
 */
#ifndef EIN_OPENCL_AOT_H
#define EIN_OPENCL_AOT_H

#include <llvm-c/Core.h>
#include "ein.h"
#include "opencl/emit.h"

/* The description of "plan" for "scop" as a string to free; NULL after
 * reporting an error on ctx (an expression the host cannot compute).
 * "konst" (NULL for none) has an entry per tensor of the definition,
 * non-NULL for a tensor embedded as constant data (ein compile --const):
 * its argument is marked so, and the runtime uploads it once per OpenCL
 * context from the host array the function passes for it. */
char *ein_ocl_aot_describe(ein_ctx *ctx, const struct ein_ocl_plan *plan,
	struct ein_scop *scop, const char *const *konst);

/* A module of "c" holding the description of "plan" and the function
 * NAME above (with an empty NAME__entry, which wrap.c expects and
 * deletes), NAME the definition's; "konst" as for
 * ein_ocl_aot_describe (wrap.c passes a constant's global for it).  NULL
 * after reporting an error. */
LLVMModuleRef ein_ocl_aot_module(ein_ctx *ctx, LLVMContextRef c,
	const struct ein_ocl_plan *plan, struct ein_scop *scop,
	const char *const *konst);

#endif
