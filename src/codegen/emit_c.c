/*
 * emit_c.c: the C text backend of the AST walker (emit_c.h).
 *
 * Values are C expressions held as strings, each allocated in the
 * emission's pool and freed with it, so that an error part way through
 * an expression leaks nothing.  Index arithmetic is in int64_t, as the
 * LLVM backend's i64 (llvm_expr.c); a statement's values have the C type
 * of the type the type checker gave them: float, double, int32_t,
 * int8_t, uint8_t, and int (0 or 1) for bool, which memory holds as a
 * uint8_t.  Operations whose C form would be undefined where ein's is
 * not (int32 overflow wraps, division by zero gives 0, float to int
 * conversions saturate) call the prelude's helpers.
 *
 * The walker gives a loop's increment after its body (for_close), so the
 * body is printed into a buffer of its own and the loop's header, then
 * the body, into the enclosing one when the loop closes.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <isl/set.h>
#include <isl/ast_build.h>
#include <isl/val.h>
#include "diag.h"
#include "codegen/ast_build.h"
#include "codegen/emit_c.h"
#include "codegen/vector_loop.h"
#include "codegen/walk.h"
#include "poly/specialize.h"
#include "frontend/builtin.h"
#include "frontend/type.h"

/* The deepest nesting of loops and conditions. */
#define MAX_DEPTH 64

/* The most reductions in the body of one vector loop. */
#define MAX_VECTOR_RED 8

/* A reduction along a vector loop (reduction_acc): the declaration of
 * its vector of partial results before the loop (decl), and the update
 * of its element by their combination after it (fin). */
struct c_vector_red {
	char *decl;
	char *fin;
};

/* A loop whose body is being printed: the buffer of the body (text, len),
 * where the enclosing text goes (out), and the loop's header: its start
 * (head), condition (cond), iterator (iter) and comment; how it runs
 * across a device (stride, fenced, copy: mapped_for), its unroll hint,
 * whether it is an explicit vector loop (vector) and the reductions
 * along it (n_red, red). */
struct c_frame {
	char *text;
	size_t len;
	FILE *out;
	char *head;
	char *cond;
	const char *iter;
	const char *comment;
	const char *stride;
	int unroll;
	int fenced;
	int outer_covered;
	int copy;
	int vector;
	int n_red;
	struct c_vector_red red[MAX_VECTOR_RED];
};

/* The state of one emission.
 * ctx, scop, spec: what is printed; out: where the current line goes
 *	(the function's buffer, or that of the innermost loop's body);
 * depth: the indentation of the current line;
 * n_frame, frame: the loops whose bodies are being printed;
 * n_pool, pool: every string allocated (expressions, headers);
 * lang, map: the dialect and the backend's loop map (emit_c.h);
 * next_stride, next_fenced, n_copy: mapped_for's word to for_open, and
 *	the depth of cooperative copies;
 * lanes, vec_iter: in the body of an explicit vector loop (OpenCL C's
 *	vector types, vector_loop.h), its width and iterator; else 0;
 * vec_init: the start of the vectorised loop of the AST being printed
 *	(isl's, where its vectors start: unmapped_for), NULL outside one;
 * n_red: the vectors of partial reductions declared so far (their
 *	names are ein_red0, ein_red1, ...). */
struct c_emit {
	ein_ctx *ctx;
	struct ein_scop *scop;
	const struct ein_wrap_spec *spec;
	const struct ein_emitter *em;
	FILE *out;
	int depth;
	int n_frame;
	struct c_frame frame[MAX_DEPTH];
	int n_pool;
	char **pool;
	enum ein_c_lang lang;
	const struct ein_c_loop_map *map;
	const char *next_stride;
	int next_fenced;
	int n_copy;
	int n_fence;
	/* Is all that the current loop body (or branch) printed so far
	 * followed by a barrier?  Then a fenced loop's closing barrier is
	 * redundant and left out: PoCL 3.1 gave wrong results for two
	 * nested fenced loops each closing with a barrier (issue 20,
	 * EIN_SCHED_SEED=22 trial 24). */
	int covered;
	int n_if;
	int if_fence[MAX_DEPTH];
	int lanes;
	isl_id *vec_iter;
	isl_ast_expr *vec_init;
	int n_red;
};

/* A string printed from "fmt" and kept in the pool; NULL if out of
 * memory. */
static char *fmt(struct c_emit *c, const char *f, ...)
{
	char **pool, *s = NULL;
	va_list ap;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	pool = realloc(c->pool, (c->n_pool + 1) * sizeof(*pool));
	if (!pool) {
		free(s);
		return NULL;
	}
	c->pool = pool;
	c->pool[c->n_pool++] = s;
	return s;
}

/* Print one line at the current depth. */
static void line(struct c_emit *c, const char *f, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < c->depth; ++i)
		fputc('\t', c->out);
	va_start(ap, f);
	vfprintf(c->out, f, ap);
	va_end(ap);
	fputc('\n', c->out);
	c->covered = 0;
}

/* The C type of values of "type" in expressions. */
static const char *value_ctype(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return "double";
	case EIN_TYPE_I32: return "int32_t";
	case EIN_TYPE_I8: return "int8_t";
	case EIN_TYPE_U8: return "uint8_t";
	case EIN_TYPE_BOOL: return "int";
	default: return "float";
	}
}

/* The C type of elements of "type" in memory (bool: one byte). */
static const char *memory_ctype(enum ein_type type)
{
	return type == EIN_TYPE_BOOL ? "uint8_t" : value_ctype(type);
}

const char *ein_c_memory_type(enum ein_type type)
{
	return memory_ctype(type);
}

/* The suffix of the C library's functions on "type": "f" for float in C;
 * none in OpenCL C, whose builtins are overloaded. */
static const char *libm_suffix_in(enum ein_c_lang lang, enum ein_type type)
{
	return type == EIN_TYPE_F64 || lang == EIN_C_LANG_OPENCL ? "" : "f";
}


/* ---- the integer expressions of isl's AST, in int64_t ---- */

static ein_value expr_int(void *user, long v)
{
	return fmt(user, "%ld", v);
}

static ein_value expr_id(void *user, __isl_keep isl_id *id)
{
	return fmt(user, "%s", isl_id_get_name(id));
}

/* The C operator of a binary operation of isl's AST, NULL if it is
 * none. */
static const char *c_operator(enum isl_ast_expr_op_type op)
{
	switch (op) {
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then: return "&&";
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else: return "||";
	case isl_ast_expr_op_add: return "+";
	case isl_ast_expr_op_sub: return "-";
	case isl_ast_expr_op_mul: return "*";
	case isl_ast_expr_op_div:
	case isl_ast_expr_op_pdiv_q: return "/";
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r: return "%";
	case isl_ast_expr_op_eq: return "==";
	case isl_ast_expr_op_le: return "<=";
	case isl_ast_expr_op_lt: return "<";
	case isl_ast_expr_op_ge: return ">=";
	case isl_ast_expr_op_gt: return ">";
	default: return NULL;
	}
}

/* max or min of the "n" values "a", as nested calls of the helpers. */
static char *min_max(struct c_emit *c, const char *f, int n, char **a)
{
	char *v = a[0];
	int i;

	for (i = 1; v && i < n; ++i)
		v = fmt(c, "%s(%s, %s)", f, v, a[i]);
	return v;
}

static ein_value expr_op(void *user, enum isl_ast_expr_op_type op, int n,
	ein_value *args)
{
	struct c_emit *c = user;
	char **a = (char **) args;
	const char *bin = c_operator(op);

	if (bin && n == 2)
		return fmt(c, "(%s %s %s)", a[0], bin, a[1]);
	switch (op) {
	case isl_ast_expr_op_max:
		return min_max(c, "ein_max64", n, a);
	case isl_ast_expr_op_min:
		return min_max(c, "ein_min64", n, a);
	case isl_ast_expr_op_minus:
		return fmt(c, "(-%s)", a[0]);
	case isl_ast_expr_op_fdiv_q:
		return fmt(c, "ein_floord(%s, %s)", a[0], a[1]);
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select:
		return fmt(c, "(%s ? %s : %s)", a[0], a[1], a[2]);
	default:
		ein_internal(c->ctx, "unexpected operation %d in the AST", op);
		return NULL;
	}
}

static char *walk_expr(struct c_emit *c, __isl_take isl_ast_expr *expr)
{
	char *v = expr ? ein_walk_expr(c->em, expr) : NULL;

	isl_ast_expr_free(expr);
	return v;
}

/* ---- loops and conditions ---- */

/* A comment with what the schedule asked of a loop ("attr"), "" if
 * nothing that the C text does not do anyway. */
static const char *loop_comment(struct c_emit *c,
	const struct ein_loop_attr *attr)
{
	if (!attr || (!attr->parallel && attr->vector <= 1 && !attr->unroll))
		return "";
	return fmt(c, " /*%s%s%s */", attr->parallel ? " parallel" : "",
		attr->vector > 1 ? fmt(c, " vector %d", attr->vector) : "",
		attr->unroll ? fmt(c, " unroll %d", attr->unroll) : "");
}

/* Print the map's barrier, counting it (if_branch_end). */
static void fence(struct c_emit *c)
{
	line(c, "%s", c->map->fence);
	c->n_fence++;
	c->covered = 1;
}

static int for_open(void *user, __isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr)
{
	struct c_emit *c = user;
	struct c_frame *f;
	FILE *body;

	if (c->n_frame >= MAX_DEPTH) {
		ein_internal(c->ctx, "loop nest too deep");
		return -1;
	}
	f = &c->frame[c->n_frame];
	f->iter = isl_id_get_name(iter);
	f->head = fmt(c, "for (int64_t %s = %s", f->iter, (char *) init);
	f->comment = loop_comment(c, attr);
	f->stride = c->next_stride;
	c->next_stride = NULL;
	f->fenced = c->next_fenced;
	c->next_fenced = 0;
	f->unroll = attr ? attr->unroll : 0;
	f->vector = attr && attr->lanes > 0;
	f->n_red = 0;
	if (f->vector) {
		c->lanes = attr->lanes;
		c->vec_iter = iter;
	}
	f->copy = attr && attr->gpu_copy && c->map && c->map->fence;
	if (f->copy && c->n_copy++ == 0)
		fence(c);
	f->text = NULL;
	f->outer_covered = c->covered;
	c->covered = 1;
	body = f->head && f->comment ? open_memstream(&f->text, &f->len) :
		NULL;
	if (!body)
		return -1;
	f->out = c->out;
	c->out = body;
	c->depth++;
	c->n_frame++;
	return 0;
}

static int for_test(void *user, ein_value cond)
{
	struct c_emit *c = user;

	c->frame[c->n_frame - 1].cond = cond;
	return 0;
}

/* OpenCL C's unroll hint for a loop the schedule unrolls fully
 * ("unroll" -1); C, and OpenCL for a partial unroll, keep the comment
 * only.  PoCL 3.1 miscompiled "#pragma unroll 2" on a loop whose trip
 * count varies (1 or 2, the last tile of i.i) inside a work-item loop of
 * a kernel with barriers (wrong results, correct with -cl-opt-disable;
 * issue 20, EIN_SCHED_SEED=1 trial 48), and a hint may make a kernel
 * slow, never wrong: the device compiler unrolls such loops itself. */
static void unroll_pragma(struct c_emit *c, int unroll)
{
	if (c->lang == EIN_C_LANG_OPENCL && unroll < 0)
		line(c, "#pragma unroll");
}

/* Close the loop: print its header and its body into the enclosing
 * text, after the declarations of the partial results of the reductions
 * along it and before their combination (reduction_acc). */
static int for_close(void *user, __isl_keep isl_id *iter, ein_value inc)
{
	struct c_emit *c = user;
	struct c_frame *f = &c->frame[--c->n_frame];
	int ok = fclose(c->out) == 0 ? 0 : -1, i;
	int body_covered = c->covered;

	(void) iter;
	c->out = f->out;
	c->depth--;
	if (f->vector) {
		c->lanes = 0;
		c->vec_iter = NULL;
	}
	if (ok == 0 && f->stride)
		inc = fmt(c, "%s * %s", (char *) inc, f->stride);
	if (ok == 0 && !inc)
		ok = -1;
	for (i = 0; ok == 0 && i < f->n_red; ++i)
		line(c, "%s", f->red[i].decl);
	if (ok == 0) {
		unroll_pragma(c, f->unroll);
		line(c, "%s; %s; %s += %s)%s {", f->head, f->cond, f->iter,
			(char *) inc, f->comment);
		fputs(f->text, c->out);
		if (f->fenced && !body_covered) {
			c->depth++;
			fence(c);
			c->depth--;
		}
		line(c, "}");
		c->covered = f->outer_covered && f->fenced;
	}
	for (i = 0; ok == 0 && i < f->n_red; ++i)
		line(c, "%s", f->red[i].fin);
	if (f->copy && --c->n_copy == 0 && ok == 0)
		fence(c);
	free(f->text);
	return ok;
}

static int if_open(void *user, ein_value cond)
{
	struct c_emit *c = user;

	if (c->n_if >= MAX_DEPTH) {
		ein_internal(c->ctx, "conditions nested too deep");
		return -1;
	}
	c->if_fence[c->n_if++] = c->n_fence;
	line(c, "if (%s) {", (char *) cond);
	c->depth++;
	return 0;
}

/* End a branch of the innermost condition: with a barrier if the branch
 * holds one.  Such a condition is the same for every work-item of the
 * group (OpenCL requires it of a barrier's path), so one more barrier is
 * safe; PoCL 3.1 gave wrong results without it on a __local tile copied
 * and read under "if (K % 16 >= 1)" (the last tile of k) inside the
 * work-group loops, correct with -cl-opt-disable (issue 20,
 * EIN_SCHED_SEED=5 trial 9). */
static void if_branch_end(struct c_emit *c)
{
	if (c->n_fence > c->if_fence[c->n_if - 1] && !c->covered) {
		fence(c);
		c->if_fence[c->n_if - 1] = c->n_fence;
	}
}

static int if_else(void *user)
{
	struct c_emit *c = user;

	if_branch_end(c);
	c->depth--;
	line(c, "} else {");
	c->depth++;
	return 0;
}

static int if_close(void *user)
{
	struct c_emit *c = user;

	if_branch_end(c);
	c->n_if--;
	c->depth--;
	line(c, "}");
	return 0;
}

/* ---- statement bodies ---- */

/* A statement instance being printed and its AST; in an explicit vector
 * loop, how each access moves along it (stride, ein_user_stmt_strides:
 * 1 contiguous, 0 the same element in every lane), else NULL. */
struct stmt_c {
	struct c_emit *c;
	const struct ein_user_stmt *us;
	const int *stride;
};

/* OpenCL C's vector type of c->lanes elements of the C type "ctype" in
 * memory or in expressions (float4, uchar8, ...). */
static char *vector_type(struct c_emit *c, const char *ctype)
{
	static const struct { const char *c, *cl; } name[] = {
		{ "float", "float" }, { "double", "double" },
		{ "int32_t", "int" }, { "int8_t", "char" },
		{ "uint8_t", "uchar" }, { "int", "int" },
	};
	size_t i;

	for (i = 0; i < sizeof(name) / sizeof(name[0]); ++i)
		if (!strcmp(ctype, name[i].c))
			return fmt(c, "%s%d", name[i].cl, c->lanes);
	ein_internal(c->ctx, "no vector type of %s", ctype);
	return NULL;
}

/* "v", a value of the C type "ctype", in every lane of a vector (the
 * value itself outside a vector loop). */
static char *splat(struct c_emit *c, char *v, const char *ctype)
{
	char *ty;

	if (!c->lanes || !v)
		return v;
	ty = vector_type(c, ctype);
	return ty ? fmt(c, "((%s) (%s))", ty, v) : NULL;
}

/* The lanes of the elements from "elem" on (an lvalue of the statement's
 * text), or "elem" itself in every lane where the access stays on one
 * element ("stride" 0), of the C type "ctype" in memory; "elem" outside
 * a vector loop.  Where "elem" is "aligned" (access_aligned), a load of
 * the vector type through a pointer to it, which tells the device's
 * compiler the alignment; else vloadN, which needs only the element's. */
static char *load_lanes(struct c_emit *c, char *elem, int stride,
	const char *ctype, int aligned)
{
	char *ty;

	if (!c->lanes || !elem)
		return elem;
	if (stride == 0)
		return splat(c, elem, ctype);
	if (!aligned)
		return fmt(c, "vload%d(0, &%s)", c->lanes, elem);
	ty = vector_type(c, ctype);
	return ty ? fmt(c, "(*(__global const %s *) &%s)", ty, elem) : NULL;
}

/* Print the store of "v", of the C type "ctype" in memory, to "elem" (of
 * the lanes from there on in a vector loop: through a pointer to the
 * vector type where "elem" is "aligned", as load_lanes). */
static void store(struct c_emit *c, char *elem, char *v, const char *ctype,
	int aligned)
{
	char *ty = c->lanes && aligned ? vector_type(c, ctype) : NULL;

	if (ty)
		line(c, "*(__global %s *) &%s = %s;", ty, elem, v);
	else if (c->lanes)
		line(c, "vstore%d(%s, 0, &%s);", c->lanes, v, elem);
	else
		line(c, "%s = %s;", elem, v);
}

static char *lower(struct stmt_c *s, const struct ein_ast_expr *x);

/* The name of the extent variable of dimension "d" of tensor "t". */
static char *extent_name(struct c_emit *c, int t, int d)
{
	return fmt(c, "ext_%s_%d", ein_scop_tensor_name(c->scop, t), d);
}

/* The element of access "pos" of the statement: its tensor (or buffer)
 * at the row-major offset of its index expressions. */
static char *element(struct stmt_c *s, int pos)
{
	struct c_emit *c = s->c;
	int t = ein_scop_access_get_target(&s->us->stmt->access[pos]);
	int d, n = ein_scop_tensor_n_dim(c->scop, t);
	char *off = n == 0 ? "0" : NULL, *idx;

	for (d = 0; d < n; ++d) {
		idx = ein_walk_expr(c->em, s->us->index[pos][d]);
		if (!idx)
			return NULL;
		off = d == 0 ? idx : fmt(c, "(%s * %s + %s)", off,
			extent_name(c, t, d), idx);
		if (!off)
			return NULL;
	}
	return fmt(c, "%s[%s]", ein_scop_tensor_name(c->scop, t), off);
}

/* Is access "pos" of the statement, in a vector loop, aligned to a whole
 * vector at each of its iterations (ein_user_stmt_access_aligned) on a
 * tensor in __global memory?  A tensor's memory starts where a cl_mem
 * starts (kernel.c refuses kDLOpenCL tensors with a byte_offset, the
 * runtimes make a buffer per tensor), which OpenCL aligns for the
 * largest built-in type, long16 (128 bytes, as CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * requires of sub-buffers too), no smaller than any vector here.
 * Buffers in __local or private memory are aligned to their element
 * only. */
static int access_aligned(struct stmt_c *s, int pos)
{
	struct c_emit *c = s->c;
	int t = ein_scop_access_get_target(&s->us->stmt->access[pos]);

	return c->lang == EIN_C_LANG_OPENCL && c->lanes && c->vec_init &&
		t < c->scop->func->n_tensor &&
		ein_user_stmt_access_aligned(c->scop, s->us, pos, c->vec_iter,
			c->vec_init, c->lanes);
}

/* "v" (a C expression of type "from") converted to "to" as the LLVM
 * backend converts (llvm_stmt.c, convert). */
static char *convert(struct c_emit *c, char *v, enum ein_type from,
	enum ein_type to)
{
	if (!v || from == to)
		return v;
	if (to == EIN_TYPE_BOOL)
		return fmt(c, "(%s != 0)", v);
	if (ein_type_is_float(from) && !ein_type_is_float(to))
		return fmt(c, "ein_%s_from_double(%s)", value_ctype(to), v);
	return fmt(c, "((%s) %s)", value_ctype(to), v);
}

/* The value of "x" converted to "type".  In a vector loop, a size (the
 * same in every lane, of whatever type) is converted first, then put in
 * every lane: OpenCL C converts vectors only with convert_T. */
static char *lower_as(struct stmt_c *s, const struct ein_ast_expr *x,
	enum ein_type type)
{
	int lanes = s->c->lanes;
	char *v;

	if (!lanes || x->kind != EIN_EXPR_IDENT)
		return convert(s->c, lower(s, x), x->vtype, type);
	s->c->lanes = 0;
	v = convert(s->c, lower(s, x), x->vtype, type);
	s->c->lanes = lanes;
	return splat(s->c, v, value_ctype(type));
}

static char *lower_load(struct stmt_c *s, const struct ein_ast_expr *x)
{
	const struct ein_scop_access *a = ein_scop_stmt_find_access(
		s->us->stmt, x);
	char *v;
	int pos;

	if (!a) {
		ein_internal(s->c->ctx, "access to '%s' not in the model",
			x->name);
		return NULL;
	}
	pos = a - s->us->stmt->access;
	v = element(s, pos);
	if (s->c->lanes)
		return load_lanes(s->c, v, s->stride[pos],
			value_ctype(x->vtype),
			s->stride[pos] != 0 && access_aligned(s, pos));
	if (v && ein_scop_tensor_type(s->c->scop, a->tensor) == EIN_TYPE_BOOL)
		v = fmt(s->c, "(%s != 0)", v);
	return v;
}

/* An index (its iterator's value, truncated) or a size. */
static char *lower_ident(struct stmt_c *s, const struct ein_ast_expr *x)
{
	struct c_emit *c = s->c;
	char *v;

	if (x->ident_kind == EIN_IDENT_INDEX)
		v = ein_walk_expr(c->em, s->us->iter[x->slot]);
	else
		v = fmt(c, "%s", c->scop->func->size[x->slot]);
	return v ? fmt(c, "((%s) %s)", value_ctype(x->vtype), v) : NULL;
}

static char *scalar_literal(struct stmt_c *s, const struct ein_ast_expr *x);

/* A literal, in every lane in a vector loop. */
static char *lower_literal(struct stmt_c *s, const struct ein_ast_expr *x)
{
	return splat(s->c, scalar_literal(s, x), value_ctype(x->vtype));
}

static char *scalar_literal(struct stmt_c *s, const struct ein_ast_expr *x)
{
	double v = x->kind == EIN_EXPR_INT ? (double) x->ival : x->fval;

	if (x->vtype == EIN_TYPE_BOOL)
		return fmt(s->c, "%d", (int) (x->ival & 1));
	if (!ein_type_is_float(x->vtype))
		return fmt(s->c, "((%s) %lld)", value_ctype(x->vtype),
			(long long) x->ival);
	if (isinf(v))
		return fmt(s->c, "((%s) %sINFINITY)", value_ctype(x->vtype),
			v < 0 ? "-" : "");
	return fmt(s->c, "((%s) %.17g)", value_ctype(x->vtype), v);
}

/* A call of a builtin on integers: abs, min, max, clamp or qmul (the
 * last two by the prelude's functions). */
static char *int_call(struct c_emit *c, enum ein_builtin fn, char **a)
{
	if (fn == EIN_BUILTIN_ABS)
		return fmt(c, "ein_abs_i32(%s)", a[0]);
	if (fn == EIN_BUILTIN_QMUL)
		return fmt(c, "ein_qmul_i32(%s, %s, %s)", a[0], a[1], a[2]);
	if (fn == EIN_BUILTIN_CLAMP)
		return fmt(c, "ein_clamp_i32(%s, %s, %s)", a[0], a[1], a[2]);
	return fmt(c, "(%s %s %s ? %s : %s)", a[0],
		fn == EIN_BUILTIN_MIN ? "<" : ">", a[1], a[0], a[1]);
}

/* A call of a builtin in a floating-point type "t": the C library's, or
 * the expression the LLVM backend computes (rsqrt, sigmoid). */
static char *float_call(struct c_emit *c, enum ein_builtin fn,
	enum ein_type t, char **a)
{
	const char *f = libm_suffix_in(c->lang, t), *ty = value_ctype(t);

	switch (fn) {
	case EIN_BUILTIN_RSQRT:
		return fmt(c, "((%s) 1 / sqrt%s(%s))", ty, f, a[0]);
	case EIN_BUILTIN_SIGMOID:
		return fmt(c, "((%s) 1 / ((%s) 1 + exp%s(-%s)))", ty, ty, f,
			a[0]);
	case EIN_BUILTIN_ABS:
		return fmt(c, "fabs%s(%s)", f, a[0]);
	case EIN_BUILTIN_MIN:
		return fmt(c, "fmin%s(%s, %s)", f, a[0], a[1]);
	case EIN_BUILTIN_MAX:
		return fmt(c, "fmax%s(%s, %s)", f, a[0], a[1]);
	case EIN_BUILTIN_POW:
		return fmt(c, "pow%s(%s, %s)", f, a[0], a[1]);
	case EIN_BUILTIN_FMA:
		return fmt(c, "fma%s(%s, %s, %s)", f, a[0], a[1], a[2]);
	case EIN_BUILTIN_CLAMP:
		return fmt(c, "fmin%s(fmax%s(%s, %s), %s)", f, f, a[0], a[1],
			a[2]);
	default:
		return fmt(c, "%s%s(%s)", ein_builtin_name(fn), f, a[0]);
	}
}

static char *lower_call(struct stmt_c *s, const struct ein_ast_expr *x)
{
	char *a[3];
	int i;

	for (i = 0; i < x->n_arg && i < 3; ++i)
		if (!(a[i] = lower_as(s, x->args[i], x->vtype)))
			return NULL;
	if (!ein_type_is_float(x->vtype))
		return int_call(s->c, x->fn, a);
	return float_call(s->c, x->fn, x->vtype, a);
}

/* The int32 operation "op" on "l" and "r", wrapping as ein's do. */
static char *int_arith(struct c_emit *c, enum ein_op op, char *l, char *r)
{
	static const char *const name[] = {
		[EIN_OP_ADD] = "add", [EIN_OP_SUB] = "sub",
		[EIN_OP_MUL] = "mul", [EIN_OP_DIV] = "div",
		[EIN_OP_MOD] = "rem",
	};

	return fmt(c, "ein_%s_i32(%s, %s)", name[op], l, r);
}

static char *lower_arith(struct stmt_c *s, const struct ein_ast_expr *x)
{
	static const char *const op[] = {
		[EIN_OP_ADD] = "+", [EIN_OP_SUB] = "-", [EIN_OP_MUL] = "*",
		[EIN_OP_DIV] = "/",
	};
	char *l = lower_as(s, x->args[0], x->vtype);
	char *r = lower_as(s, x->args[1], x->vtype);

	if (!l || !r)
		return NULL;
	if (!ein_type_is_float(x->vtype))
		return int_arith(s->c, x->op, l, r);
	if (x->op == EIN_OP_MOD)
		return fmt(s->c, "fmod%s(%s, %s)", libm_suffix_in(s->c->lang,
			x->vtype), l, r);
	return fmt(s->c, "(%s %s %s)", l, op[x->op], r);
}

static char *lower_binary(struct stmt_c *s, const struct ein_ast_expr *x)
{
	static const char *const op[] = {
		[EIN_OP_LT] = "<", [EIN_OP_LE] = "<=", [EIN_OP_GT] = ">",
		[EIN_OP_GE] = ">=", [EIN_OP_EQ] = "==", [EIN_OP_NE] = "!=",
		[EIN_OP_AND] = "&&", [EIN_OP_OR] = "||",
	};
	enum ein_type t = EIN_TYPE_BOOL;
	char *l, *r;

	if (x->op < EIN_OP_LT)
		return lower_arith(s, x);
	if (x->op < EIN_OP_AND)
		t = ein_type_arith(x->args[0]->vtype, x->args[1]->vtype);
	l = lower_as(s, x->args[0], t);
	r = lower_as(s, x->args[1], t);
	return l && r ? fmt(s->c, "(%s %s %s)", l, op[x->op], r) : NULL;
}

/* c ? a : b, which evaluates only the branch taken, as a guarded access
 * needs. */
static char *lower_select(struct stmt_c *s, const struct ein_ast_expr *x)
{
	char *c = lower_as(s, x->args[0], EIN_TYPE_BOOL);
	char *a = lower_as(s, x->args[1], x->vtype);
	char *b = lower_as(s, x->args[2], x->vtype);

	return c && a && b ? fmt(s->c, "(%s ? %s : %s)", c, a, b) : NULL;
}

static char *lower_unary(struct stmt_c *s, const struct ein_ast_expr *x)
{
	char *v;

	if (x->op == EIN_OP_NOT) {
		v = lower_as(s, x->args[0], EIN_TYPE_BOOL);
		return v ? fmt(s->c, "(!%s)", v) : NULL;
	}
	v = lower_as(s, x->args[0], x->vtype);
	if (!v)
		return NULL;
	if (ein_type_is_float(x->vtype))
		return fmt(s->c, "(-%s)", v);
	return fmt(s->c, "ein_sub_i32(0, %s)", v);
}

/* The value of "x", of the C type of x->vtype. */
static char *lower(struct stmt_c *s, const struct ein_ast_expr *x)
{
	switch (x->kind) {
	case EIN_EXPR_INT:
	case EIN_EXPR_FLOAT:
		return lower_literal(s, x);
	case EIN_EXPR_IDENT:
		return lower_ident(s, x);
	case EIN_EXPR_ACCESS:
		return lower_load(s, x);
	case EIN_EXPR_UNARY:
		return lower_unary(s, x);
	case EIN_EXPR_BINARY:
		return lower_binary(s, x);
	case EIN_EXPR_SELECT:
		return lower_select(s, x);
	case EIN_EXPR_CALL:
		return lower_call(s, x);
	case EIN_EXPR_CAST:
		return lower_as(s, x->args[0], x->type);
	}
	return NULL;
}

/* The identity of reduction "op" in "type": the value a "!" statement
 * starts from. */
static char *identity(struct c_emit *c, enum ein_assign op,
	enum ein_type type)
{
	const char *ty = value_ctype(type);

	if (ein_type_is_float(type))
		return splat(c, fmt(c, "((%s) %s)", ty,
			op == EIN_ASSIGN_MUL ? "1" :
			op == EIN_ASSIGN_MAX ? "-INFINITY" :
			op == EIN_ASSIGN_MIN ? "INFINITY" : "0"), ty);
	return fmt(c, "((%s) %lld)", ty, (long long) (op == EIN_ASSIGN_MUL ?
		1 : op == EIN_ASSIGN_MAX ? ein_type_min(type) :
		op == EIN_ASSIGN_MIN ? ein_type_max(type) : 0));
}

/* old op v in the computation type "ct". */
static char *combine(struct c_emit *c, enum ein_assign op,
	enum ein_type ct, char *old, char *v)
{
	int fp = ein_type_is_float(ct);

	switch (op) {
	case EIN_ASSIGN_ADD:
		return fp ? fmt(c, "(%s + %s)", old, v) :
			int_arith(c, EIN_OP_ADD, old, v);
	case EIN_ASSIGN_MUL:
		return fp ? fmt(c, "(%s * %s)", old, v) :
			int_arith(c, EIN_OP_MUL, old, v);
	case EIN_ASSIGN_MAX:
		return fp ? fmt(c, "fmax%s(%s, %s)",
			libm_suffix_in(c->lang, ct), old, v) :
			fmt(c, "(%s > %s ? %s : %s)", old, v, old, v);
	default:
		return fp ? fmt(c, "fmin%s(%s, %s)",
			libm_suffix_in(c->lang, ct), old, v) :
			fmt(c, "(%s < %s ? %s : %s)", old, v, old, v);
	}
}

/* The vector of partial results of a reduction "op" of the element
 * "elem" of "type" along the explicit vector loop being printed
 * (vector_stmt admits one only without --strict-fp: the legality check
 * refuses a reduction along a vectorised loop with it): declared before
 * the loop, updated by the statement in each iteration, and its lanes
 * combined into the element after the loop, before the scalar loop of
 * the rest.  A sum or product starts from its identity in every lane
 * (-0.0 for a sum, which leaves every value as it is, -0.0 included); a
 * max or min from the element itself, since fmax (fmin) has no identity
 * that keeps a NaN element NaN when the loop is empty (fmax(NaN, -inf)
 * is -inf) and combining the element again changes nothing.  Its name;
 * NULL on error. */
static char *reduction_acc(struct c_emit *c, enum ein_assign op,
	enum ein_type type, char *elem)
{
	struct c_frame *f = &c->frame[c->n_frame - 1];
	const char *ty = value_ctype(type);
	char *name = fmt(c, "ein_red%d", c->n_red), *vty = vector_type(c, ty);
	char *h = NULL, *one = op == EIN_ASSIGN_MAX || op == EIN_ASSIGN_MIN ?
		elem : fmt(c, op == EIN_ASSIGN_ADD ? "(%s) -0.0" : "(%s) 1", ty);
	int l;

	if (f->n_red >= MAX_VECTOR_RED) {
		ein_internal(c->ctx, "too many reductions in a vector loop");
		return NULL;
	}
	for (l = 0; name && l < c->lanes; ++l) {
		char *lane = fmt(c, "%s.s%x", name, l);

		h = l ? combine(c, op, type, h, lane) : lane;
	}
	if (!name || !vty || !h || !one)
		return NULL;
	f->red[f->n_red].decl = fmt(c, "%s %s = ((%s) (%s));", vty, name,
		vty, one);
	f->red[f->n_red].fin = fmt(c, "%s = %s;", elem,
		combine(c, op, type, elem, h));
	if (!f->red[f->n_red].decl || !f->red[f->n_red].fin)
		return NULL;
	f->n_red++;
	c->n_red++;
	return name;
}

/* Print statement "s", a reduction "op" of "elem" of "type" along the
 * explicit vector loop being printed, into its vector of partial
 * results (reduction_acc). */
static int reduce_stmt(struct stmt_c *s, enum ein_assign op,
	enum ein_type type, char *elem)
{
	struct c_emit *c = s->c;
	char *acc = reduction_acc(c, op, type, elem);
	char *v = acc ? lower_as(s, s->us->stmt->rhs, type) : NULL;

	if (!v)
		return -1;
	line(c, "%s = %s;", acc, combine(c, op, type, acc, v));
	return 0;
}

/* The new value of the element "elem" of "type" that statement "s"
 * updates with "op": floats compute in their type, integers in int32,
 * and the result is converted to the type. */
static char *update(struct stmt_c *s, enum ein_assign op,
	enum ein_type type, char *elem, const struct ein_ast_expr *rhs)
{
	struct c_emit *c = s->c;
	enum ein_type ct = ein_type_is_float(type) ? type : EIN_TYPE_I32;
	char *old, *v;

	if (op == EIN_ASSIGN_SET)
		return lower_as(s, rhs, type);
	v = lower_as(s, rhs, ct);
	if (c->lanes)
		return v ? combine(c, op, ct, load_lanes(c, elem, 1,
			value_ctype(type), access_aligned(s, 0)), v) : NULL;
	old = type == EIN_TYPE_BOOL ? fmt(c, "(%s != 0)", elem) : elem;
	old = convert(c, old, type, ct);
	return v && old ? convert(c, combine(c, op, ct, old, v), ct, type) :
		NULL;
}

/* A copy between a tensor and a buffer: the element as it is in
 * memory. */
static int copy_stmt(struct stmt_c *s)
{
	char *from = element(s, 1), *to = element(s, 0);
	const char *ctype = memory_ctype(ein_scop_tensor_type(s->c->scop,
		ein_scop_access_get_target(&s->us->stmt->access[1])));

	if (s->c->lanes)
		from = load_lanes(s->c, from, s->stride[1], ctype,
			access_aligned(s, 1));
	if (!from || !to)
		return -1;
	store(s->c, to, from, ctype, access_aligned(s, 0));
	return 0;
}

/* The number of index variables of "us". */
static int n_iter(const struct ein_user_stmt *us)
{
	int n = 0;

	while (us->iter[n])
		++n;
	return n;
}

static int user_stmt(void *user, const struct ein_user_stmt *us)
{
	struct c_emit *c = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	const struct ein_ast_stmt *src = c->scop->func->stmt[stmt->src].ast;
	enum ein_type type = ein_scop_tensor_type(c->scop,
		stmt->access[0].tensor);
	int stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];
	struct stmt_c s = { c, us, NULL };
	char *elem, *v;

	if (stmt->kind == EIN_STMT_PREFETCH)
		return 0;
	if (c->lanes) {
		if (ein_user_stmt_strides(c->scop, us, c->vec_iter, stride,
				step) < 0)
			return -1;
		s.stride = stride;
	}
	if (stmt->kind != EIN_STMT_COMPUTE)
		return copy_stmt(&s);
	elem = element(&s, 0);
	if (!elem)
		return -1;
	if (c->lanes && stride[0] == 0 && !stmt->is_init)
		return reduce_stmt(&s, src->op, type, elem);
	v = stmt->is_init ? identity(c, src->op, type) :
		update(&s, src->op, type, elem, stmt->rhs);
	if (!v)
		return -1;
	store(c, elem, type == EIN_TYPE_BOOL ? fmt(c, "(uint8_t) %s", v) : v,
		memory_ctype(type), access_aligned(&s, 0));
	return 0;
}

/* Is "x" an expression that OpenCL C computes lane-wise on vectors of
 * "type" (float or double) as lower() prints it: every value of that
 * type (no conversion, comparison or select, whose vector forms differ:
 * a true comparison of vectors is -1), literals, sizes (of any type:
 * lower_as converts them before it puts them in every lane), loads, the
 * arithmetic operators and the builtins (OpenCL C's are overloaded on
 * vectors)?  Not an index variable, whose lanes differ (an access's
 * arguments are its indices: ein_user_stmt_strides has read them). */
static int vector_expr(const struct ein_ast_expr *x, enum ein_type type)
{
	int i, ok;

	switch (x->kind) {
	case EIN_EXPR_IDENT:
		return x->ident_kind != EIN_IDENT_INDEX;
	case EIN_EXPR_UNARY:
		ok = x->op == EIN_OP_NEG;
		break;
	case EIN_EXPR_BINARY:
		ok = x->op < EIN_OP_LT;
		break;
	case EIN_EXPR_SELECT:
		ok = 0;
		break;
	case EIN_EXPR_ACCESS:
		return x->vtype == type;
	default:
		ok = 1;
	}
	for (i = 0; ok && i < x->n_arg; ++i)
		ok = vector_expr(x->args[i], type);
	return ok && x->vtype == type;
}

/* Is "stmt", whose write moves by "stride" along a vector loop, a
 * reduction (sum, product, max or min) of one element along it, which
 * reduction_acc computes in a vector of partial results?  (Its values
 * must also be float or double, which vector_stmt checks for every
 * computation.) */
static int vector_reduction(struct c_emit *c, const struct ein_scop_stmt *stmt,
	int stride)
{
	enum ein_assign op = c->scop->func->stmt[stmt->src].ast->op;

	return stride == 0 && stmt->kind == EIN_STMT_COMPUTE &&
		!stmt->is_init && op != EIN_ASSIGN_SET;
}

/* May statement "us", in a vector loop over "iter" of "width" lanes, be
 * printed in OpenCL C's vector types (walk.h, vector_stmt)?  A copy or a
 * computation whose accesses are unguarded and each contiguous along
 * the loop or on one element, whose write is contiguous or, for a
 * reduction along the loop (vector_reduction), on one element,
 * and, for a computation, of float or double values only (vector_expr).
 * The schedule's legality check has shown that the loop carries no
 * dependence but such reductions. */
static int vector_stmt(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int width)
{
	struct c_emit *c = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	int i, stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];
	enum ein_type type;

	(void) width;
	if (stmt->kind == EIN_STMT_PREFETCH ||
	    ein_user_stmt_strides(c->scop, us, iter, stride, step) < 0)
		return 0;
	for (i = 0; i < stmt->n_access; ++i)
		if (stmt->access[i].guard || stride[i] < 0 ||
		    (stmt->access[i].is_write && stride[i] != 1 &&
		     !vector_reduction(c, stmt, stride[i])))
			return 0;
	if (stmt->kind != EIN_STMT_COMPUTE)
		return 1;
	type = ein_scop_tensor_type(c->scop, stmt->access[0].tensor);
	return ein_type_is_float(type) &&
		(stmt->is_init || vector_expr(stmt->rhs, type));
}

/* ---- the function ---- */

/* Print the prototype: tensors (inputs const), then free sizes, as
 * cheader.c declares them. */
static void print_prototype(struct c_emit *c)
{
	const struct ein_func *func = c->scop->func;
	int i, n = 0;

	fprintf(c->out, "int %s(", func->def->name);
	for (i = 0; i < func->n_tensor; ++i) {
		const struct ein_tensor *t = &func->tensor[i];

		if (t->role == EIN_ROLE_TEMP)
			continue;
		fprintf(c->out, "%s%s%s *restrict %s", n++ ? ", " : "",
			t->role == EIN_ROLE_INPUT ? "const " : "",
			memory_ctype(t->type), t->name);
	}
	for (i = 0; i < func->n_size; ++i)
		if (!c->spec->fixed[i])
			fprintf(c->out, "%sint64_t %s", n++ ? ", " : "",
				func->size[i]);
	fprintf(c->out, "%s)\n{\n", n ? "" : "void");
}

/* Print "if (cond) return code;". */
static void returns(struct c_emit *c, const char *cond, const char *code)
{
	line(c, "if (%s)", cond);
	c->depth++;
	line(c, "return %s;", code);
	c->depth--;
}

/* The fixed sizes as constants, and the checks of the pointers and of
 * the other sizes (wrap.h), where the fixed ones do not settle them. */
static int print_checks(struct c_emit *c)
{
	const struct ein_func *func = c->scop->func;
	isl_set *valid = isl_set_copy(c->spec->valid);
	isl_set *fixed = isl_set_universe(isl_set_get_space(valid));
	isl_ast_build *build;
	char *cond = NULL;
	int i, n = 0;

	for (i = 0; i < func->n_size; ++i)
		if (c->spec->fixed[i]) {
			line(c, "const int64_t %s = %lld;", func->size[i],
				(long long) c->spec->value[i]);
			fixed = ein_specialize_fix(fixed, isl_dim_param, i,
				c->spec->value[i]);
		}
	for (i = 0; i < func->n_tensor; ++i)
		if (func->tensor[i].role != EIN_ROLE_TEMP) {
			cond = fmt(c, "%s%s!%s", n ? cond : "",
				n ? " || " : "", func->tensor[i].name);
			n++;
		}
	if (n)
		returns(c, cond, "EIN_AOT_ERROR_NULL");
	valid = isl_set_gist_params(valid, isl_set_copy(fixed));
	if (isl_set_plain_is_universe(valid) == isl_bool_true) {
		isl_set_free(valid);
		isl_set_free(fixed);
		return 0;
	}
	build = isl_ast_build_from_context(fixed);
	cond = walk_expr(c, isl_ast_build_expr_from_set(build, valid));
	isl_ast_build_free(build);
	if (!cond)
		return -1;
	returns(c, fmt(c, "!%s", cond), "EIN_AOT_ERROR_SIZE");
	return 0;
}

static int is_local(struct c_emit *c, int t);

/* The extents of the tensors and buffers as constants: those that
 * row-major offsets use (all but the first, of the tensors some
 * statement accesses), and all of those the function allocates.  A
 * temporary that a compute_at schedule replaced by a buffer (the
 * automatic softmax's) is not accessed: its extents would be unused
 * variables, which -Wall -Werror refuses. */
static int print_extents(struct c_emit *c)
{
	int t, d;

	for (t = 0; t < ein_scop_n_tensor(c->scop); ++t)
		for (d = 0; d < ein_scop_tensor_n_dim(c->scop, t); ++d) {
			char *v;

			if (!is_local(c, t) && (d == 0 ||
			    !ein_scop_tensor_is_accessed(c->scop, t)))
				continue;
			v = walk_expr(c, ein_ast_build_extent(c->scop,
				ein_scop_tensor_extent(c->scop, t, d)));
			if (!v)
				return -1;
			line(c, "const int64_t %s = %s;", extent_name(c, t, d),
				v);
		}
	return 0;
}

/* Is tensor "t" stored by the function itself: a temporary stored in
 * full, or a buffer? */
static int is_local(struct c_emit *c, int t)
{
	if (ein_scop_get_buffer(c->scop, t))
		return 1;
	return c->scop->func->tensor[t].role == EIN_ROLE_TEMP &&
		ein_scop_tensor_is_accessed(c->scop, t);
}

/* Allocate the temporaries and buffers on the heap (they may be larger
 * than a stack), or free them ("free"). */
static void print_locals(struct c_emit *c, int release)
{
	int t, d;

	for (t = 0; t < ein_scop_n_tensor(c->scop); ++t) {
		const char *name = ein_scop_tensor_name(c->scop, t);
		char *bytes;

		if (!is_local(c, t))
			continue;
		if (release) {
			line(c, "free(%s);", name);
			continue;
		}
		bytes = fmt(c, "sizeof(%s)", memory_ctype(
			ein_scop_tensor_type(c->scop, t)));
		for (d = 0; bytes && d < ein_scop_tensor_n_dim(c->scop, t); ++d)
			bytes = fmt(c, "%s * %s", bytes, extent_name(c, t, d));
		line(c, "%s *%s = malloc(%s);", memory_ctype(
			ein_scop_tensor_type(c->scop, t)), name, bytes);
	}
}

static int print_function(struct c_emit *c, __isl_keep isl_ast_node *tree)
{
	print_prototype(c);
	c->depth = 1;
	if (print_checks(c) < 0 || print_extents(c) < 0)
		return -1;
	print_locals(c, 0);
	if (ein_walk_node(c->em, tree) < 0)
		return -1;
	print_locals(c, 1);
	line(c, "return EIN_AOT_OK;");
	c->depth = 0;
	line(c, "}\n");
	return 0;
}

/* Free what "c" holds, the buffers of loops left open by an error
 * included. */
static void c_emit_clear(struct c_emit *c)
{
	int i;

	for (i = c->n_frame - 1; i >= 0; --i) {
		fclose(c->out);
		free(c->frame[i].text);
		c->out = c->frame[i].out;
	}
	for (i = 0; i < c->n_pool; ++i)
		free(c->pool[i]);
	free(c->pool);
}

/* Is "name" that of a loop iterator of isl's AST ("c0", "c1", ...)?  A
 * tensor or size of that name would be hidden inside the loop. */
static int iterator_name(const char *name)
{
	return name[0] == 'c' && name[1] &&
		strspn(name + 1, "0123456789") == strlen(name + 1);
}

/* The first tensor or size of "scop" with the name of a loop iterator,
 * NULL if none. */
static const char *hidden_name(const struct ein_scop *scop)
{
	int i;

	for (i = 0; i < ein_scop_n_tensor(scop); ++i)
		if (iterator_name(ein_scop_tensor_name(scop, i)))
			return ein_scop_tensor_name(scop, i);
	for (i = 0; i < scop->func->n_size; ++i)
		if (iterator_name(scop->func->size[i]))
			return scop->func->size[i];
	return NULL;
}

/* Is a tensor of "spec" embedded as a constant? */
static int has_const(const struct ein_wrap_spec *spec)
{
	int i;

	for (i = 0; i < spec->func->n_tensor; ++i)
		if (spec->konst && spec->konst[i])
			return 1;
	return 0;
}

int ein_emit_c(ein_ctx *ctx, FILE *out, const struct ein_wrap_spec *spec,
	struct ein_scop *scop, __isl_keep isl_ast_node *tree)
{
	struct c_emit c = { .ctx = ctx, .scop = scop, .spec = spec,
		.out = out };
	struct ein_emitter em = { .user = &c, .expr_int = &expr_int,
		.expr_id = &expr_id, .expr_op = &expr_op,
		.for_open = &for_open, .for_test = &for_test,
		.for_close = &for_close, .if_open = &if_open,
		.if_else = &if_else, .if_close = &if_close,
		.user_stmt = &user_stmt };
	int ok;

	if (has_const(spec)) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "definition '%s': C "
			"text cannot embed constant tensors (--const)",
			spec->func->def->name);
		return -1;
	}
	if (hidden_name(scop)) {
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "definition '%s': C "
			"text cannot name a tensor or size '%s', as its loop "
			"iterators are named", spec->func->def->name,
			hidden_name(scop));
		return -1;
	}
	c.em = &em;
	ok = print_function(&c, tree);
	c_emit_clear(&c);
	if (ok < 0 && ein_diag_n_error(ctx) == 0)
		ein_internal(ctx, "C code generation failed");
	return ok;
}

void ein_emit_c_prelude(FILE *out)
{
	fprintf(out, "/* Generated by ein %s (ein compile --emit=c). */\n"
		"#include <math.h>\n#include <stdint.h>\n"
		"#include <stdlib.h>\n\n",
		ein_version());
	fputs("#ifndef EIN_AOT_OK\n"
		"#define EIN_AOT_OK 0\t\t/* the kernel ran */\n"
		"#define EIN_AOT_ERROR_NULL 2\t/* a tensor pointer is NULL */\n"
		"#define EIN_AOT_ERROR_SIZE 3\t/* the sizes are not valid */\n"
		"#endif\n\n", out);
	ein_emit_c_helpers(out);
}

void ein_emit_c_helpers(FILE *out)
{
	fputs("/* Index arithmetic (isl's floord, min, max). */\n"
		"static inline int64_t ein_floord(int64_t a, int64_t b)\n"
		"{\n\treturn a / b - (a % b < 0);\n}\n"
		"static inline int64_t ein_min64(int64_t a, int64_t b)\n"
		"{\n\treturn a < b ? a : b;\n}\n"
		"static inline int64_t ein_max64(int64_t a, int64_t b)\n"
		"{\n\treturn a > b ? a : b;\n}\n\n", out);
	fputs("/* int32 arithmetic wraps; a division by zero gives 0, and\n"
		" * INT32_MIN / -1 wraps to INT32_MIN (docs/language.md). */\n"
		"static inline int32_t ein_add_i32(int32_t a, int32_t b)\n"
		"{\n\treturn (int32_t) ((uint32_t) a + (uint32_t) b);\n}\n"
		"static inline int32_t ein_sub_i32(int32_t a, int32_t b)\n"
		"{\n\treturn (int32_t) ((uint32_t) a - (uint32_t) b);\n}\n"
		"static inline int32_t ein_mul_i32(int32_t a, int32_t b)\n"
		"{\n\treturn (int32_t) ((uint32_t) a * (uint32_t) b);\n}\n"
		"static inline int32_t ein_div_i32(int32_t a, int32_t b)\n"
		"{\n\treturn b == 0 ? 0 : b == -1 ? ein_sub_i32(0, a) : "
		"a / b;\n}\n"
		"static inline int32_t ein_rem_i32(int32_t a, int32_t b)\n"
		"{\n\treturn b == 0 || b == -1 ? 0 : a % b;\n}\n"
		"static inline int32_t ein_abs_i32(int32_t a)\n"
		"{\n\tint32_t n = ein_sub_i32(0, a);\n\n"
		"\treturn a > n ? a : n;\n}\n"
		"static inline int32_t ein_clamp_i32(int32_t a, int32_t lo, "
		"int32_t hi)\n"
		"{\n\ta = a > lo ? a : lo;\n\treturn a < hi ? a : hi;\n}\n"
		"/* x * m / 2^s rounded, ties away from zero, saturated. */\n"
		"static inline int32_t ein_qmul_i32(int32_t x, int32_t m, "
		"int32_t s)\n"
		"{\n\tint64_t p = (int64_t) x * m, r;\n"
		"\tuint64_t u = p < 0 ? 0 - (uint64_t) p : (uint64_t) p;\n"
		"\tint sh = s < 0 ? 0 : s > 63 ? 63 : s;\n\n"
		"\tu = (u + (((uint64_t) 1 << sh) >> 1)) >> sh;\n"
		"\tr = p < 0 ? -(int64_t) u : (int64_t) u;\n"
		"\treturn r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? "
		"INT32_MAX : (int32_t) r;\n}\n\n", out);
	fputs("/* Float to integer conversions saturate; NaN gives 0. */\n"
		"#define EIN_FROM_DOUBLE(T, LO, HI) \\\n"
		"static inline T ein_##T##_from_double(double v) \\\n"
		"{ \\\n"
		"\treturn v != v ? 0 : v <= LO ? LO : v >= HI ? HI : "
		"(T) v; \\\n"
		"}\n"
		"EIN_FROM_DOUBLE(int32_t, INT32_MIN, INT32_MAX)\n"
		"EIN_FROM_DOUBLE(int8_t, INT8_MIN, INT8_MAX)\n"
		"EIN_FROM_DOUBLE(uint8_t, 0, UINT8_MAX)\n\n", out);
}

/* ---- the printer as a layer for other dialects (emit_c.h) ---- */

struct ein_c_printer {
	struct c_emit c;
	struct ein_emitter em;
};

/* The offset "off" of a mapped loop's first iteration, in steps of the
 * loop "node": off itself for a step of 1, else off times the step.  A
 * loop that isl strides (the copy of a strided footprint, a loop over
 * the even elements) then gives each work-item the iterations start +
 * (item + k * items) * step, those it would have run, rather than start
 * + item + k * items * step, which are off the loop's lattice for every
 * item but the first (wrong elements copied, issue 20). */
static const char *scaled_offset(struct c_emit *c,
	__isl_keep isl_ast_node *node, const char *off)
{
	isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
	isl_val *v = inc && isl_ast_expr_get_type(inc) == isl_ast_expr_int ?
		isl_ast_expr_get_val(inc) : NULL;
	int one = v && isl_val_is_one(v);
	char *step;

	isl_val_free(v);
	if (one || !off) {
		isl_ast_expr_free(inc);
		return off;
	}
	step = walk_expr(c, inc);
	return step ? fmt(c, "%s * (%s)", off, step) : NULL;
}

/* A loop of the AST that runs in each work-item: a vectorised loop in
 * the vector loops' form (vector_loop.h: explicit vectors of OpenCL C's
 * vector types where its statements take them, whole or with a scalar
 * tail), any other as isl wrote it. */
static int unmapped_for(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, const struct ein_loop_attr *attr)
{
	struct c_emit *c = e->user;
	isl_ast_expr *outer = c->vec_init;
	int ok;

	if (!attr || attr->vector <= 1)
		return ein_walk_for(e, node, attr);
	c->vec_init = isl_ast_node_for_get_init(node);
	ok = ein_vector_loop(e, node, attr);
	isl_ast_expr_free(c->vec_init);
	c->vec_init = outer;
	return ok;
}

/* A loop of the AST, mapped across a device by the backend's loop map
 * (ein_c_loop_map): from its start plus the offset (times its step,
 * scaled_offset), by its step times the stride; a fenced one from its
 * start plus the opaque zero, by its step times one plus it; else as isl
 * wrote it. */
static int mapped_for(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, const struct ein_loop_attr *attr)
{
	struct c_emit *c = e->user;
	const char *off = NULL, *stride = NULL;
	isl_ast_expr *it;
	isl_id *iter;
	char *init;
	int ok;

	if (c->map->fenced && c->map->fenced(c->map->user, node, attr)) {
		c->next_fenced = 1;
		off = c->map->opaque_zero;
		stride = off ? fmt(c, "(1 + %s)", off) : NULL;
	}
	if (!off && (!attr || !c->map->map(c->map->user, attr, &off,
			&stride)))
		return unmapped_for(e, node, attr);
	init = walk_expr(c, isl_ast_node_for_get_init(node));
	off = scaled_offset(c, node, off);
	init = init && off ? fmt(c, "(%s + %s)", init, off) : NULL;
	it = isl_ast_node_for_get_iterator(node);
	iter = isl_ast_expr_get_id(it);
	isl_ast_expr_free(it);
	c->next_stride = stride;
	ok = iter && init ? ein_walk_loop(e, node, iter, init, attr,
		isl_ast_node_for_get_cond(node),
		isl_ast_node_for_get_inc(node)) : -1;
	isl_id_free(iter);
	return ok;
}

/* A mark of a mapped loop that isl did not generate (it runs once): its
 * body under the map's guard, which picks the work-items that run it;
 * fenced as a loop of a cooperative copy is. */
static int lone_mark(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr)
{
	struct c_emit *c = e->user;
	const char *cond = c->map->guard ? c->map->guard(c->map->user, attr) :
		NULL;
	int copy = attr->gpu_copy && c->map->fence, ok;

	if (copy && c->n_copy++ == 0)
		fence(c);
	ok = cond ? if_open(c, (ein_value) cond) : 0;
	if (ok == 0)
		ok = ein_walk_mark_child(e, node);
	if (ok == 0 && cond)
		ok = if_close(c);
	if (copy && --c->n_copy == 0 && ok == 0)
		fence(c);
	return ok;
}

struct ein_c_printer *ein_c_printer_alloc(ein_ctx *ctx, FILE *out,
	struct ein_scop *scop, enum ein_c_lang lang,
	const struct ein_c_loop_map *map)
{
	struct ein_c_printer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->c.ctx = ctx;
	p->c.scop = scop;
	p->c.out = out;
	p->c.lang = lang;
	p->c.map = map;
	p->c.em = &p->em;
	p->em = (struct ein_emitter) { .user = &p->c, .expr_int = &expr_int,
		.expr_id = &expr_id, .expr_op = &expr_op,
		.for_open = &for_open, .for_test = &for_test,
		.for_close = &for_close, .if_open = &if_open,
		.if_else = &if_else, .if_close = &if_close,
		.user_stmt = &user_stmt,
		.vector_stmt = lang == EIN_C_LANG_OPENCL ? &vector_stmt : NULL,
		.scop = scop,
		.for_loop = map ? &mapped_for : NULL,
		.lone_mark = map ? &lone_mark : NULL,
		.scalar_tails = 1 };
	return p;
}

void ein_c_printer_free(struct ein_c_printer *p)
{
	if (!p)
		return;
	c_emit_clear(&p->c);
	free(p);
}

void ein_c_printer_set_depth(struct ein_c_printer *p, int depth)
{
	p->c.depth = depth;
}

int ein_c_printer_extents(struct ein_c_printer *p)
{
	return print_extents(&p->c);
}

int ein_c_printer_node(struct ein_c_printer *p, __isl_keep isl_ast_node *node)
{
	return ein_walk_node(&p->em, node);
}

int ein_c_check_names(ein_ctx *ctx, const struct ein_scop *scop)
{
	if (!hidden_name(scop))
		return 0;
	ein_error(ctx, EIN_ERROR_UNSUPPORTED, "definition '%s': C text "
		"cannot name a tensor or size '%s', as its loop iterators are "
		"named", scop->func->def->name, hidden_name(scop));
	return -1;
}
