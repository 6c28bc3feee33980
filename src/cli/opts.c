/*
 * opts.c: the compile options every subcommand that compiles accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int ein_cli_parse_option(ein_options *opts, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

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
	if (!strcmp(arg, "--strict-fp")) {
		ein_options_set_strict_fp(opts, 1);
		return 1;
	}
	return 0;
}

int ein_cli_size_hints(ein_options *opts, const char *spec, int fix)
{
	char *copy = spec ? strdup(spec) : NULL, *tok, *save = NULL;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			(fix ? ein_options_fix_size : ein_options_set_size)(
				opts, tok, atoll(eq + 1));
		}
	}
	free(copy);
	return 0;
}
