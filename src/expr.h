/* expr.h - the small integer expression language of search spaces (DESIGN.md section 4).
 *
 * Grammar (C precedence): ternary ?:, ||, &&, == != < <= > >=, + -, * / %, unary ! - +,
 * parentheses, 64-bit integer literals, names (letters, digits, '_' and '.', so
 * `device.max_threads_per_block` is one name), and calls of the functions
 * ceil_div(a,b), min(a,b), max(a,b), log2(a) (floor), pow2(a) (1<<a), abs(a).
 * true/false are 1/0. Division or modulo by zero is an evaluation error. */
#ifndef MMT_EXPR_H
#define MMT_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct mmt_expr mmt_expr;

/* Resolves a name during evaluation: stores its value and returns 0, or returns -1 if the
 * name is unknown (an evaluation error naming it). The name is not NUL-terminated. */
typedef int (*mmt_expr_lookup)(void *user, const char *name, size_t len, int64_t *value);

/* Parses text. On a syntax error returns MMT_PARSE, sets *col to the 1-based column of
 * the problem within text and describes it in err. */
mmt_status mmt_expr_parse(const char *text, mmt_expr **out, int *col, mmt_err *err);

/* Evaluates. Unknown names and division by zero give MMT_PARSE with a message. */
mmt_status mmt_expr_eval(const mmt_expr *e, mmt_expr_lookup lookup, void *user, int64_t *out, mmt_err *err);

/* Calls fn for every name the expression uses (for checking names at load time). */
void mmt_expr_names(const mmt_expr *e, void (*fn)(void *user, const char *name, size_t len), void *user);

/* The expression's own copy of its text. The names that mmt_expr_names reports point
 * into it, so (name - mmt_expr_text(e)) is a name's 0-based offset, for messages. */
const char *mmt_expr_text(const mmt_expr *e);

/* Binds names to slots for fast repeated evaluation: resolve returns a slot index >= 0,
 * or -1 to leave the name to the lookup callback. Binding again replaces earlier slots. */
void mmt_expr_bind(mmt_expr *e, int (*resolve)(void *user, const char *name, size_t len), void *user);

/* Evaluates with bound names read from slots[slot] (slots may be NULL: then every name
 * goes to lookup); unbound names go to lookup, which may be NULL (then they are unknown). */
mmt_status mmt_expr_eval_slots(const mmt_expr *e, const int64_t *slots, mmt_expr_lookup lookup, void *user,
                               int64_t *out, mmt_err *err);

void mmt_expr_free(mmt_expr *e);

#endif
