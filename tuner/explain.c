/* explain.c - mmtune explain (see explain.h). A knob's line in a space reads
 *   KC: [256, 384]            # depth of the packed blocks
 * and the `template:` line names the kernel it tunes. */
#include "explain.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "resource.h"

/* Prints the knobs of one space's text (all, or the one named `knob`); how many it printed. */
static int print_space(const char *text, const char *knob)
{
    char template_name[128] = "?";
    int in_params = 0, printed = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const size_t len = strcspn(line, "\n");
        if (sscanf(line, "template: %127s", template_name) == 1) continue;
        if (strncmp(line, "params:", 7) == 0) {
            in_params = 1;
            continue;
        }
        if (in_params && len && !isspace((unsigned char)line[0]) && line[0] != '#') in_params = 0;
        if (!in_params) continue;
        char name[64];
        int at = 0;
        if (sscanf(line, " %63[A-Z0-9_]:%n", name, &at) != 1 || (knob && strcmp(name, knob) != 0)) continue;
        const char *values = line + at, *hash = memchr(line, '#', len);
        while (*values == ' ') values++;
        const int vlen = (int)((hash ? hash : line + len) - values);
        const char *meaning = hash ? hash + 1 : "";
        while (*meaning == ' ') meaning++;
        int vshown = vlen;
        while (vshown > 0 && values[vshown - 1] == ' ') vshown--;
        if (!printed++ && !knob) printf("%s\n", template_name);
        if (knob) printf("%-10s %-20s %-24.*s %.*s\n", name, template_name, vshown, values,
                         (int)(line + len - meaning), meaning);
        else printf("  %-10s %-28.*s %.*s\n", name, vshown, values, (int)(line + len - meaning), meaning);
    }
    return printed;
}

int mmt_explain_main(int argc, char **argv)
{
    if (argc > 3) {
        fprintf(stderr, "usage: mmtune explain [KNOB]\n");
        return EXIT_BAD_INPUT;
    }
    const char *knob = argc == 3 ? argv[2] : NULL;
    int found = 0;
    if (!knob)
        printf("the knobs of each template's configurations (BM=128,BN=256,... in the tables), their values "
               "and what they set:\n");
    for (const mmt_resource *r = mmt_resources; r->path; r++) {
        const size_t n = strlen(r->path);
        if (strncmp(r->path, "search_spaces/", 14) != 0 || n < 5 || strcmp(r->path + n - 5, ".yaml") != 0) continue;
        found += print_space((const char *)r->data, knob);
    }
    if (knob && !found) {
        fprintf(stderr, "mmtune explain: no template has a knob %s (mmtune explain lists them)\n", knob);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}
