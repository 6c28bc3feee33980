/*
 * ops.c: the table of ONNX operators, the helpers their lowerings share,
 * and the elementwise operators (one statement each, numpy broadcasting).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "onnx/ops.h"

int ein_onnx_node_error(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ein_error(l->ctx, EIN_ERROR_UNSUPPORTED, "%s: node '%s' (%s): %s",
		l->path, n->name, n->op, msg);
	return -1;
}

struct ein_onnx_tensor *ein_onnx_in(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, int i, const char *what)
{
	if (i < n->n_in && n->in[i] >= 0)
		return &l->g->tensor[n->in[i]];
	if (what)
		ein_onnx_node_error(l, n, "missing input %d (%s)", i, what);
	return NULL;
}

struct ein_onnx_tensor *ein_onnx_out(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, int i)
{
	return i < n->n_out && n->out[i] >= 0 ? &l->g->tensor[n->out[i]] :
		NULL;
}

int ein_onnx_need_float(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *t)
{
	if (t->dtype == EIN_ONNX_FLOAT || t->dtype == EIN_ONNX_DOUBLE)
		return 0;
	return ein_onnx_node_error(l, n, "input '%s' is %s; the importer "
		"supports this operator on FLOAT and DOUBLE", t->name,
		ein_onnx_dtype_name(t->dtype));
}

int ein_onnx_need_ein_type(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t)
{
	if (ein_onnx_dtype_ein(t->dtype))
		return 0;
	return ein_onnx_node_error(l, n, "input '%s' is %s, which ein does "
		"not compute with (only shape computations on constants are "
		"folded)", t->name, ein_onnx_dtype_name(t->dtype));
}

void ein_onnx_set_shape(struct ein_onnx_tensor *o, enum ein_onnx_dtype dtype,
	int rank, const struct ein_onnx_dim *dim)
{
	int d;

	o->dtype = dtype;
	o->rank = rank;
	for (d = 0; d < rank; ++d)
		o->dim[d] = dim[d];
	o->known = 1;
}

int ein_onnx_need_const_shape(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what)
{
	int d;

	for (d = 0; d < t->rank; ++d)
		if (t->dim[d].sym >= 0)
			return ein_onnx_node_error(l, n, "dimension %d of '%s' "
				"is the symbolic size '%s', but %s needs a "
				"constant (give it a value: --sizes %s=VALUE)",
				d, t->name, l->g->size[t->dim[d].sym], what,
				l->size_id[t->dim[d].sym]);
	return 0;
}

int ein_onnx_const_ints(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what, int64_t *v, int *count, int max)
{
	int64_t k, m;

	if (t->role != EIN_ONNX_CONST || (t->dtype != EIN_ONNX_INT64 &&
			t->dtype != EIN_ONNX_INT32))
		return ein_onnx_node_error(l, n, "%s '%s' must be a constant "
			"INT64 tensor (a dynamic shape is not supported)", what,
			t->name);
	m = t->bytes / ein_onnx_dtype_size(t->dtype);
	if (m > max)
		return ein_onnx_node_error(l, n, "%s '%s' has too many "
			"values", what, t->name);
	for (k = 0; k < m; ++k) {
		if (t->sval && t->sval[k].sym >= 0)
			return ein_onnx_node_error(l, n, "%s '%s' depends on "
				"the symbolic size '%s' (give it a value: "
				"--sizes %s=VALUE)", what, t->name,
				l->g->size[t->sval[k].sym],
				l->size_id[t->sval[k].sym]);
		v[k] = t->dtype == EIN_ONNX_INT64 ? ((int64_t *) t->data)[k] :
			((int32_t *) t->data)[k];
	}
	*count = m;
	return 0;
}

int ein_onnx_const_float(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what, double *v)
{
	if (t->role != EIN_ONNX_CONST || ein_onnx_tensor_n_elem(t) != 1 ||
	    (t->dtype != EIN_ONNX_FLOAT && t->dtype != EIN_ONNX_DOUBLE))
		return ein_onnx_node_error(l, n, "%s '%s' must be a constant "
			"float scalar", what, t->name);
	*v = t->dtype == EIN_ONNX_FLOAT ? *(float *) t->data :
		*(double *) t->data;
	return 0;
}

int ein_onnx_attr_ints(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *name, int64_t *v, int *count, int max)
{
	const struct ein_onnx_attr *a = ein_onnx_node_attr(n, name);

	*count = 0;
	if (!a)
		return 0;
	if (a->kind != EIN_ONNX_ATTR_INTS || a->n > max)
		return ein_onnx_node_error(l, n, "attribute '%s' is not a list "
			"of at most %d integers", name, max);
	memcpy(v, a->ints, a->n * sizeof(*v));
	*count = a->n;
	return 0;
}

int ein_onnx_axis(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t a, int rank)
{
	if (a < -rank || a >= rank)
		return ein_onnx_node_error(l, n, "axis %lld is out of range "
			"for rank %d", (long long) a, rank);
	return a < 0 ? a + rank : a;
}

void ein_onnx_print_dim(struct ein_onnx_lower *l, struct ein_onnx_dim d)
{
	if (d.sym >= 0)
		fputs(l->size_id[d.sym], l->out);
	else
		fprintf(l->out, "%lld", (long long) d.value);
}

void ein_onnx_print_lhs(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t, const char *op)
{
	int d;

	fprintf(l->out, "    %s(", t->id);
	for (d = 0; d < t->rank; ++d)
		fprintf(l->out, "%si%d", d ? ", " : "", d);
	fprintf(l->out, ") %s ", op);
}

void ein_onnx_print_access(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *t, char idx[][EIN_ONNX_IDX])
{
	int d;

	t->used = 1;
	fprintf(l->out, "%s(", t->id);
	for (d = 0; d < t->rank; ++d)
		fprintf(l->out, "%s%s", d ? ", " : "", idx[d]);
	fputc(')', l->out);
}

void ein_onnx_print_bcast(struct ein_onnx_lower *l, struct ein_onnx_tensor *t,
	int rank, const struct ein_onnx_dim *dim)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d;

	for (d = 0; d < t->rank; ++d) {
		int od = rank - t->rank + d;

		if (t->dim[d].sym < 0 && t->dim[d].value == 1 &&
		    !ein_onnx_dim_eq(dim[od], t->dim[d]))
			strcpy(idx[d], "0");
		else
			snprintf(idx[d], sizeof(idx[d]), "i%d", od);
	}
	ein_onnx_print_access(l, t, idx);
}

void ein_onnx_print_where(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t, int more)
{
	int d;

	for (d = 0; d < t->rank; ++d) {
		fprintf(l->out, "%si%d in 0:", d ? ", " : " where ", d);
		ein_onnx_print_dim(l, t->dim[d]);
	}
	if (more)
		fputs(t->rank ? ", " : " where ", l->out);
	else
		fputc('\n', l->out);
}

void ein_onnx_print_float(struct ein_onnx_lower *l, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.9g", v);
	if (!strpbrk(buf, ".en"))
		strcat(buf, ".0");
	fputs(buf, l->out);
}

void ein_onnx_aux_name(struct ein_onnx_lower *l, const struct ein_onnx_tensor *o,
	const char *what, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%s%d", o->id, what, l->n_aux++);
}

int ein_onnx_broadcast(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *a, const struct ein_onnx_tensor *b,
	int *rank, struct ein_onnx_dim *dim)
{
	int d, r = a->rank > b->rank ? a->rank : b->rank;

	for (d = 0; d < r; ++d) {
		int da = d - (r - a->rank), db = d - (r - b->rank);
		struct ein_onnx_dim x = da >= 0 ? a->dim[da] :
			ein_onnx_dim_const(1);
		struct ein_onnx_dim y = db >= 0 ? b->dim[db] :
			ein_onnx_dim_const(1);

		if (x.sym < 0 && x.value == 1)
			dim[d] = y;
		else if ((y.sym < 0 && y.value == 1) || ein_onnx_dim_eq(x, y))
			dim[d] = x;
		else
			return ein_onnx_node_error(l, n, "the shapes of '%s' and "
				"'%s' do not broadcast (dimension %d)",
				a->name, b->name, d);
	}
	*rank = r;
	return 0;
}

/* Unary operators as the text before and after their operand. */
static const struct {
	const char *op;
	const char *pre;
	const char *post;
} unary[] = {
	{ "Relu", "max(", ", 0)" },
	{ "Sigmoid", "sigmoid(", ")" },
	{ "Tanh", "tanh(", ")" },
	{ "Exp", "exp(", ")" },
	{ "Log", "log(", ")" },
	{ "Sqrt", "sqrt(", ")" },
	{ "Abs", "abs(", ")" },
	{ "Neg", "-", "" },
	{ "Erf", "erf(", ")" },
	{ "Floor", "floor(", ")" },
	{ "Ceil", "ceil(", ")" },
	{ "Reciprocal", "1 / ", "" },
};

/* y = f(x) elementwise, for the operators of "unary". */
static int lower_unary(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	size_t i;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0)
		return -1;
	for (i = 0; strcmp(unary[i].op, n->op); ++i)
		;
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	fputs(unary[i].pre, l->out);
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	fputs(unary[i].post, l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* An elementwise operator with parameters: "op" selects the formula,
 * written with the operand printed once or twice. */
static int lower_param_unary(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	int swish = !strcmp(n->op, "HardSwish");
	double alpha, beta;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0)
		return -1;
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	if (!strcmp(n->op, "LeakyRelu")) {
		ein_onnx_print_bcast(l, x, y->rank, y->dim);
		fputs(" >= 0 ? ", l->out);
		ein_onnx_print_bcast(l, x, y->rank, y->dim);
		fputs(" : ", l->out);
		ein_onnx_print_float(l, ein_onnx_node_float(n, "alpha", 0.01f));
		fputs(" * ", l->out);
	} else {
		/* HardSigmoid max(0, min(1, alpha x + beta)); HardSwish
		 * x times it, alpha 1/6 and beta 1/2. */
		alpha = swish ? 1.0 / 6 : ein_onnx_node_float(n, "alpha", 0.2f);
		beta = swish ? 0.5 : ein_onnx_node_float(n, "beta", 0.5f);
		if (swish) {
			ein_onnx_print_bcast(l, x, y->rank, y->dim);
			fputs(" * ", l->out);
		}
		fputs("max(0, min(1, ", l->out);
		ein_onnx_print_float(l, alpha);
		fputs(" * ", l->out);
		ein_onnx_print_bcast(l, x, y->rank, y->dim);
		fputs(" + ", l->out);
		ein_onnx_print_float(l, beta);
		fputs("))", l->out);
		ein_onnx_print_where(l, y, 0);
		return 0;
	}
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Gelu (ONNX opset 20, and Microsoft's contrib Gelu and FastGelu):
 * x Phi(x), Phi the normal distribution's CDF, 0.5 (1 + erf(x / sqrt 2)),
 * or with approximate "tanh" (FastGelu always) its approximation
 * 0.5 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); FastGelu's optional
 * second input is a bias added to x first. */
static int lower_gelu(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *bias = !strcmp(n->op, "FastGelu") ?
		ein_onnx_in(l, n, 1, NULL) : NULL;
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), *v;
	const char *approx = ein_onnx_node_string(n, "approximate", "none");
	int tanh_form = !strcmp(n->op, "FastGelu") || !strcmp(approx, "tanh");
	char name[256];
	struct ein_onnx_tensor xb;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0)
		return -1;
	if (!tanh_form && strcmp(approx, "none"))
		return ein_onnx_node_error(l, n, "approximate '%s' is not "
			"supported (none and tanh are)", approx);
	v = x;
	if (bias) {
		struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
		int rank;

		if (ein_onnx_broadcast(l, n, x, bias, &rank, dim) < 0)
			return -1;
		if (rank != x->rank || bias->dtype != x->dtype)
			return ein_onnx_node_error(l, n, "bias '%s' does not "
				"broadcast to input '%s'", bias->name, x->name);
		/* x + bias, a temporary of its own. */
		xb = *x;
		ein_onnx_aux_name(l, y, "biased", name, sizeof(name));
		xb.id = name;
		ein_onnx_print_lhs(l, &xb, "=");
		ein_onnx_print_bcast(l, x, x->rank, x->dim);
		fputs(" + ", l->out);
		ein_onnx_print_bcast(l, bias, x->rank, x->dim);
		ein_onnx_print_where(l, &xb, 0);
		v = &xb;
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	fputs("0.5 * ", l->out);
	ein_onnx_print_bcast(l, v, y->rank, y->dim);
	if (tanh_form) {
		fputs(" * (1 + tanh(", l->out);
		ein_onnx_print_float(l, sqrt(2 / M_PI));
		fputs(" * (", l->out);
		ein_onnx_print_bcast(l, v, y->rank, y->dim);
		fputs(" + 0.044715 * ", l->out);
		ein_onnx_print_bcast(l, v, y->rank, y->dim);
		fputs(" * ", l->out);
		ein_onnx_print_bcast(l, v, y->rank, y->dim);
		fputs(" * ", l->out);
		ein_onnx_print_bcast(l, v, y->rank, y->dim);
		fputs(")))", l->out);
	} else {
		fputs(" * (1 + erf(", l->out);
		ein_onnx_print_bcast(l, v, y->rank, y->dim);
		fputs(" * ", l->out);
		ein_onnx_print_float(l, sqrt(0.5));
		fputs("))", l->out);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Clip: the bounds are constant inputs (opset 11 and later) or the
 * attributes min and max; an absent bound does not clip. */
static int lower_clip(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *lo = ein_onnx_in(l, n, 1, NULL);
	struct ein_onnx_tensor *hi = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	const struct ein_onnx_attr *alo = ein_onnx_node_attr(n, "min");
	const struct ein_onnx_attr *ahi = ein_onnx_node_attr(n, "max");
	double vlo = alo ? alo->f : 0, vhi = ahi ? ahi->f : 0;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    (lo && ein_onnx_const_float(l, n, lo, "min", &vlo) < 0) ||
	    (hi && ein_onnx_const_float(l, n, hi, "max", &vhi) < 0))
		return -1;
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	if (lo || alo)
		fputs("max(", l->out);
	if (hi || ahi)
		fputs("min(", l->out);
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	if (hi || ahi) {
		fputs(", ", l->out);
		ein_onnx_print_float(l, vhi);
		fputc(')', l->out);
	}
	if (lo || alo) {
		fputs(", ", l->out);
		ein_onnx_print_float(l, vlo);
		fputc(')', l->out);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Binary operators: an infix operator or a function of two arguments;
 * comparisons give bools. */
static const struct {
	const char *op;
	const char *infix;
	const char *fn;
	int cmp;
} binary[] = {
	{ "Add", " + ", NULL, 0 },
	{ "Sub", " - ", NULL, 0 },
	{ "Mul", " * ", NULL, 0 },
	{ "Div", " / ", NULL, 0 },
	{ "Pow", NULL, "pow", 0 },
	{ "Equal", " == ", NULL, 1 },
	{ "Less", " < ", NULL, 1 },
	{ "Greater", " > ", NULL, 1 },
	{ "LessOrEqual", " <= ", NULL, 1 },
	{ "GreaterOrEqual", " >= ", NULL, 1 },
};

static int is_float(enum ein_onnx_dtype t)
{
	return t == EIN_ONNX_FLOAT || t == EIN_ONNX_DOUBLE;
}

/* Operand "t" of a binary operator broadcast to rank, dim; cast to
 * "type" unless it is EIN_ONNX_UNDEFINED or t's own. */
static void print_operand(struct ein_onnx_lower *l, struct ein_onnx_tensor *t,
	int rank, const struct ein_onnx_dim *dim, enum ein_onnx_dtype type)
{
	int cast = type != EIN_ONNX_UNDEFINED && type != t->dtype;

	if (cast)
		fprintf(l->out, "%s(", ein_onnx_dtype_ein(type));
	ein_onnx_print_bcast(l, t, rank, dim);
	if (cast)
		fputc(')', l->out);
}

/* y = a OP b with numpy broadcasting. */
static int lower_binary(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *a = ein_onnx_in(l, n, 0, "A");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 1, "B");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int rank, pow = !strcmp(n->op, "Pow"), narrow;
	enum ein_onnx_dtype pow_type;
	size_t i;

	for (i = 0; strcmp(binary[i].op, n->op); ++i)
		;
	if (n->n_in != 2)
		return ein_onnx_node_error(l, n, "the importer supports %s "
			"with two inputs, not %d", n->op, n->n_in);
	if (!a || !b || !y || ein_onnx_need_ein_type(l, n, a) < 0 ||
	    ein_onnx_need_ein_type(l, n, b) < 0 ||
	    ein_onnx_broadcast(l, n, a, b, &rank, dim) < 0)
		return -1;
	/* Pow's exponent may have another type than its base: both are
	 * computed in the base's float type, or in DOUBLE for an integer
	 * base (exact for the integer powers that fit). */
	pow_type = is_float(a->dtype) ? a->dtype : EIN_ONNX_DOUBLE;
	if (a->dtype != b->dtype && !pow)
		return ein_onnx_node_error(l, n, "inputs of types %s and %s "
			"are not supported", ein_onnx_dtype_name(a->dtype),
			ein_onnx_dtype_name(b->dtype));
	ein_onnx_set_shape(y, binary[i].cmp ? EIN_ONNX_BOOL : a->dtype, rank,
		dim);
	/* ein promotes small integers to int32 (as C does) and computes
	 * pow in floating point: the result is cast back to ONNX's type,
	 * which wraps around as ONNX's integer arithmetic does. */
	narrow = !binary[i].cmp && (pow ? !is_float(a->dtype) :
		a->dtype == EIN_ONNX_INT8 || a->dtype == EIN_ONNX_UINT8);
	ein_onnx_print_lhs(l, y, "=");
	if (narrow)
		fprintf(l->out, "%s(", ein_onnx_dtype_ein(a->dtype));
	if (binary[i].fn)
		fprintf(l->out, "%s(", binary[i].fn);
	print_operand(l, a, rank, dim, pow ? pow_type : EIN_ONNX_UNDEFINED);
	fputs(binary[i].fn ? ", " : binary[i].infix, l->out);
	print_operand(l, b, rank, dim, pow ? pow_type : EIN_ONNX_UNDEFINED);
	if (binary[i].fn)
		fputc(')', l->out);
	if (narrow)
		fputc(')', l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The most inputs of Max, Min, Sum and Mean. */
#define EIN_ONNX_MAX_VARIADIC 16

/* Max, Min, Sum, Mean of any number of inputs (numpy broadcasting of
 * all): max(max(a, b), c), a + b + c, (a + b + c) / 3. */
static int lower_variadic(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x[EIN_ONNX_MAX_VARIADIC], *y;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int k, rank = 0, narrow, sum = !strcmp(n->op, "Sum"),
		mean = !strcmp(n->op, "Mean");
	const char *fn = !strcmp(n->op, "Max") ? "max" : "min";

	y = ein_onnx_out(l, n, 0);
	if (n->n_in < 1 || n->n_in > EIN_ONNX_MAX_VARIADIC)
		return ein_onnx_node_error(l, n, "%d inputs are not supported "
			"(1 to %d are)", n->n_in, EIN_ONNX_MAX_VARIADIC);
	for (k = 0; k < n->n_in; ++k) {
		if (!(x[k] = ein_onnx_in(l, n, k, "data")) ||
		    ein_onnx_need_ein_type(l, n, x[k]) < 0)
			return -1;
		if (x[k]->dtype != x[0]->dtype)
			return ein_onnx_node_error(l, n, "inputs of types %s "
				"and %s are not supported",
				ein_onnx_dtype_name(x[0]->dtype),
				ein_onnx_dtype_name(x[k]->dtype));
		if (k == 0) {
			rank = x[0]->rank;
			memcpy(dim, x[0]->dim, rank * sizeof(*dim));
		} else {
			struct ein_onnx_tensor acc = *x[0];

			acc.rank = rank;
			memcpy(acc.dim, dim, rank * sizeof(*dim));
			if (ein_onnx_broadcast(l, n, &acc, x[k], &rank,
					dim) < 0)
				return -1;
		}
	}
	if (!y)
		return -1;
	if (mean && ein_onnx_need_float(l, n, x[0]) < 0)
		return -1;
	ein_onnx_set_shape(y, x[0]->dtype, rank, dim);
	narrow = x[0]->dtype == EIN_ONNX_INT8 || x[0]->dtype == EIN_ONNX_UINT8;
	ein_onnx_print_lhs(l, y, "=");
	if (narrow)
		fprintf(l->out, "%s(", ein_onnx_dtype_ein(x[0]->dtype));
	if (mean)
		fputc('(', l->out);
	for (k = 0; !sum && !mean && k + 1 < n->n_in; ++k)
		fprintf(l->out, "%s(", fn);
	for (k = 0; k < n->n_in; ++k) {
		if (k && (sum || mean))
			fputs(" + ", l->out);
		ein_onnx_print_bcast(l, x[k], rank, dim);
		if (k && !sum && !mean)
			fputc(')', l->out);
		if (!k && n->n_in > 1 && !sum && !mean)
			fputs(", ", l->out);
		else if (k && k + 1 < n->n_in && !sum && !mean)
			fputs(", ", l->out);
	}
	if (mean) {
		fputs(") / ", l->out);
		ein_onnx_print_float(l, n->n_in);
	}
	if (narrow)
		fputc(')', l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Cast between the types ein computes with. */
static int lower_cast(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	int64_t to = ein_onnx_node_int(n, "to", 0);

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0)
		return -1;
	if (!ein_onnx_dtype_ein(to))
		return ein_onnx_node_error(l, n, "cast to %s, which ein does "
			"not compute with", ein_onnx_dtype_name(to));
	ein_onnx_set_shape(y, to, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	fprintf(l->out, "%s(", ein_onnx_dtype_ein(to));
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	fputc(')', l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The operators, by op type. */
static const struct ein_onnx_op ops[] = {
	{ "Relu", &lower_unary },
	{ "Sigmoid", &lower_unary },
	{ "Tanh", &lower_unary },
	{ "Exp", &lower_unary },
	{ "Log", &lower_unary },
	{ "Sqrt", &lower_unary },
	{ "Abs", &lower_unary },
	{ "Neg", &lower_unary },
	{ "Erf", &lower_unary },
	{ "Floor", &lower_unary },
	{ "Ceil", &lower_unary },
	{ "Reciprocal", &lower_unary },
	{ "LeakyRelu", &lower_param_unary },
	{ "HardSigmoid", &lower_param_unary },
	{ "HardSwish", &lower_param_unary },
	{ "Clip", &lower_clip },
	{ "Gelu", &lower_gelu },
	{ "FastGelu", &lower_gelu },
	{ "Add", &lower_binary },
	{ "Sub", &lower_binary },
	{ "Mul", &lower_binary },
	{ "Div", &lower_binary },
	{ "Pow", &lower_binary },
	{ "Max", &lower_variadic },
	{ "Min", &lower_variadic },
	{ "Sum", &lower_variadic },
	{ "Mean", &lower_variadic },
	{ "Equal", &lower_binary },
	{ "Less", &lower_binary },
	{ "Greater", &lower_binary },
	{ "LessOrEqual", &lower_binary },
	{ "GreaterOrEqual", &lower_binary },
	{ "Cast", &lower_cast },
	{ "Conv", &ein_onnx_lower_conv },
	{ "ConvTranspose", &ein_onnx_lower_convtranspose },
	{ "MaxPool", &ein_onnx_lower_maxpool },
	{ "AveragePool", &ein_onnx_lower_avgpool },
	{ "GlobalAveragePool", &ein_onnx_lower_global_pool },
	{ "GlobalMaxPool", &ein_onnx_lower_global_pool },
	{ "BatchNormalization", &ein_onnx_lower_batchnorm },
	{ "Gemm", &ein_onnx_lower_gemm },
	{ "MatMul", &ein_onnx_lower_matmul },
	{ "Softmax", &ein_onnx_lower_softmax },
	{ "LogSoftmax", &ein_onnx_lower_softmax },
	{ "ReduceMean", &ein_onnx_lower_reduce },
	{ "ReduceSum", &ein_onnx_lower_reduce },
	{ "ReduceMax", &ein_onnx_lower_reduce },
	{ "ReduceMin", &ein_onnx_lower_reduce },
	{ "Reshape", &ein_onnx_lower_reshape },
	{ "Flatten", &ein_onnx_lower_flatten },
	{ "Squeeze", &ein_onnx_lower_squeeze },
	{ "Unsqueeze", &ein_onnx_lower_squeeze },
	{ "Transpose", &ein_onnx_lower_transpose },
	{ "Concat", &ein_onnx_lower_concat },
	{ "Slice", &ein_onnx_lower_slice },
	{ "Split", &ein_onnx_lower_split },
	{ "Gather", &ein_onnx_lower_gather },
	{ "Pad", &ein_onnx_lower_pad },
	{ "Resize", &ein_onnx_lower_resize },
	{ "Upsample", &ein_onnx_lower_resize },
	{ "LayerNormalization", &ein_onnx_lower_layernorm },
	{ "Identity", &ein_onnx_lower_identity },
	{ "Dropout", &ein_onnx_lower_identity },
	{ "QuantizeLinear", &ein_onnx_lower_quantize_linear },
	{ "DequantizeLinear", &ein_onnx_lower_dequantize_linear },
	{ "MatMulInteger", &ein_onnx_lower_matmul_integer },
	{ "QLinearMatMul", &ein_onnx_lower_qlinear_matmul },
	{ "ConvInteger", &ein_onnx_lower_conv_integer },
	{ "QLinearConv", &ein_onnx_lower_qlinear_conv },
};

const struct ein_onnx_op *ein_onnx_op_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}
