/*
 * value_range.c: the ranges of random input values, "NAME=LO:HI", as
 * "ein run --range" and the "# range:" header of tests/kernels spell them.
 *
 * A list is NAME=LO:HI entries separated by commas or spaces
 * ("A=0:1,B=-2:2" or "X=0.1:2 Y=-3:3"); LO and HI are numbers with
 * LO < HI.  Floats are then uniform in [LO, HI), integers in LO..HI-1
 * (ein_cli_value_in_range).  The kernel tests (tests/unit/
 * check_kernel_files.c) link this file, so that both read one syntax and
 * give one meaning.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

static int is_separator(char c)
{
	return c == ',' || isspace((unsigned char) c);
}

/* Parse a finite number at "p" ending at a character of "stops" (or the
 * end of the string); NULL if there is none. */
static const char *parse_number(const char *p, const char *stops,
	double *v)
{
	char *end;

	*v = strtod(p, &end);
	if (end == p || !isfinite(*v) || (*end && !strchr(stops, *end)))
		return NULL;
	return end;
}

/* Parse the entry at "p": its name (start and length) and range.
 * Returns the position after it, NULL if it is malformed. */
static const char *parse_entry(const char *p, const char **name,
	size_t *len, double *lo, double *hi)
{
	const char *eq = strchr(p, '=');

	*name = p;
	*len = eq ? (size_t) (eq - p) : 0;
	if (!eq || *len == 0 || memchr(p, ',', *len) || memchr(p, ' ', *len))
		return NULL;
	p = parse_number(eq + 1, ":", lo);
	if (!p || *p != ':')
		return NULL;
	p = parse_number(p + 1, ", \t\n", hi);
	if (!p || !(*lo < *hi))
		return NULL;
	return p;
}

/* Go over the entries of "spec", calling "fn" on each; stop at a
 * malformed one and return -1 after setting *bad to it. */
static int foreach_entry(const char *spec, const char **bad,
	void (*fn)(const char *name, size_t len, double lo, double hi,
		void *user), void *user)
{
	const char *p = spec ? spec : "";

	for (;;) {
		const char *name;
		size_t len;
		double lo, hi;

		while (*p && is_separator(*p))
			++p;
		if (!*p)
			return 0;
		*bad = p;
		p = parse_entry(p, &name, &len, &lo, &hi);
		if (!p)
			return -1;
		fn(name, len, lo, hi, user);
	}
}

/* The name looked for and what was found. */
struct find {
	const char *name;
	int found;
	double lo, hi;
};

static void match(const char *name, size_t len, double lo, double hi,
	void *user)
{
	struct find *f = user;

	if (strlen(f->name) != len || strncmp(f->name, name, len))
		return;
	f->found = 1;
	f->lo = lo;
	f->hi = hi;
}

int ein_cli_range_find(const char *spec, const char *name, double *lo,
	double *hi)
{
	struct find f = { .name = name };
	const char *bad;

	if (foreach_entry(spec, &bad, &match, &f) < 0)
		return -1;
	if (f.found) {
		*lo = f.lo;
		*hi = f.hi;
	}
	return f.found;
}

static void ignore(const char *name, size_t len, double lo, double hi,
	void *user)
{
}

int ein_cli_range_check(const char *spec, const char *what)
{
	const char *bad;

	if (foreach_entry(spec, &bad, &ignore, NULL) == 0)
		return 0;
	fprintf(stderr, "ein: error: bad range '%.*s' in %s: expected "
		"NAME=LO:HI with numbers LO < HI\n", (int) strcspn(bad, ", \t\n"),
		bad, what);
	return -1;
}

double ein_cli_value_in_range(double u, double lo, double hi,
	enum ein_cli_value_kind kind)
{
	double v = lo + (hi - lo) * u;
	float f;

	if (kind == EIN_CLI_VALUE_INT)
		return floor(v);
	if (kind == EIN_CLI_VALUE_F64)
		return v < hi ? v : lo;
	f = (float) v;
	while (f > lo && f >= hi)
		f = nextafterf(f, -INFINITY);
	while (f < hi && f < lo)
		f = nextafterf(f, INFINITY);
	return f;
}

/* Name "i" of the kernel's tensors that --range may name. */
static int is_named_input(ein_kernel *k, int i, const char *name,
	size_t len)
{
	const char *t = ein_kernel_get_tensor_name(k, i);

	return ein_kernel_tensor_is_input(k, i) == 1 && strlen(t) == len &&
		!strncmp(t, name, len);
}

/* The kernel and the first entry it refuses, if any. */
struct refuse {
	ein_kernel *k;
	const char *name;
	size_t len;
	int pos;
	double lo, hi;
};

static void find_unknown(const char *name, size_t len, double lo, double hi,
	void *user)
{
	struct refuse *r = user;
	int i;

	if (r->name)
		return;
	for (i = 0; i < ein_kernel_n_tensor(r->k); ++i)
		if (is_named_input(r->k, i, name, len))
			break;
	if (i < ein_kernel_n_tensor(r->k))
		return;
	r->name = name;
	r->len = len;
}

static void print_inputs(ein_kernel *k)
{
	int i, n = 0;

	for (i = 0; i < ein_kernel_n_tensor(k); ++i)
		if (ein_kernel_tensor_is_input(k, i) == 1)
			fprintf(stderr, "%s%s", n++ ? ", " : "",
				ein_kernel_get_tensor_name(k, i));
	fprintf(stderr, "%s\n", n ? "" : "none");
}

/* The values integer type "type" holds: [*lo, *hi). */
static void type_bounds(const char *type, double *lo, double *hi)
{
	*lo = -2147483648.0, *hi = 2147483648.0;
	if (!strcmp(type, "int8"))
		*lo = -128, *hi = 128;
	else if (!strcmp(type, "uint8"))
		*lo = 0, *hi = 256;
	else if (!strcmp(type, "bool"))
		*lo = 0, *hi = 2;
}

/* Check the range of integer tensor "i", if "spec" gives one: integer
 * bounds within the type's values. */
static int check_integer_range(ein_kernel *k, int i, const char *spec)
{
	const char *name = ein_kernel_get_tensor_name(k, i);
	const char *type = ein_kernel_get_tensor_type(k, i);
	double lo, hi, min, max;

	if (ein_cli_range_find(spec, name, &lo, &hi) != 1 ||
	    !strncmp(type, "float", 5))
		return 0;
	type_bounds(type, &min, &max);
	if (lo == floor(lo) && hi == floor(hi) && lo >= min && hi <= max)
		return 0;
	fprintf(stderr, "ein: error: --range %s=%g:%g: %s is %s, so its "
		"range needs integers LO < HI within %g:%g\n", name, lo, hi,
		name, type, min, max);
	return -1;
}

int ein_cli_range_check_kernel(const char *spec, ein_kernel *k)
{
	struct refuse r = { .k = k };
	const char *bad;
	int i;

	if (foreach_entry(spec, &bad, &find_unknown, &r) < 0)
		return ein_cli_range_check(spec, "--range");
	if (r.name) {
		fprintf(stderr, "ein: error: --range names '%.*s', which is "
			"not an input of the kernel; its inputs are: ",
			(int) r.len, r.name);
		print_inputs(k);
		return -1;
	}
	for (i = 0; i < ein_kernel_n_tensor(k); ++i)
		if (ein_kernel_tensor_is_input(k, i) == 1 &&
		    check_integer_range(k, i, spec) < 0)
			return -1;
	return 0;
}
