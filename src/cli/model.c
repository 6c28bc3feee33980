/*
 * model.c: the tool's input files: an .ein source, or an ONNX model that
 * the importer writes as ein source (docs/onnx.md).
 */
#include <string.h>
#include "cli.h"

int ein_cli_is_onnx(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && !strcmp(path + n - 5, ".onnx");
}

ein_program *ein_cli_read_program(ein_ctx *ctx, const char *path,
	const ein_options *opts, ein_onnx **model)
{
	*model = NULL;
	if (!ein_cli_is_onnx(path))
		return ein_program_read_file(ctx, path);
	*model = ein_onnx_import(ctx, path, opts);
	if (!*model)
		return NULL;
	return ein_program_parse(ctx, ein_onnx_get_source(*model), path);
}

int ein_cli_find_const(const ein_onnx *model, const char *name)
{
	int i;

	for (i = 0; model && i < ein_onnx_n_const(model); ++i)
		if (!strcmp(ein_onnx_get_const_name(model, i), name))
			return i;
	return -1;
}
