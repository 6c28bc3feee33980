/*
 * dot4.c: four-term dot products of uint8 by int8 (dot4.h).
 *
 * The matcher is split in two because its users measure offsets
 * differently: the scheduler compares the subscripts as written, the
 * backend asks the polyhedral model for the difference of two accesses.
 * Both then share the test that the offsets are 0..3 once each.
 */
#include "poly/dot4.h"

/* "x" without a conversion to int32 around it.  Only that conversion:
 * a conversion to another type (uint8 to int8, say) changes the value
 * that vpdpbusd would read. */
static const struct ein_ast_expr *strip_cast(const struct ein_ast_expr *x)
{
	if (x->kind == EIN_EXPR_CAST && x->type == EIN_TYPE_I32)
		return x->args[0];
	return x;
}

/* Collect the products of the int32 sum "x" after the "n" found so far
 * into "d"; the number found, or 5 if "x" is not such a sum of at most
 * four. */
static int products(const struct ein_ast_expr *x, struct ein_dot4 *d, int n)
{
	const struct ein_ast_expr *a, *b, *t;

	if (n > 4 || x->vtype != EIN_TYPE_I32 || x->kind != EIN_EXPR_BINARY)
		return 5;
	if (x->op == EIN_OP_ADD)
		return products(x->args[1], d, products(x->args[0], d, n));
	if (x->op != EIN_OP_MUL || n == 4)
		return 5;
	a = strip_cast(x->args[0]);
	b = strip_cast(x->args[1]);
	if (a->vtype == EIN_TYPE_I8 && b->vtype == EIN_TYPE_U8) {
		t = a;
		a = b;
		b = t;
	}
	if (a->kind != EIN_EXPR_ACCESS || b->kind != EIN_EXPR_ACCESS ||
	    a->vtype != EIN_TYPE_U8 || b->vtype != EIN_TYPE_I8 ||
	    a->n_arg < 1 || b->n_arg < 2)
		return 5;
	d->u[n] = a;
	d->s[n] = b;
	return n + 1;
}

int ein_dot4_match(const struct ein_ast_expr *e, struct ein_dot4 *d)
{
	return products(e, d, 0) == 4;
}

int ein_dot4_order(struct ein_dot4 *d, const long du[4], const long ds[4])
{
	struct ein_dot4 o;
	long lo = 0;
	int q, seen = 0;

	for (q = 0; q < 4; ++q) {
		if (du[q] != ds[q])
			return 0;
		lo = du[q] < lo ? du[q] : lo;
	}
	for (q = 0; q < 4; ++q) {
		long at = du[q] - lo;

		if (at > 3 || (seen & (1 << at)))
			return 0;
		seen |= 1 << at;
		o.u[at] = d->u[q];
		o.s[at] = d->s[q];
	}
	*d = o;
	return 1;
}
