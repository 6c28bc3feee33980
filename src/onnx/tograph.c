/*
 * tograph.c: the imported model as the graph level's graph.
 *
 * lower.c writes every node as statements into one body and notes where
 * each node's statements end; here each node with statements becomes a
 * node of the graph level with its text, and each tensor those
 * statements exchange a tensor with its ein name, type, shape and bytes.
 * The graph level then decides which nodes share a kernel
 * (src/graph/fuse.c); the importer only describes the model.
 *
 * A tensor may have two forms in the text: its float values under its
 * id, and (in an int8 model, quantize.h) its uint8 values under another
 * name.  A node's statements may also write a form of a tensor they
 * read (the int8 lowering quantises or dequantises an input where a node
 * first needs it).  So a node's tensors are found from its text: every
 * identifier that names a form of a tensor, written by the node where it
 * is the left-hand side of a statement (the first word of a line), else
 * read.  Identifiers that name no tensor (a node's own temporaries,
 * sizes, indices, builtins) are not the graph's business.
 */
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "onnx/quantize.h"
#include "onnx/tograph.h"

/* A name of a form of a tensor: its text, the ONNX tensor, and whether
 * it names the uint8 values. */
struct form {
	const char *id;
	int t;
	int q;
};

/* A form named by a node's text: which (index into forms) and whether
 * the text writes it. */
struct use {
	int form;
	int written;
};

/* The state of the translation: the lowering, the graph built, the
 * forms sorted by name, and the graph's index of each form (2 t + q; -1:
 * not yet added). */
struct tograph {
	struct ein_onnx_lower *l;
	struct ein_graph *graph;
	int n_form;
	struct form *form;
	int *index;
};

/* Is "c" a character of an identifier? */
static int id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_';
}

static int cmp_form(const void *a, const void *b)
{
	return strcmp(((const struct form *) a)->id,
		((const struct form *) b)->id);
}

/* The forms of the graph's tensors, sorted by name. */
static int collect_forms(struct tograph *tg)
{
	struct ein_onnx_graph *g = tg->l->g;
	int i, q;

	tg->form = malloc((2 * g->n_tensor + 1) * sizeof(*tg->form));
	if (!tg->form)
		return -1;
	for (i = 0; i < g->n_tensor; ++i)
		for (q = 0; q < 2; ++q) {
			const char *id = q ? ein_onnx_quant_qid(tg->l->quant, i) :
				g->tensor[i].id;

			if (id)
				tg->form[tg->n_form++] =
					(struct form) { id, i, q };
		}
	qsort(tg->form, tg->n_form, sizeof(*tg->form), &cmp_form);
	return 0;
}

/* The form named by text[0 .. len), -1 if none. */
static int find_form(const struct tograph *tg, const char *text, size_t len)
{
	int lo = 0, hi = tg->n_form;

	while (lo < hi) {
		int mid = (lo + hi) / 2, c = strncmp(tg->form[mid].id, text, len);

		if (c == 0 && tg->form[mid].id[len])
			c = 1;
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Note a use of form "f" (written or not) in use[0 .. *n), once. */
static void note_use(struct use *use, int *n, int f, int written)
{
	int i;

	for (i = 0; i < *n; ++i)
		if (use[i].form == f) {
			use[i].written |= written;
			return;
		}
	use[*n].form = f;
	use[(*n)++].written = written;
}

/* The forms "text" names, in the order they first appear, into use (of
 * room for one per form); their number. */
static int find_uses(const struct tograph *tg, const char *text,
	struct use *use)
{
	const char *p = text;
	int n = 0, line_start = 1;

	while (*p) {
		size_t len = 0;
		int f;

		if (*p == '\n' || (*p != ' ' && *p != '\t' && !id_char(*p))) {
			line_start = *p == '\n';
			++p;
			continue;
		}
		if (*p == ' ' || *p == '\t') {
			++p;
			continue;
		}
		while (id_char(p[len]))
			++len;
		f = *p >= '0' && *p <= '9' ? -1 : find_form(tg, p, len);
		if (f >= 0)
			note_use(use, &n, f, line_start);
		line_start = 0;
		p += len;
	}
	return n;
}

/* The text of the shape of "t" ("N, 8, 12, 12"); the caller frees it. */
static char *shape_text(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t)
{
	FILE *out = l->out;
	char *text = NULL;
	size_t len;
	int d;

	l->out = open_memstream(&text, &len);
	if (!l->out)
		return (l->out = out, NULL);
	for (d = 0; d < t->rank; ++d) {
		fputs(d ? ", " : "", l->out);
		ein_onnx_print_dim(l, t->dim[d]);
	}
	fclose(l->out);
	l->out = out;
	return text;
}

/* The bytes of "t" in elements of "dtype", -1 while a dimension is
 * symbolic. */
static int64_t tensor_bytes(const struct ein_onnx_tensor *t,
	enum ein_onnx_dtype dtype)
{
	int64_t n = ein_onnx_tensor_n_elem(t);

	return n < 0 ? -1 : n * (int64_t) ein_onnx_dtype_size(dtype);
}

/* Add "t" as "id" of "dtype" with "role" to the graph; its index, -1
 * when out of memory. */
static int add_tensor(struct tograph *tg, const struct ein_onnx_tensor *t,
	const char *id, enum ein_onnx_dtype dtype, enum ein_graph_role role)
{
	char *shape = shape_text(tg->l, t);
	int i;

	if (!shape)
		return -1;
	i = ein_graph_add_tensor(tg->graph, id, ein_onnx_dtype_ein(dtype),
		shape, tensor_bytes(t, dtype), role);
	free(shape);
	return i;
}

/* The graph's index of form "f", added on first use: the float values
 * of a graph input or a constant keep that role, every other form is
 * computed. */
static int form_tensor(struct tograph *tg, int f)
{
	const struct form *fm = &tg->form[f];
	const struct ein_onnx_tensor *t = &tg->l->g->tensor[fm->t];
	enum ein_graph_role role = fm->q ? EIN_GRAPH_TEMP :
		t->role == EIN_ONNX_INPUT ? EIN_GRAPH_INPUT :
		t->role == EIN_ONNX_CONST ? EIN_GRAPH_WEIGHT : EIN_GRAPH_TEMP;
	int *index = &tg->index[2 * fm->t + fm->q];

	if (*index < 0)
		*index = add_tensor(tg, t, fm->id, fm->q ? EIN_ONNX_UINT8 :
			t->dtype, role);
	return *index;
}

/* Is ONNX tensor "t" the float form of use[k]? */
static int is_float_of(const struct tograph *tg, const struct use *use,
	int t)
{
	return !tg->form[use->form].q && tg->form[use->form].t == t;
}

/* Append to list[*n] the graph's tensors of the uses "written" or not:
 * first those that are the float forms of pref[0 .. n_pref) (in that
 * order, as the operator lists them), then the others in the order the
 * text names them. */
static int list_uses(struct tograph *tg, const struct use *use, int n_use,
	int written, const int *pref, int n_pref, int *list, int *n)
{
	int i, k, done[n_use + 1];

	memset(done, 0, sizeof(done));
	for (i = 0; i < n_pref; ++i)
		for (k = 0; k < n_use; ++k)
			if (!done[k] && use[k].written == written &&
			    pref[i] >= 0 && is_float_of(tg, &use[k], pref[i])) {
				done[k] = 1;
				if ((list[(*n)++] = form_tensor(tg,
						use[k].form)) < 0)
					return -1;
			}
	for (k = 0; k < n_use; ++k)
		if (!done[k] && use[k].written == written &&
		    (list[(*n)++] = form_tensor(tg, use[k].form)) < 0)
			return -1;
	return 0;
}

/* Add a node "name" of "op" with statements "text": it reads the forms
 * the text names and does not write, writes those it does (the ONNX
 * inputs "in" and outputs "out" first, in their order) and "extra"
 * (>= 0: the graph's tensor of a graph output it copies into). */
static int add_stmts(struct tograph *tg, const char *name, const char *op,
	const char *text, const int *in, int n_in, const int *out, int n_out,
	int extra)
{
	struct use *use = malloc((tg->n_form + 1) * sizeof(*use));
	int n_use, *rd, *wr, n_rd = 0, n_wr = 0, r = -1;

	if (!use)
		return -1;
	n_use = find_uses(tg, text, use);
	rd = malloc((n_use + 1) * sizeof(*rd));
	wr = malloc((n_use + 2) * sizeof(*wr));
	if (rd && wr &&
	    list_uses(tg, use, n_use, 0, in, n_in, rd, &n_rd) == 0 &&
	    list_uses(tg, use, n_use, 1, out, n_out, wr, &n_wr) == 0) {
		if (extra >= 0)
			wr[n_wr++] = extra;
		r = ein_graph_add_node(tg->graph, name, op, text, n_rd, rd,
			n_wr, wr);
	}
	free(use);
	free(rd);
	free(wr);
	return r;
}

/* Add node "n" with statements "text". */
static int add_node(struct tograph *tg, const struct ein_onnx_node *n,
	const char *text)
{
	return add_stmts(tg, n->name[0] ? n->name : "-", n->op, text, n->in,
		n->n_in, n->out, n->n_out, -1);
}

/* Add the copy "text" of the graph's output "i" into its output tensor
 * (with, in an int8 model, the dequantisation of outputs computed in
 * int8). */
static int add_output(struct tograph *tg, int i, const char *text)
{
	int t = tg->l->g->output[i];
	const struct ein_onnx_tensor *o = &tg->l->g->tensor[t];
	int out = add_tensor(tg, o, o->out_id, o->dtype, EIN_GRAPH_OUTPUT);

	if (out < 0)
		return -1;
	return add_stmts(tg, o->out_id, "Output", text, &t, 1, NULL, 0, out);
}

/* Add the node or output copy "i" whose statements are body[start ..
 * stop), unless it has none. */
static int add_span(struct tograph *tg, int i, const char *body, long start,
	long stop)
{
	struct ein_onnx_graph *g = tg->l->g;
	char *text;
	int r;

	if (stop <= start)
		return 0;
	text = strndup(body + start, stop - start);
	if (!text)
		return -1;
	r = i < g->n_node ? add_node(tg, &g->node[i], text) :
		add_output(tg, i - g->n_node, text);
	free(text);
	return r;
}

__isl_give struct ein_graph *ein_onnx_make_graph(struct ein_onnx_lower *l,
	const char *def, const char *body, const long *end)
{
	struct ein_onnx_graph *g = l->g;
	struct tograph tg = { l, ein_graph_alloc(def), 0, NULL, NULL };
	int i, ok = tg.graph != NULL;

	tg.index = malloc((2 * g->n_tensor + 1) * sizeof(*tg.index));
	ok = ok && tg.index && collect_forms(&tg) == 0;
	for (i = 0; ok && i < 2 * g->n_tensor; ++i)
		tg.index[i] = -1;
	for (i = 0; ok && i < g->n_node + g->n_output; ++i)
		ok = add_span(&tg, i, body, i ? end[i - 1] : 0, end[i]) >= 0;
	free(tg.index);
	free(tg.form);
	if (ok)
		return tg.graph;
	ein_graph_free(tg.graph);
	ein_error(l->ctx, EIN_ERROR_NOMEM, "out of memory");
	return NULL;
}
