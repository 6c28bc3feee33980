/*
 * cli.h: the subcommands of the ein command-line tool and their helpers.
 * The tool uses the public API (ein.h) only.
 */
#ifndef EIN_CLI_H
#define EIN_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <dlpack/dlpack.h>
#include "ein.h"

int ein_cmd_run(int argc, char **argv);
int ein_cmd_show(int argc, char **argv);
int ein_cmd_check(int argc, char **argv);
int ein_cmd_compile(int argc, char **argv);
int ein_cmd_demo(int argc, char **argv);
int ein_cmd_tune(int argc, char **argv);
int ein_cmd_import(int argc, char **argv);
int ein_cmd_profile(int argc, char **argv);
int ein_cmd_quantize(int argc, char **argv);

/* cmd_import.c: write every weight of "m" to DIR/NAME.npy (creating
 * DIR); -1 after a message of "cmd". */
int ein_cli_write_weights(ein_ctx *ctx, const char *cmd, const char *dir,
	const ein_onnx *m);

/* model.c: is "path" an ONNX model (by its name, *.onnx)?  Read a program
 * from "path": an .ein file, or an ONNX model imported with the sizes
 * "opts" fixes (*model is then the imported model, which the caller
 * frees after the program; else NULL).  The index of the weight called
 * "name" in "model" (NULL: none), -1 if none. */
int ein_cli_is_onnx(const char *path);
ein_program *ein_cli_read_program(ein_ctx *ctx, const char *path,
	const ein_options *opts, ein_onnx **model);
int ein_cli_find_const(const ein_onnx *model, const char *name);
/* The file of input "name": the last of the n_input "NAME=FILE" of
 * --input that names it, else DIR/NAME.npy of "dir" if that exists (into
 * buf); NULL if none. */
const char *ein_cli_input_file(int n_input, const char *const *input,
	const char *dir, const char *name, char *buf, size_t size);
/* The ONNX model in "path" written in int8 from the profile "profile"
 * (ein_onnx_quantize), as ein_cli_read_program reads it; parse
 * --calibration's value "s" (-1 after a message of "cmd"). */
ein_program *ein_cli_read_quantized(ein_ctx *ctx, const char *path,
	const ein_options *opts, const char *profile, ein_calibration cal,
	ein_onnx **model);
int ein_cli_parse_calibration(const char *cmd, const char *s,
	ein_calibration *cal);

/* run_model.c: "ein run model.onnx" through the graph level.
 * file: the model; opts: the compile options (sizes fixed);
 * input[0 .. n_input-1]: the --input NAME=FILE options; output: --output's
 * directory (NULL: none); ranges: the --range lists (NULL: none);
 * repeat: the most timed runs; check: compare with the reference
 * interpreter; profile: print each kernel's time; seconds: where the
 * median time of a run is given (NULL: nowhere). */
struct ein_cli_model_run {
	const char *file;
	const ein_options *opts;
	int n_input;
	const char *const *input;
	const char *output;
	const char *ranges;
	int64_t repeat;
	int check;
	int profile;
	double *seconds;
};
/* Load, run, check and profile the model; -1 after printing an error. */
int ein_cli_run_model(const struct ein_cli_model_run *r);
/* Run loaded model "m" as ein_cli_run_model times it (inputs from r's
 * --input files, else random), without a check: the time of each kernel
 * per run into seconds[0 .. ein_model_n_kernel(m) - 1], the median time
 * of a run into *median.  -1 after printing an error. */
int ein_cli_profile_model(const struct ein_cli_model_run *r, ein_model *m,
	double *seconds, double *median);

/* tune_model.c: "ein tune model.onnx --time T": tune the model's fused
 * kernels, each with the options "o" (its file the model, its sizes the
 * model's) and a share of o->time, writing their schedules under
 * "dir"/<target>/ (NULL: the first directory of $EIN_SCHEDULE_PATH, else
 * "schedules").  Returns the exit status: 0 once the model has run again
 * and agreed with the reference (a kernel left without a schedule in its
 * share is not an error), 1 on an error, 3 if a candidate gave a wrong
 * answer (as ein_tune_run). */
struct ein_tune_opts;
int ein_cli_tune_model(const struct ein_tune_opts *o, const char *dir);

/* help.c: the overview of the commands; the page of command "name"
 * (-1 if there is none); whether argv[1..] asks for help (--help, -h);
 * the manual page in roff. */
void ein_cli_usage(FILE *out);
int ein_cli_help(FILE *out, const char *name);
int ein_cli_wants_help(int argc, char **argv);
void ein_cli_man(FILE *out);

/* A tensor owned by the tool: its descriptor, shape and data.
 * n: the number of elements; elem_size: the bytes of one;
 * type: the kernel's name of its element type ("float32", "bool", ...). */
struct ein_cli_tensor {
	DLTensor dl;
	int64_t shape[16];
	int64_t n;
	size_t elem_size;
	const char *type;
};

/* Allocate argument "pos" of "k" at "sizes" (zero-filled).  Returns -1
 * after printing the library's message. */
int ein_cli_tensor_alloc(struct ein_cli_tensor *t, ein_kernel *k, int pos,
	const int64_t *sizes);
void ein_cli_tensor_free(struct ein_cli_tensor *t);
/* Fill with uniform random values from "*seed": floats in [-1, 1), small
 * integers (int8 in -8..7, uint8 in 0..15, int32 in -64..63), bools 0 or
 * 1. */
void ein_cli_tensor_randomize(struct ein_cli_tensor *t, uint64_t *seed);
/* Fill with uniform random values from "*seed" in the range [lo, hi):
 * floats in [lo, hi), integers (and bools) in lo..hi-1, as
 * ein_cli_value_in_range gives. */
void ein_cli_tensor_randomize_range(struct ein_cli_tensor *t, uint64_t *seed,
	double lo, double hi);
void ein_cli_tensor_copy(struct ein_cli_tensor *dst,
	const struct ein_cli_tensor *src);
/* Is the element type an integer (or bool) type, compared exactly? */
int ein_cli_tensor_is_integer(const struct ein_cli_tensor *t);
/* The largest |a - b| and the largest |b| over the elements. */
void ein_cli_tensor_compare(const struct ein_cli_tensor *a,
	const struct ein_cli_tensor *b, double *max_err, double *max_ref);

/* Call "k" once to warm up, then up to "repeat" times (stopping after
 * two seconds); return the median time of a call in seconds, -1 if the
 * call fails.  Unless "init" is NULL, the data of init[0 .. n) is copied
 * into the arguments before every call (untimed), so that kernels that
 * read their outputs see the same data each time and the arguments end
 * up as after one call on "init".  Unless "device" is NULL, *device is
 * the median of the calls' device times (ein_kernel_get_device_seconds:
 * an OpenCL kernel's, profiled), -1 if the kernel has none. */
double ein_cli_time_call(ein_kernel *k, DLTensor **args, int n,
	const int64_t *sizes, int repeat, const struct ein_cli_tensor *init,
	double *device);

/* Ranges of random input values (value_range.c): a list of NAME=LO:HI
 * separated by commas or spaces, as "ein run --range" and the "# range:"
 * header of tests/kernels take it.
 * ein_cli_range_find: set *lo and *hi to the range of "name" (the last
 * entry naming it wins) and return 1; 0 if "spec" does not name it, -1 if
 * it is malformed.  ein_cli_range_check: return -1 after a message naming
 * "what" (an option) if "spec" is malformed.  ein_cli_range_check_kernel:
 * also check that each name is one of the tensors "k" reads the caller's
 * data of (ein_kernel_tensor_is_input), and that an integer tensor's range
 * has integer bounds its type holds. */
int ein_cli_range_find(const char *spec, const char *name, double *lo,
	double *hi);
int ein_cli_range_check(const char *spec, const char *what);
int ein_cli_range_check_kernel(const char *spec, ein_kernel *k);
/* How a random value is stored: as a float64, a float32 or an integer. */
enum ein_cli_value_kind {
	EIN_CLI_VALUE_F64,
	EIN_CLI_VALUE_F32,
	EIN_CLI_VALUE_INT
};
/* The value of "u" in [0, 1) in the range [lo, hi): lo + (hi - lo) * u,
 * rounded down for integers (lo..hi-1 for integer lo and hi) and kept
 * below hi and at least lo when rounded to float32. */
double ein_cli_value_in_range(double u, double lo, double hi,
	enum ein_cli_value_kind kind);

/* Seconds on a monotonic clock. */
double ein_cli_now(void);
/* The median of n values (sorts them). */
double ein_cli_median(double *v, int n);

/* If argv[*i] is a compile option (--schedule FILE, --no-schedule,
 * --no-auto, --strict-fp, --compile-timeout SECONDS, --progress,
 * --no-progress), apply it to "opts", advance *i past its argument and
 * return 1; return 0 if it is none, -1 after an error message. */
int ein_cli_parse_option(ein_options *opts, int argc, char **argv, int *i);
/* The progress of a model's compile (ein_progress_fn): "[k/n] compiling
 * kernel NAME" on stderr, one line each, or on a terminal one line
 * rewritten and cleared at the end.  ein_cli_progress_default installs
 * it in "opts" when stderr is a terminal (--progress: always;
 * --no-progress: never), so that pipes and tests see nothing unasked. */
void ein_cli_progress(void *user, int done, int total, const char *what);
void ein_cli_progress_default(ein_options *opts);

/* Pass the sizes of "M=512,N=256" (NULL: none) to "opts" as hints for
 * choosing a schedule, and if "fix", as sizes to specialise the kernel
 * to.  Returns -1 after a message from "cmd" ("ein run") if a value is
 * not an integer from 1 to EIN_CLI_MAX_SIZE. */
int ein_cli_size_hints(const char *cmd, ein_options *opts, const char *spec,
	int fix);

/* The largest value of one size; whether the tensors it gives fit in
 * memory is checked when they are allocated. */
#define EIN_CLI_MAX_SIZE INT64_MAX

/* The strict parsers of numbers on the command line, shared by every
 * subcommand.  Each accepts the whole of "s" or nothing: on failure it
 * prints "CMD: error: WHAT takes EXPECTED, not 'S'" (S quoted at most 40
 * characters long, control characters escaped) and returns -1.
 * ein_cli_parse_int: a decimal integer (optional sign) in [lo, hi].
 * ein_cli_parse_u64: a decimal integer from 0 to 2^64 - 1 (seeds).
 * ein_cli_parse_bytes: a positive byte count below 2^63, with an optional
 *	suffix K, M, G or T (2^10 ... 2^40).
 * ein_cli_parse_seconds: a duration "60", "60s", "2m" or "500ms" of at
 *	most 1e9 seconds; positive: above 0, else at least 0. */
int ein_cli_parse_int(const char *cmd, const char *what, const char *s,
	int64_t lo, int64_t hi, int64_t *v);
int ein_cli_parse_u64(const char *cmd, const char *what, const char *s,
	uint64_t *v);
int ein_cli_parse_bytes(const char *cmd, const char *what, const char *s,
	int64_t *v);
int ein_cli_parse_seconds(const char *cmd, const char *what, const char *s,
	int positive, double *v);
/* Print "CMD: error: WHAT takes EXPECTED, not 'S'" as above. */
void ein_cli_bad_value(const char *cmd, const char *what, const char *s,
	const char *expected);
/* Print a name from a source (a size, a tensor) in a message: at most 40
 * characters of it, then "...", control characters escaped. */
void ein_cli_print_name(FILE *f, const char *name);
/* Print "CMD: error: unexpected argument 'ARG'", quoted as above. */
void ein_cli_unexpected(const char *cmd, const char *arg);
/* Print s[0 .. n) (or up to its NUL) with control characters as \xNN, so
 * that an argument cannot drive the terminal. */
void ein_cli_print_quoted(FILE *f, const char *s, size_t n);

/* Parse "M=512,N=256" into sizes[] in k's order.  Returns -1 after an
 * error message naming the missing or unknown size. */
int ein_cli_parse_sizes(const char *spec, ein_kernel *k, int64_t *sizes);
/* Check "spec" against the sizes of definition "def" of "prog" (NULL:
 * the first) as ein_cli_parse_sizes checks it against a kernel's, with
 * the same messages, before anything is compiled: a bad size is an
 * error at once, not after the schedule is chosen.  Returns 0 also when
 * there is no such definition (compiling says so). */
int ein_cli_check_sizes(const char *spec, ein_program *prog, const char *def);
/* Check that every name "spec" gives is a size of one of the "n_def"
 * definitions "def" of "prog" (n_def 0: of every definition), before
 * anything is compiled, with ein_cli_check_sizes's message for an
 * unknown one; a size left out is no error (ein show and ein compile
 * leave it symbolic).  Returns 0 also when a definition is not found
 * (compiling says so). */
int ein_cli_check_size_names(const char *spec, ein_program *prog,
	int n_def, const char *const *def);

/* Set the target of "opts" from --target's value (cpu, opencl,
 * opencl:P:D); -1 after printing an error of "cmd". */
int ein_cli_target(const char *cmd, ein_options *opts, const char *target);

#endif
