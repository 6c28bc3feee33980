/*
 * llvm_mem.c: the LLVM types of tensor elements, local buffers, and loads
 * and stores of elements.
 *
 * The local buffers of pack and accumulate (tensors of the scop after the
 * definition's) belong to the function that runs their copies: the
 * kernel, or the outlined body of a parallel loop, whose threads then each
 * have their own (a parallel loop inside the buffer's loop shares its
 * caller's: see body_tensors in llvm_par.c).  A buffer is allocated in
 * that function's entry block, once per call: on the stack when its size
 * is a small constant, which lets SROA keep an accumulated tile in
 * registers, else on the heap, freed at the function's exit.
 *
 * Floats are IEEE values, integers int32 with wrap-around, bool an i1 in
 * registers and a byte in memory.
 */
#include <string.h>
#include <llvm-c/Core.h>
#include "codegen/llvm_private.h"
#include "codegen/mathfn.h"

/* The LLVM type of one element of "type" in registers: bool is an i1. */
LLVMTypeRef ein_llvm_scalar_type(struct llvm_emit *e, enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return LLVMDoubleTypeInContext(e->c);
	case EIN_TYPE_I32: return LLVMInt32TypeInContext(e->c);
	case EIN_TYPE_I8:
	case EIN_TYPE_U8: return LLVMInt8TypeInContext(e->c);
	case EIN_TYPE_BOOL: return LLVMInt1TypeInContext(e->c);
	default: return LLVMFloatTypeInContext(e->c);
	}
}

/* "ty", or a vector of it in the body of an explicit vector loop. */
LLVMTypeRef ein_llvm_lanes_of(struct llvm_emit *e, LLVMTypeRef ty)
{
	return e->lanes ? LLVMVectorType(ty, e->lanes) : ty;
}

/* The LLVM type of values of "type" in registers: a scalar, or a vector
 * in the body of an explicit vector loop. */
LLVMTypeRef ein_llvm_value_type(struct llvm_emit *e, enum ein_type type)
{
	return ein_llvm_lanes_of(e, ein_llvm_scalar_type(e, type));
}

/* The LLVM type of elements of "type" in memory: bool is a byte. */
LLVMTypeRef ein_llvm_memory_type(struct llvm_emit *e, enum ein_type type)
{
	if (type == EIN_TYPE_BOOL)
		return LLVMInt8TypeInContext(e->c);
	return ein_llvm_scalar_type(e, type);
}

/* The scalar "v" in every lane, in the body of an explicit vector loop;
 * else "v". */
LLVMValueRef ein_llvm_splat(struct llvm_emit *e, LLVMValueRef v)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMValueRef undef;

	if (!e->lanes || !v)
		return v;
	undef = LLVMGetPoison(LLVMVectorType(LLVMTypeOf(v), e->lanes));
	v = LLVMBuildInsertElement(e->b, undef, v, LLVMConstInt(i32, 0, 0),
		"");
	return LLVMBuildShuffleVector(e->b, v, undef,
		LLVMConstNull(LLVMVectorType(i32, e->lanes)), "splat");
}

enum ein_type ein_llvm_tensor_type(struct llvm_emit *e, int tensor)
{
	return ein_scop_tensor_type(e->scop, tensor);
}

/* The size in bytes of an element of "type" in memory. */
long ein_llvm_elem_bytes(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_I32: return 4;
	case EIN_TYPE_I8:
	case EIN_TYPE_U8:
	case EIN_TYPE_BOOL: return 1;
	default: return 4;
	}
}

/* Call the C library's "name" with arguments "args" of types "ty". */
LLVMValueRef ein_llvm_call_libc(struct llvm_emit *e, LLVMBuilderRef b,
	const char *name, LLVMTypeRef ret, int n, LLVMTypeRef *ty,
	LLVMValueRef *args)
{
	LLVMValueRef fn = LLVMGetNamedFunction(e->m, name);
	LLVMTypeRef fty = LLVMFunctionType(ret, ty, n, 0);

	if (!fn)
		fn = LLVMAddFunction(e->m, name, fty);
	return LLVMBuildCall2(b, fty, fn, args, n, "");
}

/* Add the attribute "name" at "index" (LLVMAttributeIndex) of "fn". */
static void add_attr(struct llvm_emit *e, LLVMValueRef fn,
	LLVMAttributeIndex index, const char *name)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));

	LLVMAddAttributeAtIndex(fn, index,
		LLVMCreateEnumAttribute(e->c, kind, 0));
}

/* The function "ein.NAME" of the module: internal, never inlined, it
 * calls the C library's allocation function "name" and returns its
 * (noalias) result.  The kernels allocate through it rather than
 * directly: LLVM 16's dead store elimination crashed (a use after free
 * in EarliestEscapeInfo) on a kernel whose temporary came from malloc
 * itself (bench/auto_defs.ein, mm2 at M=32,K=24,N=40,L=16 with
 * --fix-sizes: the automatic schedule), and not on a call to a function
 * it does not know as an allocator. */
static LLVMValueRef alloc_function(struct llvm_emit *e, const char *name,
	LLVMTypeRef fty)
{
	char wrapper[64];
	LLVMValueRef fn, libc, args[4];
	LLVMBuilderRef b;
	unsigned i, n = LLVMCountParamTypes(fty);

	snprintf(wrapper, sizeof(wrapper), "ein.%s", name);
	fn = LLVMGetNamedFunction(e->m, wrapper);
	if (fn)
		return fn;
	libc = LLVMGetNamedFunction(e->m, name);
	if (!libc)
		libc = LLVMAddFunction(e->m, name, fty);
	fn = LLVMAddFunction(e->m, wrapper, fty);
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	add_attr(e, fn, LLVMAttributeFunctionIndex, "noinline");
	add_attr(e, fn, LLVMAttributeReturnIndex, "noalias");
	b = LLVMCreateBuilderInContext(e->c);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(e->c, fn,
		"entry"));
	for (i = 0; i < n && i < 4; ++i)
		args[i] = LLVMGetParam(fn, i);
	LLVMBuildRet(b, LLVMBuildCall2(b, fty, libc, args, n, ""));
	LLVMDisposeBuilder(b);
	return fn;
}

LLVMValueRef ein_llvm_call_alloc(struct llvm_emit *e, LLVMBuilderRef b,
	const char *name, int n, LLVMTypeRef *ty, LLVMValueRef *args)
{
	LLVMTypeRef fty = LLVMFunctionType(e->ptr, ty, n, 0);

	return LLVMBuildCall2(b, fty, alloc_function(e, name, fty), args, n,
		"");
}

/* Fill the "bytes" bytes at "ptr" with 0xff, at "b", if e->poison. */
void ein_llvm_poison(struct llvm_emit *e, LLVMBuilderRef b, LLVMValueRef ptr,
	LLVMValueRef bytes)
{
	if (e->poison)
		LLVMBuildMemSet(b, ptr, LLVMConstInt(
			LLVMInt8TypeInContext(e->c), 0xff, 0), bytes, 1);
}

/* The heap allocation of buffer "t", at "ab": its bytes rounded up to
 * the alignment, from aligned_alloc. */
static LLVMValueRef heap_buffer(struct llvm_emit *e, LLVMBuilderRef ab,
	int t)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(e->scop, t);
	LLVMValueRef args[2], v, mask = LLVMConstInt(e->i64,
		EIN_BUFFER_ALIGN - 1, 0);
	LLVMTypeRef ty[2] = { e->i64, e->i64 };
	int d;

	args[0] = LLVMConstInt(e->i64, EIN_BUFFER_ALIGN, 0);
	args[1] = LLVMConstInt(e->i64,
		ein_llvm_elem_bytes(ein_llvm_tensor_type(e, t)), 0);
	for (d = 0; d < buf->n_dim; ++d)
		args[1] = LLVMBuildMul(ab, args[1], e->extent[t][d], "");
	args[1] = LLVMBuildAnd(ab, LLVMBuildAdd(ab, args[1], mask, ""),
		LLVMBuildNot(ab, mask, ""), "");
	e->own[t] = 1;
	v = ein_llvm_call_alloc(e, ab, "aligned_alloc", 2, ty, args);
	ein_llvm_poison(e, ab, v, args[1]);
	return v;
}

/* Allocate buffer "t" in the entry block of the current function (see
 * the head comment). */
static LLVMValueRef alloc_buffer(struct llvm_emit *e, int t)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(e->scop, t);
	enum ein_type type = ein_llvm_tensor_type(e, t);
	LLVMBuilderRef ab = LLVMCreateBuilderInContext(e->c);
	LLVMValueRef term = LLVMGetBasicBlockTerminator(e->entry), v;

	if (term)
		LLVMPositionBuilderBefore(ab, term);
	else
		LLVMPositionBuilderAtEnd(ab, e->entry);
	if (buf->n_fixed > 0 &&
	    buf->n_fixed <= EIN_STACK_BUFFER_MAX / ein_llvm_elem_bytes(type)) {
		v = LLVMBuildAlloca(ab, LLVMArrayType(
			ein_llvm_memory_type(e, type), buf->n_fixed),
			buf->name);
		LLVMSetAlignment(v, EIN_BUFFER_ALIGN);
		ein_llvm_poison(e, ab, v, LLVMConstInt(e->i64,
			buf->n_fixed * ein_llvm_elem_bytes(type), 0));
	} else {
		v = heap_buffer(e, ab, t);
		LLVMSetValueName2(v, buf->name, strlen(buf->name));
	}
	LLVMDisposeBuilder(ab);
	return v;
}

/* The base pointer of tensor "t" in the current function. */
LLVMValueRef ein_llvm_tensor_base(struct llvm_emit *e, int t)
{
	if (!e->tensor[t])
		e->tensor[t] = alloc_buffer(e, t);
	return e->tensor[t];
}

/* Free the buffers the current function allocated on the heap. */
void ein_llvm_emit_buffer_free(struct llvm_emit *e)
{
	LLVMTypeRef ty = e->ptr;
	int t;

	for (t = 0; t < e->n_tensor; ++t)
		if (e->own[t])
			ein_llvm_call_libc(e, e->b, "free",
				LLVMVoidTypeInContext(e->c), 1, &ty,
				&e->tensor[t]);
}

/* Load the element of "type" at "addr" as it is in memory: in the body
 * of an explicit vector loop, the vector of the elements from "addr" on,
 * or that one element in every lane if "uniform". */
LLVMValueRef ein_llvm_load_memory(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name)
{
	LLVMTypeRef ty = ein_llvm_memory_type(e, type);
	LLVMValueRef v;

	if (!e->lanes || uniform)
		return ein_llvm_splat(e, LLVMBuildLoad2(e->b, ty, addr, name));
	v = LLVMBuildLoad2(e->b, LLVMVectorType(ty, e->lanes), addr, name);
	LLVMSetAlignment(v, ein_llvm_elem_bytes(type));
	return v;
}

LLVMValueRef ein_llvm_load_every_other(struct llvm_emit *e,
	LLVMValueRef addr, enum ein_type type, const char *name)
{
	int n = e->lanes, l;
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMValueRef mask[n > 0 ? n : 1], lo, hi;
	LLVMValueRef off = LLVMConstInt(e->i64, n - 1, 0);

	lo = ein_llvm_load_memory(e, addr, type, 0, name);
	hi = ein_llvm_load_memory(e, LLVMBuildInBoundsGEP2(e->b,
		ein_llvm_memory_type(e, type), addr, &off, 1, ""), type, 0,
		name);
	for (l = 0; l < n; ++l)
		mask[l] = LLVMConstInt(i32, 2 * l < n ? 2 * l : 2 * l + 1, 0);
	return LLVMBuildShuffleVector(e->b, lo, hi, LLVMConstVector(mask, n),
		name);
}

/* Store "v", as it is in memory, at "addr" (a vector from "addr" on in
 * the body of an explicit vector loop). */
void ein_llvm_store_memory(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr)
{
	LLVMValueRef st = LLVMBuildStore(e->b, v, addr);

	if (e->lanes)
		LLVMSetAlignment(st, ein_llvm_elem_bytes(type));
}

/* Is a vector of "bytes" bytes stored with a non-temporal hint?  Only
 * vectors of 16, 32 or 64 bytes, the sizes of movntps and its wider
 * forms. */
static int streams(long bytes)
{
	return bytes == 16 || bytes == 32 || bytes == 64;
}

LLVMValueRef ein_llvm_stream_aligned_from(struct llvm_emit *e,
	LLVMValueRef addr, enum ein_type type, int lanes, LLVMValueRef init)
{
	long elem = ein_llvm_elem_bytes(type), bytes = lanes * elem;
	LLVMValueRef p, head, misfit;

	if (!streams(bytes))
		return NULL;
	p = LLVMBuildPtrToInt(e->b, addr, e->i64, "");
	head = LLVMBuildAnd(e->b, LLVMBuildNeg(e->b, p, ""),
		LLVMConstInt(e->i64, bytes - 1, 0), "");
	head = LLVMBuildUDiv(e->b, head, LLVMConstInt(e->i64, elem, 0), "");
	misfit = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, p,
		LLVMConstInt(e->i64, elem - 1, 0), ""),
		LLVMConstInt(e->i64, 0, 0), "");
	head = LLVMBuildSelect(e->b, misfit, LLVMConstInt(e->i64, 0, 0), head,
		"head");
	return LLVMBuildNSWAdd(e->b, init, head, "aligned");
}

/* Store the vector "v" at "addr" with a non-temporal hint (a store that
 * bypasses the caches: movntps, stnp) where "addr" is aligned to the
 * vector's size, which that instruction needs (LLVM splits an unaligned
 * one into scalar stores), and as a plain store elsewhere: a branch per
 * vector, always taken the same way along a row (vector_loop.c starts
 * the vectors of a long loop where its first streamed store is
 * aligned).  Only vectors that streams(); others are stored plainly. */
static void store_streamed(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr)
{
	long bytes = e->lanes * ein_llvm_elem_bytes(type);
	LLVMValueRef low, one, st;
	LLVMBasicBlockRef nt, plain, join;
	LLVMMetadataRef md;

	if (!streams(bytes)) {
		ein_llvm_store_memory(e, v, type, addr);
		return;
	}
	low = LLVMBuildAnd(e->b, LLVMBuildPtrToInt(e->b, addr, e->i64, ""),
		LLVMConstInt(e->i64, bytes - 1, 0), "");
	nt = ein_llvm_new_block(e, "stream");
	plain = ein_llvm_new_block(e, "unaligned");
	join = ein_llvm_new_block(e, "stored");
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, low,
		LLVMConstInt(e->i64, 0, 0), ""), nt, plain);
	LLVMPositionBuilderAtEnd(e->b, nt);
	st = LLVMBuildStore(e->b, v, addr);
	LLVMSetAlignment(st, bytes);
	one = LLVMConstInt(LLVMInt32TypeInContext(e->c), 1, 0);
	md = LLVMValueAsMetadata(one);
	LLVMSetMetadata(st, LLVMGetMDKindIDInContext(e->c, "nontemporal", 11),
		LLVMMetadataAsValue(e->c, LLVMMDNodeInContext2(e->c, &md, 1)));
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, plain);
	ein_llvm_store_memory(e, v, type, addr);
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
	e->streamed = 1;
}

/* Non-temporal stores are weakly ordered: a fence at the exit of a
 * function that made some orders them before whatever reads the results
 * (the caller, or the threads after the pool's join). */
void ein_llvm_emit_stream_fence(struct llvm_emit *e)
{
	if (e->streamed)
		LLVMBuildFence(e->b, LLVMAtomicOrderingSequentiallyConsistent,
			0, "");
}

/* Load an element of "type" from "addr" into a register (see
 * ein_llvm_load_memory). */
LLVMValueRef ein_llvm_load_value(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name)
{
	LLVMValueRef v = ein_llvm_load_memory(e, addr, type, uniform, name);

	if (type != EIN_TYPE_BOOL)
		return v;
	return LLVMBuildICmp(e->b, LLVMIntNE, v,
		ein_mathfn_int(LLVMTypeOf(v), 0), "");
}

/* Store "v" at "addr", in tensor or buffer "t". */
void ein_llvm_store_value(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr, int t)
{
	if (type == EIN_TYPE_BOOL)
		v = LLVMBuildZExt(e->b, v, ein_llvm_lanes_of(e,
			ein_llvm_memory_type(e, type)), "");
	if (e->stream && !ein_scop_get_buffer(e->scop, t))
		store_streamed(e, v, type, addr);
	else
		ein_llvm_store_memory(e, v, type, addr);
}
