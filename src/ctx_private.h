/*
 * ctx_private.h: the body of ein_ctx, shared by ctx.c and diag.c only.
 */
#ifndef EIN_CTX_PRIVATE_H
#define EIN_CTX_PRIVATE_H

#include <pthread.h>
#include <stddef.h>
#include <isl/ctx.h>
#include "ein.h"

struct ein_cache;
struct ein_ocl_devices;

/* isl: the isl context of every set, map and schedule made under this ctx;
 * lock: guards the diagnostics, which concurrent kernel calls may write;
 * msg, len: the messages of the current call (NULL when none);
 * n_error: how many errors msg holds;
 * status: the status of the first error of the current call;
 * isl_lock: serialises the isl work of concurrent kernel calls (isl
 *	objects and their context are not thread-safe);
 * cache: the compiled code kernels share (runtime/cache.h);
 * ocl: the OpenCL devices the context has used (opencl/runtime.h). */
struct ein_ctx {
	isl_ctx *isl;
	pthread_mutex_t lock;
	pthread_mutex_t isl_lock;
	struct ein_cache *cache;
	struct ein_ocl_devices *ocl;
	char *msg;
	size_t len;
	int n_error;
	ein_status status;
};

#endif
