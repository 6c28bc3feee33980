/*
 * cmd_tune.c: "ein tune": the autotuner's command line (autotune/tune.h).
 *
 *   ein tune FILE.ein [--def NAME] --sizes M=1024,... [--target T]
 *            [--trials N | --time 60s] [--seed S] [-o FILE] [--log FILE]
 *            [--resume] [--quiet | --json] [--strategy evolve|random]
 *            [--timeout 10s] [--min-time 0.2s] [--mem-limit 4096M]
 *            [--compile-timeout 10s] [--symbolic-sizes] [--verbose]
 *            [--slow-factor 3] [--rank-limit DURATION]
 *            [--rank-sizes M=16,...]
 *            [--list-space]
 *   ein tune --plot LOG -o FILE.svg
 *   ein tune MODEL.onnx --time 5m [--sizes N=1] [--schedule-dir DIR] ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "autotune/rank.h"
#include "autotune/tune.h"

/* The command line as one string, for the schedule's tuned-by header
 * (without '#', which would start a comment). */
static void command_text(int argc, char **argv, char *buf, size_t len)
{
	size_t at = snprintf(buf, len, "ein tune");
	int i;

	for (i = 1; i < argc && at < len; ++i)
		at += snprintf(buf + at, len - at, " %s", argv[i]);
	for (; *buf; ++buf)
		if (*buf == '#' || *buf == '\n')
			*buf = '_';
}

/* The value of option argv[*i] ("--x V" or "--x=V"), NULL if none. */
static const char *value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], name))
		return *i + 1 < argc ? argv[++*i] : "";
	return NULL;
}

static int bad(const char *what, const char *v)
{
	ein_cli_bad_value("ein tune", what, v, "evolve or random");
	return -1;
}

/* The strict parsers (cli.h) for the options of "ein tune". */
static int seconds(const char *what, const char *v, int positive,
	double *out)
{
	return ein_cli_parse_seconds("ein tune", what, v, positive, out);
}

/* --slow-factor's value: a number, 0 (never stop early) or at least 1
 * (below, a candidate as fast as the best could be stopped). */
static int slow_factor(const char *v, double *out)
{
	char *end;
	double k = strtod(v, &end);

	if (!*v || *end || !(k == 0 || (k >= 1 && k <= 1e6))) {
		ein_cli_bad_value("ein tune", "--slow-factor", v,
			"0 or a number of at least 1");
		return -1;
	}
	*out = k;
	return 0;
}

/* Parse one option at argv[*i] into "o"; plot gets --plot's log. */
static int parse_one(int argc, char **argv, int *i, struct ein_tune_opts *o,
	const char **plot, const char **dir)
{
	const char *v;

	if ((v = value(argc, argv, i, "--schedule-dir")))
		*dir = v;
	else if ((v = value(argc, argv, i, "--def")))
		o->def = v;
	else if ((v = value(argc, argv, i, "--sizes")))
		o->sizes = v;
	else if ((v = value(argc, argv, i, "--target")))
		o->target = v;
	else if ((v = value(argc, argv, i, "-o")) ||
		 (v = value(argc, argv, i, "--output")))
		o->output = v;
	else if ((v = value(argc, argv, i, "--log")))
		o->log = v;
	else if ((v = value(argc, argv, i, "--plot")))
		*plot = v;
	else if ((v = value(argc, argv, i, "--trials"))) {
		int64_t n;

		if (ein_cli_parse_int("ein tune", "--trials", v, 1, 1000000,
				&n) < 0)
			return -1;
		o->trials = (int) n;
	} else if ((v = value(argc, argv, i, "--time"))) {
		if (seconds("--time", v, 1, &o->time) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--compile-timeout"))) {
		if (seconds("--compile-timeout", v, 0, &o->compile_timeout) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--timeout"))) {
		if (seconds("--timeout", v, 1, &o->timeout) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--min-time"))) {
		if (seconds("--min-time", v, 0, &o->min_time) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--mem-limit"))) {
		int64_t b;

		if (ein_cli_parse_bytes("ein tune", "--mem-limit", v, &b) < 0)
			return -1;
		o->mem_limit = (long) b;
	} else if ((v = value(argc, argv, i, "--slow-factor"))) {
		if (slow_factor(v, &o->slow_factor) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--rank-limit"))) {
		if (seconds("--rank-limit", v, 0, &o->rank_limit) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--rank-sizes")))
		o->rank_sizes = v;
	else if ((v = value(argc, argv, i, "--seed"))) {
		if (ein_cli_parse_u64("ein tune", "--seed", v, &o->seed) < 0)
			return -1;
	} else if ((v = value(argc, argv, i, "--strategy"))) {
		if (!strcmp(v, "random"))
			o->strategy = EIN_TUNE_RANDOM;
		else if (strcmp(v, "evolve"))
			return bad("--strategy", v);
	} else if (!strcmp(argv[*i], "--resume"))
		o->resume = 1;
	else if (!strcmp(argv[*i], "--symbolic-sizes"))
		o->symbolic = 1;
	else if (!strcmp(argv[*i], "--verbose"))
		o->verbose = 1;
	else if (!strcmp(argv[*i], "--list-space"))
		o->list_space = 1;
	else if (!strcmp(argv[*i], "--quiet"))
		o->output_mode = EIN_TUNE_QUIET;
	else if (!strcmp(argv[*i], "--json"))
		o->output_mode = EIN_TUNE_JSON;
	else if (argv[*i][0] != '-' && !o->file)
		o->file = argv[*i];
	else {
		ein_cli_unexpected("ein tune", argv[*i]);
		return -1;
	}
	return 0;
}

/* The options that make no sense for a model (its kernels have their
 * own names, files and logs), and the budget it needs; -1 after a
 * message. */
static int check_model_opts(const struct ein_tune_opts *o, const char *plot)
{
	const char *bad = o->def ? "--def" : o->output ? "-o" : o->log ?
		"--log" : plot ? "--plot" : o->list_space ? "--list-space" :
		NULL;

	if (bad) {
		fprintf(stderr, "ein tune: error: %s does not apply to a model "
			"(each kernel's schedule goes to DIR/TARGET/KERNEL."
			"SIZES.sched; --schedule-dir DIR)\n", bad);
		return -1;
	}
	if (o->time <= 0) {
		fprintf(stderr, "ein tune: error: a model needs --time (split "
			"among its kernels by their share of the run time)\n");
		return -1;
	}
	return 0;
}

int ein_cmd_tune(int argc, char **argv)
{
	struct ein_tune_opts o = { .seed = 1, .timeout = 10,
		.compile_timeout = 10,
		.min_time = 0.2, .mem_limit = 4L << 30,
		.slow_factor = EIN_RANK_SLOW_FACTOR, .rank_limit = -1 };
	const char *plot = NULL, *dir = NULL;
	char command[1024];
	int i;

	for (i = 1; i < argc; ++i)
		if (parse_one(argc, argv, &i, &o, &plot, &dir) < 0)
			return 2;
	command_text(argc, argv, command, sizeof(command));
	o.command = command;
	if (o.file && ein_cli_is_onnx(o.file))
		return check_model_opts(&o, plot) < 0 ? 2 :
			ein_cli_tune_model(&o, dir);
	if (dir) {
		fprintf(stderr, "ein tune: error: --schedule-dir is for a "
			"model (-o FILE names the schedule of a definition)\n");
		return 2;
	}
	if (plot) {
		if (!o.output) {
			fprintf(stderr, "ein tune: error: --plot needs -o "
				"FILE.svg\n");
			return 2;
		}
		return ein_tune_plot(plot, o.output);
	}
	if (!o.file || !o.sizes) {
		fprintf(stderr, "ein tune: error: %s\n", !o.file ?
			"no .ein file given" : "--sizes is required");
		return 2;
	}
	if (!o.trials && !o.time)
		o.trials = 100;
	return ein_tune_run(&o);
}
