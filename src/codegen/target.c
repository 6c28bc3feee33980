/*
 * target.c: the machine code is generated for (the host, or a named or
 * explicit target for objects compiled ahead of time), the O3 pipeline,
 * and assembly and object emission.
 *
 * LLVM only vectorises for the vector width it is told of: the kernels get
 * the target's CPU name and features as function attributes as well as a
 * target machine, so that the loop vectoriser and the code generator agree
 * on AVX-512, AVX2 or NEON.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/target.h"
#include "frontend/builtin.h"
#include "sched/lookup.h"

/* triple, cpu, features: as LLVM names them (owned, LLVM messages);
 * name: the class name of the target (ein_sched_target_name);
 * tm: the target machine. */
struct ein_target {
	char *triple;
	char *cpu;
	char *features;
	char *name;
	LLVMTargetMachineRef tm;
};

static pthread_once_t llvm_init_once = PTHREAD_ONCE_INIT;
static pthread_once_t llvm_init_all_once = PTHREAD_ONCE_INIT;

/* The targets "ein compile --target NAME" knows by name, with the
 * class their schedules are looked up under (ein_sched_target_name's
 * names; their CPU implies features that they do not list), and the
 * host features that code for them may use: a host lacking one cannot
 * run it (ein_target_jit_named; the ISA extensions an x86 numeric kernel
 * can be compiled to, not every feature the CPU name implies). */
static const struct {
	const char *name;
	const char *triple;
	const char *cpu;
	const char *features;
	const char *class;
	const char *needs;
} named_targets[] = {
	{ "x86_64", "x86_64-unknown-linux-gnu", "x86-64", "", "x86_64-sse",
		"+sse2" },
	{ "x86_64-avx2", "x86_64-unknown-linux-gnu", "haswell", "",
		"x86_64-avx2", "+sse2,+ssse3,+sse4.1,+sse4.2,+popcnt,+avx,"
		"+avx2,+fma,+f16c,+bmi,+bmi2,+lzcnt,+movbe" },
	{ "x86_64-avx512", "x86_64-unknown-linux-gnu", "skylake-avx512",
		"-prefer-256-bit", "x86_64-avx512", "+sse2,+ssse3,+sse4.1,"
		"+sse4.2,+popcnt,+avx,+avx2,+fma,+f16c,+bmi,+bmi2,+lzcnt,"
		"+movbe,+avx512f,+avx512cd,+avx512bw,+avx512dq,+avx512vl" },
	{ "aarch64", "aarch64-unknown-linux-gnu", "generic", "+neon",
		"aarch64-neon", "+neon" },
};

#define N_NAMED (sizeof(named_targets) / sizeof(named_targets[0]))

/* Loops calling exp, log, pow, tanh or erf vectorise into calls
 * to glibc's vector math library, libmvec (_ZGVdN8v_expf and the like: a
 * softmax's exp is otherwise a scalar call per element), on x86-64 targets
 * with AVX2.  LLVM 16's own way, its -vector-library option, is
 * process-wide and maps x86 names into objects for any target, so each
 * module is told instead (add_libmvec_variants).  libmvec: whether this
 * process has glibc's libmvec, loaded for the JIT to find its functions;
 * objects compiled ahead of time get it from glibc's -lm (libm.so and
 * libm.a are linker scripts naming it). */
static int libmvec;
static pthread_once_t libmvec_once = PTHREAD_ONCE_INIT;

static void use_libmvec(void)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	if (!getenv("EIN_NO_LIBMVEC") &&
	    dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL))
		libmvec = 1;
#endif
}

/* The builtin function (frontend/builtin.h) that libmvec has a vector
 * version of and whose call is "name", or EIN_BUILTIN_NONE: as the C
 * library's name ("expf", "exp") or LLVM's intrinsic ("llvm.exp.f32");
 * *dbl is set for the double versions. */
static enum ein_builtin find_libmvec_fn(const char *name, int *dbl)
{
	int i;
	char buf[32];

	for (i = EIN_BUILTIN_NONE + 1; i < EIN_BUILTIN_N; ++i) {
		const char *f = ein_builtin_name(i);

		if (!ein_builtin_get(i)->libmvec)
			continue;
		*dbl = 1;
		if (!strcmp(name, f))
			return i;
		snprintf(buf, sizeof(buf), "llvm.%s.f64", f);
		if (!strcmp(name, buf))
			return i;
		*dbl = 0;
		snprintf(buf, sizeof(buf), "%sf", f);
		if (!strcmp(name, buf))
			return i;
		snprintf(buf, sizeof(buf), "llvm.%s.f32", f);
		if (!strcmp(name, buf))
			return i;
	}
	return EIN_BUILTIN_NONE;
}

static void add_fn_attr(LLVMValueRef fn, LLVMAttributeRef attr)
{
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr);
}

/* Declare the vector version "vname" of function k with "lanes" lanes of
 * "elem" into used[(*n)++], and append its mapping for the scalar "name"
 * to "list" (of "len" bytes, *pos used). */
static void declare_variant(LLVMModuleRef m, enum ein_builtin k,
	LLVMTypeRef elem, int lanes, const char *vname, const char *name,
	char *list, size_t len, size_t *pos, LLVMValueRef *used, int *n)
{
	LLVMTypeRef vec = LLVMVectorType(elem, lanes);
	LLVMTypeRef params[2] = { vec, vec };
	LLVMValueRef v = LLVMGetNamedFunction(m, vname);

	if (!v)
		v = LLVMAddFunction(m, vname, LLVMFunctionType(vec, params,
			strlen(ein_builtin_get(k)->libmvec), 0));
	used[(*n)++] = v;
	*pos += snprintf(list + *pos, len - *pos, "%s_ZGV_LLVM_N%d%s_%s(%s)",
		*pos ? "," : "", lanes, ein_builtin_get(k)->libmvec, name,
		vname);
}

/* Tell the loop vectoriser of the libmvec versions of declaration "fn",
 * AVX2 ('d') and SSE ('b'), by the attribute
 * "vector-function-abi-variant", as LLVM's own mappings do.  A C library
 * call also gets no memory effects (kernels never read errno; a call that
 * may write memory is never vectorised). */
static void add_variants(LLVMModuleRef m, LLVMValueRef fn,
	LLVMValueRef *used, int *n)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	const char *name = LLVMGetValueName(fn);
	int dbl;
	enum ein_builtin k = find_libmvec_fn(name, &dbl);
	LLVMTypeRef elem;
	char list[256], vname[64];
	const char *f, *suffix;
	size_t pos = 0;

	if (k == EIN_BUILTIN_NONE)
		return;
	elem = dbl ? LLVMDoubleTypeInContext(c) : LLVMFloatTypeInContext(c);
	f = ein_builtin_name(k);
	suffix = dbl ? "" : "f";
	snprintf(vname, sizeof(vname), "_ZGVdN%d%s_%s%s", dbl ? 4 : 8,
		ein_builtin_get(k)->libmvec, f, suffix);
	declare_variant(m, k, elem, dbl ? 4 : 8, vname, name, list,
		sizeof(list), &pos, used, n);
	snprintf(vname, sizeof(vname), "_ZGVbN%d%s_%s%s", dbl ? 2 : 4,
		ein_builtin_get(k)->libmvec, f, suffix);
	declare_variant(m, k, elem, dbl ? 2 : 4, vname, name, list,
		sizeof(list), &pos, used, n);
	add_fn_attr(fn, LLVMCreateStringAttribute(c,
		"vector-function-abi-variant", 27, list, pos));
	if (LLVMGetIntrinsicID(fn))
		return;
	add_fn_attr(fn, LLVMCreateEnumAttribute(c,
		LLVMGetEnumAttributeKindForName("memory", 6), 0));
	add_fn_attr(fn, LLVMCreateEnumAttribute(c,
		LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
}

/* Does the class name of "t" start with "prefix", or is "t" an x86-64
 * target whose CPU is "cpu" (a named target's CPU, whose features are
 * implied by it, not listed; NULL: none)?  Other CPUs given by name are
 * not recognised: they only lose what the feature would give. */
static int has_class(const struct ein_target *t, const char *prefix,
	const char *cpu)
{
	return !strncmp(t->name, prefix, strlen(prefix)) ||
		(cpu && !strncmp(t->triple, "x86_64", 6) && t->cpu &&
		 !strcmp(t->cpu, cpu));
}

/* Is "t" an x86-64 target with AVX2: its class name x86_64-avx..., or
 * the CPU of a named target with AVX2 or AVX-512? */
static int has_avx2(const struct ein_target *t)
{
	return has_class(t, "x86_64-avx", "haswell") ||
		has_class(t, "x86_64-avx", "skylake-avx512");
}

int ein_target_has_avx2(const struct ein_target *t)
{
	return has_avx2(t);
}

int ein_target_has_avx512(const struct ein_target *t)
{
	return has_class(t, "x86_64-avx512", "skylake-avx512");
}

/* The features are LLVM's list, "+avx512vnni" among them where the
 * target has it; a named target's CPU (skylake-avx512) has none. */
int ein_target_has_avx512_vnni(const struct ein_target *t)
{
	const char *f = t->features;

	while (f && (f = strstr(f, "+avx512vnni"))) {
		f += strlen("+avx512vnni");
		if (!*f || *f == ',')
			return ein_target_has_avx512(t);
	}
	return 0;
}

/* The module flag of ein_target_mark_strict_fp. */
static const char strict_fp_flag[] = "ein.strict-fp";

void ein_target_mark_strict_fp(LLVMModuleRef m)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMValueRef one = LLVMConstInt(LLVMInt32TypeInContext(c), 1, 0);

	LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, strict_fp_flag,
		sizeof(strict_fp_flag) - 1, LLVMValueAsMetadata(one));
}

/* Map the math calls of "m" to libmvec for targets with AVX2, when this
 * process has it and "m" is not strict (ein_target_mark_strict_fp).  The
 * declarations of the vector versions are kept in @llvm.compiler.used
 * until the loop vectoriser has run (as LLVM's own mappings are):
 * unused, they would be removed before it. */
static void add_libmvec_variants(struct ein_target *t, LLVMModuleRef m)
{
	LLVMValueRef fn, used[4 * EIN_BUILTIN_N], g;
	LLVMTypeRef ptr;
	int n = 0;

	pthread_once(&libmvec_once, &use_libmvec);
	if (!libmvec || !has_avx2(t) ||
	    LLVMGetModuleFlag(m, strict_fp_flag, sizeof(strict_fp_flag) - 1) ||
	    LLVMGetNamedGlobal(m, "llvm.compiler.used"))
		return;
	for (fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
		if (LLVMIsDeclaration(fn) && n + 2 <= (int) (4 * EIN_BUILTIN_N))
			add_variants(m, fn, used, &n);
	if (n == 0)
		return;
	ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0);
	g = LLVMAddGlobal(m, LLVMArrayType(ptr, n), "llvm.compiler.used");
	LLVMSetLinkage(g, LLVMAppendingLinkage);
	LLVMSetSection(g, "llvm.metadata");
	LLVMSetInitializer(g, LLVMConstArray(ptr, used, n));
}

/* LLVM's target registry is process-wide: initialise it once. */
static void llvm_init(void)
{
	LLVMInitializeNativeTarget();
	LLVMInitializeNativeAsmPrinter();
}

void ein_target_free(struct ein_target *target)
{
	if (!target)
		return;
	if (target->tm)
		LLVMDisposeTargetMachine(target->tm);
	LLVMDisposeMessage(target->triple);
	LLVMDisposeMessage(target->cpu);
	LLVMDisposeMessage(target->features);
	free(target->name);
	free(target);
}

void ein_target_init(void)
{
	pthread_once(&llvm_init_once, &llvm_init);
}

/* Every target this LLVM was built with, for cross-compiled objects. */
static void llvm_init_all(void)
{
	LLVMInitializeAllTargetInfos();
	LLVMInitializeAllTargets();
	LLVMInitializeAllTargetMCs();
	LLVMInitializeAllAsmPrinters();
}

/* Copy "s" into a string LLVMDisposeMessage frees. */
static char *llvm_strdup(const char *s)
{
	return LLVMCreateMessage(s ? s : "");
}

/* The names LLVM accepts for the target named "target" (as
 * LLVMGetTargetName names it): processors and features, each list ending
 * in NULL.  cpu_table.h is generated from this LLVM (gen_cpu_table.sh). */
struct cpu_table {
	const char *target;
	const char *const *cpus;
	const char *const *features;
};
#include "codegen/cpu_table.h"

static int in_list(const char *const *list, const char *name, size_t len)
{
	for (; *list; ++list)
		if (strlen(*list) == len && !strncmp(*list, name, len))
			return 1;
	return 0;
}

/* Refuse a processor or feature name that LLVM would not know for
 * "target": LLVM only warns about it on stderr and goes on without the
 * processor's features, and for x86-64 then aborts the process ("64-bit
 * code requested on a subtarget that doesn't support it"). */
static int check_names(ein_ctx *ctx, LLVMTargetRef target, const char *cpu,
	const char *features)
{
	const char *name = LLVMGetTargetName(target), *p;
	const struct cpu_table *t;

	for (t = cpu_tables; t->target && strcmp(t->target, name); ++t)
		;
	if (!t->target)
		return 0;
	if (cpu && *cpu && strcmp(cpu, "generic") &&
	    !in_list(t->cpus, cpu, strlen(cpu))) {
		ein_error(ctx, EIN_ERROR_INVALID, "'%s' is not a processor "
			"of target %s (llc -mtriple=... -mcpu=help lists them)",
			cpu, name);
		return -1;
	}
	for (p = features ? features : ""; *p; p += *p == ',') {
		size_t len = strcspn(p, ",");

		if ((*p != '+' && *p != '-') || !in_list(t->features, p + 1,
				len - 1)) {
			ein_error(ctx, EIN_ERROR_INVALID, "'%.*s' is not a "
				"feature of target %s (+NAME or -NAME, with "
				"a name that llc -mattr=help lists)",
				(int) len, p, name);
			return -1;
		}
		p += len;
	}
	return 0;
}

/* Is "item" one of the comma-separated items of "list"? */
static int has_item(const char *list, const char *item)
{
	size_t len = strlen(item);

	for (; *list; list += *list == ',') {
		size_t n = strcspn(list, ",");

		if (n == len && !strncmp(list, item, len))
			return 1;
		list += n;
	}
	return 0;
}

/* The features to give LLVM (an LLVM message): "features", and for an
 * x86-64 triple also "+64bit", so that a processor without 64-bit mode
 * (i686, pentium4) cannot make LLVM abort.  NULL after an error if
 * "features" turns 64bit off. */
static char *llvm_features(ein_ctx *ctx, LLVMTargetRef target,
	const char *features)
{
	const char *f = features ? features : "";
	size_t n = strlen(f);
	char *buf, *res;

	if (strcmp(LLVMGetTargetName(target), "x86-64"))
		return llvm_strdup(f);
	if (has_item(f, "-64bit")) {
		ein_error(ctx, EIN_ERROR_INVALID, "the features turn off "
			"64bit, which an x86-64 target needs");
		return NULL;
	}
	buf = malloc(n + 8);
	if (!buf)
		return NULL;
	snprintf(buf, n + 8, "%s%s+64bit", f, n ? "," : "");
	res = llvm_strdup(buf);
	free(buf);
	return res;
}

struct ein_target *ein_target_alloc(ein_ctx *ctx, const char *triple,
	const char *cpu, const char *features)
{
	struct ein_target *t;
	LLVMTargetRef target;
	char *msg = NULL;

	pthread_once(&llvm_init_all_once, &llvm_init_all);
	if (!triple || LLVMGetTargetFromTriple(triple, &target, &msg)) {
		ein_error(ctx, EIN_ERROR_INVALID, "unknown target triple "
			"'%s'%s%s", triple ? triple : "", msg ? ": " : "",
			msg ? msg : "");
		LLVMDisposeMessage(msg);
		return NULL;
	}
	if (check_names(ctx, target, cpu, features) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->triple = llvm_strdup(triple);
	t->cpu = llvm_strdup(cpu);
	t->features = llvm_features(ctx, target, features);
	if (!t->features)
		return (ein_target_free(t), NULL);
	t->tm = LLVMCreateTargetMachine(target, t->triple, t->cpu,
		t->features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
		LLVMCodeModelDefault);
	if (!t->tm) {
		ein_error(ctx, EIN_ERROR_INVALID, "LLVM cannot generate code "
			"for '%s' (cpu '%s', features '%s')", triple,
			t->cpu, t->features);
		ein_target_free(t);
		return NULL;
	}
	/* Its class, as the features given say (a named target's CPU
	 * implies more: ein_target_named names those). */
	t->name = ein_sched_target_name(t->triple, t->cpu, t->features);
	if (!t->name) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		ein_target_free(t);
		return NULL;
	}
	return t;
}

/* Name "t" by its class "class" (its schedules' directory); NULL after
 * freeing "t" if out of memory. */
static struct ein_target *set_class(ein_ctx *ctx, struct ein_target *t,
	const char *class)
{
	free(t->name);
	t->name = strdup(class);
	if (t->name)
		return t;
	ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	ein_target_free(t);
	return NULL;
}

struct ein_target *ein_target_named(ein_ctx *ctx, const char *name)
{
	struct ein_target *t;
	size_t i;

	if (!name || !strcmp(name, "host")) {
		char *triple = LLVMGetDefaultTargetTriple();
		char *cpu = LLVMGetHostCPUName();
		char *features = LLVMGetHostCPUFeatures();

		t = ein_target_alloc(ctx, triple, cpu, features);
		LLVMDisposeMessage(triple);
		LLVMDisposeMessage(cpu);
		LLVMDisposeMessage(features);
		return t;
	}
	for (i = 0; i < N_NAMED; ++i)
		if (!strcmp(named_targets[i].name, name)) {
			t = ein_target_alloc(ctx, named_targets[i].triple,
				named_targets[i].cpu,
				named_targets[i].features);
			return t ? set_class(ctx, t, named_targets[i].class) :
				NULL;
		}
	ein_error(ctx, EIN_ERROR_INVALID, "unknown target '%s' (targets: "
		"host, x86_64, x86_64-avx2, x86_64-avx512, aarch64; or give "
		"an LLVM triple)", name);
	return NULL;
}

const char *ein_target_named_class(const char *name)
{
	size_t i;

	for (i = 0; name && i < N_NAMED; ++i)
		if (!strcmp(named_targets[i].name, name))
			return named_targets[i].class;
	return NULL;
}

/* The first feature of the comma-separated list "needs" that the list
 * "have" (LLVM's "+a,-b,...") does not enable, into buf; 0 if none. */
static int missing_feature(const char *needs, const char *have, char *buf,
	size_t len)
{
	while (*needs) {
		size_t n = strcspn(needs, ",");
		const char *h = have;
		int found = 0;

		while (*h && !found) {
			size_t m = strcspn(h, ",");

			found = m == n && !strncmp(h, needs, n);
			h += m + (h[m] == ',');
		}
		if (!found) {
			snprintf(buf, len, "%.*s", (int) n, needs);
			return 1;
		}
		needs += n + (needs[n] == ',');
	}
	return 0;
}

/* The architecture of LLVM triple "triple" (up to the first '-') equals
 * that of "other"? */
static int same_arch(const char *triple, const char *other)
{
	size_t n = strcspn(triple, "-");

	return n == strcspn(other, "-") && !strncmp(triple, other, n);
}

struct ein_target *ein_target_jit_named(ein_ctx *ctx, const char *name)
{
	char *triple, *cpu, *features;
	char missing[32];
	struct ein_target *t = NULL;
	size_t i;

	for (i = 0; i < N_NAMED; ++i)
		if (!strcmp(named_targets[i].name, name))
			break;
	if (i == N_NAMED)
		return ein_target_named(ctx, name);
	ein_target_init();
	triple = LLVMGetDefaultTargetTriple();
	cpu = LLVMGetHostCPUName();
	features = LLVMGetHostCPUFeatures();
	if (!same_arch(named_targets[i].triple, triple))
		ein_error(ctx, EIN_ERROR_INVALID, "this machine (%s) cannot "
			"run code for target '%s' (%s): compile it ahead of "
			"time instead (ein compile --target %s)", triple,
			name, named_targets[i].triple, name);
	else if (missing_feature(named_targets[i].needs, features, missing,
			sizeof(missing)))
		ein_error(ctx, EIN_ERROR_INVALID, "this machine's CPU (%s) "
			"cannot run code for target '%s': it lacks %s", cpu,
			name, missing + 1);
	else if ((t = ein_target_alloc(ctx, triple, named_targets[i].cpu,
			named_targets[i].features)))
		t = set_class(ctx, t, named_targets[i].class);
	LLVMDisposeMessage(triple);
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(features);
	return t;
}

const char *ein_target_get_triple(const struct ein_target *target)
{
	return target->triple;
}

int ein_target_is_little_endian(const struct ein_target *target)
{
	LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(target->tm);
	int little = LLVMByteOrder(layout) == LLVMLittleEndian;

	LLVMDisposeTargetData(layout);
	return little;
}

struct ein_target *ein_target_host(ein_ctx *ctx)
{
	struct ein_target *t = calloc(1, sizeof(*t));
	LLVMTargetRef target;
	char *msg = NULL;

	ein_target_init();
	if (!t)
		return NULL;
	t->triple = LLVMGetDefaultTargetTriple();
	t->cpu = LLVMGetHostCPUName();
	t->features = LLVMGetHostCPUFeatures();
	t->name = ein_sched_target_name(t->triple, t->cpu, t->features);
	if (!t->name) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		ein_target_free(t);
		return NULL;
	}
	if (LLVMGetTargetFromTriple(t->triple, &target, &msg)) {
		ein_internal(ctx, "no LLVM target for %s: %s", t->triple, msg);
		LLVMDisposeMessage(msg);
		ein_target_free(t);
		return NULL;
	}
	t->tm = LLVMCreateTargetMachine(target, t->triple, t->cpu,
		t->features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
		LLVMCodeModelJITDefault);
	return t;
}

const char *ein_target_get_name(struct ein_target *target)
{
	return target ? target->name : NULL;
}

char *ein_target_host_name(ein_ctx *ctx)
{
	struct ein_target *t;
	char *name;

	if (!ctx)
		return NULL;
	ein_ctx_clear_error(ctx);
	t = ein_target_host(ctx);
	if (!t)
		return NULL;
	name = strdup(t->name);
	ein_target_free(t);
	if (!name)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	return name;
}

/* Tell every function defined in "m" which CPU it runs on. */
static void set_cpu_attrs(struct ein_target *t, LLVMModuleRef m)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMValueRef fn;

	for (fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
		if (LLVMIsDeclaration(fn))
			continue;
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
			LLVMCreateStringAttribute(c, "target-cpu", 10,
				t->cpu, strlen(t->cpu)));
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
			LLVMCreateStringAttribute(c, "target-features", 15,
				t->features, strlen(t->features)));
	}
}

int ein_target_is_elf64le(const struct ein_target *target)
{
	static const char *const not_elf[] = { "apple", "darwin", "macos",
		"ios", "windows", "win32", "mingw", "cygwin", "msvc", "aix",
		"wasm", "uefi", "zos" };
	LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(target->tm);
	int yes = LLVMByteOrder(layout) == LLVMLittleEndian &&
		LLVMPointerSize(layout) == 8;
	size_t i;

	LLVMDisposeTargetData(layout);
	for (i = 0; i < sizeof(not_elf) / sizeof(not_elf[0]); ++i)
		if (strstr(target->triple, not_elf[i]))
			yes = 0;
	return yes;
}

void ein_target_set_module(struct ein_target *t, LLVMModuleRef m)
{
	LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(t->tm);
	char *str = LLVMCopyStringRepOfTargetData(layout);

	LLVMSetTarget(m, t->triple);
	LLVMSetDataLayout(m, str);
	LLVMDisposeMessage(str);
	LLVMDisposeTargetData(layout);
}

int ein_target_optimize(ein_ctx *ctx, struct ein_target *t, LLVMModuleRef m)
{
	LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
	LLVMErrorRef err;

	ein_target_set_module(t, m);
	set_cpu_attrs(t, m);
	add_libmvec_variants(t, m);
	LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
	LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
	LLVMPassBuilderOptionsSetLoopInterleaving(opts, 1);
	LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
	err = LLVMRunPasses(m, "default<O3>", t->tm, opts);
	LLVMDisposePassBuilderOptions(opts);
	if (err) {
		char *msg = LLVMGetErrorMessage(err);

		ein_internal(ctx, "LLVM's optimiser failed: %s", msg);
		LLVMDisposeErrorMessage(msg);
		return -1;
	}
	return 0;
}

char *ein_target_emit_asm(ein_ctx *ctx, struct ein_target *target,
	LLVMModuleRef m)
{
	LLVMMemoryBufferRef buf = NULL;
	char *msg = NULL, *text = NULL;
	size_t len;

	if (LLVMTargetMachineEmitToMemoryBuffer(target->tm, m,
			LLVMAssemblyFile, &msg, &buf)) {
		ein_internal(ctx, "cannot emit assembly: %s", msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return NULL;
	}
	len = LLVMGetBufferSize(buf);
	text = malloc(len + 1);
	if (text) {
		memcpy(text, LLVMGetBufferStart(buf), len);
		text[len] = '\0';
	}
	LLVMDisposeMemoryBuffer(buf);
	return text;
}

LLVMMemoryBufferRef ein_target_emit_object(ein_ctx *ctx,
	struct ein_target *target, LLVMModuleRef m)
{
	LLVMMemoryBufferRef buf = NULL;
	char *msg = NULL;

	if (LLVMTargetMachineEmitToMemoryBuffer(target->tm, m,
			LLVMObjectFile, &msg, &buf)) {
		ein_internal(ctx, "cannot emit an object file for %s: %s",
			target->triple, msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return NULL;
	}
	return buf;
}
