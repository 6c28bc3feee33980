/*
 * parse.h: the recursive-descent parser of .ein files.
 */
#ifndef EIN_FRONTEND_PARSE_H
#define EIN_FRONTEND_PARSE_H

#include "ein.h"
#include "frontend/ast.h"

/* Parse the whole of "src" (taken: the returned file owns it, and it is
 * freed on error).  Returns NULL when there is any syntax error, after
 * reporting every error found (the parser recovers at statement and
 * definition boundaries) through ein_error_at. */
struct ein_ast_file *ein_parse(ein_ctx *ctx, struct ein_src *src);

#endif
