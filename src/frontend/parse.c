/*
 * parse.c: the recursive-descent parser of .ein files.
 *
 * Grammar (EBNF; the tokens are those of lex.h):
 *
 *   file      = { def } ;
 *   def       = "def" IDENT "(" params ")" "->" "(" params ")" body ;
 *   params    = [ param { "," param } ] ;
 *   param     = TYPE [ shape ] IDENT | IDENT ;
 *   shape     = "(" [ dim { "," dim } ] ")" ;
 *   dim       = binary(5) ;  (sema: sizes and integers, +, -, * and /
 *                             or % by a constant; in inputs, a size or
 *                             an integer only)
 *   body      = "{" { decl | stmt } "}" ;
 *   decl      = TYPE [ shape ] IDENT [ ";" ] ;  (a typed temporary)
 *   stmt      = access ASSIGN expr { "where" range { "," range } } [ ";" ] ;
 *   range     = IDENT "in" expr ":" expr ;
 *   access    = IDENT "(" [ expr { "," expr } ] ")" ;
 *   expr      = binary(1) [ "?" expr ":" expr ] ;
 *   binary(n) = binary(n + 1) { OP(n) binary(n + 1) } ;  (n = 1 .. 6)
 *   binary(7) = unary ;
 *   unary     = ( "-" | "!" ) unary | primary ;
 *   primary   = INT | FLOAT | IDENT [ "(" [ expr { "," expr } ] ")" ]
 *             | "(" expr ")" ;
 *   TYPE      = "float32" | "float" | "float64" | "int32" | "int8"
 *             | "uint8" | "bool" ;
 *
 * with the binary operators of C, loosest first: OP(1) = "||",
 * OP(2) = "&&", OP(3) = "==" | "!=", OP(4) = "<" | "<=" | ">" | ">=",
 * OP(5) = "+" | "-", OP(6) = "*" | "/" | "%"; all are left associative,
 * and "?:" is right associative.
 *
 * A param without a type or shape ("C") declares an output whose type and
 * shape are inferred; for an input, sema reports that it needs both.  A
 * decl in a body gives a temporary's type and shape, as a typed output's
 * (a statement never starts with a type, which names no tensor).  In a
 * primary, "name(...)" is a cast when name is a TYPE, a call when it is a
 * builtin function, and a tensor access otherwise; sema checks that the
 * tensor exists.
 *
 * Where a statement ends: every statement starts with an identifier, and
 * no expression continues with one, so statements need no separator.  The
 * parser still requires the next statement to start on a new line or after
 * a ";", so that "C(i) = A(i) B(i)" is reported as a missing operator.  A
 * line that starts with an operator continues the expression of the line
 * before.
 *
 * Errors: the parser reports the first error of a statement at the token
 * that shows it, skips to the start of the next statement (see skip_stmt)
 * and goes on, so that one run reports every broken statement.  An error in
 * the header of a definition skips to its body.  A second error at the
 * position of the last one is dropped, which keeps a malformed token from
 * being reported twice, by the lexer and by the parser.
 *
 * Depth: the parser recurses on nested expressions, and so do the passes
 * after it on the trees it builds.  Both are bounded, so that no input can
 * exhaust the stack: nesting (of parentheses, calls, accesses, unary
 * operators and conditionals) deeper than MAX_NESTING, or a tree higher
 * than EIN_AST_MAX_HEIGHT (a chain of a thousand binary operators), is
 * reported as "expression nested too deeply".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "frontend/lex.h"
#include "frontend/parse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The state of the parser.
 * ctx: where errors go;
 * lex: the lexer;
 * tok: the current token; ahead, has_ahead: the token after it, when the
 *	parser has looked at it already;
 * n_error: the number of errors reported (by the lexer or the parser);
 * err_loc: the position of the last error;
 * eof_reported: an error at the end of the file has been reported;
 * nomem: out of memory has been reported;
 * stmt_loc: the position of the first token of the current statement;
 * depth: the number of expressions being parsed, one inside the other. */
struct parser {
	ein_ctx *ctx;
	struct ein_lexer lex;
	struct ein_token tok;
	struct ein_token ahead;
	int has_ahead;
	int n_error;
	struct ein_loc err_loc;
	int eof_reported;
	int nomem;
	struct ein_loc stmt_loc;
	int depth;
};

static const struct {
	const char *name;
	enum ein_type type;
} type_names[] = {
	{ "float32", EIN_TYPE_F32 },
	{ "float", EIN_TYPE_F32 },
	{ "float64", EIN_TYPE_F64 },
	{ "int32", EIN_TYPE_I32 },
	{ "int8", EIN_TYPE_I8 },
	{ "uint8", EIN_TYPE_U8 },
	{ "bool", EIN_TYPE_BOOL },
};

/* Names of other languages' types, for hints. */
static const struct {
	const char *name;
	const char *ein;
} type_aliases[] = {
	{ "double", "float64" },
	{ "int", "int32" },
	{ "char", "int8" },
};

#define MAX_PREC 6

/* The deepest nesting of expressions the parser accepts (that of
 * parentheses in clang). */
#define MAX_NESTING 256

/* The binary operators and their precedence (see the grammar above).  The
 * printer in ast.c must agree. */
static const struct {
	enum ein_tok tok;
	enum ein_op op;
	int prec;
} binops[] = {
	{ EIN_TOK_OR, EIN_OP_OR, 1 },
	{ EIN_TOK_AND, EIN_OP_AND, 2 },
	{ EIN_TOK_EQ, EIN_OP_EQ, 3 }, { EIN_TOK_NE, EIN_OP_NE, 3 },
	{ EIN_TOK_LT, EIN_OP_LT, 4 }, { EIN_TOK_LE, EIN_OP_LE, 4 },
	{ EIN_TOK_GT, EIN_OP_GT, 4 }, { EIN_TOK_GE, EIN_OP_GE, 4 },
	{ EIN_TOK_PLUS, EIN_OP_ADD, 5 }, { EIN_TOK_MINUS, EIN_OP_SUB, 5 },
	{ EIN_TOK_STAR, EIN_OP_MUL, 6 }, { EIN_TOK_SLASH, EIN_OP_DIV, 6 },
	{ EIN_TOK_PERCENT, EIN_OP_MOD, 6 },
};

/* The precedence of "+" and "-": an extent in a shape is a sum. */
#define ADD_PREC	5

/* ---- tokens ----------------------------------------------------------- */

/* Move to the next token, and report it if it is malformed. */
static void next(struct parser *p)
{
	if (p->has_ahead) {
		p->tok = p->ahead;
		p->has_ahead = 0;
	} else {
		p->tok = ein_lex_next(&p->lex);
	}
	if (p->tok.kind != EIN_TOK_ERROR)
		return;
	ein_lex_report(p->ctx, &p->tok);
	p->n_error++;
	p->err_loc = p->tok.loc;
}

/* The token after the current one. */
static const struct ein_token *peek(struct parser *p)
{
	if (!p->has_ahead) {
		p->ahead = ein_lex_next(&p->lex);
		p->has_ahead = 1;
	}
	return &p->ahead;
}

/* Skip the current token if it is of kind "kind". */
static int accept(struct parser *p, enum ein_tok kind)
{
	if (p->tok.kind != kind)
		return 0;
	next(p);
	return 1;
}

/* Does "b" follow "a" without whitespace in between? */
static int glued(const struct ein_token *a, const struct ein_token *b)
{
	return a->start + a->len == b->start;
}

/* Is "tok" the identifier "name"? */
static int tok_is(const struct ein_token *tok, const char *name)
{
	return tok->kind == EIN_TOK_IDENT && (int) strlen(name) == tok->len &&
		!strncmp(tok->start, name, tok->len);
}

/* The type that "tok" names, EIN_TYPE_NONE if none. */
static enum ein_type tok_type(const struct ein_token *tok)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(type_names); ++i)
		if (tok_is(tok, type_names[i].name))
			return type_names[i].type;
	return EIN_TYPE_NONE;
}

/* The builtin function "tok" names (frontend/builtin.h), if any. */
static enum ein_builtin tok_builtin(const struct ein_token *tok)
{
	if (tok->kind != EIN_TOK_IDENT)
		return EIN_BUILTIN_NONE;
	return ein_builtin_find(tok->start, tok->len);
}

/* The precedence of the binary operator "kind" (and the operator in *op),
 * or 0 if "kind" is no binary operator. */
static int binop_prec(enum ein_tok kind, enum ein_op *op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(binops); ++i)
		if (binops[i].tok == kind) {
			*op = binops[i].op;
			return binops[i].prec;
		}
	return 0;
}

/* ---- errors ----------------------------------------------------------- */

static void nomem(struct parser *p)
{
	if (!p->nomem)
		ein_error(p->ctx, EIN_ERROR_NOMEM, "out of memory");
	p->nomem = 1;
	p->n_error++;
}

static int same_loc(struct ein_loc a, struct ein_loc b)
{
	return a.line == b.line && a.col == b.col;
}

/* "fmt" formatted into a new string, or NULL when out of memory. */
static char *vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	char *s;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	s = n < 0 ? NULL : malloc(n + 1);
	if (s)
		vsnprintf(s, n + 1, fmt, ap);
	return s;
}

/* Report an error at "loc", with "unexpected end of file: " before the
 * message when "at_eof" is set, unless an error was reported at the same
 * place already.  Returns 1 if reported (so that a hint may follow). */
static int verror_at(struct parser *p, struct ein_loc loc, int at_eof,
	const char *fmt, va_list ap)
{
	char *msg;

	if (p->n_error > 0 && same_loc(loc, p->err_loc))
		return 0;
	if (at_eof && p->eof_reported)
		return 0;
	msg = vformat(fmt, ap);
	ein_error_at(p->ctx, loc, "%s%s", at_eof ?
		"unexpected end of file: " : "", msg ? msg : fmt);
	free(msg);
	p->n_error++;
	p->err_loc = loc;
	p->eof_reported |= at_eof;
	return 1;
}

/* Report an error at the current token. */
__attribute__((format(printf, 2, 3)))
static int error_here(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror_at(p, p->tok.loc, p->tok.kind == EIN_TOK_EOF, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 3, 4)))
static int error_at(struct parser *p, struct ein_loc loc, const char *fmt,
	...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror_at(p, loc, 0, fmt, ap);
	va_end(ap);
	return r;
}

/* Skip a token of kind "kind", or report the error "fmt". */
__attribute__((format(printf, 3, 4)))
static int expect(struct parser *p, enum ein_tok kind, const char *fmt, ...)
{
	va_list ap;

	if (accept(p, kind))
		return 0;
	va_start(ap, fmt);
	verror_at(p, p->tok.loc, p->tok.kind == EIN_TOK_EOF, fmt, ap);
	va_end(ap);
	return -1;
}

/* A copy of the text of "tok". */
static char *tok_strdup(struct parser *p, const struct ein_token *tok)
{
	char *s = malloc(tok->len + 1);

	if (!s) {
		nomem(p);
		return NULL;
	}
	memcpy(s, tok->start, tok->len);
	s[tok->len] = '\0';
	return s;
}

/* ---- expressions ------------------------------------------------------ */

static struct ein_ast_expr *parse_expr(struct parser *p);

static struct ein_ast_expr *expr_alloc(struct parser *p,
	enum ein_expr_kind kind, struct ein_loc loc)
{
	struct ein_ast_expr *expr = ein_ast_expr_alloc(kind, loc);

	if (!expr)
		nomem(p);
	return expr;
}

/* Report an expression nested deeper than the parser or the passes after
 * it can go, at "loc". */
static void too_deep(struct parser *p, struct ein_loc loc, int limit,
	const char *what)
{
	if (error_at(p, loc, "expression nested too deeply"))
		ein_hint(p->ctx, "the limit is %d %s; compute parts of it "
			"into temporaries", limit, what);
}

/* Append __isl_take arg to __isl_take expr; on failure free both.
 * The tree may grow no higher than EIN_AST_MAX_HEIGHT. */
static struct ein_ast_expr *add_arg(struct parser *p,
	struct ein_ast_expr *expr, struct ein_ast_expr *arg)
{
	if (expr && arg && arg->height >= EIN_AST_MAX_HEIGHT) {
		too_deep(p, arg->loc, EIN_AST_MAX_HEIGHT, "levels of "
			"operations");
		ein_ast_expr_free(arg);
		arg = NULL;
	}
	if (!expr || !arg) {
		ein_ast_expr_free(expr);
		ein_ast_expr_free(arg);
		return NULL;
	}
	if (ein_ast_expr_add_arg(expr, arg) < 0) {
		nomem(p);
		ein_ast_expr_free(expr);
		return NULL;
	}
	return expr;
}

/* A node of kind "kind" named by the token "name". */
static struct ein_ast_expr *name_expr(struct parser *p,
	const struct ein_token *name, enum ein_expr_kind kind)
{
	struct ein_ast_expr *expr = expr_alloc(p, kind, name->loc);

	if (!expr)
		return NULL;
	expr->name = tok_strdup(p, name);
	if (!expr->name)
		return (ein_ast_expr_free(expr), NULL);
	return expr;
}

/* args = "(" [ expr { "," expr } ] ")" ;
 * the arguments of __isl_take expr, whose name is "name"; "what" names
 * them in messages. */
static struct ein_ast_expr *parse_args(struct parser *p,
	struct ein_ast_expr *expr, const struct ein_token *name,
	const char *what)
{
	struct ein_ast_expr *arg;

	next(p);
	if (accept(p, EIN_TOK_RPAREN))
		return expr;
	for (;;) {
		arg = parse_expr(p);
		if (!arg)
			return (ein_ast_expr_free(expr), NULL);
		expr = add_arg(p, expr, arg);
		if (!expr || accept(p, EIN_TOK_RPAREN))
			return expr;
		if (!accept(p, EIN_TOK_COMMA))
			break;
	}
	error_here(p, "expected ')' after the %s of '%.*s'", what, name->len,
		name->start);
	ein_ast_expr_free(expr);
	return NULL;
}

/* cast = TYPE "(" expr ")" ; */
static struct ein_ast_expr *parse_cast(struct parser *p,
	const struct ein_token *name)
{
	struct ein_ast_expr *cast = expr_alloc(p, EIN_EXPR_CAST, name->loc);

	if (cast)
		cast->type = tok_type(name);
	cast = parse_args(p, cast, name, "argument");
	if (!cast || cast->n_arg == 1)
		return cast;
	error_at(p, name->loc, "a conversion to %s takes one argument, not %d",
		ein_type_name(cast->type), cast->n_arg);
	ein_ast_expr_free(cast);
	return NULL;
}

/* IDENT [ "(" [ expr { "," expr } ] ")" ] ;
 * an index or size, a cast, a call of a builtin or a tensor access. */
static struct ein_ast_expr *parse_name(struct parser *p)
{
	struct ein_token name = p->tok;
	struct ein_ast_expr *expr;
	enum ein_builtin fn;

	next(p);
	if (p->tok.kind != EIN_TOK_LPAREN)
		return name_expr(p, &name, EIN_EXPR_IDENT);
	if (tok_type(&name) != EIN_TYPE_NONE)
		return parse_cast(p, &name);
	fn = tok_builtin(&name);
	expr = name_expr(p, &name, fn ? EIN_EXPR_CALL : EIN_EXPR_ACCESS);
	if (expr)
		expr->fn = fn;
	return parse_args(p, expr, &name, fn ? "arguments" : "indices");
}

/* INT | FLOAT */
static struct ein_ast_expr *parse_literal(struct parser *p)
{
	int is_int = p->tok.kind == EIN_TOK_INT;
	struct ein_ast_expr *lit;

	lit = expr_alloc(p, is_int ? EIN_EXPR_INT : EIN_EXPR_FLOAT, p->tok.loc);
	if (lit) {
		lit->ival = p->tok.ival;
		lit->fval = p->tok.fval;
	}
	next(p);
	return lit;
}

/* "(" expr ")" */
static struct ein_ast_expr *parse_paren(struct parser *p)
{
	struct ein_loc open = p->tok.loc;
	struct ein_ast_expr *expr;

	next(p);
	expr = parse_expr(p);
	if (!expr || accept(p, EIN_TOK_RPAREN))
		return expr;
	error_here(p, "expected ')' to close the '(' at %d:%d", open.line,
		open.col);
	ein_ast_expr_free(expr);
	return NULL;
}

/* primary = INT | FLOAT | IDENT [ "(" [ expr { "," expr } ] ")" ]
 *         | "(" expr ")" ; */
static struct ein_ast_expr *parse_primary(struct parser *p)
{
	switch (p->tok.kind) {
	case EIN_TOK_INT:
	case EIN_TOK_FLOAT:
		return parse_literal(p);
	case EIN_TOK_IDENT:
		return parse_name(p);
	case EIN_TOK_LPAREN:
		return parse_paren(p);
	default:
		error_here(p, "expected an expression");
		return NULL;
	}
}

/* Enter one more level of nested expressions; report an error and
 * return -1 if that is one too many.  Each successful call is paired
 * with a decrement of p->depth. */
static int enter(struct parser *p)
{
	if (p->depth >= MAX_NESTING) {
		too_deep(p, p->tok.loc, MAX_NESTING, "nested parentheses, "
			"calls, unary operators or conditionals");
		return -1;
	}
	p->depth++;
	return 0;
}

static struct ein_ast_expr *parse_unary(struct parser *p);

/* ( "-" | "!" ) unary ;  one more level of nesting. */
static struct ein_ast_expr *parse_unary_op(struct parser *p)
{
	struct ein_ast_expr *un;

	if (enter(p) < 0)
		return NULL;
	un = expr_alloc(p, EIN_EXPR_UNARY, p->tok.loc);
	if (un)
		un->op = p->tok.kind == EIN_TOK_MINUS ? EIN_OP_NEG : EIN_OP_NOT;
	next(p);
	un = add_arg(p, un, parse_unary(p));
	p->depth--;
	return un;
}

/* unary = ( "-" | "!" ) unary | primary ; */
static struct ein_ast_expr *parse_unary(struct parser *p)
{
	if (p->tok.kind == EIN_TOK_MINUS || p->tok.kind == EIN_TOK_NOT)
		return parse_unary_op(p);
	return parse_primary(p);
}

/* binary(n) = binary(n + 1) { OP(n) binary(n + 1) } ;
 * binary(7) = unary ; */
static struct ein_ast_expr *parse_binary(struct parser *p, int prec)
{
	struct ein_ast_expr *left, *right, *bin;
	enum ein_op op = EIN_OP_NONE;

	if (prec > MAX_PREC)
		return parse_unary(p);
	left = parse_binary(p, prec + 1);
	while (left && binop_prec(p->tok.kind, &op) == prec) {
		struct ein_loc op_loc = p->tok.loc;

		next(p);
		right = parse_binary(p, prec + 1);
		if (!right)
			return (ein_ast_expr_free(left), NULL);
		bin = expr_alloc(p, EIN_EXPR_BINARY, left->loc);
		if (bin) {
			bin->op = op;
			bin->op_loc = op_loc;
		}
		left = add_arg(p, add_arg(p, bin, left), right);
	}
	return left;
}

/* expr = binary(1) [ "?" expr ":" expr ] ; */
static struct ein_ast_expr *parse_cond(struct parser *p)
{
	struct ein_ast_expr *cond, *a, *b = NULL, *sel;

	cond = parse_binary(p, 1);
	if (!cond || !accept(p, EIN_TOK_QUESTION))
		return cond;
	a = parse_expr(p);
	if (a && !accept(p, EIN_TOK_COLON)) {
		error_here(p, "expected ':' in the conditional expression");
		ein_ast_expr_free(a);
		a = NULL;
	}
	if (a)
		b = parse_expr(p);
	if (!b) {
		ein_ast_expr_free(cond);
		ein_ast_expr_free(a);
		return NULL;
	}
	sel = expr_alloc(p, EIN_EXPR_SELECT, cond->loc);
	return add_arg(p, add_arg(p, add_arg(p, sel, cond), a), b);
}

/* expr, nested in the one being parsed (if any). */
static struct ein_ast_expr *parse_expr(struct parser *p)
{
	struct ein_ast_expr *expr;

	if (enter(p) < 0)
		return NULL;
	expr = parse_cond(p);
	p->depth--;
	return expr;
}

/* ---- statements ------------------------------------------------------- */

/* access = IDENT "(" [ expr { "," expr } ] ")" ;  (a left-hand side) */
static struct ein_ast_expr *parse_lhs(struct parser *p)
{
	struct ein_token name = p->tok;

	if (name.kind != EIN_TOK_IDENT) {
		error_here(p, "expected a statement, such as C(i) = A(i)");
		return NULL;
	}
	next(p);
	if (p->tok.kind != EIN_TOK_LPAREN) {
		if (error_here(p, "expected '(' after '%.*s' on the left-hand "
				"side", name.len, name.start))
			ein_hint(p->ctx, "the left-hand side is a tensor "
				"access, such as %.*s(i, j), or %.*s() for a "
				"scalar", name.len, name.start, name.len,
				name.start);
		return NULL;
	}
	return parse_args(p, name_expr(p, &name, EIN_EXPR_ACCESS), &name,
		"indices");
}

/* "+", "*", "max" or "min" when "tok" is one of them, else NULL. */
static const char *assign_stem(const struct ein_token *tok)
{
	if (tok->kind == EIN_TOK_PLUS)
		return "+";
	if (tok->kind == EIN_TOK_STAR)
		return "*";
	if (tok_is(tok, "max"))
		return "max";
	if (tok_is(tok, "min"))
		return "min";
	return NULL;
}

/* Explain a missing assignment operator when the current token and the
 * next one look like a misspelt one. */
static void hint_assign(struct parser *p)
{
	const struct ein_token *tok = &p->tok, *ahead = peek(p);
	const char *stem = assign_stem(tok);

	if (stem && ahead->kind == EIN_TOK_NE && glued(tok, ahead))
		ein_hint(p->ctx, "did you mean '%s=!'?", stem);
	else if (stem && ahead->kind == EIN_TOK_ASSIGN)
		ein_hint(p->ctx, "write '%s=' without a space", stem);
	else if ((tok->kind == EIN_TOK_MINUS || tok->kind == EIN_TOK_SLASH ||
		  tok->kind == EIN_TOK_PERCENT) &&
		 ahead->kind == EIN_TOK_ASSIGN && glued(tok, ahead))
		ein_hint(p->ctx, "there is no '%c='; the assignment operators "
			"are =, +=, *=, max= and min=", *tok->start);
	else if (tok->kind == EIN_TOK_EQ)
		ein_hint(p->ctx, "'==' compares; assignment is written '='");
}

/* ASSIGN = ( "=" | "+=" | "*=" | "max=" | "min=" ) [ "!" ] ;
 * "=+" and "=*" are reported as the swapped "+=" and "*=". */
static int parse_assign_op(struct parser *p, struct ein_ast_stmt *stmt)
{
	struct ein_token op = p->tok;
	char c;

	if (op.kind != EIN_TOK_ASSIGN) {
		if (error_here(p, "expected an assignment operator (=, +=, *=, "
				"max=, min=, or their ! forms)"))
			hint_assign(p);
		return -1;
	}
	stmt->op = op.assign;
	stmt->init = op.init;
	stmt->op_loc = op.loc;
	next(p);
	if (op.len != 1 || (p->tok.kind != EIN_TOK_PLUS &&
			    p->tok.kind != EIN_TOK_STAR) || !glued(&op, &p->tok))
		return 0;
	c = *p->tok.start;
	if (error_at(p, op.loc, "unknown assignment operator '=%c'", c))
		ein_hint(p->ctx, "did you mean '%c=' or '%c=!'?", c, c);
	return -1;
}

/* "in" expr ":" expr ;  the bounds of where clause "w". */
static int parse_bounds(struct parser *p, struct ein_ast_where *w)
{
	if (expect(p, EIN_TOK_IN, "expected 'in' after '%s' in the 'where' "
			"clause", w->name) < 0)
		return -1;
	w->lo = parse_expr(p);
	if (!w->lo)
		return -1;
	if (expect(p, EIN_TOK_COLON, "expected ':' between the bounds of "
			"'%s'", w->name) < 0)
		return -1;
	w->hi = parse_expr(p);
	return w->hi ? 0 : -1;
}

/* range = IDENT "in" expr ":" expr ; */
static struct ein_ast_where *parse_range(struct parser *p)
{
	struct ein_ast_where *w;

	if (p->tok.kind != EIN_TOK_IDENT) {
		error_here(p, "expected an index name in the 'where' clause");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return (nomem(p), NULL);
	w->loc = p->tok.loc;
	w->name = tok_strdup(p, &p->tok);
	next(p);
	if (!w->name || parse_bounds(p, w) < 0)
		return (ein_ast_where_free(w), NULL);
	return w;
}

/* Append __isl_take w to stmt's where clauses. */
static int add_where(struct parser *p, struct ein_ast_stmt *stmt,
	struct ein_ast_where *w)
{
	struct ein_ast_where **where;

	if (!w)
		return -1;
	where = realloc(stmt->where, (stmt->n_where + 1) * sizeof(*where));
	if (!where) {
		ein_ast_where_free(w);
		nomem(p);
		return -1;
	}
	stmt->where = where;
	stmt->where[stmt->n_where++] = w;
	return 0;
}

/* { "where" range { "," range } } */
static int parse_wheres(struct parser *p, struct ein_ast_stmt *stmt)
{
	while (accept(p, EIN_TOK_WHERE)) {
		do {
			if (add_where(p, stmt, parse_range(p)) < 0)
				return -1;
		} while (accept(p, EIN_TOK_COMMA));
	}
	return 0;
}

/* The end of a statement: ";", the end of the line, or a "}" or the end of
 * the file that the caller deals with. */
static int parse_stmt_end(struct parser *p)
{
	if (accept(p, EIN_TOK_SEMI) || p->tok.bol ||
	    p->tok.kind == EIN_TOK_RBRACE || p->tok.kind == EIN_TOK_EOF)
		return 0;
	error_here(p, "expected an operator or the end of the statement "
		"before '%.*s'", p->tok.len, p->tok.start);
	return -1;
}

/* stmt = access ASSIGN expr { "where" range { "," range } } [ ";" ] ; */
static struct ein_ast_stmt *parse_stmt(struct parser *p)
{
	struct ein_ast_stmt *stmt = calloc(1, sizeof(*stmt));

	if (!stmt)
		return (nomem(p), NULL);
	stmt->loc = p->tok.loc;
	stmt->lhs = parse_lhs(p);
	if (stmt->lhs && parse_assign_op(p, stmt) >= 0)
		stmt->rhs = parse_expr(p);
	if (!stmt->rhs || parse_wheres(p, stmt) < 0 || parse_stmt_end(p) < 0)
		return (ein_ast_stmt_free(stmt), NULL);
	return stmt;
}

/* Skip the rest of a statement with an error: up to the next line that
 * starts with a name (a line that starts with an operator continues the
 * expression), past a ";", or up to "}", "def" or the end of the file. */
static void skip_stmt(struct parser *p)
{
	for (;;) {
		enum ein_tok kind = p->tok.kind;

		if (kind == EIN_TOK_EOF || kind == EIN_TOK_RBRACE ||
		    kind == EIN_TOK_DEF)
			return;
		if (kind == EIN_TOK_IDENT && p->tok.bol &&
		    !same_loc(p->tok.loc, p->stmt_loc))
			return;
		next(p);
		if (kind == EIN_TOK_SEMI)
			return;
	}
}

/* ---- definitions ------------------------------------------------------ */

static const char *def_name(const struct ein_ast_def *def)
{
	return def->name ? def->name : "?";
}

/* Append __isl_take stmt to def's statements. */
static void add_stmt(struct parser *p, struct ein_ast_def *def,
	struct ein_ast_stmt *stmt)
{
	struct ein_ast_stmt **stmts;

	stmts = realloc(def->stmts, (def->n_stmt + 1) * sizeof(*stmts));
	if (!stmts) {
		ein_ast_stmt_free(stmt);
		nomem(p);
		return;
	}
	def->stmts = stmts;
	def->stmts[def->n_stmt++] = stmt;
}

/* Append __isl_take expr to param's dimensions. */
static int add_dim(struct parser *p, struct ein_ast_param *param,
	struct ein_ast_expr *expr)
{
	struct ein_ast_expr **dims;

	if (!expr)
		return -1;
	dims = realloc(param->dims, (param->n_dim + 1) * sizeof(*dims));
	if (!dims) {
		ein_ast_expr_free(expr);
		nomem(p);
		return -1;
	}
	param->dims = dims;
	param->dims[param->n_dim++] = expr;
	return 0;
}

/* dim = binary(5) ;  an extent: a size symbol, an integer or, in an
 * output's shape, an affine expression of them such as (H + 1) / 2,
 * which sema checks. */
static struct ein_ast_expr *parse_dim(struct parser *p)
{
	struct ein_ast_expr *dim;

	if (p->tok.kind != EIN_TOK_INT && p->tok.kind != EIN_TOK_IDENT &&
	    p->tok.kind != EIN_TOK_LPAREN && p->tok.kind != EIN_TOK_MINUS) {
		error_here(p, "expected a size symbol or an integer as the "
			"extent of a dimension");
		return NULL;
	}
	if (enter(p) < 0)
		return NULL;
	dim = parse_binary(p, ADD_PREC);
	p->depth--;
	return dim;
}

/* shape = "(" [ dim { "," dim } ] ")" ; */
static int parse_shape(struct parser *p, struct ein_ast_param *param)
{
	next(p);
	param->n_dim = 0;
	if (accept(p, EIN_TOK_RPAREN))
		return 0;
	for (;;) {
		if (add_dim(p, param, parse_dim(p)) < 0)
			return -1;
		if (accept(p, EIN_TOK_RPAREN))
			return 0;
		if (expect(p, EIN_TOK_COMMA, "expected ',' or ')' in the "
				"shape") < 0)
			return -1;
	}
}

/* The type that the identifier "tok" probably means, or NULL. */
static const char *guess_type(const struct ein_token *tok)
{
	size_t i;

	if (tok->kind != EIN_TOK_IDENT)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(type_aliases); ++i)
		if (tok_is(tok, type_aliases[i].name))
			return type_aliases[i].ein;
	for (i = 0; i < ARRAY_SIZE(type_names); ++i) {
		int d = ein_diag_edit_distance(tok->start, tok->len,
			type_names[i].name);

		if (d <= 2 && d < tok->len)
			return type_names[i].name;
	}
	return NULL;
}

static struct ein_ast_param *param_alloc(struct parser *p,
	enum ein_type type)
{
	struct ein_ast_param *param = calloc(1, sizeof(*param));

	if (!param)
		return (nomem(p), NULL);
	param->type = type;
	param->n_dim = type == EIN_TYPE_NONE ? -1 : 0;
	return param;
}

/* The name of "param" at the current token. */
static int parse_param_name(struct parser *p, struct ein_ast_param *param)
{
	if (p->tok.kind != EIN_TOK_IDENT) {
		error_here(p, "expected the name of the parameter after its "
			"type");
		return -1;
	}
	param->loc = p->tok.loc;
	param->name = tok_strdup(p, &p->tok);
	next(p);
	return param->name ? 0 : -1;
}

/* param = TYPE [ shape ] IDENT | IDENT ; */
static struct ein_ast_param *parse_param(struct parser *p)
{
	enum ein_type type = tok_type(&p->tok);
	enum ein_tok after = peek(p)->kind;
	struct ein_ast_param *param;

	if (type == EIN_TYPE_NONE && (p->tok.kind != EIN_TOK_IDENT ||
	    (after != EIN_TOK_COMMA && after != EIN_TOK_RPAREN))) {
		if (error_here(p, "expected a type (float32, float64, int32, "
				"int8, uint8, bool)") && guess_type(&p->tok))
			ein_hint(p->ctx, "did you mean '%s'?",
				guess_type(&p->tok));
		return NULL;
	}
	param = param_alloc(p, type);
	if (!param)
		return NULL;
	if (type != EIN_TYPE_NONE)
		next(p);
	if (type != EIN_TYPE_NONE && p->tok.kind == EIN_TOK_LPAREN &&
	    parse_shape(p, param) < 0)
		return (ein_ast_param_free(param), NULL);
	if (parse_param_name(p, param) < 0)
		return (ein_ast_param_free(param), NULL);
	return param;
}

/* Append __isl_take param to the list "list" of "n" params (a
 * definition's inputs, outputs or temporaries). */
static int add_param(struct parser *p, struct ein_ast_param ***list, int *n,
	struct ein_ast_param *param)
{
	struct ein_ast_param **grown;

	if (!param)
		return -1;
	grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (!grown) {
		ein_ast_param_free(param);
		nomem(p);
		return -1;
	}
	*list = grown;
	grown[(*n)++] = param;
	return 0;
}

/* params = [ param { "," param } ] ;  followed by ")". */
static int parse_params(struct parser *p, struct ein_ast_def *def,
	int output)
{
	struct ein_ast_param *param;

	if (accept(p, EIN_TOK_RPAREN))
		return 0;
	for (;;) {
		param = parse_param(p);
		if (add_param(p, output ? &def->outputs : &def->inputs,
				output ? &def->n_output : &def->n_input,
				param) < 0)
			return -1;
		if (accept(p, EIN_TOK_RPAREN))
			return 0;
		if (expect(p, EIN_TOK_COMMA, "expected ',' or ')' after %s "
				"'%s'", output ? "output" : "parameter",
				param->name) < 0)
			return -1;
	}
}

/* The end of the file inside the body of "def". */
static void missing_brace(struct parser *p, const struct ein_ast_def *def)
{
	if (p->eof_reported)
		return;
	error_at(p, def->loc, "unexpected end of file: '}' missing to close "
		"definition '%s'", def_name(def));
	p->eof_reported = 1;
}

/* decl = TYPE [ shape ] IDENT [ ";" ] ;  a temporary's type and shape,
 * "float32(M, (N + 1) / 2) T".  A statement starts with the name of the
 * tensor it assigns, never with a type, so a type starts a declaration. */
static int parse_decl(struct parser *p, struct ein_ast_def *def)
{
	struct ein_ast_param *param = param_alloc(p, tok_type(&p->tok));

	if (!param)
		return -1;
	next(p);
	if (p->tok.kind == EIN_TOK_LPAREN && parse_shape(p, param) < 0)
		return (ein_ast_param_free(param), -1);
	/* The name on the next line would be that of a statement. */
	if (p->tok.bol && p->tok.kind != EIN_TOK_EOF) {
		error_here(p, "expected the name of the temporary after its "
			"type");
		return (ein_ast_param_free(param), -1);
	}
	if (parse_param_name(p, param) < 0 || parse_stmt_end(p) < 0)
		return (ein_ast_param_free(param), -1);
	return add_param(p, &def->temps, &def->n_temp, param);
}

/* One item of a body: a declaration or a statement; skip the rest of it
 * after an error. */
static void parse_item(struct parser *p, struct ein_ast_def *def)
{
	struct ein_ast_stmt *stmt;

	p->stmt_loc = p->tok.loc;
	if (tok_type(&p->tok) != EIN_TYPE_NONE) {
		if (parse_decl(p, def) < 0)
			skip_stmt(p);
		return;
	}
	stmt = parse_stmt(p);
	if (stmt)
		add_stmt(p, def, stmt);
	else
		skip_stmt(p);
}

/* body = "{" { decl | stmt } "}" ; */
static void parse_body(struct parser *p, struct ein_ast_def *def)
{
	next(p);
	while (!accept(p, EIN_TOK_RBRACE)) {
		if (p->tok.kind == EIN_TOK_EOF) {
			missing_brace(p, def);
			return;
		}
		if (p->tok.kind == EIN_TOK_DEF) {
			error_here(p, "expected '}' to close definition '%s' "
				"before the next 'def'", def_name(def));
			return;
		}
		parse_item(p, def);
	}
}

/* header = IDENT "(" params ")" "->" "(" params ")" ; */
static int parse_header(struct parser *p, struct ein_ast_def *def)
{
	if (p->tok.kind != EIN_TOK_IDENT) {
		error_here(p, "expected the name of the definition after "
			"'def'");
		return -1;
	}
	def->name = tok_strdup(p, &p->tok);
	if (!def->name)
		return -1;
	next(p);
	if (expect(p, EIN_TOK_LPAREN, "expected '(' after 'def %s'",
			def->name) < 0 ||
	    parse_params(p, def, 0) < 0 ||
	    expect(p, EIN_TOK_ARROW, "expected '->' after the parameters of "
			"'%s'", def->name) < 0 ||
	    expect(p, EIN_TOK_LPAREN, "expected '(' to open the outputs of "
			"'%s'", def->name) < 0)
		return -1;
	return parse_params(p, def, 1);
}

/* Skip the rest of a header with an error, up to the body. */
static void skip_header(struct parser *p)
{
	while (p->tok.kind != EIN_TOK_LBRACE && p->tok.kind != EIN_TOK_DEF &&
	       p->tok.kind != EIN_TOK_EOF)
		next(p);
}

/* def = "def" IDENT "(" params ")" "->" "(" params ")" body ;
 * After an error in the header, the body is still parsed, for its own
 * errors. */
static struct ein_ast_def *parse_def(struct parser *p)
{
	struct ein_ast_def *def = calloc(1, sizeof(*def));

	if (!def)
		return (nomem(p), NULL);
	def->loc = p->tok.loc;
	next(p);
	if (parse_header(p, def) < 0) {
		skip_header(p);
	} else if (p->tok.kind != EIN_TOK_LBRACE) {
		error_here(p, "expected '{' to open the body of '%s'",
			def->name);
		skip_header(p);
	}
	if (p->tok.kind == EIN_TOK_LBRACE)
		parse_body(p, def);
	return def;
}

/* Does "file" already have a definition called "name"? */
static int is_defined(const struct ein_ast_file *file, const char *name)
{
	int i;

	for (i = 0; name && i < file->n_def; ++i)
		if (file->defs[i]->name && !strcmp(file->defs[i]->name, name))
			return 1;
	return 0;
}

/* Append __isl_take def to file's definitions. */
static void add_def(struct parser *p, struct ein_ast_file *file,
	struct ein_ast_def *def)
{
	struct ein_ast_def **defs;

	if (!def)
		return;
	if (is_defined(file, def->name))
		error_at(p, def->loc, "definition '%s' is defined twice",
			def->name);
	defs = realloc(file->defs, (file->n_def + 1) * sizeof(*defs));
	if (!defs) {
		ein_ast_def_free(def);
		nomem(p);
		return;
	}
	file->defs = defs;
	file->defs[file->n_def++] = def;
}

/* file = { def } ; */
static void parse_file(struct parser *p, struct ein_ast_file *file)
{
	while (p->tok.kind != EIN_TOK_EOF) {
		if (p->tok.kind == EIN_TOK_DEF) {
			add_def(p, file, parse_def(p));
			continue;
		}
		error_here(p, "expected 'def' to start a definition");
		do
			next(p);
		while (p->tok.kind != EIN_TOK_DEF &&
		       p->tok.kind != EIN_TOK_EOF);
	}
}

struct ein_ast_file *ein_parse(ein_ctx *ctx, struct ein_src *src)
{
	struct ein_ast_file *file;
	struct parser p;

	if (!src || !src->text) {
		ein_error(ctx, EIN_ERROR_INVALID, "no source text to parse");
		ein_src_free(src);
		return NULL;
	}
	file = calloc(1, sizeof(*file));
	if (!file) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		ein_src_free(src);
		return NULL;
	}
	file->src = src;
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	ein_lex_init(&p.lex, src);
	next(&p);
	parse_file(&p, file);
	if (p.n_error > 0)
		return (ein_ast_file_free(file), NULL);
	return file;
}
