/*
 * model.c: the tool's input files: an .ein source, or an ONNX model that
 * the importer writes as ein source (docs/onnx.md).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
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

ein_program *ein_cli_read_quantized(ein_ctx *ctx, const char *path,
	const ein_options *opts, const char *profile, ein_calibration cal,
	ein_onnx **model)
{
	*model = ein_onnx_quantize(ctx, path, opts, profile, cal);
	if (!*model)
		return NULL;
	return ein_program_parse(ctx, ein_onnx_get_source(*model), path);
}

int ein_cli_parse_calibration(const char *cmd, const char *s,
	ein_calibration *cal)
{
	if (!strcmp(s, "minmax"))
		*cal = EIN_CALIBRATION_MINMAX;
	else if (!strcmp(s, "percentile"))
		*cal = EIN_CALIBRATION_PERCENTILE;
	else if (!strcmp(s, "kl"))
		*cal = EIN_CALIBRATION_KL;
	else {
		ein_cli_bad_value(cmd, "--calibration", s,
			"minmax, percentile or kl");
		return -1;
	}
	return 0;
}

const char *ein_cli_input_file(int n_input, const char *const *input,
	const char *dir, const char *name, char *buf, size_t size)
{
	size_t len = strlen(name);
	int i;

	for (i = n_input - 1; i >= 0; --i)
		if (!strncmp(input[i], name, len) && input[i][len] == '=')
			return input[i] + len + 1;
	if (!dir)
		return NULL;
	snprintf(buf, size, "%s/%s.npy", dir, name);
	return access(buf, F_OK) == 0 ? buf : NULL;
}
