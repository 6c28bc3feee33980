/*
 * specialize.c: restrict a scop's context to given size values.
 *
 * isl's AST generator simplifies every bound and condition under the
 * context, so with the sizes fixed there the loops get constant bounds
 * and the tensor extents fold to constants: what "ein compile --sizes"
 * asks for.
 */
#include "poly/specialize.h"

struct ein_scop *ein_specialize_scop(struct ein_scop *scop,
	__isl_keep isl_set *sizes)
{
	if (!scop)
		return NULL;
	scop->context = isl_set_intersect_params(scop->context,
		isl_set_copy(sizes));
	if (!scop->context)
		return (ein_scop_free(scop), NULL);
	return scop;
}
