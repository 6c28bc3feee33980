/*
 * type.c: the element types' rules and the type checker.
 *
 * Pre: an ein_func from sema, names resolved.
 * Post: every node of every right-hand side has its vtype; every tensor
 *	has a type; no statement stores a value into a tensor that cannot
 *	hold it (docs/language.md, "Types").
 *
 * Types are found bottom-up.  A literal, or an expression of literals
 * only, is "weak": once the operation using it knows its type, a weak
 * float operand takes that float type (so that 0.1 in a float64
 * expression is the float64 0.1) and an integer literal combined with a
 * float becomes a literal of that float type.  A store accepts a value
 * whose type widens to the tensor's, an integer literal that the tensor's
 * type represents, and a conditional whose branches it accepts.
 */
#include <math.h>
#include <string.h>
#include "diag.h"
#include "frontend/type.h"

/* The state of the checker.
 * ctx, func: where errors go and what is checked;
 * deflt: the type of untyped tensors assigned only literals (that of the
 *	definition's first tensor, float32 if it has none). */
struct checker {
	ein_ctx *ctx;
	struct ein_func *func;
	enum ein_type deflt;
};

int ein_type_size(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_F32:
	case EIN_TYPE_I32: return 4;
	default: return 1;
	}
}

int ein_type_is_float(enum ein_type type)
{
	return type == EIN_TYPE_F32 || type == EIN_TYPE_F64;
}

int ein_type_is_integer(enum ein_type type)
{
	return type == EIN_TYPE_I32 || type == EIN_TYPE_I8 ||
		type == EIN_TYPE_U8 || type == EIN_TYPE_BOOL;
}

enum ein_type ein_type_arith(enum ein_type a, enum ein_type b)
{
	if (a == EIN_TYPE_NONE || b == EIN_TYPE_NONE)
		return EIN_TYPE_NONE;
	if (a == EIN_TYPE_F64 || b == EIN_TYPE_F64)
		return EIN_TYPE_F64;
	if (a == EIN_TYPE_F32 || b == EIN_TYPE_F32)
		return EIN_TYPE_F32;
	return EIN_TYPE_I32;
}

int ein_type_widens(enum ein_type from, enum ein_type to)
{
	if (from == to || to == EIN_TYPE_F64)
		return 1;
	switch (to) {
	case EIN_TYPE_F32:
		return from != EIN_TYPE_F64;
	case EIN_TYPE_I32:
		return ein_type_is_integer(from);
	case EIN_TYPE_I8:
	case EIN_TYPE_U8:
		return from == EIN_TYPE_BOOL;
	default:
		return 0;
	}
}

int64_t ein_type_min(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_I32: return INT32_MIN;
	case EIN_TYPE_I8: return INT8_MIN;
	default: return 0;
	}
}

int64_t ein_type_max(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_I32: return INT32_MAX;
	case EIN_TYPE_I8: return INT8_MAX;
	case EIN_TYPE_U8: return UINT8_MAX;
	default: return 1;
	}
}

int64_t ein_type_wrap(enum ein_type type, int64_t v)
{
	switch (type) {
	case EIN_TYPE_I32: return (int32_t) (uint32_t) v;
	case EIN_TYPE_I8: return (int8_t) (uint8_t) v;
	case EIN_TYPE_U8: return (uint8_t) v;
	default: return v != 0;
	}
}

int64_t ein_type_from_double(enum ein_type type, double v)
{
	if (type == EIN_TYPE_BOOL)
		return v != 0;
	if (isnan(v))
		return 0;
	if (v <= (double) ein_type_min(type))
		return ein_type_min(type);
	if (v >= (double) ein_type_max(type))
		return ein_type_max(type);
	return (int64_t) v;
}

/* Is "x" made of literals only? */
static int is_weak(const struct ein_ast_expr *x)
{
	switch (x->kind) {
	case EIN_EXPR_INT:
	case EIN_EXPR_FLOAT:
		return 1;
	case EIN_EXPR_UNARY:
		return x->op == EIN_OP_NEG && is_weak(x->args[0]);
	case EIN_EXPR_BINARY:
		return x->vtype != EIN_TYPE_BOOL && is_weak(x->args[0]) &&
			is_weak(x->args[1]);
	case EIN_EXPR_SELECT:
		return is_weak(x->args[1]) && is_weak(x->args[2]);
	default:
		return 0;
	}
}

/* Let "x", an operand of an operation computing in "type", take that
 * type if it is a literal or a weak float expression and "type" is a
 * float type. */
static void adapt(struct ein_ast_expr *x, enum ein_type type)
{
	int i;

	if (!ein_type_is_float(type))
		return;
	if (x->kind == EIN_EXPR_INT) {
		x->vtype = type;
		return;
	}
	if (!ein_type_is_float(x->vtype) || !is_weak(x))
		return;
	x->vtype = type;
	for (i = x->kind == EIN_EXPR_SELECT ? 1 : 0; i < x->n_arg; ++i)
		adapt(x->args[i], type);
}

/* Is "x" an integer or floating literal zero, possibly negated? */
static int is_zero_literal(const struct ein_ast_expr *x)
{
	if (x->kind == EIN_EXPR_UNARY && x->op == EIN_OP_NEG)
		return is_zero_literal(x->args[0]);
	return (x->kind == EIN_EXPR_INT && x->ival == 0) ||
		(x->kind == EIN_EXPR_FLOAT && x->fval == 0);
}

static void check_expr(struct checker *c, struct ein_ast_expr *x);

/* The type of an access: that of its tensor, which must be known by now. */
static enum ein_type access_type(struct checker *c,
	const struct ein_ast_expr *x)
{
	const struct ein_tensor *t;

	if (x->slot < 0)
		return EIN_TYPE_NONE;
	t = &c->func->tensor[x->slot];
	if (t->type != EIN_TYPE_NONE)
		return t->type;
	if (t->role == EIN_ROLE_TEMP) {
		ein_error_at(c->ctx, x->loc, "temporary '%s' is read before "
			"any statement writes it", t->name);
	} else {
		ein_error_at(c->ctx, x->loc, "output '%s' is read before any "
			"statement assigns it, so its type is unknown",
			t->name);
		ein_hint(c->ctx, "declare its type and shape, as in "
			"float32(N) %s", t->name);
	}
	return EIN_TYPE_NONE;
}

static void check_binary(struct checker *c, struct ein_ast_expr *x)
{
	enum ein_type t;

	check_expr(c, x->args[0]);
	check_expr(c, x->args[1]);
	if ((x->op == EIN_OP_DIV || x->op == EIN_OP_MOD) &&
	    is_zero_literal(x->args[1]))
		ein_error_at(c->ctx, x->op_loc, "%s by zero",
			x->op == EIN_OP_DIV ? "division" : "remainder");
	if (x->op == EIN_OP_AND || x->op == EIN_OP_OR) {
		x->vtype = EIN_TYPE_BOOL;
		return;
	}
	t = ein_type_arith(x->args[0]->vtype, x->args[1]->vtype);
	adapt(x->args[0], t);
	adapt(x->args[1], t);
	x->vtype = x->op >= EIN_OP_LT ? EIN_TYPE_BOOL : t;
}

/* A function on integers (qmul) computes in int32; a float argument
 * is an error, which the hint answers with the cast to write. */
static enum ein_type check_int_call(struct checker *c,
	const struct ein_ast_expr *x, enum ein_type t)
{
	if (t == EIN_TYPE_NONE || !ein_type_is_float(t))
		return t == EIN_TYPE_NONE ? t : EIN_TYPE_I32;
	ein_error_at(c->ctx, x->loc, "%s takes integer arguments, not %s",
		x->name, ein_type_name(t));
	ein_hint(c->ctx, "convert with int32(...), which truncates");
	return EIN_TYPE_NONE;
}

/* exp, log, ... compute in a float type; abs, min, max and clamp in the
 * arithmetic type of their arguments; qmul in int32 (the table's type
 * rule). */
static void check_call(struct checker *c, struct ein_ast_expr *x)
{
	enum ein_type t = EIN_TYPE_BOOL;
	int i;

	for (i = 0; i < x->n_arg; ++i) {
		check_expr(c, x->args[i]);
		t = ein_type_arith(t, x->args[i]->vtype);
	}
	if (t != EIN_TYPE_NONE && !ein_type_is_float(t) &&
	    ein_builtin_get(x->fn)->type_rule == EIN_BUILTIN_FLOAT)
		t = EIN_TYPE_F32;
	if (ein_builtin_get(x->fn)->type_rule == EIN_BUILTIN_INT)
		t = check_int_call(c, x, t);
	for (i = 0; i < x->n_arg; ++i)
		adapt(x->args[i], t);
	x->vtype = t;
}

/* A conditional has the type of its branches if they agree, else their
 * arithmetic type. */
static void check_select(struct checker *c, struct ein_ast_expr *x)
{
	enum ein_type a, b, t;

	check_expr(c, x->args[0]);
	check_expr(c, x->args[1]);
	check_expr(c, x->args[2]);
	a = x->args[1]->vtype;
	b = x->args[2]->vtype;
	t = a == b ? a : ein_type_arith(a, b);
	adapt(x->args[1], t);
	adapt(x->args[2], t);
	x->vtype = t;
}

/* Give "x" and its operands their types; the indices of accesses are
 * integer index expressions, not values, and are left alone. */
static void check_expr(struct checker *c, struct ein_ast_expr *x)
{
	switch (x->kind) {
	case EIN_EXPR_INT:
	case EIN_EXPR_IDENT:
		x->vtype = EIN_TYPE_I32;
		break;
	case EIN_EXPR_FLOAT:
		x->vtype = EIN_TYPE_F32;
		break;
	case EIN_EXPR_ACCESS:
		x->vtype = access_type(c, x);
		break;
	case EIN_EXPR_UNARY:
		check_expr(c, x->args[0]);
		x->vtype = x->op == EIN_OP_NOT ? EIN_TYPE_BOOL :
			ein_type_arith(x->args[0]->vtype, x->args[0]->vtype);
		adapt(x->args[0], x->vtype);
		break;
	case EIN_EXPR_BINARY:
		check_binary(c, x);
		break;
	case EIN_EXPR_SELECT:
		check_select(c, x);
		break;
	case EIN_EXPR_CALL:
		check_call(c, x);
		break;
	case EIN_EXPR_CAST:
		check_expr(c, x->args[0]);
		x->vtype = x->type;
		adapt(x->args[0], x->type);
		break;
	}
}

/* The value of "x" if it is an integer literal, possibly negated. */
static int int_literal(const struct ein_ast_expr *x, int64_t *v)
{
	if (x->kind == EIN_EXPR_UNARY && x->op == EIN_OP_NEG &&
	    int_literal(x->args[0], v)) {
		*v = -*v;
		return 1;
	}
	if (x->kind != EIN_EXPR_INT)
		return 0;
	*v = x->ival;
	return 1;
}

/* May the value of "x" be stored into a tensor of type "type"? */
static int fits(const struct ein_ast_expr *x, enum ein_type type)
{
	int64_t v;

	if (x->vtype == EIN_TYPE_NONE || ein_type_widens(x->vtype, type))
		return 1;
	if (int_literal(x, &v))
		return ein_type_is_float(type) ||
			(v >= ein_type_min(type) && v <= ein_type_max(type));
	if (x->kind == EIN_EXPR_SELECT)
		return fits(x->args[1], type) && fits(x->args[2], type);
	return 0;
}

/* The type an untyped tensor takes from its first statement "s": that of
 * the value, promoted for "+=" and "*=" (so that a count of bools or a sum
 * of bytes is an int32), or the default for literals. */
static enum ein_type first_type(struct checker *c,
	const struct ein_ast_stmt *s)
{
	enum ein_type t = s->rhs->vtype;

	if (is_weak(s->rhs) && fits(s->rhs, c->deflt))
		return c->deflt;
	if (s->op == EIN_ASSIGN_ADD || s->op == EIN_ASSIGN_MUL)
		return ein_type_arith(t, t);
	return t;
}

static void check_store(struct checker *c, struct ein_tensor *t,
	const struct ein_ast_stmt *s)
{
	if (t->type == EIN_TYPE_NONE)
		t->type = first_type(c, s);
	if (t->type == EIN_TYPE_NONE)
		return;
	if (t->type == EIN_TYPE_BOOL &&
	    (s->op == EIN_ASSIGN_ADD || s->op == EIN_ASSIGN_MUL)) {
		ein_error_at(c->ctx, s->op_loc, "'%s' cannot accumulate into "
			"bool tensor '%s'", ein_assign_name(s->op, s->init),
			t->name);
		ein_hint(c->ctx, "bool tensors reduce with max= (or) and "
			"min= (and); declare an int32 tensor to count");
		return;
	}
	if (!fits(s->rhs, t->type)) {
		ein_error_at(c->ctx, s->rhs->loc, "cannot convert %s to %s "
			"implicitly in the assignment to '%s'",
			ein_type_name(s->rhs->vtype), ein_type_name(t->type),
			t->name);
		ein_hint(c->ctx, "write %s(...) to convert explicitly",
			ein_type_name(t->type));
		return;
	}
	adapt(s->rhs, t->type);
}

int ein_type_check(ein_ctx *ctx, struct ein_func *func)
{
	struct checker c = { ctx, func, EIN_TYPE_F32 };
	int n_error = ein_diag_n_error(ctx), i;

	if (func->n_tensor > 0 && func->tensor[0].type != EIN_TYPE_NONE)
		c.deflt = func->tensor[0].type;
	for (i = 0; i < func->n_stmt; ++i) {
		const struct ein_ast_stmt *s = func->stmt[i].ast;

		check_expr(&c, s->rhs);
		if (s->lhs->slot >= 0)
			check_store(&c, &func->tensor[s->lhs->slot], s);
	}
	return ein_diag_n_error(ctx) == n_error ? 0 : -1;
}
