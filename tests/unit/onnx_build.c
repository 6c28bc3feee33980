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

int onnx_build_mlp(const char *path, const char *batch, const float *w1,
	const float *b1, const float *w2)
{
	static char *in1[] = { "x", "w1" }, *out1[] = { "h0" };
	static char *in2[] = { "h0", "b1" }, *out2[] = { "h1" };
	static char *in3[] = { "h1" }, *out3[] = { "h" };
	static char *in4[] = { "h", "w2" }, *out4[] = { "y" };
	int64_t d1[] = { 4, 4 }, d2[] = { 4 }, d3[] = { 4, 3 };
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset, *popset = &opset;
	Onnx__NodeProto node[4], *pnode[4];
	Onnx__TensorProto init[3], *pinit[3];
	struct value x, y;
	Onnx__ValueInfoProto *px = &x.info, *py = &y.info;
	int i;

	onnx__model_proto__init(&model);
	onnx__graph_proto__init(&graph);
	onnx__operator_set_id_proto__init(&opset);
	opset.domain = "";
	opset.has_version = 1;
	opset.version = 13;
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
	graph.name = "mlp";
	graph.n_node = 4;
	graph.node = pnode;
	graph.n_initializer = 3;
	graph.initializer = pinit;
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
