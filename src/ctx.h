/*
 * ctx.h: the internal side of ein_ctx.
 *
 * The context owns the isl_ctx every set and map lives in, the
 * diagnostics of the current API call and the compile cache.  Two contexts
 * never share anything, so they may be used from two threads.
 */
#ifndef EIN_CTX_H
#define EIN_CTX_H

#include <isl/ctx.h>
#include "ein.h"

struct ein_cache;
struct ein_ocl_devices;

/* The isl_ctx of "ctx" (owned by ctx). */
isl_ctx *ein_ctx_get_isl(ein_ctx *ctx);
/* Forget the errors of an earlier call: every public entry point calls this
 * first, so ein_ctx_last_error describes the last call only. */
void ein_ctx_clear_error(ein_ctx *ctx);
/* The compile cache of "ctx" (owned by ctx; NULL for a NULL ctx). */
struct ein_cache *ein_ctx_get_cache(ein_ctx *ctx);
/* The OpenCL devices of "ctx": one OpenCL context and queue each, shared
 * by every kernel compiled for it (owned by ctx). */
struct ein_ocl_devices *ein_ctx_get_ocl_devices(ein_ctx *ctx);
/* Take and release the lock that kernel calls, which may run
 * concurrently, hold while they use isl objects of "ctx". */
void ein_ctx_lock_isl(ein_ctx *ctx);
void ein_ctx_unlock_isl(ein_ctx *ctx);

#endif
