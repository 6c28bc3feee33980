/*
 * dataflow.h: reads of temporaries before they are written, and elements
 * of outputs never written.
 */
#ifndef EIN_FRONTEND_DATAFLOW_H
#define EIN_FRONTEND_DATAFLOW_H

#include "ein.h"
#include "frontend/sema.h"

/* Check that every element of a temporary that a statement of "func"
 * reads (within the guard of the read) was written before: by an earlier
 * statement, by the "!" initialisation of the same statement, or by an
 * earlier instance of it.  "func" must have its domains (range.h).
 * Also check that the statements assigning each output that "func" does
 * not read (in an expression, or by an update without "!") write every
 * element of its shape, for all sizes.
 * Returns -1 after reporting each read that may see an unwritten
 * element and each output with unwritten elements (the set of them), with
 * an example. */
int ein_dataflow_check(ein_ctx *ctx, const struct ein_func *func);

#endif
