/*
 * file.h: schedule files (format version 1): the parser, the canonical
 * printer and the atomic writer.
 *
 * A schedule file says how one definition runs on one class of machine,
 * apart from what it computes (docs/schedules.md):
 *
 *     ein-schedule 1
 *     target x86_64-avx2
 *     def matmul
 *     sizes M=1024 N=1024 K=1024
 *     C: tile i 64 j 256 k 128
 *     C: vectorize j.i 8
 *
 * This module checks the syntax only: that each verb has arguments of the
 * right kinds and counts, integers in range, no loop twice in one tile or
 * reorder.  Whether a statement or loop exists and whether a directive is
 * legal is for the module that applies the directives; every name and
 * number therefore keeps its exact position (struct ein_loc) for its
 * messages.
 */
#ifndef EIN_SCHED_FILE_H
#define EIN_SCHED_FILE_H

#include <isl/ctx.h>
#include "ein.h"
#include "diag.h"

/* The version of the format this module reads and writes. */
#define EIN_SCHED_FILE_VERSION 1

/* The directives, in the order docs/schedules.md lists them.  Each
 * directive's arguments (struct ein_sched_directive's arg), as written:
 *
 *   SPLIT        LOOP INT
 *   TILE         LOOP INT { LOOP INT }         no loop twice
 *   REORDER      LOOP LOOP { LOOP }            no loop twice
 *   VECTORIZE    LOOP INT                      (the width)
 *   UNROLL       LOOP (INT | KEYWORD "full", value -1)
 *   PARALLEL     LOOP
 *   COMPUTE_AT   STMT LOOP [ KEYWORD "recompute" (value 1) |
 *                            KEYWORD "store" (value 0) ]   absent: store
 *   FUSE         STMT [ INT ]                  absent: all shared loops
 *   PACK         TENSOR LOOP { INDEX }         written "pack A at k.o"
 *                                              or "pack A at k.o layout k i"
 *                                              or "... layout j/16 k j%16"
 *   ACCUMULATE   LOOP { INDEX }                "accumulate i.o layout j i"
 *   GPU_BLOCKS   LOOP { LOOP }                 no loop twice
 *   GPU_THREADS  LOOP { LOOP }                 no loop twice
 *   PREFETCH     TENSOR LOOP [LOOP [INT]]      "prefetch X at j.o from i 2"
 *   STREAM       LOOP                          "stream j"
 *   LOCAL        TENSOR LOOP                   "local A at k.o" (OpenCL)
 *
 * Every INT is in 1 .. 2^31 - 1.  The numbers are stable. */
enum ein_sched_verb {
	EIN_SCHED_SPLIT = 0,
	EIN_SCHED_TILE = 1,
	EIN_SCHED_REORDER = 2,
	EIN_SCHED_VECTORIZE = 3,
	EIN_SCHED_UNROLL = 4,
	EIN_SCHED_PARALLEL = 5,
	EIN_SCHED_COMPUTE_AT = 6,
	EIN_SCHED_FUSE = 7,
	EIN_SCHED_PACK = 8,
	EIN_SCHED_ACCUMULATE = 9,
	EIN_SCHED_GPU_BLOCKS = 10,
	EIN_SCHED_GPU_THREADS = 11,
	EIN_SCHED_PREFETCH = 12,
	EIN_SCHED_STREAM = 13,
	EIN_SCHED_LOCAL = 14
};

/* A statement reference "T", "T#2", "C.init".
 * tensor: the name of the tensor the statement writes;
 * occurrence: which of the statements writing it, 1-based (1 if absent);
 * is_init: 1 for the initialisation of a "!" statement (".init");
 * loc: the position of the tensor's name. */
struct ein_sched_stmt_ref {
	char *tensor;
	int occurrence;
	int is_init;
	struct ein_loc loc;
};

enum ein_sched_arg_kind {
	EIN_SCHED_ARG_LOOP,
	EIN_SCHED_ARG_STMT,
	EIN_SCHED_ARG_TENSOR,
	EIN_SCHED_ARG_INT,
	EIN_SCHED_ARG_KEYWORD,
	EIN_SCHED_ARG_INDEX
};

/* An argument of a directive.
 * kind: what it is;
 * name: the text of a LOOP ("j.i"), TENSOR or KEYWORD, the canonical text
 *	of a STMT ("T#2.init"), the index name of an INDEX; NULL for an INT;
 * stmt: the statement of a STMT argument (zero otherwise);
 * value: the value of an INT, that of a KEYWORD (see enum ein_sched_verb);
 *	for an INDEX of a layout, 0 ("j"), N ("j/N": the block of N) or -N
 *	("j%N": the place in the block);
 * loc: the position of its first character. */
struct ein_sched_arg {
	enum ein_sched_arg_kind kind;
	char *name;
	struct ein_sched_stmt_ref stmt;
	long value;
	struct ein_loc loc;
};

/* A directive "STMT: VERB ARGS".
 * stmt: the statement it transforms;
 * verb, verb_loc: the transformation and the position of its name;
 * n_arg, arg: its arguments (see enum ein_sched_verb);
 * line: its line in the file. */
struct ein_sched_directive {
	struct ein_sched_stmt_ref stmt;
	enum ein_sched_verb verb;
	struct ein_loc verb_loc;
	int n_arg;
	struct ein_sched_arg *arg;
	int line;
};

/* A "NAME=INT" pair of the sizes header.
 * loc: the position of the name. */
struct ein_sched_size {
	char *name;
	long value;
	struct ein_loc loc;
};

/* A parsed schedule file.
 * src: the text, owned; its name is the path, for messages;
 * version: the format version (EIN_SCHED_FILE_VERSION);
 * target, def, measured, date, ein_version, tuned_by: the headers, NULL
 *	when absent (measured, date, ein_version and tuned_by are free text);
 * n_size, size: the sizes header, in the order written (none if absent);
 * n_dir, dir: the directives, in file order. */
struct ein_sched_file {
	struct ein_src *src;
	int version;
	char *target, *def, *measured, *date, *ein_version, *tuned_by;
	int n_size;
	struct ein_sched_size *size;
	int n_dir;
	struct ein_sched_directive *dir;
};

/* Parse __isl_take src.  The locations in the result point into f->src and
 * are valid as long as the file is.  Reports every syntax error of the file on ctx
 * (file:line:col with a caret) and returns NULL if there is any. */
__isl_give struct ein_sched_file *ein_sched_file_parse(ein_ctx *ctx,
	__isl_take struct ein_src *src);
/* Read and parse the file at "path".  An unreadable file is an
 * EIN_ERROR_IO error. */
__isl_give struct ein_sched_file *ein_sched_file_read(ein_ctx *ctx,
	const char *path);
void ein_sched_file_free(__isl_take struct ein_sched_file *f);

/* The value of size "name" in f's sizes header, or -1 if it has none. */
long ein_sched_file_get_size(__isl_keep const struct ein_sched_file *f,
	const char *name);
/* The spelling of "verb" in a schedule file ("compute_at"). */
const char *ein_sched_verb_name(enum ein_sched_verb verb);

/* Print "f" in canonical form: the version line, the headers in a fixed
 * order, a blank line, one directive per line with single spaces, no
 * comments.  The result parses back to the same file (free-text headers
 * set by a program must not hold a newline or a '#' after a blank).  The caller frees
 * it; NULL when out of memory. */
__isl_give char *ein_sched_file_to_string(
	__isl_keep const struct ein_sched_file *f);
/* Print directive "d" in canonical form, without a newline ("C: tile i 64
 * j 32"), for messages.  The caller frees it; NULL when out of memory. */
__isl_give char *ein_sched_directive_to_string(
	__isl_keep const struct ein_sched_directive *d);
/* Write "f" in canonical form to "path" atomically and durably
 * (ein_outfile_write with EIN_OUTFILE_DURABLE: a temporary in the same
 * directory, fsync, rename over PATH, fsync of the directory).  On any
 * failure PATH is left as it was, the temporary is removed, and an
 * EIN_ERROR_IO error is reported.  Returns 0 or -1. */
int ein_sched_file_write(ein_ctx *ctx,
	__isl_keep const struct ein_sched_file *f, const char *path);

#endif
