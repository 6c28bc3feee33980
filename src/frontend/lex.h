/*
 * lex.h: the lexer of .ein files.
 *
 * The lexer turns the text of an ein_src into tokens, one at a time, on
 * demand of the parser.  It reports nothing itself: a malformed token comes
 * back as EIN_TOK_ERROR with the reason in its "error" field, and the
 * parser reports it through ein_lex_report when it reaches that token, so
 * that messages come out in source order.
 *
 * Newlines are whitespace, but each token records whether it is the first
 * on its line ("bol"): the parser uses this to find where a statement ends.
 * Comments run from "#" or "//" to the end of the line.
 *
 * Assignment operators are single tokens (EIN_TOK_ASSIGN): "=", "+=", "*=",
 * "max=" and "min=" (the identifier max or min immediately followed by "="
 * but not by "==", so "max(a, b)" and "max == x" stay an identifier).  A "!"
 * glued to the operator, without whitespace in between, is the init marker:
 * "+=!", "max=!", and also "=!".  Thus "C(i) =!x" is an init assignment of
 * x, while "C(i) = !x" assigns the negation of x.
 */
#ifndef EIN_FRONTEND_LEX_H
#define EIN_FRONTEND_LEX_H

#include <stdint.h>
#include "ein.h"
#include "diag.h"
#include "frontend/ast.h"

enum ein_tok {
	EIN_TOK_EOF,
	EIN_TOK_ERROR,		/* a malformed token, see enum ein_lex_error */
	EIN_TOK_IDENT,
	EIN_TOK_INT,
	EIN_TOK_FLOAT,
	/* keywords */
	EIN_TOK_DEF, EIN_TOK_WHERE, EIN_TOK_IN,
	/* punctuation */
	EIN_TOK_LPAREN, EIN_TOK_RPAREN, EIN_TOK_COMMA, EIN_TOK_LBRACE,
	EIN_TOK_RBRACE, EIN_TOK_ARROW, EIN_TOK_COLON, EIN_TOK_QUESTION,
	EIN_TOK_SEMI,
	/* operators */
	EIN_TOK_PLUS, EIN_TOK_MINUS, EIN_TOK_STAR, EIN_TOK_SLASH,
	EIN_TOK_PERCENT, EIN_TOK_LT, EIN_TOK_LE, EIN_TOK_GT, EIN_TOK_GE,
	EIN_TOK_EQ, EIN_TOK_NE, EIN_TOK_AND, EIN_TOK_OR, EIN_TOK_NOT,
	/* =, +=, *=, max=, min= and their ! forms: see assign and init */
	EIN_TOK_ASSIGN
};

/* Why a token is EIN_TOK_ERROR. */
enum ein_lex_error {
	EIN_LEX_OK = 0,
	EIN_LEX_BAD_CHAR,	/* a character that starts no token */
	EIN_LEX_BAD_NUMBER,	/* "1e", "1.5x", "12abc" */
	EIN_LEX_INT_RANGE,	/* an integer literal beyond int64_t */
	EIN_LEX_FLOAT_RANGE	/* a floating literal beyond double */
};

/* A token.
 * kind: what it is;
 * loc: the position of its first character;
 * start, len: its text in the source (for EIN_TOK_EOF, the end of the text
 *	and 0);
 * bol: set when it is the first token on its line;
 * ival, fval: the value of an EIN_TOK_INT or EIN_TOK_FLOAT;
 * assign, init: the operator of an EIN_TOK_ASSIGN and its "!";
 * error: why an EIN_TOK_ERROR is malformed. */
struct ein_token {
	enum ein_tok kind;
	struct ein_loc loc;
	const char *start;
	int len;
	int bol;
	int64_t ival;
	double fval;
	enum ein_assign assign;
	int init;
	enum ein_lex_error error;
};

/* The state of the lexer over one source.
 * src: the source (kept, not owned);
 * p: the next character to read;
 * line, line_start: the current line number and where it starts;
 * bol: no token has been returned yet on the current line;
 * end: the position just after the last token, where EIN_TOK_EOF is
 *	placed so that "unexpected end of file" points at real text. */
struct ein_lexer {
	const struct ein_src *src;
	const char *p;
	int line;
	const char *line_start;
	int bol;
	struct ein_loc end;
};

/* Start lexing __isl_keep src, which must outlive the lexer. */
void ein_lex_init(struct ein_lexer *lex, const struct ein_src *src);
/* The next token; EIN_TOK_EOF again and again at the end. */
struct ein_token ein_lex_next(struct ein_lexer *lex);
/* Report the malformed token "tok" (an EIN_TOK_ERROR) on ctx. */
void ein_lex_report(ein_ctx *ctx, const struct ein_token *tok);

#endif
