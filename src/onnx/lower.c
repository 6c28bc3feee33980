/*
 * lower.c: the importer's graph as one ein definition.
 *
 * The nodes are visited in the graph's (topological) order: each is
 * folded (fold.c) or written as statements by its operator (ops.c), which
 * also infers its outputs' shapes.  Then the signature is written around
 * the statements:
 *
 *     def NAME(inputs..., weights...) -> (outputs...) {
 *         statements, every intermediate tensor a temporary
 *         OUT(i0, ...) = OUT_value(i0, ...)      one copy per output
 *     }
 *
 * ONNX names become identifiers (other characters as '_', made unique,
 * never a keyword, builtin, size or index name); the header comment lists
 * the ONNX name of each input and output.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "driver/options.h"
#include "frontend/builtin.h"
#include "onnx/fold.h"
#include "onnx/lower.h"
#include "onnx/ops.h"
#include "onnx/quantize.h"
#include "onnx/tograph.h"

/* The longest identifier made from an ONNX name. */
#define MAX_ID 60

/* Is "s" a word of the language, or an index name (i3, r0)? */
static int reserved(const char *s)
{
	static const char *words[] = { "def", "where", "in", "float32",
		"float", "float64", "int32", "int8", "uint8", "bool" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); ++i)
		if (!strcmp(s, words[i]))
			return 1;
	if (ein_builtin_arity(s) >= 0)
		return 1;
	if ((s[0] == 'i' || s[0] == 'r') && s[1])
		return strspn(s + 1, "0123456789") == strlen(s + 1);
	return 0;
}

/* Is "id" among taken[0 .. n-1]? */
static int taken_by(char **taken, int n, const char *id)
{
	int i;

	for (i = 0; i < n; ++i)
		if (taken[i] && !strcmp(taken[i], id))
			return 1;
	return 0;
}

/* An identifier for ONNX name "name" (prefix "pre" if it must not begin
 * as it does), unique among taken[0 .. n-1] and ending in neither "_"
 * and digits of an auxiliary name. */
static char *make_id(const char *name, const char *pre, char **taken, int n)
{
	char base[MAX_ID + 8], *id;
	size_t k, len = 0;
	int suffix = 1;

	if (!isalpha((unsigned char) name[0]))
		len = snprintf(base, sizeof(base), "%s", pre);
	for (k = 0; name[k] && len < MAX_ID; ++k)
		base[len++] = isalnum((unsigned char) name[k]) ? name[k] : '_';
	base[len] = '\0';
	if (reserved(base)) {
		memmove(base + strlen(pre), base, len + 1);
		memcpy(base, pre, strlen(pre));
	}
	id = malloc(strlen(base) + 16);
	if (!id)
		return NULL;
	strcpy(id, base);
	while (taken_by(taken, n, id))
		sprintf(id, "%s_%d", base, ++suffix);
	return id;
}

/* Name every size and tensor: the sizes, then the graph's outputs (the
 * definition's outputs, and their temporaries), then the others. */
static int name_all(struct ein_onnx_lower *l)
{
	struct ein_onnx_graph *g = l->g;
	char **taken = calloc(g->n_size + 2 * g->n_tensor + 1, sizeof(*taken));
	int i, pass, n = 0;

	l->size_id = calloc(g->n_size + 1, sizeof(*l->size_id));
	if (!taken || !l->size_id)
		return (free(taken), -1);
	for (i = 0; i < g->n_size; ++i) {
		l->size_id[i] = make_id(g->size[i], "S", taken, n);
		if (!(taken[n++] = l->size_id[i]))
			return (free(taken), -1);
	}
	for (pass = 0; pass < 2; ++pass)
		for (i = 0; i < g->n_tensor; ++i) {
			struct ein_onnx_tensor *t = &g->tensor[i];
			char name[MAX_ID + 16];

			if (t->output != !pass)
				continue;
			if (t->output) {
				t->out_id = make_id(t->name, "t", taken, n);
				if (!(taken[n++] = t->out_id))
					return (free(taken), -1);
			}
			snprintf(name, sizeof(name), "%.*s%s", MAX_ID,
				t->output ? t->out_id : t->name,
				t->output ? "_value" : "");
			t->id = make_id(name, "t", taken, n);
			if (!(taken[n++] = t->id))
				return (free(taken), -1);
		}
	free(taken);
	return 0;
}

/* Replace the sizes that "opts" fixes by their values in the inputs'
 * shapes. */
static void fix_sizes(struct ein_onnx_lower *l, const ein_options *opts)
{
	struct ein_onnx_graph *g = l->g;
	int i, d;

	for (i = 0; i < g->n_input; ++i) {
		struct ein_onnx_tensor *t = &g->tensor[g->input[i]];

		for (d = 0; d < t->rank; ++d) {
			long v;

			if (t->dim[d].sym < 0)
				continue;
			v = ein_options_fixed_value(opts,
				l->size_id[t->dim[d].sym]);
			if (!v)
				v = ein_options_fixed_value(opts,
					g->size[t->dim[d].sym]);
			if (v > 0)
				t->dim[d] = ein_onnx_dim_const(v);
		}
	}
}

/* Check that the inputs of node "n" are computed before it. */
static int check_inputs(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	int i;

	for (i = 0; i < n->n_in; ++i) {
		const struct ein_onnx_tensor *t;

		if (n->in[i] < 0)
			continue;
		t = &l->g->tensor[n->in[i]];
		if (!t->known)
			return ein_onnx_node_error(l, n, "input '%s' is neither "
				"a graph input, an initializer nor the output "
				"of an earlier node (a missing initializer, a "
				"cycle, or nodes not in topological order)", t->name);
	}
	return 0;
}

/* Refuse a graph input (with the sizes fixed by the options) of more
 * elements than ein can address: its bytes would overflow the sizes
 * that the graph level computes.  With a symbolic dimension, the product
 * of the constant ones is bounded the same way: the lowerings multiply
 * them into strides (a Reshape of [N, 2^61, 6] overflowed int64_t). */
static int check_input_sizes(struct ein_onnx_lower *l)
{
	int i;

	for (i = 0; i < l->g->n_input; ++i) {
		const struct ein_onnx_tensor *t = &l->g->tensor[l->g->input[i]];

		if (ein_onnx_const_product(t->dim, t->rank) >
				EIN_ONNX_MAX_ELEM) {
			ein_error(l->ctx, EIN_ERROR_UNSUPPORTED, "%s: input "
				"'%s' has more than %lld elements", l->path,
				t->name, (long long) EIN_ONNX_MAX_ELEM);
			return -1;
		}
	}
	return 0;
}

/* Refuse an output of node "n" of more elements than ein can address
 * (shapes computed from a model's constants can be anything). */
static int check_output_sizes(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	int i;

	for (i = 0; i < n->n_out; ++i) {
		const struct ein_onnx_tensor *t;

		if (n->out[i] < 0)
			continue;
		t = &l->g->tensor[n->out[i]];
		if (t->known && ein_onnx_const_product(t->dim, t->rank) >
				EIN_ONNX_MAX_ELEM)
			return ein_onnx_node_error(l, n, "output '%s' has more "
				"than %lld elements", t->name,
				(long long) EIN_ONNX_MAX_ELEM);
	}
	return 0;
}

/* Fold or write node "n". */
static int lower_node(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	const struct ein_onnx_op *op;
	int i, r;

	if (check_inputs(l, n) < 0)
		return -1;
	for (i = 0; i < n->n_out; ++i)
		if (n->out[i] >= 0 && l->g->tensor[n->out[i]].known)
			return ein_onnx_node_error(l, n, "output '%s' is "
				"already defined (a cycle, or two nodes "
				"writing it)", l->g->tensor[n->out[i]].name);
	if ((r = ein_onnx_fold(l, n)) != 0)
		return r < 0 ? -1 : check_output_sizes(l, n);
	op = ein_onnx_op_find(n->op);
	if (!op)
		return ein_onnx_node_error(l, n, "operator %s is not supported "
			"(docs/onnx.md lists those that are)", n->op);
	r = l->quant ? ein_onnx_quant_lower_node(l, n, op) : op->lower(l, n);
	return r != 0 ? r : check_output_sizes(l, n);
}

/* "TYPE(D0, ...) NAME" of a parameter. */
static void print_param(struct ein_onnx_lower *l, FILE *f,
	const struct ein_onnx_tensor *t, const char *id)
{
	FILE *out = l->out;
	int d;

	fprintf(f, "%s", ein_onnx_dtype_ein(t->dtype));
	l->out = f;
	for (d = 0; d < t->rank; ++d) {
		fputs(d ? ", " : "(", f);
		ein_onnx_print_dim(l, t->dim[d]);
	}
	l->out = out;
	fprintf(f, "%s %s", t->rank ? ")" : "", id);
}

/* The name of output "t" in the signature. */
static void output_name(const struct ein_onnx_tensor *t, char *buf,
	size_t size)
{
	snprintf(buf, size, "%s", t->out_id);
}

/* Check the graph's outputs and copy each into its output tensor; end[i]
 * is where the copy of output i ends in the statements. */
static int write_outputs(struct ein_onnx_lower *l, long *end)
{
	struct ein_onnx_graph *g = l->g;
	char name[MAX_ID + 32];
	int i;

	if (!g->n_output) {
		ein_error(l->ctx, EIN_ERROR_UNSUPPORTED, "%s: the graph has no "
			"outputs", l->path);
		return -1;
	}
	for (i = 0; i < g->n_output; ++i) {
		struct ein_onnx_tensor *t = &g->tensor[g->output[i]], o;

		if (!t->known || t->role != EIN_ONNX_TEMP ||
		    !ein_onnx_dtype_ein(t->dtype)) {
			ein_error(l->ctx, EIN_ERROR_UNSUPPORTED, "%s: output "
				"'%s' is %s", l->path, t->name, !t->known ?
				"not computed by any node" : t->role !=
				EIN_ONNX_TEMP ? "an input or a constant, not "
				"computed (not supported)" : "of a type ein "
				"does not compute with");
			return -1;
		}
		o = *t;
		output_name(t, name, sizeof(name));
		o.id = name;
		ein_onnx_print_lhs(l, &o, "=");
		ein_onnx_print_bcast(l, t, t->rank, t->dim);
		ein_onnx_print_where(l, t, 0);
		end[i] = ftell(l->out);
	}
	return 0;
}

/* The header comment: where the text comes from and the ONNX names. */
static void print_header(struct ein_onnx_lower *l, FILE *f)
{
	struct ein_onnx_graph *g = l->g;
	int i, n = 0;

	fprintf(f, "# Imported from %s (ONNX opset %lld) by ein %s.\n",
		l->path, (long long) g->opset, l->quant ? "quantize (int8: "
		"docs/quantization.md)" : "import");
	for (i = 0; i < g->n_input; ++i)
		fprintf(f, "# input %s: ONNX '%s'\n", g->tensor[g->input[i]].id,
			g->tensor[g->input[i]].name);
	for (i = 0; i < g->n_output; ++i) {
		char name[MAX_ID + 32];

		output_name(&g->tensor[g->output[i]], name, sizeof(name));
		fprintf(f, "# output %s: ONNX '%s'\n", name,
			g->tensor[g->output[i]].name);
	}
	for (i = 0; i < g->n_tensor; ++i)
		n += g->tensor[i].role == EIN_ONNX_CONST && g->tensor[i].used;
	fprintf(f, "# %d constant input%s (weights) hold the model's data.\n",
		n, n == 1 ? "" : "s");
}

/* Is "t" an intermediate tensor that --expose makes an output: computed
 * by a node, in a type ein has, and not already an output? */
static int is_exposed(const struct ein_onnx_tensor *t)
{
	return t->role == EIN_ONNX_TEMP && t->known && !t->output && t->id &&
		ein_onnx_dtype_ein(t->dtype);
}

/* The definition: signature around the statements "body". */
static char *print_def(struct ein_onnx_lower *l, const char *def,
	const char *body)
{
	struct ein_onnx_graph *g = l->g;
	char *text = NULL, name[MAX_ID + 32];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int i, any = 0;

	if (!f)
		return NULL;
	print_header(l, f);
	fprintf(f, "def %s(", def);
	for (i = 0; i < g->n_input; ++i, any = 1) {
		fputs(any ? ",\n        " : "", f);
		print_param(l, f, &g->tensor[g->input[i]],
			g->tensor[g->input[i]].id);
	}
	for (i = 0; i < g->n_tensor; ++i)
		if (g->tensor[i].role == EIN_ONNX_CONST && g->tensor[i].used) {
			fputs(any ? ",\n        " : "", f);
			print_param(l, f, &g->tensor[i], g->tensor[i].id);
			any = 1;
		}
	fputs(")\n    -> (", f);
	for (i = 0; i < g->n_output; ++i) {
		output_name(&g->tensor[g->output[i]], name, sizeof(name));
		fputs(i ? ", " : "", f);
		print_param(l, f, &g->tensor[g->output[i]], name);
	}
	for (i = 0; l->expose && i < g->n_tensor; ++i)
		if (is_exposed(&g->tensor[i])) {
			fputs(",\n        ", f);
			print_param(l, f, &g->tensor[i], g->tensor[i].id);
		}
	fprintf(f, ") {\n%s}\n", body);
	fclose(f);
	return text;
}

/* Check that every constant a statement reads has a type ein has. */
static int check_consts(struct ein_onnx_lower *l)
{
	int i;

	for (i = 0; i < l->g->n_tensor; ++i) {
		const struct ein_onnx_tensor *t = &l->g->tensor[i];

		if (t->role == EIN_ONNX_CONST && t->used &&
		    !ein_onnx_dtype_ein(t->dtype)) {
			ein_error(l->ctx, EIN_ERROR_UNSUPPORTED, "%s: constant "
				"'%s' of type %s is read by a computation, "
				"which ein cannot do in that type", l->path,
				t->name, ein_onnx_dtype_name(t->dtype));
			return -1;
		}
	}
	return 0;
}

char *ein_onnx_lower(ein_ctx *ctx, const char *path, struct ein_onnx_graph *g,
	const char *def, const ein_options *opts, struct ein_graph **graph)
{
	return ein_onnx_lower_with(ctx, path, g, def, opts, 0, NULL, graph);
}

char *ein_onnx_lower_with(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const char *def, const ein_options *opts,
	int expose, struct ein_onnx_quant *quant, struct ein_graph **graph)
{
	struct ein_onnx_lower l = { ctx, path, g, NULL, NULL, 0, expose,
		quant };
	char *body = NULL, *text = NULL;
	long *end = calloc(g->n_node + g->n_output + 1, sizeof(*end));
	size_t len;
	int i, ok;

	ok = end && name_all(&l) == 0 &&
		(l.out = open_memstream(&body, &len));
	if (ok) {
		fix_sizes(&l, opts);
		ok = check_input_sizes(&l) == 0;
	}
	for (i = 0; ok && i < g->n_node; ++i) {
		ok = lower_node(&l, &g->node[i]) == 0;
		end[i] = ftell(l.out);
	}
	if (ok && quant)
		ok = ein_onnx_quant_finish(&l) == 0;
	ok = ok && write_outputs(&l, end + g->n_node) == 0 &&
		check_consts(&l) == 0;
	if (l.out)
		fclose(l.out);
	if (ok)
		text = print_def(&l, def, body);
	if (text && graph &&
	    !(*graph = ein_onnx_make_graph(&l, def, body, end)))
		text = (free(text), NULL);
	if (ok && !text)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	if (!ok && ein_diag_n_error(ctx) == 0)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	for (i = 0; l.size_id && i < g->n_size; ++i)
		free(l.size_id[i]);
	free(l.size_id);
	free(body);
	free(end);
	return text;
}
