/*
 * onnx_build.c: small ONNX models for the unit tests (onnx_build.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "onnx/onnx.pb-c.h"
#include "onnx_build.h"

/* A dimension: constant "v", or the dim_param "param" unless NULL. */
static void set_dim(Onnx__TensorShapeProto__Dimension *d, int64_t v,
	const char *param)
{
	onnx__tensor_shape_proto__dimension__init(d);
	if (param) {
		d->value_case =
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		d->dim_param = (char *) param;
	} else {
		d->value_case =
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = v;
	}
}

/* The parts of one FLOAT value info of rank 2. */
struct value {
	Onnx__ValueInfoProto info;
	Onnx__TypeProto type;
	Onnx__TypeProto__Tensor tensor;
	Onnx__TensorShapeProto shape;
	Onnx__TensorShapeProto__Dimension dim[2], *pdim[2];
};

static void set_value(struct value *v, const char *name, const char *batch,
	int64_t cols)
{
	onnx__value_info_proto__init(&v->info);
	onnx__type_proto__init(&v->type);
	onnx__type_proto__tensor__init(&v->tensor);
	onnx__tensor_shape_proto__init(&v->shape);
	set_dim(&v->dim[0], 2, batch);
	set_dim(&v->dim[1], cols, NULL);
	v->pdim[0] = &v->dim[0];
	v->pdim[1] = &v->dim[1];
	v->shape.n_dim = 2;
	v->shape.dim = v->pdim;
	v->tensor.has_elem_type = 1;
	v->tensor.elem_type = 1;
	v->tensor.shape = &v->shape;
	v->type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	v->type.tensor_type = &v->tensor;
	v->info.name = (char *) name;
	v->info.type = &v->type;
}

/* A FLOAT initializer "name" of shape dims[0 .. n-1] holding "data". */
static void set_init(Onnx__TensorProto *t, const char *name, int64_t *dims,
	int n, const float *data)
{
	int64_t k, count = 1;

	onnx__tensor_proto__init(t);
	for (k = 0; k < n; ++k)
		count *= dims[k];
	t->name = (char *) name;
	t->n_dims = n;
	t->dims = dims;
	t->has_data_type = 1;
	t->data_type = 1;
	t->n_float_data = count;
	t->float_data = (float *) data;
}

/* Node "name" of type "op" reading in[0 .. n_in-1], writing "out". */
static void set_node(Onnx__NodeProto *n, const char *name, const char *op,
	char **in, int n_in, char **out)
{
	onnx__node_proto__init(n);
	n->name = (char *) name;
	n->op_type = (char *) op;
	n->n_input = n_in;
	n->input = in;
	n->n_output = 1;
	n->output = out;
}

/* Pack "model" into "path". */
static int write_model(const Onnx__ModelProto *model, const char *path)
{
	size_t len = onnx__model_proto__get_packed_size(model);
	uint8_t *buf = malloc(len + 1);
	FILE *f = buf ? fopen(path, "wb") : NULL;
	int ok = f && buf;

	if (ok) {
		onnx__model_proto__pack(model, buf);
		ok = fwrite(buf, 1, len, f) == len;
	}
	if (f)
		ok = fclose(f) == 0 && ok;
	free(buf);
	return ok ? 0 : -1;
}

/* Write the model of one graph "name" (opset 13): its nodes, initializers,
 * one input "x" and one output "y", into "path". */
static int write_graph(const char *path, const char *name,
	Onnx__NodeProto **node, size_t n_node, Onnx__TensorProto **init,
	size_t n_init, struct value *x, struct value *y)
{
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset, *popset = &opset;
	Onnx__ValueInfoProto *px = &x->info, *py = &y->info;

	onnx__model_proto__init(&model);
	onnx__graph_proto__init(&graph);
	onnx__operator_set_id_proto__init(&opset);
	opset.domain = "";
	opset.has_version = 1;
	opset.version = 13;
	graph.name = (char *) name;
	graph.n_node = n_node;
	graph.node = node;
	graph.n_initializer = n_init;
	graph.initializer = init;
	graph.n_input = 1;
	graph.input = &px;
	graph.n_output = 1;
	graph.output = &py;
	model.has_ir_version = 1;
	model.ir_version = 7;
	model.n_opset_import = 1;
	model.opset_import = &popset;
	model.graph = &graph;
	return write_model(&model, path);
}

int onnx_build_mlp(const char *path, const char *batch, const float *w1,
	const float *b1, const float *w2)
{
	static char *in1[] = { "x", "w1" }, *out1[] = { "h0" };
	static char *in2[] = { "h0", "b1" }, *out2[] = { "h1" };
	static char *in3[] = { "h1" }, *out3[] = { "h" };
	static char *in4[] = { "h", "w2" }, *out4[] = { "y" };
	int64_t d1[] = { 4, 4 }, d2[] = { 4 }, d3[] = { 4, 3 };
	Onnx__NodeProto node[4], *pnode[4];
	Onnx__TensorProto init[3], *pinit[3];
	struct value x, y;
	int i;

	set_node(&node[0], "mm1", "MatMul", in1, 2, out1);
	set_node(&node[1], "bias1", "Add", in2, 2, out2);
	set_node(&node[2], "relu1", "Relu", in3, 1, out3);
	set_node(&node[3], "mm2", "MatMul", in4, 2, out4);
	set_init(&init[0], "w1", d1, 2, w1);
	set_init(&init[1], "b1", d2, 1, b1);
	set_init(&init[2], "w2", d3, 2, w2);
	for (i = 0; i < 4; ++i)
		pnode[i] = &node[i];
	for (i = 0; i < 3; ++i)
		pinit[i] = &init[i];
	set_value(&x, "x", batch, 4);
	set_value(&y, "y", batch, 3);
	return write_graph(path, "mlp", pnode, 4, pinit, 3, &x, &y);
}

/* The names of layer "l" of onnx_build_chain. */
struct layer_names {
	char w[16], b[16], mm[16], add[16], relu[16], h0[16], h1[16], h[16];
	char *in1[2], *out1[1], *in2[2], *out2[1], *in3[1], *out3[1];
};

static void set_layer_names(struct layer_names *n, int l, int last,
	const char *x)
{
	snprintf(n->w, sizeof(n->w), "w%d", l);
	snprintf(n->b, sizeof(n->b), "b%d", l);
	snprintf(n->mm, sizeof(n->mm), "mm%d", l);
	snprintf(n->add, sizeof(n->add), "add%d", l);
	snprintf(n->relu, sizeof(n->relu), "relu%d", l);
	snprintf(n->h0, sizeof(n->h0), "m%d", l);
	snprintf(n->h1, sizeof(n->h1), "a%d", l);
	snprintf(n->h, sizeof(n->h), last ? "y" : "h%d", l);
	n->in1[0] = (char *) x;
	n->in1[1] = n->w;
	n->out1[0] = n->h0;
	n->in2[0] = n->h0;
	n->in2[1] = n->b;
	n->out2[0] = n->h1;
	n->in3[0] = n->h1;
	n->out3[0] = n->h;
}

/* Initializer "t" as raw_data: the bytes of "data", little-endian. */
static void set_raw(Onnx__TensorProto *t, const float *data, size_t count)
{
	t->n_float_data = 0;
	t->float_data = NULL;
	t->has_raw_data = 1;
	t->raw_data.len = count * sizeof(float);
	t->raw_data.data = (uint8_t *) data;
}

int onnx_build_chain(const char *path, int layers, const float *w,
	const float *b)
{
	struct layer_names name[CHAIN_MAX_LAYERS];
	int64_t dw[] = { 4, 4 }, db[] = { 4 };
	Onnx__NodeProto node[3 * CHAIN_MAX_LAYERS], *pnode[3 * CHAIN_MAX_LAYERS];
	Onnx__TensorProto init[2 * CHAIN_MAX_LAYERS];
	Onnx__TensorProto *pinit[2 * CHAIN_MAX_LAYERS];
	struct value x, y;
	int l;

	if (layers < 1 || layers > CHAIN_MAX_LAYERS)
		return -1;
	for (l = 0; l < layers; ++l) {
		struct layer_names *n = &name[l];

		set_layer_names(n, l, l == layers - 1, l ? name[l - 1].h : "x");
		set_node(&node[3 * l], n->mm, "MatMul", n->in1, 2, n->out1);
		set_node(&node[3 * l + 1], n->add, "Add", n->in2, 2, n->out2);
		set_node(&node[3 * l + 2], n->relu, "Relu", n->in3, 1, n->out3);
		set_init(&init[2 * l], n->w, dw, 2, w + 16 * l);
		set_raw(&init[2 * l], w + 16 * l, 16);
		set_init(&init[2 * l + 1], n->b, db, 1, b + 4 * l);
		set_raw(&init[2 * l + 1], b + 4 * l, 4);
	}
	for (l = 0; l < 3 * layers; ++l)
		pnode[l] = &node[l];
	for (l = 0; l < 2 * layers; ++l)
		pinit[l] = &init[l];
	set_value(&x, "x", "N", 4);
	set_value(&y, "y", "N", 4);
	return write_graph(path, "chain", pnode, 3 * layers, pinit,
		2 * layers, &x, &y);
}
