/* test_resource.c - templates as the compilers get them: a template's `#include "NAME"` of
 * a template beside it is replaced by that file's text (embedded, or from
 * MMTUNE_TEMPLATE_DIR), an include that names no template fails with its name, and other
 * resources are returned as stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "resource.h"

static char dir[] = "/tmp/mmtune-test-resource-XXXXXX";

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/cuda/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
}

int main(void)
{
    char *text = NULL;
    size_t size = 0;
    mmt_err err;

    /* the embedded templates: the launch parameters spliced in, no include left */
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_simt.cu", &text, &size, &err), &err);
    CHECK(strstr(text, "struct mmt_gemm_params {") != NULL);
    CHECK(strstr(text, "void sk_wait(") != NULL);
    CHECK(strstr(text, "#include \"mmt_params.h\"") == NULL);
    CHECK_EQ_INT((long long)strlen(text), (long long)size);
    free(text);

    /* a schema file is not a template: read as stored */
    CHECK_OK(mmt_resource_read("db/schema.sql", &text, &size, &err), &err);
    CHECK(strstr(text, "CREATE TABLE") != NULL);
    free(text);

    /* an override directory: its own include beside it, the embedded one where it has none,
     * and an include of nothing refused */
    CHECK(mkdtemp(dir) != NULL);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/cuda", dir);
    CHECK(mkdir(sub, 0700) == 0);
    put("t.cu", "// before\n\n  #include \"mine.h\"\n#include \"mmt_params.h\"\n// after");
    put("mine.h", "int mine; /* no newline at the end */");
    put("bad.cu", "#include \"missing.h\"\n");
    setenv("MMTUNE_TEMPLATE_DIR", dir, 1);
    CHECK_OK(mmt_resource_read("templates/cuda/t.cu", &text, &size, &err), &err);
    /* the blank line before an include stays a blank line */
    const char *spliced = "// before\n\nint mine; /* no newline at the end */\n/* mmt_params.h";
    CHECK(strncmp(text, spliced, strlen(spliced)) == 0);
    CHECK(strstr(text, "struct mmt_gemm_params {") != NULL);
    CHECK(strcmp(text + size - strlen("// after"), "// after") == 0);
    free(text);
    text = NULL;
    CHECK(mmt_resource_read("templates/cuda/bad.cu", &text, &size, &err) == MMT_NOT_FOUND);
    CHECK(text == NULL);
    CHECK(strstr(err.msg, "missing.h") != NULL);
    unsetenv("MMTUNE_TEMPLATE_DIR");

    char path[320];
    const char *names[] = {"t.cu", "mine.h", "bad.cu"};
    for (int i = 0; i < 3; i++) snprintf(path, sizeof path, "%s/%s", sub, names[i]), unlink(path);
    rmdir(sub);
    rmdir(dir);
    return check_result();
}
