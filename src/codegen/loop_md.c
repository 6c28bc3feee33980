/*
 * loop_md.c: "llvm.loop" metadata.
 *
 * A loop ID is a distinct node whose first operand is itself, followed by
 * the properties ("llvm.loop.vectorize.width", ...).  The C API has no
 * distinct nodes; a temporary node replaced by the finished one after it
 * is built gives the self-reference (and makes the node distinct).
 *
 * A complete unroll is not here: isl's AST generator does it
 * (schedule.c).  A width larger than 1 also lets the vectoriser reorder floating-point
 * reductions (LLVM's allowReordering), which the legality check has
 * allowed unless the kernel is compiled with strict floating point.
 */
#include <string.h>
#include <llvm-c/DebugInfo.h>
#include "codegen/loop_md.h"

/* The property !{!"name"} or !{!"name", i32 value}. */
static LLVMMetadataRef property(LLVMContextRef c, const char *name,
	int with_value, int value)
{
	LLVMMetadataRef ops[2];

	ops[0] = LLVMMDStringInContext2(c, name, strlen(name));
	if (with_value)
		ops[1] = LLVMValueAsMetadata(LLVMConstInt(
			LLVMInt32TypeInContext(c), value, 0));
	return LLVMMDNodeInContext2(c, ops, with_value ? 2 : 1);
}

void ein_loop_md_attach(LLVMContextRef c, LLVMValueRef latch,
	const struct ein_loop_attr *attr, int keep)
{
	static const struct ein_loop_attr none;
	LLVMMetadataRef ops[8], tmp, id;
	int n = 1;

	if (!attr)
		attr = &none;
	keep = keep && attr->unroll == 0 && !attr->vector;
	if (!keep && !attr->vector && !attr->scalar && attr->unroll <= 0)
		return;
	/* LLVM's unroller, run on a loop around a register tile of explicit
	 * vectors, unrolls it again and spills the tile (a 3x3
	 * convolution's loop over the window: 20% slower). */
	if (keep)
		ops[n++] = property(c, "llvm.loop.unroll.disable", 0, 0);
	/* A loop of explicit vectors is not vectorised again. */
	if ((attr->scalar && !attr->vector) || attr->lanes)
		ops[n++] = property(c, "llvm.loop.vectorize.enable", 1, 0);
	if (attr->vector && !attr->lanes) {
		ops[n++] = property(c, "llvm.loop.vectorize.enable", 1, 1);
		ops[n++] = property(c, "llvm.loop.vectorize.width", 1,
			attr->vector);
		/* A single vector step, fully unrolled before the loop
		 * vectoriser runs, would be left to the SLP vectoriser. */
		if (attr->one_step && attr->unroll <= 0)
			ops[n++] = property(c, "llvm.loop.unroll.disable",
				0, 0);
		/* A partial tile, shorter than the width: masked lanes
		 * rather than a scalar remainder that would be all of it. */
		if (attr->partial)
			ops[n++] = property(c,
				"llvm.loop.vectorize.predicate.enable", 1, 1);
	}
	if (attr->unroll > 0)
		ops[n++] = property(c, "llvm.loop.unroll.count", 1,
			attr->unroll);
	tmp = LLVMTemporaryMDNode(c, NULL, 0);
	ops[0] = tmp;
	id = LLVMMDNodeInContext2(c, ops, n);
	LLVMMetadataReplaceAllUsesWith(tmp, id);
	LLVMSetMetadata(latch, LLVMGetMDKindIDInContext(c, "llvm.loop", 9),
		LLVMMetadataAsValue(c, id));
}
