/*
 * analog.h: seeds from the installed schedules of a definition of the
 * same structure, whatever the tuned one is called.
 *
 * A GEMM-shaped contraction (`W(a, b) +=! U(a, c) * V(c, b)`, a batched
 * one, or one whose indices group into M, N and K, as TCCG's
 * abc-acd-db) is a matmul or a batched_matmul under other names.  The
 * schedule lookup (sched/lookup.h) would find for matmul at the
 * contraction's M, N and K is a good start for it: its directives,
 * renamed by the structural mapping (statements, loops, tensors), are
 * one candidate of the search, measured after the automatic schedule.
 * A definition of several statements gets the seed of each GEMM-shaped
 * one (PolyBench's 2mm and 3mm: two and three chained products).
 * The mapping does not make it legal: the compiler's legality check
 * decides, as for every candidate (an illegal one is logged `illegal`).
 */
#ifndef EIN_AUTOTUNE_ANALOG_H
#define EIN_AUTOTUNE_ANALOG_H

#include "ein.h"
#include "autotune/space.h"

/* The directives (schedule-file lines, no headers) of the schedule that
 * lookup finds on "target" for the GEMM whose structure the contraction
 * of "space" has, renamed for it, for each of its GEMM-shaped
 * statements (one with no such structure, no schedule found, or a file
 * that names what the mapping does not cover keeps its default); NULL
 * if none has one.  *why (NULL then) says which file and how its names
 * were mapped, for each statement, joined by "; "
 * ("schedules/x86_64-avx512/matmul.sched, matmul as W: i=a j=b k=c").
 * The caller frees both.  Lookup's and the parser's errors are left on
 * ctx's last error, as they are no error of the run. */
char *ein_analog_directives(ein_ctx *ctx, const struct ein_space *space,
	const char *target, char **why);

#endif
