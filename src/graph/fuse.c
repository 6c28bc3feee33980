/*
 * fuse.c: the graph's tensors and nodes, the fusion of nodes into
 * kernels, and each kernel written as one ein definition.
 *
 * Fusion walks the nodes in order and keeps one kernel open.  A node
 *
 *     ANCHOR  (Conv, Gemm, MatMul, pools, and any op the table below does
 *             not name)                       starts a kernel;
 *     REDUCE  (ReduceMean, Softmax, LayerNormalization, ...)
 *                                             joins the open kernel if it
 *             reads a tensor the kernel computes and the kernel holds no
 *             anchor (a softmax or layernorm chain stays one kernel, apart
 *             from the matrix product before it), else starts one;
 *     JOIN    (elementwise, broadcasts, index mappings, the copies into
 *             the outputs)                    joins the open kernel if it
 *             reads a tensor the kernel computes, else starts one.
 *
 * So conv + bias + relu, matmul + bias + activation, a residual add after
 * the convolution it follows, and chains of elementwise operators are one
 * kernel each.  A node joining the open kernel reads its other inputs
 * from earlier kernels, inputs or weights: the nodes are in topological
 * order and kernels are runs of consecutive nodes, so kernels run in
 * order with every input computed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "graph/ein_graph.h"

/* A tensor: ein identifier, element type, shape text, bytes (-1: not
 * known), role; offset in the arena (-1: none); producer: the kernel
 * writing it (-1: none); last: the last kernel reading it (-1: none). */
struct tensor {
	char *id;
	char *type;
	char *shape;
	int64_t bytes;
	enum ein_graph_role role;
	int64_t offset;
	int producer;
	int last;
};

/* A node: name, op type, statements, tensors read and written. */
struct node {
	char *name;
	char *op;
	char *text;
	int n_in;
	int *in;
	int n_out;
	int *out;
};

/* A kernel: its name, its nodes first .. first + n - 1, its parameters
 * (inputs, then outputs) as tensor indices. */
struct kernel {
	char *name;
	int first;
	int n;
	int n_param;
	int n_input;
	int *param;
};

/* The graph: its name; tensors, nodes, kernels (after partitioning);
 * kernel_of: each node's kernel. */
struct ein_graph {
	char *name;
	int n_tensor, cap_tensor;
	struct tensor *tensor;
	int n_node, cap_node;
	struct node *node;
	int n_kernel;
	struct kernel *kernel;
	int *kernel_of;
};

/* The fusion classes of the rules above. */
enum fuse_class { ANCHOR, REDUCE, JOIN };

/* The op types that are not anchors. */
static const struct {
	const char *op;
	enum fuse_class cls;
} fuse_table[] = {
	{ "ReduceSum", REDUCE }, { "ReduceMean", REDUCE },
	{ "ReduceMax", REDUCE }, { "ReduceMin", REDUCE },
	{ "Softmax", REDUCE }, { "LogSoftmax", REDUCE },
	{ "LayerNormalization", REDUCE },
	{ "Relu", JOIN }, { "Sigmoid", JOIN }, { "Tanh", JOIN },
	{ "Exp", JOIN }, { "Log", JOIN }, { "Sqrt", JOIN }, { "Abs", JOIN },
	{ "Neg", JOIN }, { "Erf", JOIN }, { "Floor", JOIN }, { "Ceil", JOIN },
	{ "Reciprocal", JOIN }, { "LeakyRelu", JOIN },
	{ "HardSigmoid", JOIN }, { "HardSwish", JOIN }, { "Clip", JOIN },
	{ "Add", JOIN }, { "Sub", JOIN }, { "Mul", JOIN }, { "Div", JOIN },
	{ "Pow", JOIN }, { "Max", JOIN }, { "Min", JOIN },
	{ "Equal", JOIN }, { "Less", JOIN }, { "Greater", JOIN },
	{ "LessOrEqual", JOIN }, { "GreaterOrEqual", JOIN },
	{ "Cast", JOIN }, { "Identity", JOIN }, { "Dropout", JOIN },
	{ "Reshape", JOIN }, { "Flatten", JOIN }, { "Squeeze", JOIN },
	{ "Unsqueeze", JOIN }, { "Transpose", JOIN }, { "Output", JOIN },
	{ "BatchNormalization", JOIN },
	{ "Gelu", JOIN }, { "FastGelu", JOIN }, { "Sum", JOIN },
	{ "Mean", JOIN },
};

static enum fuse_class fuse_class_of(const char *op)
{
	size_t i;

	for (i = 0; i < sizeof(fuse_table) / sizeof(fuse_table[0]); ++i)
		if (!strcmp(fuse_table[i].op, op))
			return fuse_table[i].cls;
	return ANCHOR;
}

__isl_give struct ein_graph *ein_graph_alloc(const char *name)
{
	struct ein_graph *g = calloc(1, sizeof(*g));

	if (g && !(g->name = strdup(name)))
		return (free(g), NULL);
	return g;
}

static void free_kernels(struct ein_graph *g)
{
	int k;

	for (k = 0; k < g->n_kernel; ++k) {
		free(g->kernel[k].name);
		free(g->kernel[k].param);
	}
	free(g->kernel);
	free(g->kernel_of);
	g->kernel = NULL;
	g->kernel_of = NULL;
	g->n_kernel = 0;
}

void ein_graph_free(__isl_take struct ein_graph *g)
{
	int i;

	if (!g)
		return;
	free_kernels(g);
	for (i = 0; i < g->n_tensor; ++i) {
		free(g->tensor[i].id);
		free(g->tensor[i].type);
		free(g->tensor[i].shape);
	}
	for (i = 0; i < g->n_node; ++i) {
		free(g->node[i].name);
		free(g->node[i].op);
		free(g->node[i].text);
		free(g->node[i].in);
		free(g->node[i].out);
	}
	free(g->tensor);
	free(g->node);
	free(g->name);
	free(g);
}

/* Room for one more element in an array of "*cap" elements of "size"
 * bytes holding "n"; -1 when out of memory. */
static int grow(void **array, int *cap, int n, size_t size)
{
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*array, (size_t) (2 * *cap + 8) * size);
	if (!p)
		return -1;
	*array = p;
	*cap = 2 * *cap + 8;
	return 0;
}

int ein_graph_add_tensor(__isl_keep struct ein_graph *g, const char *id,
	const char *type, const char *shape, int64_t bytes,
	enum ein_graph_role role)
{
	struct tensor *t;

	if (!g || grow((void **) &g->tensor, &g->cap_tensor, g->n_tensor,
			sizeof(*t)) < 0)
		return -1;
	t = &g->tensor[g->n_tensor];
	memset(t, 0, sizeof(*t));
	t->id = strdup(id);
	t->type = strdup(type);
	t->shape = strdup(shape);
	t->bytes = bytes;
	t->role = role;
	t->offset = -1;
	if (!t->id || !t->type || !t->shape) {
		free(t->id);
		free(t->type);
		free(t->shape);
		return -1;
	}
	return g->n_tensor++;
}

/* A copy of in[0 .. n-1] (a non-NULL pointer even for n = 0). */
static int *copy_ints(const int *in, int n)
{
	int *p = malloc((n + 1) * sizeof(*p));

	if (p && n)
		memcpy(p, in, n * sizeof(*p));
	return p;
}

int ein_graph_add_node(__isl_keep struct ein_graph *g, const char *name,
	const char *op, const char *text, int n_in, const int *in, int n_out,
	const int *out)
{
	struct node *n;

	if (!g || grow((void **) &g->node, &g->cap_node, g->n_node,
			sizeof(*n)) < 0)
		return -1;
	n = &g->node[g->n_node];
	n->name = strdup(name);
	n->op = strdup(op);
	n->text = strdup(text);
	n->in = copy_ints(in, n_in);
	n->out = copy_ints(out, n_out);
	n->n_in = n_in;
	n->n_out = n_out;
	if (!n->name || !n->op || !n->text || !n->in || !n->out) {
		free(n->name);
		free(n->op);
		free(n->text);
		free(n->in);
		free(n->out);
		return -1;
	}
	return g->n_node++;
}

int ein_graph_n_tensor(__isl_keep const struct ein_graph *g)
{
	return g ? g->n_tensor : -1;
}

const char *ein_graph_tensor_id(__isl_keep const struct ein_graph *g, int t)
{
	return g->tensor[t].id;
}

const char *ein_graph_tensor_type(__isl_keep const struct ein_graph *g,
	int t)
{
	return g->tensor[t].type;
}

const char *ein_graph_tensor_shape(__isl_keep const struct ein_graph *g,
	int t)
{
	return g->tensor[t].shape;
}

int64_t ein_graph_tensor_bytes(__isl_keep const struct ein_graph *g, int t)
{
	return g->tensor[t].bytes;
}

enum ein_graph_role ein_graph_tensor_role(__isl_keep const struct ein_graph *g,
	int t)
{
	return g->tensor[t].role;
}

int64_t ein_graph_tensor_offset(__isl_keep const struct ein_graph *g, int t)
{
	return g->tensor[t].offset;
}

/* ---- fusion ------------------------------------------------------------ */

/* Does node "n" read a tensor that a node of the open kernel, nodes
 * first .. n - 1, writes? */
static int reads_open_kernel(const struct ein_graph *g, int first, int n)
{
	int i, j, k;

	for (i = 0; i < g->node[n].n_in; ++i)
		for (j = first; j < n; ++j)
			for (k = 0; k < g->node[j].n_out; ++k)
				if (g->node[j].out[k] == g->node[n].in[i])
					return 1;
	return 0;
}

/* Does the open kernel, nodes first .. n - 1, hold an anchor? */
static int holds_anchor(const struct ein_graph *g, int first, int n)
{
	int j;

	for (j = first; j < n; ++j)
		if (fuse_class_of(g->node[j].op) == ANCHOR)
			return 1;
	return 0;
}

/* Does node "n" join the open kernel, nodes first .. n - 1? */
static int joins(const struct ein_graph *g, int first, int n)
{
	enum fuse_class c = fuse_class_of(g->node[n].op);

	if (first < 0 || c == ANCHOR || !reads_open_kernel(g, first, n))
		return 0;
	return c == JOIN || !holds_anchor(g, first, n);
}

/* Assign each node its kernel: kernel_of, and n_kernel runs. */
static void assign_kernels(struct ein_graph *g)
{
	int n, first = -1;

	g->n_kernel = 0;
	for (n = 0; n < g->n_node; ++n) {
		if (!joins(g, first, n)) {
			first = n;
			g->n_kernel++;
		}
		g->kernel_of[n] = g->n_kernel - 1;
	}
}

/* Is tensor "t" read by a node of a kernel other than "k"?  Records the
 * last kernel reading it in its "last". */
static int read_outside(struct ein_graph *g, int t, int k)
{
	int n, i, outside = 0;

	for (n = 0; n < g->n_node; ++n)
		for (i = 0; i < g->node[n].n_in; ++i)
			if (g->node[n].in[i] == t) {
				if (g->kernel_of[n] != k)
					outside = 1;
				if (g->kernel_of[n] > g->tensor[t].last)
					g->tensor[t].last = g->kernel_of[n];
			}
	return outside;
}

/* Is "t" among param[0 .. n-1]? */
static int has_param(const int *param, int n, int t)
{
	int i;

	for (i = 0; i < n; ++i)
		if (param[i] == t)
			return 1;
	return 0;
}

/* Is "t" written by a node of kernel "k"? */
static int written_in(const struct ein_graph *g, const struct kernel *k, int t)
{
	int n, i;

	for (n = k->first; n < k->first + k->n; ++n)
		for (i = 0; i < g->node[n].n_out; ++i)
			if (g->node[n].out[i] == t)
				return 1;
	return 0;
}

/* The parameters of kernel "k": what it reads that other kernels, the
 * inputs or the weights give it, then what it writes that the model
 * outputs or another kernel reads. */
static int find_params(struct ein_graph *g, int k)
{
	struct kernel *kr = &g->kernel[k];
	int n, i, max = 0;

	for (n = kr->first; n < kr->first + kr->n; ++n)
		max += g->node[n].n_in + g->node[n].n_out;
	kr->param = malloc((max + 1) * sizeof(*kr->param));
	if (!kr->param)
		return -1;
	for (n = kr->first; n < kr->first + kr->n; ++n)
		for (i = 0; i < g->node[n].n_in; ++i) {
			int t = g->node[n].in[i];

			if (!written_in(g, kr, t) &&
			    !has_param(kr->param, kr->n_param, t))
				kr->param[kr->n_param++] = t;
		}
	kr->n_input = kr->n_param;
	for (n = kr->first; n < kr->first + kr->n; ++n)
		for (i = 0; i < g->node[n].n_out; ++i) {
			int t = g->node[n].out[i];

			g->tensor[t].producer = k;
			if ((read_outside(g, t, k) ||
			     g->tensor[t].role == EIN_GRAPH_OUTPUT) &&
			    !has_param(kr->param, kr->n_param, t))
				kr->param[kr->n_param++] = t;
		}
	return 0;
}

/* "MODEL_kK_OP", OP the op type of the kernel's first node in lower
 * case. */
static char *kernel_name(const struct ein_graph *g, int k, const char *op)
{
	size_t len = strlen(g->name) + strlen(op) + 24, i;
	char *name = malloc(len);

	if (!name)
		return NULL;
	snprintf(name, len, "%s_k%d_%s", g->name, k, op);
	for (i = strlen(name) - strlen(op); name[i]; ++i)
		name[i] = isalnum((unsigned char) name[i]) ?
			tolower((unsigned char) name[i]) : '_';
	return name;
}

/* Describe kernel "k" from the kernel_of of its nodes. */
static int make_kernel(struct ein_graph *g, int k)
{
	struct kernel *kr = &g->kernel[k];
	int n;

	for (n = 0; n < g->n_node && g->kernel_of[n] != k; ++n)
		;
	kr->first = n;
	while (n < g->n_node && g->kernel_of[n] == k)
		++n;
	kr->n = n - kr->first;
	kr->name = kernel_name(g, k, g->node[kr->first].op);
	if (!kr->name)
		return -1;
	return find_params(g, k);
}

int ein_graph_partition(__isl_keep struct ein_graph *g)
{
	int k, i;

	if (!g)
		return -1;
	free_kernels(g);
	g->kernel_of = calloc(g->n_node + 1, sizeof(*g->kernel_of));
	if (!g->kernel_of)
		return -1;
	assign_kernels(g);
	g->kernel = calloc(g->n_kernel + 1, sizeof(*g->kernel));
	if (!g->kernel)
		return (g->n_kernel = 0, -1);
	for (i = 0; i < g->n_tensor; ++i) {
		g->tensor[i].producer = -1;
		g->tensor[i].last = -1;
	}
	for (k = 0; k < g->n_kernel; ++k)
		if (make_kernel(g, k) < 0)
			return -1;
	return g->n_kernel;
}

int ein_graph_n_kernel(__isl_keep const struct ein_graph *g)
{
	return g ? g->n_kernel : -1;
}

const char *ein_graph_kernel_name(__isl_keep const struct ein_graph *g,
	int k)
{
	return g->kernel[k].name;
}

int ein_graph_kernel_n_param(__isl_keep const struct ein_graph *g, int k)
{
	return g->kernel[k].n_param;
}

int ein_graph_kernel_param(__isl_keep const struct ein_graph *g, int k,
	int pos)
{
	return g->kernel[k].param[pos];
}

int ein_graph_kernel_is_used(__isl_keep const struct ein_graph *g, int k)
{
	return g->kernel[k].n_param > g->kernel[k].n_input;
}

int ein_graph_kernel_n_input(__isl_keep const struct ein_graph *g, int k)
{
	return g->kernel[k].n_input;
}

void ein_graph_print_kernel_nodes(__isl_keep const struct ein_graph *g,
	int k, FILE *out)
{
	const struct kernel *kr = &g->kernel[k];
	int n;

	for (n = kr->first; n < kr->first + kr->n; ++n)
		fprintf(out, "%s%s %s", n > kr->first ? " + " : "",
			g->node[n].op, g->node[n].name);
}

/* ---- source ------------------------------------------------------------ */

/* "TYPE(SHAPE) ID" of parameter "t". */
static void print_param(const struct ein_graph *g, int t, FILE *out)
{
	const struct tensor *p = &g->tensor[t];

	fprintf(out, "%s%s%s%s %s", p->type, p->shape[0] ? "(" : "", p->shape,
		p->shape[0] ? ")" : "", p->id);
}

/* Kernel "k" as a definition. */
static void print_kernel(const struct ein_graph *g, int k, FILE *out)
{
	const struct kernel *kr = &g->kernel[k];
	int i, n;

	fprintf(out, "# kernel %d: ", k);
	ein_graph_print_kernel_nodes(g, k, out);
	if (!ein_graph_kernel_is_used(g, k)) {
		fputs("\n# (nothing it computes is used: skipped)\n", out);
		return;
	}
	fprintf(out, "\ndef %s(", kr->name);
	for (i = 0; i < kr->n_input; ++i) {
		fputs(i ? ",\n        " : "", out);
		print_param(g, kr->param[i], out);
	}
	fputs(")\n    -> (", out);
	for (i = kr->n_input; i < kr->n_param; ++i) {
		fputs(i > kr->n_input ? ", " : "", out);
		print_param(g, kr->param[i], out);
	}
	fputs(") {\n", out);
	for (n = kr->first; n < kr->first + kr->n; ++n)
		fputs(g->node[n].text, out);
	fputs("}\n", out);
}

void ein_graph_print_source(__isl_keep const struct ein_graph *g, FILE *out)
{
	int k;

	fprintf(out, "# %s as %d fused kernels (ein's graph level).\n",
		g->name, g->n_kernel);
	for (k = 0; k < g->n_kernel; ++k) {
		fputs("\n", out);
		print_kernel(g, k, out);
	}
}

/* ---- memory ------------------------------------------------------------ */

/* Is tensor "t" in the arena: computed, not a model output, and a
 * parameter of its kernel (read by another kernel)? */
static int in_arena(const struct ein_graph *g, int t)
{
	const struct tensor *p = &g->tensor[t];

	return p->role == EIN_GRAPH_TEMP && p->producer >= 0 &&
		p->last > p->producer;
}

int64_t ein_graph_plan_memory(__isl_keep struct ein_graph *g)
{
	struct ein_graph_buf *buf;
	int *index, i, n = 0;
	int64_t size;

	buf = calloc(g->n_tensor + 1, sizeof(*buf));
	index = calloc(g->n_tensor + 1, sizeof(*index));
	if (!buf || !index)
		return (free(buf), free(index), -1);
	for (i = 0; i < g->n_tensor; ++i) {
		g->tensor[i].offset = -1;
		if (!in_arena(g, i))
			continue;
		if (g->tensor[i].bytes < 0)
			return (free(buf), free(index), -1);
		buf[n].bytes = g->tensor[i].bytes;
		buf[n].first = g->tensor[i].producer;
		buf[n].last = g->tensor[i].last;
		index[n++] = i;
	}
	size = ein_graph_plan(buf, n, 64);
	for (i = 0; i < n; ++i)
		g->tensor[index[i]].offset = buf[i].offset;
	free(buf);
	free(index);
	return size;
}

void ein_graph_print_memory(__isl_keep const struct ein_graph *g, FILE *out)
{
	int64_t sum = 0, peak = 0;
	int i, n = 0;

	fprintf(out, "%-28s %12s %10s %12s\n", "tensor", "bytes", "kernels",
		"offset");
	for (i = 0; i < g->n_tensor; ++i) {
		const struct tensor *t = &g->tensor[i];
		char life[32];

		if (t->offset < 0)
			continue;
		snprintf(life, sizeof(life), "%d-%d", t->producer, t->last);
		fprintf(out, "%-28s %12lld %10s %12lld\n", t->id,
			(long long) t->bytes, life, (long long) t->offset);
		sum += t->bytes;
		if (t->offset + t->bytes > peak)
			peak = t->offset + t->bytes;
		++n;
	}
	fprintf(out, "%d tensors between %d kernels: arena %lld bytes, "
		"sum of the tensors %lld bytes", n, g->n_kernel,
		(long long) peak, (long long) sum);
	if (sum > 0)
		fprintf(out, " (%.0f%%)", 100.0 * peak / sum);
	fputs("\n", out);
}
