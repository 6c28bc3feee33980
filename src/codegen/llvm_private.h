/*
 * llvm_private.h: the state of the LLVM backend, shared by its files:
 * emit_llvm.c (the kernel's function, loops and conditions), llvm_expr.c
 * (isl's integer expressions), llvm_mem.c (types, buffers, loads and
 * stores), llvm_stmt.c (statement bodies) and llvm_par.c (parallel
 * loops).  Nothing outside codegen/ includes it: the backend's interface
 * is emit_llvm.h.
 */
#ifndef EIN_CODEGEN_LLVM_PRIVATE_H
#define EIN_CODEGEN_LLVM_PRIVATE_H

#include <isl/ast.h>
#include <isl/id.h>
#include <llvm-c/Core.h>
#include "ctx.h"
#include "codegen/walk.h"
#include "frontend/ast.h"
#include "poly/scop.h"

/* The largest buffer kept on the stack, in bytes. */
#define EIN_STACK_BUFFER_MAX 32768
/* The alignment of buffers, in bytes: a cache line, and a multiple of
 * every vector width. */
#define EIN_BUFFER_ALIGN 64

/* A loop or condition being emitted: the blocks its end jumps to, and for
 * a loop its iterator and attributes, and the number of explicit vector
 * loops emitted before it: a loop around several (a register tile the
 * schedule unrolled) is kept from LLVM's unroller (loop_md.h). */
struct block_frame {
	LLVMBasicBlockRef header;
	LLVMBasicBlockRef exit;
	LLVMBasicBlockRef other;
	isl_id *iter;
	const struct ein_loop_attr *attr;
	int n_explicit;
};

/* The state of one emission.
 * ctx, scop: what is compiled; c, m, b: LLVM context, module, builder;
 * fn, entry: the kernel and its entry block (home of the allocas);
 * i64, ptr: the index and pointer types;
 * n_tensor: the number of tensors of the scop (buffers included);
 * tensor: the base pointer of each tensor (NULL for a buffer not yet
 *	allocated in this function); extent: the i64 extents of each tensor;
 *	size: the size arguments;
 * own: for each tensor, 1 if this function allocated it on the heap (and
 *	frees it at its exit);
 * n_iter, iter_id, iter_slot: the loop iterators seen so far;
 * n_frame, frame, max_frame: the enclosing loops and conditions, and
 *	the room allocated for them (a loop unrolled by isl over a
 *	parametric bound nests one condition per iteration, up to 256);
 * em: the walker's emitter, which statement bodies use for indices;
 * name: the kernel's name; n_par: the number of parallel loops outlined
 *	so far (shared by the functions of one kernel);
 * poison: fill each buffer and temporary with 0xff bytes (a NaN in
 *	every float) as it is allocated, so that a read of an element
 *	before it is written shows in the results (EIN_POISON_BUFFERS=1,
 *	for tests; the code is otherwise the same);
 * lanes, vec_iter: in the body of a loop emitted as explicit vectors, its
 *	width (statement values are vectors of that many lanes) and its
 *	iterator; else 0 and NULL;
 * n_explicit: the number of loops emitted as explicit vectors so far;
 * stream: in the body of a loop emitted as explicit vectors, whether its
 *	stores to tensors are non-temporal (store_streamed);
 * streamed: the current function made a non-temporal store;
 * avx512: the target has AVX-512 (mathfn.h);
 * vnni: the target has AVX512-VNNI (llvm_dot4.c);
 * pmaddwd: it has not, but AVX2: the same dot products by vpmaddwd;
 * u7: per tensor, 1 for the uint8 operands of dot products whose bytes
 *	are below 128 when those of the inputs the kernel scans on entry
 *	are (ein_llvm_dot4_u7_test), NULL if none (shared with the bodies
 *	of parallel loops, freed by ein_emit_llvm);
 * dot4_short: the body being emitted is the version for bytes below 128
 *	(the AVX2 dot products of the tensors marked in u7 by vpmaddubsw). */
struct llvm_emit {
	ein_ctx *ctx;
	const struct ein_emitter *em;
	struct ein_scop *scop;
	LLVMContextRef c;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMBasicBlockRef entry;
	LLVMTypeRef i64, ptr;
	int n_tensor;
	LLVMValueRef *tensor;
	unsigned char *own;
	LLVMValueRef **extent;
	LLVMValueRef *size;
	int n_iter;
	isl_id **iter_id;
	LLVMValueRef *iter_slot;
	int n_frame;
	int max_frame;
	struct block_frame *frame;
	const char *name;
	int *n_par;
	int relaxed;
	int poison;
	int lanes;
	isl_id *vec_iter;
	int n_explicit;
	int stream;
	int streamed;
	int avx512;
	int vnni;
	int pmaddwd;
	char *u7;
	int dot4_short;
};

/* ---- llvm_expr.c: the integer expressions of isl's AST ---- */

/* The alloca of iterator "id" in the current function; a new one if
 * "create" and there is none yet, else NULL. */
LLVMValueRef ein_llvm_iter_slot(struct llvm_emit *e, isl_id *id, int create);

/* The walker's expression callbacks (walk.h), on i64 values. */
ein_value ein_llvm_expr_int(void *user, long v);
ein_value ein_llvm_expr_id(void *user, isl_id *id);
ein_value ein_llvm_expr_op(void *user, enum isl_ast_expr_op_type op, int n,
	ein_value *args);

/* ---- emit_llvm.c: the kernel's function, loops and conditions ---- */

/* A new block at the end of the current function. */
LLVMBasicBlockRef ein_llvm_new_block(struct llvm_emit *e, const char *name);

/* Give "fn" the attribute "name" at "idx" (a parameter, from 1, or
 * LLVMAttributeFunctionIndex). */
void ein_llvm_add_attr(struct llvm_emit *e, LLVMValueRef fn, unsigned idx,
	const char *name);

/* Compute the extents of every tensor (buffers included) at the start of
 * the function. */
int ein_llvm_emit_extents(struct llvm_emit *e);

/* Size "i", passed as "param": the constant when the context fixes it
 * (a kernel specialised to its sizes), so that LLVM sees it also in the
 * outlined parallel bodies, which the runtime calls through a pointer. */
LLVMValueRef ein_llvm_size_value(struct llvm_emit *e, int i,
	LLVMValueRef param);

/* Free what "e" holds for its current function (not the module). */
void ein_llvm_emit_clear(struct llvm_emit *e);

/* ---- llvm_mem.c: types, buffers, loads and stores ---- */

/* The LLVM type of one element of "type" in registers: bool is an i1. */
LLVMTypeRef ein_llvm_scalar_type(struct llvm_emit *e, enum ein_type type);

/* "ty", or a vector of it in the body of an explicit vector loop. */
LLVMTypeRef ein_llvm_lanes_of(struct llvm_emit *e, LLVMTypeRef ty);

/* The LLVM type of values of "type" in registers: a scalar, or a vector
 * in the body of an explicit vector loop. */
LLVMTypeRef ein_llvm_value_type(struct llvm_emit *e, enum ein_type type);

/* The LLVM type of elements of "type" in memory: bool is a byte. */
LLVMTypeRef ein_llvm_memory_type(struct llvm_emit *e, enum ein_type type);

/* The scalar "v" in every lane, in the body of an explicit vector loop;
 * else "v". */
LLVMValueRef ein_llvm_splat(struct llvm_emit *e, LLVMValueRef v);

/* The element type of tensor (or buffer) "tensor". */
enum ein_type ein_llvm_tensor_type(struct llvm_emit *e, int tensor);

/* The size in bytes of an element of "type" in memory. */
long ein_llvm_elem_bytes(enum ein_type type);

/* Call the C library's "name" with arguments "args" of types "ty". */
LLVMValueRef ein_llvm_call_libc(struct llvm_emit *e, LLVMBuilderRef b,
	const char *name, LLVMTypeRef ret, int n, LLVMTypeRef *ty,
	LLVMValueRef *args);

/* Call the C library's allocation function "name" (malloc,
 * aligned_alloc) with arguments "args" of types "ty", through an
 * internal function of the module (llvm_mem.c says why). */
LLVMValueRef ein_llvm_call_alloc(struct llvm_emit *e, LLVMBuilderRef b,
	const char *name, int n, LLVMTypeRef *ty, LLVMValueRef *args);

/* Fill the "bytes" bytes at "ptr" with 0xff, at "b", if e->poison. */
void ein_llvm_poison(struct llvm_emit *e, LLVMBuilderRef b, LLVMValueRef ptr,
	LLVMValueRef bytes);

/* The base pointer of tensor "t" in the current function. */
LLVMValueRef ein_llvm_tensor_base(struct llvm_emit *e, int t);

/* Free the buffers the current function allocated on the heap. */
void ein_llvm_emit_buffer_free(struct llvm_emit *e);

/* Load the element of "type" at "addr" as it is in memory: in the body
 * of an explicit vector loop, the vector of the elements from "addr" on,
 * or that one element in every lane if "uniform". */
LLVMValueRef ein_llvm_load_memory(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name);

/* In the body of an explicit vector loop (lanes >= 2), the elements of
 * "type" (not bool) at "addr", addr + 2, ..., addr + 2 (lanes - 1) as
 * they are in memory: two vector loads, the second starting at the
 * first's last element so that neither reads past the last element
 * used, then every other element of the pair (one vpermt2ps on
 * AVX-512), the interleaved load LLVM's loop vectoriser makes, where a
 * vector of addresses would be a gather. */
LLVMValueRef ein_llvm_load_every_other(struct llvm_emit *e,
	LLVMValueRef addr, enum ein_type type, const char *name);

/* Store "v", as it is in memory, at "addr" (a vector from "addr" on in
 * the body of an explicit vector loop). */
void ein_llvm_store_memory(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr);

/* The first element from "addr" on, of "type", at which a vector of
 * "lanes" is aligned for a non-temporal store, as "init" plus the number
 * of elements before it (0 to lanes - 1; 0 where "addr" is not aligned
 * to an element, as no element after it is aligned either); NULL if
 * such vectors are not streamed (store_streamed). */
LLVMValueRef ein_llvm_stream_aligned_from(struct llvm_emit *e,
	LLVMValueRef addr, enum ein_type type, int lanes, LLVMValueRef init);

/* Non-temporal stores are weakly ordered: a fence at the exit of a
 * function that made some orders them before whatever reads the results
 * (the caller, or the threads after the pool's join). */
void ein_llvm_emit_stream_fence(struct llvm_emit *e);

/* Load an element of "type" from "addr" into a register (see
 * ein_llvm_load_memory). */
LLVMValueRef ein_llvm_load_value(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name);

/* Store "v" at "addr", in tensor or buffer "t". */
void ein_llvm_store_value(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr, int t);

/* ---- llvm_par.c: parallel loops ---- */

/* The walker's parallel_for (walk.h): the loop "node" as a call of the
 * runtime's parallel for over its outlined body. */
int ein_llvm_parallel_for(void *user, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr);

/* ---- llvm_stmt.c: statement bodies ---- */

/* May statement "us" be computed as explicit vectors along "iter"
 * (walk.h)?  A computation or a copy whose accesses are unguarded (a
 * select then evaluates both sides) and each either contiguous or on one
 * element along the loop, whose writes are contiguous (a write to one
 * element would be a reduction across the lanes, left to LLVM's
 * vectoriser), whose index variables, where its expression uses them,
 * step by a constant, and whose calls are fast on vectors (so never a
 * call of the C library).  The schedule's legality check has shown that
 * the loop carries no dependence other than such reductions. */
int ein_llvm_vector_stmt(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int width);

/* The walker's stream_start (walk.h): where the non-temporal stores of
 * statement "us", in a loop over "iter" from "init" emitted as explicit
 * vectors of "width" lanes, are aligned; its stores to tensors stream
 * (ein_llvm_store_value), those to buffers and its copies do not. */
int ein_llvm_stream_start(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, ein_value init, int width, ein_value *start);

/* The walker's user_stmt (walk.h): the body of statement instance "us". */
int ein_llvm_user_stmt(void *user, const struct ein_user_stmt *us);

/* ---- llvm_dot4.c: u8 x s8 dot products of 4 as VNNI's vpdpbusd ---- */

/* Is the statement of "us", in a loop over "iter" emitted as explicit
 * vectors of "lanes", a sum of four u8 x s8 products that
 * ein_llvm_dot4_build computes with vpdpbusd, or vpmaddwd on AVX2 (the
 * head comment of llvm_dot4.c)?  Never unless the target has AVX512-VNNI
 * or AVX2 (e->vnni, e->pmaddwd). */
int ein_llvm_dot4_stmt_matches(struct llvm_emit *e,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int lanes);

/* The new value of the statement's int32 accumulator vector at
 * "acc_addr", in the body of the explicit vector loop, for a statement
 * that ein_llvm_dot4_stmt_matches; "addr" gives the address of an access
 * (by position) at lane 0.  NULL on error. */
LLVMValueRef ein_llvm_dot4_build(struct llvm_emit *e,
	const struct ein_user_stmt *us, LLVMValueRef (*addr)(void *user,
	int pos), void *user, LLVMValueRef acc_addr);

/* On AVX2 without VNNI, where some dot product's unsigned bytes come
 * from the kernel's inputs (read directly, or through temporaries that
 * select among such bytes and literals below 128), the test, emitted at
 * the builder, that every byte of those inputs is below 128: the
 * kernel's body is then emitted twice, the version for the test's true
 * side computing those dot products by vpmaddubsw (exact there: a pair
 * of products sums to at most 2 x 127 x 128 < 2^15).  NULL (nothing
 * emitted) elsewhere. */
LLVMValueRef ein_llvm_dot4_u7_test(struct llvm_emit *e);

#endif
