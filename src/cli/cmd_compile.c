/*
 * cmd_compile.c: "ein compile", kernels compiled ahead of time into an
 * object file (or a static library) and a C header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The most --def and --const options. */
#define MAX_LIST 64

/* The options of "ein compile".
 * target: a target name; triple, cpu, features: an explicit LLVM target;
 * emit: "obj" (the default: an object, or an archive if output ends in
 *	".a"), "llvm", "asm" or "c";
 * graph: for an ONNX model, the C file of the driver calling the fused
 *	kernels (--graph FILE.c; NULL: one definition, one function). */
struct compile_opts {
	const char *file;
	const char *output;
	const char *header;
	const char *sizes;
	const char *target;
	const char *triple;
	const char *cpu;
	const char *features;
	const char *emit;
	const char *quantize;	/* --quantize: the profile of an int8 model */
	const char *calibration;
	const char *graph;
	int n_def;
	const char *def[MAX_LIST];
	int n_const;
	const char *konst[MAX_LIST];
	ein_options *opts;
};

/* If argv[*i] is "--NAME VALUE" or "--NAME=VALUE", set *value, advance
 * *i and return 1. */
static int take_value(const char *name, int argc, char **argv, int *i,
	const char **value)
{
	size_t len = strlen(name);

	if (!strncmp(argv[*i], name, len) && argv[*i][len] == '=') {
		*value = argv[*i] + len + 1;
		return 1;
	}
	if (strcmp(argv[*i], name) || *i + 1 >= argc)
		return 0;
	*value = argv[++*i];
	return 1;
}

/* Add "value" to a list of at most MAX_LIST. */
static int push(const char **list, int *n, const char *value)
{
	if (*n >= MAX_LIST) {
		fprintf(stderr, "ein compile: error: too many options\n");
		return -1;
	}
	list[(*n)++] = value;
	return 0;
}

static int parse_one(int argc, char **argv, int *i, struct compile_opts *o)
{
	const char *v;

	if (take_value("-o", argc, argv, i, &o->output) ||
	    take_value("--header", argc, argv, i, &o->header) ||
	    take_value("--sizes", argc, argv, i, &o->sizes) ||
	    take_value("--target", argc, argv, i, &o->target) ||
	    take_value("--target-triple", argc, argv, i, &o->triple) ||
	    take_value("--cpu", argc, argv, i, &o->cpu) ||
	    take_value("--features", argc, argv, i, &o->features) ||
	    take_value("--emit", argc, argv, i, &o->emit) ||
	    take_value("--quantize", argc, argv, i, &o->quantize) ||
	    take_value("--calibration", argc, argv, i, &o->calibration) ||
	    take_value("--graph", argc, argv, i, &o->graph))
		return 0;
	if (take_value("--def", argc, argv, i, &v))
		return push(o->def, &o->n_def, v);
	if (take_value("--const", argc, argv, i, &v))
		return push(o->konst, &o->n_const, v);
	if (argv[*i][0] != '-' && !o->file) {
		o->file = argv[*i];
		return 0;
	}
	ein_cli_unexpected("ein compile", argv[*i]);
	return -1;
}

static int parse_args(int argc, char **argv, struct compile_opts *o)
{
	int i, r;

	for (i = 1; i < argc; ++i) {
		if ((r = ein_cli_parse_option(o->opts, argc, argv, &i)) < 0)
			return -1;
		if (r == 0 && parse_one(argc, argv, &i, o) < 0)
			return -1;
	}
	if (!o->file || (!o->output && !o->header)) {
		fprintf(stderr, "ein compile: error: %s\n", !o->file ?
			"no .ein or .onnx file given" : "nothing to write: give -o FILE "
			"and/or --header FILE.h");
		return -1;
	}
	if ((o->quantize || o->calibration) &&
	    (!ein_cli_is_onnx(o->file) || !o->quantize)) {
		fprintf(stderr, "ein compile: error: --quantize PROFILE (and "
			"--calibration) take an ONNX model\n");
		return -1;
	}
	if (o->graph && (!o->header || !ein_cli_is_onnx(o->file))) {
		fprintf(stderr, "ein compile: error: --graph needs an ONNX "
			"model and --header (the driver includes it)\n");
		return -1;
	}
	if (o->emit && strcmp(o->emit, "obj") && strcmp(o->emit, "llvm") &&
	    strcmp(o->emit, "asm") && strcmp(o->emit, "c")) {
		fprintf(stderr, "ein compile: error: --emit takes obj, llvm, "
			"asm or c, not '%s'\n", o->emit);
		return -1;
	}
	return 0;
}

/* Give "aot" the target, fixed sizes and constants of "o". */
static ein_status configure(ein_aot *aot, const struct compile_opts *o)
{
	char *copy = o->sizes ? strdup(o->sizes) : NULL, *tok, *save = NULL;
	ein_status st = EIN_OK;
	int i;

	if (o->triple)
		st = ein_aot_set_target_triple(aot, o->triple, o->cpu,
			o->features);
	else if (o->target)
		st = ein_aot_set_target(aot, o->target);
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL;
	     tok && st == EIN_OK; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int64_t v;

		if (!eq || eq == tok) {
			ein_cli_bad_value("ein compile", "--sizes", tok,
				"NAME=VALUE,...");
			st = EIN_ERROR_INVALID;
			break;
		}
		*eq = '\0';
		if (ein_cli_parse_int("ein compile", "a size", eq + 1, 1,
				EIN_CLI_MAX_SIZE, &v) < 0) {
			st = EIN_ERROR_INVALID;
			break;
		}
		st = ein_aot_fix_size(aot, tok, v);
	}
	free(copy);
	for (i = 0; i < o->n_const && st == EIN_OK; ++i) {
		char *spec = strdup(o->konst[i]), *eq = strchr(spec, '=');

		if (eq) {
			*eq = '\0';
			st = ein_aot_set_const(aot, spec, eq + 1);
		} else {
			fprintf(stderr, "ein compile: error: --const takes "
				"TENSOR=FILE, not '%s'\n", o->konst[i]);
			st = EIN_ERROR_INVALID;
		}
		free(spec);
	}
	return st;
}

/* Embed the weights of an imported model as constants: views of the
 * importer's data (the model is freed after the aot), not copies. */
static ein_status embed_weights(ein_aot *aot, const ein_onnx *model)
{
	ein_status st = EIN_OK;
	int i;

	for (i = 0; i < ein_onnx_n_const(model) && st == EIN_OK; ++i) {
		DLTensor t;
		size_t bytes = 1;
		int d;

		st = ein_onnx_get_const(model, i, &t);
		for (d = 0; st == EIN_OK && d < t.ndim; ++d)
			bytes *= t.shape[d];
		if (st == EIN_OK)
			st = ein_aot_set_const_view(aot,
				ein_onnx_get_const_name(model, i), t.data,
				bytes * (t.dtype.bits / 8));
	}
	return st;
}

/* Add the definitions asked for, or every definition, telling the
 * progress function of the options (--progress) before each. */
static ein_status add_defs(ein_aot *aot, ein_program *prog,
	const struct compile_opts *o)
{
	ein_status st = EIN_OK;
	int i, n = o->n_def ? o->n_def : ein_program_n_def(prog);
	void *user;
	ein_progress_fn progress = ein_options_get_progress(o->opts, &user);

	for (i = 0; i < n && st == EIN_OK; ++i) {
		const char *name = o->n_def ? o->def[i] :
			ein_program_get_def_name(prog, i);

		if (progress)
			progress(user, i, n, name);
		st = ein_aot_add_def(aot, name, o->opts);
	}
	if (progress)
		progress(user, n, n, NULL);
	return st;
}

/* The format of the output: --emit, else an archive for "*.a". */
static ein_aot_format output_format(const struct compile_opts *o)
{
	size_t n = strlen(o->output);

	if (o->emit && !strcmp(o->emit, "llvm"))
		return EIN_AOT_LLVM;
	if (o->emit && !strcmp(o->emit, "asm"))
		return EIN_AOT_ASM;
	if (o->emit && !strcmp(o->emit, "c"))
		return EIN_AOT_C;
	if (n > 2 && !strcmp(o->output + n - 2, ".a"))
		return EIN_AOT_ARCHIVE;
	return EIN_AOT_OBJECT;
}

/* The graph level: the model's fused kernels into the object and the
 * header, and the driver calling them (docs/onnx.md). */
static ein_status compile_graph(ein_ctx *ctx, const struct compile_opts *o)
{
	ein_model *m = ein_model_plan(ctx, o->file, o->opts);
	ein_program *prog = m ? ein_program_parse(ctx,
		ein_model_get_source(m), o->file) : NULL;
	ein_aot *aot = prog ? ein_aot_alloc(prog) : NULL;
	const char *base = strrchr(o->header, '/');
	ein_status st = aot ? configure(aot, o) : EIN_ERROR_INVALID;

	if (st == EIN_OK)
		st = embed_weights(aot, ein_model_get_onnx(m));
	if (st == EIN_OK)
		st = add_defs(aot, prog, o);
	if (st == EIN_OK)
		st = ein_aot_write_files(aot, o->output, o->output ?
			output_format(o) : EIN_AOT_OBJECT, o->header);
	if (st == EIN_OK)
		st = ein_model_write_c(m, o->graph, base ? base + 1 :
			o->header);
	ein_aot_free(aot);
	ein_program_free(prog);
	ein_model_free(m);
	return st;
}

int ein_cmd_compile(int argc, char **argv)
{
	struct compile_opts o = { 0 };
	ein_ctx *ctx;
	ein_program *prog;
	ein_aot *aot = NULL;
	ein_onnx *model = NULL;
	ein_status st = EIN_ERROR_INVALID;
	ein_calibration cal = EIN_CALIBRATION_MINMAX;
	int bad = 0;

	o.opts = ein_options_alloc();
	ein_cli_progress_default(o.opts);
	if (parse_args(argc, argv, &o) < 0 || (o.calibration &&
			ein_cli_parse_calibration("ein compile", o.calibration,
				&cal) < 0))
		return (ein_options_free(o.opts), 2);
	/* The graph level reads the profile from the options. */
	if (o.quantize && ein_options_set_quantize(o.opts, o.quantize,
			cal) != EIN_OK)
		return (ein_options_free(o.opts), 2);
	if (ein_cli_is_onnx(o.file) &&
	    ein_cli_size_hints("ein compile", o.opts, o.sizes, 1) < 0)
		return (ein_options_free(o.opts), 2);
	ctx = ein_ctx_alloc();
	if (o.graph) {
		st = compile_graph(ctx, &o);
		if (st != EIN_OK)
			fputs(ein_ctx_last_error(ctx), stderr);
		ein_options_free(o.opts);
		ein_ctx_free(ctx);
		return st == EIN_OK ? 0 : 1;
	}
	prog = o.quantize ? ein_cli_read_quantized(ctx, o.file, o.opts,
		o.quantize, cal, &model) :
		ein_cli_read_program(ctx, o.file, o.opts, &model);
	/* A misspelt size is an error before any schedule is chosen, which
	 * may take seconds; sizes of an imported model are checked by its
	 * import. */
	if (prog && !model && ein_cli_check_size_names(o.sizes, prog,
			o.n_def, o.def) < 0)
		st = EIN_ERROR_INVALID, bad = 1;
	else if (prog)
		aot = ein_aot_alloc(prog);
	if (aot)
		st = configure(aot, &o);
	if (st == EIN_OK && model)
		st = embed_weights(aot, model);
	if (st == EIN_OK)
		st = add_defs(aot, prog, &o);
	/* Both files or neither: never an object with a stale header. */
	if (st == EIN_OK)
		st = ein_aot_write_files(aot, o.output, o.output ?
			output_format(&o) : EIN_AOT_OBJECT, o.header);
	if (st != EIN_OK && !bad)
		fputs(ein_ctx_last_error(ctx), stderr);
	ein_aot_free(aot);
	ein_program_free(prog);
	ein_onnx_free(model);
	ein_options_free(o.opts);
	ein_ctx_free(ctx);
	return st == EIN_OK ? 0 : 1;
}
