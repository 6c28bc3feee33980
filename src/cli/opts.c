/*
 * opts.c: the compile options every subcommand that compiles accepts,
 * and the one strict parser of the numbers on the command line
 * (integers, sizes in bytes, durations): every subcommand reads its
 * numbers with it, so that "--repeat abc" or "--sizes M=1e99" is an
 * error that says what was expected, never a silent 0, 1 or wrap.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* --compile-timeout DURATION: a duration as ein_cli_parse_seconds reads
 * them ("30", "30s", "2m", "500ms", as tune's --time), 0 for no limit. */
static int parse_compile_timeout(ein_options *opts, int argc, char **argv,
	int *i)
{
	const char *arg = argv[*i];
	const char *val = arg[17] == '=' ? arg + 18 :
		*i + 1 < argc ? argv[++*i] : "";
	double seconds;

	if (ein_cli_parse_seconds("ein", "--compile-timeout", val, 0,
			&seconds) < 0)
		return -1;
	if (ein_options_set_compile_timeout(opts, seconds) != EIN_OK) {
		ein_cli_bad_value("ein", "--compile-timeout", val, "a "
			"duration (60, 60s, 2m, 500ms; 0: no limit)");
		return -1;
	}
	return 1;
}

void ein_cli_progress(void *user, int done, int total, const char *what)
{
	int tty = isatty(STDERR_FILENO);

	(void) user;
	if (!what) {
		if (tty)
			fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "%s[%d/%d] compiling kernel ", tty ? "\r" : "",
		done + 1, total);
	ein_cli_print_quoted(stderr, what, 200);
	fputs(tty ? "\033[K" : "\n", stderr);
	fflush(stderr);
}

void ein_cli_progress_default(ein_options *opts)
{
	if (isatty(STDERR_FILENO))
		ein_options_set_progress(opts, &ein_cli_progress, NULL);
}

/* "--activation-bits N" at argv[*i] (N 7 or 8). */
static int parse_activation_bits(ein_options *opts, int argc, char **argv,
	int *i)
{
	int64_t bits;

	if (*i + 1 >= argc) {
		fprintf(stderr, "ein: error: --activation-bits needs 7 or 8\n");
		return -1;
	}
	if (ein_cli_parse_int("ein", "--activation-bits", argv[++*i], 7, 8,
			&bits) < 0)
		return -1;
	ein_options_set_activation_bits(opts, (int) bits);
	return 1;
}

int ein_cli_parse_option(ein_options *opts, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	if (!strcmp(arg, "--progress")) {
		ein_options_set_progress(opts, &ein_cli_progress, NULL);
		return 1;
	}
	if (!strcmp(arg, "--no-progress")) {
		ein_options_set_progress(opts, NULL, NULL);
		return 1;
	}

	if (!strcmp(arg, "--compile-timeout") ||
	    !strncmp(arg, "--compile-timeout=", 18))
		return parse_compile_timeout(opts, argc, argv, i);
	if (!strcmp(arg, "--schedule") || !strncmp(arg, "--schedule=", 11)) {
		const char *path = arg[10] == '=' ? arg + 11 :
			*i + 1 < argc ? argv[++*i] : NULL;

		if (!path || !*path) {
			fprintf(stderr, "ein: error: --schedule needs a "
				"file\n");
			return -1;
		}
		ein_options_set_schedule(opts, path);
		return 1;
	}
	if (!strcmp(arg, "--no-schedule")) {
		ein_options_set_schedule_lookup(opts, 0);
		return 1;
	}
	if (!strcmp(arg, "--no-auto")) {
		ein_options_set_auto(opts, 0);
		return 1;
	}
	if (!strcmp(arg, "--no-cost-model")) {
		ein_options_set_cost_model(opts, 0);
		return 1;
	}
	if (!strcmp(arg, "--strict-fp")) {
		ein_options_set_strict_fp(opts, 1);
		return 1;
	}
	if (!strcmp(arg, "--activation-bits"))
		return parse_activation_bits(opts, argc, argv, i);
	return 0;
}

int ein_cli_size_hints(const char *cmd, ein_options *opts, const char *spec,
	int fix)
{
	char *copy = spec ? strdup(spec) : NULL, *tok, *save = NULL;
	int ok = spec && !copy ? -1 : 0;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int64_t v;

		if (!eq || eq == tok) {
			ein_cli_bad_value(cmd, "--sizes", tok, "NAME=VALUE,...");
			ok = -1;
			break;
		}
		*eq = '\0';
		ok = ein_cli_parse_int(cmd, "a size", eq + 1, 1,
			EIN_CLI_MAX_SIZE, &v);
		if (ok == 0)
			(fix ? ein_options_fix_size : ein_options_set_size)(
				opts, tok, v);
	}
	free(copy);
	if (spec && !copy)
		fprintf(stderr, "%s: error: out of memory\n", cmd);
	return ok;
}

/* ---- numbers on the command line --------------------------------------- */

/* The longest part of an argument that a message quotes. */
#define QUOTE_MAX 40

/* Print s, at most QUOTE_MAX characters of it, quoted. */
static void print_arg(const char *s)
{
	size_t n = strlen(s);

	fputc('\'', stderr);
	ein_cli_print_quoted(stderr, s, n > QUOTE_MAX ? QUOTE_MAX : n);
	fprintf(stderr, "%s'", n > QUOTE_MAX ? "..." : "");
}

void ein_cli_bad_value(const char *cmd, const char *what, const char *s,
	const char *expected)
{
	fprintf(stderr, "%s: error: %s takes %s, not ", cmd, what, expected);
	print_arg(s);
	fputc('\n', stderr);
}

void ein_cli_print_name(FILE *f, const char *name)
{
	size_t n = strlen(name);

	ein_cli_print_quoted(f, name, n > QUOTE_MAX ? QUOTE_MAX : n);
	if (n > QUOTE_MAX)
		fputs("...", f);
}

void ein_cli_unexpected(const char *cmd, const char *arg)
{
	fprintf(stderr, "%s: error: unexpected argument ", cmd);
	print_arg(arg);
	fputc('\n', stderr);
}

void ein_cli_print_quoted(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; ++i) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* Parse the decimal digits at "s" (an optional sign, then at least one
 * digit) into *v; *end is set past them.  -1 on no digits or overflow. */
static int parse_digits(const char *s, const char **end, int64_t *v)
{
	int neg = *s == '-';
	uint64_t x = 0, limit = neg ? (uint64_t) INT64_MAX + 1 : INT64_MAX;

	if (*s == '-' || *s == '+')
		++s;
	if (!isdigit((unsigned char) *s))
		return -1;
	for (; isdigit((unsigned char) *s); ++s) {
		unsigned d = *s - '0';

		if (x > (limit - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*end = s;
	*v = neg ? (int64_t) (0 - x) : (int64_t) x;
	return 0;
}

int ein_cli_parse_int(const char *cmd, const char *what, const char *s,
	int64_t lo, int64_t hi, int64_t *v)
{
	const char *end;
	char expected[96];

	if (parse_digits(s, &end, v) == 0 && !*end && *v >= lo && *v <= hi)
		return 0;
	snprintf(expected, sizeof(expected), "an integer from %" PRId64
		" to %" PRId64, lo, hi);
	ein_cli_bad_value(cmd, what, s, expected);
	return -1;
}

int ein_cli_parse_u64(const char *cmd, const char *what, const char *s,
	uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	for (; isdigit((unsigned char) *p); ++p) {
		unsigned d = *p - '0';

		if (x > (UINT64_MAX - d) / 10)
			break;
		x = x * 10 + d;
	}
	if (p == s || *p) {
		ein_cli_bad_value(cmd, what, s, "an integer from 0 to "
			"18446744073709551615");
		return -1;
	}
	*v = x;
	return 0;
}

int ein_cli_parse_bytes(const char *cmd, const char *what, const char *s,
	int64_t *v)
{
	static const struct { const char *suffix; int shift; } unit[] = {
		{ "", 0 }, { "K", 10 }, { "M", 20 }, { "G", 30 }, { "T", 40 },
	};
	const char *end;
	size_t i;

	if (*s != '-' && *s != '+' && parse_digits(s, &end, v) == 0 &&
	    *v >= 1)
		for (i = 0; i < sizeof(unit) / sizeof(unit[0]); ++i)
			if (!strcmp(end, unit[i].suffix) &&
			    *v <= INT64_MAX >> unit[i].shift) {
				*v <<= unit[i].shift;
				return 0;
			}
	ein_cli_bad_value(cmd, what, s, "a positive number of bytes "
		"(suffix K, M, G or T for 2^10 ... 2^40) below 2^63");
	return -1;
}

int ein_cli_parse_seconds(const char *cmd, const char *what, const char *s,
	int positive, double *v)
{
	char *end;
	double x;

	/* strtod alone would also take "inf", "nan", hex and spaces. */
	if (isdigit((unsigned char) *s) || (*s == '.' &&
	    isdigit((unsigned char) s[1]))) {
		x = strtod(s, &end);
		if (!strcmp(end, "m"))
			x *= 60;
		else if (!strcmp(end, "ms"))
			x /= 1000;
		else if (*end && strcmp(end, "s"))
			x = -1;
		if (strspn(s, "0123456789.") == (size_t) (end - s) &&
		    (positive ? x > 0 : x >= 0) && x <= 1e9) {
			*v = x;
			return 0;
		}
	}
	ein_cli_bad_value(cmd, what, s, positive ? "a positive duration "
		"(60, 60s, 2m, 500ms)" : "a duration (60, 60s, 2m, 500ms)");
	return -1;
}

int ein_cli_target(const char *cmd, ein_options *opts, const char *target)
{
	if (ein_options_set_target(opts, target) == EIN_OK)
		return 0;
	fprintf(stderr, "%s: error: unknown target '%s' (targets: cpu, "
		"x86_64, x86_64-avx2, x86_64-avx512, aarch64, opencl, "
		"opencl:P:D)\n", cmd, target);
	return -1;
}
