/*
 * dot4.h: four-term dot products of uint8 by int8, the pattern that
 * VNNI's vpdpbusd computes in one instruction:
 *
 *	C(..) += U(.., u0) * S(.., s0) + U(.., u0 + 1) * S(.., s0 + 1)
 *		+ U(.., u0 + 2) * S(.., s0 + 2) + U(.., u0 + 3) * S(.., s0 + 3)
 *
 * One matcher for the two places that recognise it: the automatic
 * scheduler's convolution rule (sched/auto.c, on the definition's
 * expressions) and the LLVM backend's lowering (codegen/llvm_dot4.c, on
 * a scop statement, whose accesses it then checks in the polyhedral
 * model).  It knows expressions only, no LLVM and no schedule.
 */
#ifndef EIN_POLY_DOT4_H
#define EIN_POLY_DOT4_H

#include "frontend/ast.h"

/* The products of a four-term dot product: u[q] the uint8 access and
 * s[q] the int8 access of product q, in the order written until
 * ein_dot4_order sorts them by offset. */
struct ein_dot4 {
	const struct ein_ast_expr *u[4];
	const struct ein_ast_expr *s[4];
};

/* Is the int32 expression "e" a sum of exactly four products of a uint8
 * access by an int8 access (either first, each under a conversion to
 * int32 or not, the uint8 access with at least one subscript and the int8
 * one with at least two)?  Fills "d" if so. */
int ein_dot4_match(const struct ein_ast_expr *e, struct ein_dot4 *d);

/* Given the offsets du[q] and ds[q] of the last subscripts of d->u[q]
 * and d->s[q] from those of d->u[0] and d->s[0], which the caller
 * computed in its own way, do the four products read four consecutive
 * elements, at the same offsets in the uint8 and the int8 access (0..3
 * from the lowest, each once)?  If so, orders "d" by that offset and
 * returns 1; 0 otherwise, "d" untouched. */
int ein_dot4_order(struct ein_dot4 *d, const long du[4], const long ds[4]);

#endif
