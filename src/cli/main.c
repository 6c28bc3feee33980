/*
 * main.c: the ein command-line tool: subcommand dispatch; the usage and
 * help texts are in help.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include "cli.h"

/* Keep the memory that kernels free in the process.  A kernel allocates
 * its full temporaries (a convolution's accumulator before its bias and
 * activation) with malloc on each call, and glibc gives blocks of more
 * than its threshold back to the system on free (mmap, or trimming the
 * heap's top), so the next call takes a page fault per 4 KiB of them:
 * MobileNetV2's 1x1 convolution at 112 x 112 to 96 channels with its
 * bias and Clip ran in 8-16 ms, 1.5 ms with the blocks kept (one thread,
 * docs/performance.md).  32 MiB is the largest threshold glibc takes;
 * trimming waits for 1 GiB free at the top.  A library cannot choose this
 * for its host process; a host that calls kernels in a loop can do the
 * same (or set MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_). */
#ifdef M_TRIM_THRESHOLD
static void keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
#else
static void keep_freed_memory(void)
{
}
#endif

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

/* "ein help [COMMAND | --man]". */
static int print_help(int argc, char **argv)
{
	if (argc < 3) {
		ein_cli_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))
		return ein_cli_help(stdout, "help") < 0;
	if (!strcmp(argv[2], "--man")) {
		ein_cli_man(stdout);
		return 0;
	}
	if (ein_cli_help(stdout, argv[2]) == 0)
		return 0;
	fprintf(stderr, "ein help: error: unknown command '%s'\n", argv[2]);
	ein_cli_usage(stderr);
	return 2;
}

/* The subcommands, each given its own argument vector (argv[0] is the
 * command's name). */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "run", &ein_cmd_run },
	{ "compile", &ein_cmd_compile },
	{ "check", &ein_cmd_check },
	{ "show", &ein_cmd_show },
	{ "tune", &ein_cmd_tune },
	{ "demo", &ein_cmd_demo },
	{ "import", &ein_cmd_import },
	{ "profile", &ein_cmd_profile },
	{ "quantize", &ein_cmd_quantize },
};

/* ein devices: the OpenCL platforms and devices; exits 1 without
 * OpenCL. */
static int print_devices(void)
{
	char *text = ein_opencl_devices();

	if (!text) {
		fprintf(stderr, "ein devices: error: ein has no OpenCL\n");
		return 1;
	}
	fputs(*text ? text : "no OpenCL platform\n", stdout);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	size_t i;

	keep_freed_memory();
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h"))
		return print_help(argc, argv);
	if (*cmd && ein_cli_wants_help(argc - 1, argv + 1) &&
	    ein_cli_help(stdout, cmd) == 0)
		return 0;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); ++i)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	if (!strcmp(cmd, "devices"))
		return print_devices();
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
		return print_version();
	if (*cmd)
		fprintf(stderr, "ein: error: unknown command '%s'\n", cmd);
	ein_cli_usage(stderr);
	return 2;
}
