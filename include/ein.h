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
 *  - strings a function returns as const are owned by the object it was
 *    given and valid as long as that object; strings returned as char *
 *    are the caller's, to free with free();
 *  - *_free functions accept NULL and do nothing with it;
 *  - thread-safety: a context, and everything made from it, is used by one
 *    thread at a time, except that ein_kernel_call,
 *    ein_kernel_call_reference, ein_kernel_tensor_shape, ein_kernel_flops
 *    and ein_kernel_ops may run concurrently from any number of threads, on
 *    one kernel or on several kernels of one context (each of them
 *    replaces the context's message with its own, so the message of
 *    ein_ctx_last_error is then that of whichever call ran last, valid
 *    until the next call, and a failing call's message is only reliable
 *    when no other call runs; each call's own status is exact).  Two
 *    contexts share nothing and may be used by two threads at once.
 *
 * Compile cache: each context keeps the code it compiled, keyed by the
 * source text, the definition, the schedule file's contents, the target,
 * strict floating point and the sizes set in the options.  A second
 * ein_kernel_compile of the same key on the same context, even from
 * another program parsed from the same text and after the first kernel
 * was freed, returns a new kernel sharing the compiled code without
 * running the compiler again.  Any change of the key compiles anew (even a
 * comment in the source or in the schedule file); a failed compile is not
 * cached.  The context keeps the 64 entries used last; the code of older
 * ones lives as long as a kernel uses it, and everything goes with
 * ein_ctx_free.  The cache is per context: two contexts never share
 * code.  It is used under the context's one-thread-at-a-time rule, like
 * every compile.
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
	EIN_ERROR_INTERNAL = 7,
	/* The compile ran past its budget (ein_options_set_compile_timeout). */
	EIN_ERROR_BUDGET = 8,
	/* an OpenCL device failed: no OpenCL platform or device, the
	 * device could not build the kernels (its compiler's log is in the
	 * message), or a launch or copy failed */
	EIN_ERROR_DEVICE = 9
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
	EIN_STAGE_LLVM = 4,
	/* The exact dependences the schedule must respect. */
	EIN_STAGE_DEPS = 5,
	/* The schedule: each statement's named loops, then the isl schedule
	 * tree, after the schedule file's directives. */
	EIN_STAGE_SCHEDULE = 6,
	/* Assembly for the host CPU. */
	EIN_STAGE_ASM = 7,
	/* C source of the kernel (as ein_aot_write's EIN_AOT_C). */
	EIN_STAGE_C = 8,
	/* OpenCL C of the kernels (the options' target must be OpenCL). */
	EIN_STAGE_OPENCL = 9
} ein_stage;

typedef struct ein_ctx ein_ctx;
typedef struct ein_program ein_program;
typedef struct ein_kernel ein_kernel;
typedef struct ein_options ein_options;

/* Allocate a context (with its isl context, diagnostics and compile
 * cache), owned by the caller.  Returns NULL only when out of memory. */
ein_ctx *ein_ctx_alloc(void);
/* Free a context and its compile cache.  Programs, kernels and ein_aot
 * made from it must be freed first. */
void ein_ctx_free(ein_ctx *ctx);
/* The messages of the last failing call, "" if none (never NULL).  Owned
 * by ctx, valid until the next call on ctx.  Every message is a complete
 * "file:line:col: error: ..." report, with the source line and a caret
 * where the error has a position. */
const char *ein_ctx_last_error(const ein_ctx *ctx);
/* The status of the last failing call, EIN_OK if none. */
ein_status ein_ctx_last_status(const ein_ctx *ctx);

/* Parse and check source text (copied: the caller keeps "source").
 * "filename" is used in messages only and may be NULL.  Returns a program
 * owned by the caller, or NULL on error: EIN_ERROR_SOURCE with every error
 * found in the text in ein_ctx_last_error(), EIN_ERROR_INVALID if ctx or
 * source is NULL. */
ein_program *ein_program_parse(ein_ctx *ctx, const char *source,
	const char *filename);
/* Read, parse and check a .ein file, as ein_program_parse; EIN_ERROR_IO if
 * it cannot be read. */
ein_program *ein_program_read_file(ein_ctx *ctx, const char *path);
/* Drop the caller's reference to "prog".  Kernels and ein_aot made from it
 * keep what they need, so it may be freed before them. */
void ein_program_free(ein_program *prog);

/* The number of definitions in a program (-1 if prog is NULL), and the
 * name of definition "pos" in source order (owned by prog; NULL if pos is
 * out of range). */
int ein_program_n_def(const ein_program *prog);
const char *ein_program_get_def_name(const ein_program *prog, int pos);
/* The number of sizes of definition "def" (NULL: the first one), -1 if
 * there is no such definition, and the name of size "pos" in the order
 * of ein_kernel_get_size_name (owned by prog; NULL if pos is out of
 * range): known right after parsing, so that a caller can check sizes
 * before compiling (scheduling a large definition takes seconds). */
int ein_program_n_size(const ein_program *prog, const char *def);
const char *ein_program_get_size_name(const ein_program *prog,
	const char *def, int pos);

/* Print an intermediate form of definition "def" (NULL: the first one) as a
 * string the caller frees with free().  Returns NULL on error. */
char *ein_program_show(ein_program *prog, const char *def, ein_stage stage);
/* ein_program_show with the schedule and options of "opts" (NULL: the
 * defaults). */
char *ein_program_show_with(ein_program *prog, const char *def,
	ein_stage stage, const ein_options *opts);

/* Compile definition "def" (NULL: the first one) to native code for the host
 * CPU, with the schedule found by lookup (see ein_options) or else the
 * default schedule, or take the code from the context's compile cache
 * (see above).  Returns a kernel owned by the caller, or NULL on error:
 * EIN_ERROR_INVALID for an unknown definition, EIN_ERROR_SOURCE or
 * EIN_ERROR_IO for a bad or unreadable schedule, EIN_ERROR_INTERNAL if
 * LLVM fails. */
ein_kernel *ein_kernel_compile(ein_program *prog, const char *def);
/* Free a kernel.  Its code stays in the compile cache for later compiles.
 * No call of the kernel may be in progress. */
void ein_kernel_free(ein_kernel *kernel);

/* Compilation options.  A NULL ein_options means the defaults: schedule
 * lookup on, no sizes, floating-point reductions may be reordered.
 * Options are plain data: they may be freed once the compile returns, and
 * used by several threads at once if none changes them. */
/* Allocate default options, owned by the caller (NULL when out of
 * memory), and free them.  The setters return EIN_ERROR_INVALID when opts
 * is NULL and EIN_ERROR_NOMEM when out of memory. */
ein_options *ein_options_alloc(void);
void ein_options_free(ein_options *opts);
/* Use the schedule file "path" (NULL: none given; look it up).  A schedule
 * that cannot be read, is malformed or is illegal for the definition makes
 * the compile fail with EIN_ERROR_SOURCE and the file's line and column. */
ein_status ein_options_set_schedule(ein_options *opts, const char *path);
/* Look schedules up as schedules/<target>/<def>.sched along the directories
 * of EIN_SCHEDULE_PATH, then the installed data directory, when no file is
 * given (1, the default) or never (0: the default schedule). */
ein_status ein_options_set_schedule_lookup(ein_options *opts, int enable);
/* When lookup finds no schedule file, use the automatic schedule (1, the
 * default): one written by rules from the definition's statements, their
 * dependences and the host's vector width, checked as a file is
 * (docs/schedules.md, "The automatic schedule"); or the default schedule
 * (0, the command line's --no-auto).  An explicit file, or lookup off,
 * never uses it. */
ein_status ein_options_set_auto(ein_options *opts, int enable);
/* Compile for "target": "cpu" (the default: this machine's CPU; also
 * "host"), a named CPU target that this machine can run ("x86_64",
 * "x86_64-avx2", "x86_64-avx512", as ein_aot_set_target names them: the
 * kernels get that target's schedules, automatic schedule, vectors and
 * instructions, and compiling fails with EIN_ERROR_INVALID where this
 * CPU lacks one of its features or is of another architecture), or
 * "opencl" (an OpenCL device: the one EIN_OPENCL_DEVICE=P:D names, else
 * the first GPU, else the first device) or "opencl:P:D" (device D of
 * platform P, from 0).  Kernels compiled for OpenCL run on the device:
 * ein_kernel_call copies the host tensors in and the outputs back
 * (docs/opencl.md).  Without a schedule file given explicitly, OpenCL
 * kernels use the default GPU mapping.  EIN_ERROR_INVALID for another
 * name. */
ein_status ein_options_set_target(ein_options *opts, const char *target);
/* Time the OpenCL kernels of every call of kernels compiled with these
 * options by the device's profiling events (1), or not (0, the default):
 * the device's queue is made with CL_QUEUE_PROFILING_ENABLE, and
 * ein_kernel_get_device_seconds gives the last call's kernel time.  The
 * queue is shared by the kernels of one ein context and device and made
 * at the first kernel compiled for it: compile that one with profiling
 * (a later kernel that asks for it gets -1).  EIN_ERROR_INVALID for a
 * NULL opts. */
ein_status ein_options_set_opencl_profiling(ein_options *opts, int enable);
/* The OpenCL platforms and devices, one a line: "platform P: NAME", then
 * "  opencl:P:D  NAME (TYPE)  CLASS" for each device, CLASS its target
 * class (opencl-pocl, opencl-nvidia, opencl-amd, opencl-intel or
 * opencl-generic), as a string the caller frees; "" when there is none,
 * NULL when ein has no OpenCL or is out of memory. */
char *ein_opencl_devices(void);
/* Let the automatic schedule choose among its rules' candidates (a
 * contraction's register tile and reduction slice) by the cost model
 * compiled into ein, at the sizes set (1, the default; docs/tuning.md,
 * "The cost model"), or take the rules' first legal candidate (0, the
 * command line's --no-cost-model).  Deterministic either way. */
ein_status ein_options_set_cost_model(ein_options *opts, int enable);
/* The size values the kernel will be called with, used to choose among
 * schedules tuned for different sizes.  Returns EIN_ERROR_INVALID if
 * value < 1. */
ein_status ein_options_set_size(ein_options *opts, const char *name,
	int64_t value);
/* As ein_options_set_size, and specialise the kernel to the value: its
 * loops see a constant (as ein_aot_fix_size does), and calling it with
 * another value of the size fails with EIN_ERROR_SHAPE.  Sizes the
 * definition does not have are ignored; values that give a tensor no
 * shape make the compile fail with EIN_ERROR_SHAPE.  Returns
 * EIN_ERROR_INVALID if value < 1. */
ein_status ein_options_fix_size(ein_options *opts, const char *name,
	int64_t value);
/* Keep floating-point results bit-identical to the source order: no
 * schedule may reorder or vectorise a floating-point reduction, a * b + c
 * is rounded twice, and exp and erf are the C library's (0, the default:
 * reductions may be reordered, a * b + c may be one fused multiply-add,
 * and float32 exp and erf are inline approximations within 1 and 6 units
 * in the last place, docs/language.md). */
ein_status ein_options_set_strict_fp(ein_options *opts, int strict);
/* Give each compile a budget of "seconds" (0: no limit; 300, the default,
 * when not set or for NULL options).  isl's work is stopped once it has
 * done about that many seconds' worth of operations (a count, so the same
 * compile fails or succeeds on every run), and the wall clock is checked
 * between passes; a compile over its budget fails with EIN_ERROR_BUDGET
 * ("compilation exceeded its budget").  LLVM's passes are not
 * interrupted: the caps on unroll and vector factors (docs/schedules.md)
 * bound their input.  Returns EIN_ERROR_INVALID if seconds < 0 or is not
 * a number. */
ein_status ein_options_set_compile_timeout(ein_options *opts,
	double seconds);
/* A function told of the progress of a long compile: "done" of "total"
 * steps are behind, and the next is "what" (for ein_model_load: before
 * each fused kernel is compiled, its name; then once with done ==
 * total and what NULL).  It must not use the model being loaded. */
typedef void (*ein_progress_fn)(void *user, int done, int total,
	const char *what);
/* Call "fn" (NULL: nothing) with "user" as the compiles under "opts"
 * progress (the command line's --progress prints "[k/n] compiling
 * kernel NAME" on stderr with it). */
ein_status ein_options_set_progress(ein_options *opts, ein_progress_fn fn,
	void *user);
/* The progress function of "opts" (NULL if none), and its user pointer
 * into *user (may be NULL): for a caller that compiles several
 * definitions itself (ein_aot_add_def) and tells the same function. */
ein_progress_fn ein_options_get_progress(const ein_options *opts,
	void **user);

/* ein_kernel_compile with options (NULL: the defaults). */
ein_kernel *ein_kernel_compile_with(ein_program *prog, const char *def,
	const ein_options *opts);
/* The schedule file the kernel was compiled with, and a line saying which
 * file and why it was chosen ("FILE: given explicitly", "FILE: nearest to
 * M=1000 of 2 candidates"); NULL for the default schedule.  For the
 * automatic schedule the file is NULL and the reason begins with
 * "automatic" and says which rules made it; for the default schedule of
 * a definition of more statements than the automatic scheduler takes
 * (256), it begins with "default (" and says so.  Owned by the kernel. */
const char *ein_kernel_get_schedule(const ein_kernel *kernel);
const char *ein_kernel_get_schedule_reason(const ein_kernel *kernel);

/* The kernel's signature.  Tensors are numbered inputs first, then outputs,
 * in the order of the definition; sizes are the size symbols in order of
 * first appearance in the parameter list.  A tensor updated in place
 * ("def f(float32(N) A) -> (A)": an input named again, alone, among the
 * outputs) is one tensor, numbered among the outputs at its place there.
 * The number of tensors (-1 if kernel is NULL), and the name of tensor
 * "pos" (owned by the kernel; NULL if pos is out of range). */
int ein_kernel_n_tensor(const ein_kernel *kernel);
const char *ein_kernel_get_tensor_name(const ein_kernel *kernel, int pos);
/* 1 if tensor "pos" is an output (the kernel writes it; an output starts
 * from the caller's data), 0 if an input (only read), -1 if pos is out of
 * range.  A tensor updated in place is an output. */
int ein_kernel_tensor_is_output(const ein_kernel *kernel, int pos);
/* 1 if the kernel is declared to read the caller's data of tensor "pos":
 * an input, or an output updated in place (then
 * ein_kernel_tensor_is_output gives 1 too); 0 for the other outputs; -1
 * if pos is out of range.  Callers testing a kernel fill these tensors
 * with data. */
int ein_kernel_tensor_is_input(const ein_kernel *kernel, int pos);
/* The number of dimensions of tensor "pos", -1 if pos is out of range. */
int ein_kernel_tensor_ndim(const ein_kernel *kernel, int pos);
/* The DLPack element type of tensor "pos" in *dtype: float32 and float64
 * are kDLFloat, int32 and int8 kDLInt, uint8 kDLUInt, and bool one byte
 * per element, kDLUInt with 8 bits (kDLBool is accepted too).  Returns
 * EIN_ERROR_INVALID if pos is out of range. */
ein_status ein_kernel_tensor_dtype(const ein_kernel *kernel, int pos,
	DLDataType *dtype);
/* The element type of tensor "pos" as ein spells it ("float32", "int8",
 * "bool", ...), NULL if pos is out of range. */
const char *ein_kernel_get_tensor_type(const ein_kernel *kernel, int pos);
/* The number of size symbols (-1 if kernel is NULL), and the name of size
 * "pos" (owned by the kernel; NULL if pos is out of range). */
int ein_kernel_n_size(const ein_kernel *kernel);
const char *ein_kernel_get_size_name(const ein_kernel *kernel, int pos);

/* Compute the shape of tensor "pos" for the given size values into
 * shape[0 .. ndim-1].  Returns EIN_ERROR_SHAPE if the sizes are invalid. */
ein_status ein_kernel_tensor_shape(ein_kernel *kernel, int pos,
	const int64_t *sizes, int n_size, int64_t *shape);

/* Run the kernel.  "tensors" holds n_tensor pointers in signature order;
 * each must be a dense row-major (strides NULL or compact) tensor on the CPU
 * of the declared element type whose shape agrees with "sizes".  Outputs are
 * overwritten; their data on entry is their initial value, which a kernel
 * that reads an output (a tensor updated in place, an update without
 * "!") uses.  No output may share memory with another tensor of the call
 * (an input, or another output): the bytes each tensor addresses from
 * data + byte_offset, through its shape and strides, must not overlap
 * those of an output, since the compiled code reads inputs while it writes
 * outputs (a tensor updated in place is one argument).  Returns
 * EIN_ERROR_SHAPE (never crashes) on any mismatch, a NULL array or tensor
 * (the message names it), overlapping tensors (the message names both),
 * and EIN_ERROR_INVALID if kernel is NULL; like every call, it replaces
 * the context's message with its own, so that ein_ctx_last_error holds
 * the last failure's.  The tensors are the caller's and are not kept.
 * Thread-safe: one kernel may be called from several threads
 * at once, each with its own output tensors (the checks of the arguments
 * take a lock of the context; the generated code runs unlocked).
 *
 * A kernel compiled for OpenCL (ein_options_set_target) also takes
 * tensors already on its device: device type kDLOpenCL, "data" a cl_mem
 * of the context ein_kernel_get_opencl gives, byte_offset 0, holding at
 * least the tensor's bytes; they are used in place, without a copy (an
 * output's result stays on the device).  Host (kDLCPU) tensors are
 * copied in and the outputs back; one call may mix both.  When the call
 * returns, the device has finished it.  A tensor on another device type,
 * a kDLOpenCL tensor given to a CPU kernel, a cl_mem of another context
 * or one too small is EIN_ERROR_DEVICE, with a message naming the
 * tensor. */
ein_status ein_kernel_call(ein_kernel *kernel, DLTensor *const *tensors,
	int n_tensor, const int64_t *sizes, int n_size);

/* The OpenCL context and in-order command queue that "kernel", compiled
 * for OpenCL, runs on, as a cl_context in *context and a
 * cl_command_queue in *queue (either pointer may be NULL): one per device
 * and ein context, shared by its kernels, owned by the ein context (do
 * not release them; clRetainContext to keep one longer).  Create the
 * cl_mem of kDLOpenCL tensors in this context; enqueue work on them on
 * this queue (or wait for it) to order it with the calls.
 * EIN_ERROR_INVALID for a NULL kernel or one compiled for the CPU. */
ein_status ein_kernel_get_opencl(ein_kernel *kernel, void **context,
	void **queue);

/* The device time in seconds of the last call of "kernel", compiled for
 * OpenCL with ein_options_set_opencl_profiling: from the start of its
 * first OpenCL kernel to the end of its last (the gaps between them
 * included, the copies of host tensors not), by the device's profiling
 * events.  -1 for a kernel compiled for the CPU or without profiling,
 * before its first call, or after a failed one. */
double ein_kernel_get_device_seconds(ein_kernel *kernel);

/* The number of floating-point operations one call performs at "sizes"
 * (arithmetic operations, comparisons and function calls with a float
 * result or argument, and reduction steps into float tensors, counted on
 * the source; integer work such as index arithmetic or a padding guard's
 * comparisons does not count), for reporting GFLOP/s.  0 for a kernel
 * without floating-point work.  Returns -1 on error.  The instances are
 * counted without visiting them, in time that grows with the number of
 * corners of the domains, not with the sizes: exactly for boxes, and for
 * other domains (triangles, guarded sums) from a few slices that fix the
 * polynomial counting the others between corners, which further slices
 * confirm.  Where 4096 slices of one statement's domain do not suffice
 * (a domain with strides or "%" over a long range), the rest is an
 * estimate, linear between the slices counted; the result is then within
 * a small fraction of the true count, not exact.  Beyond 2^53 it is a
 * double's rounding of the count. */
double ein_kernel_flops(ein_kernel *kernel, const int64_t *sizes,
	int n_size);

/* The number of arithmetic operations on tensor values one call performs
 * at "sizes": ein_kernel_flops's count with the integer ones included
 * (an int8 kernel's products and their int32 accumulation; still not
 * index arithmetic or a guard's comparisons), for reporting GOP/s of a
 * kernel without floating-point work.  Returns -1 on error. */
double ein_kernel_ops(ein_kernel *kernel, const int64_t *sizes, int n_size);

/* Run the reference interpreter instead of the compiled code, with the
 * same arguments and checks as ein_kernel_call: plain loops in the source's
 * order, every value a double, rounded to the element type when stored;
 * outputs start from the caller's data as in ein_kernel_call.  Slow; meant
 * for checking results.  Also EIN_ERROR_NOMEM when the copies of the
 * tensors as doubles cannot be allocated. */
ein_status ein_kernel_call_reference(ein_kernel *kernel,
	DLTensor *const *tensors, int n_tensor, const int64_t *sizes,
	int n_size);

/* A kernel of definition "def" (NULL: the first) for the reference
 * interpreter only: no schedule is chosen and no code compiled, so that
 * it costs the time of the check, not of a compile.  Its signature
 * (ein_kernel_n_tensor, ...), shapes and ein_kernel_call_reference work
 * as for a compiled kernel; ein_kernel_call fails with EIN_ERROR_INVALID.
 * Returns NULL for an unknown definition (EIN_ERROR_INVALID). */
ein_kernel *ein_kernel_reference(ein_program *prog, const char *def);

/* The number of threads that run the parallel loops of a kernel (loops a
 * schedule marks parallel) in calls that start after ein_set_num_threads
 * returns; calls in progress keep theirs.  n >= 1 sets the count (1 runs
 * every loop on the calling thread); n = 0 restores the default: the
 * environment variable EIN_NUM_THREADS if it is a whole number >= 1 when
 * libein first runs a parallel loop, else the number of CPUs the process
 * may use.  Returns EIN_ERROR_INVALID if n < 0 or n > 256.
 *
 * The count is global to the process, not to a context.  Both functions
 * may be called from any thread at any time.  The threads are a pool that
 * starts on the first parallel loop and is reused; a parallel loop
 * started while another application thread's loop runs on the pool, or
 * inside a parallel loop, runs on its calling thread alone. */
ein_status ein_set_num_threads(int n);
/* The thread count the next parallel loop will use. */
int ein_get_num_threads(void);

/* The class name of the host machine ("x86_64-avx2", "aarch64-neon",
 * ...), the directory under schedules/ where its schedules are kept.  The
 * caller frees it with free().  Returns NULL on error. */
char *ein_target_host_name(ein_ctx *ctx);

/*
 * Ahead-of-time compilation: definitions compiled into an object file (or
 * a static library) and a C header, called from any C or C++ program that
 * links them, with no LLVM, isl or OpenBLAS at run time.
 *
 *     ein_aot *aot = ein_aot_alloc(prog);
 *     ein_aot_fix_size(aot, "K", 256);              // optional
 *     ein_aot_add_def(aot, "matmul", NULL);
 *     ein_aot_write(aot, "kernels.o", EIN_AOT_OBJECT);
 *     ein_aot_write_header(aot, "kernels.h");
 *     ein_aot_free(aot);
 *
 * Each definition NAME becomes
 *
 *     int NAME(const T *in0, ..., T *out0, ..., int64_t size0, ...);
 *
 * one pointer per input (const) and output, in signature order, except the
 * tensors embedded as constants; then the sizes not fixed, in
 * ein_kernel_get_size_name order.  It returns 0, 2 if a pointer is NULL,
 * or 3 if the sizes are not valid (a size below 1, or a tensor without a
 * shape at those sizes); the header documents every tensor's shape and
 * the conditions on the sizes.  Code with parallel loops calls
 * ein_rt_parallel_for: link with -lein_rt -lpthread (and -lm for kernels
 * calling exp, log, ...).
 *
 * The setters (target, sizes, constants) apply to the definitions added
 * after them.  An ein_aot is used by one thread at a time; it keeps a
 * reference to its program.
 */
typedef struct ein_aot ein_aot;

/* What ein_aot_write writes.  The numbers are stable. */
typedef enum ein_aot_format {
	/* A relocatable object file (ELF for Linux targets). */
	EIN_AOT_OBJECT = 0,
	/* A static library ("ar" archive with a symbol index) holding it. */
	EIN_AOT_ARCHIVE = 1,
	/* LLVM IR after optimisation, as text. */
	EIN_AOT_LLVM = 2,
	/* Assembly. */
	EIN_AOT_ASM = 3,
	/* C source: each definition as a C function with the same
	 * signature and results, scalar code from the same loops (no
	 * constant tensors: EIN_ERROR_UNSUPPORTED). */
	EIN_AOT_C = 4
} ein_aot_format;

/* Start compiling definitions of "prog" ahead of time, for the host CPU
 * unless a target is set.  Owned by the caller; NULL if prog is NULL or
 * out of memory.  The compile cache is not used: each ein_aot compiles
 * its definitions itself. */
ein_aot *ein_aot_alloc(ein_program *prog);
/* Free "aot" and its reference to the program; files written stay. */
void ein_aot_free(ein_aot *aot);
/* Generate code for target "name": "host" (the default), "x86_64" (any
 * x86-64), "x86_64-avx2" (Haswell and later), "x86_64-avx512" (Skylake-X
 * and later) or "aarch64" (ARMv8-A with NEON); or "opencl" (also
 * "opencl:P:D", the same: the device is chosen when the program runs):
 * the object holds each kernel's OpenCL C and host code for the host,
 * NAME taking host arrays as on the CPU and NAME_cl(cl_command_queue,
 * cl_mem..., sizes...) taking buffers of the queue's context, both
 * calling libein_rt's OpenCL runtime (link with -lein_rt -lOpenCL;
 * docs/opencl.md), and the header declares and documents both.  Schedule
 * files are looked up as for an OpenCL device of class opencl-generic
 * (or of the device the machine has), else the default GPU mapping.
 * EIN_ERROR_INVALID for another name, or once a definition was added. */
ein_status ein_aot_set_target(ein_aot *aot, const char *name);
/* Generate code for an LLVM triple ("aarch64-unknown-linux-gnu"), CPU
 * ("cortex-a72"; NULL: generic) and features ("+neon,+dotprod"; NULL:
 * the CPU's), as llc's -mtriple, -mcpu and -mattr.  EIN_ERROR_INVALID if
 * LLVM does not know the triple, or, for x86-64 and AArch64 triples, the
 * CPU or a feature (checked against the names this build's LLVM lists,
 * before LLVM sees them: LLVM itself only warns on stderr, and for x86-64
 * an unknown CPU aborted the process); an x86-64 triple always gets the
 * "+64bit" feature, so that "-64bit" is an error too. */
ein_status ein_aot_set_target_triple(ein_aot *aot, const char *triple,
	const char *cpu, const char *features);
/* Specialise the definitions added afterwards that have a size "name" to
 * "value": the size is then not a parameter of their functions, and
 * the loops see a constant.  EIN_ERROR_INVALID if value < 1. */
ein_status ein_aot_fix_size(ein_aot *aot, const char *name, int64_t value);
/* Embed input tensor "tensor" of the definitions added afterwards as
 * constant data read from "path" (raw little-endian elements of its type,
 * or a .npy file of its dtype and shape): it is then not a parameter of
 * their functions.  Its shape must be fixed by declared constants or
 * ein_aot_fix_size; a file of another size is an EIN_ERROR_SHAPE error
 * when the definition is added.  The data goes into the object as it is,
 * without passing through LLVM's optimiser.  For an OpenCL target, the
 * runtime (libein_rt) uploads it into a device buffer once per OpenCL
 * context, at the first call there (docs/opencl.md). */
ein_status ein_aot_set_const(ein_aot *aot, const char *tensor,
	const char *path);
/* As ein_aot_set_const, with the data given: "bytes" bytes at "data"
 * (copied), the elements of the tensor's type in row-major order,
 * little-endian (as ein_onnx_get_const gives them). */
ein_status ein_aot_set_const_data(ein_aot *aot, const char *tensor,
	const void *data, size_t bytes);
/* As ein_aot_set_const_data, without the copy: the data stay the
 * caller's, who must keep them unchanged until "aot" is freed (the
 * object is written straight from them; no copy of a model's weights
 * between the importer and the file). */
ein_status ein_aot_set_const_view(ein_aot *aot, const char *tensor,
	const void *data, size_t bytes);
/* Compile definition "def" (NULL: the first) with the schedule and
 * options of "opts" (NULL: the defaults) and add it to the object.
 * EIN_ERROR_SOURCE for a bad schedule, EIN_ERROR_SHAPE for fixed sizes
 * that give a tensor no shape or constant data of the wrong size,
 * EIN_ERROR_INVALID for an unknown or repeated definition. */
ein_status ein_aot_add_def(ein_aot *aot, const char *def,
	const ein_options *opts);
/* Write the definitions added so far to "path" in "format".
 * EIN_ERROR_INVALID if none was added, EIN_ERROR_IO if the file cannot be
 * written. */
ein_status ein_aot_write(ein_aot *aot, const char *path,
	ein_aot_format format);
/* Write the C header declaring the functions of the definitions added so
 * far, with include guards derived from the file name of "path". */
ein_status ein_aot_write_header(ein_aot *aot, const char *path);
/* Write the output "path" in "format" (as ein_aot_write; NULL: none) and
 * the C header "header" (NULL: none) together: both are written as
 * temporaries before either replaces its file, so that when one cannot be
 * written (EIN_ERROR_IO) neither path has changed, and an object never
 * goes with the header of another compile. */
ein_status ein_aot_write_files(ein_aot *aot, const char *path,
	ein_aot_format format, const char *header);

/*
 * Importing ONNX models (docs/onnx.md).  A model becomes the ein source of
 * one definition, named after the file: the graph's inputs, then its
 * weights (the initializers and constants that the computation reads) as
 * inputs, the graph's outputs as outputs, every operator written as ein
 * statements.  The source is parsed and compiled as any other
 * (ein_program_parse, ein_kernel_compile_with, ein_aot_*); the weights'
 * data come with the result, to pass as inputs or to embed
 * (ein_aot_set_const_data).
 *
 *     ein_onnx *m = ein_onnx_import(ctx, "model.onnx", NULL);
 *     ein_program *prog = m ? ein_program_parse(ctx,
 *         ein_onnx_get_source(m), "model.onnx") : NULL;
 */
typedef struct ein_onnx ein_onnx;

/* Read the ONNX model in "path" and write it as ein source.  Symbolic
 * dimensions (dim_params) become sizes, except those fixed in "opts"
 * (ein_options_fix_size, by the size's name in the source or its
 * dim_param; NULL: none), which become constants.  Constant nodes and
 * shape computations on constants are folded.  Returns the imported
 * model, owned by the caller, or NULL: EIN_ERROR_IO for a file that
 * cannot be read or is not an ONNX model, EIN_ERROR_UNSUPPORTED for an
 * operator, attribute, type or dynamic shape the importer does not
 * support (the message names the node, its op type and what is
 * missing), EIN_ERROR_INVALID if ctx or path is NULL. */
ein_onnx *ein_onnx_import(ein_ctx *ctx, const char *path,
	const ein_options *opts);
void ein_onnx_free(ein_onnx *model);
/* The ein source (owned by the model). */
const char *ein_onnx_get_source(const ein_onnx *model);
/* The name of its definition (owned by the model). */
const char *ein_onnx_get_def_name(const ein_onnx *model);
/* The number of weights (-1 if model is NULL); the name of weight "pos"
 * as an input of the definition (owned by the model; NULL if pos is out
 * of range). */
int ein_onnx_n_const(const ein_onnx *model);
const char *ein_onnx_get_const_name(const ein_onnx *model, int pos);
/* Make "t" a view of weight "pos": its data (row-major, little-endian),
 * shape and DLPack type, owned by the model and valid while it lives.
 * EIN_ERROR_INVALID if pos is out of range or t is NULL. */
ein_status ein_onnx_get_const(const ein_onnx *model, int pos, DLTensor *t);

/*
 * Profile-guided int8 quantisation (docs/quantization.md).
 *
 * ein_onnx_import_profiling: as ein_onnx_import, but every intermediate
 * tensor the model computes is also an output of the definition (after
 * the graph's outputs), so that running it on sample inputs shows each
 * tensor's values (ein profile).  ein_onnx_get_onnx_name gives the ONNX
 * name of the definition's input or output "name" (owned by the model),
 * NULL if it has none.
 *
 * ein_onnx_quantize: import the model with the activations' ranges of
 * the profile file "profile" (JSON, as ein profile writes it): Conv,
 * Gemm and MatMul with constant weights become uint8 x int8 products
 * accumulated in int32 and requantised with qmul (per output channel
 * for the weights, quantised at import), each fused with a Relu that
 * alone reads its result (and a MatMul with the Add of a constant bias
 * vector that alone reads it); an Add of two computed tensors of one
 * shape that an int8 node reads (with its Relu) rescales both to the
 * output's scale in int32, and MaxPool, AveragePool and their Global
 * forms run on the uint8 values; every other operator stays in float,
 * with quantisation and dequantisation statements at the boundaries.
 * Nodes the profile's "precision" object names with "float" stay in
 * float.  The quantised weights, multipliers and shifts are weights of
 * the result (ein_onnx_get_const).  EIN_ERROR_IO for a profile that
 * cannot be read or parsed, EIN_ERROR_INVALID for a bad calibration or
 * profile entry, else as ein_onnx_import.
 */
typedef enum {
	EIN_CALIBRATION_MINMAX = 0,	/* the range seen, with 0 */
	EIN_CALIBRATION_PERCENTILE = 1,	/* the 0.01 and 99.99 percentiles */
	EIN_CALIBRATION_KL = 2		/* the clipping threshold of least
					   KL divergence (TensorRT's entropy
					   calibration, on |x|) */
} ein_calibration;
ein_onnx *ein_onnx_import_profiling(ein_ctx *ctx, const char *path,
	const ein_options *opts);
const char *ein_onnx_get_onnx_name(const ein_onnx *model, const char *name);
ein_onnx *ein_onnx_quantize(ein_ctx *ctx, const char *path,
	const ein_options *opts, const char *profile,
	ein_calibration calibration);

/*
 * Whole models through the graph level (docs/onnx.md, "The graph level").
 * The model's operators are fused into kernels, one ein definition each,
 * compiled as ein_kernel_compile_with does (a schedule looked up by the
 * kernel's name, else the automatic schedule); the tensors passed between
 * kernels live in one arena whose offsets are planned by liveness.
 *
 *     ein_model *m = ein_model_load(ctx, "cnn.onnx", opts);  // N fixed
 *     DLTensor *in[] = { &x }, *out[] = { &y };
 *     ein_model_run(m, in, 1, out, 1);
 *     ein_model_free(m);
 */
typedef struct ein_model ein_model;

/* Make ein_model_load and ein_model_plan with "opts" import the model in
 * int8 from the profile file "profile" with "calibration", as
 * ein_onnx_quantize does (NULL profile: in float, the default): each
 * fused kernel is then a part of the int8 model (a convolution with its
 * requantisation and Relu, an int8 Add, a pool, a float operator with
 * the dequantisation of what it reads), and the model's outputs are
 * those of ein_onnx_quantize's definition, bit for bit.  The profile is
 * read at the load.  EIN_ERROR_INVALID if opts is NULL or the
 * calibration unknown, EIN_ERROR_NOMEM. */
ein_status ein_options_set_quantize(ein_options *opts, const char *profile,
	ein_calibration calibration);

/* The bits of the uint8 activations of models quantised with "opts"
 * (ein_options_set_quantize, ein_onnx_quantize): 8 (levels 0..255, the
 * default) or 7 (0..127, as oneDNN's documentation advises for CPUs
 * without VNNI): on x86-64 CPUs with AVX2 and without
 * AVX512-VNNI, the int8 convolutions and matrix products then compute
 * with vpmaddubsw, which is exact only for bytes below 128, at about
 * 1.6x the speed of the exact form for any bytes (docs/quantization.md,
 * with the accuracy cost).  Elsewhere 7 bits only lose resolution.
 * EIN_ERROR_INVALID if opts is NULL or bits is neither. */
ein_status ein_options_set_activation_bits(ein_options *opts, int bits);

/* Import the ONNX model "path" (as ein_onnx_import, with the sizes "opts"
 * fixes; as ein_onnx_quantize with the profile ein_options_set_quantize
 * gave "opts"), fuse it into kernels, compile each with "opts" (NULL: the
 * defaults), and plan its arena.  Every dimension must then be a
 * constant: a symbolic one that "opts" does not fix is an
 * EIN_ERROR_SHAPE error naming it.  Returns the model, owned by the
 * caller, or NULL with the errors of ein_onnx_import and
 * ein_kernel_compile_with. */
ein_model *ein_model_load(ein_ctx *ctx, const char *path,
	const ein_options *opts);
/* As ein_model_load, without compiling: the kernels' source, their
 * nodes, and the memory plan where every size is fixed (else
 * ein_model_get_memory_plan gives NULL), at the cost of the import only.
 * ein_model_run and the inputs' and outputs' descriptions need
 * ein_model_load (EIN_ERROR_INVALID here). */
ein_model *ein_model_plan(ein_ctx *ctx, const char *path,
	const ein_options *opts);
/* Free a model (its kernels, weights and arena).  No run may be in
 * progress. */
void ein_model_free(ein_model *model);
/* The number of the model's inputs and outputs (-1 if model is NULL), and
 * "t" made a description of input or output "pos": its name (ein's
 * identifier, as in ein_onnx_get_source), ndim, shape and dtype, data
 * NULL; the shape is owned by the model.  EIN_ERROR_INVALID if pos is out
 * of range or t is NULL. */
int ein_model_n_input(const ein_model *model);
int ein_model_n_output(const ein_model *model);
const char *ein_model_get_input_name(const ein_model *model, int pos);
const char *ein_model_get_output_name(const ein_model *model, int pos);
ein_status ein_model_get_input(const ein_model *model, int pos,
	DLTensor *t);
ein_status ein_model_get_output(const ein_model *model, int pos,
	DLTensor *t);
/* The element type of output "pos" as ein spells it ("float32", "bool",
 * ...; a bool is described as kDLUInt with 8 bits), owned by the model;
 * NULL if pos is out of range. */
const char *ein_model_get_output_type(const ein_model *model, int pos);
/* Run the kernels in order: inputs[0 .. n_input-1] and outputs[0 ..
 * n_output-1] in the order above, dense tensors on the CPU of the
 * declared types and shapes; the outputs are overwritten.  The model's
 * arena holds the tensors between kernels, so one model runs one call at
 * a time (not thread-safe); the kernels' parallel loops use
 * ein_set_num_threads's threads.  EIN_ERROR_SHAPE for wrong arguments
 * (the message names the tensor), EIN_ERROR_INVALID if model is NULL. */
ein_status ein_model_run(ein_model *model, DLTensor *const *inputs,
	int n_input, DLTensor *const *outputs, int n_output);
/* As ein_model_run, but compute the outputs with the reference
 * interpreter on the whole model as one definition (the source of
 * ein_onnx_get_source, not the fused kernels): an independent check of
 * the graph level.  Slow. */
ein_status ein_model_run_reference(ein_model *model,
	DLTensor *const *inputs, int n_input, DLTensor *const *outputs,
	int n_output);
/* Write to "path" the C source of one function named after the model,
 * "int MODEL(const T *input..., T *output...)", that calls the kernels in
 * order over a static arena (so one call at a time), the arena's tensors
 * at their planned offsets; it includes "header", which declares the
 * kernels as ein_aot_write_header does for the kernels' definitions
 * (ein_model_get_source) compiled with the weights embedded
 * (ein_aot_set_const_data) and every size fixed.  Returns the first
 * nonzero status of a kernel, else 0.  Works on a model of
 * ein_model_plan.  EIN_ERROR_SHAPE if a size is not fixed, EIN_ERROR_IO
 * if the file cannot be written. */
ein_status ein_model_write_c(const ein_model *model, const char *path,
	const char *header);
/* The imported model (the whole-model definition and the weights, which
 * the kernels read by the same names), owned by the model. */
const ein_onnx *ein_model_get_onnx(const ein_model *model);
/* The fused kernels: their number (-1 if model is NULL); the name of
 * kernel "pos" (its definition's name), the ONNX nodes it computes
 * ("Conv conv_0 + Relu relu_0") and the seconds its calls took over all
 * ein_model_run calls so far (for a profile), each owned by the model;
 * NULL (or -1) if pos is out of range. */
int ein_model_n_kernel(const ein_model *model);
const char *ein_model_get_kernel_name(const ein_model *model, int pos);
const char *ein_model_get_kernel_nodes(const ein_model *model, int pos);
double ein_model_get_kernel_seconds(const ein_model *model, int pos);
/* Kernel "pos" as compiled (owned by the model): its schedule file and
 * the reason it was chosen (ein_kernel_get_schedule, ..._reason); NULL
 * if pos is out of range, for a kernel whose results nobody reads (not
 * compiled), and for a model of ein_model_plan. */
const ein_kernel *ein_model_get_kernel(const ein_model *model, int pos);
/* The number of distinct codes the model's kernels run (-1 if model is
 * NULL, 0 for a model of ein_model_plan): kernels whose definitions are
 * the same modulo names (a network's repeated blocks), with no schedule
 * file of their own, are compiled once and share the code; the later
 * ones give "the code of NAME" as their schedule's reason. */
int ein_model_n_compiled(const ein_model *model);
/* The bytes of the arena, and the sum of the bytes of the tensors in it
 * (what they would take without sharing); -1 if model is NULL. */
int64_t ein_model_arena_bytes(const ein_model *model);
int64_t ein_model_tensor_bytes(const ein_model *model);
/* The kernels' ein source (one definition each), and the memory plan as
 * a table (each tensor's bytes, lifetime in kernels and offset, then the
 * arena against the sum), as strings owned by the model; the plan is
 * NULL for a model of ein_model_plan with a size not fixed. */
const char *ein_model_get_source(const ein_model *model);
const char *ein_model_get_memory_plan(const ein_model *model);

/* Tensors in files.  Read the file "path" into the caller's tensor "t"
 * ("name" names it in messages; may be NULL)
 * (dense, on the CPU, of an element type ein has, its data allocated): a
 * NumPy .npy file (C order, of t's dtype and shape) or raw little-endian
 * elements, exactly as many bytes as t holds.  EIN_ERROR_IO if it cannot
 * be read or is not a valid .npy file, EIN_ERROR_SHAPE if its type,
 * shape or size differ from t's. */
ein_status ein_tensor_read_file(ein_ctx *ctx, const char *path,
	const char *name, DLTensor *t);
/* Write tensor "t" (dense, on the CPU) to "path" as a .npy file.
 * EIN_ERROR_IO if it cannot be written, EIN_ERROR_INVALID for a type ein
 * does not have. */
ein_status ein_tensor_write_npy(ein_ctx *ctx, const char *path,
	const DLTensor *t);

/* The version of libein as "MAJOR.MINOR.PATCH", a static string.  May be
 * called from any thread. */
const char *ein_version(void);

#ifdef __cplusplus
}
#endif

#endif
