/* json_out.c - JSON written as it goes (see json_out.h). */
#include "json_out.h"

#include <math.h>
#include <stdlib.h>

#include "utf8.h"

void mmt_json_init(mmt_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->items[0] = 0;
}

/* A value begins: the comma and line break before it, and its key. */
static void begin_value(mmt_json *j, const char *key)
{
    if (j->depth > 0) fputs(j->items[j->depth]++ ? ",\n" : "\n", j->f);
    fprintf(j->f, "%*s", 2 * j->depth, "");
    if (key) {
        mmt_json_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void end_document(mmt_json *j)
{
    if (j->depth == 0) fputc('\n', j->f);
}

void mmt_json_open(mmt_json *j, const char *key, char bracket)
{
    begin_value(j, key);
    fputc(bracket, j->f);
    if (j->depth + 1 < MMT_JSON_MAX_DEPTH) j->items[++j->depth] = 0;
}

void mmt_json_close(mmt_json *j, char bracket)
{
    int empty = j->items[j->depth] == 0;
    if (j->depth > 0) j->depth--;
    if (!empty) fprintf(j->f, "\n%*s", 2 * j->depth, "");
    fputc(bracket, j->f);
    end_document(j);
}

void mmt_json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        unsigned cp = 0;
        const int len = mmt_utf8_decode(s, &cp);
        if (len == 0) fputs("\\ufffd", f);
        else if (cp == '"' || cp == '\\') fprintf(f, "\\%c", cp);
        else if (cp == '\n') fputs("\\n", f);
        else if (cp == '\t') fputs("\\t", f);
        else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF) fprintf(f, "\\u%04x", cp);
        else fwrite(s, 1, (size_t)len, f);
        s += len ? len : 1;
    }
    fputc('"', f);
}

void mmt_json_str(mmt_json *j, const char *key, const char *v)
{
    if (!v) {
        mmt_json_null(j, key);
        return;
    }
    begin_value(j, key);
    mmt_json_string(j->f, v);
    end_document(j);
}

void mmt_json_num(mmt_json *j, const char *key, double v)
{
    if (!isfinite(v)) {
        mmt_json_null(j, key);
        return;
    }
    char text[32];
    for (int digits = 15; digits <= 17; digits++) { /* the shortest that reads back as v */
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    begin_value(j, key);
    fputs(text, j->f);
    end_document(j);
}

void mmt_json_int(mmt_json *j, const char *key, long long v)
{
    begin_value(j, key);
    fprintf(j->f, "%lld", v);
    end_document(j);
}

void mmt_json_bool(mmt_json *j, const char *key, int v)
{
    begin_value(j, key);
    fputs(v ? "true" : "false", j->f);
    end_document(j);
}

void mmt_json_null(mmt_json *j, const char *key)
{
    begin_value(j, key);
    fputs("null", j->f);
    end_document(j);
}
