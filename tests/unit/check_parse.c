/*
 * check_parse.c: the lexer, the parser and the printer of the syntax tree.
 *
 * Valid sources are parsed and printed back in canonical form, which must
 * match the expected text and parse again to itself.  Each malformed source
 * comes with the exact first line of its message: file, line, column and
 * text.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "ctx.h"
#include "diag.h"
#include "frontend/lex.h"
#include "frontend/parse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---------------------------------------------------------- */

static struct ein_ast_file *parse(ein_ctx *ctx, const char *text)
{
	ein_ctx_clear_error(ctx);
	return ein_parse(ctx, ein_src_alloc("t.ein", text));
}

/* Every definition of "file" printed, one after the other.  The caller
 * frees the result. */
static char *print_file(const struct ein_ast_file *file)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	int i;

	ck_assert_ptr_nonnull(out);
	for (i = 0; i < file->n_def; ++i)
		ein_ast_def_print(out, file->defs[i]);
	fclose(out);
	return buf;
}

/* Parse "text", which must be valid, and print it back. */
static char *reprint(ein_ctx *ctx, const char *text)
{
	struct ein_ast_file *file = parse(ctx, text);
	char *printed;

	ck_assert_msg(file != NULL, "%s\nin:\n%s", ein_ctx_last_error(ctx),
		text);
	printed = print_file(file);
	ein_ast_file_free(file);
	return printed;
}

/* The first line of "msg" (freed by the caller). */
static char *first_line(const char *msg)
{
	size_t n = strcspn(msg, "\n");

	return strndup(msg, n);
}

/* ---- valid sources ---------------------------------------------------- */

static const struct {
	const char *src;
	const char *printed;
} valid_cases[] = {
	/* matmul, written tightly */
	{ "def matmul(float32(M,K) A,float32(K,N) B)->(C){\n"
	  "  C(i,j)+=!A(i,k)*B(k,j)\n}\n",
	  "def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	  "    C(i, j) +=! A(i, k) * B(k, j)\n}\n" },
	/* a convolution with affine indices */
	{ "def conv(float32(N, C, H, W) I, float32(F, C, R, S) K) -> (O) {\n"
	  "    O(n, f, h, w) +=! I(n, c, 2*h + r, w + s) * K(f, c, r, s)\n"
	  "}\n",
	  "def conv(float32(N, C, H, W) I, float32(F, C, R, S) K) -> (O) {\n"
	  "    O(n, f, h, w) +=! I(n, c, 2 * h + r, w + s) * K(f, c, r, s)\n"
	  "}\n" },
	/* where clauses, with "where" repeated or with commas */
	{ "def shift(float32(N, M) A) -> (B) {\n"
	  "    B(i, j) = A(i + 1, j) where i in 0:N - 1 where j in 0 : M\n"
	  "    B(i, j) = 0.0 where i in N-1:N, j in 0:M\n}\n",
	  "def shift(float32(N, M) A) -> (B) {\n"
	  "    B(i, j) = A(i + 1, j) where i in 0:N - 1, j in 0:M\n"
	  "    B(i, j) = 0.0 where i in N - 1:N, j in 0:M\n}\n" },
	/* a ternary with && and comparisons */
	{ "def tri(float32(N, N) A) -> (L) {\n"
	  "    L(i, j) = i >= j && A(i, j) != 0 || i == 0 ? A(i, j) : -1.5\n"
	  "}\n",
	  "def tri(float32(N, N) A) -> (L) {\n"
	  "    L(i, j) = i >= j && A(i, j) != 0 || i == 0 ? A(i, j) : -1.5\n"
	  "}\n" },
	/* casts (float is float32) and builtin calls */
	{ "def act(float32(N) X) -> (Y) {\n"
	  "    Y(i) = float(exp(X(i))) + max(X(i), 0.0) * float64(tanh(X(i)))"
	  "\n    Y(i) *= fma(X(i), 2.5E+3, .5) / pow(X(i), 1e-5)\n}\n",
	  "def act(float32(N) X) -> (Y) {\n"
	  "    Y(i) = float32(exp(X(i))) + max(X(i), 0.0) * "
	  "float64(tanh(X(i)))\n"
	  "    Y(i) *= fma(X(i), 2500.0, 0.5) / pow(X(i), 1e-05)\n}\n" },
	/* several definitions, comments and ";" */
	{ "# first\n"
	  "def f(float32(N) A) -> (B) { // the body\n"
	  "    B(i) = A(i); B(i) += 1  # two statements\n"
	  "}\n\n"
	  "// second\n"
	  "def g(float64(N) A) -> (B) {\n    B(i) max=! A(i)\n"
	  "    B(i) min= A(i);\n}\n",
	  "def f(float32(N) A) -> (B) {\n"
	  "    B(i) = A(i)\n    B(i) += 1\n}\n"
	  "def g(float64(N) A) -> (B) {\n"
	  "    B(i) max=! A(i)\n    B(i) min= A(i)\n}\n" },
	/* typed outputs, scalars and integer extents */
	{ "def axpy(float32 a, float32(4, N) X, int32() n) "
	  "-> (float32(4, N) Y, float64 s, T) {\n"
	  "    Y(i, j) = a() * X(i, j)\n    s() +=! Y(i, j)\n"
	  "    T(i) *=! X(i, 0)\n}\n",
	  "def axpy(float32 a, float32(4, N) X, int32 n) "
	  "-> (float32(4, N) Y, float64 s, T) {\n"
	  "    Y(i, j) = a() * X(i, j)\n    s() +=! Y(i, j)\n"
	  "    T(i) *=! X(i, 0)\n}\n" },
	/* every other type, and no parameters at all */
	{ "def t(int8(N) A, uint8(N) B, bool(N) C) -> () {\n"
	  "    D(i) = int32(A(i)) + uint8(B(i)) * bool(C(i)) + int8(1)\n}\n",
	  "def t(int8(N) A, uint8(N) B, bool(N) C) -> () {\n"
	  "    D(i) = int32(A(i)) + uint8(B(i)) * bool(C(i)) + int8(1)\n}\n" },
	/* "=!" glued is the init form of "=", "= !" a negation */
	{ "def n(bool(N) A) -> (B, C) {\n"
	  "    B(i) =!A(i)\n    C(i) = !A(i)\n}\n",
	  "def n(bool(N) A) -> (B, C) {\n"
	  "    B(i) =! A(i)\n    C(i) = !A(i)\n}\n" },
	/* an expression continued on the next line */
	{ "def c(float32(N) A) -> (B) {\n"
	  "    B(i) = A(i)\n        + 1\n        * A(i)\n    B(i) += 2\n}\n",
	  "def c(float32(N) A) -> (B) {\n"
	  "    B(i) = A(i) + 1 * A(i)\n    B(i) += 2\n}\n" },
	/* declared temporaries: a type and a shape of expressions of the
	 * sizes, on a line of their own or before ";" (issue 21) */
	{ "def d(float32(M, N) X) -> (Y) {\n"
	  "    float32(M,(N+1)/2) T; float64 s\n"
	  "    T(i, j) = X(i, 2*j)\n    s() +=! T(i, j)\n"
	  "    Y(i) = T(i, 0) + s\n}\n",
	  "def d(float32(M, N) X) -> (Y) {\n"
	  "    float32(M, (N + 1) / 2) T\n    float64 s\n"
	  "    T(i, j) = X(i, 2 * j)\n    s() +=! T(i, j)\n"
	  "    Y(i) = T(i, 0) + s\n}\n" },
	/* an empty body (sema rejects it, the parser does not) */
	{ "def e() -> () {}", "def e() -> () {\n}\n" },
	{ "", "" },
};

START_TEST(valid)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *printed = reprint(ctx, valid_cases[_i].src);
	char *again = reprint(ctx, printed);

	ck_assert_str_eq(printed, valid_cases[_i].printed);
	ck_assert_str_eq(again, printed);
	free(printed);
	free(again);
	ein_ctx_free(ctx);
}
END_TEST

/* Expressions, printed with the parentheses that precedence requires. */
static const struct {
	const char *expr;
	const char *printed;
} expr_cases[] = {
	{ "(a + b) * c", "(a + b) * c" },
	{ "a + (b * c)", "a + b * c" },
	{ "a - (b - c)", "a - (b - c)" },
	{ "(a - b) - c", "a - b - c" },
	{ "a / (b * c) % 2", "a / (b * c) % 2" },
	{ "-(a + b)", "-(a + b)" },
	{ "- - a", "-(-a)" },
	{ "!(a < b) && !c", "!(a < b) && !c" },
	{ "a < b == c > d", "a < b == c > d" },
	{ "a < (b == c)", "a < (b == c)" },
	{ "a || b && c", "a || b && c" },
	{ "(a || b) && c", "(a || b) && c" },
	{ "c ? a : d ? e : f", "c ? a : d ? e : f" },
	{ "(c ? a : b) ? d : e", "(c ? a : b) ? d : e" },
	{ "(c ? a : b) + 1", "(c ? a : b) + 1" },
	{ "c ? x ? 1 : 2 : 3", "c ? x ? 1 : 2 : 3" },
	{ "((A(i)))", "A(i)" },
	{ "A(i, j,k)", "A(i, j, k)" },
	{ "sigmoid(-A(i)) - rsqrt(abs(a))", "sigmoid(-A(i)) - rsqrt(abs(a))" },
	{ "floor(a) + ceil(b) + log(c) + sqrt(d) + erf(e)",
	  "floor(a) + ceil(b) + log(c) + sqrt(d) + erf(e)" },
	{ "min(a, b)", "min(a, b)" },
	{ "0.1 + 1.0 + 1e10 + 3.25e-3 + 007", "0.1 + 1.0 + 10000000000.0 + "
	  "0.00325 + 7" },
	{ "S()", "S()" },
};

START_TEST(expr)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *src, *want, *printed;

	ck_assert_int_ge(asprintf(&src, "def f() -> (B) {\n    B(i) = %s\n}\n",
		expr_cases[_i].expr), 0);
	ck_assert_int_ge(asprintf(&want, "def f() -> (B) {\n    B(i) = %s\n"
		"}\n", expr_cases[_i].printed), 0);
	printed = reprint(ctx, src);
	ck_assert_str_eq(printed, want);
	free(src);
	free(want);
	free(printed);
	ein_ctx_free(ctx);
}
END_TEST

/* The tree of matmul: kinds, operators and positions. */
START_TEST(tree)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_ast_file *file = parse(ctx,
		"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
		"    C(i, j) +=! A(i, k) * max(B(k, j), float64(0))\n}\n");
	struct ein_ast_def *def;
	struct ein_ast_stmt *stmt;
	struct ein_ast_expr *rhs;

	ck_assert_ptr_nonnull(file);
	def = ein_ast_file_find_def(file, "matmul");
	ck_assert_ptr_eq(def, ein_ast_file_find_def(file, NULL));
	ck_assert_ptr_null(ein_ast_file_find_def(file, "conv"));
	ck_assert_int_eq(def->loc.line, 1);
	ck_assert_int_eq(def->loc.col, 1);
	ck_assert_int_eq(def->n_input, 2);
	ck_assert_int_eq(def->inputs[1]->type, EIN_TYPE_F32);
	ck_assert_int_eq(def->inputs[1]->n_dim, 2);
	ck_assert_int_eq(def->inputs[1]->loc.col, 43);
	ck_assert_int_eq(def->outputs[0]->type, EIN_TYPE_NONE);
	ck_assert_int_eq(def->outputs[0]->n_dim, -1);
	stmt = def->stmts[0];
	ck_assert_int_eq(stmt->op, EIN_ASSIGN_ADD);
	ck_assert_int_eq(stmt->init, 1);
	ck_assert_int_eq(stmt->loc.col, 5);
	ck_assert_int_eq(stmt->op_loc.col, 13);
	ck_assert_int_eq(stmt->lhs->kind, EIN_EXPR_ACCESS);
	rhs = stmt->rhs;
	ck_assert_int_eq(rhs->kind, EIN_EXPR_BINARY);
	ck_assert_int_eq(rhs->op, EIN_OP_MUL);
	ck_assert_int_eq(rhs->loc.col, 17);
	ck_assert_int_eq(rhs->args[1]->kind, EIN_EXPR_CALL);
	ck_assert_str_eq(rhs->args[1]->name, "max");
	ck_assert_int_eq(rhs->args[1]->args[1]->kind, EIN_EXPR_CAST);
	ck_assert_int_eq(rhs->args[1]->args[1]->type, EIN_TYPE_F64);
	ck_assert_int_eq(rhs->args[1]->args[1]->args[0]->loc.col, 48);
	ein_ast_file_free(file);
	ein_ctx_free(ctx);
}
END_TEST

/* ---- the lexer -------------------------------------------------------- */

#define END EIN_TOK_EOF

static const struct {
	const char *src;
	enum ein_tok kinds[12];
} lex_cases[] = {
	{ "max(a) max == b", { EIN_TOK_IDENT, EIN_TOK_LPAREN, EIN_TOK_IDENT,
	  EIN_TOK_RPAREN, EIN_TOK_IDENT, EIN_TOK_EQ, EIN_TOK_IDENT, END } },
	{ "max=! min= += *=! = =! == != !", { EIN_TOK_ASSIGN, EIN_TOK_ASSIGN,
	  EIN_TOK_ASSIGN, EIN_TOK_ASSIGN, EIN_TOK_ASSIGN, EIN_TOK_ASSIGN,
	  EIN_TOK_EQ, EIN_TOK_NE, EIN_TOK_NOT, END } },
	{ "1 1.0 .5 0.5 1e-5 2.5E+3 1.", { EIN_TOK_INT, EIN_TOK_FLOAT,
	  EIN_TOK_FLOAT, EIN_TOK_FLOAT, EIN_TOK_FLOAT, EIN_TOK_FLOAT,
	  EIN_TOK_FLOAT, END } },
	{ "-> - < <= > >= && || % / * +", { EIN_TOK_ARROW, EIN_TOK_MINUS,
	  EIN_TOK_LT, EIN_TOK_LE, EIN_TOK_GT, EIN_TOK_GE, EIN_TOK_AND,
	  EIN_TOK_OR, EIN_TOK_PERCENT, EIN_TOK_SLASH, EIN_TOK_STAR,
	  EIN_TOK_PLUS } },
	{ "def where in define{}:?;,", { EIN_TOK_DEF, EIN_TOK_WHERE,
	  EIN_TOK_IN, EIN_TOK_IDENT, EIN_TOK_LBRACE, EIN_TOK_RBRACE,
	  EIN_TOK_COLON, EIN_TOK_QUESTION, EIN_TOK_SEMI, EIN_TOK_COMMA,
	  END } },
	{ "a # comment\n// another\nb/c 1e 2x @", { EIN_TOK_IDENT,
	  EIN_TOK_IDENT, EIN_TOK_SLASH, EIN_TOK_IDENT, EIN_TOK_ERROR,
	  EIN_TOK_ERROR, EIN_TOK_ERROR, END } },
};

START_TEST(lex)
{
	struct ein_src *src = ein_src_alloc("t.ein", lex_cases[_i].src);
	struct ein_lexer lex;
	struct ein_token tok;
	int k = 0;

	ein_lex_init(&lex, src);
	do {
		tok = ein_lex_next(&lex);
		ck_assert_msg(tok.kind == lex_cases[_i].kinds[k], "token %d "
			"'%.*s' is %d, not %d", k, tok.len, tok.start,
			tok.kind, lex_cases[_i].kinds[k]);
		k++;
	} while (tok.kind != EIN_TOK_EOF && k < 12);
	ein_src_free(src);
}
END_TEST

/* Values, assignment operators, and the first token of each line. */
START_TEST(lex_values)
{
	struct ein_src *src = ein_src_alloc("t.ein",
		"  42 2.5e-1\n\tmax=! *= =!\n");
	struct ein_lexer lex;
	struct ein_token t[6];
	int i;

	ein_lex_init(&lex, src);
	for (i = 0; i < 6; ++i)
		t[i] = ein_lex_next(&lex);
	ck_assert_int_eq(t[0].ival, 42);
	ck_assert_int_eq(t[0].loc.col, 3);
	ck_assert(t[0].bol && !t[1].bol && t[2].bol && !t[3].bol);
	ck_assert(t[1].fval == 0.25);
	ck_assert_int_eq(t[2].assign, EIN_ASSIGN_MAX);
	ck_assert_int_eq(t[2].init, 1);
	ck_assert_int_eq(t[2].loc.line, 2);
	ck_assert_int_eq(t[2].loc.col, 2);
	ck_assert_int_eq(t[3].assign, EIN_ASSIGN_MUL);
	ck_assert_int_eq(t[3].init, 0);
	ck_assert_int_eq(t[4].assign, EIN_ASSIGN_SET);
	ck_assert_int_eq(t[4].init, 1);
	ck_assert_int_eq(t[5].kind, EIN_TOK_EOF);
	ck_assert_int_eq(t[5].loc.line, 2);
	ck_assert_int_eq(t[5].loc.col, 13);
	ein_src_free(src);
}
END_TEST

/* ---- malformed sources ------------------------------------------------ */

#define HEAD "def f(float32(N) A) -> (B) {\n"

static const struct {
	const char *src;
	const char *msg;
} error_cases[] = {
	{ HEAD "    B(i) = A(i) @ 2\n}\n",
	  "t.ein:2:17: error: unexpected character '@'" },
	{ HEAD "    B(i) = A(i j)\n}\n",
	  "t.ein:2:16: error: expected ')' after the indices of 'A'" },
	{ HEAD "    B(i) = A(i\n}\n",
	  "t.ein:3:1: error: expected ')' after the indices of 'A'" },
	{ HEAD "    B(i) = A(i",
	  "t.ein:2:15: error: unexpected end of file: expected ')' after the "
	  "indices of 'A'" },
	{ "def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	  "    C(i, j) +=! A(i, k) * B(k, j)\n",
	  "t.ein:1:1: error: unexpected end of file: '}' missing to close "
	  "definition 'matmul'" },
	{ HEAD "    B(i) A(i)\n}\n",
	  "t.ein:2:10: error: expected an assignment operator (=, +=, *=, "
	  "max=, min=, or their ! forms)" },
	{ HEAD "    B(i) +!= A(i)\n}\n",
	  "t.ein:2:10: error: expected an assignment operator (=, +=, *=, "
	  "max=, min=, or their ! forms)" },
	{ HEAD "    B(i) =+ A(i)\n}\n",
	  "t.ein:2:10: error: unknown assignment operator '=+'" },
	{ "def f(floa32(N) A) -> (B) {\n    B(i) = A(i)\n}\n",
	  "t.ein:1:7: error: expected a type (float32, float64, int32, int8, "
	  "uint8, bool)" },
	{ HEAD "    B(i) = A(i) * 1e\n}\n",
	  "t.ein:2:19: error: malformed number '1e'" },
	{ HEAD "    B(i) = A(i) * 2.5.1\n}\n",
	  "t.ein:2:19: error: malformed number '2.5.1'" },
	{ HEAD "    B(i) = 99999999999999999999\n}\n",
	  "t.ein:2:12: error: integer literal '99999999999999999999' is too "
	  "large" },
	{ HEAD "    B(i) = A(i) A(i)\n}\n",
	  "t.ein:2:17: error: expected an operator or the end of the statement "
	  "before 'A'" },
	{ HEAD "    B(i) = (A(i) + 1\n}\n",
	  "t.ein:3:1: error: expected ')' to close the '(' at 2:12" },
	{ HEAD "    B(i) =\n}\n",
	  "t.ein:3:1: error: expected an expression" },
	{ HEAD "    B(i) = i > 0 ? A(i)\n}\n",
	  "t.ein:3:1: error: expected ':' in the conditional expression" },
	{ HEAD "    B = A(i)\n}\n",
	  "t.ein:2:7: error: expected '(' after 'B' on the left-hand side" },
	{ HEAD "    B(i) = A(i) where i 0:N\n}\n",
	  "t.ein:2:25: error: expected 'in' after 'i' in the 'where' clause" },
	{ HEAD "    B(i) = A(i) where i in 0..N\n}\n",
	  "t.ein:2:28: error: malformed number '0..N'" },
	{ HEAD "    B(i) = float32(A(i), 1)\n}\n",
	  "t.ein:2:12: error: a conversion to float32 takes one argument, "
	  "not 2" },
	{ "def f(float32(N) A) (B) {\n}\n",
	  "t.ein:1:21: error: expected '->' after the parameters of 'f'" },
	{ "def f(float32(N A) -> (B) {\n}\n",
	  "t.ein:1:17: error: expected ',' or ')' in the shape" },
	{ "def f(float32(N) A B) -> (B) {\n}\n",
	  "t.ein:1:20: error: expected ',' or ')' after parameter 'A'" },
	{ "def f(float32(N)) -> (B) {\n}\n",
	  "t.ein:1:17: error: expected the name of the parameter after its "
	  "type" },
	/* a temporary's declaration in a body (issue 21) */
	{ HEAD "    float32(N) T B(i) = A(i)\n}\n",
	  "t.ein:2:18: error: expected an operator or the end of the "
	  "statement before 'B'" },
	{ HEAD "    float32(N, ) T\n    B(i) = A(i)\n}\n",
	  "t.ein:2:16: error: expected a size symbol or an integer as the "
	  "extent of a dimension" },
	{ "def (float32(N) A) -> (B) {\n}\n",
	  "t.ein:1:5: error: expected the name of the definition after 'def'" },
	{ "def f(float32(N) A) -> (B)\n    B(i) = A(i)\n",
	  "t.ein:2:5: error: expected '{' to open the body of 'f'" },
	{ HEAD "    B(i) = A(i)\ndef g() -> () {}\n",
	  "t.ein:3:1: error: expected '}' to close definition 'f' before the "
	  "next 'def'" },
	{ "B(i) = 1\n", "t.ein:1:1: error: expected 'def' to start a "
	  "definition" },
	{ HEAD "    B(i) = A(i) \xc3\xa9\n}\n",
	  "t.ein:2:17: error: unexpected non-ASCII character '\xc3\xa9'" },
	{ HEAD "    B(i) = A(i) \x01\n}\n",
	  "t.ein:2:17: error: unexpected character '\\x01'" },
};

START_TEST(error)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_ast_file *file = parse(ctx, error_cases[_i].src);
	char *line;

	ck_assert_ptr_null(file);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
	line = first_line(ein_ctx_last_error(ctx));
	ck_assert_str_eq(line, error_cases[_i].msg);
	free(line);
	ein_ctx_free(ctx);
}
END_TEST

/* Hints that follow the message. */
static const struct {
	const char *src;
	const char *hint;
} hint_cases[] = {
	{ HEAD "    B(i) +!= A(i)\n}\n", "hint: did you mean '+=!'?\n" },
	{ HEAD "    B(i) max!= A(i)\n}\n", "hint: did you mean 'max=!'?\n" },
	{ HEAD "    B(i) max = A(i)\n}\n",
	  "hint: write 'max=' without a space\n" },
	{ HEAD "    B(i) -= A(i)\n}\n", "hint: there is no '-='" },
	{ HEAD "    B(i) == A(i)\n}\n", "hint: '==' compares" },
	{ HEAD "    B(i) =+ A(i)\n}\n", "hint: did you mean '+=' or '+=!'?\n" },
	{ "def f(floa32(N) A) -> (B) {\n}\n",
	  "hint: did you mean 'float32'?\n" },
	{ "def f(double(N) A) -> (B) {\n}\n",
	  "hint: did you mean 'float64'?\n" },
	{ HEAD "    B(i) = A(i) * 1e\n}\n",
	  "hint: an exponent needs digits, as in 1e-5\n" },
	{ HEAD "    B(i) = 2i\n}\n", "hint: a product is written with '*'" },
	{ HEAD "    B(i) = A(i) where i in 0..N\n}\n",
	  "hint: a range is written lo:hi" },
	{ HEAD "    B(i) = A(i) & A(i)\n}\n", "hint: did you mean '&&'?\n" },
	{ HEAD "    B(i) = A[i]\n}\n", "hint: tensors are indexed with "
	  "parentheses" },
	{ HEAD "    B = A(i)\n}\n", "hint: the left-hand side is a tensor "
	  "access, such as B(i, j), or B() for a scalar\n" },
};

START_TEST(hint)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_ast_file *file = parse(ctx, hint_cases[_i].src);
	const char *msg = ein_ctx_last_error(ctx);

	ck_assert_ptr_null(file);
	ck_assert_msg(strstr(msg, hint_cases[_i].hint) != NULL,
		"no '%s' in:\n%s", hint_cases[_i].hint, msg);
	ein_ctx_free(ctx);
}
END_TEST

/* The "error:" lines of "msg", without the quoted source and hints.  The
 * caller frees the result. */
static char *error_lines(const char *msg)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	const char *line, *end;

	ck_assert_ptr_nonnull(out);
	for (line = msg; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		if (strncmp(line, "t.ein:", 6) == 0)
			fprintf(out, "%.*s\n", (int) (end - line), line);
	}
	fclose(out);
	return buf;
}

/* Several errors in one file, each reported once, in order. */
static const struct {
	const char *src;
	const char *errors;
} multi_cases[] = {
	{ "def f(float32(N) A) -> (B, C) {\n"
	  "    B(i) = A(i) @ 1\n"
	  "    C(i) = A(i\n"
	  "    B(i) += A(i)\n"
	  "    C(i) A(i)\n"
	  "}\n",
	  "t.ein:2:17: error: unexpected character '@'\n"
	  "t.ein:4:5: error: expected ')' after the indices of 'A'\n"
	  "t.ein:5:10: error: expected an assignment operator (=, +=, *=, "
	  "max=, min=, or their ! forms)\n" },
	/* an error in a header, one in its body, one in the next def */
	{ "def f(float32(N) A,) -> (B) {\n"
	  "    B(i) = A(i) +\n"
	  "}\n"
	  "def g(float32(N) A) -> (B) {\n"
	  "    B(i) = A(i) * 1e; B(i) += 1 1\n"
	  "}\n",
	  "t.ein:1:20: error: expected a type (float32, float64, int32, int8, "
	  "uint8, bool)\n"
	  "t.ein:3:1: error: expected an expression\n"
	  "t.ein:5:19: error: malformed number '1e'\n"
	  "t.ein:5:33: error: expected an operator or the end of the "
	  "statement before '1'\n" },
	/* a continuation line after an error is not a new statement */
	{ HEAD "    B(i) = A(i @)\n        + 1\n    B(i) = A(i) A\n}\n",
	  "t.ein:2:16: error: unexpected character '@'\n"
	  "t.ein:4:17: error: expected an operator or the end of the "
	  "statement before 'A'\n" },
};

START_TEST(several_errors)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_ast_file *file = parse(ctx, multi_cases[_i].src);
	char *errors;

	ck_assert_ptr_null(file);
	errors = error_lines(ein_ctx_last_error(ctx));
	ck_assert_str_eq(errors, multi_cases[_i].errors);
	free(errors);
	ein_ctx_free(ctx);
}
END_TEST

/* The message quotes the line and puts a caret under the column. */
START_TEST(caret)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_ast_file *file = parse(ctx, HEAD "\tB(i) = A(i) @\n}\n");

	ck_assert_ptr_null(file);
	ck_assert_str_eq(ein_ctx_last_error(ctx),
		"t.ein:2:14: error: unexpected character '@'\n"
		"    \tB(i) = A(i) @\n"
		"    \t            ^\n");
	ein_ctx_free(ctx);
}
END_TEST

/* A NULL source (ein_src_alloc out of memory) is an error, not a crash. */
START_TEST(null_source)
{
	ein_ctx *ctx = ein_ctx_alloc();

	ck_assert_ptr_null(ein_parse(ctx, NULL));
	ck_assert_int_ne(ein_ctx_last_status(ctx), EIN_OK);
	ein_ctx_free(ctx);
}
END_TEST

/* Names of types and operators. */
START_TEST(names)
{
	ck_assert_str_eq(ein_type_name(EIN_TYPE_F32), "float32");
	ck_assert_str_eq(ein_type_name(EIN_TYPE_U8), "uint8");
	ck_assert_str_eq(ein_type_name(EIN_TYPE_BOOL), "bool");
	ck_assert_str_eq(ein_op_name(EIN_OP_NE), "!=");
	ck_assert_str_eq(ein_op_name(EIN_OP_NEG), "-");
	ck_assert_str_eq(ein_assign_name(EIN_ASSIGN_MIN, 1), "min=!");
	ck_assert_str_eq(ein_assign_name(EIN_ASSIGN_SET, 0), "=");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, valid, 0, ARRAY_SIZE(valid_cases));
	tcase_add_loop_test(tc, expr, 0, ARRAY_SIZE(expr_cases));
	tcase_add_test(tc, tree);
	tcase_add_loop_test(tc, lex, 0, ARRAY_SIZE(lex_cases));
	tcase_add_test(tc, lex_values);
	tcase_add_loop_test(tc, error, 0, ARRAY_SIZE(error_cases));
	tcase_add_loop_test(tc, hint, 0, ARRAY_SIZE(hint_cases));
	tcase_add_loop_test(tc, several_errors, 0, ARRAY_SIZE(multi_cases));
	tcase_add_test(tc, caret);
	tcase_add_test(tc, null_source);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
