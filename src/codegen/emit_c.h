/*
 * emit_c.h: C text for the isl AST of a scop, the second emitter over the
 * shared walker (walk.h), on which a GPU backend's OpenCL C builds.
 *
 * The function has the signature of the kernel an object compiled ahead
 * of time exports (wrap.h, cheader.h):
 *
 *	int NAME(const T *in0, ..., T *out0, ..., int64_t s0, ...)
 *
 * with the same checks (EIN_AOT_ERROR_NULL, EIN_AOT_ERROR_SIZE) and the
 * same results as the CPU code, up to the rounding of floating point that
 * docs/language.md allows without --strict-fp: the loops of isl's AST as
 * C loops (a parallel or vectorised loop is a plain loop with a comment
 * saying what the schedule asked), statement bodies in the C types of
 * their values, integers wrapping in int32 as ein's do.  Only scalar code:
 * explicit vectors, parallel loops and prefetches are the CPU backend's.
 */
#ifndef EIN_CODEGEN_EMIT_C_H
#define EIN_CODEGEN_EMIT_C_H

#include <stdio.h>
#include <isl/ast.h>
#include "ein.h"
#include "poly/scop.h"
#include "codegen/wrap.h"

struct ein_loop_attr;

/* Print what every file of emitted C starts with: its includes, the
 * return codes and the helpers the functions call. */
void ein_emit_c_prelude(FILE *out);

/* Print the function of the kernel "spec" describes, whose scop is
 * "scop" and AST "tree", to "out".  Returns -1 with an error on ctx:
 * EIN_ERROR_UNSUPPORTED for a constant tensor (spec->konst), whose data
 * C text does not hold, or for a tensor or size named as isl names loop
 * iterators ("c0", "c1", ...); an internal error otherwise. */
int ein_emit_c(ein_ctx *ctx, FILE *out, const struct ein_wrap_spec *spec,
	struct ein_scop *scop, __isl_keep isl_ast_node *tree);

/* Print the helpers the statements call (index arithmetic, int32
 * arithmetic, saturating conversions), in C that OpenCL C also takes. */
void ein_emit_c_helpers(FILE *out);

/* ---- the printer as a layer for another dialect (PPCG's gpu_print.c
 * under its OpenCL backend): opencl/emit.c prints kernels with it. ---- */

/* The dialect: C, or OpenCL C (the builtins overloaded: exp, not expf;
 * the integer types are the OpenCL prelude's typedefs). */
enum ein_c_lang {
	EIN_C_LANG_C,
	EIN_C_LANG_OPENCL
};

/* How a backend runs loops across a device: map(user, attr, &offset,
 * &stride) returns 1 if the loop with attributes "attr" is mapped, with
 * C expressions (kept by the backend while printing) for the offset of
 * this work-item's first iteration (from the loop's start) and the
 * number of work-items that share the loop; the loop then runs from
 * start + offset by step * stride, so that every iteration runs once
 * whatever the grid's size.  0 if not mapped.
 * fence (NULL: none): a statement that synchronises the work-items of a
 * group (OpenCL's barrier), printed before and after the outermost loop
 * of a copy that they run together (gpu_copy, sched/schedule.h), and at
 * the end of each iteration of a loop for which fenced(user, node, attr)
 * returns 1 (a loop all of them run, around the threads' loops).
 * guard (NULL: none): the condition under which a work-item runs the one
 * iteration of a loop with attributes "attr" that isl did not generate
 * (NULL if all of them do): a mapped loop's iteration runs in one
 * work-item (work-group) only.
 * opaque_zero (NULL: none): an expression that is 0 but that the device
 * compiler cannot fold, added to the start and the step of a fenced loop
 * so that it does not know the loop's trip count (PoCL 3.1 computes wrong
 * results when it does, as it unrolls a loop holding barriers). */
struct ein_c_loop_map {
	void *user;
	int (*map)(void *user, const struct ein_loop_attr *attr,
		const char **offset, const char **stride);
	const char *fence;
	int (*fenced)(void *user, __isl_keep isl_ast_node *node,
		const struct ein_loop_attr *attr);
	const char *(*guard)(void *user, const struct ein_loop_attr *attr);
	const char *opaque_zero;
};

struct ein_c_printer;

/* A printer of the statements and loops of "scop" to "out", in "lang",
 * with the loop map "map" (NULL: none; kept). */
struct ein_c_printer *ein_c_printer_alloc(ein_ctx *ctx, FILE *out,
	struct ein_scop *scop, enum ein_c_lang lang,
	const struct ein_c_loop_map *map);
void ein_c_printer_free(struct ein_c_printer *p);
/* Indent the next lines by "depth" tabs. */
void ein_c_printer_set_depth(struct ein_c_printer *p, int depth);
/* Print the extents the row-major offsets use (ext_T_d) as constants.
 * Returns -1 on error. */
int ein_c_printer_extents(struct ein_c_printer *p);
/* Print "node" and everything under it.  Returns -1 on error. */
int ein_c_printer_node(struct ein_c_printer *p, __isl_keep isl_ast_node *node);
/* The C type of elements of "type" in memory (bool: uint8_t). */
const char *ein_c_memory_type(enum ein_type type);
/* Check that no tensor or size of "scop" is named as the printer names
 * loop iterators; -1 with EIN_ERROR_UNSUPPORTED if one is. */
int ein_c_check_names(ein_ctx *ctx, const struct ein_scop *scop);

#endif
