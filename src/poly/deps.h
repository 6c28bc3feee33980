/*
 * deps.h: the exact dependences of a definition, and the checks that a
 * schedule respects them.
 *
 * A dependence relates two statement instances that access the same
 * tensor element, at least one of them writing it, the source running
 * first in the sequential meaning of the definition (ein_schedule_source).
 * They are memory-based (every such pair, not only the last writer), exact
 * affine relations computed by isl.  Those between two updates of one
 * reduction statement through its left-hand side ("C(i,j) += ...") are
 * marked as reductions: reordering them only reassociates the reduction,
 * which is allowed unless floating-point results must stay bit-identical
 * (strict); running them at the same time never is.
 */
#ifndef EIN_POLY_DEPS_H
#define EIN_POLY_DEPS_H

#include <isl/map.h>
#include <isl/union_map.h>
#include <isl/printer.h>
#include "ein.h"
#include "poly/scop.h"

enum ein_dep_kind {
	EIN_DEP_FLOW,		/* write, then read */
	EIN_DEP_ANTI,		/* read, then write */
	EIN_DEP_OUTPUT		/* write, then write */
};

/* The dependences from statement "src" to statement "snk" (positions in
 * the scop) of one kind through one tensor: source instance -> sink
 * instance. */
struct ein_dep {
	int src;
	int snk;
	int tensor;
	enum ein_dep_kind kind;
	int reduction;
	isl_map *map;
};

struct ein_deps {
	struct ein_scop *scop;
	int n;
	struct ein_dep *dep;
};

/* The dependences of "scop", whose sequential order is "order" (a flat
 * schedule, taken).  Returns NULL on error. */
struct ein_deps *ein_deps_compute(struct ein_scop *scop,
	__isl_take isl_union_map *order);
void ein_deps_free(struct ein_deps *deps);

/* Does the flat schedule "sched" run the source of every dependence before
 * its sink?  Reductions are exempt unless "strict".  Returns 1 if so, 0 if
 * not (with a description of the first violated dependence and a witness
 * in *why, to be freed), -1 on error. */
int ein_deps_check_order(const struct ein_deps *deps,
	__isl_keep isl_union_map *sched, int strict, char **why);

/* Is flat dimension "dim" of "sched", a loop that runs the statements
 * with member[s] set, free of carried dependences: does every dependence
 * between instances of those statements that agree on the dimensions
 * before "dim" also agree on "dim"?  Reductions count unless
 * "allow_reduction".  Returns 1 if so, 0 if not (with *why), -1 on
 * error. */
int ein_deps_check_carried(const struct ein_deps *deps,
	__isl_keep isl_union_map *sched, int dim, const int *member,
	int allow_reduction, char **why);

__isl_give isl_printer *ein_deps_print(__isl_take isl_printer *p,
	const struct ein_deps *deps);

#endif
