/* expr.c - the expression language of search spaces (see expr.h), compiled to a small
 * stack bytecode so that enumerating a large space evaluates quickly. && || and ?: jump,
 * so an untaken branch is never evaluated ("TM != 0 && BM % TM == 0" is safe).
 * Arithmetic wraps on overflow instead of being undefined. */
#include "expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OP_PUSH, OP_NAME, OP_NEG, OP_NOT, OP_BOOL, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_JZ, OP_JNZ, OP_JMP,
    OP_CEIL_DIV, OP_MIN, OP_MAX, OP_LOG2, OP_POW2, OP_ABS
};

#define EXPR_MAX_STACK 256 /* deeper expressions are rejected at parse time */
#define EXPR_MAX_NEST 100  /* nesting of parentheses, unary operators and ?: */

typedef struct insn {
    int32_t op, arg; /* arg: name index or jump target */
    int64_t imm;
} insn;

typedef struct name_ref {
    int32_t off, len, slot; /* slot -1: unbound */
} name_ref;

struct mmt_expr {
    char *text;
    insn *code;
    int n_code, cap_code;
    name_ref *names;
    int n_names, cap_names;
};

static const struct {
    const char *name;
    int op, arity;
} functions[] = {
    {"ceil_div", OP_CEIL_DIV, 2}, {"min", OP_MIN, 2}, {"max", OP_MAX, 2},
    {"log2", OP_LOG2, 1},         {"pow2", OP_POW2, 1}, {"abs", OP_ABS, 1},
};

/* ---- lexer ---------------------------------------------------------------------------- */

enum { T_END, T_NUM, T_NAME, T_OP, T_BAD };

typedef struct parser {
    const char *s;
    size_t pos;          /* next character */
    int tok;             /* current token */
    size_t tok_pos, tok_len;
    int64_t num;
    char opc[3];         /* operator text */
    mmt_expr *e;
    int depth, max_depth, nest;
    int failed, col;
    char msg[256];
} parser;

static int is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }

static void fail_at(parser *p, size_t pos, const char *fmt, const char *arg)
{
    if (p->failed) return;
    p->failed = 1;
    p->col = (int)pos + 1;
    snprintf(p->msg, sizeof p->msg, fmt, arg);
}

static void next(parser *p)
{
    const char *s = p->s;
    while (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' || s[p->pos] == '\r') p->pos++;
    p->tok_pos = p->pos;
    char c = s[p->pos];
    if (!c) {
        p->tok = T_END;
        p->tok_len = 0;
        return;
    }
    if (c >= '0' && c <= '9') {
        int base = 10;
        size_t i = p->pos;
        if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            base = 16;
            i += 2;
        }
        size_t start = i;
        uint64_t acc = 0;
        int overflow = 0;
        for (;; i++) {
            char d = s[i];
            int v;
            if (d >= '0' && d <= '9') v = d - '0';
            else if (base == 16 && d >= 'a' && d <= 'f') v = d - 'a' + 10;
            else if (base == 16 && d >= 'A' && d <= 'F') v = d - 'A' + 10;
            else break;
            if (acc > ((uint64_t)INT64_MAX - (uint64_t)v) / (uint64_t)base) overflow = 1;
            else acc = acc * (uint64_t)base + (uint64_t)v;
        }
        if (i == start || is_name_char(s[i])) {
            p->tok = T_BAD;
            fail_at(p, p->pos, "malformed number%s", "");
            return;
        }
        if (overflow) {
            p->tok = T_BAD;
            fail_at(p, p->pos, "integer literal too large%s", "");
            return;
        }
        p->tok = T_NUM;
        p->num = (int64_t)acc;
        p->tok_len = i - p->pos;
        p->pos = i;
        return;
    }
    if (is_name_start(c)) {
        size_t i = p->pos;
        while (is_name_char(s[i])) i++;
        p->tok = T_NAME;
        p->tok_len = i - p->pos;
        p->pos = i;
        int dots = 0;
        for (size_t k = p->tok_pos; k + 1 < i; k++) dots |= s[k] == '.' && s[k + 1] == '.';
        if (s[i - 1] == '.' || dots) {
            p->tok = T_BAD;
            fail_at(p, p->tok_pos, "malformed name%s", "");
        }
        return;
    }
    static const char *two[] = {"||", "&&", "==", "!=", "<=", ">="};
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
        if (c == two[k][0] && s[p->pos + 1] == two[k][1]) {
            p->tok = T_OP;
            memcpy(p->opc, two[k], 3);
            p->tok_len = 2;
            p->pos += 2;
            return;
        }
    if (strchr("+-*/%<>!?:(),", c)) {
        p->tok = T_OP;
        p->opc[0] = c;
        p->opc[1] = '\0';
        p->tok_len = 1;
        p->pos++;
        return;
    }
    p->tok = T_BAD;
    char ch[2] = {c, '\0'};
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f) fail_at(p, p->pos, "unexpected character%s", "");
    else fail_at(p, p->pos, "unexpected character '%s'", ch);
}

static int is_op(const parser *p, const char *op) { return p->tok == T_OP && strcmp(p->opc, op) == 0; }

/* ---- code generation ---------------------------------------------------------------------- */

static int emit(parser *p, int op, int arg, int64_t imm)
{
    mmt_expr *e = p->e;
    if (p->failed) return -1;
    if (e->n_code == e->cap_code) {
        int cap = e->cap_code ? e->cap_code * 2 : 16;
        insn *c = realloc(e->code, sizeof *c * (size_t)cap);
        if (!c) {
            fail_at(p, p->tok_pos, "out of memory%s", "");
            return -1;
        }
        e->code = c;
        e->cap_code = cap;
    }
    e->code[e->n_code] = (insn){op, arg, imm};
    switch (op) {
    case OP_PUSH: case OP_NAME: p->depth++; break;
    case OP_NEG: case OP_NOT: case OP_BOOL: case OP_JMP: case OP_LOG2: case OP_POW2: case OP_ABS: break;
    default: p->depth--; break; /* binary operators and conditional jumps pop one */
    }
    if (p->depth > p->max_depth) p->max_depth = p->depth;
    if (p->max_depth > EXPR_MAX_STACK) fail_at(p, p->tok_pos, "expression too complex%s", "");
    return e->n_code++;
}

static void patch(parser *p, int at)
{
    if (!p->failed && at >= 0) p->e->code[at].arg = p->e->n_code;
}

static int add_name(parser *p, size_t off, size_t len)
{
    mmt_expr *e = p->e;
    for (int i = 0; i < e->n_names; i++)
        if ((size_t)e->names[i].len == len && memcmp(e->text + e->names[i].off, e->text + off, len) == 0) return i;
    if (e->n_names == e->cap_names) {
        int cap = e->cap_names ? e->cap_names * 2 : 8;
        name_ref *n = realloc(e->names, sizeof *n * (size_t)cap);
        if (!n) {
            fail_at(p, off, "out of memory%s", "");
            return 0;
        }
        e->names = n;
        e->cap_names = cap;
    }
    e->names[e->n_names] = (name_ref){(int32_t)off, (int32_t)len, -1};
    return e->n_names++;
}

/* ---- recursive descent, one function per precedence level --------------------------------- */

static void ternary(parser *p);

static void expect(parser *p, const char *op, const char *what)
{
    if (p->failed) return;
    if (!is_op(p, op)) {
        if (p->tok == T_END) fail_at(p, p->tok_pos, "expected %s at the end", what);
        else fail_at(p, p->tok_pos, "expected %s", what);
        return;
    }
    next(p);
}

static void primary(parser *p)
{
    if (p->failed) return;
    if (p->tok == T_NUM) {
        emit(p, OP_PUSH, 0, p->num);
        next(p);
        return;
    }
    if (p->tok == T_NAME) {
        size_t off = p->tok_pos, len = p->tok_len;
        const char *name = p->s + off;
        next(p);
        if (is_op(p, "(")) {
            int f = -1;
            for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
                if (strlen(functions[k].name) == len && memcmp(functions[k].name, name, len) == 0) f = (int)k;
            if (f < 0) {
                char nm[64];
                snprintf(nm, sizeof nm, "%.*s", (int)(len < 60 ? len : 60), name);
                fail_at(p, off, "unknown function '%s' (ceil_div min max log2 pow2 abs)", nm);
                return;
            }
            size_t paren = p->tok_pos;
            next(p);
            for (int a = 0; a < functions[f].arity; a++) {
                if (a > 0) {
                    if (is_op(p, ")")) {
                        fail_at(p, p->tok_pos, "%s takes 2 arguments", functions[f].name);
                        return;
                    }
                    expect(p, ",", "','");
                }
                ternary(p);
            }
            if (is_op(p, ",")) {
                fail_at(p, p->tok_pos, functions[f].arity == 1 ? "%s takes 1 argument" : "%s takes 2 arguments",
                        functions[f].name);
                return;
            }
            if (!p->failed && !is_op(p, ")")) {
                (void)paren;
                expect(p, ")", "')'");
                return;
            }
            next(p);
            emit(p, functions[f].op, 0, 0);
            return;
        }
        if (len == 4 && memcmp(name, "true", 4) == 0) emit(p, OP_PUSH, 0, 1);
        else if (len == 5 && memcmp(name, "false", 5) == 0) emit(p, OP_PUSH, 0, 0);
        else emit(p, OP_NAME, add_name(p, off, len), 0);
        return;
    }
    if (is_op(p, "(")) {
        next(p);
        ternary(p);
        expect(p, ")", "')'");
        return;
    }
    if (p->tok == T_END) fail_at(p, p->tok_pos, "unexpected end of expression%s", "");
    else if (p->tok == T_OP) fail_at(p, p->tok_pos, "unexpected '%s'", p->opc);
    else fail_at(p, p->tok_pos, "unexpected input%s", "");
}

static void unary(parser *p)
{
    if (p->failed) return;
    if (++p->nest > EXPR_MAX_NEST) {
        fail_at(p, p->tok_pos, "expression nested too deeply%s", "");
        return;
    }
    if (is_op(p, "!") || is_op(p, "-") || is_op(p, "+")) {
        char op = p->opc[0];
        next(p);
        unary(p);
        if (op == '!') emit(p, OP_NOT, 0, 0);
        else if (op == '-') emit(p, OP_NEG, 0, 0);
    } else {
        primary(p);
    }
    p->nest--;
}

static void mul(parser *p)
{
    unary(p);
    while (!p->failed && (is_op(p, "*") || is_op(p, "/") || is_op(p, "%"))) {
        char op = p->opc[0];
        next(p);
        unary(p);
        emit(p, op == '*' ? OP_MUL : op == '/' ? OP_DIV : OP_MOD, 0, 0);
    }
}

static void add(parser *p)
{
    mul(p);
    while (!p->failed && (is_op(p, "+") || is_op(p, "-"))) {
        char op = p->opc[0];
        next(p);
        mul(p);
        emit(p, op == '+' ? OP_ADD : OP_SUB, 0, 0);
    }
}

static void rel(parser *p)
{
    add(p);
    while (!p->failed && (is_op(p, "<") || is_op(p, "<=") || is_op(p, ">") || is_op(p, ">="))) {
        int op = is_op(p, "<") ? OP_LT : is_op(p, "<=") ? OP_LE : is_op(p, ">") ? OP_GT : OP_GE;
        next(p);
        add(p);
        emit(p, op, 0, 0);
    }
}

static void eq(parser *p)
{
    rel(p);
    while (!p->failed && (is_op(p, "==") || is_op(p, "!="))) {
        int op = is_op(p, "==") ? OP_EQ : OP_NE;
        next(p);
        rel(p);
        emit(p, op, 0, 0);
    }
}

/* a && b: a; JZ f; b; BOOL; JMP end; f: PUSH 0; end:   (|| likewise with JNZ and 1) */
static void logic(parser *p, int is_or)
{
    if (is_or) logic(p, 0);
    else eq(p);
    while (!p->failed && is_op(p, is_or ? "||" : "&&")) {
        next(p);
        int d = p->depth - 1;
        int j = emit(p, is_or ? OP_JNZ : OP_JZ, 0, 0);
        if (is_or) logic(p, 0);
        else eq(p);
        emit(p, OP_BOOL, 0, 0);
        int end = emit(p, OP_JMP, 0, 0);
        patch(p, j);
        p->depth = d;
        emit(p, OP_PUSH, 0, is_or ? 1 : 0);
        patch(p, end);
    }
}

/* c ? a : b: c; JZ else; a; JMP end; else: b; end: */
static void ternary(parser *p)
{
    if (p->failed) return;
    if (++p->nest > EXPR_MAX_NEST) {
        fail_at(p, p->tok_pos, "expression nested too deeply%s", "");
        return;
    }
    logic(p, 1);
    if (!p->failed && is_op(p, "?")) {
        next(p);
        int d = p->depth - 1;
        int j = emit(p, OP_JZ, 0, 0);
        ternary(p);
        int end = emit(p, OP_JMP, 0, 0);
        expect(p, ":", "':' of ?:");
        patch(p, j);
        p->depth = d;
        ternary(p);
        patch(p, end);
    }
    p->nest--;
}

mmt_status mmt_expr_parse(const char *text, mmt_expr **out, int *col, mmt_err *err)
{
    *out = NULL;
    if (col) *col = 0;
    mmt_expr *e = calloc(1, sizeof *e);
    if (e) e->text = strdup(text ? text : "");
    if (!e || !e->text) {
        free(e);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    parser p = {.s = e->text, .e = e};
    next(&p);
    if (p.tok == T_END && !p.failed) fail_at(&p, p.tok_pos, "empty expression%s", "");
    ternary(&p);
    if (!p.failed && p.tok != T_END) {
        if (p.tok == T_OP && (strcmp(p.opc, ")") == 0)) fail_at(&p, p.tok_pos, "unbalanced ')'%s", "");
        else fail_at(&p, p.tok_pos, "expected an operator%s", "");
    }
    if (p.failed) {
        if (col) *col = p.col;
        mmt_status st = mmt_err_set(err, MMT_PARSE, "%s at column %d of '%s'", p.msg, p.col, e->text);
        mmt_expr_free(e);
        return st;
    }
    *out = e;
    return MMT_OK;
}

void mmt_expr_free(mmt_expr *e)
{
    if (!e) return;
    free(e->text);
    free(e->code);
    free(e->names);
    free(e);
}

const char *mmt_expr_text(const mmt_expr *e) { return e->text; }

void mmt_expr_names(const mmt_expr *e, void (*fn)(void *user, const char *name, size_t len), void *user)
{
    for (int i = 0; i < e->n_names; i++) fn(user, e->text + e->names[i].off, (size_t)e->names[i].len);
}

void mmt_expr_bind(mmt_expr *e, int (*resolve)(void *user, const char *name, size_t len), void *user)
{
    for (int i = 0; i < e->n_names; i++) {
        int s = resolve(user, e->text + e->names[i].off, (size_t)e->names[i].len);
        e->names[i].slot = s >= 0 ? s : -1;
    }
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

mmt_status mmt_expr_eval_slots(const mmt_expr *e, const int64_t *slots, mmt_expr_lookup lookup, void *user,
                               int64_t *out, mmt_err *err)
{
    int64_t st[EXPR_MAX_STACK + 1];
    int sp = 0;
    const insn *code = e->code;
    int n = e->n_code;
    for (int pc = 0; pc < n; pc++) {
        const insn *in = &code[pc];
        int64_t a, b;
        switch (in->op) {
        case OP_PUSH: st[sp++] = in->imm; break;
        case OP_NAME: {
            const name_ref *nm = &e->names[in->arg];
            if (slots && nm->slot >= 0) {
                st[sp++] = slots[nm->slot];
            } else {
                int64_t v;
                if (!lookup || lookup(user, e->text + nm->off, (size_t)nm->len, &v) != 0)
                    return mmt_err_set(err, MMT_PARSE, "unknown name '%.*s' in '%s'", (int)nm->len,
                                       e->text + nm->off, e->text);
                st[sp++] = v;
            }
            break;
        }
        case OP_NEG: st[sp - 1] = wrap_sub(0, st[sp - 1]); break;
        case OP_NOT: st[sp - 1] = !st[sp - 1]; break;
        case OP_BOOL: st[sp - 1] = st[sp - 1] != 0; break;
        case OP_ABS: st[sp - 1] = st[sp - 1] < 0 ? wrap_sub(0, st[sp - 1]) : st[sp - 1]; break;
        case OP_LOG2: {
            a = st[sp - 1];
            if (a <= 0)
                return mmt_err_set(err, MMT_PARSE, "log2 of %lld (not positive) in '%s'", (long long)a, e->text);
            int r = 0;
            while (a >>= 1) r++;
            st[sp - 1] = r;
            break;
        }
        case OP_POW2:
            a = st[sp - 1];
            if (a < 0 || a > 62)
                return mmt_err_set(err, MMT_PARSE, "pow2 of %lld (outside 0..62) in '%s'", (long long)a, e->text);
            st[sp - 1] = (int64_t)1 << a;
            break;
        case OP_JZ: if (st[--sp] == 0) pc = in->arg - 1; break;
        case OP_JNZ: if (st[--sp] != 0) pc = in->arg - 1; break;
        case OP_JMP: pc = in->arg - 1; break;
        default:
            b = st[--sp];
            a = st[sp - 1];
            switch (in->op) {
            case OP_ADD: a = wrap_add(a, b); break;
            case OP_SUB: a = wrap_sub(a, b); break;
            case OP_MUL: a = wrap_mul(a, b); break;
            case OP_DIV:
            case OP_MOD:
            case OP_CEIL_DIV:
                if (b == 0)
                    return mmt_err_set(err, MMT_PARSE, "%s by zero in '%s'",
                                       in->op == OP_MOD ? "modulo" : "division", e->text);
                if (b == -1) { /* INT64_MIN / -1 would trap */
                    a = in->op == OP_MOD ? 0 : wrap_sub(0, a);
                } else if (in->op == OP_DIV) {
                    a = a / b;
                } else if (in->op == OP_MOD) {
                    a = a % b;
                } else {
                    int64_t q = a / b, r = a % b;
                    a = (r != 0 && ((r > 0) == (b > 0))) ? q + 1 : q;
                }
                break;
            case OP_LT: a = a < b; break;
            case OP_LE: a = a <= b; break;
            case OP_GT: a = a > b; break;
            case OP_GE: a = a >= b; break;
            case OP_EQ: a = a == b; break;
            case OP_NE: a = a != b; break;
            case OP_MIN: a = a < b ? a : b; break;
            case OP_MAX: a = a > b ? a : b; break;
            default: return mmt_err_set(err, MMT_INTERNAL, "bad expression code in '%s'", e->text);
            }
            st[sp - 1] = a;
            break;
        }
    }
    *out = sp == 1 ? st[0] : 0;
    return MMT_OK;
}

mmt_status mmt_expr_eval(const mmt_expr *e, mmt_expr_lookup lookup, void *user, int64_t *out, mmt_err *err)
{
    return mmt_expr_eval_slots(e, NULL, lookup, user, out, err);
}
