/*
 * lex.c: the hand-written lexer of .ein files.
 *
 * Tokens (see lex.h for the assignment operators and the "!" marker):
 *
 *   IDENT  = ( letter | "_" ) { letter | digit | "_" } ;
 *   INT    = digit { digit } ;
 *   FLOAT  = digit { digit } "." { digit } [ EXP ]
 *          | "." digit { digit } [ EXP ]
 *          | digit { digit } EXP ;
 *   EXP    = ( "e" | "E" ) [ "+" | "-" ] digit { digit } ;
 *
 * A number glued to a letter, a digit or a dot that it cannot take ("1e",
 * "1.5.2", "2i") is one malformed token, so that the message quotes all of
 * it.  Keywords are def, where and in; type and function names are plain
 * identifiers that the parser recognises.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "frontend/lex.h"

/* Punctuation and operators, each two-character one before its prefix. */
static const struct {
	const char *text;
	enum ein_tok kind;
	enum ein_assign assign;
} puncts[] = {
	{ "->", EIN_TOK_ARROW, EIN_ASSIGN_SET },
	{ "<=", EIN_TOK_LE, EIN_ASSIGN_SET },
	{ ">=", EIN_TOK_GE, EIN_ASSIGN_SET },
	{ "==", EIN_TOK_EQ, EIN_ASSIGN_SET },
	{ "!=", EIN_TOK_NE, EIN_ASSIGN_SET },
	{ "&&", EIN_TOK_AND, EIN_ASSIGN_SET },
	{ "||", EIN_TOK_OR, EIN_ASSIGN_SET },
	{ "+=", EIN_TOK_ASSIGN, EIN_ASSIGN_ADD },
	{ "*=", EIN_TOK_ASSIGN, EIN_ASSIGN_MUL },
	{ "=", EIN_TOK_ASSIGN, EIN_ASSIGN_SET },
	{ "(", EIN_TOK_LPAREN, EIN_ASSIGN_SET },
	{ ")", EIN_TOK_RPAREN, EIN_ASSIGN_SET },
	{ ",", EIN_TOK_COMMA, EIN_ASSIGN_SET },
	{ "{", EIN_TOK_LBRACE, EIN_ASSIGN_SET },
	{ "}", EIN_TOK_RBRACE, EIN_ASSIGN_SET },
	{ ":", EIN_TOK_COLON, EIN_ASSIGN_SET },
	{ "?", EIN_TOK_QUESTION, EIN_ASSIGN_SET },
	{ ";", EIN_TOK_SEMI, EIN_ASSIGN_SET },
	{ "+", EIN_TOK_PLUS, EIN_ASSIGN_SET },
	{ "-", EIN_TOK_MINUS, EIN_ASSIGN_SET },
	{ "*", EIN_TOK_STAR, EIN_ASSIGN_SET },
	{ "/", EIN_TOK_SLASH, EIN_ASSIGN_SET },
	{ "%", EIN_TOK_PERCENT, EIN_ASSIGN_SET },
	{ "<", EIN_TOK_LT, EIN_ASSIGN_SET },
	{ ">", EIN_TOK_GT, EIN_ASSIGN_SET },
	{ "!", EIN_TOK_NOT, EIN_ASSIGN_SET },
};

static const struct {
	const char *text;
	enum ein_tok kind;
} keywords[] = {
	{ "def", EIN_TOK_DEF },
	{ "where", EIN_TOK_WHERE },
	{ "in", EIN_TOK_IN },
};

void ein_lex_init(struct ein_lexer *lex, const struct ein_src *src)
{
	lex->src = src;
	lex->p = src->text;
	lex->line = 1;
	lex->line_start = src->text;
	lex->bol = 1;
	lex->end.src = src;
	lex->end.line = 1;
	lex->end.col = 1;
}

static int is_ident_char(char c)
{
	return isalnum((unsigned char) c) || c == '_';
}

static int is_digit(char c)
{
	return isdigit((unsigned char) c);
}

/* Skip blanks, newlines and comments ("#" or "//" to the end of line). */
static void skip_space(struct ein_lexer *lex)
{
	for (;;) {
		char c = *lex->p;

		if (c == '\n') {
			lex->line++;
			lex->line_start = ++lex->p;
			lex->bol = 1;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			lex->p++;
		} else if (c == '#' || (c == '/' && lex->p[1] == '/')) {
			while (*lex->p && *lex->p != '\n')
				lex->p++;
		} else {
			return;
		}
	}
}

/* A token of kind "kind" spelt by the text from "start" up to lex->p. */
static struct ein_token make(struct ein_lexer *lex, enum ein_tok kind,
	const char *start)
{
	struct ein_token tok;

	memset(&tok, 0, sizeof(tok));
	tok.kind = kind;
	tok.start = start;
	tok.len = lex->p - start;
	tok.loc.src = lex->src;
	tok.loc.line = lex->line;
	tok.loc.col = start - lex->line_start + 1;
	tok.bol = lex->bol;
	lex->bol = 0;
	lex->end = tok.loc;
	lex->end.col += tok.len;
	return tok;
}

static struct ein_token make_error(struct ein_lexer *lex,
	enum ein_lex_error error, const char *start)
{
	struct ein_token tok = make(lex, EIN_TOK_ERROR, start);

	tok.error = error;
	return tok;
}

/* An assignment operator "op" spelt from "start" to "q", followed by the
 * init marker "!" when that comes right after it. */
static struct ein_token lex_assign(struct ein_lexer *lex, const char *start,
	const char *q, enum ein_assign op)
{
	struct ein_token tok;
	int init = *q == '!';

	lex->p = q + init;
	tok = make(lex, EIN_TOK_ASSIGN, start);
	tok.assign = op;
	tok.init = init;
	return tok;
}

static enum ein_tok keyword(const char *s, int len)
{
	size_t i;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); ++i)
		if ((int) strlen(keywords[i].text) == len &&
		    !strncmp(keywords[i].text, s, len))
			return keywords[i].kind;
	return EIN_TOK_IDENT;
}

/* Is the identifier from s to q "max" or "min" right before an "=" that
 * does not start "=="? */
static int is_reduce_assign(const char *s, const char *q)
{
	if (q - s != 3 || q[0] != '=' || q[1] == '=')
		return 0;
	return !strncmp(s, "max", 3) || !strncmp(s, "min", 3);
}

/* IDENT, a keyword, or the operators "max=" and "min=". */
static struct ein_token lex_ident(struct ein_lexer *lex)
{
	const char *s = lex->p, *q = s;

	while (is_ident_char(*q))
		q++;
	if (is_reduce_assign(s, q))
		return lex_assign(lex, s, q + 1,
			s[1] == 'a' ? EIN_ASSIGN_MAX : EIN_ASSIGN_MIN);
	lex->p = q;
	return make(lex, keyword(s, q - s), s);
}

static const char *skip_digits(const char *q)
{
	while (is_digit(*q))
		q++;
	return q;
}

/* Skip EXP at q (at its "e"); clear *ok if it has no digits. */
static const char *skip_exponent(const char *q, int *ok)
{
	q++;
	if (*q == '+' || *q == '-')
		q++;
	if (!is_digit(*q))
		*ok = 0;
	return skip_digits(q);
}

static struct ein_token make_int(struct ein_lexer *lex, const char *start)
{
	struct ein_token tok;
	long long v;

	errno = 0;
	v = strtoll(start, NULL, 10);
	if (errno == ERANGE)
		return make_error(lex, EIN_LEX_INT_RANGE, start);
	tok = make(lex, EIN_TOK_INT, start);
	tok.ival = v;
	return tok;
}

/* The literal is converted by strtod, which reads exactly the characters
 * the lexer took (they are followed by no letter, digit or dot).  Like
 * every C program that reads numbers, this expects the "C" numeric
 * locale. */
static struct ein_token make_float(struct ein_lexer *lex, const char *start)
{
	struct ein_token tok;
	char *end;
	double v;

	errno = 0;
	v = strtod(start, &end);
	if (end != lex->p)
		return make_error(lex, EIN_LEX_BAD_NUMBER, start);
	if (errno == ERANGE && isinf(v))
		return make_error(lex, EIN_LEX_FLOAT_RANGE, start);
	tok = make(lex, EIN_TOK_FLOAT, start);
	tok.fval = v;
	return tok;
}

/* INT or FLOAT, or a malformed number (see the head comment). */
static struct ein_token lex_number(struct ein_lexer *lex)
{
	const char *s = lex->p, *q;
	int is_float = 0, ok = 1;

	q = skip_digits(s);
	if (*q == '.') {
		is_float = 1;
		q = skip_digits(q + 1);
	}
	if (*q == 'e' || *q == 'E') {
		is_float = 1;
		q = skip_exponent(q, &ok);
	}
	if (is_ident_char(*q) || *q == '.') {
		ok = 0;
		while (is_ident_char(*q) || *q == '.')
			q++;
	}
	lex->p = q;
	if (!ok)
		return make_error(lex, EIN_LEX_BAD_NUMBER, s);
	return is_float ? make_float(lex, s) : make_int(lex, s);
}

/* A character that starts no token; a multi-byte UTF-8 character is taken
 * whole, so that it gives one message. */
static struct ein_token lex_bad_char(struct ein_lexer *lex)
{
	const char *s = lex->p++;

	if ((unsigned char) *s >= 0xc0)
		while (((unsigned char) *lex->p & 0xc0) == 0x80)
			lex->p++;
	return make_error(lex, EIN_LEX_BAD_CHAR, s);
}

/* Punctuation or an operator. */
static struct ein_token lex_punct(struct ein_lexer *lex)
{
	const char *s = lex->p;
	size_t i, len;

	for (i = 0; i < sizeof(puncts) / sizeof(puncts[0]); ++i) {
		len = strlen(puncts[i].text);
		if (strncmp(s, puncts[i].text, len))
			continue;
		if (puncts[i].kind == EIN_TOK_ASSIGN)
			return lex_assign(lex, s, s + len, puncts[i].assign);
		lex->p += len;
		return make(lex, puncts[i].kind, s);
	}
	return lex_bad_char(lex);
}

static struct ein_token make_eof(struct ein_lexer *lex)
{
	struct ein_token tok;

	memset(&tok, 0, sizeof(tok));
	tok.kind = EIN_TOK_EOF;
	tok.start = lex->p;
	tok.loc = lex->end;
	tok.bol = 1;
	return tok;
}

struct ein_token ein_lex_next(struct ein_lexer *lex)
{
	char c;

	skip_space(lex);
	c = *lex->p;
	if (!c)
		return make_eof(lex);
	if (isalpha((unsigned char) c) || c == '_')
		return lex_ident(lex);
	if (is_digit(c) || (c == '.' && is_digit(lex->p[1])))
		return lex_number(lex);
	return lex_punct(lex);
}

/* The hint for a character that starts no token, or NULL. */
static const char *bad_char_hint(char c)
{
	switch (c) {
	case '&': return "did you mean '&&'?";
	case '|': return "did you mean '||'?";
	case '[': return "tensors are indexed with parentheses, as in A(i, j)";
	default: return NULL;
	}
}

static void report_bad_char(ein_ctx *ctx, const struct ein_token *tok)
{
	unsigned char c = *tok->start;
	const char *hint = bad_char_hint(c);

	if (c >= 0x80)
		ein_error_at(ctx, tok->loc, "unexpected non-ASCII character "
			"'%.*s'", tok->len, tok->start);
	else if (isprint(c))
		ein_error_at(ctx, tok->loc, "unexpected character '%c'", c);
	else
		ein_error_at(ctx, tok->loc, "unexpected character '\\x%02x'",
			c);
	if (hint)
		ein_hint(ctx, "%s", hint);
}

/* Does the malformed number "tok" end in an exponent without digits, as
 * "1e" or "2.5e+"? */
static int lacks_exponent_digits(const struct ein_token *tok)
{
	const char *q = skip_digits(tok->start);

	if (*q == '.')
		q = skip_digits(q + 1);
	if (*q != 'e' && *q != 'E')
		return 0;
	q++;
	if (*q == '+' || *q == '-')
		q++;
	return q == tok->start + tok->len;
}

/* Does "tok" contain "..", as in "0..N", a range written as in other
 * languages? */
static int has_double_dot(const struct ein_token *tok)
{
	int i;

	for (i = 0; i + 1 < tok->len; ++i)
		if (tok->start[i] == '.' && tok->start[i + 1] == '.')
			return 1;
	return 0;
}

static void report_bad_number(ein_ctx *ctx, const struct ein_token *tok)
{
	ein_error_at(ctx, tok->loc, "malformed number '%.*s'", tok->len,
		tok->start);
	if (lacks_exponent_digits(tok))
		ein_hint(ctx, "an exponent needs digits, as in 1e-5");
	else if (has_double_dot(tok))
		ein_hint(ctx, "a range is written lo:hi, as in 0:N");
	else if (isalpha((unsigned char) *skip_digits(tok->start)))
		ein_hint(ctx, "a product is written with '*', as in 2 * i");
}

void ein_lex_report(ein_ctx *ctx, const struct ein_token *tok)
{
	switch (tok->error) {
	case EIN_LEX_BAD_CHAR:
		report_bad_char(ctx, tok);
		break;
	case EIN_LEX_BAD_NUMBER:
		report_bad_number(ctx, tok);
		break;
	case EIN_LEX_INT_RANGE:
		ein_error_at(ctx, tok->loc, "integer literal '%.*s' is too "
			"large", tok->len, tok->start);
		break;
	case EIN_LEX_FLOAT_RANGE:
		ein_error_at(ctx, tok->loc, "floating-point literal '%.*s' is "
			"too large", tok->len, tok->start);
		break;
	case EIN_LEX_OK:
		break;
	}
}
