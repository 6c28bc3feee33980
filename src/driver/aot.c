/*
 * aot.c: ein_aot, definitions compiled ahead of time into one object file
 * and its C header.
 *
 * Each definition runs the pipeline (ein_compile) up to LLVM IR in the
 * ein_aot's own LLVM context, specialised to the fixed sizes; gets its
 * checked C wrapper (codegen/wrap.c); is optimised for the target; and is
 * linked into the one module that becomes the object.
 *
 * Constant tensors are the reason the optimiser must not see their data:
 * 30 MB of weights would cost far more than the kernel in the optimiser
 * and the code generator.  The kernel refers to an external array of
 * bytes while it is optimised.  For an ELF object, the array then becomes
 * an uninitialised section that elf.c fills with the file's bytes after
 * LLVM has written the object; for other outputs (LLVM IR, assembly,
 * non-ELF objects) it gets the data as an LLVM initializer, a
 * ConstantDataArray of i8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Linker.h>
#include "ctx.h"
#include "diag.h"
#include "outfile.h"
#include "codegen/cheader.h"
#include "codegen/emit_c.h"
#include "codegen/target.h"
#include "codegen/wrap.h"
#include "frontend/type.h"
#include "driver/archive.h"
#include "driver/elf.h"
#include "driver/options.h"
#include "driver/pipeline.h"
#include "driver/program.h"
#include "driver/weights.h"
#include "opencl/aot.h"

/* A size fixed by ein_aot_fix_size. */
struct aot_size {
	char *name;
	int64_t value;
};

/* A tensor embedded by ein_aot_set_const (its file "path") or
 * ein_aot_set_const_data (a copy of the data, "data" and "bytes"; path
 * NULL) or ein_aot_set_const_view (the caller's data, not "owned");
 * used: 1 once a definition has taken it. */
struct aot_const {
	char *tensor;
	char *path;
	const void *data;
	size_t bytes;
	int owned;
	int used;
};

/* The data of the global of a constant tensor.
 * global: the global's name; w: its data; bytes: their size. */
struct aot_data {
	char *global;
	struct ein_weights w;
	int64_t bytes;
};

/* A definition added: its wrapper's description (arrays owned, konst[i]
 * owned too), its fixed sizes as a parameter set for the pipeline, and
 * its scop and AST (owned), kept for C text (EIN_AOT_C). */
struct aot_def {
	struct ein_wrap_spec spec;
	isl_set *sizes;
	struct ein_scop *scop;
	isl_ast_node *tree;
};

/* ctx: the context (not owned); prog: a reference to the program;
 * target: the target (NULL until set or the first definition);
 * llctx, module: the LLVM context and the module of every definition
 *	added so far (NULL before the first);
 * size, konst: what the setters asked for;
 * def: the definitions added; data: the constant data of their globals
 *	(NULL once given to LLVM);
 * opencl: the kernels run on an OpenCL device (opencl/aot.h), the host
 *	code on the target. */
struct ein_aot {
	int opencl;
	ein_ctx *ctx;
	ein_program *prog;
	struct ein_target *target;
	LLVMContextRef llctx;
	LLVMModuleRef module;
	int n_size;
	struct aot_size *size;
	int n_const;
	struct aot_const *konst;
	int n_def;
	struct aot_def *def;
	int n_data;
	struct aot_data *data;
};

ein_aot *ein_aot_alloc(ein_program *prog)
{
	ein_aot *aot;

	if (!prog)
		return NULL;
	aot = calloc(1, sizeof(*aot));
	if (!aot)
		return NULL;
	aot->ctx = ein_program_get_ctx(prog);
	aot->prog = ein_program_copy(prog);
	return aot;
}

static void def_clear(struct aot_def *d)
{
	int i;

	for (i = 0; d->spec.konst && i < d->spec.func->n_tensor; ++i)
		free((char *) d->spec.konst[i]);
	free(d->spec.konst);
	free(d->spec.const_bytes);
	free(d->spec.fixed);
	free(d->spec.value);
	isl_set_free(d->spec.valid);
	isl_set_free(d->sizes);
	isl_ast_node_free(d->tree);
	ein_scop_free(d->scop);
	memset(d, 0, sizeof(*d));
}

void ein_aot_free(ein_aot *aot)
{
	int i;

	if (!aot)
		return;
	for (i = 0; i < aot->n_def; ++i)
		def_clear(&aot->def[i]);
	for (i = 0; i < aot->n_size; ++i)
		free(aot->size[i].name);
	for (i = 0; i < aot->n_const; ++i) {
		free(aot->konst[i].tensor);
		free(aot->konst[i].path);
		if (aot->konst[i].owned)
			free((void *) aot->konst[i].data);
	}
	for (i = 0; i < aot->n_data; ++i) {
		free(aot->data[i].global);
		ein_weights_unmap(&aot->data[i].w);
	}
	free(aot->def);
	free(aot->size);
	free(aot->konst);
	free(aot->data);
	if (aot->module)
		LLVMDisposeModule(aot->module);
	if (aot->llctx)
		LLVMContextDispose(aot->llctx);
	ein_target_free(aot->target);
	ein_program_free(aot->prog);
	free(aot);
}

/* Start an API call: clear the errors; refuse a NULL ein_aot. */
static int begin(ein_aot *aot)
{
	if (!aot)
		return -1;
	ein_ctx_clear_error(aot->ctx);
	return 0;
}

/* Argument "what" of "fn" is NULL: say which. */
static ein_status null_argument(ein_aot *aot, const char *fn,
	const char *what)
{
	ein_error(aot->ctx, EIN_ERROR_INVALID, "%s: %s is NULL", fn, what);
	return EIN_ERROR_INVALID;
}

/* The target can only change before code is generated for it. */
static ein_status set_target(ein_aot *aot, struct ein_target *target)
{
	if (!target)
		return ein_ctx_last_status(aot->ctx);
	if (aot->n_def > 0) {
		ein_target_free(target);
		ein_error(aot->ctx, EIN_ERROR_INVALID, "the target must be set "
			"before any definition is added");
		return EIN_ERROR_INVALID;
	}
	ein_target_free(aot->target);
	aot->target = target;
	return EIN_OK;
}

/* Is "name" an OpenCL target ("opencl" or "opencl:P:D")?  The device
 * is chosen when the object runs, not here. */
static int is_opencl(const char *name)
{
	int p, d;
	char end;

	return name && (!strcmp(name, "opencl") || (sscanf(name,
		"opencl:%d:%d%c", &p, &d, &end) == 2 && p >= 0 && d >= 0));
}

ein_status ein_aot_set_target(ein_aot *aot, const char *name)
{
	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	if (is_opencl(name)) {
		if (set_target(aot, ein_target_named(aot->ctx, "host")) !=
				EIN_OK)
			return ein_ctx_last_status(aot->ctx);
		aot->opencl = 1;
		return EIN_OK;
	}
	aot->opencl = aot->n_def > 0 ? aot->opencl : 0;
	return set_target(aot, ein_target_named(aot->ctx, name));
}

ein_status ein_aot_set_target_triple(ein_aot *aot, const char *triple,
	const char *cpu, const char *features)
{
	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	return set_target(aot, ein_target_alloc(aot->ctx, triple,
		cpu ? cpu : "generic", features));
}

ein_status ein_aot_fix_size(ein_aot *aot, const char *name, int64_t value)
{
	struct aot_size *size;

	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	if (!name)
		return null_argument(aot, "ein_aot_fix_size", "the size name");
	if (value < 1) {
		ein_error(aot->ctx, EIN_ERROR_INVALID, "size %s must be at "
			"least 1", name);
		return EIN_ERROR_INVALID;
	}
	size = realloc(aot->size, (aot->n_size + 1) * sizeof(*size));
	if (!size)
		return EIN_ERROR_NOMEM;
	aot->size = size;
	size[aot->n_size].name = strdup(name);
	size[aot->n_size].value = value;
	if (!size[aot->n_size].name)
		return EIN_ERROR_NOMEM;
	aot->n_size++;
	return EIN_OK;
}

/* Add a constant for "tensor", from file "path" or "data": a copy if
 * "copy", else the caller's. */
static ein_status add_const(ein_aot *aot, const char *tensor,
	const char *path, const void *data, size_t bytes, int copy)
{
	struct aot_const *c;
	void *mine = NULL;

	c = realloc(aot->konst, (aot->n_const + 1) * sizeof(*c));
	if (!c)
		return EIN_ERROR_NOMEM;
	aot->konst = c;
	c += aot->n_const;
	memset(c, 0, sizeof(*c));
	c->tensor = strdup(tensor);
	c->path = path ? strdup(path) : NULL;
	mine = !path && copy ? malloc(bytes + 1) : NULL;
	c->data = path ? NULL : copy ? mine : data;
	c->owned = mine != NULL;
	c->bytes = bytes;
	if (!c->tensor || (path ? !c->path : !c->data)) {
		free(c->tensor);
		free(c->path);
		free(mine);
		return EIN_ERROR_NOMEM;
	}
	if (mine)
		memcpy(mine, data, bytes);
	aot->n_const++;
	return EIN_OK;
}

ein_status ein_aot_set_const(ein_aot *aot, const char *tensor,
	const char *path)
{
	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	if (!tensor || !path)
		return null_argument(aot, "ein_aot_set_const", !tensor ?
			"the tensor name" : "the file name");
	return add_const(aot, tensor, path, NULL, 0, 0);
}

/* ein_aot_set_const_data ("copy") or ein_aot_set_const_view, called
 * "fn". */
static ein_status set_const_data(ein_aot *aot, const char *fn, const char *tensor,
	const void *data, size_t bytes, int copy)
{
	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	if (!tensor || (!data && bytes))
		return null_argument(aot, fn, !tensor ? "the tensor name" :
			"the data");
	return add_const(aot, tensor, NULL, data ? data : "", bytes, copy);
}

ein_status ein_aot_set_const_data(ein_aot *aot, const char *tensor,
	const void *data, size_t bytes)
{
	return set_const_data(aot, "ein_aot_set_const_data", tensor, data, bytes,
		1);
}

ein_status ein_aot_set_const_view(ein_aot *aot, const char *tensor,
	const void *data, size_t bytes)
{
	return set_const_data(aot, "ein_aot_set_const_view", tensor, data, bytes,
		0);
}

/* The last value ein_aot_fix_size gave size "name", -1 if none. */
static int find_size(ein_aot *aot, const char *name)
{
	int i;

	for (i = aot->n_size - 1; i >= 0; --i)
		if (!strcmp(aot->size[i].name, name))
			return i;
	return -1;
}

/* The constant ein_aot_set_const made of tensor "name", NULL if none. */
static struct aot_const *find_const(ein_aot *aot, const char *name)
{
	int i;

	for (i = aot->n_const - 1; i >= 0; --i)
		if (!strcmp(aot->konst[i].tensor, name))
			return &aot->konst[i];
	return NULL;
}

/* Fill in the sizes and valid set of d's spec for "func", and d's fixed
 * sizes, after checking that they leave every tensor a shape. */
static int init_sizes(ein_aot *aot, const struct ein_func *func,
	struct aot_def *d)
{
	struct ein_wrap_spec *spec = &d->spec;
	int i, pos;

	spec->func = func;
	spec->fixed = calloc(func->n_size + 1, sizeof(*spec->fixed));
	spec->value = calloc(func->n_size + 1, sizeof(*spec->value));
	spec->konst = calloc(func->n_tensor + 1, sizeof(*spec->konst));
	spec->const_bytes = calloc(func->n_tensor + 1,
		sizeof(*spec->const_bytes));
	if (!spec->fixed || !spec->value || !spec->konst ||
	    !spec->const_bytes)
		return -1;
	for (i = 0; i < func->n_size; ++i)
		if ((pos = find_size(aot, func->size[i])) >= 0) {
			spec->fixed[i] = 1;
			spec->value[i] = aot->size[pos].value;
		}
	spec->valid = ein_wrap_valid_sizes(aot->ctx, func);
	if (!spec->valid)
		return -1;
	d->sizes = ein_wrap_fix_sizes(aot->ctx, func, spec->valid,
		spec->value);
	return d->sizes ? 0 : -1;
}

/* Check that the shape of tensor "pos" depends on fixed sizes only and
 * compute it into "shape"; report the first size that is not fixed. */
static int const_shape(ein_aot *aot, const struct ein_wrap_spec *spec,
	int pos, int64_t *shape)
{
	const struct ein_func *func = spec->func;
	const struct ein_tensor *t = &func->tensor[pos];
	int64_t sizes[func->n_size + 1];
	int d, i;

	for (i = 0; i < func->n_size; ++i) {
		sizes[i] = spec->fixed[i] ? spec->value[i] : 1;
		for (d = 0; d < t->n_dim && !spec->fixed[i]; ++d)
			if (isl_pw_aff_involves_dims(t->shape[d],
					isl_dim_param, i, 1)) {
				ein_error(aot->ctx, EIN_ERROR_INVALID, "constant "
					"tensor '%s' of '%s' needs a fixed "
					"shape, but size %s is not fixed "
					"(ein compile --sizes %s=VALUE)",
					t->name, func->def->name,
					func->size[i], func->size[i]);
				return -1;
			}
	}
	return ein_func_eval_shape(aot->ctx, func, sizes, pos, shape);
}

/* Remember the data of constant tensor "pos" of "d" under the name of
 * its global. */
static int add_data(ein_aot *aot, struct aot_def *d, int pos,
	struct ein_weights *w)
{
	const struct ein_func *func = d->spec.func;
	const char *name = func->tensor[pos].name;
	struct aot_data *ad = realloc(aot->data,
		(aot->n_data + 1) * sizeof(*ad));
	size_t len = strlen(func->def->name) + strlen(name) + 2;
	char *global = malloc(len);

	if (ad)
		aot->data = ad;
	if (!ad || !global) {
		free(global);
		ein_weights_unmap(w);
		return -1;
	}
	snprintf(global, len, "%s.%s", func->def->name, name);
	ad[aot->n_data].global = global;
	ad[aot->n_data].w = *w;
	ad[aot->n_data].bytes = d->spec.const_bytes[pos];
	aot->n_data++;
	d->spec.konst[pos] = strdup(global);
	return d->spec.konst[pos] ? 0 : -1;
}

/* The data of input "pos" of "d" given by ein_aot_set_const_data, which
 * must be of the tensor's size; c keeps them. */
static int const_from_data(ein_aot *aot, struct aot_def *d, int pos,
	struct aot_const *c)
{
	struct ein_weights w = { c->data, NULL, 0, -1, 0 };

	if ((int64_t) c->bytes != d->spec.const_bytes[pos]) {
		ein_error(aot->ctx, EIN_ERROR_SHAPE, "the data of constant "
			"tensor '%s' are %zu bytes, but it needs %lld",
			c->tensor, c->bytes,
			(long long) d->spec.const_bytes[pos]);
		return -1;
	}
	return add_data(aot, d, pos, &w);
}

/* Read the data of input "pos" of "d", embedded from file c->path. */
static int load_const(ein_aot *aot, struct aot_def *d, int pos,
	struct aot_const *c)
{
	const struct ein_tensor *t = &d->spec.func->tensor[pos];
	int64_t shape[t->n_dim + 1], bytes = ein_type_size(t->type);
	struct ein_weights w;
	int i;

	if (t->role != EIN_ROLE_INPUT) {
		ein_error(aot->ctx, EIN_ERROR_INVALID, "only inputs can be "
			"constants, and '%s' is an output of '%s'", t->name,
			d->spec.func->def->name);
		return -1;
	}
	if (bytes > 1 && !ein_target_is_little_endian(aot->target)) {
		ein_error(aot->ctx, EIN_ERROR_UNSUPPORTED, "constant tensors "
			"of more than one byte per element need a "
			"little-endian target");
		return -1;
	}
	if (const_shape(aot, &d->spec, pos, shape) < 0)
		return -1;
	for (i = 0; i < t->n_dim; ++i)
		bytes *= shape[i];
	if (bytes > 0xffffffffLL) {
		ein_error(aot->ctx, EIN_ERROR_UNSUPPORTED, "constant tensor "
			"'%s' is larger than 4 GiB", t->name);
		return -1;
	}
	d->spec.const_bytes[pos] = bytes;
	c->used = 1;
	if (!c->path)
		return const_from_data(aot, d, pos, c);
	if (ein_weights_map(aot->ctx, c->path, t, shape, bytes, &w) < 0)
		return -1;
	return add_data(aot, d, pos, &w);
}

/* Load the constant tensors of "d". */
static int load_consts(ein_aot *aot, struct aot_def *d)
{
	const struct ein_func *func = d->spec.func;
	int i;

	for (i = 0; i < func->n_tensor; ++i) {
		struct aot_const *c = find_const(aot, func->tensor[i].name);

		if (c && func->tensor[i].role != EIN_ROLE_TEMP &&
		    load_const(aot, d, i, c) < 0)
			return -1;
	}
	return 0;
}

/* Move module "m" into the module of the object. */
static int link_module(ein_aot *aot, LLVMModuleRef m)
{
	if (!aot->module) {
		aot->module = m;
		return 0;
	}
	if (LLVMLinkModules2(aot->module, m)) {
		ein_internal(aot->ctx, "cannot link the kernels' modules");
		return -1;
	}
	return 0;
}

/* The module of "job", compiled for OpenCL: the host function handing
 * the kernels' description to libein_rt (opencl/aot.h).  A constant
 * tensor's global, which the wrapper passes in place of the tensor, is
 * uploaded by the runtime once per OpenCL context. */
static int opencl_module(ein_aot *aot, struct aot_def *d,
	struct ein_job *job)
{
	job->module = ein_ocl_aot_module(aot->ctx, aot->llctx, job->ocl_plan,
		job->scop, d->spec.konst);
	if (job->module)
		ein_target_set_module(aot->target, job->module);
	d->spec.queue = 1;
	return job->module ? 0 : -1;
}

/* Run the pipeline on d's definition, wrap, optimise and link it. */
static int compile_def(ein_aot *aot, struct aot_def *d,
	const ein_options *opts)
{
	struct ein_sched_choice sched;
	struct ein_job job = { 0 };
	int ok;

	if ((aot->opencl ? ein_options_choose_gpu_schedule(aot->ctx, opts,
			d->spec.func, &sched) :
	     ein_options_choose_cpu_schedule(aot->ctx, opts, d->spec.func,
			ein_target_get_name(aot->target), &sched)) < 0)
		return (ein_sched_choice_clear(&sched), -1);
	job.gpu = aot->opencl;
	job.cl_platform = -1;
	job.cl_device = -1;
	job.func = d->spec.func;
	job.until = EIN_PASS_LLVM;
	job.sched_file = sched.file;
	job.strict_fp = ein_options_get_strict_fp(opts);
	job.timeout = ein_sched_choice_budget_left(opts, &sched);
	job.sizes = d->sizes;
	job.llctx = aot->llctx;
	job.for_target = aot->target;
	ok = ein_compile(aot->ctx, &job);
	if (ok == 0 && aot->opencl)
		ok = opencl_module(aot, d, &job);
	if (ok == 0) {
		d->scop = job.scop;
		d->tree = job.tree;
		job.scop = NULL;
		job.tree = NULL;
		ok = ein_wrap_kernel(aot->ctx, job.module, &d->spec);
	}
	if (ok == 0)
		ok = ein_target_optimize(aot->ctx, aot->target, job.module);
	if (ok == 0) {
		ok = link_module(aot, job.module);
		job.module = NULL;
	}
	ein_job_clear(&job);
	ein_sched_choice_clear(&sched);
	return ok;
}

/* Has definition "func" been added already? */
static int has_def(ein_aot *aot, const struct ein_func *func)
{
	int i;

	for (i = 0; i < aot->n_def; ++i)
		if (aot->def[i].spec.func == func)
			return 1;
	return 0;
}

/* Make sure there is a target and an LLVM context. */
static int prepare(ein_aot *aot)
{
	if (!aot->target)
		aot->target = ein_target_named(aot->ctx, "host");
	if (aot->target && !aot->llctx)
		aot->llctx = LLVMContextCreate();
	return aot->target && aot->llctx ? 0 : -1;
}

/* The status of the error just reported (EIN_ERROR_NOMEM if none was). */
static ein_status failed(ein_aot *aot)
{
	if (ein_diag_n_error(aot->ctx) == 0)
		ein_error(aot->ctx, EIN_ERROR_NOMEM, "out of memory");
	return ein_ctx_last_status(aot->ctx);
}

/* Forget the constant data after the first "n" (of a definition that
 * failed). */
static void drop_data(ein_aot *aot, int n)
{
	for (; aot->n_data > n; --aot->n_data) {
		free(aot->data[aot->n_data - 1].global);
		ein_weights_unmap(&aot->data[aot->n_data - 1].w);
	}
}

ein_status ein_aot_add_def(ein_aot *aot, const char *name,
	const ein_options *opts)
{
	const struct ein_func *func;
	struct aot_def *def, *d;
	int n_data;

	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	func = ein_program_get_func(aot->prog, name);
	if (!func)
		return EIN_ERROR_INVALID;
	if (has_def(aot, func)) {
		ein_error(aot->ctx, EIN_ERROR_INVALID, "definition '%s' was "
			"added already", func->def->name);
		return EIN_ERROR_INVALID;
	}
	def = realloc(aot->def, (aot->n_def + 1) * sizeof(*def));
	if (!def || prepare(aot) < 0)
		return failed(aot);
	aot->def = def;
	d = &def[aot->n_def];
	memset(d, 0, sizeof(*d));
	n_data = aot->n_data;
	if (init_sizes(aot, func, d) < 0 || load_consts(aot, d) < 0 ||
	    compile_def(aot, d, opts) < 0) {
		def_clear(d);
		drop_data(aot, n_data);
		return failed(aot);
	}
	aot->n_def++;
	return EIN_OK;
}

/* Give the globals of constant tensors their data, for "format": as an
 * uninitialised section that ein_elf fills in the object for ELF objects,
 * else as an LLVM initializer. */
static int set_data(ein_aot *aot, int elf)
{
	int i;

	for (i = 0; i < aot->n_data; ++i) {
		struct aot_data *ad = &aot->data[i];
		LLVMValueRef g = LLVMGetNamedGlobal(aot->module, ad->global);
		size_t len = strlen(EIN_ELF_PREFIX) + strlen(ad->global) + 1;
		char section[len];

		if (!g) {
			ein_internal(aot->ctx, "no global '%s'", ad->global);
			return -1;
		}
		snprintf(section, len, "%s%s", EIN_ELF_PREFIX, ad->global);
		LLVMSetInitializer(g, elf ?
			LLVMConstNull(LLVMGlobalGetValueType(g)) :
			LLVMConstStringInContext(aot->llctx, ad->w.data,
				ad->bytes, 1));
		LLVMSetGlobalConstant(g, !elf);
		LLVMSetSection(g, elf ? section : "");
		LLVMSetLinkage(g, LLVMInternalLinkage);
	}
	return 0;
}

/* Check that every constant was used by some definition. */
static int check_consts(ein_aot *aot)
{
	int i;

	for (i = 0; i < aot->n_const; ++i)
		if (!aot->konst[i].used) {
			ein_error(aot->ctx, EIN_ERROR_INVALID, "no definition "
				"added has an input '%s' to make constant",
				aot->konst[i].tensor);
			return -1;
		}
	return 0;
}

/* The name of the object in an archive written to "path": its base name
 * with ".o" for ".a". */
static void member_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	snprintf(buf, len, "%s", base ? base + 1 : path);
	n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, ".a"))
		buf[n - 1] = 'o';
}

/* Put the constant data into the object "buf" with ein_elf. */
static struct ein_elf *fill_object(ein_aot *aot, LLVMMemoryBufferRef buf)
{
	struct ein_elf *elf = ein_elf_alloc(aot->ctx, LLVMGetBufferStart(buf),
		LLVMGetBufferSize(buf));
	int i;

	for (i = 0; elf && i < aot->n_data; ++i)
		if (ein_elf_fill(aot->ctx, elf, aot->data[i].global,
				aot->data[i].w.data, aot->data[i].bytes) < 0)
			return (ein_elf_free(elf), NULL);
	return elf;
}

/* The pieces "iov" of an object as pieces of an output file: those
 * that are the data of a constant tensor come from its file. */
static void out_pieces(ein_aot *aot, const struct iovec *iov, int n,
	struct ein_out_piece *piece)
{
	int i, j;

	for (i = 0; i < n; ++i) {
		piece[i] = (struct ein_out_piece)
			{ iov[i].iov_base, iov[i].iov_len, -1, 0 };
		for (j = 0; j < aot->n_data; ++j)
			if (iov[i].iov_base == aot->data[j].w.data &&
			    iov[i].iov_len == (size_t) aot->data[j].bytes) {
				piece[i].fd = aot->data[j].w.fd;
				piece[i].off = aot->data[j].w.offset;
			}
	}
}

/* Add the pieces of the object, or an archive holding them, to "set" as
 * "path". */
static int write_pieces(ein_aot *aot, struct ein_outfile_set *set,
	const char *path, int archive, const struct iovec *iov, int n_iov)
{
	const char *syms[aot->n_def + 1];
	struct ein_out_piece piece[n_iov];
	char member[256];
	int i;

	out_pieces(aot, iov, n_iov, piece);
	if (!archive)
		return ein_outfile_set_add(set, path, piece, n_iov, 0);
	for (i = 0; i < aot->n_def; ++i)
		syms[i] = aot->def[i].spec.func->def->name;
	member_name(path, member, sizeof(member));
	return ein_archive_write(aot->ctx, set, path, member, piece, n_iov,
		aot->n_def, syms);
}

/* Add the object, or an archive holding it, to "set" as "path".
 * Constant data go straight into ELF objects (elf.h), else through
 * LLVM. */
static int write_object(ein_aot *aot, struct ein_outfile_set *set,
	const char *path, int archive)
{
	int elf = aot->n_data > 0 && ein_target_is_elf64le(aot->target);
	LLVMMemoryBufferRef buf = NULL;
	struct ein_elf *patched = NULL;
	struct iovec one, *iov = &one;
	int n_iov = 1, ok = -1;

	if (set_data(aot, elf) == 0)
		buf = ein_target_emit_object(aot->ctx, aot->target,
			aot->module);
	if (!buf)
		return -1;
	one.iov_base = (void *) LLVMGetBufferStart(buf);
	one.iov_len = LLVMGetBufferSize(buf);
	if (elf)
		patched = fill_object(aot, buf);
	if (!elf || (patched && ein_elf_finish(aot->ctx, patched, &iov,
			&n_iov) == 0))
		ok = write_pieces(aot, set, path, archive, iov, n_iov);
	ein_elf_free(patched);
	LLVMDisposeMemoryBuffer(buf);
	return ok;
}

static int write_llvm(ein_aot *aot, struct ein_outfile_set *set,
	const char *path)
{
	struct ein_out_piece p = { NULL, 0, -1, 0 };
	char *text;
	int ok;

	if (set_data(aot, 0) < 0)
		return -1;
	text = LLVMPrintModuleToString(aot->module);
	p.data = text;
	p.len = strlen(text);
	ok = ein_outfile_set_add(set, path, &p, 1, 0);
	LLVMDisposeMessage(text);
	return ok;
}

static int write_asm(ein_aot *aot, struct ein_outfile_set *set,
	const char *path)
{
	char *text = set_data(aot, 0) < 0 ? NULL :
		ein_target_emit_asm(aot->ctx, aot->target, aot->module);
	struct ein_out_piece p = { text, 0, -1, 0 };
	int ok;

	if (!text)
		return -1;
	p.len = strlen(text);
	ok = ein_outfile_set_add(set, path, &p, 1, 0);
	free(text);
	return ok;
}

/* Add to "set" as "path" what "print" writes, in memory first so that
 * the file is replaced whole. */
static int add_printed(ein_aot *aot, struct ein_outfile_set *set,
	const char *path, int (*print)(ein_aot *aot, FILE *f, const char *path))
{
	struct ein_out_piece p = { NULL, 0, -1, 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ok;

	if (!f)
		return -1;
	ok = print(aot, f, path);
	if (ferror(f) | fclose(f))
		ok = -1;
	p.data = text;
	p.len = len;
	if (ok == 0)
		ok = ein_outfile_set_add(set, path, &p, 1, 0);
	free(text);
	return ok;
}

/* Print the definitions as C text (emit_c.h). */
static int print_c(ein_aot *aot, FILE *f, const char *path)
{
	int i, ok = 0;

	ein_emit_c_prelude(f);
	for (i = 0; i < aot->n_def && ok == 0; ++i)
		ok = ein_emit_c(aot->ctx, f, &aot->def[i].spec,
			aot->def[i].scop, aot->def[i].tree);
	return ok;
}

/* Print the C header "path" declaring the definitions. */
static int print_header(ein_aot *aot, FILE *f, const char *path)
{
	int i, ok = 0;

	ein_cheader_begin(f, path);
	for (i = 0; i < aot->n_def && ok == 0; ++i)
		ok = ein_cheader_print_def(aot->ctx, f, &aot->def[i].spec);
	ein_cheader_end(f, path);
	return ok;
}

/* Add the output "path" in "format" to "set". */
static int add_output(ein_aot *aot, struct ein_outfile_set *set,
	const char *path, ein_aot_format format)
{
	if (aot->n_def == 0) {
		ein_error(aot->ctx, EIN_ERROR_INVALID, "no definition added");
		return -1;
	}
	if (check_consts(aot) < 0)
		return -1;
	switch (format) {
	case EIN_AOT_OBJECT: return write_object(aot, set, path, 0);
	case EIN_AOT_ARCHIVE: return write_object(aot, set, path, 1);
	case EIN_AOT_LLVM: return write_llvm(aot, set, path);
	case EIN_AOT_ASM: return write_asm(aot, set, path);
	case EIN_AOT_C: return add_printed(aot, set, path, &print_c);
	}
	ein_error(aot->ctx, EIN_ERROR_INVALID, "unknown format %d",
		(int) format);
	return -1;
}

ein_status ein_aot_write_files(ein_aot *aot, const char *path,
	ein_aot_format format, const char *header)
{
	struct ein_outfile_set *set;
	int ok;

	if (begin(aot) < 0)
		return EIN_ERROR_INVALID;
	if (!path && !header) {
		ein_error(aot->ctx, EIN_ERROR_INVALID, "no file to write");
		return EIN_ERROR_INVALID;
	}
	set = ein_outfile_set_alloc(aot->ctx);
	ok = set ? 0 : -1;
	if (ok == 0 && path)
		ok = add_output(aot, set, path, format);
	if (ok == 0 && header)
		ok = add_printed(aot, set, header, &print_header);
	if (ok == 0)
		ok = ein_outfile_set_commit(set);
	ein_outfile_set_free(set);
	return ok < 0 ? failed(aot) : EIN_OK;
}

ein_status ein_aot_write(ein_aot *aot, const char *path,
	ein_aot_format format)
{
	if (aot && !path)
		return null_argument(aot, "ein_aot_write", "the file name");
	return ein_aot_write_files(aot, path, format, NULL);
}

ein_status ein_aot_write_header(ein_aot *aot, const char *path)
{
	if (aot && !path)
		return null_argument(aot, "ein_aot_write_header",
			"the file name");
	return ein_aot_write_files(aot, NULL, EIN_AOT_OBJECT, path);
}
