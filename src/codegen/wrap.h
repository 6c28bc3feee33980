/*
 * wrap.h: the C function of a kernel compiled ahead of time.
 *
 * The emitter (emit_llvm.h) makes "void NAME(T *t0, ..., int64_t s0, ...)",
 * which trusts its arguments.  A kernel in an object file is called by
 * code ein never sees, so it gets a checked wrapper with the C signature
 * the header (cheader.h) declares:
 *
 *	int NAME(const T *in0, ..., T *out0, ..., int64_t s0, ...)
 *
 * one pointer per input and output that is not embedded as a constant,
 * then the sizes that are not fixed.  It returns EIN_AOT_ERROR_NULL (2)
 * if a pointer is NULL, EIN_AOT_ERROR_SIZE (3) if the sizes are not valid
 * (wrap_valid_sizes), and 0 after running the kernel.
 */
#ifndef EIN_CODEGEN_WRAP_H
#define EIN_CODEGEN_WRAP_H

#include <stdint.h>
#include <isl/set.h>
#include <llvm-c/Core.h>
#include "ein.h"
#include "frontend/sema.h"

/* The return codes of wrappers (stable: the headers document them). */
enum {
	EIN_WRAP_OK = 0,
	EIN_WRAP_ERROR_NULL = 2,
	EIN_WRAP_ERROR_SIZE = 3
};

/* How one definition is compiled ahead of time.
 * func: the checked definition (not owned);
 * fixed: for each size, 1 if the kernel is specialised to value[i];
 * value: the values of the fixed sizes;
 * konst: for each tensor, the name of the global holding its data when it
 *	is embedded as a constant (not owned), else NULL;
 * const_bytes: for each tensor in a global, its size in bytes;
 * valid: the size values the kernel accepts, a parameter set (owned);
 * queue: 1 for a kernel that takes an OpenCL queue first and returns an
 *	int32 status (opencl/aot.h): NAME passes it NULL and returns its
 *	status, and a second wrapper NAME_cl takes the queue (and cl_mem
 *	buffers for the tensors) first. */
struct ein_wrap_spec {
	const struct ein_func *func;
	int *fixed;
	int64_t *value;
	const char **konst;
	int64_t *const_bytes;
	isl_set *valid;
	int queue;
};

/* The size values for which every tensor of "func" has a shape: each size
 * at least 1, and each extent defined and at least 1 (a convolution's
 * output needs its input to be at least as large as its filter).  NULL on
 * error. */
__isl_give isl_set *ein_wrap_valid_sizes(ein_ctx *ctx,
	const struct ein_func *func);

/* The size values of "func" in "valid" (kept) with size i equal to
 * value[i] wherever value[i] > 0 (a fixed size): a parameter set of
 * valid's space with those sizes fixed, or NULL after an EIN_ERROR_SHAPE
 * error on ctx if they give a tensor no shape (or on error). */
__isl_give isl_set *ein_wrap_fix_sizes(ein_ctx *ctx,
	const struct ein_func *func, __isl_keep isl_set *valid,
	const int64_t *value);

/* The sizes of "func" that "opts" (NULL: none) fix (ein_options_fix_size)
 * into fixed[0 .. n_size - 1] (0 where not fixed) and, if any, as a
 * parameter set in *sizes (ein_wrap_fix_sizes; NULL if none is fixed).
 * Returns -1 on error. */
int ein_wrap_options_sizes(ein_ctx *ctx, const struct ein_func *func,
	const ein_options *opts, int64_t *fixed, __isl_give isl_set **sizes);

/* Turn the kernel of "spec->func" in module "m" (as ein_emit_llvm made it)
 * into an internal function called by the checked wrapper, which takes its
 * name, and drop its JIT entry point.  Constant tensors are read from the
 * globals named in spec->konst, declared here as external arrays of bytes
 * until the caller gives them their data (after optimisation, so that the
 * optimiser never looks at it).  Returns -1 after an internal error. */
int ein_wrap_kernel(ein_ctx *ctx, LLVMModuleRef m,
	const struct ein_wrap_spec *spec);

#endif
