/*
 * specialize.c: restrict a scop's context to given size values.
 *
 * isl's AST generator simplifies every bound and condition under the
 * context, so with the sizes fixed there the loops get constant bounds
 * and the tensor extents fold to constants: what "ein compile --sizes"
 * asks for.
 */
#include <isl/val.h>
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

__isl_give isl_set *ein_specialize_fix(__isl_take isl_set *set,
	enum isl_dim_type type, unsigned pos, int64_t value)
{
	isl_val *v;

	if (!set)
		return NULL;
	v = isl_val_int_from_si(isl_set_get_ctx(set), value);
	return isl_set_fix_val(set, type, pos, v);
}
