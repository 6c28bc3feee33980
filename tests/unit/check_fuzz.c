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
 * The mutations are drawn from a fixed seed, so a failure is reproducible;
 * EIN_FUZZ_SEED=n picks another seed and EIN_FUZZ_ROUNDS=n more mutations
 * per file, for longer runs.  A failure prints the variant's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "testutil.h"

#define MAX_FILES 256

/* The kernel files, their texts, and the run's parameters, set by main. */
static char *kernel_files[MAX_FILES];
static int n_kernel_files;
static uint64_t fuzz_seed = 1;
static int fuzz_rounds = 60;

/* splitmix64 */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A random integer in [0, n), n > 0. */
static size_t pick(uint64_t *state, size_t n)
{
	return next_random(state) % n;
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

int main(void)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	const char *seed = getenv("EIN_FUZZ_SEED");
	const char *rounds = getenv("EIN_FUZZ_ROUNDS");
	char dir[4096];
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("frontend");
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
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (i = 0; i < n_kernel_files; ++i)
		free(kernel_files[i]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
