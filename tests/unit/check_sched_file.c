/*
 * check_sched_file.c: schedule files (src/sched/file.c) and their lookup
 * (src/sched/lookup.c).
 *
 * A file with every directive parses to the expected fields and positions
 * and prints back in canonical form; each malformed file comes with the
 * exact first line of its message (file, line, column, text) and, where
 * there is one, its hint.  Writing is atomic, and lookup picks the file
 * the documentation says it picks, in temporary directories.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include "ein.h"
#include "ctx.h"
#include "diag.h"
#include "sched/file.h"
#include "sched/lookup.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---------------------------------------------------------- */

static struct ein_sched_file *parse(ein_ctx *ctx, const char *text)
{
	ein_ctx_clear_error(ctx);
	return ein_sched_file_parse(ctx, ein_src_alloc("t.sched", text));
}

/* The fixture with every verb, from the source tree. */
static struct ein_sched_file *read_every_verb(ein_ctx *ctx)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	struct ein_sched_file *f;
	char *path;

	ck_assert_int_ge(asprintf(&path, "%s/tests/sched/every_verb.sched",
		srcdir ? srcdir : "."), 0);
	ein_ctx_clear_error(ctx);
	f = ein_sched_file_read(ctx, path);
	ck_assert_msg(f != NULL, "%s", ein_ctx_last_error(ctx));
	free(path);
	return f;
}

/* The first line of "msg" (freed by the caller). */
static char *first_line(const char *msg)
{
	return strndup(msg, strcspn(msg, "\n"));
}

static void write_text(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	ck_assert_msg(out != NULL, "cannot write %s", path);
	fputs(text, out);
	fclose(out);
}

/* All of the file at "path" (freed by the caller). */
static char *read_text(const char *path)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_src *src = ein_src_read(ctx, path);
	char *text;

	ck_assert_msg(src != NULL, "%s", ein_ctx_last_error(ctx));
	text = strdup(src->text);
	ein_src_free(src);
	ein_ctx_free(ctx);
	return text;
}

/* "dir/name" (freed by the caller). */
static char *join(const char *dir, const char *name)
{
	char *path;

	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	return path;
}

/* A new temporary directory (freed by the caller; removed by rm_tree). */
static char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/ein-sched-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = join(path, e->d_name);
		rm_tree(sub);
		free(sub);
	}
	closedir(d);
	rmdir(path);
}

/* The number of entries of "dir" whose names start with "prefix". */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* ---- a valid file ------------------------------------------------------ */

static const char every_verb_canonical[] =
	"ein-schedule 1\n"
	"target x86_64-avx2\n"
	"def matmul\n"
	"sizes M=1024 N=512 K=256\n"
	"measured 45.2 GFLOP/s\n"
	"date 2026-11-23\n"
	"ein 0.1.0\n"
	"tuned-by ein tune --trials 200\n"
	"\n"
	"C: tile i 64 j 256 k 128\n"
	"C: reorder i.o j.o k.o i.i k.i j.i\n"
	"C: vectorize j.i 8\n"
	"C: unroll k.i 4\n"
	"C: unroll i.i full\n"
	"C: parallel i.o\n"
	"C.init: parallel i\n"
	"T#2: split i 32\n"
	"T: compute_at C j.o\n"
	"T: compute_at C j.o recompute\n"
	"T: fuse C 2\n"
	"T#3.init: fuse C#2\n"
	"C: pack A at k.o\n"
	"C: accumulate k.o\n"
	"C: gpu_blocks i j\n"
	"C: gpu_threads i.i j.i\n"
	"C: prefetch B at k.i from k.o 2\n"
	"C: stream j.i\n"
	"C: local A at k.o\n";

/* The headers of the fixture. */
START_TEST(headers)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = read_every_verb(ctx);

	ck_assert_int_eq(f->version, 1);
	ck_assert_str_eq(f->target, "x86_64-avx2");
	ck_assert_str_eq(f->def, "matmul");
	ck_assert_str_eq(f->measured, "45.2 GFLOP/s");
	ck_assert_str_eq(f->date, "2026-11-23");
	ck_assert_str_eq(f->ein_version, "0.1.0");
	ck_assert_str_eq(f->tuned_by, "ein tune --trials 200");
	ck_assert_int_eq(f->n_size, 3);
	ck_assert_str_eq(f->size[0].name, "M");
	ck_assert_int_eq(f->size[0].value, 1024);
	ck_assert_int_eq(f->size[0].loc.line, 8);
	ck_assert_int_eq(f->size[0].loc.col, 7);
	ck_assert_str_eq(f->size[1].name, "N");
	ck_assert_int_eq(f->size[1].loc.col, 15);
	ck_assert_int_eq(f->size[2].loc.col, 21);
	ck_assert_int_eq(ein_sched_file_get_size(f, "K"), 256);
	ck_assert_int_eq(ein_sched_file_get_size(f, "Q"), -1);
	ck_assert_int_eq(f->n_dir, 19);
	ein_sched_file_free(f);
	ein_ctx_free(ctx);
}
END_TEST

/* What each directive of the fixture is expected to hold: verb, line,
 * statement (tensor, occurrence, is_init, column), verb column, and the
 * arguments as "KIND:text@col" (L loop, S statement, T tensor, I integer,
 * K keyword) separated by spaces. */
static const struct {
	enum ein_sched_verb verb;
	int line;
	const char *tensor;
	int occurrence, is_init, col, verb_col;
	const char *args;
} dir_cases[] = {
	{ EIN_SCHED_TILE, 14, "C", 1, 0, 1, 4,
	  "L:i@9 I:64@11 L:j@14 I:256@16 L:k@20 I:128@22" },
	{ EIN_SCHED_REORDER, 15, "C", 1, 0, 1, 3,
	  "L:i.o@11 L:j.o@15 L:k.o@19 L:i.i@23 L:k.i@27 L:j.i@31" },
	{ EIN_SCHED_VECTORIZE, 16, "C", 1, 0, 1, 5, "L:j.i@15 I:8@19" },
	{ EIN_SCHED_UNROLL, 17, "C", 1, 0, 2, 5, "L:k.i@12 I:4@16" },
	{ EIN_SCHED_UNROLL, 18, "C", 1, 0, 1, 4, "L:i.i@11 K:full=-1@15" },
	{ EIN_SCHED_PARALLEL, 19, "C", 1, 0, 1, 4, "L:i.o@13" },
	{ EIN_SCHED_PARALLEL, 20, "C", 1, 1, 1, 9, "L:i@18" },
	{ EIN_SCHED_SPLIT, 21, "T", 2, 0, 1, 6, "L:i@12 I:32@14" },
	{ EIN_SCHED_COMPUTE_AT, 22, "T", 1, 0, 1, 4, "S:C@15 L:j.o@17" },
	{ EIN_SCHED_COMPUTE_AT, 23, "T", 1, 0, 1, 4,
	  "S:C@15 L:j.o@17 K:recompute=1@21" },
	{ EIN_SCHED_FUSE, 24, "T", 1, 0, 1, 4, "S:C@9 I:2@11" },
	{ EIN_SCHED_FUSE, 25, "T", 3, 1, 1, 11, "S:C#2@16" },
	{ EIN_SCHED_PACK, 26, "C", 1, 0, 1, 4, "T:A@9 L:k.o@14" },
	{ EIN_SCHED_ACCUMULATE, 27, "C", 1, 0, 1, 4, "L:k.o@15" },
	{ EIN_SCHED_GPU_BLOCKS, 28, "C", 1, 0, 1, 4, "L:i@15 L:j@17" },
	{ EIN_SCHED_GPU_THREADS, 29, "C", 1, 0, 1, 4, "L:i.i@16 L:j.i@20" },
	{ EIN_SCHED_PREFETCH, 30, "C", 1, 0, 1, 4,
	  "T:B@13 L:k.i@18 L:k.o@27 I:2@31" },
	{ EIN_SCHED_STREAM, 31, "C", 1, 0, 1, 6, "L:j.i@13" },
	{ EIN_SCHED_LOCAL, 32, "C", 1, 0, 1, 4, "T:A@10 L:k.o@15" },
};

/* The arguments of "d" in the notation of dir_cases (freed by caller). */
static char *describe_args(const struct ein_sched_directive *d)
{
	static const char kinds[] = "LSTIK";
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	int i;

	for (i = 0; i < d->n_arg; ++i) {
		const struct ein_sched_arg *a = &d->arg[i];

		ck_assert_int_eq(a->loc.line, d->line);
		fprintf(out, "%s%c:", i ? " " : "", kinds[a->kind]);
		if (a->kind == EIN_SCHED_ARG_INT)
			fprintf(out, "%ld", a->value);
		else
			fprintf(out, "%s", a->name);
		if (a->kind == EIN_SCHED_ARG_KEYWORD)
			fprintf(out, "=%ld", a->value);
		fprintf(out, "@%d", a->loc.col);
	}
	fclose(out);
	return buf;
}

START_TEST(directive)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = read_every_verb(ctx);
	const struct ein_sched_directive *d = &f->dir[_i];
	char *args;

	ck_assert_int_eq(d->verb, dir_cases[_i].verb);
	ck_assert_int_eq(d->line, dir_cases[_i].line);
	ck_assert_str_eq(d->stmt.tensor, dir_cases[_i].tensor);
	ck_assert_int_eq(d->stmt.occurrence, dir_cases[_i].occurrence);
	ck_assert_int_eq(d->stmt.is_init, dir_cases[_i].is_init);
	ck_assert_int_eq(d->stmt.loc.line, d->line);
	ck_assert_int_eq(d->stmt.loc.col, dir_cases[_i].col);
	ck_assert_int_eq(d->verb_loc.line, d->line);
	ck_assert_int_eq(d->verb_loc.col, dir_cases[_i].verb_col);
	ck_assert_ptr_eq(d->verb_loc.src, f->src);
	args = describe_args(d);
	ck_assert_str_eq(args, dir_cases[_i].args);
	free(args);
	ein_sched_file_free(f);
	ein_ctx_free(ctx);
}
END_TEST

/* The statement arguments keep their parts apart. */
START_TEST(stmt_args)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = read_every_verb(ctx);
	const struct ein_sched_arg *a = &f->dir[11].arg[0];
	char *text;

	ck_assert_int_eq(a->kind, EIN_SCHED_ARG_STMT);
	ck_assert_str_eq(a->stmt.tensor, "C");
	ck_assert_int_eq(a->stmt.occurrence, 2);
	ck_assert_int_eq(a->stmt.is_init, 0);
	ck_assert_int_eq(a->stmt.loc.col, 16);
	ck_assert_str_eq(ein_sched_verb_name(f->dir[8].verb), "compute_at");
	text = ein_sched_directive_to_string(&f->dir[11]);
	ck_assert_str_eq(text, "T#3.init: fuse C#2");
	free(text);
	text = ein_sched_directive_to_string(&f->dir[12]);
	ck_assert_str_eq(text, "C: pack A at k.o");
	free(text);
	ein_sched_file_free(f);
	ein_ctx_free(ctx);
}
END_TEST

/* The canonical form is as expected and parses back to itself. */
START_TEST(round_trip)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = read_every_verb(ctx), *g;
	char *text = ein_sched_file_to_string(f), *again;

	ck_assert_str_eq(text, every_verb_canonical);
	g = parse(ctx, text);
	ck_assert_msg(g != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(g->n_dir, f->n_dir);
	again = ein_sched_file_to_string(g);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
	ein_sched_file_free(g);
	ein_sched_file_free(f);
	ein_ctx_free(ctx);
}
END_TEST

/* Minimal files: the version line alone, and without headers. */
static const struct {
	const char *src;
	const char *printed;
} small_cases[] = {
	{ "ein-schedule 1", "ein-schedule 1\n" },
	{ "  # leading comment\n\nein-schedule 1   # v1\r\n"
	  "sizes N=8,M=4\n", "ein-schedule 1\nsizes N=8 M=4\n" },
	{ "ein-schedule 1\nX_1: parallel i_2.o.i\n",
	  "ein-schedule 1\n\nX_1: parallel i_2.o.i\n" },
	{ "ein-schedule 1\nT#1: split i 2147483647\n",
	  "ein-schedule 1\n\nT: split i 2147483647\n" },
	/* tensors may be named like headers: the ':' decides */
	{ "ein-schedule 1\ndate: parallel i\nsizes : parallel j\n",
	  "ein-schedule 1\n\ndate: parallel i\nsizes: parallel j\n" },
	/* layouts of pack and accumulate, printed back with their word */
	{ "ein-schedule 1\nC: pack A at k.o layout k i\n"
	  "C: accumulate j.o  layout j i\n",
	  "ein-schedule 1\n\nC: pack A at k.o layout k i\n"
	  "C: accumulate j.o layout j i\n" },
	/* prefetch, with and without its "from" loop and distance */
	{ "ein-schedule 1\ne: prefetch X at j.o\n"
	  "e: prefetch  X at j.o from i\n",
	  "ein-schedule 1\n\ne: prefetch X at j.o\n"
	  "e: prefetch X at j.o from i\n" },
	/* indices split into blocks */
	{ "ein-schedule 1\nC: pack B at k.o layout j/16 k j%16\n",
	  "ein-schedule 1\n\nC: pack B at k.o layout j/16 k j%16\n" },
};

START_TEST(small)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = parse(ctx, small_cases[_i].src);
	char *text;

	ck_assert_msg(f != NULL, "%s", ein_ctx_last_error(ctx));
	text = ein_sched_file_to_string(f);
	ck_assert_str_eq(text, small_cases[_i].printed);
	free(text);
	ein_sched_file_free(f);
	ein_ctx_free(ctx);
}
END_TEST

/* ---- malformed files ---------------------------------------------------- */

#define V1 "ein-schedule 1\n"

/* Each malformed file, the first line of its message, and a text its
 * hint must contain (NULL: not checked). */
static const struct {
	const char *src;
	const char *msg;
	const char *hint;
} error_cases[] = {
	{ "", "t.sched:1:1: error: missing 'ein-schedule 1' line",
	  "hint: a schedule file starts with 'ein-schedule 1'" },
	{ "# only a comment\n\nC: parallel i\n",
	  "t.sched:3:1: error: missing 'ein-schedule 1' line", NULL },
	{ "ein-schedule 2\n",
	  "t.sched:1:14: error: unsupported schedule file version 2",
	  "hint: this ein reads version 1" },
	{ "ein-schedule\n",
	  "t.sched:1:13: error: missing version number after "
	  "'ein-schedule'", NULL },
	{ V1 "ein-schedule 1\n",
	  "t.sched:2:1: error: duplicate 'ein-schedule' line",
	  "the first is on line 1" },
	{ V1 "C: tiel i 64\n",
	  "t.sched:2:4: error: unknown directive 'tiel'",
	  "hint: did you mean 'tile'?" },
	{ V1 "C: frobnicate i\n",
	  "t.sched:2:4: error: unknown directive 'frobnicate'",
	  "hint: the directives are split, tile, reorder" },
	{ V1 "C tile i 64\n",
	  "t.sched:2:2: error: missing ':' after the statement 'C'",
	  "hint: a directive reads 'STMT: VERB ARGS'" },
	{ V1 "C: tile i 64 j\n",
	  "t.sched:2:14: error: odd number of arguments for 'tile'",
	  "hint: write 'STMT: tile LOOP N { LOOP N }', e.g. "
	  "'C: tile i 64 j 32'" },
	{ V1 "target a\ntarget b\n",
	  "t.sched:3:1: error: duplicate 'target' header",
	  "hint: the first is on line 2" },
	{ V1 "C: parallel i\ndef f\n",
	  "t.sched:3:1: error: header 'def' after a directive",
	  "hint: the headers come before the first directive (line 2)" },
	{ V1 "C: split i 0\n",
	  "t.sched:2:12: error: expected an integer >= 1, got '0'", NULL },
	{ V1 "C: split i -4\n",
	  "t.sched:2:12: error: expected an integer >= 1, got '-4'", NULL },
	{ V1 "C: split i 2147483648\n",
	  "t.sched:2:12: error: integer '2147483648' is too large "
	  "(at most 2147483647)", NULL },
	{ V1 "C: split i 99999999999999999999999\n",
	  "t.sched:2:12: error: integer '99999999999999999999999' is too "
	  "large (at most 2147483647)", NULL },
	{ V1 "C: split i x\n",
	  "t.sched:2:12: error: expected an integer, got 'x'", NULL },
	{ V1 "T: compute_at C j.o recomute\n",
	  "t.sched:2:21: error: expected 'recompute' or 'store', got "
	  "'recomute'", "hint: did you mean 'recompute'?" },
	{ V1 "C: unroll i ful\n",
	  "t.sched:2:13: error: expected an unroll factor or 'full', got "
	  "'ful'", "hint: did you mean 'full'?" },
	{ V1 "C: tile i 64 i 32\n",
	  "t.sched:2:14: error: loop 'i' appears twice in 'tile'",
	  "hint: its first place is column 9" },
	{ V1 "C: reorder i j i\n",
	  "t.sched:2:16: error: loop 'i' appears twice in 'reorder'", NULL },
	{ V1 "C: reorder i\n",
	  "t.sched:2:13: error: too few arguments for 'reorder'",
	  "hint: write 'STMT: reorder LOOP LOOP { LOOP }'" },
	{ V1 "C: tile\n",
	  "t.sched:2:8: error: too few arguments for 'tile'", NULL },
	{ V1 "C: parallel i j\n",
	  "t.sched:2:15: error: too many arguments for 'parallel'", NULL },
	{ V1 "C: vectorize j.x 8\n",
	  "t.sched:2:15: error: expected '.o' or '.i' in loop name 'j.x'",
	  "hint: split and tile cut loop i into i.o (outer) and i.i" },
	{ V1 "C: vectorize j.io 8\n",
	  "t.sched:2:15: error: expected '.o' or '.i' in loop name 'j.io'",
	  NULL },
	{ V1 "C: parallel i-1\n",
	  "t.sched:2:14: error: unexpected '-' in loop name 'i-1'", NULL },
	{ V1 "C: parallel 2i\n",
	  "t.sched:2:13: error: expected a loop name, got '2i'", NULL },
	{ V1 "T#0: parallel i\n",
	  "t.sched:2:3: error: expected an integer >= 1, got '0'", NULL },
	{ V1 "T#: parallel i\n",
	  "t.sched:2:2: error: expected a number after '#' in statement "
	  "'T#'", NULL },
	{ V1 "C.ini: parallel i\n",
	  "t.sched:2:2: error: expected '.init' after the statement, got "
	  "'.ini'", NULL },
	{ V1 "C-D: parallel i\n",
	  "t.sched:2:2: error: unexpected '-' in statement 'C-D'", NULL },
	{ V1 "T: fuse 3 1\n",
	  "t.sched:2:9: error: expected a statement (TENSOR, TENSOR#N or "
	  "TENSOR.init), got '3'", NULL },
	{ V1 "C: pack A in k.o\n",
	  "t.sched:2:11: error: expected 'at' after the tensor, got 'in'",
	  NULL },
	{ V1 "e: prefetch X at j.o to i\n",
	  "t.sched:2:22: error: expected 'from' after the loop, got 'to'",
	  NULL },
	{ V1 "e: prefetch X at j.o from\n",
	  "t.sched:2:26: error: no loop after 'from' for 'prefetch'",
	  "hint: write 'STMT: prefetch TENSOR at LOOP [from LOOP [N]]', e.g. "
	  "'e: prefetch X at j.o from i'" },
	{ V1 "e: prefetch X at j.o from i 0\n",
	  "t.sched:2:29: error: expected an integer >= 1, got '0'", NULL },
	{ V1 "C: pack A.i at k.o\n",
	  "t.sched:2:9: error: expected a tensor name, got 'A.i'", NULL },
	{ V1 "sizes M=4 M=8\n",
	  "t.sched:2:11: error: size 'M' given twice",
	  "hint: its first value is at column 7" },
	{ V1 "sizes M=4 N\n",
	  "t.sched:2:12: error: expected '=' after size 'N'", NULL },
	{ V1 "sizes M=0\n",
	  "t.sched:2:9: error: expected an integer >= 1, got '0'", NULL },
	{ V1 "sizes =4\n",
	  "t.sched:2:7: error: expected a size name, got '='", NULL },
	{ V1 "sizes\n",
	  "t.sched:2:6: error: missing NAME=INT after 'sizes'", NULL },
	{ V1 "tagret x86_64-avx2\n",
	  "t.sched:2:1: error: unknown header 'tagret'",
	  "hint: did you mean 'target'?" },
	{ V1 "target: x86_64-avx2\n",
	  "t.sched:2:7: error: unexpected ':' after 'target'", NULL },
	{ V1 "C:\n",
	  "t.sched:2:3: error: missing directive after ':'", NULL },
	{ V1 ": parallel i\n",
	  "t.sched:2:1: error: expected a statement before ':'", NULL },
	{ V1 "def 2mm\n",
	  "t.sched:2:5: error: expected a definition name, got '2mm'", NULL },
	{ V1 "target x86 64\n",
	  "t.sched:2:12: error: unexpected '64' after the target name",
	  NULL },
	{ V1 "target x86/64\n",
	  "t.sched:2:11: error: unexpected '/' in target name 'x86/64'",
	  NULL },
	{ V1 "date\n",
	  "t.sched:2:5: error: missing text after 'date'", NULL },
	{ V1 "C: fuse T 0\n",
	  "t.sched:2:11: error: expected an integer >= 1, got '0'", NULL },
	{ V1 "C: split i 64 # fine\nT#2x: parallel i\n",
	  "t.sched:3:3: error: expected an integer, got '2x'", NULL },
	{ V1 "C: vectorize j 8 : 4\n",
	  "t.sched:2:18: error: too many arguments for 'vectorize'", NULL },
};

START_TEST(error)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = parse(ctx, error_cases[_i].src);
	const char *msg = ein_ctx_last_error(ctx);
	char *line = first_line(msg);

	ck_assert_ptr_null(f);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
	ck_assert_str_eq(line, error_cases[_i].msg);
	if (error_cases[_i].hint)
		ck_assert_msg(strstr(msg, error_cases[_i].hint) != NULL,
			"no '%s' in:\n%s", error_cases[_i].hint, msg);
	free(line);
	ein_ctx_free(ctx);
}
END_TEST

/* The whole message: the quoted line and the caret under the column. */
START_TEST(caret)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = parse(ctx, V1 "C: tile i 64 j\n");

	ck_assert_ptr_null(f);
	ck_assert_str_eq(ein_ctx_last_error(ctx),
		"t.sched:2:14: error: odd number of arguments for 'tile'\n"
		"    C: tile i 64 j\n"
		"                 ^\n"
		"hint: write 'STMT: tile LOOP N { LOOP N }', e.g. "
		"'C: tile i 64 j 32'\n");
	ein_ctx_free(ctx);
}
END_TEST

/* Every line with an error is reported, in order, once. */
START_TEST(several_errors)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_sched_file *f = parse(ctx,
		V1 "C: tiel i\nC: parallel i\nC: split i 0\nD parallel i\n"
		"target t\n");
	const char *msg = ein_ctx_last_error(ctx), *a, *b, *c, *d;

	ck_assert_ptr_null(f);
	ck_assert_int_eq(ein_diag_n_error(ctx), 4);
	a = strstr(msg, "t.sched:2:4: error: unknown directive 'tiel'");
	b = strstr(msg, "t.sched:4:12: error: expected an integer >= 1");
	c = strstr(msg, "t.sched:5:2: error: missing ':' after the "
		"statement 'D'");
	d = strstr(msg, "t.sched:6:1: error: header 'target' after a "
		"directive");
	ck_assert_msg(a && b && c && d && a < b && b < c && c < d, "%s", msg);
	ein_ctx_free(ctx);
}
END_TEST

/* A file that cannot be read is an I/O error naming it. */
START_TEST(read_missing)
{
	ein_ctx *ctx = ein_ctx_alloc();

	ein_ctx_clear_error(ctx);
	ck_assert_ptr_null(ein_sched_file_read(ctx, "/nonexistent/x.sched"));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"cannot open '/nonexistent/x.sched'"));
	ein_ctx_free(ctx);
}
END_TEST

/* ---- atomic writing ---------------------------------------------------- */

/* Writing creates the file, and writing again replaces it whole, with no
 * temporary left behind. */
START_TEST(write_replace)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *dir = make_tmpdir(), *path = join(dir, "s.sched"), *text;
	struct ein_sched_file *f = read_every_verb(ctx);
	struct ein_sched_file *g = parse(ctx, V1 "C: parallel i\n");
	struct stat st;

	write_text(path, "old contents, much longer than the new ones "
		"so that a partial overwrite would show\n");
	ck_assert_int_eq(ein_sched_file_write(ctx, g, path), 0);
	text = read_text(path);
	ck_assert_str_eq(text, "ein-schedule 1\n\nC: parallel i\n");
	free(text);
	ck_assert_int_eq(ein_sched_file_write(ctx, f, path), 0);
	text = read_text(path);
	ck_assert_str_eq(text, every_verb_canonical);
	free(text);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	ck_assert_int_eq(count_entries(dir, "s.sched"), 1);
	ein_sched_file_free(f);
	ein_sched_file_free(g);
	rm_tree(dir);
	free(path);
	free(dir);
	ein_ctx_free(ctx);
}
END_TEST

/* Assert that writing "f" to "path" fails with an I/O error. */
static void assert_write_fails(ein_ctx *ctx, struct ein_sched_file *f,
	const char *path)
{
	ein_ctx_clear_error(ctx);
	ck_assert_int_eq(ein_sched_file_write(ctx, f, path), -1);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_msg(strstr(ein_ctx_last_error(ctx), "cannot write '") != NULL,
		"%s", ein_ctx_last_error(ctx));
}

/* A failed write leaves the old file as it was and no temporary. */
START_TEST(write_fail)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *dir = make_tmpdir(), *path = join(dir, "s.sched");
	char *missing = join(dir, "nope/s.sched");
	char *busy = join(dir, "busy.sched"), *keep = join(busy, "keep");
	char *under_file = join(path, "x.sched"), *text;
	struct ein_sched_file *f = read_every_verb(ctx);

	write_text(path, "old\n");
	assert_write_fails(ctx, f, missing);
	assert_write_fails(ctx, f, under_file);
	/* the rename fails: busy.sched is a non-empty directory */
	ck_assert_int_eq(mkdir(busy, 0755), 0);
	write_text(keep, "kept\n");
	assert_write_fails(ctx, f, busy);
	text = read_text(keep);
	ck_assert_str_eq(text, "kept\n");
	free(text);
	/* a read-only directory (root may write anyway) */
	if (geteuid() != 0) {
		ck_assert_int_eq(chmod(dir, 0555), 0);
		assert_write_fails(ctx, f, path);
		ck_assert_int_eq(chmod(dir, 0755), 0);
	}
	text = read_text(path);
	ck_assert_str_eq(text, "old\n");
	free(text);
	ck_assert_int_eq(count_entries(dir, "s.sched"), 1);
	ck_assert_int_eq(count_entries(dir, "busy.sched"), 1);
	ein_sched_file_free(f);
	rm_tree(dir);
	free(under_file);
	free(keep);
	free(busy);
	free(missing);
	free(path);
	free(dir);
	ein_ctx_free(ctx);
}
END_TEST

/* ---- target names ------------------------------------------------------ */

static const struct {
	const char *triple, *cpu, *features, *name;
} target_cases[] = {
	{ "x86_64-pc-linux-gnu", "skylake-avx512",
	  "+sse4.2,+avx2,+fma,+avx512f,+avx512vl", "x86_64-avx512" },
	{ "x86_64-unknown-linux-gnu", "haswell",
	  "+avx2,-avx512f,+fma,+sse4.2", "x86_64-avx2" },
	{ "x86_64-unknown-linux-gnu", "sapphirerapids",
	  "+avx512fp16,+avx2,+fma", "x86_64-avx2" },
	{ "x86_64-unknown-linux-gnu", "x86-64-v2", "+avx2,-fma",
	  "x86_64-sse" },
	{ "x86_64-apple-darwin", NULL, NULL, "x86_64-sse" },
	{ "aarch64-unknown-linux-gnu", "neoverse-v1", "+neon,+sve",
	  "aarch64-sve" },
	{ "aarch64-unknown-linux-gnu", "cortex-a72", "+neon,-sve",
	  "aarch64-neon" },
	{ "arm64-apple-darwin22.1.0", "apple-m1", "+neon", "aarch64-neon" },
	{ "riscv64-unknown-linux-gnu", "", "+v", "riscv64-generic" },
	{ "", NULL, NULL, "unknown-generic" },
	{ NULL, NULL, NULL, "unknown-generic" },
};

START_TEST(target_name)
{
	char *name = ein_sched_target_name(target_cases[_i].triple,
		target_cases[_i].cpu, target_cases[_i].features);

	ck_assert_str_eq(name, target_cases[_i].name);
	free(name);
}
END_TEST

/* The host has a name of the same shape, through the public API. */
START_TEST(host_name)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *name = ein_target_host_name(ctx);

	ck_assert_msg(name != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_ptr_nonnull(strchr(name, '-'));
	ck_assert_ptr_null(strchr(name, '/'));
	free(name);
	ein_ctx_free(ctx);
}
END_TEST

/* ---- lookup ------------------------------------------------------------ */

#define TARGET "ein-test-target"

/* A schedule directory under "root": root/name/TARGET, with the given
 * files (name, contents; NULL-terminated).  Returns root/name. */
static char *make_sched_dir(const char *root, const char *name,
	const char *const *files)
{
	char *dir = join(root, name), *tdir = join(dir, TARGET);
	int i;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(tdir, 0755), 0);
	for (i = 0; files[i]; i += 2) {
		char *path = join(tdir, files[i]);

		write_text(path, files[i + 1]);
		free(path);
	}
	free(tdir);
	return dir;
}

/* Look up matmul at M = N = K = "n" (0: no sizes) with "path" as
 * EIN_SCHEDULE_PATH.  Returns the chosen file's name relative to "root"
 * (freed by the caller) or NULL; *why gets the reason. */
static char *lookup(ein_ctx *ctx, const char *root, const char *path,
	long n, char **why)
{
	static const char *const names[] = { "M", "N", "K" };
	const long values[] = { n, n, n };
	char *chosen;

	setenv("EIN_SCHEDULE_PATH", path, 1);
	ein_ctx_clear_error(ctx);
	ck_assert_msg(ein_sched_lookup(ctx, NULL, TARGET, "matmul",
		n ? 3 : 0, names, values, &chosen, why) == 0, "%s",
		ein_ctx_last_error(ctx));
	unsetenv("EIN_SCHEDULE_PATH");
	ck_assert_ptr_nonnull(*why);
	if (!chosen)
		return NULL;
	ck_assert_int_eq(strncmp(chosen, root, strlen(root)), 0);
	memmove(chosen, chosen + strlen(root) + 1,
		strlen(chosen) - strlen(root));
	return chosen;
}

/* Assert that looking up at size "n" in "path" chooses "want" (relative
 * to "root") for the reason "reason" (a text the reason contains). */
static void assert_lookup(ein_ctx *ctx, const char *root, const char *path,
	long n, const char *want, const char *reason)
{
	char *why, *chosen = lookup(ctx, root, path, n, &why);

	ck_assert_msg(chosen != NULL, "nothing found: %s", why);
	ck_assert_str_eq(chosen, want);
	ck_assert_msg(strstr(why, reason) != NULL, "reason '%s' lacks '%s'",
		why, reason);
	free(chosen);
	free(why);
}

static const char *const one_file[] = {
	"matmul.sched", "ein-schedule 1\nC: parallel i\n", NULL
};

/* The first directory of EIN_SCHEDULE_PATH that has a candidate wins;
 * empty entries and missing directories are passed over. */
START_TEST(lookup_path)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *root = make_tmpdir(), *path, *a, *b, *why;
	static const char *const none[] = {
		"conv.sched", "ein-schedule 1\n",
		"matmul.sched.tmp.abc123", "ein-schedule 1\n",
		"matmulx.sched", "ein-schedule 1\n", NULL
	};

	a = make_sched_dir(root, "a", none);
	b = make_sched_dir(root, "b", one_file);
	ck_assert_int_ge(asprintf(&path, "%s/missing::%s:%s", root, a, b), 0);
	assert_lookup(ctx, root, path, 1000, "b/" TARGET "/matmul.sched",
		"the only candidate");
	free(path);
	ck_assert_int_ge(asprintf(&path, "%s:%s", b, a), 0);
	assert_lookup(ctx, root, path, 0, "b/" TARGET "/matmul.sched",
		"b/" TARGET "/matmul.sched: the only candidate");
	free(path);
	/* with a's and b's schedules, a's comes first */
	path = join(a, TARGET "/matmul.a.sched");
	write_text(path, "ein-schedule 1\n");
	free(path);
	ck_assert_int_ge(asprintf(&path, "%s:%s", a, b), 0);
	assert_lookup(ctx, root, path, 8, "a/" TARGET "/matmul.a.sched",
		"the only candidate");
	free(path);
	/* nothing anywhere: not an error, and the reason says where */
	ck_assert_ptr_null(lookup(ctx, root, root, 8, &why));
	ck_assert_msg(strstr(why, "no schedule " TARGET "/matmul.sched in ")
		== why, "%s", why);
	free(why);
	rm_tree(root);
	free(a);
	free(b);
	free(root);
	ein_ctx_free(ctx);
}
END_TEST

/* Of the candidates of one directory, the nearest in size. */
START_TEST(lookup_nearest)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *root = make_tmpdir(), *dir;
	static const char *const files[] = {
		"matmul.sched", "ein-schedule 1\ntarget " TARGET "\n",
		"matmul.256.sched", "ein-schedule 1\nsizes M=256 N=256 K=256\n",
		"matmul.1024.sched",
		"ein-schedule 1\ndef matmul\nsizes M=1024,N=1024,K=1024\n",
		"matmul.big.sched", "ein-schedule 1\nsizes M=4096 N=4096\n",
		NULL
	};

	dir = make_sched_dir(root, "d", files);
	assert_lookup(ctx, root, dir, 1000, "d/" TARGET "/matmul.1024.sched",
		"d/" TARGET "/matmul.1024.sched: nearest to M=1000 N=1000 "
		"K=1000 of 4 candidates");
	assert_lookup(ctx, root, dir, 256, "d/" TARGET "/matmul.256.sched",
		"tuned for exactly M=256 N=256 K=256 of 4 candidates");
	assert_lookup(ctx, root, dir, 300, "d/" TARGET "/matmul.256.sched",
		"nearest to M=300");
	/* 512: 256 and 1024 are a factor of 2 away in every size, as far
	 * as the file without sizes, which wins the tie */
	assert_lookup(ctx, root, dir, 512, "d/" TARGET "/matmul.sched",
		"nearest to M=512 N=512 K=512");
	/* far from every tuned size: the file without sizes */
	assert_lookup(ctx, root, dir, 8, "d/" TARGET "/matmul.sched",
		"nearest to M=8 N=8 K=8");
	/* 4096 x 4096 lacks K, which counts 1: still the nearest */
	assert_lookup(ctx, root, dir, 4096, "d/" TARGET "/matmul.big.sched",
		"nearest to");
	assert_lookup(ctx, root, dir, 0, "d/" TARGET "/matmul.sched",
		"no sizes given: the first without a 'sizes' header of 4");
	rm_tree(root);
	free(dir);
	free(root);
	ein_ctx_free(ctx);
}
END_TEST

/* Files for another definition or target are no candidates; without
 * sizes and without a file lacking them, the first by name. */
START_TEST(lookup_skip)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *root = make_tmpdir(), *dir, *next;
	static const char *const files[] = {
		"matmul.a.sched", "ein-schedule 1\ndef conv\n",
		"matmul.b.sched", "ein-schedule 1\ntarget x86_64-avx512\n",
		"matmul.c.sched", "ein-schedule 1\nsizes M=8\n",
		"matmul.d.sched", "ein-schedule 1\nsizes M=8 N=8\n",
		NULL
	};
	static const char *const others[] = {
		"matmul.sched", "ein-schedule 1\ndef conv\n", NULL
	};
	char *path;

	next = make_sched_dir(root, "others", others);
	dir = make_sched_dir(root, "d", files);
	ck_assert_int_ge(asprintf(&path, "%s:%s", next, dir), 0);
	assert_lookup(ctx, root, path, 0, "d/" TARGET "/matmul.c.sched",
		"no sizes given: the first by name of 2 candidates");
	assert_lookup(ctx, root, path, 8, "d/" TARGET "/matmul.d.sched",
		"nearest to M=8 N=8 K=8 of 2");
	free(path);
	rm_tree(root);
	free(next);
	free(dir);
	free(root);
	ein_ctx_free(ctx);
}
END_TEST

/* A malformed candidate is an error, reported where it is. */
START_TEST(lookup_malformed)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *root = make_tmpdir(), *dir, *chosen, *why;
	static const char *const files[] = {
		"matmul.sched", "ein-schedule 1\nC: tiel i 4\n", NULL
	};

	dir = make_sched_dir(root, "d", files);
	setenv("EIN_SCHEDULE_PATH", dir, 1);
	ein_ctx_clear_error(ctx);
	ck_assert_int_eq(ein_sched_lookup(ctx, NULL, TARGET, "matmul", 0,
		NULL, NULL, &chosen, &why), -1);
	unsetenv("EIN_SCHEDULE_PATH");
	ck_assert_ptr_null(chosen);
	ck_assert_ptr_null(why);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"/" TARGET "/matmul.sched:2:4: error: unknown directive "
		"'tiel'"));
	rm_tree(root);
	free(dir);
	free(root);
	ein_ctx_free(ctx);
}
END_TEST

/* An explicit file wins over the path, even for another target; it must
 * exist, parse, and be for the definition. */
START_TEST(lookup_explicit)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *root = make_tmpdir(), *dir, *file, *chosen, *why;

	dir = make_sched_dir(root, "d", one_file);
	file = join(root, "mine.sched");
	write_text(file, "ein-schedule 1\ntarget other\n");
	setenv("EIN_SCHEDULE_PATH", dir, 1);
	ck_assert_int_eq(ein_sched_lookup(ctx, file, TARGET, "matmul", 0,
		NULL, NULL, &chosen, &why), 0);
	ck_assert_str_eq(chosen, file);
	ck_assert_msg(strstr(why, "mine.sched: given explicitly (tuned for "
		"other, this is " TARGET ")") != NULL, "%s", why);
	free(chosen);
	free(why);
	write_text(file, "ein-schedule 1\ndef conv\n");
	ein_ctx_clear_error(ctx);
	ck_assert_int_eq(ein_sched_lookup(ctx, file, TARGET, "matmul", 0,
		NULL, NULL, &chosen, &why), -1);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"mine.sched' is a schedule for 'conv', not for 'matmul'"));
	rm_tree(file);
	ein_ctx_clear_error(ctx);
	ck_assert_int_eq(ein_sched_lookup(ctx, file, TARGET, "matmul", 0,
		NULL, NULL, &chosen, &why), -1);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_ptr_null(chosen);
	unsetenv("EIN_SCHEDULE_PATH");
	rm_tree(root);
	free(file);
	free(dir);
	free(root);
	ein_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched_file");
	TCase *tc = tcase_create("sched_file");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, headers);
	tcase_add_loop_test(tc, directive, 0, ARRAY_SIZE(dir_cases));
	tcase_add_test(tc, stmt_args);
	tcase_add_test(tc, round_trip);
	tcase_add_loop_test(tc, small, 0, ARRAY_SIZE(small_cases));
	tcase_add_loop_test(tc, error, 0, ARRAY_SIZE(error_cases));
	tcase_add_test(tc, caret);
	tcase_add_test(tc, several_errors);
	tcase_add_test(tc, read_missing);
	tcase_add_test(tc, write_replace);
	tcase_add_test(tc, write_fail);
	tcase_add_loop_test(tc, target_name, 0, ARRAY_SIZE(target_cases));
	tcase_add_test(tc, host_name);
	tcase_add_test(tc, lookup_path);
	tcase_add_test(tc, lookup_nearest);
	tcase_add_test(tc, lookup_skip);
	tcase_add_test(tc, lookup_malformed);
	tcase_add_test(tc, lookup_explicit);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
