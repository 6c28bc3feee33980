/*
 * check_kernel_files.c: every kernel in the .ein files of tests/kernels, compiled and
 * run at the sizes its header gives, against the reference interpreter.
 *
 * The header (see tests/kernels/README) is a set of comment lines
 *
 *     # sizes: M=7 N=13 K=5; M=64 N=33 K=17
 *     # range: X=0.1:2
 *     # tol: 2*K
 *
 * each of which may name one definition ("# sizes matvec: ...") to apply
 * to it alone; a line that names the definition wins over one that names
 * none.  Every definition is compiled once, with its sizes symbolic, and
 * run at every size set.  Inputs are uniform pseudo-random values in their
 * range (default -1:1) from a fixed seed; the compiled kernel and the
 * interpreter get the same inputs and zeroed outputs (a tensor updated in
 * place is an input: it gets random data).  Every element of
 * every output must satisfy
 *
 *     |compiled - reference| <= tol * eps * (1 + |reference|)
 *
 * with eps the machine epsilon of the output's type (0 for the integer
 * types, which must match exactly) and tol (default 4: a
 * few correctly rounded operations) an expression of the sizes: a float32
 * sum of L terms of magnitude at most one in any order is within about
 * L * eps of the exact sum relative to its magnitude, which is why the
 * kernels state 2 * (reduction length) plus the elementwise operations
 * around it.  The interpreter computes in double precision, so the bound
 * is that of the compiled kernel alone.  A failure names the kernel, the
 * size set, the output and its worst element.
 *
 * Every definition also runs as the C text of ein show --stage=c (the
 * C emitter over the same walker, codegen/emit_c.c), compiled by $CC into
 * a shared object, on the same inputs, with the same bound (not under
 * EIN_TEST_QUICK, the sanitizers' run).  The golden
 * inputs of tests/codegen run here too, each with its schedule X.sched
 * where it has one (the JIT code and the C text alike).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include "ein.h"
#include "cli/cli.h"
#include "testutil.h"
#include "rng.h"

#define MAX_FILES 256
#define MAX_TENSORS 32
#define MAX_SIZES 16

/* The kernel files found by main, sorted by name. */
static char *kernel_files[MAX_FILES];
static int n_kernel_files;

/* A tensor of the test: its descriptor, shape and data (float or double,
 * as the kernel's signature says). */
struct ktensor {
	DLTensor dl;
	int64_t shape[8];
	int64_t n;
};

/* ---- the header -------------------------------------------------------- */

/* Copy the value of directive "key" for definition "def" in "text" into
 * val[0 .. size): the rest of a line "# key def: value" or, failing that,
 * of a line "# key: value".  Returns 1 if found, 0 if not. */
static int directive(const char *text, const char *key, const char *def,
	char *val, size_t size)
{
	const char *line, *generic = NULL, *found = NULL;
	size_t klen = strlen(key), dlen = strlen(def);

	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		const char *p = line;

		if (*p++ != '#')
			continue;
		while (*p == ' ')
			++p;
		if (strncmp(p, key, klen))
			continue;
		p += klen;
		if (*p == ':' && !generic)
			generic = p + 1;
		else if (*p == ' ' && !strncmp(p + 1, def, dlen) &&
			 p[1 + dlen] == ':')
			found = p + 2 + dlen;
	}
	if (!found)
		found = generic;
	if (!found)
		return 0;
	while (*found == ' ')
		++found;
	snprintf(val, size, "%.*s", (int) strcspn(found, "\n"), found);
	return 1;
}

/* The position of size "name" (of length len) in k, -1 if none. */
static int size_pos(ein_kernel *k, const char *name, size_t len)
{
	int i;

	for (i = 0; i < ein_kernel_n_size(k); ++i)
		if (strlen(ein_kernel_get_size_name(k, i)) == len &&
		    !strncmp(ein_kernel_get_size_name(k, i), name, len))
			return i;
	return -1;
}

/* Parse one size set "M=7 N=13" (up to ";" or the end) into sizes[] in
 * k's order.  Names the kernel does not have are skipped (a header shared
 * by several definitions names the sizes of all); each of the kernel's
 * sizes must have a value.  Returns the end of the set, NULL on error. */
static const char *parse_size_set(ein_kernel *k, const char *p,
	int64_t *sizes, char *err, size_t err_size)
{
	int i;

	for (i = 0; i < ein_kernel_n_size(k); ++i)
		sizes[i] = -1;
	for (;;) {
		const char *name;
		char *end;
		long long v;
		int pos;

		while (*p == ' ' || *p == '\t')
			++p;
		if (!*p || *p == ';')
			break;
		name = p;
		while (isalnum((unsigned char) *p) || *p == '_')
			++p;
		if (*p != '=' || p == name) {
			snprintf(err, err_size, "bad size set at '%.40s'", name);
			return NULL;
		}
		pos = size_pos(k, name, p - name);
		v = strtoll(p + 1, &end, 10);
		if (end == p + 1 || v < 1) {
			snprintf(err, err_size, "bad size value at '%.40s'", name);
			return NULL;
		}
		if (pos >= 0)
			sizes[pos] = v;
		p = end;
	}
	for (i = 0; i < ein_kernel_n_size(k); ++i)
		if (sizes[i] < 0) {
			snprintf(err, err_size, "no value for size %s",
				ein_kernel_get_size_name(k, i));
			return NULL;
		}
	return p;
}

/* The value of the factor at *p: an integer or a size of k. */
static int eval_factor(ein_kernel *k, const int64_t *sizes, const char **p,
	double *val)
{
	const char *s = *p;
	int pos;

	while (*s == ' ')
		++s;
	if (isdigit((unsigned char) *s)) {
		*val = strtod(s, (char **) p);
		return 0;
	}
	*p = s;
	while (isalnum((unsigned char) **p) || **p == '_')
		++*p;
	pos = size_pos(k, s, *p - s);
	if (pos < 0)
		return -1;
	*val = sizes[pos];
	return 0;
}

/* The value of a tolerance "term { '+' term }", term "factor { '*'
 * factor }", at the given sizes; -1 if malformed. */
static double eval_tol(ein_kernel *k, const int64_t *sizes, const char *p)
{
	double sum = 0, prod = 1, f;

	for (;;) {
		if (eval_factor(k, sizes, &p, &f) < 0)
			return -1;
		prod *= f;
		while (*p == ' ')
			++p;
		if (*p == '*') {
			++p;
			continue;
		}
		sum += prod;
		prod = 1;
		if (*p == '+') {
			++p;
			continue;
		}
		return *p ? -1 : sum;
	}
}

/* The input range of tensor "name" in the "range" directive "spec"
 * ("X=0.1:2 Y=-3:3", read as "ein run --range" reads it); -1:1 when it
 * names none. */
static void input_range(const char *spec, const char *name, double *lo,
	double *hi)
{
	int found = ein_cli_range_find(spec, name, lo, hi);

	ck_assert_msg(found >= 0, "bad range directive '%s'", spec);
	if (!found) {
		*lo = -1;
		*hi = 1;
	}
}

/* ---- tensors ----------------------------------------------------------- */

static int is_f64(const struct ktensor *t)
{
	return t->dl.dtype.code == kDLFloat && t->dl.dtype.bits == 64;
}

static int is_int(const struct ktensor *t)
{
	return t->dl.dtype.code != kDLFloat;
}

/* Element i as a double: every element type of the language (float32,
 * float64, int32, int8, uint8 and bool as uint8) is exact in a double. */
static double get(const struct ktensor *t, int64_t i)
{
	const void *d = t->dl.data;

	if (t->dl.dtype.code == kDLFloat)
		return is_f64(t) ? ((const double *) d)[i] :
			((const float *) d)[i];
	if (t->dl.dtype.bits == 32)
		return ((const int32_t *) d)[i];
	return t->dl.dtype.code == kDLInt ? ((const int8_t *) d)[i] :
		((const uint8_t *) d)[i];
}

/* Store v, rounded towards zero for the integer types (whose inputs the
 * header's ranges keep representable). */
static void set(struct ktensor *t, int64_t i, double v)
{
	void *d = t->dl.data;

	if (t->dl.dtype.code == kDLFloat && is_f64(t))
		((double *) d)[i] = v;
	else if (t->dl.dtype.code == kDLFloat)
		((float *) d)[i] = (float) v;
	else if (t->dl.dtype.bits == 32)
		((int32_t *) d)[i] = (int32_t) v;
	else if (t->dl.dtype.code == kDLInt)
		((int8_t *) d)[i] = (int8_t) v;
	else
		((uint8_t *) d)[i] = (uint8_t) v;
}

/* Allocate tensor "pos" of k at "sizes", zero-filled. */
static void ktensor_alloc(struct ktensor *t, ein_kernel *k, int pos,
	const int64_t *sizes)
{
	int d, ndim = ein_kernel_tensor_ndim(k, pos);

	memset(t, 0, sizeof(*t));
	ck_assert_int_le(ndim, 8);
	ck_assert_int_eq(ein_kernel_tensor_dtype(k, pos, &t->dl.dtype),
		EIN_OK);
	ck_assert_int_eq(ein_kernel_tensor_shape(k, pos, sizes,
		ein_kernel_n_size(k), t->shape), EIN_OK);
	t->n = 1;
	for (d = 0; d < ndim; ++d)
		t->n *= t->shape[d];
	t->dl.ndim = ndim;
	t->dl.shape = t->shape;
	t->dl.device.device_type = kDLCPU;
	t->dl.data = calloc(t->n + 1, t->dl.dtype.bits / 8);
	ck_assert_ptr_nonnull(t->dl.data);
}

/* Fill "a" and its copy "b" with the same random values in [lo, hi)
 * (integers lo..hi-1), as "ein run --range" draws them. */
static void ktensor_fill(struct ktensor *a, struct ktensor *b, double lo,
	double hi, uint64_t seed)
{
	int64_t i;

	enum ein_cli_value_kind kind = is_int(a) ? EIN_CLI_VALUE_INT :
		is_f64(a) ? EIN_CLI_VALUE_F64 : EIN_CLI_VALUE_F32;

	for (i = 0; i < a->n; ++i) {
		double u = (ein_rng_next(&seed) >> 11) * 0x1p-53;

		set(a, i, ein_cli_value_in_range(u, lo, hi, kind));
		set(b, i, get(a, i));
	}
}

/* The worst element of output "out" against "ref": the largest
 * |out - ref| / (1 + |ref|), NaN on either side counting as infinite.
 * Its position goes to *at. */
static double worst_element(const struct ktensor *out,
	const struct ktensor *ref, int64_t *at)
{
	double worst = 0;
	int64_t i;

	*at = 0;
	for (i = 0; i < out->n; ++i) {
		double v = get(out, i), r = get(ref, i);
		double e = fabs(v - r) / (1 + fabs(r));

		if (isnan(e))
			e = INFINITY;
		if (e > worst) {
			worst = e;
			*at = i;
		}
	}
	return worst;
}

/* ---- one definition at one size set ------------------------------------ */

/* Append a line to the failure report "msg". */
static void report(char *msg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void report(char *msg, size_t size, const char *fmt, ...)
{
	size_t len = strlen(msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + len, size - len, fmt, ap);
	va_end(ap);
}

/* The sizes as "M=7 N=13" for messages. */
static void sizes_text(ein_kernel *k, const int64_t *sizes, char *buf,
	size_t size)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < ein_kernel_n_size(k); ++i)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s=%lld",
			i ? " " : "", ein_kernel_get_size_name(k, i),
			(long long) sizes[i]);
}

/* Compare the outputs "out" of "k" (run as "how") with "ref" within
 * "tol" eps ("tol_spec"); append a line to "msg" for each beyond it.
 * Returns the number of failing outputs. */
static int compare_outputs(ein_kernel *k, const char *def, const char *how,
	const char *stext, struct ktensor *out, struct ktensor *ref,
	double tol, const char *tol_spec, char *msg, size_t msg_size)
{
	int i, failed = 0;

	for (i = 0; i < ein_kernel_n_tensor(k); ++i) {
		double eps = is_f64(&out[i]) ? DBL_EPSILON : is_int(&out[i]) ?
			0 : FLT_EPSILON, w;
		int64_t at;

		if (!ein_kernel_tensor_is_output(k, i))
			continue;
		w = worst_element(&out[i], &ref[i], &at);
		if (eps == 0)
			printf("%s (%s) at %s: %s %s the reference exactly (an "
				"integer type)\n", def, how, stext,
				ein_kernel_get_tensor_name(k, i),
				w == 0 ? "matches" : "does not match");
		else
			printf("%s (%s) at %s: %s within %.3g eps of the "
				"reference (tol %g)\n", def, how, stext,
				ein_kernel_get_tensor_name(k, i), w / eps, tol);
		if (w <= tol * eps)
			continue;
		failed++;
		report(msg, msg_size, "\n  %s (%s) at %s: %s[%lld] = %.9g, "
			"reference %.9g: error %.3g * (1 + |ref|) > tol %s = "
			"%g eps", def, how, stext,
			ein_kernel_get_tensor_name(k, i), (long long) at,
			get(&out[i], at), get(&ref[i], at), w, tol_spec, tol);
	}
	return failed;
}

/* An argument of a kernel's C function: a pointer or an int64_t. */
typedef intptr_t c_arg;

#define C_ARGS_1 c_arg
#define C_ARGS_2 C_ARGS_1, c_arg
#define C_ARGS_3 C_ARGS_2, c_arg
#define C_ARGS_4 C_ARGS_3, c_arg
#define C_ARGS_5 C_ARGS_4, c_arg
#define C_ARGS_6 C_ARGS_5, c_arg
#define C_ARGS_7 C_ARGS_6, c_arg
#define C_ARGS_8 C_ARGS_7, c_arg
#define C_ARGS_9 C_ARGS_8, c_arg
#define C_ARGS_10 C_ARGS_9, c_arg
#define C_ARGS_11 C_ARGS_10, c_arg
#define C_ARGS_12 C_ARGS_11, c_arg
#define C_CALL(n, ...) case n: return ((int (*)(C_ARGS_##n)) fn)(__VA_ARGS__)

/* Call the kernel's C function "fn" with the "n" arguments "a".  Its
 * parameters are pointers and int64_t, which the C calling conventions
 * of x86-64 and AArch64 pass alike, in order, in integer registers and
 * then on the stack: a function type of as many intptr_t parameters
 * calls it as its own type would.  Returns -1 for too many arguments. */
static int call_c(void *fn, const c_arg *a, int n)
{
	switch (n) {
	C_CALL(1, a[0]);
	C_CALL(2, a[0], a[1]);
	C_CALL(3, a[0], a[1], a[2]);
	C_CALL(4, a[0], a[1], a[2], a[3]);
	C_CALL(5, a[0], a[1], a[2], a[3], a[4]);
	C_CALL(6, a[0], a[1], a[2], a[3], a[4], a[5]);
	C_CALL(7, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
	C_CALL(8, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	C_CALL(9, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
	C_CALL(10, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
		a[9]);
	C_CALL(11, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
		a[9], a[10]);
	C_CALL(12, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
		a[9], a[10], a[11]);
	default: return -1;
	}
}

/* Run the C function "fn" of "k" on the tensors "t" at "sizes": the
 * tensors in signature order, then the sizes, as the prototype of
 * ein show --stage=c has them. */
static int run_c(void *fn, ein_kernel *k, struct ktensor *t,
	const int64_t *sizes)
{
	int i, n = ein_kernel_n_tensor(k), n_size = ein_kernel_n_size(k);
	c_arg a[MAX_TENSORS + MAX_SIZES];

	for (i = 0; i < n; ++i)
		a[i] = (c_arg) t[i].dl.data;
	for (i = 0; i < n_size; ++i)
		a[n + i] = (c_arg) sizes[i];
	return call_c(fn, a, n + n_size);
}

/* Run "k" compiled, as the C function "cfn" and interpreted at "sizes"
 * and compare the outputs; append a line to "msg" for each output beyond
 * the bound.  Returns the number of failing outputs. */
static int run_size_set(ein_ctx *ctx, ein_kernel *k, void *cfn,
	const char *text, const char *def,
	const int64_t *sizes, uint64_t seed, char *msg, size_t msg_size)
{
	int n = ein_kernel_n_tensor(k), n_size = ein_kernel_n_size(k), i;
	struct ktensor out[MAX_TENSORS], ref[MAX_TENSORS], cout[MAX_TENSORS];
	DLTensor *a_out[MAX_TENSORS], *a_ref[MAX_TENSORS];
	char ranges[512] = "", tol_spec[128] = "4", stext[256];
	double tol;
	int failed;

	ck_assert_int_le(n, MAX_TENSORS);
	directive(text, "range", def, ranges, sizeof(ranges));
	directive(text, "tol", def, tol_spec, sizeof(tol_spec));
	tol = eval_tol(k, sizes, tol_spec);
	ck_assert_msg(tol >= 0, "%s: bad tol '%s'", def, tol_spec);
	sizes_text(k, sizes, stext, sizeof(stext));
	for (i = 0; i < n; ++i) {
		double lo, hi;

		ktensor_alloc(&out[i], k, i, sizes);
		ktensor_alloc(&ref[i], k, i, sizes);
		ktensor_alloc(&cout[i], k, i, sizes);
		input_range(ranges, ein_kernel_get_tensor_name(k, i), &lo, &hi);
		if (ein_kernel_tensor_is_input(k, i)) {
			ktensor_fill(&out[i], &ref[i], lo, hi, seed + 977 * i);
			ktensor_fill(&out[i], &cout[i], lo, hi,
				seed + 977 * i);
		}
		a_out[i] = &out[i].dl;
		a_ref[i] = &ref[i].dl;
	}
	ck_assert_msg(ein_kernel_call(k, a_out, n, sizes, n_size) == EIN_OK,
		"%s (%s): %s", def, stext, ein_ctx_last_error(ctx));
	ck_assert_msg(ein_kernel_call_reference(k, a_ref, n, sizes, n_size) ==
		EIN_OK, "%s (%s): the reference interpreter failed", def, stext);
	ck_assert_msg(!cfn || run_c(cfn, k, cout, sizes) == 0,
		"%s (%s): its C function failed", def, stext);
	failed = compare_outputs(k, def, "compiled", stext, out, ref, tol,
		tol_spec, msg, msg_size);
	if (cfn)
		failed += compare_outputs(k, def, "C text", stext, cout, ref,
			tol, tol_spec, msg, msg_size);
	for (i = 0; i < n; ++i) {
		free(out[i].dl.data);
		free(ref[i].dl.data);
		free(cout[i].dl.data);
	}
	return failed;
}

/* Definition "def" of "prog" as C text (ein show --stage=c) compiled by
 * $CC into a shared object in "dir" and loaded: its function, and its
 * handle in *handle. */
static void *compile_c(ein_program *prog, const char *def,
	const ein_options *opts, const char *dir, void **handle)
{
	char *text = ein_program_show_with(prog, def, EIN_STAGE_C, opts);
	const char *cc = getenv("CC");
	char src[4200], so[4200], cmd[9000];
	FILE *f;
	void *fn;

	ck_assert_msg(text != NULL, "%s: no C text", def);
	snprintf(src, sizeof(src), "%s/%s.c", dir, def);
	snprintf(so, sizeof(so), "%s/%s.so", dir, def);
	f = fopen(src, "w");
	ck_assert_msg(f != NULL, "cannot write %s", src);
	fputs(text, f);
	fclose(f);
	free(text);
	snprintf(cmd, sizeof(cmd), "%s -std=c99 -O1 -fPIC -shared -o %s %s "
		"-lm", cc && *cc ? cc : "cc", so, src);
	ck_assert_msg(system(cmd) == 0, "%s: '%s' failed", def, cmd);
	*handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(*handle != NULL, "%s: %s", so, dlerror());
	fn = dlsym(*handle, def);
	ck_assert_msg(fn != NULL, "%s: no function %s", so, def);
	return fn;
}

/* ---- one file ---------------------------------------------------------- */

/* Remove the files of "def" in "dir", and "dir". */
static void remove_dir(const char *dir, const char *def)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.c", dir, def);
	remove(path);
	snprintf(path, sizeof(path), "%s/%s.so", dir, def);
	remove(path);
	rmdir(dir);
}

/* Compile definition "def" of "prog" once and run it at every size set of
 * its header; append failures to "msg".  Returns the number of failures. */
static int check_def(ein_ctx *ctx, ein_program *prog,
	const ein_options *opts, const char *text, const char *def,
	uint64_t seed, char *msg, size_t msg_size)
{
	ein_kernel *k = ein_kernel_compile_with(prog, def, opts);
	int64_t sizes[MAX_SIZES];
	char spec[1024], err[256], dir[] = "/tmp/ein_check_c_XXXXXX";
	void *cfn = NULL, *handle = NULL;
	const char *p;
	int failed = 0, n_set = 0;

	ck_assert_msg(k != NULL, "%s: %s", def, ein_ctx_last_error(ctx));
	ck_assert_msg(mkdtemp(dir) != NULL, "cannot make %s", dir);
	/* Not in the sanitizers' run: the C emitter runs under them in
	 * tests/codegen.test and the OpenCL tests, and half of this test's
	 * time under them was its second compile of each kernel. */
	if (!tt_quick())
		cfn = compile_c(prog, def, opts, dir, &handle);
	ck_assert_int_le(ein_kernel_n_size(k), MAX_SIZES);
	ck_assert_msg(directive(text, "sizes", def, spec, sizeof(spec)),
		"%s: no '# sizes:' line", def);
	for (p = spec; *p; ++n_set) {
		p = parse_size_set(k, p, sizes, err, sizeof(err));
		ck_assert_msg(p != NULL, "%s: %s in '%s'", def, err, spec);
		failed += run_size_set(ctx, k, cfn, text, def, sizes,
			seed + 7919 * n_set, msg, msg_size);
		if (*p == ';')
			++p;
	}
	ck_assert_msg(n_set >= 2, "%s: %d size set(s), at least 2 needed",
		def, n_set);
	if (handle)
		dlclose(handle);
	remove_dir(dir, def);
	ein_kernel_free(k);
	return failed;
}

START_TEST(kernel_file)
{
	const char *path = kernel_files[_i];
	char *text = tt_read_text(path), msg[8192] = "", sched[4200];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	ein_program *prog;
	int d, failed = 0;

	ck_assert_msg(text != NULL, "cannot read %s", path);
	snprintf(sched, sizeof(sched), "%.*s.sched",
		(int) strlen(path) - 4, path);
	if (access(sched, R_OK) == 0)
		ck_assert_int_eq(ein_options_set_schedule(opts, sched),
			EIN_OK);
	prog = ein_program_parse(ctx, text, path);
	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	for (d = 0; d < ein_program_n_def(prog); ++d)
		failed += check_def(ctx, prog, opts, text,
			ein_program_get_def_name(prog, d), 1000 * (d + 1),
			msg, sizeof(msg));
	ck_assert_msg(failed == 0, "%s: %d output(s) beyond the bound:%s",
		path, failed, msg);
	ein_program_free(prog);
	ein_options_free(opts);
	ein_ctx_free(ctx);
	free(text);
}
END_TEST

int main(void)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	char dir[4096];
	Suite *s = suite_create("kernel_files");
	TCase *tc = tcase_create("catalogue");
	SRunner *sr;
	int failed, i, n;

	snprintf(dir, sizeof(dir), "%s/tests/kernels", srcdir ? srcdir : ".");
	if ((n_kernel_files = tt_list_files(dir, ".ein", kernel_files,
		MAX_FILES)) < 0 || n_kernel_files < 40) {
		fprintf(stderr, "%s: %d kernel files, 40 expected\n", dir,
			n_kernel_files);
		return EXIT_FAILURE;
	}
	snprintf(dir, sizeof(dir), "%s/tests/codegen", srcdir ? srcdir : ".");
	n = tt_list_files(dir, ".ein", kernel_files + n_kernel_files,
		MAX_FILES - n_kernel_files);
	if (n < 4) {
		fprintf(stderr, "%s: %d files, 4 expected\n", dir, n);
		return EXIT_FAILURE;
	}
	n_kernel_files += n;
	/* One test per file: each definition is JIT-compiled once (about
	 * 0.2 s with LLVM's O3 pipeline) and run at two or three sizes, and
	 * the interpreter takes up to a second on the largest sets; under
	 * ASan/UBSan all of it is several times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, kernel_file, 0, n_kernel_files);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (i = 0; i < n_kernel_files; ++i)
		free(kernel_files[i]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
