/*
 * lookup.c: target names, and the search for a definition's schedule file
 * along the schedule path (lookup.h).
 *
 * Only the headers of the candidate files matter here, but each candidate
 * is parsed whole: a malformed file in the search path is reported where
 * it is rather than skipped, which would leave the user wondering why the
 * schedule is not used.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "sched/file.h"
#include "sched/lookup.h"

/* The installed schedules (Makefile.am defines it from $(pkgdatadir)). */
#ifndef EIN_SCHEDULE_DIR
#define EIN_SCHEDULE_DIR "/usr/local/share/ein/schedules"
#endif

/* ---- target names --------------------------------------------------- */

/* Does the LLVM feature string "features" enable "name" ("+name")? */
static int has_feature(const char *features, const char *name)
{
	size_t n = strlen(name);
	const char *s = features;

	while (s && *s) {
		size_t len = strcspn(s, ",");

		if (len == n + 1 && s[0] == '+' && !strncmp(s + 1, name, n))
			return 1;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

static const char *x86_64_class(const char *features)
{
	if (has_feature(features, "avx512f"))
		return "avx512";
	if (has_feature(features, "avx2") && has_feature(features, "fma"))
		return "avx2";
	return "sse";
}

struct ein_sched_vector_unit ein_sched_target_vectors(const char *target)
{
	struct ein_sched_vector_unit u = { 16, 16 };

	if (target && strstr(target, "avx512"))
		u.bytes = 64, u.registers = 32;
	else if (target && strstr(target, "avx2"))
		u.bytes = 32;
	else if (target && !strncmp(target, "aarch64", 7))
		u.registers = 32;
	return u;
}

__isl_give char *ein_sched_target_name(const char *triple, const char *cpu,
	const char *features)
{
	size_t n = triple ? strcspn(triple, "-") : 0;
	const char *class = "generic";
	char *name;
	int r;

	if (n == 0) {
		triple = "unknown";
		n = strlen(triple);
	}
	if ((n == 6 && !strncmp(triple, "x86_64", n)) ||
	    (n == 5 && !strncmp(triple, "amd64", n))) {
		triple = "x86_64";
		n = 6;
		class = x86_64_class(features);
	} else if ((n == 7 && !strncmp(triple, "aarch64", n)) ||
	    (n == 5 && !strncmp(triple, "arm64", n))) {
		triple = "aarch64";
		n = 7;
		class = has_feature(features, "sve") ? "sve" : "neon";
	}
	r = asprintf(&name, "%.*s-%s", (int) n, triple, class);
	return r < 0 ? NULL : name;
}

/* ---- the search ----------------------------------------------------- */

/* What is looked for: see ein_sched_lookup. */
struct query {
	const char *target;
	const char *def;
	int n_size;
	const char *const *name;
	const long *value;
};

/* The best candidate of a directory so far.
 * path, f: the file (owned), NULL before the first;
 * score: its distance to the query (0: exact);
 * n: the number of candidates seen. */
struct best {
	char *path;
	struct ein_sched_file *f;
	double score;
	int n;
};

static int nomem(ein_ctx *ctx)
{
	ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	return -1;
}

/* Is "name" (a file in a target's directory) a schedule of "def":
 * "def.sched" or "def.*.sched"? */
static int is_schedule_of(const char *name, const char *def)
{
	size_t n = strlen(name), d = strlen(def), ext = strlen(".sched");

	if (strncmp(name, def, d) || name[d] != '.' || n < d + ext)
		return 0;
	if (strcmp(name + n - ext, ".sched"))
		return 0;
	return n == d + ext || n > d + 1 + ext;
}

/* Is file "f" meant for the query: its def and target headers, if any,
 * agree? */
static int is_candidate(const struct ein_sched_file *f,
	const struct query *q)
{
	if (f->def && strcmp(f->def, q->def))
		return 0;
	if (f->target && strcmp(f->target, q->target))
		return 0;
	return 1;
}

/* Is "f", at distance "s", a better choice than "best"?  Nearer wins; at
 * the same distance a file for any sizes wins over one tuned for others
 * (a hand-written general schedule is not shadowed by a file tuned for
 * sizes twice as large), else the first by name. */
static int better(const struct ein_sched_file *f, double s,
	const struct best *best)
{
	if (s != best->score)
		return s < best->score;
	return f->n_size == 0 && best->f->n_size > 0;
}

/* How far the sizes "f" was tuned for are from the query's (lookup.h);
 * 0 for an exact match. */
static double score(const struct ein_sched_file *f, const struct query *q)
{
	double s = 0;
	int i;

	if (q->n_size == 0)
		return f->n_size > 0;
	if (f->n_size == 0)
		return q->n_size;
	for (i = 0; i < q->n_size; ++i) {
		long v = ein_sched_file_get_size(f, q->name[i]);
		double actual = q->value[i] < 1 ? 1 : q->value[i];

		s += v < 0 ? 1 : fabs(log2(v / actual));
	}
	for (i = 0; i < f->n_size; ++i) {
		int j;

		for (j = 0; j < q->n_size; ++j)
			if (!strcmp(f->size[i].name, q->name[j]))
				break;
		s += j == q->n_size;
	}
	return s;
}

/* Consider the file at "path": keep it in "best" if it is a candidate
 * nearer than the best so far.  Takes "path". */
static int consider(ein_ctx *ctx, char *path, const struct query *q,
	struct best *best)
{
	struct ein_sched_file *f = ein_sched_file_read(ctx, path);
	double s;

	if (!f) {
		free(path);
		return -1;
	}
	if (!is_candidate(f, q)) {
		ein_sched_file_free(f);
		free(path);
		return 0;
	}
	s = score(f, q);
	best->n++;
	if (best->f && !better(f, s, best)) {
		ein_sched_file_free(f);
		free(path);
		return 0;
	}
	ein_sched_file_free(best->f);
	free(best->path);
	best->f = f;
	best->path = path;
	best->score = s;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The schedules of q->def in directory "dir", sorted by name, into
 * *names (n of them).  A directory that cannot be read has none. */
static int list_schedules(ein_ctx *ctx, const char *dir,
	const struct query *q, char ***names, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **more;

	*names = NULL;
	*n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!is_schedule_of(e->d_name, q->def))
			continue;
		more = realloc(*names, (*n + 1) * sizeof(**names));
		if (more)
			*names = more;
		if (!more || !(more[*n] = strdup(e->d_name))) {
			closedir(d);
			return nomem(ctx);
		}
		(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), &compare_names);
	return 0;
}

/* " M=1000 N=1000" for the query's sizes, into "out". */
static void print_sizes(FILE *out, const struct query *q)
{
	int i;

	for (i = 0; i < q->n_size; ++i)
		fprintf(out, "%s%s=%ld", i ? " " : "", q->name[i],
			q->value[i]);
}

/* The one-line reason for choosing best->path. */
static char *explain(const struct best *best, const struct query *q)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	if (!out)
		return NULL;
	fprintf(out, "%s: ", best->path);
	if (best->n == 1)
		fprintf(out, "the only candidate");
	else if (q->n_size == 0)
		fprintf(out, "no sizes given: the first %s of %d candidates",
			best->score == 0 ? "without a 'sizes' header" :
			"by name", best->n);
	else {
		fprintf(out, "%s ", best->score == 0 ? "tuned for exactly" :
			"nearest to");
		print_sizes(out, q);
		fprintf(out, " of %d candidates", best->n);
	}
	fclose(out);
	return buf;
}

/* Search directory "dir" (one entry of the schedule path) for the query.
 * Returns 1 after setting *chosen and *why if it has a candidate, 0 if
 * not, -1 on error. */
static int search_dir(ein_ctx *ctx, const char *dir, const struct query *q,
	char **chosen, char **why)
{
	struct best best = { NULL };
	char *tdir, **names, *path;
	int i, n, r = 0;

	if (asprintf(&tdir, "%s/%s", dir, q->target) < 0)
		return nomem(ctx);
	if (list_schedules(ctx, tdir, q, &names, &n) < 0)
		r = -1;
	for (i = 0; r == 0 && i < n; ++i) {
		if (asprintf(&path, "%s/%s", tdir, names[i]) < 0)
			r = nomem(ctx);
		else
			r = consider(ctx, path, q, &best);
	}
	for (i = 0; i < n; ++i)
		free(names[i]);
	free(names);
	free(tdir);
	if (r == 0 && best.f) {
		*why = explain(&best, q);
		*chosen = best.path;
		best.path = NULL;
		r = *why ? 1 : nomem(ctx);
	}
	ein_sched_file_free(best.f);
	free(best.path);
	return r;
}

/* Search each directory of the colon-separated "list" in turn; empty
 * entries are skipped.  Returns as search_dir. */
static int search_list(ein_ctx *ctx, const char *list,
	const struct query *q, char **chosen, char **why)
{
	const char *s = list;
	char *dir;
	int r = 0;

	while (s && *s && r == 0) {
		size_t len = strcspn(s, ":");

		if (len > 0) {
			dir = strndup(s, len);
			r = dir ? search_dir(ctx, dir, q, chosen, why) :
				nomem(ctx);
			free(dir);
		}
		s += len;
		if (*s == ':')
			s++;
	}
	return r;
}

/* An explicit schedule file: it must be readable and for "def"; a file
 * for another target is taken, and the reason says so. */
static int lookup_explicit(ein_ctx *ctx, const char *path,
	const struct query *q, char **chosen, char **why)
{
	struct ein_sched_file *f = ein_sched_file_read(ctx, path);
	int r;

	if (!f)
		return -1;
	if (f->def && strcmp(f->def, q->def)) {
		ein_error(ctx, EIN_ERROR_SOURCE, "'%s' is a schedule for "
			"'%s', not for '%s'", path, f->def, q->def);
		ein_sched_file_free(f);
		return -1;
	}
	if (f->target && strcmp(f->target, q->target))
		r = asprintf(why, "%s: given explicitly (tuned for %s, this "
			"is %s)", path, f->target, q->target);
	else
		r = asprintf(why, "%s: given explicitly", path);
	ein_sched_file_free(f);
	*chosen = r < 0 ? NULL : strdup(path);
	if (r < 0 || !*chosen) {
		if (r >= 0)
			free(*why);
		*why = NULL;
		return nomem(ctx);
	}
	return 0;
}

/* The reason when nothing was found: where the search went. */
static int explain_none(ein_ctx *ctx, const char *list,
	const struct query *q, char **why)
{
	int r;

	r = asprintf(why, "no schedule %s/%s.sched in %s%s%s", q->target,
		q->def, list && *list ? list : "",
		list && *list ? ":" : "", EIN_SCHEDULE_DIR);
	if (r < 0) {
		*why = NULL;
		return nomem(ctx);
	}
	return 0;
}

int ein_sched_lookup(ein_ctx *ctx, const char *explicit_path,
	const char *target, const char *def, int n_size,
	const char *const *size_names, const long *size_values,
	__isl_give char **chosen_path, __isl_give char **why)
{
	struct query q = { target, def, n_size, size_names, size_values };
	const char *list = getenv("EIN_SCHEDULE_PATH");
	int r;

	*chosen_path = NULL;
	*why = NULL;
	if (!target || !def || (n_size > 0 && (!size_names || !size_values))) {
		ein_internal(ctx, "ein_sched_lookup: missing argument");
		return -1;
	}
	if (explicit_path)
		return lookup_explicit(ctx, explicit_path, &q, chosen_path,
			why);
	r = search_list(ctx, list, &q, chosen_path, why);
	if (r == 0)
		r = search_dir(ctx, EIN_SCHEDULE_DIR, &q, chosen_path, why);
	if (r < 0)
		return -1;
	return r ? 0 : explain_none(ctx, list, &q, why);
}
