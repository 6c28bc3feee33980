/*
 * ast.c: allocation, freeing and printing of the syntax tree.
 *
 * The printer writes the canonical source form: four spaces of indentation,
 * one space around binary operators and after commas, and only the
 * parentheses that the precedence of the operators requires, so that
 * parsing the output gives the same tree back.
 */
#include <stdlib.h>
#include <string.h>
#include "frontend/ast.h"

static const char *const type_names[] = {
	[EIN_TYPE_NONE] = "none",
	[EIN_TYPE_F32] = "float32",
	[EIN_TYPE_F64] = "float64",
	[EIN_TYPE_I32] = "int32",
	[EIN_TYPE_I8] = "int8",
	[EIN_TYPE_U8] = "uint8",
	[EIN_TYPE_BOOL] = "bool",
};

static const char *const op_names[] = {
	[EIN_OP_NONE] = "?",
	[EIN_OP_NEG] = "-", [EIN_OP_NOT] = "!",
	[EIN_OP_ADD] = "+", [EIN_OP_SUB] = "-", [EIN_OP_MUL] = "*",
	[EIN_OP_DIV] = "/", [EIN_OP_MOD] = "%",
	[EIN_OP_LT] = "<", [EIN_OP_LE] = "<=", [EIN_OP_GT] = ">",
	[EIN_OP_GE] = ">=", [EIN_OP_EQ] = "==", [EIN_OP_NE] = "!=",
	[EIN_OP_AND] = "&&", [EIN_OP_OR] = "||",
};

/* The spelling of each assignment operator, without and with "!". */
static const char *const assign_names[][2] = {
	[EIN_ASSIGN_SET] = { "=", "=!" },
	[EIN_ASSIGN_ADD] = { "+=", "+=!" },
	[EIN_ASSIGN_MUL] = { "*=", "*=!" },
	[EIN_ASSIGN_MAX] = { "max=", "max=!" },
	[EIN_ASSIGN_MIN] = { "min=", "min=!" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *ein_type_name(enum ein_type type)
{
	if ((unsigned) type >= ARRAY_SIZE(type_names))
		return "?";
	return type_names[type];
}

const char *ein_op_name(enum ein_op op)
{
	if ((unsigned) op >= ARRAY_SIZE(op_names))
		return "?";
	return op_names[op];
}

const char *ein_assign_name(enum ein_assign op, int init)
{
	if ((unsigned) op >= ARRAY_SIZE(assign_names))
		return "?";
	return assign_names[op][init != 0];
}

struct ein_ast_expr *ein_ast_expr_alloc(enum ein_expr_kind kind,
	struct ein_loc loc)
{
	struct ein_ast_expr *expr = calloc(1, sizeof(*expr));

	if (!expr)
		return NULL;
	expr->kind = kind;
	expr->loc = loc;
	expr->slot = -1;
	return expr;
}

int ein_ast_expr_add_arg(struct ein_ast_expr *expr, struct ein_ast_expr *arg)
{
	struct ein_ast_expr **args;

	if (!expr || !arg) {
		ein_ast_expr_free(arg);
		return -1;
	}
	args = realloc(expr->args, (expr->n_arg + 1) * sizeof(*args));
	if (!args) {
		ein_ast_expr_free(arg);
		return -1;
	}
	expr->args = args;
	expr->args[expr->n_arg++] = arg;
	if (arg->height >= expr->height)
		expr->height = arg->height + 1;
	return 0;
}

void ein_ast_expr_free(struct ein_ast_expr *expr)
{
	int i;

	if (!expr)
		return;
	for (i = 0; i < expr->n_arg; ++i)
		ein_ast_expr_free(expr->args[i]);
	free(expr->args);
	free(expr->name);
	free(expr);
}

void ein_ast_where_free(struct ein_ast_where *where)
{
	if (!where)
		return;
	free(where->name);
	ein_ast_expr_free(where->lo);
	ein_ast_expr_free(where->hi);
	free(where);
}

void ein_ast_stmt_free(struct ein_ast_stmt *stmt)
{
	int i;

	if (!stmt)
		return;
	ein_ast_expr_free(stmt->lhs);
	ein_ast_expr_free(stmt->rhs);
	for (i = 0; i < stmt->n_where; ++i)
		ein_ast_where_free(stmt->where[i]);
	free(stmt->where);
	free(stmt);
}

void ein_ast_param_free(struct ein_ast_param *param)
{
	int i;

	if (!param)
		return;
	for (i = 0; i < param->n_dim; ++i)
		ein_ast_expr_free(param->dims[i]);
	free(param->dims);
	free(param->name);
	free(param);
}

void ein_ast_def_free(struct ein_ast_def *def)
{
	int i;

	if (!def)
		return;
	for (i = 0; i < def->n_input; ++i)
		ein_ast_param_free(def->inputs[i]);
	for (i = 0; i < def->n_output; ++i)
		ein_ast_param_free(def->outputs[i]);
	for (i = 0; i < def->n_temp; ++i)
		ein_ast_param_free(def->temps[i]);
	for (i = 0; i < def->n_stmt; ++i)
		ein_ast_stmt_free(def->stmts[i]);
	free(def->inputs);
	free(def->outputs);
	free(def->temps);
	free(def->stmts);
	free(def->name);
	free(def);
}

void ein_ast_file_free(struct ein_ast_file *file)
{
	int i;

	if (!file)
		return;
	for (i = 0; i < file->n_def; ++i)
		ein_ast_def_free(file->defs[i]);
	free(file->defs);
	ein_src_free(file->src);
	free(file);
}

struct ein_ast_def *ein_ast_file_find_def(struct ein_ast_file *file,
	const char *name)
{
	int i;

	if (!file)
		return NULL;
	for (i = 0; i < file->n_def; ++i)
		if (!name || !strcmp(file->defs[i]->name, name))
			return file->defs[i];
	return NULL;
}

/* How tightly binary operator "op" binds, as in C: 1 for "||" up to 6 for
 * the multiplicative operators.  This must agree with the parser's
 * table. */
static int op_prec(enum ein_op op)
{
	switch (op) {
	case EIN_OP_OR: return 1;
	case EIN_OP_AND: return 2;
	case EIN_OP_EQ: case EIN_OP_NE: return 3;
	case EIN_OP_LT: case EIN_OP_LE: case EIN_OP_GT: case EIN_OP_GE:
		return 4;
	case EIN_OP_ADD: case EIN_OP_SUB: return 5;
	default: return 6;
	}
}

#define PREC_SELECT 0
#define PREC_UNARY 7
#define PREC_PRIMARY 8

/* How tightly "expr" binds when printed. */
static int expr_prec(const struct ein_ast_expr *expr)
{
	switch (expr->kind) {
	case EIN_EXPR_SELECT: return PREC_SELECT;
	case EIN_EXPR_BINARY: return op_prec(expr->op);
	case EIN_EXPR_UNARY: return PREC_UNARY;
	default: return PREC_PRIMARY;
	}
}

/* Print "expr", in parentheses when it binds less tightly than "min". */
static void print_operand(FILE *out, const struct ein_ast_expr *expr,
	int min)
{
	int paren = expr_prec(expr) < min;

	if (paren)
		fputc('(', out);
	ein_ast_expr_print(out, expr);
	if (paren)
		fputc(')', out);
}

/* Print "v" with the fewest digits that read back as v, and with a "." or
 * an exponent so that it reads back as a floating literal.  Integral
 * values of up to 15 digits keep their digits: 2500.0, not 2.5e+03. */
static void print_float(FILE *out, double v)
{
	char buf[40];
	int prec;

	if (v > -1e15 && v < 1e15 && v == (double) (long long) v) {
		fprintf(out, "%.1f", v);
		return;
	}
	for (prec = 1; prec <= 17; ++prec) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, out);
	if (!strpbrk(buf, ".eEn"))
		fputs(".0", out);
}

static void print_list(FILE *out, struct ein_ast_expr *const *list, int n)
{
	int i;

	for (i = 0; i < n; ++i) {
		if (i)
			fputs(", ", out);
		ein_ast_expr_print(out, list[i]);
	}
}

/* Binary operators are left associative: a right operand of the same
 * precedence needs parentheses. */
static void print_binary(FILE *out, const struct ein_ast_expr *expr)
{
	int prec = op_prec(expr->op);

	print_operand(out, expr->args[0], prec);
	fprintf(out, " %s ", ein_op_name(expr->op));
	print_operand(out, expr->args[1], prec + 1);
}

/* "c ? a : b" is right associative and its middle is a full expression. */
static void print_select(FILE *out, const struct ein_ast_expr *expr)
{
	print_operand(out, expr->args[0], PREC_SELECT + 1);
	fputs(" ? ", out);
	ein_ast_expr_print(out, expr->args[1]);
	fputs(" : ", out);
	ein_ast_expr_print(out, expr->args[2]);
}

int ein_ast_expr_reads_tensor(const struct ein_ast_expr *expr)
{
	int i;

	if (expr->kind == EIN_EXPR_ACCESS)
		return 1;
	for (i = 0; i < expr->n_arg; ++i)
		if (ein_ast_expr_reads_tensor(expr->args[i]))
			return 1;
	return 0;
}

void ein_ast_expr_print(FILE *out, const struct ein_ast_expr *expr)
{
	switch (expr->kind) {
	case EIN_EXPR_INT:
		fprintf(out, "%lld", (long long) expr->ival);
		break;
	case EIN_EXPR_FLOAT:
		print_float(out, expr->fval);
		break;
	case EIN_EXPR_IDENT:
		fputs(expr->name, out);
		break;
	case EIN_EXPR_ACCESS:
	case EIN_EXPR_CALL:
	case EIN_EXPR_CAST:
		fprintf(out, "%s(", expr->kind == EIN_EXPR_CAST ?
			ein_type_name(expr->type) : expr->name);
		print_list(out, expr->args, expr->n_arg);
		fputc(')', out);
		break;
	case EIN_EXPR_UNARY:
		fputs(ein_op_name(expr->op), out);
		print_operand(out, expr->args[0], PREC_PRIMARY);
		break;
	case EIN_EXPR_BINARY:
		print_binary(out, expr);
		break;
	case EIN_EXPR_SELECT:
		print_select(out, expr);
		break;
	}
}

/* "type(dims) name", "type name" for a scalar, or "name" alone. */
static void print_param(FILE *out, const struct ein_ast_param *param)
{
	if (param->type != EIN_TYPE_NONE) {
		fputs(ein_type_name(param->type), out);
		if (param->n_dim > 0) {
			fputc('(', out);
			print_list(out, param->dims, param->n_dim);
			fputc(')', out);
		}
		fputc(' ', out);
	}
	fputs(param->name, out);
}

static void print_params(FILE *out, struct ein_ast_param *const *list, int n)
{
	int i;

	fputc('(', out);
	for (i = 0; i < n; ++i) {
		if (i)
			fputs(", ", out);
		print_param(out, list[i]);
	}
	fputc(')', out);
}

/* " where i in lo:hi, j in lo:hi", or nothing. */
static void print_where(FILE *out, const struct ein_ast_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->n_where; ++i) {
		fputs(i ? ", " : " where ", out);
		fprintf(out, "%s in ", stmt->where[i]->name);
		ein_ast_expr_print(out, stmt->where[i]->lo);
		fputc(':', out);
		ein_ast_expr_print(out, stmt->where[i]->hi);
	}
}

static void print_stmt(FILE *out, const struct ein_ast_stmt *stmt)
{
	fputs("    ", out);
	ein_ast_expr_print(out, stmt->lhs);
	fprintf(out, " %s ", ein_assign_name(stmt->op, stmt->init));
	ein_ast_expr_print(out, stmt->rhs);
	print_where(out, stmt);
	fputc('\n', out);
}

void ein_ast_def_print(FILE *out, const struct ein_ast_def *def)
{
	int i;

	fprintf(out, "def %s", def->name);
	print_params(out, def->inputs, def->n_input);
	fputs(" -> ", out);
	print_params(out, def->outputs, def->n_output);
	fputs(" {\n", out);
	for (i = 0; i < def->n_temp; ++i) {
		fputs("    ", out);
		print_param(out, def->temps[i]);
		fputc('\n', out);
	}
	for (i = 0; i < def->n_stmt; ++i)
		print_stmt(out, def->stmts[i]);
	fputs("}\n", out);
}
