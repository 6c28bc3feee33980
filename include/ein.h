/*
 * ein.h: the public C API of libein, a tensor compiler for operators written
 * in Einstein notation.
 *
 * The life of a kernel is parse -> compile -> call:
 *
 *     ein_ctx *ctx = ein_ctx_alloc();
 *     ein_program *prog = ein_program_read_file(ctx, "matmul.ein");
 *     ein_kernel *k = ein_kernel_compile(prog, "matmul");
 *     int64_t sizes[] = { M, K, N };          // in ein_kernel_get_size_name order
 *     DLTensor *args[] = { &A, &B, &C };      // inputs, then outputs
 *     if (ein_kernel_call(k, args, 3, sizes, 3) != EIN_OK)
 *         fprintf(stderr, "%s\n", ein_ctx_last_error(ctx));
 *     ein_kernel_free(k);
 *     ein_program_free(prog);
 *     ein_ctx_free(ctx);
 *
 * Conventions (those of the LLVM C API and isl):
 *  - every handle is opaque; each *_alloc / *_compile / *_parse has its *_free;
 *  - a function that fails returns NULL or a status other than EIN_OK and
 *    records a message that ein_ctx_last_error() returns; nothing ever calls
 *    exit() or abort() on bad input;
 *  - a program and the kernels compiled from it keep a reference to their
 *    context: free them before the context;
 *  - a context, and everything made from it, is used by one thread at a time,
 *    except ein_kernel_call, which may run concurrently on one kernel (its
 *    error message is then that of one of the failing calls).
 */
#ifndef EIN_H
#define EIN_H

#include <stddef.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes.  The numbers are stable. */
typedef enum ein_status {
	EIN_OK = 0,
	/* The source text is malformed or meaningless (file:line:col messages). */
	EIN_ERROR_SOURCE = 1,
	/* An argument to an API function is invalid (NULL, unknown name, ...). */
	EIN_ERROR_INVALID = 2,
	/* Tensors or sizes given to ein_kernel_call do not match the kernel. */
	EIN_ERROR_SHAPE = 3,
	/* A file could not be read or written. */
	EIN_ERROR_IO = 4,
	/* The request is valid but not supported by this version. */
	EIN_ERROR_UNSUPPORTED = 5,
	/* Out of memory. */
	EIN_ERROR_NOMEM = 6,
	/* A bug in ein: please report the message. */
	EIN_ERROR_INTERNAL = 7
} ein_status;

/* What ein_program_show prints. */
typedef enum ein_stage {
	/* The parsed source, printed back in canonical form. */
	EIN_STAGE_SOURCE = 0,
	/* The polyhedral model: domains, accesses and the schedule tree. */
	EIN_STAGE_DOMAINS = 1,
	/* The loop nest isl's AST generator builds from the schedule. */
	EIN_STAGE_AST = 2,
	/* LLVM IR before optimisation. */
	EIN_STAGE_LLVM_UNOPT = 3,
	/* LLVM IR after the O3 pipeline for the host CPU. */
	EIN_STAGE_LLVM = 4
} ein_stage;

typedef struct ein_ctx ein_ctx;
typedef struct ein_program ein_program;
typedef struct ein_kernel ein_kernel;

/* Allocate a context.  Returns NULL only when out of memory. */
ein_ctx *ein_ctx_alloc(void);
/* Free a context.  Programs and kernels made from it must be freed first. */
void ein_ctx_free(ein_ctx *ctx);
/* The messages of the last failing call, "" if none.  Owned by ctx, valid
 * until the next call on ctx. */
const char *ein_ctx_last_error(const ein_ctx *ctx);
/* The status of the last failing call, EIN_OK if none. */
ein_status ein_ctx_last_status(const ein_ctx *ctx);

/* Parse and check source text.  "filename" is used in messages only and may
 * be NULL.  Returns NULL on error, with every error found in the text in
 * ein_ctx_last_error(). */
ein_program *ein_program_parse(ein_ctx *ctx, const char *source,
	const char *filename);
/* Read, parse and check a .ein file. */
ein_program *ein_program_read_file(ein_ctx *ctx, const char *path);
void ein_program_free(ein_program *prog);

/* The definitions in a program, in source order. */
int ein_program_n_def(const ein_program *prog);
const char *ein_program_get_def_name(const ein_program *prog, int pos);

/* Print an intermediate form of definition "def" (NULL: the first one) as a
 * string the caller frees with free().  Returns NULL on error. */
char *ein_program_show(ein_program *prog, const char *def, ein_stage stage);

/* Compile definition "def" (NULL: the first one) to native code for the host
 * CPU with the default schedule.  Returns NULL on error. */
ein_kernel *ein_kernel_compile(ein_program *prog, const char *def);
void ein_kernel_free(ein_kernel *kernel);

/* The kernel's signature.  Tensors are numbered inputs first, then outputs,
 * in the order of the definition; sizes are the size symbols in order of
 * first appearance in the parameter list. */
int ein_kernel_n_tensor(const ein_kernel *kernel);
const char *ein_kernel_get_tensor_name(const ein_kernel *kernel, int pos);
/* 1 if tensor "pos" is an output, 0 if an input, -1 if pos is out of range. */
int ein_kernel_tensor_is_output(const ein_kernel *kernel, int pos);
/* The number of dimensions of tensor "pos", -1 if pos is out of range. */
int ein_kernel_tensor_ndim(const ein_kernel *kernel, int pos);
/* The DLPack element type of tensor "pos" in *dtype: float32 and float64
 * are kDLFloat, int32 and int8 kDLInt, uint8 kDLUInt, and bool one byte
 * per element, kDLUInt with 8 bits (kDLBool is accepted too).  Returns
 * EIN_ERROR_INVALID if pos is out of range. */
ein_status ein_kernel_tensor_dtype(const ein_kernel *kernel, int pos,
	DLDataType *dtype);
int ein_kernel_n_size(const ein_kernel *kernel);
const char *ein_kernel_get_size_name(const ein_kernel *kernel, int pos);

/* Compute the shape of tensor "pos" for the given size values into
 * shape[0 .. ndim-1].  Returns EIN_ERROR_SHAPE if the sizes are invalid. */
ein_status ein_kernel_tensor_shape(ein_kernel *kernel, int pos,
	const int64_t *sizes, int n_size, int64_t *shape);

/* Run the kernel.  "tensors" holds n_tensor pointers in signature order;
 * each must be a dense row-major (strides NULL or compact) tensor on the CPU
 * of the declared element type whose shape agrees with "sizes".  Outputs are
 * overwritten.  Returns EIN_ERROR_SHAPE (never crashes) on any mismatch. */
ein_status ein_kernel_call(ein_kernel *kernel, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size);

/* The number of floating-point operations one call performs at "sizes"
 * (arithmetic operations, function calls and reduction steps, counted on
 * the source), for reporting GFLOP/s.  Returns -1 on error. */
double ein_kernel_flops(ein_kernel *kernel, const int64_t *sizes,
	int n_size);

/* Run the reference interpreter instead of the compiled code, with the
 * same arguments and checks as ein_kernel_call: plain loops in the source's
 * order, every value a double, rounded to the element type when stored.
 * Slow; meant for checking results. */
ein_status ein_kernel_call_reference(ein_kernel *kernel,
	DLTensor *const *tensors, int n_tensor, const int64_t *sizes,
	int n_size);

/* The version of libein as "MAJOR.MINOR.PATCH". */
const char *ein_version(void);

#ifdef __cplusplus
}
#endif

#endif
