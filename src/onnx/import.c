/*
 * import.c: the public API of the ONNX importer (ein_onnx_* in ein.h).
 *
 * The pipeline, one line per stage:
 *
 *     model file --read.c--> graph --bnfold.c--> graph
 *         --lower.c (fold.c, ops*.c)--> ein source
 *
 * The result keeps the source text and the data of the constants the
 * definition reads (its weights), which the caller passes as inputs
 * (ein run) or embeds (ein compile, ein_aot_set_const_data).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "ctx.h"
#include "diag.h"
#include "onnx/bnfold.h"
#include "onnx/lower.h"
#include "onnx/quantize.h"
#include "onnx/read.h"
#include "onnx/tograph.h"
#include "driver/options.h"

/* An imported model: its graph (owning the constants' data), the
 * definition's name and source, the indices of the constants the
 * definition reads, in signature order, and room for their shapes
 * (EIN_ONNX_MAX_RANK each), for ein_onnx_get_const's views. */
struct ein_onnx {
	struct ein_onnx_graph *g;
	char *def;
	char *source;
	int n_const;
	int *konst;
	int64_t *shape;
	struct ein_graph *graph;
};

void ein_onnx_free(ein_onnx *m)
{
	if (!m)
		return;
	ein_onnx_graph_free(m->g);
	free(m->def);
	free(m->source);
	free(m->konst);
	free(m->shape);
	ein_graph_free(m->graph);
	free(m);
}

/* The definition's name: the file's base name without ".onnx", as an
 * identifier ("model" if nothing is left). */
static char *def_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name;
	size_t k, len, n;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".onnx"))
		len -= 5;
	if (len > 60)
		len = 60;
	name = malloc(len + 8);
	if (!name)
		return NULL;
	strcpy(name, len && isalpha((unsigned char) base[0]) ? "" : "model_");
	n = strlen(name);
	for (k = 0; k < len; ++k)
		name[n++] = isalnum((unsigned char) base[k]) ? base[k] : '_';
	name[n] = '\0';
	return name;
}

/* Collect the constants the definition reads. */
static int collect_consts(ein_onnx *m)
{
	int i;

	m->konst = calloc(m->g->n_tensor + 1, sizeof(*m->konst));
	m->shape = calloc((size_t) (m->g->n_tensor + 1) * EIN_ONNX_MAX_RANK,
		sizeof(*m->shape));
	if (!m->konst || !m->shape)
		return -1;
	for (i = 0; i < m->g->n_tensor; ++i)
		if (m->g->tensor[i].role == EIN_ONNX_CONST &&
		    m->g->tensor[i].used)
			m->konst[m->n_const++] = i;
	return 0;
}

/* Import "path" as ein_onnx_import does; "expose" and the profile
 * "profile" (NULL: none) with "calibration" as ein_onnx_lower_with and
 * ein_onnx_quant_plan take them. */
static ein_onnx *import(ein_ctx *ctx, const char *path,
	const ein_options *opts, int expose, const char *profile,
	ein_calibration calibration)
{
	struct ein_onnx_quant *q = NULL;
	ein_onnx *m;
	int ok;

	if (!ctx)
		return NULL;
	ein_ctx_clear_error(ctx);
	if (!path) {
		ein_error(ctx, EIN_ERROR_INVALID, "ein_onnx_import: the file "
			"name is NULL");
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m)
		m->def = def_name(path);
	if (m && m->def)
		m->g = ein_onnx_read(ctx, path);
	ok = m && m->g && ein_onnx_fold_batchnorm(m->g) >= 0;
	if (ok && profile)
		ok = (q = ein_onnx_quant_plan(ctx, path, m->g, profile,
			calibration,
			ein_options_get_activation_bits(opts))) != NULL;
	if (ok)
		m->source = ein_onnx_lower_with(ctx, path, m->g, m->def, opts,
			expose, q, &m->graph);
	ein_onnx_quant_free(q);
	if (m && m->source && collect_consts(m) == 0)
		return m;
	if (ein_diag_n_error(ctx) == 0)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	ein_onnx_free(m);
	return NULL;
}

ein_onnx *ein_onnx_import(ein_ctx *ctx, const char *path,
	const ein_options *opts)
{
	return import(ctx, path, opts, 0, NULL, EIN_CALIBRATION_MINMAX);
}

ein_onnx *ein_onnx_import_profiling(ein_ctx *ctx, const char *path,
	const ein_options *opts)
{
	return import(ctx, path, opts, 1, NULL, EIN_CALIBRATION_MINMAX);
}

ein_onnx *ein_onnx_quantize(ein_ctx *ctx, const char *path,
	const ein_options *opts, const char *profile,
	ein_calibration calibration)
{
	if (ctx && !profile) {
		ein_error(ctx, EIN_ERROR_INVALID, "ein_onnx_quantize: the "
			"profile is NULL");
		return NULL;
	}
	return import(ctx, path, opts, 0, profile, calibration);
}

const char *ein_onnx_get_onnx_name(const ein_onnx *m, const char *name)
{
	int i;

	for (i = 0; m && name && i < m->g->n_tensor; ++i) {
		const struct ein_onnx_tensor *t = &m->g->tensor[i];

		if ((t->out_id && !strcmp(t->out_id, name)) ||
		    (t->id && !t->out_id && !strcmp(t->id, name)))
			return t->name;
	}
	return NULL;
}

__isl_keep struct ein_graph *ein_onnx_get_graph(const ein_onnx *m)
{
	return m ? m->graph : NULL;
}

const char *ein_onnx_get_source(const ein_onnx *m)
{
	return m ? m->source : NULL;
}

const char *ein_onnx_get_def_name(const ein_onnx *m)
{
	return m ? m->def : NULL;
}

int ein_onnx_n_const(const ein_onnx *m)
{
	return m ? m->n_const : -1;
}

const char *ein_onnx_get_const_name(const ein_onnx *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_const)
		return NULL;
	return m->g->tensor[m->konst[pos]].id;
}

/* The DLPack type of "dtype" (bool: one byte, kDLUInt). */
static DLDataType dl_type(enum ein_onnx_dtype dtype)
{
	DLDataType dt = { kDLFloat, 32, 1 };

	switch (dtype) {
	case EIN_ONNX_DOUBLE: dt.bits = 64; break;
	case EIN_ONNX_INT32: dt.code = kDLInt; break;
	case EIN_ONNX_INT8: dt.code = kDLInt; dt.bits = 8; break;
	case EIN_ONNX_UINT8:
	case EIN_ONNX_BOOL: dt.code = kDLUInt; dt.bits = 8; break;
	default: break;
	}
	return dt;
}

ein_status ein_onnx_get_const(const ein_onnx *m, int pos, DLTensor *t)
{
	const struct ein_onnx_tensor *c;
	int d;

	if (!m || pos < 0 || pos >= m->n_const || !t)
		return EIN_ERROR_INVALID;
	c = &m->g->tensor[m->konst[pos]];
	memset(t, 0, sizeof(*t));
	t->data = c->data;
	t->device.device_type = kDLCPU;
	t->ndim = c->rank;
	t->dtype = dl_type(c->dtype);
	t->shape = m->shape + (size_t) pos * EIN_ONNX_MAX_RANK;
	for (d = 0; d < c->rank; ++d)
		t->shape[d] = c->dim[d].value;
	return EIN_OK;
}
