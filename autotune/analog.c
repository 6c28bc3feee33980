/*
 * analog.c: seeds from the schedules of a definition of the same
 * structure (analog.h).
 *
 * The loops of a contraction W += U * V group by the accesses they
 * appear in, V being the operand that W's innermost loop indexes:
 *
 *   W, U and V   batch   (b of batched_matmul)
 *   W and U      M       (i of matmul: C(i, j) += A(i, k) * B(k, j))
 *   W and V      N       (j)
 *   U and V      K       (k)
 *
 * Any other loop (in one operand only, or in W only) is no GEMM's.  Each
 * of the reference's loops names one loop of its group: j the loop of
 * W's last dimension, i the M loop of W's innermost M dimension, k the K
 * loop of U's innermost K dimension, b the batch loop of W's outermost
 * batch dimension.  The other loops of the groups (TCCG's abc-acd-db has
 * two M loops, a and c) come first in every reorder, in their default
 * order, so that the reference's loop nest runs inside them.
 *
 * A definition of several statements (PolyBench's 2mm: tmp = A B, then
 * E = D, E += tmp C) gets the seed of each GEMM-shaped statement, each
 * mapped on its own at its own extents; the other statements keep their
 * default schedule, and the reference's initialisation directives are
 * dropped for an update that has no initialisation (E#2 above).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autotune/analog.h"
#include "sched/file.h"
#include "sched/lookup.h"

enum group { G_M, G_N, G_K, G_B, N_GROUP };

/* A reference GEMM: its definition, the names its schedules give the
 * output and the operands U and V, its loops and its sizes, by group. */
struct gemm {
	const char *def;
	const char *tensor[3];
	const char *loop[N_GROUP];
	const char *size[N_GROUP];
};

static const struct gemm batched_matmul = { "batched_matmul",
	{ "Z", "X", "Y" }, { "i", "j", "k", "b" }, { "M", "N", "K", "B" } };
static const struct gemm matmul = { "matmul",
	{ "C", "A", "B" }, { "i", "j", "k", NULL }, { "M", "N", "K", NULL } };

/* The structure of the contraction "st": the group of each loop, the
 * loop each reference loop maps to (rep, -1 for none), the accesses of
 * U and V, the extent of each group (the product of its loops'). */
struct shape {
	const struct ein_space_stmt *st;
	int has_init;
	int group[EIN_SPACE_MAX_LOOP];
	int rep[N_GROUP];
	int u, v;
	long extent[N_GROUP];
};

/* The loop of dimension "d" of access "a" if its index is a loop alone
 * (coefficient 1), -1 if not. */
static int dim_loop(const struct ein_space_stmt *st,
	const struct ein_space_access *a, int d)
{
	int v, loop = -1;

	for (v = 0; v < st->n_loop; ++v) {
		if (a->coef[d][v] == 0)
			continue;
		if (a->coef[d][v] != 1 || loop >= 0)
			return -1;
		loop = v;
	}
	return loop;
}

/* The loops that access "a" indexes (a bit per loop), -1 if an index
 * is not a loop alone. */
static int loop_mask(const struct ein_space_stmt *st,
	const struct ein_space_access *a)
{
	int d, mask = 0;

	for (d = 0; d < a->n_dim; ++d) {
		int v = dim_loop(st, a, d);

		if (v < 0)
			return -1;
		mask |= 1 << v;
	}
	return mask;
}

/* The operands of statement "st" into op[0] and op[1]: the accesses
 * other than its write and its read of the element it updates (any other
 * access to the tensor it writes).  Returns -1 unless there are two. */
static int operands(const struct ein_space_stmt *st, int *op)
{
	int a, n = 0;

	if (st->n_access < 1 || !st->access[0].is_write)
		return -1;
	for (a = 1; a < st->n_access; ++a) {
		if (st->access[a].tensor == st->access[0].tensor)
			continue;
		if (n == 2)
			return -1;
		op[n++] = a;
	}
	return n == 2 ? 0 : -1;
}

/* Whether statement "st" of "sp" has an initialisation ("C.init"). */
static int has_init(const struct ein_space *sp, const struct ein_space_stmt *st)
{
	size_t n = strlen(st->name);
	int s;

	for (s = 0; s < sp->n_stmt; ++s)
		if (sp->stmt[s].is_init && !strncmp(sp->stmt[s].name,
				st->name, n) && !strcmp(sp->stmt[s].name + n,
				".init"))
			return 1;
	return 0;
}

/* The group of a loop in W, U and V ("in" bits 1, 2, 4), -1 if none. */
static int group_of(int in)
{
	switch (in) {
	case 7: return G_B;
	case 3: return G_M;
	case 5: return G_N;
	case 6: return G_K;
	default: return -1;
	}
}

/* The loop of the last dimension of access "a" in group "g", searched
 * from the innermost dimension (or from the outermost if "outer"). */
static int last_in_group(const struct shape *sh,
	const struct ein_space_access *a, int g, int outer)
{
	int i, d;

	for (i = 0; i < a->n_dim; ++i) {
		d = outer ? i : a->n_dim - 1 - i;
		if (sh->group[dim_loop(sh->st, a, d)] == g)
			return dim_loop(sh->st, a, d);
	}
	return -1;
}

/* Group the loops of "st" (see the head comment).  Returns -1 if it has
 * no GEMM's structure. */
static int classify(const struct ein_space_stmt *st, struct shape *sh)
{
	const struct ein_space_access *w = &st->access[0];
	int acc[3] = { 0 }, mask[3], j, v, g;

	if (operands(st, acc + 1) < 0)
		return -1;
	for (v = 0; v < 3; ++v)
		if ((mask[v] = loop_mask(st, &st->access[acc[v]])) < 0)
			return -1;
	if (w->n_dim < 1)
		return -1;
	j = dim_loop(st, w, w->n_dim - 1);
	if (((mask[1] >> j) & 1) == ((mask[2] >> j) & 1))
		return -1;
	sh->st = st;
	g = (mask[1] >> j) & 1;
	sh->v = acc[g ? 1 : 2];
	sh->u = acc[g ? 2 : 1];
	for (g = 0; g < N_GROUP; ++g)
		sh->extent[g] = 1;
	for (v = 0; v < st->n_loop; ++v) {
		int in_u = mask[sh->u == acc[1] ? 1 : 2] >> v & 1;
		int in_v = mask[sh->v == acc[1] ? 1 : 2] >> v & 1;

		sh->group[v] = group_of((mask[0] >> v & 1) | in_u << 1 |
			in_v << 2);
		if (sh->group[v] < 0)
			return -1;
		sh->extent[sh->group[v]] *= st->extent[v];
	}
	sh->rep[G_N] = j;
	sh->rep[G_M] = last_in_group(sh, w, G_M, 0);
	sh->rep[G_K] = last_in_group(sh, &st->access[sh->u], G_K, 0);
	sh->rep[G_B] = last_in_group(sh, w, G_B, 1);
	return sh->rep[G_M] >= 0 && sh->rep[G_K] >= 0 ? 0 : -1;
}

/* The name of the loop that the reference's loop "name" ("j.i.o": loop
 * j, split twice) maps to, NULL if it names none of its loops. */
static char *map_loop(const struct shape *sh, const struct gemm *ref,
	const char *name)
{
	size_t head = strcspn(name, ".");
	const char *to;
	char *out;
	int g;

	for (g = 0; g < N_GROUP; ++g)
		if (ref->loop[g] && sh->rep[g] >= 0 &&
		    strlen(ref->loop[g]) == head &&
		    !strncmp(ref->loop[g], name, head))
			break;
	if (g == N_GROUP)
		return NULL;
	to = sh->st->loop[sh->rep[g]];
	out = malloc(strlen(to) + strlen(name + head) + 1);
	if (out)
		sprintf(out, "%s%s", to, name + head);
	return out;
}

/* The name of the tensor that the reference's tensor "name" maps to, NULL
 * if it is none of its tensors. */
static char *map_tensor(const struct shape *sh, const struct gemm *ref,
	const char *name)
{
	int acc[3] = { 0, sh->u, sh->v }, t;

	for (t = 0; t < 3; ++t)
		if (!strcmp(ref->tensor[t], name))
			return strdup(sh->st->access[acc[t]].name);
	return NULL;
}

/* Replace *name by "to" (taken); -1 if "to" is NULL. */
static int replace(char **name, char *to)
{
	if (!to)
		return -1;
	free(*name);
	*name = to;
	return 0;
}

/* Make "ref", a statement of the reference (its output's), one of the
 * contraction's: its tensor and occurrence ("T#2").  Returns 1 for an
 * initialisation where the contraction has none (the directive is
 * dropped). */
static int map_stmt(const struct shape *sh, const struct gemm *ref,
	struct ein_sched_stmt_ref *s)
{
	const char *hash = strchr(sh->st->name, '#');

	if (strcmp(s->tensor, ref->tensor[0]) || s->occurrence != 1)
		return -1;
	if (s->is_init && !sh->has_init)
		return 1;
	s->occurrence = hash ? atoi(hash + 1) : 1;
	return replace(&s->tensor, strdup(sh->st->access[0].name));
}

/* Put the loops that no reference loop maps to (of the initialisation's
 * groups only, for "d" on it) first in reorder "d". */
static int reorder_rest(const struct shape *sh,
	struct ein_sched_directive *d)
{
	struct ein_sched_arg rest[EIN_SPACE_MAX_LOOP], *grown;
	int v, g, n = 0;

	for (v = 0; v < sh->st->n_loop; ++v) {
		for (g = 0; g < N_GROUP && sh->rep[g] != v; ++g)
			;
		if (g < N_GROUP || (d->stmt.is_init && sh->group[v] == G_K))
			continue;
		memset(&rest[n], 0, sizeof(rest[n]));
		rest[n].kind = EIN_SCHED_ARG_LOOP;
		if (!(rest[n++].name = strdup(sh->st->loop[v])))
			return -1;
	}
	grown = n ? realloc(d->arg, (d->n_arg + n) * sizeof(*grown)) : d->arg;
	if (!grown) {
		while (n-- > 0)
			free(rest[n].name);
		return -1;
	}
	memmove(grown + n, grown, d->n_arg * sizeof(*grown));
	memcpy(grown, rest, n * sizeof(*grown));
	d->arg = grown;
	d->n_arg += n;
	return 0;
}

/* Rename directive "d" of a schedule of "ref" for the contraction. */
static int map_directive(const struct shape *sh, const struct gemm *ref,
	struct ein_sched_directive *d)
{
	int i, ok = map_stmt(sh, ref, &d->stmt);

	for (i = 0; ok == 0 && i < d->n_arg; ++i) {
		struct ein_sched_arg *a = &d->arg[i];

		if (a->kind == EIN_SCHED_ARG_LOOP ||
		    a->kind == EIN_SCHED_ARG_INDEX)
			ok = replace(&a->name, map_loop(sh, ref, a->name));
		else if (a->kind == EIN_SCHED_ARG_TENSOR)
			ok = replace(&a->name, map_tensor(sh, ref, a->name));
		else if (a->kind == EIN_SCHED_ARG_STMT)
			ok = map_stmt(sh, ref, &a->stmt);
	}
	if (ok == 0 && d->verb == EIN_SCHED_REORDER)
		ok = reorder_rest(sh, d);
	return ok;
}

/* The directives of "f", a schedule of "ref", renamed; NULL if one names
 * what the mapping does not cover. */
static char *map_file(const struct shape *sh, const struct gemm *ref,
	struct ein_sched_file *f)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int i, ok = out ? 0 : -1;

	for (i = 0; ok == 0 && i < f->n_dir; ++i) {
		ok = map_directive(sh, ref, &f->dir[i]);
		if (ok == 1) {
			ok = 0;
			continue;
		}
		line = ok == 0 ? ein_sched_directive_to_string(&f->dir[i]) :
			NULL;
		if (line)
			fprintf(out, "%s\n", line);
		else
			ok = -1;
		free(line);
	}
	if (out && fclose(out) != 0)
		ok = -1;
	if (ok < 0 || f->n_dir == 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* "path, matmul as W: i=a j=b k=c" (to free). */
static char *explain(const struct shape *sh, const struct gemm *ref,
	const char *path)
{
	char buf[1400];
	int g, n;

	n = snprintf(buf, sizeof(buf), "%s, %s as %s:", path, ref->def,
		sh->st->name);
	for (g = 0; g < N_GROUP && n < (int) sizeof(buf); ++g)
		if (ref->loop[g] && sh->rep[g] >= 0)
			n += snprintf(buf + n, sizeof(buf) - n, " %s=%s",
				ref->loop[g], sh->st->loop[sh->rep[g]]);
	return strdup(buf);
}

/* The directives of the schedule lookup finds for "ref" at the
 * contraction's sizes, renamed (see ein_analog_directives). */
static char *from_ref(ein_ctx *ctx, const struct shape *sh,
	const struct gemm *ref, const char *target, char **why)
{
	const char *names[N_GROUP];
	long values[N_GROUP];
	char *path = NULL, *lookup_why = NULL, *text = NULL;
	struct ein_sched_file *f;
	int g, n = 0;

	for (g = 0; g < N_GROUP; ++g)
		if (ref->size[g]) {
			names[n] = ref->size[g];
			values[n++] = sh->extent[g];
		}
	if (ein_sched_lookup(ctx, NULL, target, ref->def, n, names, values,
	    &path, &lookup_why) == 0 && path) {
		f = ein_sched_file_read(ctx, path);
		text = f ? map_file(sh, ref, f) : NULL;
		ein_sched_file_free(f);
	}
	*why = text ? explain(sh, ref, path) : NULL;
	free(path);
	free(lookup_why);
	return text;
}

/* The seed of GEMM-shaped statement "st" of "sp" (see
 * ein_analog_directives), NULL if it has none. */
static char *stmt_directives(ein_ctx *ctx, const struct ein_space *sp,
	const struct ein_space_stmt *st, const char *target, char **why)
{
	struct shape sh;
	char *text = NULL;

	*why = NULL;
	if (st->is_init || classify(st, &sh) < 0)
		return NULL;
	sh.has_init = has_init(sp, st);
	if (sh.rep[G_B] >= 0)
		text = from_ref(ctx, &sh, &batched_matmul, target, why);
	if (!text) {
		sh.rep[G_B] = -1;
		text = from_ref(ctx, &sh, &matmul, target, why);
	}
	return text;
}

/* Append "add" (taken) to *all, after "sep" if *all is not empty;
 * -1 if out of memory. */
static int append(char **all, char *add, const char *sep)
{
	size_t n = *all ? strlen(*all) : 0;
	char *grown = realloc(*all, n + strlen(sep) + strlen(add) + 1);

	if (!grown)
		return free(add), -1;
	sprintf(grown + n, "%s%s", n ? sep : "", add);
	free(add);
	*all = grown;
	return 0;
}

char *ein_analog_directives(ein_ctx *ctx, const struct ein_space *space,
	const char *target, char **why)
{
	char *text = NULL, *one, *one_why;
	int s, bad = 0;

	*why = NULL;
	for (s = 0; s < space->n_stmt && !bad; ++s) {
		one = stmt_directives(ctx, space, &space->stmt[s], target,
			&one_why);
		if (!one)
			continue;
		if (!one_why) {
			free(one);
			bad = 1;
			break;
		}
		bad = append(&text, one, "") < 0 ||
			append(why, one_why, "; ") < 0;
	}
	if (bad || !text) {
		free(text);
		free(*why);
		*why = NULL;
		return NULL;
	}
	return text;
}
