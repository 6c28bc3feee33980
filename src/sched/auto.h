/*
 * auto.h: the automatic schedule of a definition that no schedule file
 * names (issue 23, the rule-based half).
 *
 * From the definition's statements (their indices, which are reductions,
 * their accesses and which index each tensor is contiguous along), its
 * exact dependences and the target's vector width, a few rules write an
 * ordinary schedule file, the one an expert would write first:
 *
 *   contraction  C(i, j) +=! A(i, k) * B(k, j) and its batched and
 *                permuted relatives: the BLIS micro-kernel of
 *                schedules/<target>/matmul.sched (tile, reorder, pack,
 *                accumulate, unroll, vectorize, parallel);
 *   chain        temporaries feeding the last statement (softmax,
 *                layernorm): compute_at the consumer's outer loop, every
 *                inner loop vectorised, the outer loop parallel;
 *   any other    the innermost loop vectorised when accesses are
 *                contiguous along it, the outermost parallel.
 *
 * No loop is made parallel over fewer than PARALLEL_MIN_WORK (32768)
 * statement instances when every size is known ("sizes"): starting the
 * thread pool would cost more than the loop.
 *
 * Each rule's directives are checked by ein_sched_apply, the check of
 * every schedule file; a rejected rule falls back one step at a time
 * (without pack, without accumulate, ...) down to nothing, which is the
 * default schedule.  No measurement, no randomness: the same definition,
 * target and --strict-fp give the same text.  A definition of more than
 * MAX_AUTO_STMTS (32) statements keeps the default schedule: each
 * candidate's check models the whole definition, so the rules' cost
 * grows as the square of the statement count.  The caller runs it under
 * the compile's budget (driver/options.c).
 */
#ifndef EIN_SCHED_AUTO_H
#define EIN_SCHED_AUTO_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"
#include "sched/file.h"

/* The value the cost model scores a size at when it is not known. */
#define EIN_AUTO_MODEL_SIZE 256

/* The automatic schedule of "func" on target class "target"
 * ("x86_64-avx512", ...; it decides the vector width and the register
 * tile), legal for every size (with "strict", without reordering any
 * floating-point reduction).
 *
 * Returns the schedule as a parsed file whose text holds a comment per
 * decision (which rule, and what was dropped and why), and sets *why to
 * a one-line summary; the caller frees both.  Returns NULL with *why set
 * (or NULL when out of memory) when no rule applies: the default
 * schedule is then the automatic one.  Never leaves an error on ctx:
 * the messages of rejected candidates are forgotten.
 *
 * With "model", where a rule has several candidates (a contraction's
 * register tile and reduction slice), the legal one that the cost model
 * (sched/cost.h) predicts fastest at "sizes" (func's order; NULL, or a
 * value 0, stands for EIN_AUTO_MODEL_SIZE) is kept; the schedule stays
 * legal for every size, and the same inputs still give the same text.
 * Without it, the first legal candidate, as the rules order them. */
__isl_give struct ein_sched_file *ein_sched_auto(ein_ctx *ctx,
	const struct ein_func *func, const char *target, int strict,
	int model, const int64_t *sizes, __isl_give char **why);

#endif
