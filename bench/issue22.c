/*
 * issue22.c: one kernel of issue 22's benchmark at fixed sizes, ein's
 * three ways next to C peers: checked, timed, printed (issue22.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "issue22.h"

/* ein's ways of compiling a kernel, in the table's order. */
enum way { WAY_DEFAULT, WAY_NO_AUTO, WAY_TUNED, N_WAY };
static const char *const way_name[N_WAY] = {
	"ein default", "ein --no-auto", "ein tuned"
};

/* One implementation: an ein kernel "k" or the peer "peer".
 * out: its outputs; args: every tensor in signature order (ein);
 * inp, outp: the inputs' and outputs' data (peers); first: the seconds
 * of its first call (-1: stopped at the time limit). */
struct impl {
	const char *name;
	ein_kernel *k;
	const struct i22_peer *peer;
	struct bench_tensor out[I22_MAX_TENSOR];
	int n_out;
	DLTensor *args[I22_MAX_TENSOR];
	int n_arg;
	float *inp[I22_MAX_TENSOR], *outp[I22_MAX_TENSOR];
	const struct i22_data *d;
	double first;
};

ein_program *i22_read(struct bench_program *p, const struct bench_opts *o,
	const char *file)
{
	char path[1024];
	ein_program *prog;

	snprintf(path, sizeof(path), "%s/%s", o->dir, file);
	prog = ein_program_read_file(p->ctx, path);
	if (!prog)
		fprintf(stderr, "bench: %s\n", ein_ctx_last_error(p->ctx));
	return prog;
}

int64_t i22_size(const char *sizes, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	for (s = sizes; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (strncmp(s, name, n) == 0 && s[n] == '=')
			return strtoll(s + n + 1, NULL, 10);
	return -1;
}

/* Compile k's definition the way "w" at the sizes of "d", fixed; NULL
 * after a message. */
static ein_kernel *compile(struct bench_program *p, const struct i22_kernel *k,
	const struct i22_data *d, enum way w, const char *tuned)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *kern = NULL;
	int i, ok = opts != NULL;

	if (ok && w == WAY_NO_AUTO)
		ok = ein_options_set_schedule_lookup(opts, 0) == EIN_OK;
	if (ok && w == WAY_TUNED)
		ok = ein_options_set_schedule(opts, tuned) == EIN_OK;
	for (i = 0; ok && i < d->n_size; ++i)
		ok = ein_options_fix_size(opts, d->names[i], d->values[i]) ==
			EIN_OK;
	if (ok)
		kern = ein_kernel_compile_with(k->prog, k->def, opts);
	ein_options_free(opts);
	if (!kern)
		fprintf(stderr, "bench: cannot compile %s (%s):\n%s\n", k->def,
			way_name[w], ein_ctx_last_error(p->ctx));
	return kern;
}

/* The sizes of k->sizes in the definition's order. */
static int read_sizes(struct i22_data *d, const struct i22_kernel *k)
{
	int i;

	d->n_size = ein_program_n_size(k->prog, k->def);
	if (d->n_size < 0 || d->n_size > 8)
		return -1;
	for (i = 0; i < d->n_size; ++i) {
		d->names[i] = ein_program_get_size_name(k->prog, k->def, i);
		d->values[i] = d->names[i] ? i22_size(k->sizes, d->names[i]) : -1;
		if (d->values[i] < 1) {
			fprintf(stderr, "bench: %s: size %s missing from %s\n",
				k->def, d->names[i] ? d->names[i] : "?",
				k->sizes);
			return -1;
		}
	}
	return 0;
}

/* Allocate tensor "pos" of "kern" at d's sizes. */
static int alloc_tensor(struct bench_tensor *t, ein_kernel *kern, int pos,
	const struct i22_data *d)
{
	int64_t shape[8];
	int nd = ein_kernel_tensor_ndim(kern, pos);

	if (nd < 0 || nd > 8 || ein_kernel_tensor_shape(kern, pos, d->values,
	    d->n_size, shape) != EIN_OK)
		return -1;
	return bench_tensor_alloc(t, nd, shape);
}

/* The inputs, filled with distinct uniform values. */
static int alloc_inputs(struct i22_data *d, ein_kernel *kern)
{
	int pos, n = ein_kernel_n_tensor(kern);

	d->n_in = 0;
	for (pos = 0; pos < n; ++pos) {
		if (!ein_kernel_tensor_is_input(kern, pos))
			continue;
		if (d->n_in == I22_MAX_TENSOR ||
		    alloc_tensor(&d->in[d->n_in], kern, pos, d) != 0)
			return -1;
		bench_tensor_fill(&d->in[d->n_in], 1000 + 77 * pos);
		d->n_in++;
	}
	return 0;
}

/* Give "m" its own outputs and its argument lists. */
static int impl_init(struct impl *m, ein_kernel *shape_of,
	const struct i22_data *d)
{
	int pos, n = ein_kernel_n_tensor(shape_of), in = 0;

	m->d = d;
	m->n_out = m->n_arg = 0;
	for (pos = 0; pos < n && pos < I22_MAX_TENSOR; ++pos) {
		if (ein_kernel_tensor_is_input(shape_of, pos)) {
			m->inp[in] = d->in[in].f;
			m->args[m->n_arg++] = (DLTensor *) &d->in[in++].dl;
			continue;
		}
		if (alloc_tensor(&m->out[m->n_out], shape_of, pos, d) != 0)
			return -1;
		m->outp[m->n_out] = m->out[m->n_out].f;
		m->args[m->n_arg++] = &m->out[m->n_out++].dl;
	}
	return pos == n ? 0 : -1;
}

static void impl_free(struct impl *m)
{
	int i;

	for (i = 0; i < m->n_out; ++i)
		bench_tensor_free(&m->out[i]);
	ein_kernel_free(m->k);
}

/* One call of "m" (bench_variant's run). */
static int impl_run(void *arg)
{
	struct impl *m = arg;

	if (m->peer)
		return m->peer->fn(m->peer->data, m->inp, m->outp);
	return ein_kernel_call(m->k, m->args, m->n_arg, m->d->values,
		m->d->n_size) == EIN_OK ? 0 : -1;
}

/* Compare m's outputs with the reference's: within 1e-3 relative plus
 * 1e-4 of the reference's largest magnitude (float32 sums in other
 * orders, ein's exp within an ulp; a wrong index is off by the values
 * themselves).  Returns 0 if all agree. */
static int compare(const struct impl *m, const struct impl *ref,
	const char *def)
{
	int i;

	for (i = 0; m != ref && i < m->n_out; ++i) {
		double big = 0, err;
		int64_t j, bad;

		for (j = 0; j < ref->out[i].n; ++j)
			big = fmax(big, fabs(ref->out[i].f[j]));
		bad = bench_compare_f(m->out[i].f, ref->out[i].f,
			ref->out[i].n, 1e-3, 1e-4 * big, &err);
		if (bad) {
			fprintf(stderr, "bench: %s: output %d of %s differs "
				"from %s's at %lld elements (max |error| %g, "
				"max |value| %g)\n", def, i, m->name,
				ref->name, (long long) bad, err, big);
			return -1;
		}
	}
	return 0;
}

/* Run "m" once, timed, and compare its outputs with the reference's;
 * 0 if it ran and agrees. */
static int check(struct impl *m, const struct impl *ref, const char *def,
	ein_ctx *ctx)
{
	double t = bench_now();

	if (impl_run(m) != 0) {
		fprintf(stderr, "bench: %s: %s failed%s%s\n", def, m->name,
			m->k ? ": " : "", m->k ? ein_ctx_last_error(ctx) : "");
		return -1;
	}
	m->first = bench_now() - t;
	return compare(m, ref, def);
}

/* check() in a child process stopped after "limit" seconds, so that an
 * ein way far slower than its peers (--no-auto on a large contraction
 * takes minutes) costs at most that: m->first is then -1.  Returns 0 if
 * the call agrees with the reference or ran out of time. */
static int check_limited(struct impl *m, const struct impl *ref,
	const char *def, ein_ctx *ctx, double limit)
{
	struct pollfd pfd;
	double first = -1;
	int fd[2], status = 0, ok = 0, ready;
	pid_t pid;

	fflush(NULL);
	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return check(m, ref, def, ctx);
	if (pid == 0) {
		first = check(m, ref, def, ctx) == 0 ? m->first : -2;
		_exit(write(fd[1], &first, sizeof(first)) == sizeof(first) ?
			0 : 1);
	}
	close(fd[1]);
	pfd = (struct pollfd) { fd[0], POLLIN, 0 };
	ready = poll(&pfd, 1, (int) (limit * 1e3));
	if (ready == 1 && read(fd[0], &first, sizeof(first)) == sizeof(first))
		ok = first >= 0;
	else if (ready == 0) {
		kill(pid, SIGKILL);
		ok = 1;
	} else
		fprintf(stderr, "bench: %s: %s: its check ended without a "
			"result\n", def, m->name);
	waitpid(pid, &status, 0);
	close(fd[0]);
	m->first = first;
	return ok ? 0 : -1;
}

void i22_print_head(const char *peers)
{
	printf("\n| kernel | GFLOP | %s | ein default | ein --no-auto | "
		"ein tuned | best peer / default | best peer / tuned |\n",
		peers);
	printf("|---|---|");
	for (; *peers; ++peers)
		if (*peers == '|')
			printf("---|");
	printf("---|---|---|---|---|---|\n");
}

/* A median in ms; "one": a single call's time (marked *), or a call
 * stopped at the limit (s < 0: "> limit"). */
static void print_ms(double s, int one, double limit)
{
	if (one && s < 0)
		printf(" > %.0f s |", limit);
	else if (s < 0)
		printf(" - |");
	else
		printf(" %.*f%s |", s >= 1 ? 0 : s >= 0.01 ? 2 : 4, s * 1e3,
			one ? "*" : "");
}

/* The ratio of the peer's time over x's ("-" for a time not known). */
static void print_ratio(double peer, double x)
{
	if (peer < 0 || x <= 0)
		printf(" - |");
	else
		printf(" %.2f |", peer / x);
}

/* Print the row of "n" implementations (the peers, then ein's ways in
 * way_name's order, absent ones left out) and fill *r.  A median of a
 * single call is marked (slow[i]). */
static void print_row(const struct i22_kernel *k, double gflop,
	const struct bench_variant *v, const struct impl *m, const int *slow,
	int n, double limit, struct i22_result *r)
{
	int i, w = 0;
	double *ein[N_WAY] = { &r->dflt, &r->noauto, &r->tuned };

	r->peer = r->dflt = r->noauto = r->tuned = -1;
	printf("| %s | %.3g |", k->label, gflop);
	for (i = 0; i < n; ++i) {
		if (m[i].peer) {
			print_ms(v[i].median, slow[i], limit);
			if (v[i].median > 0 &&
			    (r->peer < 0 || v[i].median < r->peer))
				r->peer = v[i].median;
			continue;
		}
		for (; w < N_WAY && strcmp(way_name[w], m[i].name); ++w)
			print_ms(-1, 0, limit);
		*ein[w] = v[i].median;
		print_ms(v[i].median, slow[i], limit);
		w++;
	}
	for (; w < N_WAY; ++w)
		print_ms(-1, 0, limit);
	print_ratio(r->peer, r->dflt);
	print_ratio(r->peer, r->tuned);
	printf("\n");
	fflush(stdout);
}

/* The time limit of one ein call's check, in seconds:
 * EIN_BENCH_CALL_LIMIT, else 30. */
static double call_limit(void)
{
	const char *s = getenv("EIN_BENCH_CALL_LIMIT");

	return s && atof(s) > 0 ? atof(s) : 30;
}

/* Time every implementation: those whose checked call took over a
 * second (or ran out of time) keep that call's time (slow[i]), the
 * others are measured in interleaved rounds.  Returns the failures. */
static int measure(struct impl *m, struct bench_variant *v, int *slow,
	int n, const struct bench_opts *o)
{
	int i, failed;

	for (i = 0; i < n; ++i) {
		slow[i] = m[i].first < 0 || m[i].first > 1;
		v[i] = (struct bench_variant) { m[i].name,
			slow[i] ? NULL : &impl_run, &m[i], -1 };
	}
	failed = bench_measure(v, n, o);
	for (i = 0; i < n; ++i)
		if (slow[i])
			v[i].median = m[i].first;
	return failed;
}

/* Compile ein's ways of k into kern[] (the tuned one only where its file
 * exists).  Returns the number of failures. */
static int add_ein(struct bench_program *p, const struct bench_opts *o,
	const struct i22_kernel *k, struct i22_data *d, ein_kernel **kern)
{
	char tuned[1024];
	int w;

	if (read_sizes(d, k) != 0)
		return 1;
	snprintf(tuned, sizeof(tuned), "%s/schedules/issue22/%s.sched",
		o->dir, k->tuned ? k->tuned : k->def);
	for (w = 0; w < N_WAY; ++w) {
		if (w == WAY_TUNED && access(tuned, R_OK) != 0)
			continue;
		kern[w] = compile(p, k, d, w, tuned);
		if (!kern[w])
			return 1;
	}
	return 0;
}

int i22_run(struct bench_program *p, const struct bench_opts *o,
	struct i22_kernel *k,
	int (*make_peers)(struct i22_kernel *k, struct i22_data *d, void *arg),
	void *arg, struct i22_result *r)
{
	struct i22_data d;
	struct impl m[I22_MAX_IMPL];
	struct bench_variant v[I22_MAX_IMPL];
	ein_kernel *kern[N_WAY] = { NULL, NULL, NULL };
	int i, n = 0, failed = 0, slow[I22_MAX_IMPL];
	double gflop = 0, limit = call_limit();

	/* One thread, as the sections' titles say and the tuned schedules
	 * were tuned: by default ein and OpenBLAS would take every CPU, and
	 * a schedule tuned on one thread with a parallel loop inside a
	 * sequential one (atax's "y: parallel j" under "tmp: compute_at
	 * y i") then pays a fork-join per row: 38x slower on two loaded
	 * CPUs. */
	bench_set_threads(1);
	memset(&d, 0, sizeof(d));
	memset(m, 0, sizeof(m));
	r->peer = r->dflt = r->noauto = r->tuned = -1;
	k->n_peer = 0;
	failed = add_ein(p, o, k, &d, kern);
	if (!failed && (alloc_inputs(&d, kern[0]) != 0 ||
	    make_peers(k, &d, arg) != 0)) {
		fprintf(stderr, "bench: %s: out of memory\n", k->def);
		failed = 1;
	}
	for (i = 0; !failed && i < k->n_peer; ++i) {
		m[n].name = k->peers[i].name;
		m[n].peer = &k->peers[i];
		failed += impl_init(&m[n++], kern[0], &d) != 0;
	}
	for (i = 0; !failed && i < N_WAY; ++i) {
		if (!kern[i])
			continue;
		m[n].name = way_name[i];
		m[n].k = kern[i];
		kern[i] = NULL;
		failed += impl_init(&m[n], m[n].k, &d) != 0;
		n++;
	}
	for (i = 0; !failed && i < n; ++i)
		failed += (m[i].k ? check_limited(&m[i], &m[0], k->def, p->ctx,
			limit) : check(&m[i], &m[0], k->def, p->ctx)) != 0;
	if (!failed) {
		gflop = ein_kernel_flops(m[n - 1].k, d.values, d.n_size) / 1e9;
		failed += measure(m, v, slow, n, o);
		print_row(k, gflop, v, m, slow, n, limit, r);
	}
	for (i = 0; i < N_WAY; ++i)
		ein_kernel_free(kern[i]);
	for (i = 0; i < n; ++i)
		impl_free(&m[i]);
	for (i = 0; i < k->n_peer; ++i)
		if (k->peers[i].free_data)
			k->peers[i].free_data(k->peers[i].data);
	for (i = 0; i < d.n_in; ++i)
		bench_tensor_free(&d.in[i]);
	return failed;
}

void i22_print_geomean(const char *what, const struct i22_result *r, int n)
{
	double s[N_WAY] = { 0, 0, 0 };
	int c[N_WAY] = { 0, 0, 0 }, i;

	for (i = 0; i < n; ++i) {
		const double x[N_WAY] = { r[i].dflt, r[i].noauto, r[i].tuned };
		int w;

		for (w = 0; w < N_WAY; ++w)
			if (r[i].peer > 0 && x[w] > 0) {
				s[w] += log(r[i].peer / x[w]);
				c[w]++;
			}
	}
	printf("\n%s: geometric mean of best peer / ein: default %.3f "
		"(%d kernels), --no-auto %.3f (%d), tuned %.3f (%d).\n", what,
		c[0] ? exp(s[0] / c[0]) : 0, c[0], c[1] ? exp(s[1] / c[1]) : 0,
		c[1], c[2] ? exp(s[2] / c[2]) : 0, c[2]);
}
