/* yaml_util.c - shared libyaml helpers (see yaml_util.h). */
#include "yaml_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mmt_status mmt_yaml_read_file(const char *path, char **text, size_t *size, mmt_err *err)
{
    *text = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return mmt_err_set(err, e == ENOENT ? MMT_NOT_FOUND : MMT_IO, "%s: %s", path, strerror(e));
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (len + 1 < cap) break;
        if (cap >= MMT_YAML_MAX_BYTES) { /* /dev/zero, a log given by mistake: not read to the end */
            free(buf);
            fclose(f);
            return mmt_err_set(err, MMT_INVALID_ARGUMENT, "%s: larger than %d MiB: not a file of problems or a search "
                               "space", path, MMT_YAML_MAX_BYTES >> 20);
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = !buf ? 0 : ferror(f);
    int e = errno;
    fclose(f);
    if (!buf) return mmt_err_set(err, MMT_OUT_OF_MEMORY, "%s: out of memory", path);
    if (bad) {
        free(buf);
        return mmt_err_set(err, MMT_IO, "%s: read error: %s", path, strerror(e));
    }
    buf[len] = '\0';
    *text = buf;
    *size = len;
    return MMT_OK;
}

/* The source line holding offset index, copied into out (for error hints). */
static void source_line(const char *text, size_t size, size_t index, char *out, size_t outsize)
{
    if (index > size) index = size;
    size_t b = index, e = index;
    while (b > 0 && text[b - 1] != '\n') b--;
    while (e < size && text[e] != '\n' && text[e] != '\0') e++;
    size_t n = e - b < outsize - 1 ? e - b : outsize - 1;
    memcpy(out, text + b, n);
    out[n] = '\0';
}

/* Unquoted expressions are the usual cause of YAML errors in search spaces. */
static const char *syntax_hint(const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '-') p++;
    while (*p == ' ' || *p == '\t') p++;
    const char *colon = strstr(p, ": ");
    const char *value = colon && !(p[0] == '"' || p[0] == '\'') ? colon + 2 : p;
    while (*value == ' ') value++;
    if (*value == '!' || strstr(line, "- !") || strstr(line, ": !"))
        return " (an expression that starts with '!' must be quoted: \"!VEC || BK % 4 == 0\")";
    if (strchr(line, '?'))
        return " (an expression with ? : must be quoted: \"A > B ? A : B\")";
    if (*value == '*' || *value == '&' || *value == '|' || *value == '>' || *value == '@' || *value == '`')
        return " (a value starting with this character must be quoted)";
    return "";
}

/* Where flow collections ([ ], { }) first nest deeper than max, quoted scalars and comments
 * aside; size if they never do. libyaml takes quadratic time over deep nesting (100,000
 * levels: 32 s), and no file of problems or space nests more than a few. */
static size_t too_deep(const char *t, size_t size, int max)
{
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < size; i++) {
        const char c = t[i];
        if (quote) {
            if (quote == '"' && c == '\\') i++;
            else if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '#') {
            while (i + 1 < size && t[i + 1] != '\n') i++;
        } else if (c == '[' || c == '{') {
            if (++depth > max) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return size;
}

mmt_status mmt_yaml_load(mmt_yaml_doc *d, const char *file, const char *text, size_t size, mmt_err *err)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    const size_t deep = too_deep(text, size, MMT_YAML_MAX_DEPTH);
    if (deep < size) {
        int line = 1, col = 1;
        for (size_t i = 0; i < deep; i++) line += text[i] == '\n', col = text[i] == '\n' ? 1 : col + 1;
        return mmt_err_set(err, MMT_PARSE, "%s:%d:%d: lists or mappings nested more than %d deep", file, line, col,
                           MMT_YAML_MAX_DEPTH);
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return mmt_err_set(err, MMT_OUT_OF_MEMORY, "%s: out of memory", file);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
    if (!yaml_parser_load(&parser, &d->doc)) {
        char line[256];
        yaml_mark_t m = parser.problem_mark;
        source_line(text, size, m.index, line, sizeof line);
        mmt_status st;
        if (parser.error == YAML_MEMORY_ERROR)
            st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "%s: out of memory", file);
        else if (parser.context)
            st = mmt_err_set(err, MMT_PARSE, "%s:%d:%d: %s %s (at %d:%d)%s", file, (int)m.line + 1,
                             (int)m.column + 1, parser.problem ? parser.problem : "syntax error", parser.context,
                             (int)parser.context_mark.line + 1, (int)parser.context_mark.column + 1,
                             syntax_hint(line));
        else
            st = mmt_err_set(err, MMT_PARSE, "%s:%d:%d: %s%s", file, (int)m.line + 1, (int)m.column + 1,
                             parser.problem ? parser.problem : "syntax error", syntax_hint(line));
        yaml_parser_delete(&parser);
        return st;
    }
    d->loaded = 1;
    /* a second document would be ignored: the file is one, or it is refused */
    yaml_document_t next;
    int more = 0;
    if (yaml_parser_load(&parser, &next)) {
        if (yaml_document_get_root_node(&next)) more = (int)next.start_mark.line + 1;
        yaml_document_delete(&next);
    }
    yaml_parser_delete(&parser);
    if (more) {
        mmt_yaml_free(d);
        return mmt_err_set(err, MMT_PARSE, "%s:%d:1: a second YAML document: a file holds one", file, more);
    }
    if (!yaml_document_get_root_node(&d->doc)) {
        mmt_yaml_free(d);
        return mmt_err_set(err, MMT_PARSE, "%s:1:1: the file is empty", file);
    }
    return MMT_OK;
}

void mmt_yaml_free(mmt_yaml_doc *d)
{
    if (d && d->loaded) {
        yaml_document_delete(&d->doc);
        d->loaded = 0;
    }
}

yaml_node_t *mmt_yaml_root(mmt_yaml_doc *d) { return yaml_document_get_root_node(&d->doc); }

yaml_node_t *mmt_yaml_node(mmt_yaml_doc *d, int index) { return yaml_document_get_node(&d->doc, index); }

int mmt_yaml_line(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

int mmt_yaml_col(const yaml_node_t *n) { return (int)n->start_mark.column + 1; }

static mmt_status verror_at(mmt_err *err, const char *file, int line, int col, const char *fmt, va_list ap)
{
    char msg[3072];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return mmt_err_set(err, MMT_PARSE, "%s:%d:%d: %s", file, line, col, msg);
}

mmt_status mmt_yaml_error(mmt_err *err, const char *file, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mmt_status st = verror_at(err, file, mmt_yaml_line(n), mmt_yaml_col(n), fmt, ap);
    va_end(ap);
    return st;
}

mmt_status mmt_yaml_error_at(mmt_err *err, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mmt_status st = verror_at(err, file, line, col, fmt, ap);
    va_end(ap);
    return st;
}

const char *mmt_yaml_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_SCALAR_NODE: return "a scalar";
    default: return "nothing";
    }
}

mmt_status mmt_yaml_scalar(const char *file, const yaml_node_t *n, const char *what, const char **text,
                           mmt_err *err)
{
    const char *tag = (const char *)n->tag;
    if (tag && strncmp(tag, "tag:yaml.org,2002:", 18) != 0)
        return mmt_yaml_error(err, file, n,
                              "%s: YAML read '%s' as a tag; quote an expression that starts with '!' "
                              "(\"%s%s%s\")",
                              what, tag, tag,
                              n->type != YAML_SCALAR_NODE ? " ..." : n->data.scalar.value[0] ? " " : "",
                              n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "");
    if (n->type != YAML_SCALAR_NODE)
        return mmt_yaml_error(err, file, n, "%s must be a single value, not %s", what, mmt_yaml_kind(n));
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) /* "6\0 4" is not 6 */
        return mmt_yaml_error(err, file, n, "%s holds a NUL character", what);
    *text = (const char *)n->data.scalar.value;
    return MMT_OK;
}

int mmt_yaml_parse_int(const char *s, int64_t *v)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p) return -1;
    uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p; p++) {
        int dgt;
        if (*p >= '0' && *p <= '9') dgt = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f') dgt = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F') dgt = *p - 'A' + 10;
        else return -1;
        if (acc > (limit - (uint64_t)dgt) / (uint64_t)base) return -1;
        acc = acc * (uint64_t)base + (uint64_t)dgt;
    }
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return 0;
}

int mmt_yaml_parse_bool(const char *s, int *v)
{
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) *v = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) *v = 0;
    else return -1;
    return 0;
}
