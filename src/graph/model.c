/*
 * model.c: whole models through the graph level, the ein_model_* API of
 * ein.h.
 *
 *     model.onnx --ein_onnx_import (ein_onnx_quantize with a profile in
 *         the options)--> graph (each node's statements)
 *         --ein_graph_partition--> kernels --ein_graph_print_source-->
 *         one definition per kernel --ein_kernel_compile_with--> code
 *         --ein_graph_plan_memory--> arena offsets
 *
 * A run binds every tensor of the graph to memory (the caller's inputs
 * and outputs, the importer's weights, the arena at its planned offset)
 * and calls the kernels in order.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ctx.h"
#include "diag.h"
#include "driver/options.h"
#include "driver/program.h"
#include "frontend/canon.h"
#include "graph/ein_graph.h"
#include "onnx/tograph.h"
#include "runtime/kernel.h"

/* The most dimensions of a tensor between kernels. */
#define MAX_RANK 16

/* A tensor of the graph as memory: its descriptor (data set for weights
 * and arena tensors, per call for inputs and outputs), its shape;
 * described: the descriptor's type and shape are known (from a kernel
 * that has it as a parameter). */
struct slot {
	DLTensor dl;
	int64_t shape[MAX_RANK];
	int described;
};

/* A model.
 * ctx: the caller's context; onnx: the imported model (the whole-model
 *	definition and the weights); g: its graph (owned by onnx);
 * source, memory: the kernels' source and the plan as text;
 * prog: the kernels' program; kernel: each kernel compiled (NULL for a
 *	kernel whose results nobody reads); nodes: each kernel's nodes as
 *	text; seconds: the time of each kernel's calls so far;
 * slot: each tensor of g; arena: the arena, arena_bytes long;
 *	tensor_bytes: the sum of the tensors in it;
 * input, output: the graph's tensors that are the model's inputs and
 *	outputs, in order;
 * whole: the whole-model definition, compiled on the first
 *	ein_model_run_reference. */
struct ein_model {
	ein_ctx *ctx;
	ein_onnx *onnx;
	struct ein_graph *g;
	char *source;
	char *memory;
	ein_program *prog;
	int n_kernel;
	ein_kernel **kernel;
	char **nodes;
	double *seconds;
	struct slot *slot;
	unsigned char *arena;
	int64_t arena_bytes;
	int64_t tensor_bytes;
	int n_input;
	int *input;
	int n_output;
	int *output;
	ein_kernel *whole;
};

void ein_model_free(ein_model *m)
{
	int k;

	if (!m)
		return;
	for (k = 0; k < m->n_kernel; ++k) {
		ein_kernel_free(m->kernel[k]);
		free(m->nodes[k]);
	}
	ein_kernel_free(m->whole);
	ein_program_free(m->prog);
	ein_onnx_free(m->onnx);
	free(m->kernel);
	free(m->nodes);
	free(m->seconds);
	free(m->slot);
	free(m->arena);
	free(m->input);
	free(m->output);
	free(m->source);
	free(m->memory);
	free(m);
}

/* Is the size of every tensor of "g" known? */
static int sizes_known(const struct ein_graph *g)
{
	int t;

	for (t = 0; t < ein_graph_n_tensor(g); ++t)
		if (ein_graph_tensor_bytes(g, t) < 0)
			return 0;
	return 1;
}

/* Check that every tensor has a size: a symbolic dimension must be fixed
 * for the arena to be planned. */
static int check_sizes(ein_model *m, const char *path)
{
	int t;

	for (t = 0; t < ein_graph_n_tensor(m->g); ++t)
		if (ein_graph_tensor_bytes(m->g, t) < 0) {
			ein_error(m->ctx, EIN_ERROR_SHAPE, "%s: tensor '%s' "
				"has a symbolic dimension (%s): the graph "
				"level needs every size fixed (ein --sizes "
				"NAME=VALUE, ein_options_fix_size)", path,
				ein_graph_tensor_id(m->g, t),
				ein_graph_tensor_shape(m->g, t));
			return -1;
		}
	return 0;
}

/* The text "print" writes for "m", or NULL when out of memory. */
static char *print_text(const struct ein_graph *g,
	void (*print)(const struct ein_graph *g, FILE *out))
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	print(g, f);
	fclose(f);
	return text;
}

/* The nodes of kernel "k" as text. */
static char *kernel_nodes(const struct ein_graph *g, int k)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	ein_graph_print_kernel_nodes(g, k, f);
	fclose(f);
	return text;
}

/* The index of weight "id" among the imported model's constants, -1 if
 * none. */
static int find_const(const ein_onnx *onnx, const char *id)
{
	int i;

	for (i = 0; i < ein_onnx_n_const(onnx); ++i)
		if (!strcmp(ein_onnx_get_const_name(onnx, i), id))
			return i;
	return -1;
}

/* Describe parameter "pos" of kernel "k", tensor "t", from the compiled
 * kernel's signature (once). */
static int describe(ein_model *m, ein_kernel *k, int pos, int t)
{
	struct slot *s = &m->slot[t];
	int ndim = ein_kernel_tensor_ndim(k, pos);

	if (s->described)
		return 0;
	if (ndim < 0 || ndim > MAX_RANK) {
		ein_error(m->ctx, EIN_ERROR_UNSUPPORTED, "tensor '%s' has "
			"more than %d dimensions", ein_graph_tensor_id(m->g, t),
			MAX_RANK);
		return -1;
	}
	s->dl.ndim = ndim;
	s->dl.shape = s->shape;
	s->dl.device.device_type = kDLCPU;
	if (ein_kernel_tensor_dtype(k, pos, &s->dl.dtype) != EIN_OK ||
	    ein_kernel_tensor_shape(k, pos, NULL, 0, s->shape) != EIN_OK)
		return -1;
	s->described = 1;
	return 0;
}

/* A kernel compiled before "k" whose definition is k's modulo names
 * ("canon" holds each kernel's definition so, NULL where unknown), NULL
 * if none. */
static const ein_kernel *same_as(ein_model *m, char **canon, int k)
{
	int j;

	for (j = 0; canon[k] && j < k; ++j)
		if (m->kernel[j] && canon[j] && !strcmp(canon[j], canon[k]))
			return m->kernel[j];
	return NULL;
}

/* Compile kernel "k", or share the code of an earlier kernel with the
 * same definition modulo names: a network repeats its blocks, and each
 * repeat would cost a schedule and a compile of its own.  Then describe
 * its parameters. */
static int compile_kernel(ein_model *m, int k, const ein_options *opts,
	char **canon)
{
	const char *name = ein_graph_kernel_name(m->g, k);
	int pos;

	if (!ein_graph_kernel_is_used(m->g, k))
		return 0;
	canon[k] = ein_canon_func(ein_program_get_func(m->prog, name));
	m->kernel[k] = ein_kernel_compile_like(m->prog, name, opts,
		same_as(m, canon, k));
	if (!m->kernel[k])
		return -1;
	for (pos = 0; pos < ein_graph_kernel_n_param(m->g, k); ++pos)
		if (describe(m, m->kernel[k], pos,
				ein_graph_kernel_param(m->g, k, pos)) < 0)
			return -1;
	return 0;
}

/* Bind the weights and the arena's tensors to their memory, and list the
 * model's inputs and outputs. */
static int bind(ein_model *m)
{
	int t, n = ein_graph_n_tensor(m->g);

	m->input = malloc((n + 1) * sizeof(*m->input));
	m->output = malloc((n + 1) * sizeof(*m->output));
	m->arena = malloc(m->arena_bytes + 1);
	if (!m->input || !m->output || !m->arena)
		return -1;
	for (t = 0; t < n; ++t) {
		enum ein_graph_role role = ein_graph_tensor_role(m->g, t);
		int64_t off = ein_graph_tensor_offset(m->g, t);
		int c;

		if (role == EIN_GRAPH_INPUT)
			m->input[m->n_input++] = t;
		else if (role == EIN_GRAPH_OUTPUT)
			m->output[m->n_output++] = t;
		else if (role == EIN_GRAPH_WEIGHT &&
		    (c = find_const(m->onnx, ein_graph_tensor_id(m->g, t))) >= 0)
			ein_onnx_get_const(m->onnx, c, &m->slot[t].dl);
		if (off >= 0) {
			m->slot[t].dl.data = m->arena + off;
			m->tensor_bytes += ein_graph_tensor_bytes(m->g, t);
		}
	}
	return 0;
}

/* Fuse and write the kernels; plan the arena if every size is known. */
static int prepare(ein_model *m, const char *path)
{
	int n = ein_graph_partition(m->g);

	if (n < 0)
		return -1;
	m->n_kernel = n;
	m->kernel = calloc(n + 1, sizeof(*m->kernel));
	m->nodes = calloc(n + 1, sizeof(*m->nodes));
	m->seconds = calloc(n + 1, sizeof(*m->seconds));
	m->slot = calloc(ein_graph_n_tensor(m->g) + 1, sizeof(*m->slot));
	m->source = print_text(m->g, &ein_graph_print_source);
	if (!m->kernel || !m->nodes || !m->seconds || !m->slot || !m->source)
		return -1;
	for (n = 0; n < m->n_kernel; ++n)
		if (!(m->nodes[n] = kernel_nodes(m->g, n)))
			return -1;
	if (sizes_known(m->g)) {
		m->arena_bytes = ein_graph_plan_memory(m->g);
		m->memory = print_text(m->g, &ein_graph_print_memory);
		if (m->arena_bytes < 0 || !m->memory)
			return -1;
	}
	return 0;
}

/* Compile the kernels and bind the tensors to memory. */
static int build(ein_model *m, const char *path, const ein_options *opts)
{
	char **canon;
	int k, ok = 0;

	if (check_sizes(m, path) < 0)
		return -1;
	m->prog = ein_program_parse(m->ctx, m->source, path);
	canon = calloc(m->n_kernel + 1, sizeof(*canon));
	if (!m->prog || !canon)
		return free(canon), -1;
	for (k = 0; ok == 0 && k < m->n_kernel; ++k) {
		if (ein_graph_kernel_is_used(m->g, k))
			ein_options_progress(opts, k, m->n_kernel,
				ein_graph_kernel_name(m->g, k));
		ok = compile_kernel(m, k, opts, canon);
	}
	for (k = 0; k < m->n_kernel; ++k)
		free(canon[k]);
	free(canon);
	if (ok < 0)
		return -1;
	ein_options_progress(opts, m->n_kernel, m->n_kernel, NULL);
	return bind(m);
}

/* Import "path" and prepare it; compile it too if "compile". */
static ein_model *load(ein_ctx *ctx, const char *path,
	const ein_options *opts, int compile)
{
	ein_model *m;
	ein_calibration cal;
	const char *profile;

	if (!ctx)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	m->ctx = ctx;
	profile = ein_options_get_quantize(opts, &cal);
	m->onnx = profile ? ein_onnx_quantize(ctx, path, opts, profile, cal) :
		ein_onnx_import(ctx, path, opts);
	m->g = ein_onnx_get_graph(m->onnx);
	if (m->g && prepare(m, path) == 0 &&
	    (!compile || build(m, path, opts) == 0))
		return m;
	if (ein_ctx_last_status(ctx) == EIN_OK)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	ein_model_free(m);
	return NULL;
}

ein_model *ein_model_load(ein_ctx *ctx, const char *path,
	const ein_options *opts)
{
	return load(ctx, path, opts, 1);
}

ein_model *ein_model_plan(ein_ctx *ctx, const char *path,
	const ein_options *opts)
{
	return load(ctx, path, opts, 0);
}

int ein_model_n_input(const ein_model *m)
{
	return m ? m->n_input : -1;
}

int ein_model_n_output(const ein_model *m)
{
	return m ? m->n_output : -1;
}

const char *ein_model_get_input_name(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_input)
		return NULL;
	return ein_graph_tensor_id(m->g, m->input[pos]);
}

const char *ein_model_get_output_name(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_output)
		return NULL;
	return ein_graph_tensor_id(m->g, m->output[pos]);
}

/* "t" as a description of tensor "i" of the graph. */
static ein_status get_tensor(const ein_model *m, int i, DLTensor *t)
{
	if (!t || !m->slot[i].described)
		return EIN_ERROR_INVALID;
	*t = m->slot[i].dl;
	t->data = NULL;
	return EIN_OK;
}

ein_status ein_model_get_input(const ein_model *m, int pos, DLTensor *t)
{
	if (!m || pos < 0 || pos >= m->n_input)
		return EIN_ERROR_INVALID;
	return get_tensor(m, m->input[pos], t);
}

ein_status ein_model_get_output(const ein_model *m, int pos, DLTensor *t)
{
	if (!m || pos < 0 || pos >= m->n_output)
		return EIN_ERROR_INVALID;
	return get_tensor(m, m->output[pos], t);
}

const char *ein_model_get_output_type(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_output)
		return NULL;
	return ein_graph_tensor_type(m->g, m->output[pos]);
}

/* Check the number of arguments of a run. */
static ein_status check_counts(ein_model *m, DLTensor *const *inputs,
	int n_input, DLTensor *const *outputs, int n_output)
{
	if (!m)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(m->ctx);
	if (!m->prog) {
		ein_error(m->ctx, EIN_ERROR_INVALID, "the model was not "
			"compiled (ein_model_plan): load it with "
			"ein_model_load to run it");
		return EIN_ERROR_INVALID;
	}
	if (n_input == m->n_input && n_output == m->n_output &&
	    (inputs || !n_input) && (outputs || !n_output))
		return EIN_OK;
	ein_error(m->ctx, EIN_ERROR_SHAPE, "the model takes %d inputs and %d "
		"outputs, not %d and %d", m->n_input, m->n_output, n_input,
		n_output);
	return EIN_ERROR_SHAPE;
}

/* The tensor bound to tensor "t" of the graph in this run. */
static DLTensor *bound(ein_model *m, int t, DLTensor *const *inputs,
	DLTensor *const *outputs)
{
	int i;

	for (i = 0; i < m->n_input; ++i)
		if (m->input[i] == t)
			return inputs[i];
	for (i = 0; i < m->n_output; ++i)
		if (m->output[i] == t)
			return outputs[i];
	return &m->slot[t].dl;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Call kernel "k" on its tensors. */
static ein_status call_kernel(ein_model *m, int k, DLTensor *const *inputs,
	DLTensor *const *outputs)
{
	int n = ein_graph_kernel_n_param(m->g, k), pos;
	DLTensor *args[n + 1];
	ein_status st;
	double t0;

	for (pos = 0; pos < n; ++pos)
		args[pos] = bound(m, ein_graph_kernel_param(m->g, k, pos),
			inputs, outputs);
	t0 = now();
	st = ein_kernel_call(m->kernel[k], args, n, NULL, 0);
	m->seconds[k] += now() - t0;
	return st;
}

ein_status ein_model_run(ein_model *m, DLTensor *const *inputs,
	int n_input, DLTensor *const *outputs, int n_output)
{
	ein_status st = check_counts(m, inputs, n_input, outputs, n_output);
	int k;

	for (k = 0; st == EIN_OK && k < m->n_kernel; ++k)
		if (m->kernel[k])
			st = call_kernel(m, k, inputs, outputs);
	return st;
}

/* The whole-model definition for the reference interpreter (no code
 * compiled: the interpreter reads the definition). */
static ein_status compile_whole(ein_model *m)
{
	ein_program *prog = ein_program_parse(m->ctx,
		ein_onnx_get_source(m->onnx), "model");

	if (prog)
		m->whole = ein_kernel_reference(prog,
			ein_onnx_get_def_name(m->onnx));
	ein_program_free(prog);
	return m->whole ? EIN_OK : ein_ctx_last_status(m->ctx);
}

/* The tensor for parameter "name" of the whole-model definition. */
static DLTensor *whole_arg(ein_model *m, const char *name,
	DLTensor *const *inputs, DLTensor *const *outputs, DLTensor *weight)
{
	int i, c;

	for (i = 0; i < m->n_input; ++i)
		if (!strcmp(ein_model_get_input_name(m, i), name))
			return inputs[i];
	for (i = 0; i < m->n_output; ++i)
		if (!strcmp(ein_model_get_output_name(m, i), name))
			return outputs[i];
	c = find_const(m->onnx, name);
	if (c < 0 || ein_onnx_get_const(m->onnx, c, weight) != EIN_OK)
		return NULL;
	return weight;
}

ein_status ein_model_run_reference(ein_model *m, DLTensor *const *inputs,
	int n_input, DLTensor *const *outputs, int n_output)
{
	ein_status st = check_counts(m, inputs, n_input, outputs, n_output);
	int n, i;

	if (st == EIN_OK && !m->whole)
		st = compile_whole(m);
	if (st != EIN_OK)
		return st;
	n = ein_kernel_n_tensor(m->whole);
	{
		DLTensor weight[n + 1], *args[n + 1];

		for (i = 0; i < n; ++i)
			args[i] = whole_arg(m,
				ein_kernel_get_tensor_name(m->whole, i),
				inputs, outputs, &weight[i]);
		return ein_kernel_call_reference(m->whole, args, n, NULL, 0);
	}
}

const ein_onnx *ein_model_get_onnx(const ein_model *m)
{
	return m ? m->onnx : NULL;
}

/* ---- a C driver for the kernels compiled ahead of time ---------------- */

/* The C element type of ein type "type". */
static const char *c_type(const char *type)
{
	static const char *names[][2] = { { "float32", "float" },
		{ "float64", "double" }, { "int32", "int32_t" },
		{ "int8", "int8_t" }, { "uint8", "uint8_t" },
		{ "bool", "uint8_t" } };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
		if (!strcmp(type, names[i][0]))
			return names[i][1];
	return "void";
}

/* The driver's parameters: the model's inputs (const), then its
 * outputs. */
static void print_driver_params(const ein_model *m, FILE *f)
{
	int t, any = 0;
	enum ein_graph_role role;

	for (role = EIN_GRAPH_INPUT; role <= EIN_GRAPH_OUTPUT; role += 3)
		for (t = 0; t < ein_graph_n_tensor(m->g); ++t)
			if (ein_graph_tensor_role(m->g, t) == role) {
				fprintf(f, "%s%s%s *%s", any ? ", " : "",
					role == EIN_GRAPH_INPUT ? "const " : "",
					c_type(ein_graph_tensor_type(m->g, t)),
					ein_graph_tensor_id(m->g, t));
				any = 1;
			}
}

/* The call of kernel "k": its parameters, weights left out (embedded),
 * the arena's tensors at their offsets. */
static void print_driver_call(const ein_model *m, int k, FILE *f)
{
	int pos, any = 0;

	fprintf(f, "\tif ((rc = %s(", ein_graph_kernel_name(m->g, k));
	for (pos = 0; pos < ein_graph_kernel_n_param(m->g, k); ++pos) {
		int t = ein_graph_kernel_param(m->g, k, pos);
		const char *type = c_type(ein_graph_tensor_type(m->g, t));

		if (ein_graph_tensor_role(m->g, t) == EIN_GRAPH_WEIGHT)
			continue;
		fputs(any ? ", " : "", f);
		any = 1;
		if (ein_graph_tensor_offset(m->g, t) >= 0)
			fprintf(f, "(%s%s *) (arena + %lld)",
				pos < ein_graph_kernel_n_input(m->g, k) ?
				"const " : "", type, (long long)
				ein_graph_tensor_offset(m->g, t));
		else
			fputs(ein_graph_tensor_id(m->g, t), f);
	}
	fputs(")) != 0)\n\t\treturn rc;\n", f);
}

/* The driver's text into "f". */
static void print_driver(const ein_model *m, const char *header, FILE *f)
{
	const char *name = ein_onnx_get_def_name(m->onnx);
	int k;

	fprintf(f, "/* %s: the model's %d fused kernels called in order "
		"over a static arena\n * of %lld bytes (written by ein compile "
		"--graph; not thread-safe). */\n#include <stdint.h>\n"
		"#include \"%s\"\n\nint %s(", name, m->n_kernel,
		(long long) m->arena_bytes, header, name);
	print_driver_params(m, f);
	fprintf(f, ")\n{\n\tstatic unsigned char arena[%lld] "
		"__attribute__((aligned(64)));\n\tint rc;\n\n",
		(long long) (m->arena_bytes ? m->arena_bytes : 64));
	for (k = 0; k < m->n_kernel; ++k)
		if (ein_graph_kernel_is_used(m->g, k))
			print_driver_call(m, k, f);
	fputs("\treturn 0;\n}\n", f);
}

ein_status ein_model_write_c(const ein_model *m, const char *path,
	const char *header)
{
	FILE *f;

	if (!m || !path || !header)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(m->ctx);
	if (!m->memory) {
		ein_error(m->ctx, EIN_ERROR_SHAPE, "the model's driver needs "
			"every size fixed");
		return EIN_ERROR_SHAPE;
	}
	f = fopen(path, "w");
	if (f)
		print_driver(m, header, f);
	if (!f || ferror(f) | fclose(f)) {
		ein_error(m->ctx, EIN_ERROR_IO, "cannot write '%s'", path);
		return EIN_ERROR_IO;
	}
	return EIN_OK;
}

int ein_model_n_kernel(const ein_model *m)
{
	return m ? m->n_kernel : -1;
}

const char *ein_model_get_kernel_name(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_kernel)
		return NULL;
	return ein_graph_kernel_name(m->g, pos);
}

const char *ein_model_get_kernel_nodes(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_kernel)
		return NULL;
	return m->nodes[pos];
}

double ein_model_get_kernel_seconds(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_kernel)
		return -1;
	return m->seconds[pos];
}

const ein_kernel *ein_model_get_kernel(const ein_model *m, int pos)
{
	if (!m || pos < 0 || pos >= m->n_kernel)
		return NULL;
	return m->kernel[pos];
}

/* Kernels that share code (ein_kernel_compile_like) count once. */
int ein_model_n_compiled(const ein_model *m)
{
	int k, j, n = 0;

	if (!m)
		return -1;
	for (k = 0; k < m->n_kernel; ++k) {
		for (j = 0; m->kernel[k] && j < k; ++j)
			if (ein_kernel_shares_code(m->kernel[k], m->kernel[j]))
				break;
		n += m->kernel[k] && j == k;
	}
	return n;
}

int64_t ein_model_arena_bytes(const ein_model *m)
{
	return m ? m->arena_bytes : -1;
}

int64_t ein_model_tensor_bytes(const ein_model *m)
{
	return m ? m->tensor_bytes : -1;
}

const char *ein_model_get_source(const ein_model *m)
{
	return m ? m->source : NULL;
}

const char *ein_model_get_memory_plan(const ein_model *m)
{
	return m ? m->memory : NULL;
}
