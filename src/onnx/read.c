/*
 * read.c: an ONNX model file into the importer's graph.
 *
 * The protobuf is decoded by the parser that protoc-c generates from
 * onnx.proto at build time (Makefile.am); this file only copies the parts
 * of the ModelProto that the importer uses into struct ein_onnx_graph, so
 * that no other file depends on protobuf-c's types.  Data are kept as
 * little-endian bytes (raw_data as it is, the typed repeated fields
 * converted), which is the host's order on every target ein runs on.
 *
 * Weights are most of a model's bytes (100 MB for ResNet-50), so they
 * are not copied more than protobuf-c must: the file is mapped, not read,
 * and a tensor takes the buffer protobuf-c allocated for its raw_data
 * (unpacked with the default allocator, malloc) instead of a copy; the
 * graph then owns it and frees it with free(), and free_unpacked skips
 * the field, now NULL.  One copy is left, protobuf-c's own decoding.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/read.h"

/* The largest model file read: protobuf messages are limited to 2 GiB. */
#define MAX_MODEL_BYTES ((size_t) 2 << 30)

/* The whole of file "path" in *buf (the caller frees it), its length in
 * *len. */
static int read_bytes(ein_ctx *ctx, const char *path, uint8_t **buf,
	size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = NULL, *nb;

	if (!f) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		return -1;
	}
	for (;;) {
		if (!(nb = realloc(b, cap)))
			break;
		b = nb;
		n += fread(b + n, 1, cap - n, f);
		if (n < cap || cap >= MAX_MODEL_BYTES)
			break;
		cap *= 2;
	}
	if (!nb || ferror(f) || n >= MAX_MODEL_BYTES) {
		ein_error(ctx, EIN_ERROR_IO, "cannot read '%s': %s", path,
			!nb ? "out of memory" : ferror(f) ? strerror(errno) :
			"larger than 2 GiB");
		fclose(f);
		free(b);
		return -1;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/* The bytes of a model file: mapped (map_len > 0), else read into a
 * buffer of ours (a pipe, an empty file). */
struct bytes {
	uint8_t *data;
	size_t len;
	size_t map_len;
};

/* Map regular file "path" into "b"; 0 with b->map_len 0 if it cannot be
 * mapped (then it is read), -1 after an error. */
static int map_bytes(ein_ctx *ctx, const char *path, struct bytes *b)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *p;

	if (fd < 0) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t) st.st_size >= MAX_MODEL_BYTES)
		return close(fd), 0;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	b->data = p;
	b->len = b->map_len = st.st_size;
	return 0;
}

/* The whole of file "path" into "b" (release it with release_bytes). */
static int get_bytes(ein_ctx *ctx, const char *path, struct bytes *b)
{
	memset(b, 0, sizeof(*b));
	if (map_bytes(ctx, path, b) < 0)
		return -1;
	if (b->map_len)
		return 0;
	return read_bytes(ctx, path, &b->data, &b->len);
}

static void release_bytes(struct bytes *b)
{
	if (b->map_len)
		munmap(b->data, b->map_len);
	else
		free(b->data);
}

/* Is "dtype" one of the element types the graph keeps? */
static int known_dtype(int dtype)
{
	return ein_onnx_dtype_size(dtype) > 0;
}

/* The number of elements in the typed field of "tp" for its type. */
static int64_t typed_count(const Onnx__TensorProto *tp)
{
	switch (tp->data_type) {
	case EIN_ONNX_FLOAT: return tp->n_float_data;
	case EIN_ONNX_DOUBLE: return tp->n_double_data;
	case EIN_ONNX_INT64: return tp->n_int64_data;
	default: return tp->n_int32_data;
	}
}

/* Copy the n elements of the typed field of "tp" (typed_count of them)
 * into "out". */
static void copy_typed(const Onnx__TensorProto *tp, int64_t n, void *out)
{
	int64_t i;

	switch (tp->data_type) {
	case EIN_ONNX_FLOAT:
		memcpy(out, tp->float_data, n * sizeof(float));
		return;
	case EIN_ONNX_DOUBLE:
		memcpy(out, tp->double_data, n * sizeof(double));
		return;
	case EIN_ONNX_INT64:
		memcpy(out, tp->int64_data, n * sizeof(int64_t));
		return;
	default:
		for (i = 0; i < n; ++i) {
			if (tp->data_type == EIN_ONNX_INT32)
				((int32_t *) out)[i] = tp->int32_data[i];
			else
				((uint8_t *) out)[i] = tp->int32_data[i];
		}
		return;
	}
}

/* Make tensor "t" the constant "tp" (an initializer or an attribute's
 * value): its type, shape and data. */
static int set_const(ein_ctx *ctx, const char *path,
	struct ein_onnx_tensor *t, Onnx__TensorProto *tp)
{
	size_t esize = ein_onnx_dtype_size(tp->data_type);
	int64_t n = 1;
	size_t d;

	if (t->role == EIN_ONNX_CONST) {
		ein_error(ctx, EIN_ERROR_IO, "%s: constant '%s' is defined "
			"twice", path, t->name);
		return -1;
	}
	if (!known_dtype(tp->data_type) || tp->n_dims > EIN_ONNX_MAX_RANK) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: constant '%s' has "
			"%s", path, t->name, tp->n_dims > EIN_ONNX_MAX_RANK ?
			"too many dimensions" : "an element type the importer "
			"does not support");
		ein_hint(ctx, "its type is %s",
			ein_onnx_dtype_name(tp->data_type));
		return -1;
	}
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: constant '%s' keeps "
			"its data in an external file, which the importer does "
			"not read", path, t->name);
		return -1;
	}
	for (d = 0; d < tp->n_dims; ++d) {
		if (tp->dims[d] < 0) {
			ein_error(ctx, EIN_ERROR_IO, "%s: constant '%s' has an "
				"invalid dimension %lld", path, t->name,
				(long long) tp->dims[d]);
			return -1;
		}
		t->dim[d] = ein_onnx_dim_const(tp->dims[d]);
	}
	n = ein_onnx_const_product(t->dim, tp->n_dims);
	if (n > EIN_ONNX_MAX_ELEM) {
		ein_error(ctx, EIN_ERROR_IO, "%s: constant '%s' has more than "
			"%lld elements", path, t->name,
			(long long) EIN_ONNX_MAX_ELEM);
		return -1;
	}
	t->dtype = tp->data_type;
	t->rank = tp->n_dims;
	t->known = 1;
	t->role = EIN_ONNX_CONST;
	t->bytes = n * esize;
	/* The data's length is checked before anything is allocated for
	 * the shape, which a damaged file may make huge. */
	if ((tp->has_raw_data ? (int64_t) tp->raw_data.len != n * (int64_t)
			esize : typed_count(tp) != n)) {
		ein_error(ctx, EIN_ERROR_IO, "%s: constant '%s' does not hold "
			"the %lld elements of its shape", path, t->name,
			(long long) n);
		return -1;
	}
	if (tp->has_raw_data && t->bytes) {
		/* Taken, not copied (above). */
		t->data = tp->raw_data.data;
		tp->raw_data.data = NULL;
		tp->raw_data.len = 0;
		return 0;
	}
	t->data = malloc(t->bytes + 1);
	if (!t->data)
		return -1;
	/* An empty tensor's fields may be NULL, which memcpy must not see
	 * even for 0 bytes. */
	if (!tp->has_raw_data && n)
		copy_typed(tp, n, t->data);
	return 0;
}

/* Add the initializers as constant tensors. */
static int read_initializers(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const Onnx__GraphProto *gp)
{
	size_t i;

	for (i = 0; i < gp->n_initializer; ++i) {
		Onnx__TensorProto *tp = gp->initializer[i];
		int k = ein_onnx_graph_tensor(g, tp->name ? tp->name : "");

		if (k < 0 || set_const(ctx, path, &g->tensor[k], tp) < 0)
			return -1;
	}
	return 0;
}

/* Set the shape of input "t" from its declared type; a dimension without
 * a value becomes a size of the graph (named after its dim_param). */
static int input_shape(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, struct ein_onnx_tensor *t,
	const Onnx__TypeProto__Tensor *tt)
{
	size_t d;

	if (!tt->shape || tt->shape->n_dim > EIN_ONNX_MAX_RANK) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: input '%s' has %s",
			path, t->name, tt->shape ? "too many dimensions" :
			"no shape (dynamic rank)");
		return -1;
	}
	t->rank = tt->shape->n_dim;
	for (d = 0; d < tt->shape->n_dim; ++d) {
		const Onnx__TensorShapeProto__Dimension *dim =
			tt->shape->dim[d];

		if (dim->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    dim->dim_value >= 1) {
			t->dim[d] = ein_onnx_dim_const(dim->dim_value);
		} else if (dim->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    dim->dim_param && *dim->dim_param) {
			t->dim[d].sym = ein_onnx_graph_size(g, dim->dim_param);
			if (t->dim[d].sym < 0)
				return -1;
		} else if (dim->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: dimension %zu "
				"of input '%s' has extent %lld (empty tensors "
				"are not supported)", path, d, t->name,
				(long long) dim->dim_value);
			return -1;
		} else {
			ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: dimension %zu "
				"of input '%s' is unknown (dynamic shape)",
				path, d, t->name);
			ein_hint(ctx, "give the dimension a name (dim_param) "
				"or a value in the model");
			return -1;
		}
	}
	t->known = 1;
	return 0;
}

/* Add the graph's inputs that are not initializers. */
static int read_inputs(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const Onnx__GraphProto *gp)
{
	size_t i;

	g->input = calloc(gp->n_input + 1, sizeof(*g->input));
	if (!g->input)
		return -1;
	for (i = 0; i < gp->n_input; ++i) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		int k = ein_onnx_graph_tensor(g, vi->name ? vi->name : "");
		struct ein_onnx_tensor *t;

		if (k < 0)
			return -1;
		t = &g->tensor[k];
		if (t->role == EIN_ONNX_CONST)
			continue;
		if (!vi->type || vi->type->value_case !=
				ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
		    !known_dtype(vi->type->tensor_type->elem_type)) {
			ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: input '%s' "
				"is not a tensor of a type the importer "
				"supports", path, t->name);
			return -1;
		}
		t->role = EIN_ONNX_INPUT;
		t->dtype = vi->type->tensor_type->elem_type;
		if (input_shape(ctx, path, g, t, vi->type->tensor_type) < 0)
			return -1;
		g->input[g->n_input++] = k;
	}
	return 0;
}

/* Mark the graph's outputs. */
static int read_outputs(struct ein_onnx_graph *g, const Onnx__GraphProto *gp)
{
	size_t i;

	g->output = calloc(gp->n_output + 1, sizeof(*g->output));
	if (!g->output)
		return -1;
	for (i = 0; i < gp->n_output; ++i) {
		int k = ein_onnx_graph_tensor(g, gp->output[i]->name ?
			gp->output[i]->name : "");

		if (k < 0)
			return -1;
		g->tensor[k].output = 1;
		g->output[g->n_output++] = k;
	}
	return 0;
}

/* The index of the tensor named "name" in g, -1 if there is none. */
static int find_tensor(const struct ein_onnx_graph *g, const char *name)
{
	int i;

	for (i = 0; i < g->n_tensor; ++i)
		if (!strcmp(g->tensor[i].name, name))
			return i;
	return -1;
}

/* Copy the values of attribute "ap" into "a"; a tensor value becomes a
 * constant tensor named after the node and the attribute. */
static int read_attr(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const char *node, struct ein_onnx_attr *a,
	const Onnx__AttributeProto *ap)
{
	char name[512];

	a->name = strdup(ap->name ? ap->name : "");
	a->tensor = -1;
	a->f = ap->f;
	a->i = ap->i;
	switch (ap->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		a->kind = EIN_ONNX_ATTR_FLOAT;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		a->kind = EIN_ONNX_ATTR_INT;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		a->kind = EIN_ONNX_ATTR_STRING;
		/* An empty string's data may be NULL, which strndup must
		 * not see. */
		a->s = ap->s.data ? strndup((const char *) ap->s.data,
			ap->s.len) : strdup("");
		return a->name && a->s ? 0 : -1;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		a->kind = EIN_ONNX_ATTR_FLOATS;
		a->n = ap->n_floats;
		a->floats = malloc((a->n + 1) * sizeof(float));
		if (!a->floats)
			return -1;
		if (a->n)
			memcpy(a->floats, ap->floats, a->n * sizeof(float));
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		a->kind = EIN_ONNX_ATTR_INTS;
		a->n = ap->n_ints;
		a->ints = malloc((a->n + 1) * sizeof(int64_t));
		if (!a->ints)
			return -1;
		if (a->n)
			memcpy(a->ints, ap->ints, a->n * sizeof(int64_t));
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		if (!ap->t)
			break;
		a->kind = EIN_ONNX_ATTR_TENSOR;
		snprintf(name, sizeof(name), "%s/%s", node, a->name ?
			a->name : "");
		/* Nodes need not have names, nor distinct ones: a name
		 * already taken (two unnamed Constant nodes) gets the
		 * node's position, so that no value replaces another. */
		if (find_tensor(g, name) >= 0)
			snprintf(name, sizeof(name), "%s#%d/%s", node,
				g->n_node - 1, a->name ? a->name : "");
		if (find_tensor(g, name) >= 0) {
			ein_error(ctx, EIN_ERROR_IO, "%s: node '%s': the name "
				"'%s' is taken", path, node, name);
			return -1;
		}
		a->tensor = ein_onnx_graph_tensor(g, name);
		if (a->tensor < 0 || set_const(ctx, path,
				&g->tensor[a->tensor], ap->t) < 0)
			return -1;
		break;
	default:
		a->kind = EIN_ONNX_ATTR_OTHER;
		break;
	}
	return a->name ? 0 : -1;
}

/* The tensor indices of "names" into *idx ("" gives -1, an omitted
 * optional input). */
static int read_names(struct ein_onnx_graph *g, char **names, size_t n,
	int **idx)
{
	size_t i;

	*idx = calloc(n + 1, sizeof(**idx));
	if (!*idx)
		return -1;
	for (i = 0; i < n; ++i) {
		(*idx)[i] = names[i] && *names[i] ?
			ein_onnx_graph_tensor(g, names[i]) : -1;
		if (names[i] && *names[i] && (*idx)[i] < 0)
			return -1;
	}
	return 0;
}

/* Copy node "np" into the next node of "g". */
static int read_node(ein_ctx *ctx, const char *path, struct ein_onnx_graph *g,
	const Onnx__NodeProto *np)
{
	struct ein_onnx_node *n = &g->node[g->n_node++];
	size_t i;

	memset(n, 0, sizeof(*n));
	n->name = strdup(np->name ? np->name : "");
	n->op = strdup(np->op_type ? np->op_type : "");
	if (!n->name || !n->op)
		return -1;
	/* Of Microsoft's contrib operators, the GELUs that exporters wrote
	 * before ONNX had Gelu (opset 20) are the ones the importer has. */
	if (np->domain && *np->domain && strcmp(np->domain, "ai.onnx") &&
	    !(!strcmp(np->domain, "com.microsoft") &&
	      (!strcmp(n->op, "Gelu") || !strcmp(n->op, "FastGelu")))) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "%s: node '%s' (%s) is "
			"of operator domain '%s', which the importer does not "
			"support", path, n->name, n->op, np->domain);
		return -1;
	}
	n->n_in = np->n_input;
	n->n_out = np->n_output;
	if (read_names(g, np->input, np->n_input, &n->in) < 0 ||
	    read_names(g, np->output, np->n_output, &n->out) < 0)
		return -1;
	n->attr = calloc(np->n_attribute + 1, sizeof(*n->attr));
	if (!n->attr)
		return -1;
	for (i = 0; i < np->n_attribute; ++i, n->n_attr++)
		if (read_attr(ctx, path, g, n->name, &n->attr[i],
				np->attribute[i]) < 0)
			return (n->n_attr++, -1);
	return 0;
}

/* The opset of the default domain (ONNX's operators). */
static int64_t default_opset(const Onnx__ModelProto *m)
{
	size_t i;

	for (i = 0; i < m->n_opset_import; ++i) {
		const char *d = m->opset_import[i]->domain;

		if (!d || !*d || !strcmp(d, "ai.onnx"))
			return m->opset_import[i]->version;
	}
	return 1;
}

/* Copy model "m" into "g". */
static int read_model(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const Onnx__ModelProto *m)
{
	const Onnx__GraphProto *gp = m->graph;
	size_t i;

	if (!gp) {
		ein_error(ctx, EIN_ERROR_IO, "%s: the model has no graph", path);
		return -1;
	}
	g->opset = default_opset(m);
	g->name = strdup(gp->name ? gp->name : "");
	g->node = calloc(gp->n_node + 1, sizeof(*g->node));
	if (!g->name || !g->node)
		return -1;
	if (read_initializers(ctx, path, g, gp) < 0 ||
	    read_inputs(ctx, path, g, gp) < 0 || read_outputs(g, gp) < 0)
		return -1;
	for (i = 0; i < gp->n_node; ++i)
		if (read_node(ctx, path, g, gp->node[i]) < 0)
			return -1;
	return 0;
}

struct ein_onnx_graph *ein_onnx_read(ein_ctx *ctx, const char *path)
{
	struct ein_onnx_graph *g;
	Onnx__ModelProto *m;
	struct bytes b;

	if (get_bytes(ctx, path, &b) < 0)
		return NULL;
	/* The default allocator (NULL): the tensors take raw_data's
	 * buffers and free them with free(). */
	m = onnx__model_proto__unpack(NULL, b.len, b.data);
	release_bytes(&b);
	if (!m) {
		ein_error(ctx, EIN_ERROR_IO, "%s: not an ONNX model (the "
			"protobuf cannot be decoded as a ModelProto)", path);
		return NULL;
	}
	g = ein_onnx_graph_alloc();
	if (!g || read_model(ctx, path, g, m) < 0) {
		if (ein_diag_n_error(ctx) == 0)
			ein_error(ctx, EIN_ERROR_NOMEM, "%s: out of memory",
				path);
		ein_onnx_graph_free(g);
		g = NULL;
	}
	onnx__model_proto__free_unpacked(m, NULL);
	return g;
}
