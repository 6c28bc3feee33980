/*
 * cmd_check.c: "ein check": parse and check every definition of files.
 */
#include <stdio.h>
#include "cli.h"

/* Check one file: print its errors to stderr, or a line to stdout. */
static int check_file(ein_ctx *ctx, const char *file)
{
	ein_onnx *model;
	ein_program *prog = ein_cli_read_program(ctx, file, NULL, &model);
	int n;

	if (!prog) {
		fputs(ein_ctx_last_error(ctx), stderr);
		ein_onnx_free(model);
		return -1;
	}
	n = ein_program_n_def(prog);
	printf("%s: ok (%d definition%s)\n", file, n, n == 1 ? "" : "s");
	ein_program_free(prog);
	ein_onnx_free(model);
	return 0;
}

int ein_cmd_check(int argc, char **argv)
{
	ein_ctx *ctx;
	int i, ok = 0;

	if (argc < 2) {
		fprintf(stderr, "ein check: error: no .ein or .onnx file "
			"given\n");
		return 2;
	}
	ctx = ein_ctx_alloc();
	for (i = 1; i < argc; ++i)
		if (check_file(ctx, argv[i]) < 0)
			ok = -1;
	ein_ctx_free(ctx);
	return ok == 0 ? 0 : 1;
}
