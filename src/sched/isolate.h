#ifndef EIN_SCHED_ISOLATE_H
#define EIN_SCHED_ISOLATE_H

/*
 * isolate.h: full-tile separation.  A loop that is vectorised or unrolled
 * completely runs best when its trip count is the constant of a full tile;
 * at the edges of the iteration space (the last tile of a size the tile
 * does not divide) it is shorter.  isl's AST generator can generate the
 * iterations where every such loop is full separately ("isolate"), where
 * it knows the bounds are constants, and the others with the general code.
 */

#include <isl/set.h>
#include <isl/aff.h>
#include <isl/schedule_node.h>

/* The loops of one statement as the levels of its schedule vector:
 * val[k] is the value of level k over "domain"; sensitive[k] says whether
 * the loop at level k wants full tiles (vectorised, unrolled entirely);
 * parallel[k] whether it runs across threads (NULL: none does). */
struct ein_isolate_stmt {
	isl_set *domain;
	int n_level;
	isl_pw_aff **val;
	const int *sensitive;
	const int *parallel;
};

/* For each level d of "stmt", in full[d] (n_level entries) the values of
 * levels 0..d for which the sensitive loops whose tiles depend on level d
 * (and no deeper one) run full, to isolate at level d; NULL where nothing
 * is to be isolated.  Returns -1 on error. */
int ein_isolate_find(const struct ein_isolate_stmt *stmt, isl_set **full);

/* Ask isl to generate the iterations "full" of the band "node" (one
 * member) separately, with the member's loop type there too (a complete
 * unroll stays one). */
__isl_give isl_schedule_node *ein_isolate_band(
	__isl_take isl_schedule_node *node, __isl_take isl_set *full);

#endif
