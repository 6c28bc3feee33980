/*
 * cl_rt.h: the OpenCL runtime that kernels compiled ahead of time for
 * OpenCL call (libein_rt; "ein compile --target opencl", docs/opencl.md).
 *
 * The generated host functions call ein_rt_cl_run with their
 * definition's description (opencl/aot.c writes it; cl_rt.c reads it) and
 * a slot for its state, both in the object, then the tensors in signature
 * order and every size.
 */
#ifndef EIN_RUNTIME_CL_RT_H
#define EIN_RUNTIME_CL_RT_H

#include <stdint.h>

/* What ein_rt_cl_run returns besides 0 (the headers' EIN_AOT_ERROR_DEVICE). */
#define EIN_RT_CL_ERROR_DEVICE 4

/* Run the kernels "desc" describes ("slot": their state, NULL before the
 * first call) on "tensors" with "sizes": host arrays on the process's
 * default device if "queue" is NULL, else cl_mem buffers of the
 * cl_command_queue "queue"'s context, on that queue; a tensor the
 * description marks constant is the object's host array either way,
 * uploaded once per context.  Returns when the
 * device has finished: 0, or EIN_RT_CL_ERROR_DEVICE with a message for
 * ein_rt_cl_last_error.  Thread-safe. */
int ein_rt_cl_run(const char *desc, void **slot, void **tensors,
	const int64_t *sizes, void *queue);
/* The message of the last failed ein_rt_cl_run of this thread. */
const char *ein_rt_cl_last_error(void);

#endif
