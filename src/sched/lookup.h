/* TEMPORARY STUB */
#ifndef EIN_SCHED_LOOKUP_H
#define EIN_SCHED_LOOKUP_H
#include "ein.h"
int ein_sched_lookup(ein_ctx *ctx, const char *explicit_path, const char *target, const char *def,
	int n_size, const char *const *size_names, const long *size_values, char **chosen_path, char **why);
#endif
