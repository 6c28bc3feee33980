/*
 * loop_md.h: LLVM loop metadata for the attributes a schedule gives a
 * loop (vector width, unroll factor), so that LLVM's loop vectoriser and
 * unroller do what the schedule asks.
 */
#ifndef EIN_CODEGEN_LOOP_MD_H
#define EIN_CODEGEN_LOOP_MD_H

#include <llvm-c/Core.h>
#include "sched/schedule.h"

/* Attach the loop metadata for "attr" (NULL: none) to "latch", the branch
 * back to a loop's header: a vector width and an unroll factor (a
 * complete unroll is done by isl before).  "keep" asks that LLVM not
 * unroll the loop unless "attr" does: it holds a register tile of
 * explicit vectors that the schedule chose. */
void ein_loop_md_attach(LLVMContextRef c, LLVMValueRef latch,
	const struct ein_loop_attr *attr, int keep);

#endif
