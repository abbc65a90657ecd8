/* json_out.h - JSON written as it goes (RFC 8259), for the --json output of the commands
 * that print tables (and the strings of mmtune export's JSON rows): a writer keeps the
 * nesting and the commas; every value goes under a key inside an object, or with key NULL
 * inside an array (or as the document). Strings are escaped: control characters (C0, DEL,
 * C1) and U+FFFE/U+FFFF as \u escapes, which YAML readers (libyaml reads imports) refuse
 * raw; a byte that is not UTF-8 becomes U+FFFD; a number that is not finite is
 * written as null; numbers are the shortest text that reads back as the same double. */
#ifndef MMT_JSON_OUT_H
#define MMT_JSON_OUT_H

#include <stdio.h>

enum { MMT_JSON_MAX_DEPTH = 16 };

typedef struct mmt_json {
    FILE *f;
    int depth;
    int items[MMT_JSON_MAX_DEPTH]; /* values written so far at each depth */
} mmt_json;

void mmt_json_init(mmt_json *j, FILE *f);
/* '{' or '[' opens, '}' or ']' closes; the document ends with a newline when depth is 0. */
void mmt_json_open(mmt_json *j, const char *key, char bracket);
void mmt_json_close(mmt_json *j, char bracket);
void mmt_json_str(mmt_json *j, const char *key, const char *v); /* NULL: null */
void mmt_json_num(mmt_json *j, const char *key, double v);
void mmt_json_int(mmt_json *j, const char *key, long long v);
void mmt_json_bool(mmt_json *j, const char *key, int v);
void mmt_json_null(mmt_json *j, const char *key);

/* The escaped text alone, quotes included. */
void mmt_json_string(FILE *f, const char *text);

#endif
