/*
 * ctx.h: the internal side of ein_ctx.
 *
 * The context owns the isl_ctx every set and map lives in, and the
 * diagnostics of the current API call.  It holds no other mutable state:
 * two contexts never share anything, so they may be used from two threads.
 */
#ifndef EIN_CTX_H
#define EIN_CTX_H

#include <isl/ctx.h>
#include "ein.h"

/* The isl_ctx of "ctx" (owned by ctx). */
isl_ctx *ein_ctx_get_isl(ein_ctx *ctx);
/* Forget the errors of an earlier call: every public entry point calls this
 * first, so ein_ctx_last_error describes the last call only. */
void ein_ctx_clear_error(ein_ctx *ctx);

#endif
