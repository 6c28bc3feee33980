/*
 * canon.c: a definition's text modulo its names (canon.h).
 *
 * The text is read again from the source rather than printed from the
 * AST: whatever the parser reads is then part of the comparison, and a
 * syntax added later cannot be forgotten here.  Only the names the
 * definition itself introduces are renamed; everything else (keywords,
 * builtins such as max and exp, sizes, index variables, numbers) must
 * agree letter for letter, so that equal texts mean equal definitions.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frontend/ast.h"
#include "frontend/builtin.h"
#include "frontend/canon.h"

/* The start of "loc" in its source's text, NULL if it has none. */
static const char *loc_text(struct ein_loc loc)
{
	const char *p;
	int line;

	if (!loc.src || !loc.src->text || loc.line < 1 || loc.col < 1)
		return NULL;
	p = loc.src->text;
	for (line = 1; line < loc.line && p; ++line)
		if ((p = strchr(p, '\n')))
			p++;
	return p ? p + loc.col - 1 : NULL;
}

static int is_ident_start(char c)
{
	return isalpha((unsigned char) c) || c == '_';
}

static int is_ident_char(char c)
{
	return isalnum((unsigned char) c) || c == '_';
}

/* Write identifier "s" of length "len" to "out", as "$def" or "$N" if it
 * names "func" or one of its tensors.  A builtin's name stays as it is
 * even if a tensor has it: which of the two a use means depends on the
 * letters, which a renaming must not hide. */
static void put_ident(FILE *out, const struct ein_func *func, const char *s,
	size_t len)
{
	int i;

	if (ein_builtin_find(s, len) != EIN_BUILTIN_NONE)
		return (void) fwrite(s, 1, len, out);
	if (strlen(func->def->name) == len && !strncmp(func->def->name, s, len))
		return (void) fputs("$def", out);
	for (i = 0; i < func->n_tensor; ++i)
		if (strlen(func->tensor[i].name) == len &&
		    !strncmp(func->tensor[i].name, s, len))
			return (void) fprintf(out, "$%d", i);
	fwrite(s, 1, len, out);
}

/* Skip blanks, newlines and comments ("#" or "//" to the end of the
 * line) from "p". */
static const char *skip_space(const char *p)
{
	for (;;) {
		if (*p == '#' || (p[0] == '/' && p[1] == '/'))
			p += strcspn(p, "\n");
		else if (*p && isspace((unsigned char) *p))
			p++;
		else
			return p;
	}
}

/* Write the definition at "p" to "out" up to its closing brace. */
static void put_def(FILE *out, const struct ein_func *func, const char *p)
{
	int depth = 0, opened = 0;

	while (*p && !(opened && depth == 0)) {
		const char *q = skip_space(p);

		if (q != p) {
			fputc(' ', out);
			p = q;
			continue;
		}
		q = p + 1;
		if (is_ident_start(*p)) {
			while (is_ident_char(*q))
				q++;
			put_ident(out, func, p, q - p);
		} else {
			/* A number goes whole, so that its exponent's "e"
			 * is not read as a name. */
			if (isdigit((unsigned char) *p))
				while (is_ident_char(*q) || *q == '.')
					q++;
			depth += (*p == '{') - (*p == '}');
			opened |= *p == '{';
			fwrite(p, 1, q - p, out);
		}
		p = q;
	}
}

__isl_give char *ein_canon_func(const struct ein_func *func)
{
	const char *start = func ? loc_text(func->def->loc) : NULL;
	char *text = NULL;
	size_t len;
	FILE *out;

	if (!start || strncmp(start, "def", 3))
		return NULL;
	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	put_def(out, func, start);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
