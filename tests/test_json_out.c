/* test_json_out.c - JSON written as it goes (tuner/report/json_out.c): nesting and commas, keys,
 * null for what is missing or not finite, numbers that read back as the same double,
 * strings escaped (quotes, backslashes, controls, DEL) with bytes that are not UTF-8 made
 * U+FFFD and valid UTF-8 kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_out.h"

static char *written(void (*write)(mmt_json *j))
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mmt_json j;
    mmt_json_init(&j, f);
    write(&j);
    fclose(f);
    return text;
}

static void document(mmt_json *j)
{
    mmt_json_open(j, NULL, '{');
    mmt_json_str(j, "name", "a \"b\"\\\n\x01\x7f \xc3\xa9 \xff");
    mmt_json_num(j, "x", 0.1);
    mmt_json_num(j, "third", 1.0 / 3);
    mmt_json_num(j, "nan", NAN);
    mmt_json_int(j, "n", -42);
    mmt_json_bool(j, "yes", 1);
    mmt_json_str(j, "none", NULL);
    mmt_json_open(j, "list", '[');
    mmt_json_num(j, NULL, 1e300);
    mmt_json_open(j, NULL, '{');
    mmt_json_close(j, '}');
    mmt_json_close(j, ']');
    mmt_json_open(j, "empty", '[');
    mmt_json_close(j, ']');
    mmt_json_close(j, '}');
}

int main(void)
{
    char *text = written(document);
    CHECK_EQ_STR(text, "{\n"
                       "  \"name\": \"a \\\"b\\\"\\\\\\n\\u0001\\u007f \xc3\xa9 \\ufffd\",\n"
                       "  \"x\": 0.1,\n"
                       "  \"third\": 0.3333333333333333,\n"
                       "  \"nan\": null,\n"
                       "  \"n\": -42,\n"
                       "  \"yes\": true,\n"
                       "  \"none\": null,\n"
                       "  \"list\": [\n"
                       "    1e+300,\n"
                       "    {}\n"
                       "  ],\n"
                       "  \"empty\": []\n"
                       "}\n");
    free(text);
    return check_result();
}
