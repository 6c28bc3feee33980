/*
 * type.h: the element types' rules and the type checker.
 *
 * Every expression of a right-hand side has a type (docs/language.md,
 * "Types"): arithmetic computes in ein_type_arith of its operands,
 * comparisons and logical operators give bool, literals adapt to the float
 * type they are combined with, and a value is stored only into a tensor
 * whose type holds it without narrowing.  The checker writes each node's
 * type into its vtype field, which the interpreter and the code generator
 * then follow.
 */
#ifndef EIN_FRONTEND_TYPE_H
#define EIN_FRONTEND_TYPE_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"

int ein_type_is_float(enum ein_type type);
/* The bytes of an element of "type" in memory (bool: 1). */
int ein_type_size(enum ein_type type);
/* int32, int8, uint8 and bool: the types whose values are integers. */
int ein_type_is_integer(enum ein_type type);

/* The type in which arithmetic on a value of type "a" and one of type "b"
 * computes: float64 if either is, else float32 if either is, else int32
 * (int8, uint8 and bool promote as in C).  EIN_TYPE_NONE if either is
 * unknown. */
enum ein_type ein_type_arith(enum ein_type a, enum ein_type b);

/* Does every value of type "from" convert to "to" without narrowing? */
int ein_type_widens(enum ein_type from, enum ein_type to);

/* The smallest and largest values of integer type "type". */
int64_t ein_type_min(enum ein_type type);
int64_t ein_type_max(enum ein_type type);
/* "v" wrapped to integer type "type" (two's complement; bool: v != 0). */
int64_t ein_type_wrap(enum ein_type type, int64_t v);
/* "v" converted to integer type "type": truncated towards zero and
 * saturated to the type's range, NaN giving 0 (bool: v != 0). */
int64_t ein_type_from_double(enum ein_type type, double v);

/* Check the types of every statement of "func", in source order, and give
 * each output or temporary declared without a type the type of the first
 * statement assigning it.  Returns -1 after reporting every error. */
int ein_type_check(ein_ctx *ctx, struct ein_func *func);

#endif
