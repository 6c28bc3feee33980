/*
 * ast.h: the syntax tree of an .ein file.
 *
 * The tree covers the whole language (docs/language.md); the parser fills in
 * the syntax, and sema (sema.c) resolves names in place: each identifier gets
 * its kind and slot, each access its tensor slot.  Every node records its
 * position for messages.  All strings and children are owned by their parent;
 * ein_ast_file_free frees the whole tree.
 */
#ifndef EIN_FRONTEND_AST_H
#define EIN_FRONTEND_AST_H

#include <stdint.h>
#include <stdio.h>
#include "diag.h"
#include "frontend/builtin.h"

/* Element types.  The numbers index ein_type_name. */
enum ein_type {
	EIN_TYPE_NONE = 0,	/* not given (an output whose type is inferred) */
	EIN_TYPE_F32,
	EIN_TYPE_F64,
	EIN_TYPE_I32,
	EIN_TYPE_I8,
	EIN_TYPE_U8,
	EIN_TYPE_BOOL
};

enum ein_expr_kind {
	EIN_EXPR_INT,		/* integer literal: ival */
	EIN_EXPR_FLOAT,		/* floating literal: fval */
	EIN_EXPR_IDENT,		/* index variable or size symbol: name */
	EIN_EXPR_ACCESS,	/* tensor access: name(args) */
	EIN_EXPR_UNARY,		/* op args[0] */
	EIN_EXPR_BINARY,	/* args[0] op args[1] */
	EIN_EXPR_SELECT,	/* args[0] ? args[1] : args[2] */
	EIN_EXPR_CALL,		/* builtin function: name(args) */
	EIN_EXPR_CAST		/* type(args[0]) */
};

enum ein_op {
	EIN_OP_NONE = 0,
	/* unary */
	EIN_OP_NEG, EIN_OP_NOT,
	/* binary, in no particular order (precedence lives in the parser) */
	EIN_OP_ADD, EIN_OP_SUB, EIN_OP_MUL, EIN_OP_DIV, EIN_OP_MOD,
	EIN_OP_LT, EIN_OP_LE, EIN_OP_GT, EIN_OP_GE, EIN_OP_EQ, EIN_OP_NE,
	EIN_OP_AND, EIN_OP_OR
};

/* What an identifier names, once sema has resolved it. */
enum ein_ident_kind {
	EIN_IDENT_UNRESOLVED = 0,
	EIN_IDENT_INDEX,	/* slot: position in the statement's indices */
	EIN_IDENT_SIZE		/* slot: position in the definition's sizes */
};

/* The greatest height of an expression tree. */
#define EIN_AST_MAX_HEIGHT 1000

/* An expression node.
 * kind: which of the union's readings applies (see enum ein_expr_kind);
 * loc: where the node starts;
 * name: identifier, tensor or function name (IDENT, ACCESS, CALL);
 * fn: the function called (CALL), set by the parser;
 * ival, fval: literal values (INT, FLOAT);
 * height: the length of the longest path to a leaf below (0 for a leaf),
 *	which the parser keeps below EIN_AST_MAX_HEIGHT so that the passes
 *	that recurse over expressions cannot run out of stack;
 * op: operator (UNARY, BINARY);
 * type: target type (CAST);
 * n_arg, args: children (indices of an ACCESS, arguments of a CALL,
 *	operands otherwise);
 * op_loc: where the operator of a BINARY node is (for messages);
 * ident_kind, slot: resolution of an IDENT, filled in by sema;
 *	for an ACCESS, slot is the tensor's position in the definition;
 * vtype: the type of the node's value, filled in by the type checker
 *	(type.c); EIN_TYPE_NONE inside the indices of an access. */
struct ein_ast_expr {
	enum ein_expr_kind kind;
	struct ein_loc loc;
	char *name;
	enum ein_builtin fn;
	int64_t ival;
	double fval;
	int height;
	enum ein_op op;
	enum ein_type type;
	int n_arg;
	struct ein_ast_expr **args;
	struct ein_loc op_loc;
	enum ein_ident_kind ident_kind;
	int slot;
	enum ein_type vtype;
};

/* Assignment operators; "init" on the statement marks the "!" forms. */
enum ein_assign {
	EIN_ASSIGN_SET,		/* =    */
	EIN_ASSIGN_ADD,		/* +=   */
	EIN_ASSIGN_MUL,		/* *=   */
	EIN_ASSIGN_MAX,		/* max= */
	EIN_ASSIGN_MIN		/* min= */
};

/* An explicit range "where name in lo:hi" (lo inclusive, hi exclusive). */
struct ein_ast_where {
	struct ein_loc loc;
	char *name;
	struct ein_ast_expr *lo;
	struct ein_ast_expr *hi;
};

/* A statement "lhs op rhs [where ...]".
 * lhs: an EIN_EXPR_ACCESS; op, init: the assignment operator and its "!";
 * op_loc: the position of the operator; n_where, where: explicit ranges. */
struct ein_ast_stmt {
	struct ein_loc loc;
	struct ein_ast_expr *lhs;
	enum ein_assign op;
	int init;
	struct ein_loc op_loc;
	struct ein_ast_expr *rhs;
	int n_where;
	struct ein_ast_where **where;
};

/* A tensor parameter "type(dims) name" or, for an output, just "name".
 * type: EIN_TYPE_NONE when not given; n_dim, dims: the size expressions
 * (identifiers or integer literals), n_dim is -1 when no shape is given. */
struct ein_ast_param {
	struct ein_loc loc;
	char *name;
	enum ein_type type;
	int n_dim;
	struct ein_ast_expr **dims;
};

/* A definition "def name(inputs) -> (outputs) { stmts }".
 * n_temp, temps: the temporaries its body declares with a type and a
 * shape ("float32(M, (N + 1) / 2) T"), in source order. */
struct ein_ast_def {
	struct ein_loc loc;
	char *name;
	int n_input;
	struct ein_ast_param **inputs;
	int n_output;
	struct ein_ast_param **outputs;
	int n_temp;
	struct ein_ast_param **temps;
	int n_stmt;
	struct ein_ast_stmt **stmts;
};

/* A parsed file: its source (name and text) and its definitions. */
struct ein_ast_file {
	struct ein_src *src;
	int n_def;
	struct ein_ast_def **defs;
};

const char *ein_type_name(enum ein_type type);
const char *ein_op_name(enum ein_op op);
const char *ein_assign_name(enum ein_assign op, int init);

struct ein_ast_expr *ein_ast_expr_alloc(enum ein_expr_kind kind,
	struct ein_loc loc);
/* Append __isl_take arg to expr's arguments.  Returns -1 when out of memory
 * (and frees arg). */
int ein_ast_expr_add_arg(struct ein_ast_expr *expr, struct ein_ast_expr *arg);
void ein_ast_expr_free(struct ein_ast_expr *expr);
void ein_ast_where_free(struct ein_ast_where *where);
void ein_ast_stmt_free(struct ein_ast_stmt *stmt);
void ein_ast_param_free(struct ein_ast_param *param);
void ein_ast_def_free(struct ein_ast_def *def);
void ein_ast_file_free(struct ein_ast_file *file);

/* Does "expr" read a tensor (its value depends on the data, not only on
 * indices and sizes)? */
int ein_ast_expr_reads_tensor(const struct ein_ast_expr *expr);

/* Print in canonical source form (what "ein show --stage=source" shows). */
void ein_ast_expr_print(FILE *out, const struct ein_ast_expr *expr);
void ein_ast_def_print(FILE *out, const struct ein_ast_def *def);

/* Find a definition by name; NULL name gives the first. */
struct ein_ast_def *ein_ast_file_find_def(struct ein_ast_file *file,
	const char *name);

#endif
