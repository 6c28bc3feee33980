/*
 * ctx.c: ein_ctx, the owner of the isl context and of diagnostics.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include "ein.h"
#include "ctx.h"
#include "ctx_private.h"
#include "runtime/cache.h"
#include "opencl/runtime.h"

ein_ctx *ein_ctx_alloc(void)
{
	ein_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->isl = isl_ctx_alloc();
	ctx->cache = ein_cache_alloc();
	ctx->ocl = ein_ocl_devices_alloc();
	if (!ctx->isl || !ctx->cache || !ctx->ocl) {
		isl_ctx_free(ctx->isl);
		ein_cache_free(ctx->cache);
		ein_ocl_devices_free(ctx->ocl);
		free(ctx);
		return NULL;
	}
	/* isl reports errors to us through return values; printing them on
	 * stderr from inside a library is not its job. */
	isl_options_set_on_error(ctx->isl, ISL_ON_ERROR_CONTINUE);
	pthread_mutex_init(&ctx->lock, NULL);
	pthread_mutex_init(&ctx->isl_lock, NULL);
	return ctx;
}

void ein_ctx_free(ein_ctx *ctx)
{
	if (!ctx)
		return;
	/* The cached code holds programs, whose sets live in ctx->isl. */
	ein_cache_free(ctx->cache);
	/* After the cache: its code holds references to the devices. */
	ein_ocl_devices_free(ctx->ocl);
	isl_ctx_free(ctx->isl);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->isl_lock);
	free(ctx->msg);
	free(ctx);
}

isl_ctx *ein_ctx_get_isl(ein_ctx *ctx)
{
	return ctx ? ctx->isl : NULL;
}

struct ein_cache *ein_ctx_get_cache(ein_ctx *ctx)
{
	return ctx ? ctx->cache : NULL;
}

struct ein_ocl_devices *ein_ctx_get_ocl_devices(ein_ctx *ctx)
{
	return ctx ? ctx->ocl : NULL;
}

void ein_ctx_lock_isl(ein_ctx *ctx)
{
	pthread_mutex_lock(&ctx->isl_lock);
}

void ein_ctx_unlock_isl(ein_ctx *ctx)
{
	pthread_mutex_unlock(&ctx->isl_lock);
}

const char *ein_ctx_last_error(const ein_ctx *ctx)
{
	if (!ctx || !ctx->msg)
		return "";
	return ctx->msg;
}

ein_status ein_ctx_last_status(const ein_ctx *ctx)
{
	return ctx ? ctx->status : EIN_ERROR_INVALID;
}

void ein_ctx_clear_error(ein_ctx *ctx)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	free(ctx->msg);
	ctx->msg = NULL;
	ctx->len = 0;
	ctx->n_error = 0;
	ctx->status = EIN_OK;
	pthread_mutex_unlock(&ctx->lock);
}

const char *ein_version(void)
{
	return PACKAGE_VERSION;
}
