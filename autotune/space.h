/*
 * space.h: the search space of the autotuner, built from the kernel.
 *
 * The space of a definition at given sizes is described by its
 * polyhedral statements as the schedule files name them ("C", "C.init",
 * "T#2"), each with its default loops (the names the directives use),
 * their extents at the tuning sizes, and its accesses as coefficient
 * matrices (for the cost model's footprints).  A point of the space, a
 * candidate, is a plan per statement:
 *
 *   tile[v]      the inner size of loop v's split (0: not split);
 *   order        the loops after the splits, outermost first, as ids:
 *                2v is loop v (or v.o if split), 2v + 1 is v.i;
 *   vec          the vector width of the innermost loop (0: none);
 *   unroll_id,   a loop unrolled by a factor (0: none);
 *   unroll
 *   par_id       the loop run in parallel (-1: none);
 *   pack,        whether the tile of the tensor read by access pack_access
 *   pack_access, in an iteration of loop pack_id is copied to a contiguous
 *   pack_id,     buffer (pack; the BLIS packing of a panel), and in which
 *   pack_layout  layout: EIN_PACK_TENSOR (the tensor's order),
 *                EIN_PACK_VECTOR_LAST (the index of the vector loop moved
 *                innermost, so that the vector loop reads the buffer
 *                contiguously: TTGT's transposition, "layout b d j"), or
 *                a block size N > 1 ("layout j/N ... j%N": micro-panels
 *                of N columns of the vector loop's index, BLIS's);
 *   acc, acc_id  whether the output tile updated in an iteration of loop
 *                acc_id is kept in a local buffer (accumulate): the
 *                register blocking of a micro-kernel;
 *   place        for producers of multi-statement kernels: none, fuse
 *                with a later statement at "level" loops, or compute_at
 *                a later statement's loop at "level"; for an
 *                initialisation, compute_at its update's loop at "level"
 *                (the output tile initialised inside the tile loop,
 *                "C.init: compute_at C j.o", instead of a separate pass).
 *
 * A plan prints as directives: "split" for each tiled loop, one
 * "reorder" of all loops, "vectorize", "unroll", "parallel",
 * "accumulate", "pack", then the
 * placements.  Candidates are generated freely; the compiler's legality
 * check rejects the illegal ones.  Mutations are a table of operators
 * (space.c) so that further directives (pack, accumulate) are added as
 * one function and one entry each.
 */
#ifndef EIN_AUTOTUNE_SPACE_H
#define EIN_AUTOTUNE_SPACE_H

#include <stdint.h>
#include "ein.h"
#include "rng.h"

#define EIN_SPACE_MAX_LOOP 8
#define EIN_SPACE_MAX_STMT 12
#define EIN_SPACE_MAX_ACCESS 12
#define EIN_SPACE_MAX_DIM 8
#define EIN_SPACE_MAX_CHOICE 24

/* An access of a statement.
 * tensor, name: its position in the definition and its name; is_write:
 * the left-hand side;
 * elem_size: the bytes of one element; n_dim: the tensor's rank;
 * coef[d][v]: the coefficient of loop v (default order) in dimension d. */
struct ein_space_access {
	int tensor;
	char name[64];
	int is_write;
	int elem_size;
	int n_dim;
	int coef[EIN_SPACE_MAX_DIM][EIN_SPACE_MAX_LOOP];
};

/* A statement.
 * name: as schedule files name it; tensor: the tensor it writes;
 * is_init: an initialisation; n_loop, loop: its default loops;
 * extent: each loop's trip count at the tuning sizes;
 * is_reduction: the loop is a reduction index;
 * n_choice, choice: the tile sizes tried for each loop;
 * n_access, access: the write first, then the reads. */
struct ein_space_stmt {
	char name[64];
	int tensor;
	int is_init;
	int n_loop;
	char loop[EIN_SPACE_MAX_LOOP][32];
	long extent[EIN_SPACE_MAX_LOOP];
	int is_reduction[EIN_SPACE_MAX_LOOP];
	int n_choice[EIN_SPACE_MAX_LOOP];
	int choice[EIN_SPACE_MAX_LOOP][EIN_SPACE_MAX_CHOICE];
	int n_access;
	struct ein_space_access access[EIN_SPACE_MAX_ACCESS];
};

/* The machine: cache sizes in bytes (L1 data, L2, L3), the vector width
 * in float32 lanes and the number of vector registers (of the target:
 * 16 and 32 on AVX-512, 8 and 16 on AVX2: ein_sched_target_vectors),
 * and the thread count. */
struct ein_machine {
	long cache[3];
	int vector_lanes;
	int n_vreg;
	int n_threads;
};

/* The layouts of a pack besides a block size (see the head comment). */
enum ein_pack_layout {
	EIN_PACK_TENSOR = 0,
	EIN_PACK_VECTOR_LAST = -1
};

/* An OpenCL device, as the GPU generator needs it: the largest
 * work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE) and the bytes of __local
 * memory of a group (CL_DEVICE_LOCAL_MEM_SIZE). */
struct ein_gpu_device {
	long max_group;
	long local_mem;
};

struct ein_cand_gen;

/* The space of one definition at the tuning sizes.
 * gen: the generator of its candidates, which says which directives a
 *	candidate is made of: ein_cand_gen_cpu (cand.c: tiles, order,
 *	vectors, parallel, pack, placement) or ein_cand_gen_gpu
 *	(cand_gpu.c: work-groups, work-items, __local copies, register
 *	tiles for an OpenCL device);
 * machine: the CPU; device: the OpenCL device (the GPU generator's);
 * flops: the operations of one call (ein_space_work), unit: the name of
 *	their rate ("GFLOP/s", or "GOP/s" where they are integer ones);
 * n_stmt, stmt: the statements. */
struct ein_space {
	const struct ein_cand_gen *gen;
	struct ein_machine machine;
	struct ein_gpu_device device;
	double flops;
	const char *unit;
	int n_stmt;
	struct ein_space_stmt stmt[EIN_SPACE_MAX_STMT];
};

enum ein_place {
	EIN_PLACE_NONE = 0,
	EIN_PLACE_FUSE = 1,
	EIN_PLACE_COMPUTE_AT = 2
};

#define EIN_GPU_MAX_MAP 3

/* The plan of one statement on an OpenCL device (cand_gpu.c):
 * n_map, map: the loops mapped to the grid (default-order loop numbers,
 *	not reductions), outermost first, the last in dimension 0;
 * block[v]: the tile of mapped loop v a work-group runs (v.o across
 *	groups, v.i inside the group; 1: not split, v across groups only);
 * reg[v]: the elements of that tile each work-item runs (v.i split by
 *	it: v.i.o across the group's work-items, v.i.i in the item; 1: one);
 * kc: the split of the first reduction loop k (k.o between the groups'
 *	and the items' loops, where __local copies are made; 0: none);
 * local: bit a set: the tensor of access a copied to __local memory at
 *	k.o;
 * acc: keep each work-item's part of the output in private memory
 *	(accumulate at the innermost work-item loop);
 * unroll: bit 0, the register loops unrolled fully; bit 1, k.i;
 * vec: the vector width of the loop a work-item runs innermost, when it
 *	is a whole loop of the statement (a row: no register tile; 0:
 *	none). */
struct ein_gpu_plan {
	int n_map;
	int map[EIN_GPU_MAX_MAP];
	int block[EIN_SPACE_MAX_LOOP];
	int reg[EIN_SPACE_MAX_LOOP];
	int kc;
	int local;
	int acc;
	int unroll;
	int vec;
};

/* The plan of one statement (see the head comment; gpu: the plan of the
 * GPU generator, which uses none of the others). */
struct ein_cand_stmt {
	int tile[EIN_SPACE_MAX_LOOP];
	int n_order;
	int order[2 * EIN_SPACE_MAX_LOOP];
	int vec;
	int unroll_id;
	int unroll;
	int par_id;
	int acc;
	int acc_id;
	int pack;
	int pack_access;
	int pack_id;
	int pack_layout;
	int place;
	int place_target;
	int place_level;
	struct ein_gpu_plan gpu;
};

/* A candidate: one plan per statement of the space. */
struct ein_cand {
	int n_stmt;
	struct ein_cand_stmt s[EIN_SPACE_MAX_STMT];
};

/* The machine this process runs on (caches from
 * /sys/devices/system/cpu/cpu0/cache, defaults where unreadable), whose
 * target ein names "target" (its vector width and registers: "avx512"
 * 16 lanes and 32 registers, else 8 and 16). */
void ein_machine_detect(struct ein_machine *m, const char *target);

/* Build the space of definition "def" of "prog" at "sizes" (in the
 * kernel's size order), for the CPU target of class "target" (its vector
 * width and registers; NULL: the host's).  Returns -1 after reporting on
 * prog's context (a kernel too large for the fixed bounds above is
 * unsupported). */
int ein_space_init(struct ein_space *space, ein_program *prog,
	const char *def, ein_kernel *k, const int64_t *sizes,
	const char *target);

/* A generator of candidates: the directives a candidate is made of, and
 * the operators on them, behind the ein_cand_* functions below (which
 * call the space's generator).  features: the cost model's features of a
 * candidate (model.h; NULL: the CPU's loop-nest features). */
struct ein_cand_gen {
	void (*init)(const struct ein_space *space, struct ein_cand *c);
	int (*seeds)(const struct ein_space *space, struct ein_cand *c,
		int max);
	void (*random)(const struct ein_space *space, struct ein_cand *c,
		uint64_t *rng);
	const char *(*mutate)(const struct ein_space *space,
		struct ein_cand *c, uint64_t *rng);
	void (*crossover)(const struct ein_space *space,
		const struct ein_cand *a, const struct ein_cand *b,
		struct ein_cand *c, uint64_t *rng);
	char *(*to_directives)(const struct ein_space *space,
		const struct ein_cand *c);
	int (*encode)(const struct ein_space *space, const struct ein_cand *c,
		int *v, int max);
	int (*decode)(const struct ein_space *space, const int *v, int n,
		struct ein_cand *c);
	void (*features)(const struct ein_space *space,
		const struct ein_cand *c, double *f);
};

extern const struct ein_cand_gen ein_cand_gen_cpu;
/* Append formatted text to the growing string *buf of *len bytes (NULL
 * once out of memory): how generators print their directives. */
__attribute__((format(printf, 3, 4)))
void ein_cand_append(char **buf, size_t *len, const char *fmt, ...);
extern const struct ein_cand_gen ein_cand_gen_gpu;

/* Turn "space", as ein_space_init built it, into the space of an OpenCL
 * device "device": its candidates map loops to work-groups and
 * work-items (cand_gpu.c). */
void ein_space_set_gpu(struct ein_space *space,
	const struct ein_gpu_device *device);

/* The default schedule: no directive. */
void ein_cand_default(const struct ein_space *space, struct ein_cand *c);
/* Analytic seeds (the default made parallel, BLIS-like register-blocked
 * micro-kernels of contraction-shaped statements, with register tiles
 * over each pair of output indices, the initialisation inside the tile
 * and the panel packed so the vector loop reads it contiguously) into
 * c[0 .. max-1]; returns how many. */
int ein_cand_seeds(const struct ein_space *space, struct ein_cand *c,
	int max);
/* A random candidate. */
void ein_cand_random(const struct ein_space *space, struct ein_cand *c,
	uint64_t *rng);
/* Change "c" by one randomly chosen operator; returns its name. */
const char *ein_cand_mutate(const struct ein_space *space,
	struct ein_cand *c, uint64_t *rng);
/* A child of "a" and "b" into "c". */
void ein_cand_crossover(const struct ein_space *space,
	const struct ein_cand *a, const struct ein_cand *b,
	struct ein_cand *c, uint64_t *rng);

/* The directives of "c" as schedule-file lines (no headers), possibly
 * empty.  The caller frees it; NULL when out of memory. */
char *ein_cand_to_directives(const struct ein_space *space,
	const struct ein_cand *c);
/* "c" as a list of integers (for the tuning log) into v[0 .. max-1];
 * returns how many (at most max). */
int ein_cand_encode(const struct ein_space *space, const struct ein_cand *c,
	int *v, int max);
/* The candidate encoded as v[0 .. n-1], checked against the space.
 * Returns -1 if it does not fit. */
int ein_cand_decode(const struct ein_space *space, const int *v, int n,
	struct ein_cand *c);

/* The loop id of stmt "s" of "c" at order position "pos", its name into
 * buf; and the span (iterations covered) of a loop id. */
void ein_cand_loop_name(const struct ein_space *space,
	const struct ein_cand *c, int s, int id, char *buf, int len);
long ein_cand_id_trips(const struct ein_space *space,
	const struct ein_cand *c, int s, int id);

/* The work whose rate the tuner measures for kernel "k" at "sizes": its
 * floating-point operations (ein_kernel_flops), or, for a kernel without
 * any (an int8 GEMM), its operations on integer tensor values
 * (ein_kernel_ops); else every rate of an integer kernel was 0, and the
 * search could never find a better candidate than its first.  *unit
 * (unless "unit" is NULL): the name of its rate, "GFLOP/s" or "GOP/s".
 * -1 on error. */
double ein_space_work(ein_kernel *k, const int64_t *sizes, int n_size,
	const char **unit);

#endif
