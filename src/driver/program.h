/*
 * program.h: the internal side of ein_program, for the kernels made from it.
 */
#ifndef EIN_DRIVER_PROGRAM_H
#define EIN_DRIVER_PROGRAM_H

#include "ein.h"
#include "frontend/sema.h"

/* Another reference to "prog" (kernels keep their program alive). */
ein_program *ein_program_copy(ein_program *prog);
/* The checked definition "name" (NULL: the first), NULL after reporting
 * an error if there is none. */
const struct ein_func *ein_program_get_func(ein_program *prog,
	const char *name);
ein_ctx *ein_program_get_ctx(const ein_program *prog);

#endif
