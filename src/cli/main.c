/*
 * main.c: the ein command-line tool: subcommand dispatch and usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char usage[] =
"usage: ein COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  run FILE.ein [--def NAME] --sizes M=512,N=512,... [--fix-sizes] [--repeat N]\n"
"      [--check|--no-check]\n"
"        compile a definition, run it on random inputs, print timings and\n"
"        compare the result with the reference interpreter; --fix-sizes\n"
"        specialises the kernel to the sizes\n"
"  compile FILE.ein [--def NAME]... [--sizes M=64,...] [--const W=FILE]...\n"
"          [--target host|x86_64|x86_64-avx2|x86_64-avx512|aarch64 |\n"
"           --target-triple TRIPLE [--cpu CPU] [--features F]]\n"
"          [--emit=obj|llvm|asm|c] [-o kernels.o|libkernels.a] [--header kernels.h]\n"
"        compile definitions ahead of time into an object file or a static\n"
"        library and a C header; link with -lein_rt -lpthread -lm\n"
"  check FILE.ein...\n"
"        parse and check every definition; print the errors, exit 1 if any\n"
"  show FILE.ein [--def NAME] [--sizes M=7,...] --stage=source|domains|ast|\n"
"       llvm-unopt|llvm|c\n"
"        print an intermediate form (--sizes: compiled for those sizes)\n"
"  tune FILE.ein [--def NAME] --sizes M=512,... [--trials N | --time 60s]\n"
"       [--seed S] [-o FILE] [--log FILE] [--resume] [--quiet | --json]\n"
"        search for a fast schedule, measuring candidates safely, and write\n"
"        it to schedules/<target>/<def>.<sizes>.sched (docs/tuning.md)\n"
"  tune --plot LOG -o FILE.svg\n"
"        plot the best GFLOP/s over time of a tuning log\n"
"  demo [--sizes 128,256,512,1024]\n"
"        compile the built-in matmul example and compare it with OpenBLAS's\n"
"        cblas_sgemm: time, GFLOP/s and the largest error\n"
"  version\n"
"        print the version and the host's target name (the directory of\n"
"        schedules/ that ein searches)\n";

/* The version, and the target name that selects the schedules. */
static int print_version(void)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *target = ein_target_host_name(ctx);
	int status = target ? 0 : 1;

	printf("ein %s\n", ein_version());
	if (target)
		printf("host target: %s\n", target);
	else
		fprintf(stderr, "%s", ctx ? ein_ctx_last_error(ctx) : "");
	free(target);
	ein_ctx_free(ctx);
	return status;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "run"))
		return ein_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "compile"))
		return ein_cmd_compile(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return ein_cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "show"))
		return ein_cmd_show(argc - 1, argv + 1);
	if (!strcmp(cmd, "tune"))
		return ein_cmd_tune(argc - 1, argv + 1);
	if (!strcmp(cmd, "demo"))
		return ein_cmd_demo(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
		return print_version();
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (*cmd)
		fprintf(stderr, "ein: error: unknown command '%s'\n", cmd);
	fputs(usage, stderr);
	return 2;
}
