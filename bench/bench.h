/*
 * bench.h: what the sections of the benchmark (make bench) share: the
 * run's options, float32 tensors, the ein kernels of bench/kernels.ein
 * with and without their hand-written schedules, interleaved timing with
 * medians, result checks, and the thread count of every library.
 *
 * Each section (bench_gemm, bench_conv, bench_memory) checks every
 * implementation's result first, then times them side by side and prints
 * a Markdown table.  A section returns the number of failed checks.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include "ein.h"

/* The run's options.
 * quick: fewer sizes and repetitions (a smoke run of under a minute);
 * small: tiny sizes, results checked but not timed (for make check);
 * rounds: interleaved timed rounds per measurement (the median is kept);
 * sample_s: the least time of one sample: fast calls are repeated until
 *	it is reached, and the sample is the time per call;
 * max_threads: the largest thread count measured (1 or 2);
 * dir: the directory of kernels.ein and schedules/. */
struct bench_opts {
	int quick;
	int small;
	int rounds;
	double sample_s;
	int max_threads;
	const char *dir;
};

/* A dense row-major float32 tensor on the CPU, 64-byte aligned.
 * dl: its DLPack view; shape: dl's shape; f: the data; n: elements. */
struct bench_tensor {
	DLTensor dl;
	int64_t shape[8];
	float *f;
	int64_t n;
};

int bench_tensor_alloc(struct bench_tensor *t, int ndim,
	const int64_t *shape);
void bench_tensor_free(struct bench_tensor *t);
void bench_tensor_fill(struct bench_tensor *t, uint64_t seed);

/* One definition of kernels.ein compiled twice.
 * def: its name;
 * dflt: with the default schedule (schedule lookup off);
 * sched: with schedules/<def>.sched, NULL when there is no such file;
 * sched_path: that file's path. */
struct bench_kernel {
	const char *def;
	ein_kernel *dflt;
	ein_kernel *sched;
	char sched_path[1024];
};

/* The program read from kernels.ein and its context. */
struct bench_program {
	ein_ctx *ctx;
	ein_program *prog;
};

int bench_program_read(struct bench_program *p, const struct bench_opts *o);
void bench_program_free(struct bench_program *p);
int bench_kernel_compile(struct bench_kernel *k, struct bench_program *p,
	const char *def, const struct bench_opts *o);
/* Compile k's schedule file again, specialised to "sizes" (one per size
 * of the definition, in its order; ein_options_fix_size), in place of
 * k->sched.  Nothing without a schedule file; -1 after a message. */
int bench_kernel_fix(struct bench_kernel *k, struct bench_program *p,
	const int64_t *sizes);
ein_kernel *bench_compile_lookup(struct bench_program *p, const char *def,
	const struct bench_opts *o, int n, const char *const *names,
	const int64_t *values, int fix, char **path);
void bench_kernel_free(struct bench_kernel *k);
void bench_print_schedules(const struct bench_kernel *k, int n);

/* A call of an ein kernel, ready to run: "n_arg" tensors in signature
 * order and "n_size" sizes in ein_kernel_get_size_name order.  With
 * reference set, the reference interpreter runs instead. */
struct bench_call {
	ein_kernel *k;
	DLTensor *args[4];
	int n_arg;
	int64_t sizes[8];
	int n_size;
	int reference;
};

int bench_call_run(void *call);

/* One implementation measured in a group.
 * name: for messages;
 * run: one call on "arg", 0 on success (NULL: not measured);
 * median: the median seconds per call, or -1 if a call failed. */
struct bench_variant {
	const char *name;
	int (*run)(void *arg);
	void *arg;
	double median;
};

int bench_measure(struct bench_variant *v, int n,
	const struct bench_opts *o);

/* The largest difference between "got" and "want" beyond the tolerance
 * rtol |want| + atol: returns the number of elements outside it and
 * sets *max_err to the largest absolute difference. */
int64_t bench_compare(const float *got, const double *want, int64_t n,
	double rtol, double atol, double *max_err);
int64_t bench_compare_f(const float *got, const float *want, int64_t n,
	double rtol, double atol, double *max_err);

/* Set the thread count of ein, OpenBLAS and oneDNN. */
void bench_set_threads(int n);

double bench_now(void);
double bench_median(double *v, int n);

/* A cell of a table: "x" with "prec" decimals, or "-" if x < 0. */
const char *bench_cell(char *buf, size_t len, double x, int prec);

/* The vector extensions of this CPU, in words (bench/peak.c). */
const char *bench_cpu_isa(void);

/* The FP32 peak: the FMA loop of fma_loop.c for the widest instruction
 * set of this CPU, measured as one more variant of each group so that it
 * sees the machine as the kernels do (the machine may be shared).
 * isa: the loop's instruction set;
 * threads: how many threads run it at once;
 * n: its iterations per thread in one run;
 * gflop: the GFLOP of one run. */
struct bench_peak {
	const char *isa;
	int threads;
	long n;
	double gflop;
};

/* Prepare runs of about "seconds" each on "threads" threads. */
void bench_peak_init(struct bench_peak *pk, int threads, double seconds);
int bench_peak_run(void *pk);
/* The GFLOP/s of runs whose median time is "median" seconds. */
double bench_peak_gflops(const struct bench_peak *pk, double median);

int bench_gemm(struct bench_program *p, const struct bench_opts *o);
int bench_conv(struct bench_program *p, const struct bench_opts *o);
int bench_memory(struct bench_program *p, const struct bench_opts *o);
int bench_int8(struct bench_program *p, const struct bench_opts *o);
/* SGEMM on OpenCL against CLBlast (opencl.c); not in the default list
 * of --small, whose make check run must stay fast. */
int bench_opencl(struct bench_program *p, const struct bench_opts *o);
/* Its convolutions against CLBlast's convgemm, softmax and layernorm
 * (opencl_ops.c), which bench_opencl runs last. */
int bench_opencl_ops(struct bench_program *p, const struct bench_opts *o);
/* The schedule that bench/opencl_tune.sh's "ein tune --target opencl"
 * wrote for "def" at the "n" sizes "size" (the definition's order):
 * DIR/schedules/opencl/tuned/DEF.S1x...xSn.sched, in "buf"; 0 if there
 * is no such file (the table's "tuned" cells then show "-"). */
int bench_opencl_tuned(char *buf, size_t len, const struct bench_opts *o,
	const char *def, int n, const int64_t *size);

#endif
