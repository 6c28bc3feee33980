/*
 * issue22.h: what the sections of issue 22's benchmark share (tccg.c,
 * attention.c, polybench.c; make bench-issue22): one kernel at fixed
 * sizes as ein default (lookup, then the automatic schedule), ein
 * --no-auto (the default schedule) and ein tuned (the schedule file
 * bench/schedules/issue22/<def>.sched, written by "ein tune --time 60s"),
 * next to C peers, every result checked against the first peer's before
 * anything is timed, then all timed in interleaved rounds (bench_measure)
 * and printed as one row of a Markdown table.  An implementation whose
 * checked call takes over a second is not called again: that call's time
 * is its figure (marked *).  ein's checked calls run in a child process
 * stopped after EIN_BENCH_CALL_LIMIT seconds (30 by default; "> 30 s"),
 * since --no-auto on a large contraction takes minutes.
 */
#ifndef BENCH_ISSUE22_H
#define BENCH_ISSUE22_H

#include "bench.h"

#define I22_MAX_TENSOR 12
#define I22_MAX_IMPL 8

/* A peer: computes the outputs "out" (in signature order) from the inputs
 * "in" with its own "data"; 0 on success. */
typedef int (*i22_peer_fn)(void *data, float *const *in, float *const *out);

/* One peer of a kernel.  name: its column; fn, data: as above;
 * free_data: frees data (NULL: nothing to free). */
struct i22_peer {
	const char *name;
	i22_peer_fn fn;
	void *data;
	void (*free_data)(void *data);
};

/* One kernel of a section.
 * label: its row's name; def: the definition in "prog"; sizes: its sizes
 * as "A=1,B=2"; tuned: the name of its tuned schedule,
 * bench/schedules/issue22/<tuned>.sched (NULL: def); peers: n_peer
 * peers, the first of which is the reference of every check. */
struct i22_kernel {
	const char *label;
	ein_program *prog;
	const char *def;
	const char *sizes;
	const char *tuned;
	struct i22_peer peers[3];
	int n_peer;
};

/* The inputs of a kernel, allocated and filled from the shapes ein gives
 * (i22_inputs), for the peers to plan with.  in: n_in inputs in
 * signature order; names: the kernel's size names, values their values
 * (n_size). */
struct i22_data {
	struct bench_tensor in[I22_MAX_TENSOR];
	int n_in;
	const char *names[8];
	int64_t values[8];
	int n_size;
};

/* Read the .ein file "file" of o->dir into p's context; NULL after a
 * message. */
ein_program *i22_read(struct bench_program *p, const struct bench_opts *o,
	const char *file);
/* The size "name" of "sizes" ("A=1,B=2"); -1 if absent. */
int64_t i22_size(const char *sizes, const char *name);
/* Print the table's head, with "peers" naming the peer columns. */
void i22_print_head(const char *peers);
/* The medians of one kernel in seconds (-1: not measured).
 * peer: the best peer's; dflt, noauto, tuned: ein's three ways. */
struct i22_result {
	double peer, dflt, noauto, tuned;
};

/* Compile, check, time and print one kernel; "make_peers" (with "arg")
 * sets up k->peers from the inputs once they exist (-1 on failure).
 * Returns the number of failures (a compile, a call, a wrong result) and
 * sets *r. */
int i22_run(struct bench_program *p, const struct bench_opts *o,
	struct i22_kernel *k,
	int (*make_peers)(struct i22_kernel *k, struct i22_data *d, void *arg),
	void *arg, struct i22_result *r);
/* Print the geometric means of the ratios of "n" results. */
void i22_print_geomean(const char *what, const struct i22_result *r, int n);

int bench_tccg(struct bench_program *p, const struct bench_opts *o);
int bench_attention(struct bench_program *p, const struct bench_opts *o);
int bench_polybench(struct bench_program *p, const struct bench_opts *o);

#endif
