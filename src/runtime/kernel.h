/*
 * kernel.h: what the library's own layers ask of ein_kernel beyond
 * ein.h.
 */
#ifndef EIN_RUNTIME_KERNEL_H
#define EIN_RUNTIME_KERNEL_H

#include "ein.h"

/* Compile definition "def" of "prog" with "opts", as
 * ein_kernel_compile_with does, unless it can share the code of "like"
 * (NULL: none), a kernel compiled with the same "opts": when "def" is
 * like's definition modulo names (frontend/canon.h) and neither has a
 * schedule file (both have the automatic or the default schedule, a
 * function of the definition alone), the new kernel takes a reference to
 * like's code, with no scheduling or code generation at all, and keeps
 * its own signature (its tensors' names), a reference to "prog", and the
 * reason "the code of LIKE".  Does the result share like's code:
 * ein_kernel_shares_code. */
ein_kernel *ein_kernel_compile_like(ein_program *prog, const char *def,
	const ein_options *opts, const ein_kernel *like);
/* Do "a" and "b" run the same compiled code? */
int ein_kernel_shares_code(const ein_kernel *a, const ein_kernel *b);

#endif
