/*
 * dataflow.h: reads of temporaries before they are written.
 */
#ifndef EIN_FRONTEND_DATAFLOW_H
#define EIN_FRONTEND_DATAFLOW_H

#include "ein.h"
#include "frontend/sema.h"

/* Check that every element of a temporary that a statement of "func"
 * reads (within the guard of the read) was written before: by an earlier
 * statement, by the "!" initialisation of the same statement, or by an
 * earlier instance of it.  "func" must have its domains (range.h).
 * Returns -1 after reporting each read that may see an unwritten
 * element, with an example. */
int ein_dataflow_check(ein_ctx *ctx, const struct ein_func *func);

#endif
