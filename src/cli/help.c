/*
 * help.c: the one source of the tool's documentation.
 *
 * Every subcommand's synopsis, description and options are written once,
 * in the table below, and printed three ways: the overview of "ein help"
 * (and of a bad command line), the page of "ein help COMMAND" or "ein
 * COMMAND --help", and the manual page ein(1), which "ein help --man"
 * prints and the build installs.  So the --help texts and the manual
 * cannot disagree.
 *
 * Texts are paragraphs without line breaks: the terminal printer wraps
 * them to 79 columns, roff fills them itself.  A blank line between
 * paragraphs is written "\n".
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* An option: its spelling with its argument, and what it does. */
struct help_opt {
	const char *flag;
	const char *text;
};

/* A subcommand.
 * name: as typed after "ein"; synopsis: its arguments;
 * summary: one line for the overview; text: its description;
 * opts: its own options (ending with a NULL flag);
 * compiles: whether it also takes the compile options below. */
struct help_cmd {
	const char *name;
	const char *synopsis;
	const char *summary;
	const char *text;
	const struct help_opt *opts;
	int compiles;
};

/* The options of every subcommand that compiles (src/cli/opts.c). */
static const struct help_opt compile_opts[] = {
	{ "--schedule FILE", "Use the schedule in FILE (docs/schedules.md) "
	  "instead of the one found by lookup (or, when none is found, the "
	  "automatic one); an illegal directive is an "
	  "error naming its line and the dependence it breaks." },
	{ "--no-schedule", "Do not look up a schedule file: compile with the "
	  "default schedule." },
	{ "--no-auto", "When lookup finds no schedule file, compile with the "
	  "default schedule instead of the automatic one (docs/schedules.md, "
	  "\"The automatic schedule\")." },
	{ "--no-cost-model", "The automatic schedule takes its rules' first "
	  "legal candidate instead of the one the compiled-in cost model "
	  "predicts fastest (docs/tuning.md, \"The cost model\")." },
	{ "--strict-fp", "Keep the source's order of floating-point "
	  "operations, round each on its own and call the C library's "
	  "functions (no reassociated reductions, no fused multiply-add, no "
	  "inline exp or erf)." },
	{ "--compile-timeout DURATION", "Give up a compile that takes longer "
	  "(an error, exit 1; 30, 30s, 2m or 500ms; default 300 s, 0: no "
	  "limit).  Unroll factors "
	  "and vector widths are also capped (docs/schedules.md, \"Compile "
	  "time\")." },
	{ "--progress", "Print \"[k/n] compiling kernel NAME\" on stderr "
	  "before each kernel of a model (each definition for ein compile) "
	  "is compiled; the default when stderr is a terminal, where one "
	  "line is rewritten and cleared at the end." },
	{ "--no-progress", "Print no progress, even on a terminal." },
	{ NULL, NULL }
};

static const struct help_opt run_opts[] = {
	{ "--def NAME", "The definition to run (default: the only one, or "
	  "the first)." },
	{ "--sizes M=512,N=256,...", "The value of every size of the "
	  "definition (checked before anything is compiled)." },
	{ "--fix-sizes", "Compile the kernel for these sizes only: its loops "
	  "see constants (as ein compile --sizes does)." },
	{ "--target cpu|NAME|opencl|opencl:P:D", "Run on the CPU (the "
	  "default) or on an OpenCL device: the first GPU, else the first "
	  "device, or device D of platform P (ein devices lists them; "
	  "docs/opencl.md).  NAME (x86_64, x86_64-avx2, x86_64-avx512) runs "
	  "the code of that narrower CPU target here, with its schedules and "
	  "vectors, where this CPU can run it (docs/schedules.md, "
	  "\"Targets\")." },
	{ "--repeat N", "Time up to N calls (stopping after two seconds) and "
	  "print the median." },
	{ "--check", "Compare with the reference interpreter even above 2e9 "
	  "operations, where it is skipped by default." },
	{ "--no-check", "Do not compare with the reference interpreter." },
	{ "--range X=LO:HI,...", "Draw input X from [LO, HI) (integers from "
	  "LO to HI-1) instead of the default: floats in [-1, 1), small "
	  "integers; may "
	  "be repeated.  An in-place tensor (an input also named as an "
	  "output) is drawn the same way." },
	{ "--input X=FILE.npy", "Read input X from FILE (.npy of its type "
	  "and shape, or raw little-endian elements) instead of drawing it; "
	  "may be repeated.  The weights of an ONNX model come from the "
	  "model unless --input names them." },
	{ "--weights DIR", "Read every input that has a file DIR/NAME.npy "
	  "from it (the weights ein import --weights and ein quantize "
	  "write); --input takes precedence." },
	{ "--output DIR", "Write every output to DIR/NAME.npy after the "
	  "run." },
	{ "--profile", "For an ONNX model: print each fused kernel's time "
	  "per run and share of the total, with its ONNX nodes." },
	{ "--no-graph", "For an ONNX model: compile and run it as one "
	  "definition instead of fused kernels over an arena (the graph "
	  "level, docs/onnx.md)." },
	{ "--quantize PROFILE.json", "For an ONNX model: run it in int8 "
	  "from this profile (ein profile writes it; docs/quantization.md), "
	  "through the graph level (each int8 convolution with its "
	  "requantisation, Add, pool and float island a fused kernel) or "
	  "with --no-graph as one definition; the outputs are the same bit "
	  "for bit." },
	{ "--calibration minmax|percentile|kl", "With --quantize, how the "
	  "activations' ranges are chosen (default minmax)." },
	{ "--activation-bits 7|8", "With --quantize, the bits of the uint8 "
	  "activations (default 8; 7: 0..127, which on CPUs without VNNI "
	  "lets the int8 kernels use vpmaddubsw, "
	  "about 1.6x faster, at some accuracy; docs/quantization.md)." },
	{ NULL, NULL }
};

static const struct help_opt profile_opts[] = {
	{ "-o PROFILE.json", "Write the profile here (required): JSON, "
	  "written whole or not at all." },
	{ "--input X=FILE.npy", "Profile on this input (may be repeated); "
	  "with any input given, one run on the files is profiled." },
	{ "--inputs DIR", "Read each input X that has a file DIR/X.npy from "
	  "it." },
	{ "--samples N", "Without input files, the number of runs on random "
	  "inputs (uniform in [-1, 1), fixed seed; default 8)." },
	{ "--sizes N=16,...", "The value of each symbolic dimension (default "
	  "1)." },
	{ "--bins N", "The bins of each histogram (default 512)." },
	{ "--seed N", "The seed of the random inputs (default 42)." },
	{ NULL, NULL }
};

static const struct help_opt quantize_opts[] = {
	{ "--profile PROFILE.json", "The ranges of the tensors, as ein "
	  "profile writes them (required)." },
	{ "--calibration minmax|percentile|kl", "How the range of an "
	  "activation is chosen: the range seen (default), or, clipping "
	  "outliers, from the histogram: its 0.01 and 99.99 percentiles, or "
	  "the threshold of least KL divergence between the clipped and the "
	  "quantised histograms of |x| (TensorRT's entropy calibration; "
	  "profile with --bins 2048 for it)." },
	{ "--activation-bits 7|8", "The bits of the uint8 activations "
	  "(default 8; 7: levels 0..127, which on CPUs without VNNI "
	  "lets the int8 kernels use vpmaddubsw, "
	  "about 1.6x faster, at some accuracy; docs/quantization.md)." },
	{ "-o FILE.ein", "Write the int8 source here (required)." },
	{ "--weights DIR", "Write the weights there as DIR/NAME.npy "
	  "(default: FILE.weights, after -o without .ein)." },
	{ "--sizes N=1,...", "Fix these symbolic dimensions to constants." },
	{ NULL, NULL }
};

static const struct help_opt import_opts[] = {
	{ "-o FILE.ein", "Write the source here (default: standard "
	  "output)." },
	{ "--weights DIR", "Write each weight (a constant input of the "
	  "definition) to DIR/NAME.npy, for ein run --input and ein compile "
	  "--const." },
	{ "--sizes N=1,...", "Fix these symbolic dimensions (ONNX "
	  "dim_params) to constants." },
	{ "--kernels", "Write the graph level's fused kernels, one "
	  "definition each, instead of one definition for the model." },
	{ NULL, NULL }
};

static const struct help_opt compile_cmd_opts[] = {
	{ "--def NAME", "Compile this definition; may be repeated "
	  "(default: every definition of the file)." },
	{ "--sizes M=64,...", "Fix these sizes: the compiled function takes "
	  "no argument for them and checks the tensors against them (each "
	  "name checked before anything is compiled)." },
	{ "--const W=FILE", "Embed the contents of FILE (raw little-endian "
	  "elements, or .npy) as the constant input W; may be repeated "
	  "(with --target opencl, uploaded to the device once per "
	  "context)." },
	{ "--target NAME", "Compile for a class of machine: host, x86_64, "
	  "x86_64-avx2, x86_64-avx512 or aarch64 (default: host); or opencl: "
	  "the kernels' OpenCL C and host functions (NAME on host arrays, "
	  "NAME_cl on a queue and cl_mem buffers) for the host, linked with "
	  "-lein_rt -lOpenCL, the device chosen when the program runs "
	  "(docs/opencl.md)." },
	{ "--target-triple TRIPLE", "Compile for an LLVM target triple, with "
	  "--cpu and --features." },
	{ "--cpu CPU", "The CPU to compile for (with --target-triple)." },
	{ "--features F", "The CPU features, as LLVM spells them "
	  "(+avx2,+fma)." },
	{ "--emit=obj|llvm|asm|c", "Write an object file (the default), LLVM "
	  "IR, assembly, or C text (scalar C functions with the same "
	  "signatures, docs/design.md)." },
	{ "-o FILE", "The object file (FILE.o) or static library "
	  "(FILE.a) to write." },
	{ "--header FILE.h", "The C header declaring the compiled functions "
	  "to write." },
	{ "--quantize PROFILE.json", "Compile the ONNX model in int8 from "
	  "this profile, as ein quantize writes it (docs/quantization.md), "
	  "its int8 weights embedded." },
	{ "--calibration minmax|percentile|kl", "With --quantize, how the "
	  "activations' ranges are chosen (default minmax)." },
	{ "--activation-bits 7|8", "With --quantize, the bits of the uint8 "
	  "activations (default 8; 7: 0..127, which on CPUs without VNNI "
	  "lets the int8 kernels use vpmaddubsw, "
	  "about 1.6x faster, at some accuracy; docs/quantization.md)." },
	{ "--graph FILE.c", "For an ONNX model (with --header and every size "
	  "fixed): compile the graph level's fused kernels instead of one "
	  "definition, and write FILE.c, one C function named after the "
	  "model that calls them in order over a static arena (compile it "
	  "with your program); with --quantize, the int8 model's kernels." },
	{ NULL, NULL }
};

static const struct help_opt show_opts[] = {
	{ "--def NAME", "The definition to show." },
	{ "--sizes M=7,...", "Compile for these sizes, as --fix-sizes does "
	  "(each name checked before anything is compiled)." },
	{ "--stage=STAGE", "What to print: source, domains, deps, schedule, "
	  "ast (the default), llvm-unopt, llvm, asm, c (the kernel as C "
	  "text), or opencl (the OpenCL C of --target opencl); for an ONNX "
	  "model also kernels (the fused kernels' source) and memory (the "
	  "arena's plan: each tensor's bytes, lifetime and offset, then the "
	  "arena against the sum; needs every size fixed)." },
	{ "--target cpu|NAME|opencl|opencl:P:D", "Compile for the CPU (the "
	  "default), the CPU target NAME (x86_64, x86_64-avx2, "
	  "x86_64-avx512: its schedules, vectors and assembly, where this "
	  "CPU can run it) or an OpenCL device (docs/opencl.md)." },
	{ "--quantize PROFILE.json", "With --stage=kernels or memory: the "
	  "int8 model's fused kernels (minmax calibration; "
	  "docs/quantization.md)." },
	{ NULL, NULL }
};

static const struct help_opt tune_opts[] = {
	{ "--def NAME", "The definition to tune." },
	{ "--sizes M=1024,...", "The sizes to tune for (required; checked "
	  "before anything is compiled)." },
	{ "--target NAME", "Tune for the CPU target NAME that this machine "
	  "can run (x86_64, x86_64-avx2, x86_64-avx512; default cpu, the "
	  "host): its code is measured and the file written for its class "
	  "(docs/tuning.md)." },
	{ "--target opencl[:P:D]", "Tune for an OpenCL device (the default "
	  "one, or device D of platform P): work-group and work-item tiles, "
	  "register tiles, __local copies, unrolling and loop order, timed "
	  "by the device's profiling events, written to "
	  "schedules/opencl-CLASS/ (docs/tuning.md)." },
	{ "--trials N", "Measure at most N candidates (default 100 when "
	  "--time is not given)." },
	{ "--time DURATION", "Search for this long: 60s, 2m, 500ms." },
	{ "--seed S", "The seed of the search (default 1)." },
	{ "--strategy evolve|random", "The search strategy (default "
	  "evolve)." },
	{ "--timeout DURATION", "The time limit of one candidate (default "
	  "10s)." },
	{ "--compile-timeout DURATION", "The time limit of compiling one "
	  "candidate (default 10s, within what --time leaves)." },
	{ "--min-time DURATION", "How long each candidate is run to be "
	  "measured (default 0.2s)." },
	{ "--slow-factor K", "Stop measuring a candidate whose first timed "
	  "call takes over K times the best's median, logged as slow "
	  "(default 3; 0: never)." },
	{ "--rank-limit DURATION", "Where one call at the sizes takes longer "
	  "than this (default: --time over 160; 0: never), rank candidates "
	  "on a smaller problem of the same shape and measure the leaders "
	  "at the sizes (docs/tuning.md)." },
	{ "--rank-sizes M=16,...", "Rank candidates at these sizes (each "
	  "at most its --sizes value) and measure the leaders at --sizes." },
	{ "--mem-limit BYTES", "The memory limit of a candidate's process: "
	  "4096M, 4G (default 4G)." },
	{ "-o FILE, --output FILE", "Write the schedule here instead of "
	  "schedules/TARGET/DEF.SIZES.sched under the first directory of "
	  "EIN_SCHEDULE_PATH." },
	{ "--log FILE", "The log of every trial (default: beside the "
	  "schedule, .log)." },
	{ "--resume", "Continue the search of an existing log." },
	{ "--symbolic-sizes", "Measure candidates compiled with symbolic "
	  "sizes (the sizes as hints, as lookup serves a schedule at any "
	  "size) instead of with the sizes fixed, as ein compile --sizes "
	  "and ein run --fix-sizes deploy them (the default)." },
	{ "--verbose", "Print how each candidate is compiled and "
	  "measured, the confirmation of each new best (measured again "
	  "right after the best), and the medians of the leaders and of "
	  "the automatic and analog seeds when they are measured again "
	  "before the best is chosen." },
	{ "--list-space", "Print the search space (the machine, each "
	  "statement's loops, extents and tile sizes), the analog seed (the "
	  "installed matmul or batched_matmul schedule renamed for a "
	  "GEMM-shaped contraction) and the directives of the analytic "
	  "seeds, and measure nothing." },
	{ "--quiet", "Print only the result." },
	{ "--json", "Print the result as JSON." },
	{ "--plot LOG", "Plot the best GFLOP/s over time of a tuning log "
	  "as SVG, to the file given with -o." },
	{ "--schedule-dir DIR", "For a model: write each kernel's schedule "
	  "as DIR/TARGET/KERNEL.SIZES.sched (default: the first directory "
	  "of EIN_SCHEDULE_PATH, else schedules)." },
	{ NULL, NULL }
};

static const struct help_opt demo_opts[] = {
	{ "--sizes N,N,...", "The matrix sizes to run (default "
	  "128,256,512,1024)." },
	{ "--threads N", "The threads of both ein and OpenBLAS (default 1)." },
	{ NULL, NULL }
};

static const struct help_opt no_opts[] = { { NULL, NULL } };

static const struct help_cmd cmds[] = {
	{ "run", "FILE.ein|MODEL.onnx [--def NAME] --sizes M=512,N=512,... "
	  "[--input X=FILE.npy]... [--weights DIR] [--output DIR] [--profile] "
	  "[--no-graph] [--quantize PROFILE.json] [OPTIONS]",
	  "compile a definition, run it on random inputs, time it and check "
	  "it",
	  "Compiles a definition with the schedule found by lookup (or the "
	  "one given), runs it on random inputs, prints the median time and "
	  "GFLOP/s, and compares every output with the reference "
	  "interpreter.  Exits 1 on a mismatch.  An ONNX model (*.onnx) is "
	  "imported first (as ein import does), fused into kernels that run "
	  "in order over one arena, with its weights, and checked against "
	  "the interpreter on the whole model; its sizes must be given "
	  "(docs/onnx.md).", run_opts, 1 },
	{ "compile", "FILE.ein|MODEL.onnx [--def NAME]... [--sizes M=64,...] "
	  "[--const W=FILE]... [--target T] [--emit=obj|llvm|asm|c] "
	  "[-o FILE] [--header FILE.h] [--quantize PROFILE.json] [OPTIONS]",
	  "compile definitions ahead of time into an object file or a "
	  "static library and a C header",
	  "Compiles definitions ahead of time into an object file or a "
	  "static library and a C header declaring one function per "
	  "definition.  Link with -lein_rt -lpthread -lm.  The files are "
	  "written together or not at all.  An ONNX model (*.onnx) is "
	  "imported first and compiled with its weights embedded.",
	  compile_cmd_opts, 1 },
	{ "import", "MODEL.onnx [-o FILE.ein] [--weights DIR] "
	  "[--sizes N=1,...] [--kernels]",
	  "write an ONNX model as ein source",
	  "Reads an ONNX model and writes it as the ein source of one "
	  "definition named after the file: its inputs, then its weights as "
	  "inputs, its outputs, each operator as ein statements; constant "
	  "nodes and shape computations folded, symbolic dimensions as "
	  "sizes (docs/onnx.md).  An unsupported operator, attribute or "
	  "dynamic shape is an error naming the node, its op type and what "
	  "is missing (exit 1).", import_opts, 0 },
	{ "profile", "MODEL.onnx -o PROFILE.json [--input X=FILE.npy]... "
	  "[--inputs DIR] [--samples N] [--sizes N=16,...] [OPTIONS]",
	  "record the range and histogram of every tensor of a model",
	  "Runs an ONNX model in float on sample inputs (given, or random "
	  "from a fixed seed) with every intermediate tensor made an output, "
	  "and writes each tensor's minimum, maximum and histogram, by its "
	  "ONNX name, to a JSON profile for ein quantize.  Its \"precision\" "
	  "object (empty) may name nodes to keep in float: "
	  "{\"gemm_0\": \"float\"} (docs/quantization.md).", profile_opts, 1 },
	{ "quantize", "MODEL.onnx --profile PROFILE.json [--calibration "
	  "minmax|percentile|kl] -o FILE.ein [--weights DIR]",
	  "write an ONNX model as int8 ein source from a profile",
	  "Writes an ONNX model as ein source computing in int8: scales and "
	  "zero points from the profile (uint8 activations), weights "
	  "quantised ahead of time (int8, one scale per output channel), "
	  "Conv, Gemm and MatMul as uint8 x int8 products accumulated in "
	  "int32 and requantised by qmul (a Relu after them fused), every "
	  "other operator in float between dequantisation and quantisation "
	  "statements.  The weights go to a directory, for ein run --weights "
	  "(docs/quantization.md).", quantize_opts, 0 },
	{ "check", "FILE.ein|MODEL.onnx...", "parse and check every "
	  "definition",
	  "Parses and checks every definition of each file; prints each "
	  "error as FILE:LINE:COL: error: ... and exits 1 if there is any.",
	  no_opts, 0 },
	{ "show", "FILE.ein|MODEL.onnx [--def NAME] [--sizes M=7,...] "
	  "[--stage=STAGE] "
	  "[OPTIONS]", "print an intermediate form of a definition",
	  "Prints one stage of the compilation of a definition: the source, "
	  "the iteration domains and accesses, the dependences, the schedule "
	  "tree, the loops of isl's AST, the LLVM IR before and after "
	  "optimisation, the assembly, or the kernel as C text.", show_opts,
	  1 },
	{ "tune", "FILE.ein [--def NAME] --sizes M=512,... "
	  "[--trials N | --time 60s] [--target opencl[:P:D]] [OPTIONS] | "
	  "MODEL.onnx --time T [--sizes N=1] [--schedule-dir DIR]",
	  "search for a fast schedule and write it",
	  "Searches the schedule space of a definition at the given sizes, "
	  "measures candidates in child processes under time and memory "
	  "limits, checks every new best against the reference interpreter, "
	  "logs every trial and writes the best schedule atomically to "
	  "schedules/TARGET/DEF.SIZES.sched (docs/tuning.md).\n"
	  "ein tune MODEL.onnx --time T [--sizes N=1] tunes a model's fused "
	  "kernels instead: it times each kernel in a run of the model, "
	  "splits T among them by their share of the run time (a kernel "
	  "whose share is under a second is left as it is), tunes each, "
	  "the largest first, writing DIR/TARGET/KERNEL.SIZES.sched with the "
	  "model's sizes as its sizes header, then runs the model again "
	  "with them (ein run finds them by lookup on EIN_SCHEDULE_PATH; "
	  "docs/onnx.md).\n"
	  "ein tune --plot LOG -o FILE.svg plots a log instead.",
	  tune_opts, 0 },
	{ "demo", "[--sizes 128,256,...] [--threads N]",
	  "run the matmul example with the schedule a user gets and compare "
	  "it with OpenBLAS",
	  "Compiles the matmul example (C(i, j) +=! A(i, k) * B(k, j)) as a "
	  "user's program gets it, with the installed schedule found by "
	  "lookup for each size, and with the default schedule beside it; "
	  "runs both next to OpenBLAS's cblas_sgemm on the same inputs and "
	  "prints times, GFLOP/s, the ratio and the largest error.  Exits 1 "
	  "if a result differs from OpenBLAS's.", demo_opts, 0 },
	{ "devices", "", "list the OpenCL platforms and devices",
	  "Lists the OpenCL platforms and their devices as opencl:P:D, the "
	  "value of --target and EIN_OPENCL_DEVICE that selects each, with "
	  "its name, type and target class (opencl-nvidia, opencl-amd, "
	  "opencl-intel, opencl-pocl or opencl-generic: schedule files are "
	  "looked up in schedules/<class>/, then schedules/opencl-generic/).",
	  no_opts, 0 },
	{ "version", "", "print the version and the host's target",
	  "Prints the version and the host's target name, the directory of "
	  "schedules/ that lookup searches.", no_opts, 0 },
	{ "help", "[COMMAND | --man]", "print this overview or a command's "
	  "options",
	  "Prints the overview of commands, the options of COMMAND (as ein "
	  "COMMAND --help does), or with --man this manual page in roff.",
	  no_opts, 0 },
};

/* The environment variables ein reads. */
static const struct help_opt env_vars[] = {
	{ "EIN_SCHEDULE_PATH", "Colon-separated directories searched for "
	  "schedules/TARGET/DEF.sched before the installed ones; ein tune "
	  "writes into the first." },
	{ "EIN_NUM_THREADS", "The number of threads of parallel loops "
	  "(default: the CPUs the process may run on)." },
	{ "EIN_POISON_BUFFERS", "When 1, fill temporaries with NaN bytes as "
	  "they are allocated, so that a kernel reading an element before "
	  "writing it fails its check." },
	{ "EIN_NO_LIBMVEC", "When set, do not call glibc's vector math "
	  "library from vectorised loops." },
	{ "EIN_OPENCL_DEVICE", "P:D: the OpenCL device of --target opencl "
	  "(default: the first GPU, else the first device)." },
	{ NULL, NULL }
};

static const struct help_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); ++i)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* Print "text" from column "col" on, wrapped to 79 columns, each new line
 * indented by "indent" spaces; paragraphs ("\n") are separated by a
 * blank line. */
static void wrap(FILE *out, const char *text, int indent, int col)
{
	while (*text) {
		size_t word = strcspn(text, " \n");

		if (col > indent && col + 1 + (int) word > 79) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			++col;
		}
		fwrite(text, 1, word, out);
		col += word;
		text += word;
		if (*text == '\n') {
			fprintf(out, "\n\n%*s", indent, "");
			col = indent;
		}
		while (*text == ' ' || *text == '\n')
			++text;
	}
	fputc('\n', out);
}

static void print_opts(FILE *out, const struct help_opt *o)
{
	for (; o->flag; ++o) {
		fprintf(out, "  %s\n%*s", o->flag, 6, "");
		wrap(out, o->text, 6, 6);
	}
}

void ein_cli_usage(FILE *out)
{
	size_t i;

	fputs("usage: ein COMMAND [ARGS]\n\ncommands:\n", out);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); ++i) {
		fprintf(out, "  %-9s", cmds[i].name);
		wrap(out, cmds[i].summary, 11, 11);
	}
	fputs("\n'ein help COMMAND' or 'ein COMMAND --help' prints a "
		"command's options;\n'man ein' has them all.\n", out);
}

int ein_cli_help(FILE *out, const char *name)
{
	const struct help_cmd *c = find_cmd(name);

	if (!c)
		return -1;
	fprintf(out, "usage: ein %s", c->name);
	wrap(out, c->synopsis, 7, 11 + strlen(c->name));
	fputc('\n', out);
	wrap(out, c->text, 0, 0);
	if (c->opts->flag || c->compiles)
		fputs("\noptions:\n", out);
	print_opts(out, c->opts);
	if (c->compiles)
		print_opts(out, compile_opts);
	return 0;
}

int ein_cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; ++i)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

/* Write "text" for roff: a backslash and a minus sign escaped, a line
 * that would start with a control character ('.' or '\'') protected,
 * paragraphs as .PP or, inside an option's text, .IP. */
static void roff(FILE *out, const char *text, const char *para)
{
	int bol = 1;

	for (; *text; ++text) {
		if (bol && (*text == '.' || *text == '\''))
			fputs("\\&", out);
		bol = 0;
		if (*text == '\\')
			fputs("\\e", out);
		else if (*text == '-')
			fputs("\\-", out);
		else if (*text == '\n') {
			fprintf(out, "\n%s\n", para);
			bol = 1;
			while (text[1] == ' ')
				++text;
		} else
			fputc(*text, out);
	}
	fputc('\n', out);
}

static void man_opts(FILE *out, const struct help_opt *o)
{
	for (; o->flag; ++o) {
		fputs(".TP\n.B ", out);
		roff(out, o->flag, ".IP");
		roff(out, o->text, ".IP");
	}
}

void ein_cli_man(FILE *out)
{
	size_t i;

	fprintf(out, ".TH EIN 1 \"\" \"ein %s\" \"User Commands\"\n"
		".SH NAME\nein \\- a tensor compiler for Einstein notation\n"
		".SH SYNOPSIS\n", ein_version());
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); ++i) {
		fprintf(out, ".B ein %s\n", cmds[i].name);
		if (*cmds[i].synopsis)
			roff(out, cmds[i].synopsis, ".br");
		fputs(".br\n", out);
	}
	fputs(".SH DESCRIPTION\n", out);
	roff(out, "ein compiles tensor operators written in Einstein "
		"notation (C(i, j) +=! A(i, k) * B(k, j)) through isl's "
		"polyhedral model and LLVM into fast code for the CPU, with "
		"schedules kept apart from the definitions and checked "
		"against the exact dependences, so that a schedule can make a "
		"kernel slow but never wrong.  The language is described in "
		"docs/language.md, schedules in docs/schedules.md and tuning "
		"in docs/tuning.md of the source tree.", ".PP");
	fputs(".SH COMMANDS\n", out);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); ++i) {
		fprintf(out, ".SS \"ein %s\"\n", cmds[i].name);
		roff(out, cmds[i].text, ".PP");
		man_opts(out, cmds[i].opts);
	}
	fputs(".SH COMPILE OPTIONS\nTaken by run, compile and show.\n", out);
	man_opts(out, compile_opts);
	fputs(".SH ENVIRONMENT\n", out);
	man_opts(out, env_vars);
	fputs(".SH EXIT STATUS\n", out);
	roff(out, "0 on success; 1 when a source, a schedule or a check "
		"fails (errors are printed as FILE:LINE:COL: error: ...); 2 "
		"for a malformed command line.", ".PP");
	fputs(".SH SEE ALSO\n", out);
	roff(out, "The C library's header ein.h documents every function; "
		"pkg-config --cflags --libs ein gives the flags to build "
		"against it.", ".PP");
}
