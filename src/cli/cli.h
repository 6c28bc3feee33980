/*
 * cli.h: the subcommands of the ein command-line tool and their helpers.
 * The tool uses the public API (ein.h) only.
 */
#ifndef EIN_CLI_H
#define EIN_CLI_H

#include <stdint.h>
#include <dlpack/dlpack.h>
#include "ein.h"

int ein_cmd_run(int argc, char **argv);
int ein_cmd_show(int argc, char **argv);
int ein_cmd_check(int argc, char **argv);
int ein_cmd_compile(int argc, char **argv);
int ein_cmd_demo(int argc, char **argv);
int ein_cmd_tune(int argc, char **argv);

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
void ein_cli_tensor_copy(struct ein_cli_tensor *dst,
	const struct ein_cli_tensor *src);
/* Is the element type an integer (or bool) type, compared exactly? */
int ein_cli_tensor_is_integer(const struct ein_cli_tensor *t);
/* The largest |a - b| and the largest |b| over the elements. */
void ein_cli_tensor_compare(const struct ein_cli_tensor *a,
	const struct ein_cli_tensor *b, double *max_err, double *max_ref);

/* Call "k" once to warm up, then up to "repeat" times (stopping after
 * two seconds); return the median time of a call in seconds, -1 if the
 * call fails. */
double ein_cli_time_call(ein_kernel *k, DLTensor **args, int n,
	const int64_t *sizes, int repeat);

/* Seconds on a monotonic clock. */
double ein_cli_now(void);
/* The median of n values (sorts them). */
double ein_cli_median(double *v, int n);

/* If argv[*i] is a compile option (--schedule FILE, --no-schedule,
 * --no-auto, --strict-fp), apply it to "opts", advance *i past its argument and
 * return 1; return 0 if it is none, -1 after an error message. */
int ein_cli_parse_option(ein_options *opts, int argc, char **argv, int *i);

/* Pass the sizes of "M=512,N=256" (NULL: none) to "opts" as hints for
 * choosing a schedule, and if "fix", as sizes to specialise the kernel
 * to; malformed parts are left to ein_cli_parse_sizes to report. */
int ein_cli_size_hints(ein_options *opts, const char *spec, int fix);

/* Parse "M=512,N=256" into sizes[] in k's order.  Returns -1 after an
 * error message naming the missing or unknown size. */
int ein_cli_parse_sizes(const char *spec, ein_kernel *k, int64_t *sizes);

#endif
