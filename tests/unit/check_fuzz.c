/*
 * check_fuzz.c: the frontend on broken copies of the valid kernels.
 *
 * Every .ein file of tests/kernels is cut short at a sample of positions
 * and mutated a few hundred times (bytes and tokens deleted, inserted,
 * replaced and swapped, lines duplicated, binary junk, huge numbers), and
 * each variant goes through ein_program_parse, which lexes, parses, checks
 * and infers ranges.  Whatever the text, the call must return a program
 * (which then prints back as source) or NULL with a message and
 * EIN_ERROR_SOURCE, and never crash, hang or leak; `make check-asan` runs
 * this under AddressSanitizer and UndefinedBehaviorSanitizer.  Pathological
 * inputs (10,000 nested parentheses, 100,000-character names, long
 * operator chains) have their own tests.
 *
 * The other readers of files get the same treatment (the "readers" case):
 * the source reader (ein_program_read_file: files with NUL bytes, binary
 * junk), the schedule-file reader (ein_sched_file_parse on mutated copies
 * of the schedules under schedules/ and tests/sched), the .npy reader of
 * --const (ein_weights_map on mutated headers, lengths and versions) and
 * the tuning-log reader (ein_tunelog_load on mutated logs).  Each must
 * give a result or an error with a message, never crash, hang or leak.
 *
 * The mutations are drawn from a fixed seed, so a failure is reproducible;
 * EIN_FUZZ_SEED=n picks another seed and EIN_FUZZ_ROUNDS=n more mutations
 * per file, for longer runs.  A failure prints the variant's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <unistd.h>
#include "ein.h"
#include "ctx.h"
#include "diag.h"
#include "sched/file.h"
#include "driver/weights.h"
#include "autotune/tunelog.h"
#include "testutil.h"
#include "rng.h"

#define MAX_FILES 256

/* The kernel files, their texts, and the run's parameters, set by main. */
static char *kernel_files[MAX_FILES];
static int n_kernel_files;
static char *sched_files[MAX_FILES];
static int n_sched_files;
static uint64_t fuzz_seed = 1;
static int fuzz_rounds = 60;

/* A random integer in [0, n), n > 0. */
static size_t pick(uint64_t *state, size_t n)
{
	return ein_rng_next(state) % n;
}

/* Parse "text" and check the outcome: a program that prints back, or
 * NULL with a non-empty message and EIN_ERROR_SOURCE.  "what" describes
 * the variant in a failure. */
static void parse_variant(ein_ctx *ctx, const char *text, const char *what)
{
	ein_program *prog = ein_program_parse(ctx, text, "fuzz.ein");
	const char *msg = ein_ctx_last_error(ctx);
	char *shown;

	if (prog) {
		shown = ein_program_show(prog, NULL, EIN_STAGE_SOURCE);
		ck_assert_msg(shown != NULL || ein_program_n_def(prog) == 0,
			"%s: parsed but does not print: %s\n%s", what, msg,
			text);
		free(shown);
		ein_program_free(prog);
		return;
	}
	ck_assert_msg(msg[0] != '\0', "%s: NULL without a message:\n%s", what,
		text);
	ck_assert_msg(ein_ctx_last_status(ctx) == EIN_ERROR_SOURCE,
		"%s: status %d, not EIN_ERROR_SOURCE: %s\n%s", what,
		ein_ctx_last_status(ctx), msg, text);
}

/* ---- mutations --------------------------------------------------------- */

/* A growable string. */
struct buf {
	char *s;
	size_t len, cap;
};

static void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	b->cap = 2 * (b->len + extra + 1);
	b->s = realloc(b->s, b->cap);
	ck_assert_ptr_nonnull(b->s);
}

/* Set b to the string "text". */
static void buf_set(struct buf *b, const char *text)
{
	size_t n = strlen(text);

	b->len = 0;
	buf_reserve(b, n);
	memcpy(b->s, text, n + 1);
	b->len = n;
}

/* Replace b[pos, pos + del) with ins[0 .. n) (b holds a string). */
static void buf_splice(struct buf *b, size_t pos, size_t del, const char *ins,
	size_t n)
{
	buf_reserve(b, n);
	memmove(b->s + pos + n, b->s + pos + del, b->len - pos - del + 1);
	memcpy(b->s + pos, ins, n);
	b->len += n - del;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* The token around a random position of b: a run of name or number
 * characters, or one other character.  Sets *len. */
static size_t pick_token(struct buf *b, uint64_t *st, size_t *len)
{
	size_t pos = pick(st, b->len), end;

	if (!is_word(b->s[pos])) {
		*len = 1;
		return pos;
	}
	while (pos > 0 && is_word(b->s[pos - 1]))
		--pos;
	for (end = pos; end < b->len && is_word(b->s[end]); ++end)
		;
	*len = end - pos;
	return pos;
}

/* Tokens and fragments worth inserting: every kind of token of the
 * language, and some that it lacks. */
static const char *const fragments[] = {
	"def", "where", "in", "(", ")", ",", "{", "}", "->", ":", "?", ";",
	"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||",
	"!", "=", "+=", "*=", "max=", "min=", "=!", "+=!", "max=!", "min=!",
	"float32", "float64", "int8", "int32", "uint8", "bool", "float",
	"exp", "log", "max", "min", "fma", "pow", "i", "j", "k", "N", "M",
	"A", "X", "Y", "C", "0", "1", "-1", "0.5", "1e-5", "1e400",
	"99999999999999999999", "9223372036854775807", "0x1F", "1.5x",
	"\n", "\n\n", " ", "\t", "#", "//", "$", "@", "[", "]", "\"", "'",
	"\\", "`", "~", "^", "&", "|", ".", "..", "...", "\r\n", "\xc3\xa9",
	"\xff\xfe", "(((", ")))", "A(i, j)", "C(i) +=! A(i, k)", "where i in",
};

#define N_FRAGMENTS (sizeof(fragments) / sizeof(fragments[0]))

/* The line around a random position: *start and the length. */
static size_t pick_line(struct buf *b, uint64_t *st, size_t *start)
{
	size_t pos = pick(st, b->len), end;

	while (pos > 0 && b->s[pos - 1] != '\n')
		--pos;
	for (end = pos; end < b->len && b->s[end] != '\n'; ++end)
		;
	*start = pos;
	return end - pos + (end < b->len);
}

/* Random bytes without NUL, "n" of them. */
static void junk(uint64_t *st, char *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; ++i)
		out[i] = (char) (1 + pick(st, 255));
}

/* Apply one random mutation to b (which is not empty). */
static void mutate_once(struct buf *b, uint64_t *st)
{
	size_t pos, len, pos2, len2, n;
	const char *f;
	char tmp[64], tmp2[64], *line;

	switch (pick(st, 10)) {
	case 0:		/* delete a byte */
		buf_splice(b, pick(st, b->len), 1, "", 0);
		break;
	case 1:		/* insert a random byte */
		junk(st, tmp, 1);
		buf_splice(b, pick(st, b->len + 1), 0, tmp, 1);
		break;
	case 2:		/* replace a byte by a fragment's first one */
		f = fragments[pick(st, N_FRAGMENTS)];
		buf_splice(b, pick(st, b->len), 1, f, 1);
		break;
	case 3:		/* delete a token */
		pos = pick_token(b, st, &len);
		buf_splice(b, pos, len, "", 0);
		break;
	case 4:		/* insert a fragment */
		f = fragments[pick(st, N_FRAGMENTS)];
		buf_splice(b, pick(st, b->len + 1), 0, f, strlen(f));
		break;
	case 5:		/* replace a token by a fragment */
		pos = pick_token(b, st, &len);
		f = fragments[pick(st, N_FRAGMENTS)];
		buf_splice(b, pos, len, f, strlen(f));
		break;
	case 6:		/* swap two tokens (the later one first) */
		pos = pick_token(b, st, &len);
		pos2 = pick_token(b, st, &len2);
		if (pos2 < pos) {
			size_t t = pos; pos = pos2; pos2 = t;
			t = len; len = len2; len2 = t;
		}
		if (pos + len > pos2 || len > sizeof(tmp) ||
		    len2 > sizeof(tmp))
			break;
		memcpy(tmp, b->s + pos2, len2);
		memcpy(tmp2, b->s + pos, len);
		buf_splice(b, pos2, len2, tmp2, len);
		buf_splice(b, pos, len, tmp, len2);
		break;
	case 7:		/* duplicate a line */
		len = pick_line(b, st, &pos);
		line = malloc(len + 1);
		ck_assert_ptr_nonnull(line);
		memcpy(line, b->s + pos, len);
		buf_splice(b, pos, 0, line, len);
		free(line);
		break;
	case 8:		/* delete a line */
		len = pick_line(b, st, &pos);
		buf_splice(b, pos, len, "", 0);
		break;
	default:	/* binary junk */
		n = 1 + pick(st, 16);
		junk(st, tmp, n);
		buf_splice(b, pick(st, b->len + 1), 0, tmp, n);
		break;
	}
}

/* ---- the tests --------------------------------------------------------- */

/* Every prefix of the file for small files, about 300 evenly spread ones
 * for larger ones. */
START_TEST(truncations)
{
	char *text = tt_read_text(kernel_files[_i]);
	ein_ctx *ctx = ein_ctx_alloc();
	size_t len, step, cut;
	char what[64];

	ck_assert_ptr_nonnull(text);
	len = strlen(text);
	step = len / 300 + 1;
	for (cut = 0; cut <= len; cut += step) {
		char saved = text[cut];

		text[cut] = '\0';
		snprintf(what, sizeof(what), "%s cut at %zu",
			kernel_files[_i], cut);
		parse_variant(ctx, text, what);
		text[cut] = saved;
	}
	ein_ctx_free(ctx);
	free(text);
}
END_TEST

/* fuzz_rounds variants of the file, each with one to four mutations. */
START_TEST(mutations)
{
	char *text = tt_read_text(kernel_files[_i]);
	ein_ctx *ctx = ein_ctx_alloc();
	uint64_t st = fuzz_seed * 0x100000001b3ULL + _i;
	struct buf b = { NULL, 0, 0 };
	char what[128];
	int r, m, n;

	ck_assert_ptr_nonnull(text);
	for (r = 0; r < fuzz_rounds; ++r) {
		buf_set(&b, text);
		n = 1 + pick(&st, 4);
		for (m = 0; m < n && b.len > 0; ++m)
			mutate_once(&b, &st);
		snprintf(what, sizeof(what), "%s, seed %llu, round %d",
			kernel_files[_i], (unsigned long long) fuzz_seed, r);
		parse_variant(ctx, b.s, what);
	}
	free(b.s);
	ein_ctx_free(ctx);
	free(text);
}
END_TEST

/* "head", then "n" copies of "unit", then "tail", parsed; the result must
 * be an error whose message contains "expect" (a program if NULL). */
static void parse_repeated(const char *head, const char *unit, int n,
	const char *tail, const char *expect)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *text = malloc(hl + n * ul + tl + 1), *p = text;
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	int i;

	ck_assert_ptr_nonnull(text);
	memcpy(p, head, hl);
	p += hl;
	for (i = 0; i < n; ++i, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl + 1);
	prog = ein_program_parse(ctx, text, "deep.ein");
	if (expect) {
		ck_assert_msg(prog == NULL, "%d x '%.40s' accepted", n, unit);
		ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
		ck_assert_msg(strstr(ein_ctx_last_error(ctx), expect) != NULL,
			"%d x '%.40s': %.300s", n, unit, ein_ctx_last_error(ctx));
	} else {
		ck_assert_msg(prog != NULL, "%d x '%.40s': %.300s", n, unit,
			ein_ctx_last_error(ctx));
	}
	ein_program_free(prog);
	ein_ctx_free(ctx);
	free(text);
}

static const char def_head[] = "def f(float32(N) A) -> (B) {\n    B(i) = ";
static const char deep_msg[] = "expression nested too deeply";

/* Regression: 10,000 nested parentheses overflowed the parser's stack. */
START_TEST(deep_parentheses)
{
	char *tail = malloc(10010);

	ck_assert_ptr_nonnull(tail);
	strcpy(tail, "A(i)");
	memset(tail + 4, ')', 10000);
	strcpy(tail + 10004, "\n}\n");
	parse_repeated(def_head, "(", 10000, tail, deep_msg);
	parse_repeated(def_head, "(", 10000, "A(i)", deep_msg);
	parse_repeated(def_head, "(", 10000, "", "");
	parse_repeated(def_head, "exp(", 10000, tail, deep_msg);
	parse_repeated(def_head, "A(", 10000, "i", deep_msg);
	/* The limit: 256 nested expressions, the right-hand side, 254
	 * parentheses and the index i of A(i). */
	strcpy(tail + 4 + 255, "\n}\n");
	parse_repeated(def_head, "(", 255, tail, deep_msg);
	strcpy(tail + 4 + 254, "\n}\n");
	parse_repeated(def_head, "(", 254, tail, NULL);
	parse_repeated(def_head, "-", 254, "A(i)\n}\n", NULL);
	free(tail);
}
END_TEST

/* Regression: long chains of unary and conditional operators and of
 * binary operators built trees too deep for the recursive passes. */
START_TEST(deep_chains)
{
	parse_repeated(def_head, "-", 100000, "A(i)\n}\n", deep_msg);
	parse_repeated(def_head, "!", 100000, "A(i)\n}\n", deep_msg);
	parse_repeated(def_head, "A(i) > 0 ? A(i) : ", 20000, "A(i)\n}\n",
		deep_msg);
	parse_repeated(def_head, "A(i) + ", 100000, "A(i)\n}\n", deep_msg);
	parse_repeated("def f(float32(N) A) -> (B) {\n    B(i) = A(i + ",
		"1 + ", 100000, "0)\n}\n", deep_msg);
	parse_repeated(def_head, "A(i) * ", 100, "A(i)\n}\n", NULL);
}
END_TEST

/* Very long names (in a program, and in an error message about an index
 * without a range), numbers and lines of junk: each must be parsed in
 * about linear time, well within the test's timeout. */
START_TEST(long_tokens)
{
	uint64_t st = fuzz_seed;
	char *junk_text = malloc(100001);

	parse_repeated("def ", "f", 100000, "(float32(N) A) -> (B) {\n"
		"    B(i) = A(i)\n}\n", NULL);
	parse_repeated("def f(float32(N) A) -> (B) {\n    B(i) = A(",
		"iiiiiiiiii", 10000, ")\n}\n", "");
	parse_repeated("def f(float32(N) A) -> (B) {\n    B(i) = A(i) * ",
		"9", 100000, "\n}\n", "");
	parse_repeated("def f(float32(N) A) -> (B) {\n    B(i) = A(i) * 0.",
		"1", 100000, "\n}\n", NULL);
	parse_repeated("def f(float32(N) A) -> (B) {\n    B(i) = A(i) * 1",
		"0", 400, ".0\n}\n", "");
	ck_assert_ptr_nonnull(junk_text);
	junk(&st, junk_text, 100000);
	junk_text[100000] = '\0';
	parse_repeated("", junk_text, 1, "", "");
	/* Regression: an error per definition, each quoting the whole line,
	 * made messages (and time) grow as the square of the line. */
	parse_repeated("", "{", 100000, "", "");
	parse_repeated("", "def f(", 20000, "", "too many errors");
	free(junk_text);
}
END_TEST

/* ---- the other readers ------------------------------------------------ */

/* Write len bytes at "data" to a new temporary file; its path (to free and
 * unlink). */
static char *temp_file(const void *data, size_t len)
{
	char *path = strdup("/tmp/ein-fuzz-XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t) len);
	close(fd);
	return path;
}

/* Check a failed read: a status and a message. */
static void check_error(ein_ctx *ctx, const char *what)
{
	ck_assert_msg(ein_ctx_last_status(ctx) != EIN_OK, "%s: failed with "
		"status EIN_OK", what);
	ck_assert_msg(ein_ctx_last_error(ctx)[0] != '\0', "%s: failed "
		"without a message", what);
}

/* Source files with arbitrary bytes, NULs included, through the file
 * reader. */
START_TEST(source_reader)
{
	uint64_t st = fuzz_seed * 31 + 7;
	char *text = tt_read_text(kernel_files[0]), what[64], *path;
	size_t len = strlen(text);
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	int r, k;

	for (r = 0; r < fuzz_rounds * 4; ++r) {
		char *copy = malloc(len + 1);

		memcpy(copy, text, len + 1);
		for (k = 0; k < 1 + (int) pick(&st, 4); ++k)
			copy[pick(&st, len)] = (char) ein_rng_next(&st);
		path = temp_file(copy, pick(&st, len + 1));
		snprintf(what, sizeof(what), "source round %d", r);
		prog = ein_program_read_file(ctx, path);
		if (!prog)
			check_error(ctx, what);
		ein_program_free(prog);
		unlink(path);
		free(path);
		free(copy);
	}
	ein_ctx_free(ctx);
	free(text);
}
END_TEST

/* Parse one schedule text; the outcome must be a file or an error. */
static void sched_variant(ein_ctx *ctx, const char *text, const char *what)
{
	struct ein_sched_file *f;

	ein_ctx_clear_error(ctx);
	f = ein_sched_file_parse(ctx, ein_src_alloc("fuzz.sched", text));
	if (!f)
		check_error(ctx, what);
	ein_sched_file_free(f);
}

/* Every schedule file, cut short and mutated. */
START_TEST(sched_reader)
{
	char *text = tt_read_text(sched_files[_i]), what[128];
	ein_ctx *ctx = ein_ctx_alloc();
	uint64_t st = fuzz_seed * 0x9e3779b9ULL + _i;
	struct buf b = { NULL, 0, 0 };
	size_t len, cut;
	int r, m;

	ck_assert_ptr_nonnull(text);
	len = strlen(text);
	for (cut = 0; cut <= len; cut += len / 50 + 1) {
		char saved = text[cut];

		text[cut] = '\0';
		snprintf(what, sizeof(what), "%s cut at %zu", sched_files[_i],
			cut);
		sched_variant(ctx, text, what);
		text[cut] = saved;
	}
	for (r = 0; r < fuzz_rounds; ++r) {
		buf_set(&b, text);
		for (m = 0; m < 1 + (int) pick(&st, 4) && b.len > 0; ++m)
			mutate_once(&b, &st);
		snprintf(what, sizeof(what), "%s, seed %llu, round %d",
			sched_files[_i], (unsigned long long) fuzz_seed, r);
		sched_variant(ctx, b.s, what);
	}
	free(b.s);
	free(text);
	ein_ctx_free(ctx);
}
END_TEST

/* A valid .npy file of a 3 x 4 float32 array into "p" (of 128 + 48
 * bytes); its length. */
static size_t make_npy(unsigned char *p)
{
	static const char dict[] = "{'descr': '<f4', 'fortran_order': False, "
		"'shape': (3, 4), }";
	size_t hlen = 128 - 10, i;

	memcpy(p, "\x93NUMPY\x01\x00", 8);
	p[8] = hlen & 0xff;
	p[9] = hlen >> 8;
	memset(p + 10, ' ', hlen);
	memcpy(p + 10, dict, strlen(dict));
	p[127] = '\n';
	for (i = 0; i < 48; ++i)
		p[128 + i] = (unsigned char) i;
	return 128 + 48;
}

/* Mutated .npy files for a float32 tensor W of shape 3 x 4: bytes of the
 * header and its length changed, the file cut short, the version
 * changed. */
START_TEST(npy_reader)
{
	static const int64_t shape[2] = { 3, 4 };
	struct ein_tensor t = { .name = "W", .type = EIN_TYPE_F32,
		.n_dim = 2 };
	unsigned char good[176], p[176];
	uint64_t st = fuzz_seed * 17 + 3;
	size_t len = make_npy(good), n;
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_weights w;
	char what[64], *path;
	int r, k;

	/* The unmutated file loads: the variants start from a valid one. */
	path = temp_file(good, len);
	ck_assert_msg(ein_weights_map(ctx, path, &t, shape, 48, &w) == 0,
		"%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(memcmp(w.data, good + 128, 48), 0);
	ein_weights_unmap(&w);
	unlink(path);
	free(path);
	for (r = 0; r < fuzz_rounds * 8; ++r) {
		memcpy(p, good, len);
		n = r % 5 == 0 ? pick(&st, len + 1) : len;
		for (k = 0; k < 1 + (int) pick(&st, 3); ++k) {
			size_t at = r % 3 ? pick(&st, 128) : 6 + pick(&st, 6);

			p[at] = r % 2 ? (unsigned char) ein_rng_next(&st) :
				"{}(),:' 0123456789<>|fiuFalseTrue"[pick(&st, 33)];
		}
		path = temp_file(p, n);
		snprintf(what, sizeof(what), "npy round %d", r);
		ein_ctx_clear_error(ctx);
		memset(&w, 0, sizeof(w));
		if (ein_weights_map(ctx, path, &t, shape, 48, &w) == 0)
			ein_weights_unmap(&w);
		else
			check_error(ctx, what);
		unlink(path);
		free(path);
	}
	ein_ctx_free(ctx);
}
END_TEST

/* A valid tuning log (a start record, three trials, a done record), as
 * text to free. */
static char *make_log(void)
{
	struct ein_tunelog_start s = { "k.ein", "matmul", "x86_64",
		"M=8,N=8,K=8", "evolve", "0.1.0", 1, NULL };
	struct ein_tunelog_trial t = { .origin = "default",
		.schedule = "C: tile i 4 j 4\n", .n_plan = 3,
		.plan = { 1, 2, 3 }, .seconds = 1e-3, .gflops = 1.5,
		.rng = 42, .checked = 1 };
	char *path = temp_file("", 0), *text;
	int fd = ein_tunelog_open(path), i;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ein_tunelog_write_start(fd, &s), 0);
	for (i = 1; i <= 3; ++i) {
		t.trial = i;
		ck_assert_int_eq(ein_tunelog_write_trial(fd, &t), 0);
	}
	ck_assert_int_eq(ein_tunelog_write_done(fd, 3, 2, 1.5, 0.5), 0);
	close(fd);
	text = tt_read_text(path);
	unlink(path);
	free(path);
	return text;
}

/* Mutated tuning logs: loaded, or an error naming the file. */
START_TEST(tunelog_reader)
{
	char *text = make_log(), err[1024], *path;
	uint64_t st = fuzz_seed * 13 + 5;
	struct buf b = { NULL, 0, 0 };
	struct ein_tunelog log;
	int r, m;

	ck_assert_ptr_nonnull(text);
	path = temp_file(text, strlen(text));
	ck_assert_msg(ein_tunelog_load(path, &log, err, sizeof(err)) == 0,
		"%s", err);
	ck_assert_int_eq(log.n_trial, 3);
	ck_assert_int_eq(log.done, 1);
	ein_tunelog_clear(&log);
	unlink(path);
	free(path);
	for (r = 0; r < fuzz_rounds * 4; ++r) {
		buf_set(&b, text);
		for (m = 0; m < 1 + (int) pick(&st, 4) && b.len > 0; ++m)
			mutate_once(&b, &st);
		path = temp_file(b.s, b.len);
		err[0] = '\0';
		if (ein_tunelog_load(path, &log, err, sizeof(err)) == 0)
			ein_tunelog_clear(&log);
		else
			ck_assert_msg(!strncmp(err, path, strlen(path)),
				"round %d: error '%s' does not name the log",
				r, err);
		unlink(path);
		free(path);
	}
	free(b.s);
	free(text);
}
END_TEST

/* The schedule files of schedules/<target>/ and tests/sched into
 * sched_files; their number. */
static int list_schedules(const char *srcdir)
{
	static const char *const dirs[] = { "schedules/x86_64-avx2",
		"schedules/x86_64-avx512", "schedules/x86_64",
		"schedules/aarch64", "tests/sched" };
	char dir[4096];
	int i, n = 0, k;

	for (i = 0; i < 5; ++i) {
		snprintf(dir, sizeof(dir), "%s/%s", srcdir, dirs[i]);
		k = tt_list_files(dir, ".sched", sched_files + n,
			MAX_FILES - n);
		if (k > 0)
			n += k;
	}
	return n;
}

int main(void)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	const char *seed = getenv("EIN_FUZZ_SEED");
	const char *rounds = getenv("EIN_FUZZ_ROUNDS");
	char dir[4096];
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("frontend");
	TCase *tr = tcase_create("readers");
	SRunner *sr;
	int failed, i;

	if (seed)
		fuzz_seed = strtoull(seed, NULL, 10);
	if (rounds)
		fuzz_rounds = atoi(rounds);
	snprintf(dir, sizeof(dir), "%s/tests/kernels", srcdir ? srcdir : ".");
	if ((n_kernel_files = tt_list_files(dir, ".ein", kernel_files,
		MAX_FILES)) < 0 || n_kernel_files == 0) {
		fprintf(stderr, "%s: no kernel files\n", dir);
		return EXIT_FAILURE;
	}
	n_sched_files = list_schedules(srcdir ? srcdir : ".");
	printf("fuzz seed %llu, %d mutations per file, %d files\n",
		(unsigned long long) fuzz_seed, fuzz_rounds, n_kernel_files);
	/* Each file's variants take a fraction of a second (range inference
	 * with isl on those that parse); several times that under ASan. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, truncations, 0, n_kernel_files);
	tcase_add_loop_test(tc, mutations, 0, n_kernel_files);
	tcase_add_test(tc, deep_parentheses);
	tcase_add_test(tc, deep_chains);
	tcase_add_test(tc, long_tokens);
	suite_add_tcase(s, tc);
	/* A few seconds in all: a few hundred small files each. */
	tcase_set_timeout(tr, 120);
	tcase_add_test(tr, source_reader);
	tcase_add_loop_test(tr, sched_reader, 0, n_sched_files);
	tcase_add_test(tr, npy_reader);
	tcase_add_test(tr, tunelog_reader);
	suite_add_tcase(s, tr);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (i = 0; i < n_kernel_files; ++i)
		free(kernel_files[i]);
	for (i = 0; i < n_sched_files; ++i)
		free(sched_files[i]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
