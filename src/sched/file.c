/*
 * file.c: the parser, the canonical printer and the atomic writer of
 * schedule files (docs/schedules.md).
 *
 * The format is line-oriented, so the parser is too: each line is cut into
 * words, and each kind of line has its own small parser.  A line's error
 * ends that line only, so that every error of a file is reported at once.
 *
 *   file      = version { header } { directive } ;
 *   version   = "ein-schedule" INT ;
 *   header    = "target" NAME | "def" IDENT | "sizes" size { size }
 *             | ( "measured" | "date" | "ein" | "tuned-by" ) TEXT ;
 *   size      = IDENT "=" INT ;              (separated by blanks or ",")
 *   directive = stmt ":" VERB { arg } ;      (arguments: see file.h)
 *   stmt      = IDENT [ "#" INT ] [ ".init" ] ;
 *   loop      = IDENT { "." ( "o" | "i" ) } ;
 *
 * Words are separated by blanks, and ":" is a word of its own.  A "#"
 * that begins a word starts a comment; inside a word ("T#2") it does not,
 * so that a statement's occurrence needs no escape.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "outfile.h"
#include "sched/file.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A word of a line: its text (not terminated) and its 1-based column. */
struct word {
	const char *s;
	int len;
	int col;
};

/* The current line.
 * no: its number;
 * start, len: its text without the comment and the trailing blanks;
 * n_word, word: its words (word has room for alloc). */
struct line {
	int no;
	const char *start;
	int len;
	int n_word;
	int alloc;
	struct word *word;
};

/* The headers, in canonical order. */
enum header {
	H_VERSION, H_TARGET, H_DEF, H_SIZES, H_MEASURED, H_DATE, H_EIN,
	H_TUNED_BY, N_HEADER
};

static const char *const header_names[N_HEADER] = {
	"ein-schedule", "target", "def", "sizes", "measured", "date", "ein",
	"tuned-by"
};

/* How a verb's arguments are written.
 * args: one letter per argument: L loop, N integer, S statement, T tensor,
 *	U integer or "full", M "recompute" or "store", a the word "at", f
 *	the word "from" (both checked, not kept);
 * min: the fewest arguments;
 * repeat: args is a group repeated any number of times;
 * distinct: no loop twice;
 * usage, example: for hints. */
struct verb_info {
	const char *name;
	const char *args;
	int min;
	int repeat;
	int distinct;
	const char *usage;
	const char *example;
};

/* Indexed by enum ein_sched_verb. */
static const struct verb_info verbs[] = {
	[EIN_SCHED_SPLIT] = { "split", "LN", 2, 0, 0,
		"split LOOP N", "C: split i 32" },
	[EIN_SCHED_TILE] = { "tile", "LN", 2, 1, 1,
		"tile LOOP N { LOOP N }", "C: tile i 64 j 32" },
	[EIN_SCHED_REORDER] = { "reorder", "L", 2, 1, 1,
		"reorder LOOP LOOP { LOOP }", "C: reorder j i" },
	[EIN_SCHED_VECTORIZE] = { "vectorize", "LN", 2, 0, 0,
		"vectorize LOOP WIDTH", "C: vectorize j.i 8" },
	[EIN_SCHED_UNROLL] = { "unroll", "LU", 2, 0, 0,
		"unroll LOOP (N | full)", "C: unroll k.i 4" },
	[EIN_SCHED_PARALLEL] = { "parallel", "L", 1, 0, 0,
		"parallel LOOP", "C: parallel i.o" },
	[EIN_SCHED_COMPUTE_AT] = { "compute_at", "SLM", 2, 0, 0,
		"compute_at STMT LOOP [recompute | store]",
		"T: compute_at C j.o" },
	[EIN_SCHED_FUSE] = { "fuse", "SN", 1, 0, 0,
		"fuse STMT [N]", "T: fuse C 2" },
	[EIN_SCHED_PACK] = { "pack", "TaL", 3, 0, 0,
		"pack TENSOR at LOOP [layout INDEX...]", "C: pack A at k.o" },
	[EIN_SCHED_ACCUMULATE] = { "accumulate", "L", 1, 0, 0,
		"accumulate LOOP [layout INDEX...]", "C: accumulate k.o" },
	[EIN_SCHED_GPU_BLOCKS] = { "gpu_blocks", "L", 1, 1, 1,
		"gpu_blocks LOOP { LOOP }", "C: gpu_blocks i j" },
	[EIN_SCHED_GPU_THREADS] = { "gpu_threads", "L", 1, 1, 1,
		"gpu_threads LOOP { LOOP }", "C: gpu_threads i.i j.i" },
	[EIN_SCHED_PREFETCH] = { "prefetch", "TaLfLN", 3, 0, 0,
		"prefetch TENSOR at LOOP [from LOOP [N]]",
		"e: prefetch X at j.o from i" },
	[EIN_SCHED_STREAM] = { "stream", "L", 1, 0, 0,
		"stream LOOP", "Y: stream j" },
	[EIN_SCHED_LOCAL] = { "local", "TaL", 3, 0, 0,
		"local TENSOR at LOOP", "C: local A at k.o" },
};

/* The keywords of compute_at and their values (file.h). */
static const char *const modes[] = { "store", "recompute" };

/* ctx: where errors go;
 * f: the file being built;
 * line: the current line;
 * n_error: the errors reported so far;
 * seen_line: a line other than blanks and comments has been seen;
 * header_line: the line of each header seen, 0 if none yet;
 * first_dir_line: the line of the first directive, 0 if none yet. */
struct parser {
	ein_ctx *ctx;
	struct ein_sched_file *f;
	struct line line;
	int n_error;
	int seen_line;
	int header_line[N_HEADER];
	int first_dir_line;
};

/* ---- errors --------------------------------------------------------- */

static struct ein_loc loc_at(struct parser *p, int col)
{
	struct ein_loc loc = { p->f->src, p->line.no, col };

	return loc;
}

/* Report an error at column "col" of the current line.  Returns -1. */
__attribute__((format(printf, 3, 4)))
static int error_at(struct parser *p, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	ein_error_at(p->ctx, loc_at(p, col), "%s", msg ? msg : fmt);
	free(msg);
	p->n_error++;
	return -1;
}

static int nomem(struct parser *p)
{
	ein_error(p->ctx, EIN_ERROR_NOMEM, "out of memory");
	p->n_error++;
	return -1;
}

/* The column just after the last word of the line, where a missing word
 * would go. */
static int end_col(struct parser *p)
{
	struct line *l = &p->line;
	struct word *last = &l->word[l->n_word - 1];

	return last->col + last->len;
}

/* Keep "name" in *best if it is nearer to "w" than *best, and near
 * enough to be a likely typo. */
static void keep_nearer(const struct word *w, const char *name,
	const char **best, int *best_d)
{
	int d = ein_diag_edit_distance(w->s, w->len, name);

	if (d <= 2 && d < w->len && (!*best || d < *best_d)) {
		*best = name;
		*best_d = d;
	}
}

/* The name among names[0 .. n) nearest to "w", if near enough to be a
 * likely typo, else NULL. */
static const char *nearest(const struct word *w, const char *const *names,
	int n)
{
	const char *best = NULL;
	int i, best_d = 0;

	for (i = 0; i < n; ++i)
		keep_nearer(w, names[i], &best, &best_d);
	return best;
}

/* ---- words ---------------------------------------------------------- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int word_is(const struct word *w, const char *s)
{
	return (int) strlen(s) == w->len && !strncmp(w->s, s, w->len);
}

static int is_colon(const struct word *w)
{
	return word_is(w, ":");
}

/* The length of the identifier at the start of w, 0 if none. */
static int ident_len(const struct word *w)
{
	int i = 0;

	if (w->len == 0 || !is_ident_start(w->s[0]))
		return 0;
	while (i < w->len && is_ident_char(w->s[i]))
		i++;
	return i;
}

/* The part of w from offset "from" to offset "to". */
static struct word subword(const struct word *w, int from, int to)
{
	struct word sub = { w->s + from, to - from, w->col + from };

	return sub;
}

static int add_word(struct parser *p, const char *s, int len)
{
	struct line *l = &p->line;

	if (l->n_word == l->alloc) {
		int alloc = 2 * l->alloc + 8;
		struct word *word = realloc(l->word, alloc * sizeof(*word));

		if (!word)
			return nomem(p);
		l->word = word;
		l->alloc = alloc;
	}
	l->word[l->n_word].s = s;
	l->word[l->n_word].len = len;
	l->word[l->n_word].col = s - l->start + 1;
	l->n_word++;
	return 0;
}

/* Cut the line at "start", "len" characters long, into words, and drop
 * its comment and trailing blanks. */
static int split_line(struct parser *p, const char *start, int len)
{
	struct line *l = &p->line;
	const char *s = start, *end = start + len, *w;

	l->start = start;
	l->n_word = 0;
	while (s < end) {
		if (is_blank(*s)) {
			s++;
			continue;
		}
		if (*s == '#')
			break;
		w = s;
		if (*s == ':')
			s++;
		else
			while (s < end && !is_blank(*s) && *s != ':')
				s++;
		if (add_word(p, w, s - w) < 0)
			return -1;
	}
	l->len = l->n_word ? end_col(p) - 1 : 0;
	return 0;
}

/* ---- numbers and names -------------------------------------------- */

/* INT = digit { digit } ;  with a value in 1 .. 2^31 - 1. */
static int parse_int(struct parser *p, const struct word *w, long *value)
{
	long v = 0;
	int i;

	if (w->len > 1 && w->s[0] == '-' && w->s[1] >= '0' && w->s[1] <= '9')
		return error_at(p, w->col, "expected an integer >= 1, got "
			"'%.*s'", w->len, w->s);
	if (w->len == 0)
		return error_at(p, w->col, "expected an integer");
	for (i = 0; i < w->len; ++i) {
		if (w->s[i] < '0' || w->s[i] > '9')
			return error_at(p, w->col, "expected an integer, got "
				"'%.*s'", w->len, w->s);
		v = 10 * v + (w->s[i] - '0');
		if (v > 2147483647L)
			return error_at(p, w->col, "integer '%.*s' is too "
				"large (at most 2147483647)", w->len, w->s);
	}
	if (v == 0)
		return error_at(p, w->col, "expected an integer >= 1, got "
			"'%.*s'", w->len, w->s);
	*value = v;
	return 0;
}

/* IDENT, all of w; "what" names it in the message. */
static int check_ident(struct parser *p, const struct word *w,
	const char *what)
{
	if (ident_len(w) != w->len || w->len == 0)
		return error_at(p, w->col, "expected %s, got '%.*s'", what,
			w->len, w->s);
	return 0;
}

/* loop = IDENT { "." ( "o" | "i" ) } ; */
static int check_loop(struct parser *p, const struct word *w)
{
	int i = ident_len(w);

	if (i == 0)
		return error_at(p, w->col, "expected a loop name, got '%.*s'",
			w->len, w->s);
	while (i < w->len) {
		if (w->s[i] != '.')
			return error_at(p, w->col + i, "unexpected '%c' in "
				"loop name '%.*s'", w->s[i], w->len, w->s);
		if (i + 1 >= w->len ||
		    (w->s[i + 1] != 'o' && w->s[i + 1] != 'i') ||
		    (i + 2 < w->len && w->s[i + 2] != '.')) {
			error_at(p, w->col + i, "expected '.o' or '.i' in "
				"loop name '%.*s'", w->len, w->s);
			ein_hint(p->ctx, "split and tile cut loop i into "
				"i.o (outer) and i.i (inner)");
			return -1;
		}
		i += 2;
	}
	return 0;
}

/* The "#INT" of a statement reference at w[from ..), up to a '.' or the
 * end.  Returns the offset after it, or -1. */
static int parse_occurrence(struct parser *p, const struct word *w,
	int from, struct ein_sched_stmt_ref *ref)
{
	int to = from + 1;
	struct word num;
	long v;

	while (to < w->len && w->s[to] != '.')
		to++;
	num = subword(w, from + 1, to);
	if (num.len == 0)
		return error_at(p, w->col + from, "expected a number after "
			"'#' in statement '%.*s'", w->len, w->s);
	if (parse_int(p, &num, &v) < 0)
		return -1;
	ref->occurrence = v;
	return to;
}

/* stmt = IDENT [ "#" INT ] [ ".init" ] ; */
static int parse_stmt_ref(struct parser *p, const struct word *w,
	struct ein_sched_stmt_ref *ref)
{
	int n = ident_len(w), i = n;

	if (n == 0)
		return error_at(p, w->col, "expected a statement (TENSOR, "
			"TENSOR#N or TENSOR.init), got '%.*s'", w->len, w->s);
	ref->occurrence = 1;
	ref->is_init = 0;
	ref->loc = loc_at(p, w->col);
	if (i < w->len && w->s[i] == '#') {
		i = parse_occurrence(p, w, i, ref);
		if (i < 0)
			return -1;
	}
	if (i < w->len && w->s[i] == '.') {
		if (w->len - i != 5 || strncmp(w->s + i, ".init", 5))
			return error_at(p, w->col + i, "expected '.init' after "
				"the statement, got '%.*s'", w->len - i,
				w->s + i);
		ref->is_init = 1;
		i += 5;
	}
	if (i < w->len)
		return error_at(p, w->col + i, "unexpected '%c' in statement "
			"'%.*s'", w->s[i], w->len, w->s);
	ref->tensor = strndup(w->s, n);
	return ref->tensor ? 0 : nomem(p);
}

/* The text of "ref" as written canonically ("T#2.init"). */
static char *stmt_ref_string(const struct ein_sched_stmt_ref *ref)
{
	const char *init = ref->is_init ? ".init" : "";
	char *s;
	int n;

	if (ref->occurrence != 1)
		n = asprintf(&s, "%s#%d%s", ref->tensor, ref->occurrence,
			init);
	else
		n = asprintf(&s, "%s%s", ref->tensor, init);
	return n < 0 ? NULL : s;
}

/* ---- directives ------------------------------------------------------ */

static void stmt_ref_clear(struct ein_sched_stmt_ref *ref)
{
	free(ref->tensor);
	ref->tensor = NULL;
}

static void directive_clear(struct ein_sched_directive *d)
{
	int i;

	stmt_ref_clear(&d->stmt);
	for (i = 0; i < d->n_arg; ++i) {
		free(d->arg[i].name);
		stmt_ref_clear(&d->arg[i].stmt);
	}
	free(d->arg);
	d->arg = NULL;
	d->n_arg = 0;
}

/* A keyword among names[0 .. n) (its position is its value), else an
 * error "what" with a hint. */
static int parse_keyword(struct parser *p, const struct word *w,
	const char *const *names, int n, const char *what,
	struct ein_sched_arg *arg)
{
	const char *guess;
	int i;

	for (i = 0; i < n; ++i)
		if (word_is(w, names[i])) {
			arg->kind = EIN_SCHED_ARG_KEYWORD;
			arg->value = i;
			arg->name = strdup(names[i]);
			return arg->name ? 0 : nomem(p);
		}
	error_at(p, w->col, "%s, got '%.*s'", what, w->len, w->s);
	guess = nearest(w, names, n);
	if (guess)
		ein_hint(p->ctx, "did you mean '%s'?", guess);
	return -1;
}

/* An unroll factor: INT | "full" (value -1). */
static int parse_unroll_factor(struct parser *p, const struct word *w,
	struct ein_sched_arg *arg)
{
	static const char *const full[] = { "full" };

	if (w->len > 0 && !is_ident_start(w->s[0])) {
		arg->kind = EIN_SCHED_ARG_INT;
		return parse_int(p, w, &arg->value);
	}
	if (parse_keyword(p, w, full, 1, "expected an unroll factor or "
			"'full'", arg) < 0)
		return -1;
	arg->value = -1;
	return 0;
}

/* One argument of kind "kind" (a letter of struct verb_info's args). */
static int parse_arg(struct parser *p, char kind, const struct word *w,
	struct ein_sched_arg *arg)
{
	arg->loc = loc_at(p, w->col);
	switch (kind) {
	case 'L':
		arg->kind = EIN_SCHED_ARG_LOOP;
		break;
	case 'T':
		arg->kind = EIN_SCHED_ARG_TENSOR;
		if (check_ident(p, w, "a tensor name") < 0)
			return -1;
		break;
	case 'N':
		arg->kind = EIN_SCHED_ARG_INT;
		return parse_int(p, w, &arg->value);
	case 'U':
		return parse_unroll_factor(p, w, arg);
	case 'M':
		return parse_keyword(p, w, modes, ARRAY_SIZE(modes),
			"expected 'recompute' or 'store'", arg);
	case 'S':
		arg->kind = EIN_SCHED_ARG_STMT;
		if (parse_stmt_ref(p, w, &arg->stmt) < 0)
			return -1;
		arg->name = stmt_ref_string(&arg->stmt);
		return arg->name ? 0 : nomem(p);
	}
	if (arg->kind == EIN_SCHED_ARG_LOOP && check_loop(p, w) < 0)
		return -1;
	arg->name = strndup(w->s, w->len);
	return arg->name ? 0 : nomem(p);
}

/* A term of a layout (pack, accumulate): an index name, alone or split
 * into blocks, "j/16" (the block) or "j%16" (the place in the block);
 * arg->value is 0, 16 or -16. */
static int parse_index(struct parser *p, const struct word *w,
	struct ein_sched_arg *arg)
{
	int n = ident_len(w);
	long v = 0;

	arg->loc = loc_at(p, w->col);
	arg->kind = EIN_SCHED_ARG_INDEX;
	if (n == 0)
		return error_at(p, w->col, "expected an index name, got "
			"'%.*s'", w->len, w->s);
	if (n < w->len) {
		char *end;

		if (w->s[n] == '/' || w->s[n] == '%')
			v = strtol(w->s + n + 1, &end, 10);
		if ((w->s[n] != '/' && w->s[n] != '%') || v < 1 ||
		    end != w->s + w->len || !isdigit((unsigned char)
				w->s[n + 1])) {
			error_at(p, w->col, "expected INDEX, INDEX/N or "
				"INDEX%%N in a layout, got '%.*s'", w->len,
				w->s);
			ein_hint(p->ctx, "N, a positive integer, is the size "
				"of the blocks: 'j/16 k j%%16' stores blocks of "
				"16 values of j, each [k][16]");
			return -1;
		}
		if (w->s[n] == '%')
			v = -v;
	}
	arg->value = v;
	arg->name = strndup(w->s, n);
	return arg->name ? 0 : nomem(p);
}

/* Report a wrong number of arguments for "v" at column "col". */
static int count_error(struct parser *p, const struct verb_info *v,
	int col, const char *what)
{
	error_at(p, col, "%s for '%s'", what, v->name);
	ein_hint(p->ctx, "write 'STMT: %s', e.g. '%s'", v->usage,
		v->example);
	return -1;
}

/* The number of words of the optional "layout INDEX..." that follows the
 * fixed arguments of pack and accumulate. */
static int layout_words(const struct verb_info *v, const struct word *w,
	int n)
{
	int len = strlen(v->args);

	if (v != &verbs[EIN_SCHED_PACK] && v != &verbs[EIN_SCHED_ACCUMULATE])
		return 0;
	if (n <= len || !word_is(&w[len], "layout"))
		return 0;
	return n - len;
}

/* Check that "n" arguments starting at w fit "v". */
static int check_count(struct parser *p, const struct verb_info *v,
	const struct word *w, int n)
{
	int len = strlen(v->args);

	if (layout_words(v, w, n) == 1)
		return count_error(p, v, end_col(p), "no index after 'layout'");
	n -= layout_words(v, w, n);

	if (v->repeat && len > 1 && n % len)
		return count_error(p, v, w[n - 1].col,
			"odd number of arguments");
	if (n < v->min)
		return count_error(p, v, end_col(p), "too few arguments");
	if (v == &verbs[EIN_SCHED_PREFETCH] && n == 4)
		return count_error(p, v, end_col(p), "no loop after 'from'");
	if (!v->repeat && n > len)
		return count_error(p, v, w[len].col, "too many arguments");
	return 0;
}

/* No loop may appear twice among d's arguments. */
static int check_distinct(struct parser *p, const struct verb_info *v,
	const struct ein_sched_directive *d)
{
	int i, j;

	for (i = 0; i < d->n_arg; ++i)
		for (j = 0; j < i; ++j) {
			if (d->arg[i].kind != EIN_SCHED_ARG_LOOP ||
			    d->arg[j].kind != EIN_SCHED_ARG_LOOP ||
			    strcmp(d->arg[i].name, d->arg[j].name))
				continue;
			error_at(p, d->arg[i].loc.col, "loop '%s' appears "
				"twice in '%s'", d->arg[i].name, v->name);
			ein_hint(p->ctx, "its first place is column %d",
				d->arg[j].loc.col);
			return -1;
		}
	return 0;
}

/* The word "w" must be "word", which follows "after". */
static int check_word(struct parser *p, const struct word *w,
	const char *word, const char *after)
{
	if (word_is(w, word))
		return 0;
	return error_at(p, w->col, "expected '%s' after %s, got '%.*s'",
		word, after, w->len, w->s);
}

/* The arguments of "v", the words after the verb. */
static int parse_args(struct parser *p, const struct verb_info *v,
	struct ein_sched_directive *d)
{
	struct word *w = p->line.word + 3;
	int n = p->line.n_word - 3, len = strlen(v->args), i;
	int n_layout = layout_words(v, w, n);
	char kind;

	if (check_count(p, v, w, n) < 0)
		return -1;
	d->arg = calloc(n ? n : 1, sizeof(*d->arg));
	if (!d->arg)
		return nomem(p);
	for (i = 0; i < n; ++i) {
		if (n_layout && i >= n - n_layout) {
			if (i > n - n_layout && parse_index(p, &w[i],
					&d->arg[d->n_arg++]) < 0)
				return -1;
			continue;
		}
		kind = v->args[i % len];
		if (kind == 'a' || kind == 'f') {
			if (check_word(p, &w[i], kind == 'a' ? "at" : "from",
					kind == 'a' ? "the tensor" :
					"the loop") < 0)
				return -1;
			continue;
		}
		if (parse_arg(p, kind, &w[i], &d->arg[d->n_arg++]) < 0)
			return -1;
	}
	return v->distinct ? check_distinct(p, v, d) : 0;
}

/* The verb nearest to "w", if near enough, else NULL. */
static const char *nearest_verb(const struct word *w)
{
	const char *best = NULL;
	int best_d = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); ++i)
		keep_nearer(w, verbs[i].name, &best, &best_d);
	return best;
}

/* The verb "w", or -1. */
static int find_verb(const struct word *w)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); ++i)
		if (word_is(w, verbs[i].name))
			return i;
	return -1;
}

/* The verb of a directive, the third word. */
static int parse_verb(struct parser *p, struct ein_sched_directive *d)
{
	struct word *w = &p->line.word[2];
	const char *guess;
	int verb;

	if (p->line.n_word < 3) {
		error_at(p, end_col(p), "missing directive after ':'");
		ein_hint(p->ctx, "e.g. 'C: parallel i'");
		return -1;
	}
	verb = find_verb(w);
	if (verb >= 0) {
		d->verb = verb;
		d->verb_loc = loc_at(p, w->col);
		return 0;
	}
	error_at(p, w->col, "unknown directive '%.*s'", w->len, w->s);
	guess = nearest_verb(w);
	if (guess)
		ein_hint(p->ctx, "did you mean '%s'?", guess);
	else
		ein_hint(p->ctx, "the directives are split, tile, reorder, "
			"vectorize, unroll, parallel, compute_at, fuse, pack, "
			"accumulate, prefetch, stream, gpu_blocks, "
			"gpu_threads, local");
	return -1;
}

static int add_directive(struct parser *p, struct ein_sched_directive *d)
{
	struct ein_sched_file *f = p->f;
	struct ein_sched_directive *dir;

	dir = realloc(f->dir, (f->n_dir + 1) * sizeof(*dir));
	if (!dir)
		return nomem(p);
	f->dir = dir;
	f->dir[f->n_dir++] = *d;
	return 0;
}

/* directive = stmt ":" VERB { arg } ;  (the second word is the ':') */
static int parse_directive(struct parser *p)
{
	struct ein_sched_directive d = { 0 };

	if (!p->first_dir_line)
		p->first_dir_line = p->line.no;
	d.line = p->line.no;
	if (parse_stmt_ref(p, &p->line.word[0], &d.stmt) < 0 ||
	    parse_verb(p, &d) < 0 ||
	    parse_args(p, &verbs[d.verb], &d) < 0 ||
	    add_directive(p, &d) < 0) {
		directive_clear(&d);
		return -1;
	}
	return 0;
}

/* ---- headers -------------------------------------------------------- */

/* The header "w" names, or -1. */
static int find_header(const struct word *w)
{
	int i;

	for (i = 0; i < N_HEADER; ++i)
		if (word_is(w, header_names[i]))
			return i;
	return -1;
}

/* The free-text headers' fields in "f" (NULL for the others). */
static char **text_field(struct ein_sched_file *f, enum header h)
{
	switch (h) {
	case H_TARGET: return &f->target;
	case H_DEF: return &f->def;
	case H_MEASURED: return &f->measured;
	case H_DATE: return &f->date;
	case H_EIN: return &f->ein_version;
	case H_TUNED_BY: return &f->tuned_by;
	default: return NULL;
	}
}

/* The one word after the header's keyword, or an error. */
static const struct word *single_word(struct parser *p, const char *what)
{
	struct line *l = &p->line;

	if (l->n_word < 2) {
		error_at(p, end_col(p), "missing %s after '%.*s'", what,
			l->word[0].len, l->word[0].s);
		return NULL;
	}
	if (l->n_word > 2) {
		error_at(p, l->word[2].col, "unexpected '%.*s' after the %s",
			l->word[2].len, l->word[2].s, what);
		return NULL;
	}
	return &l->word[1];
}

/* version = "ein-schedule" INT ; */
static int parse_version(struct parser *p)
{
	const struct word *w = single_word(p, "version number");
	long v;

	if (!w || parse_int(p, w, &v) < 0)
		return -1;
	if (v != EIN_SCHED_FILE_VERSION) {
		error_at(p, w->col, "unsupported schedule file version %ld",
			v);
		ein_hint(p->ctx, "this ein reads version %d",
			EIN_SCHED_FILE_VERSION);
		return -1;
	}
	p->f->version = v;
	return 0;
}

/* NAME = ( letter | digit | "_" | "-" | "." ) { ... } ; */
static int check_target_name(struct parser *p, const struct word *w)
{
	int i;

	for (i = 0; i < w->len; ++i)
		if (!is_ident_char(w->s[i]) && w->s[i] != '-' &&
		    w->s[i] != '.')
			return error_at(p, w->col + i, "unexpected '%c' in "
				"target name '%.*s'", w->s[i], w->len, w->s);
	return 0;
}

/* The value of a one-word header: "target" or "def". */
static int parse_word_header(struct parser *p, enum header h)
{
	const struct word *w;

	w = single_word(p, h == H_DEF ? "definition name" : "target name");
	if (!w)
		return -1;
	if (h == H_DEF && check_ident(p, w, "a definition name") < 0)
		return -1;
	if (h == H_TARGET && check_target_name(p, w) < 0)
		return -1;
	*text_field(p->f, h) = strndup(w->s, w->len);
	return *text_field(p->f, h) ? 0 : nomem(p);
}

/* The value of a free-text header: the rest of the line. */
static int parse_text_header(struct parser *p, enum header h)
{
	struct line *l = &p->line;
	int from;

	if (l->n_word < 2)
		return error_at(p, end_col(p), "missing text after '%s'",
			header_names[h]);
	from = l->word[1].col - 1;
	*text_field(p->f, h) = strndup(l->start + from, l->len - from);
	return *text_field(p->f, h) ? 0 : nomem(p);
}

static int add_size(struct parser *p, const struct word *name, long value)
{
	struct ein_sched_file *f = p->f;
	struct ein_sched_size *size;
	int i;

	for (i = 0; i < f->n_size; ++i)
		if (word_is(name, f->size[i].name)) {
			error_at(p, name->col, "size '%.*s' given twice",
				name->len, name->s);
			ein_hint(p->ctx, "its first value is at column %d",
				f->size[i].loc.col);
			return -1;
		}
	size = realloc(f->size, (f->n_size + 1) * sizeof(*size));
	if (!size)
		return nomem(p);
	f->size = size;
	size[f->n_size].name = strndup(name->s, name->len);
	size[f->n_size].value = value;
	size[f->n_size].loc = loc_at(p, name->col);
	if (!size[f->n_size].name)
		return nomem(p);
	f->n_size++;
	return 0;
}

/* size = IDENT "=" INT ;  in the text from offset *pos of the line. */
static int parse_size(struct parser *p, int *pos)
{
	struct line *l = &p->line;
	struct word rest = { l->start, l->len, 1 }, name, num;
	int i = *pos, j;
	long value;

	rest = subword(&rest, i, l->len);
	name = subword(&rest, 0, ident_len(&rest));
	if (name.len == 0)
		return error_at(p, rest.col, "expected a size name, got "
			"'%c'", rest.s[0]);
	for (j = name.len; j < rest.len && is_blank(rest.s[j]); ++j)
		;
	if (j >= rest.len || rest.s[j] != '=')
		return error_at(p, rest.col + j, "expected '=' after size "
			"'%.*s'", name.len, name.s);
	for (j++; j < rest.len && is_blank(rest.s[j]); ++j)
		;
	i = j;
	while (j < rest.len && !is_blank(rest.s[j]) && rest.s[j] != ',')
		j++;
	num = subword(&rest, i, j);
	if (parse_int(p, &num, &value) < 0 || add_size(p, &name, value) < 0)
		return -1;
	*pos += j;
	return 0;
}

/* "sizes" size { ( "," | blank ) size } */
static int parse_sizes(struct parser *p)
{
	struct line *l = &p->line;
	int pos = l->word[0].len;

	if (l->n_word < 2) {
		error_at(p, end_col(p), "missing NAME=INT after 'sizes'");
		ein_hint(p->ctx, "e.g. 'sizes M=1024 N=1024 K=1024'");
		return -1;
	}
	while (1) {
		while (pos < l->len && (is_blank(l->start[pos]) ||
		    l->start[pos] == ','))
			pos++;
		if (pos >= l->len)
			return 0;
		if (parse_size(p, &pos) < 0)
			return -1;
	}
}

/* Is header "h" allowed here?  Each header comes at most once, before the
 * first directive. */
static int check_header_place(struct parser *p, enum header h)
{
	int first = p->header_line[h];

	if (first && (h != H_VERSION || first != p->line.no)) {
		error_at(p, 1, "duplicate '%s' %s", header_names[h],
			h == H_VERSION ? "line" : "header");
		ein_hint(p->ctx, "the first is on line %d", first);
		return -1;
	}
	p->header_line[h] = p->line.no;
	if (p->first_dir_line && h != H_VERSION) {
		error_at(p, 1, "header '%s' after a directive",
			header_names[h]);
		ein_hint(p->ctx, "the headers come before the first directive "
			"(line %d)", p->first_dir_line);
		return -1;
	}
	return 0;
}

static int parse_header(struct parser *p, enum header h)
{
	if (check_header_place(p, h) < 0)
		return -1;
	switch (h) {
	case H_VERSION: return parse_version(p);
	case H_TARGET:
	case H_DEF: return parse_word_header(p, h);
	case H_SIZES: return parse_sizes(p);
	default: return parse_text_header(p, h);
	}
}

/* ---- lines ---------------------------------------------------------- */

/* A line that is neither a header nor a directive: most likely a
 * directive without its ':', or a misspelt header. */
static int parse_other(struct parser *p)
{
	struct line *l = &p->line;
	const char *guess = nearest(&l->word[0], header_names, N_HEADER);

	if (is_colon(&l->word[0]))
		return error_at(p, 1, "expected a statement before ':'");
	if ((l->n_word < 2 || find_verb(&l->word[1]) < 0) && guess) {
		error_at(p, 1, "unknown header '%.*s'", l->word[0].len,
			l->word[0].s);
		ein_hint(p->ctx, "did you mean '%s'?", guess);
		return -1;
	}
	error_at(p, l->word[0].col + l->word[0].len, "missing ':' after the "
		"statement '%.*s'", l->word[0].len, l->word[0].s);
	ein_hint(p->ctx, "a directive reads 'STMT: VERB ARGS', e.g. "
		"'C: tile i 64 j 32'");
	return -1;
}

/* The first line must be the version line.  The error comes once, at the
 * first line that is not blank or a comment. */
static void check_first_line(struct parser *p)
{
	if (p->seen_line)
		return;
	p->seen_line = 1;
	if (p->line.n_word > 0 && word_is(&p->line.word[0], "ein-schedule")) {
		p->header_line[H_VERSION] = p->line.no;
		return;
	}
	error_at(p, 1, "missing 'ein-schedule %d' line",
		EIN_SCHED_FILE_VERSION);
	ein_hint(p->ctx, "a schedule file starts with 'ein-schedule %d'",
		EIN_SCHED_FILE_VERSION);
}

/* Is the line a header written "NAME: VALUE", as in YAML?  A statement
 * may be named like a header ("date: parallel i"), so only if the word
 * after the ':' is no directive. */
static int is_header_with_colon(struct parser *p)
{
	struct line *l = &p->line;

	if (l->n_word < 2 || !is_colon(&l->word[1]) ||
	    find_header(&l->word[0]) < 0)
		return 0;
	return l->n_word < 3 || find_verb(&l->word[2]) < 0;
}

static void parse_line(struct parser *p)
{
	struct line *l = &p->line;
	int h;

	if (l->n_word == 0)
		return;
	check_first_line(p);
	if (is_header_with_colon(p))
		error_at(p, l->word[1].col, "unexpected ':' after '%.*s'",
			l->word[0].len, l->word[0].s);
	else if (l->n_word >= 2 && is_colon(&l->word[1]))
		parse_directive(p);
	else if ((h = find_header(&l->word[0])) >= 0)
		parse_header(p, h);
	else
		parse_other(p);
}

/* Parse every line of p->f->src. */
static void parse_lines(struct parser *p)
{
	const char *s = p->f->src->text, *nl;
	int len;

	for (p->line.no = 1; ; p->line.no++) {
		nl = strchr(s, '\n');
		len = nl ? nl - s : (int) strlen(s);
		if (split_line(p, s, len) < 0)
			return;
		parse_line(p);
		if (!nl)
			break;
		s = nl + 1;
	}
	if (!p->seen_line) {
		p->line.no = 1;
		check_first_line(p);
	}
}

/* ---- the file ------------------------------------------------------- */

void ein_sched_file_free(__isl_take struct ein_sched_file *f)
{
	int i;

	if (!f)
		return;
	ein_src_free(f->src);
	free(f->target);
	free(f->def);
	free(f->measured);
	free(f->date);
	free(f->ein_version);
	free(f->tuned_by);
	for (i = 0; i < f->n_size; ++i)
		free(f->size[i].name);
	free(f->size);
	for (i = 0; i < f->n_dir; ++i)
		directive_clear(&f->dir[i]);
	free(f->dir);
	free(f);
}

__isl_give struct ein_sched_file *ein_sched_file_parse(ein_ctx *ctx,
	__isl_take struct ein_src *src)
{
	struct parser p = { .ctx = ctx };

	if (!src)
		return NULL;
	p.f = calloc(1, sizeof(*p.f));
	if (!p.f) {
		ein_src_free(src);
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	p.f->src = src;
	parse_lines(&p);
	free(p.line.word);
	if (p.n_error) {
		ein_sched_file_free(p.f);
		return NULL;
	}
	return p.f;
}

__isl_give struct ein_sched_file *ein_sched_file_read(ein_ctx *ctx,
	const char *path)
{
	return ein_sched_file_parse(ctx, ein_src_read(ctx, path));
}

long ein_sched_file_get_size(__isl_keep const struct ein_sched_file *f,
	const char *name)
{
	int i;

	for (i = 0; f && i < f->n_size; ++i)
		if (!strcmp(f->size[i].name, name))
			return f->size[i].value;
	return -1;
}

const char *ein_sched_verb_name(enum ein_sched_verb verb)
{
	if ((unsigned) verb >= ARRAY_SIZE(verbs))
		return "?";
	return verbs[verb].name;
}

/* ---- printing ------------------------------------------------------- */

static void print_stmt_ref(FILE *out, const struct ein_sched_stmt_ref *ref)
{
	fputs(ref->tensor, out);
	if (ref->occurrence != 1)
		fprintf(out, "#%d", ref->occurrence);
	if (ref->is_init)
		fputs(".init", out);
}

static void print_arg(FILE *out, const struct ein_sched_arg *arg)
{
	switch (arg->kind) {
	case EIN_SCHED_ARG_INT:
		fprintf(out, "%ld", arg->value);
		break;
	case EIN_SCHED_ARG_STMT:
		print_stmt_ref(out, &arg->stmt);
		break;
	case EIN_SCHED_ARG_INDEX:
		fputs(arg->name, out);
		if (arg->value)
			fprintf(out, "%c%ld", arg->value > 0 ? '/' : '%',
				labs(arg->value));
		break;
	default:
		fputs(arg->name, out);
	}
}

/* "STMT: VERB ARGS", with the "at" of pack, local and prefetch and the
 * word "layout" put back. */
static void print_directive(FILE *out, const struct ein_sched_directive *d)
{
	int i;

	print_stmt_ref(out, &d->stmt);
	fprintf(out, ": %s", ein_sched_verb_name(d->verb));
	for (i = 0; i < d->n_arg; ++i) {
		fputc(' ', out);
		if ((d->verb == EIN_SCHED_PACK || d->verb == EIN_SCHED_LOCAL ||
		     d->verb == EIN_SCHED_PREFETCH) && i == 1)
			fputs("at ", out);
		if (d->verb == EIN_SCHED_PREFETCH && i == 2)
			fputs("from ", out);
		if (d->arg[i].kind == EIN_SCHED_ARG_INDEX &&
		    (i == 0 || d->arg[i - 1].kind != EIN_SCHED_ARG_INDEX))
			fputs("layout ", out);
		print_arg(out, &d->arg[i]);
	}
	fputc('\n', out);
}

static void print_headers(FILE *out, const struct ein_sched_file *f)
{
	int i;

	fprintf(out, "%s %d\n", header_names[H_VERSION],
		EIN_SCHED_FILE_VERSION);
	if (f->target)
		fprintf(out, "target %s\n", f->target);
	if (f->def)
		fprintf(out, "def %s\n", f->def);
	if (f->n_size > 0) {
		fputs("sizes", out);
		for (i = 0; i < f->n_size; ++i)
			fprintf(out, " %s=%ld", f->size[i].name,
				f->size[i].value);
		fputc('\n', out);
	}
	if (f->measured)
		fprintf(out, "measured %s\n", f->measured);
	if (f->date)
		fprintf(out, "date %s\n", f->date);
	if (f->ein_version)
		fprintf(out, "ein %s\n", f->ein_version);
	if (f->tuned_by)
		fprintf(out, "tuned-by %s\n", f->tuned_by);
}

__isl_give char *ein_sched_directive_to_string(
	__isl_keep const struct ein_sched_directive *d)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out;

	if (!d)
		return NULL;
	out = open_memstream(&buf, &size);
	if (!out)
		return NULL;
	print_directive(out, d);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	if (size > 0 && buf[size - 1] == '\n')
		buf[size - 1] = '\0';
	return buf;
}

__isl_give char *ein_sched_file_to_string(
	__isl_keep const struct ein_sched_file *f)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out;
	int i;

	if (!f)
		return NULL;
	out = open_memstream(&buf, &size);
	if (!out)
		return NULL;
	print_headers(out, f);
	if (f->n_dir > 0)
		fputc('\n', out);
	for (i = 0; i < f->n_dir; ++i)
		print_directive(out, &f->dir[i]);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- atomic writing --------------------------------------------------- */

int ein_sched_file_write(ein_ctx *ctx,
	__isl_keep const struct ein_sched_file *f, const char *path)
{
	char *text;
	int r;

	if (!f || !path) {
		ein_error(ctx, EIN_ERROR_INVALID, "no schedule or no path to "
			"write it to");
		return -1;
	}
	text = ein_sched_file_to_string(f);
	if (!text) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return -1;
	}
	r = ein_outfile_write_bytes(ctx, path, text, strlen(text),
		EIN_OUTFILE_DURABLE);
	free(text);
	return r;
}
