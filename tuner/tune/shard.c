/* shard.c - a shapes file's problems dealt among workers (see shard.h). */
#include "shard.h"

#include <ctype.h>
#include <stdlib.h>

int mmt_shard_parse(const char *text, int *index, int *count)
{
    char *end;
    long i = strtol(text, &end, 10);
    if (!isdigit((unsigned char)text[0]) || *end != '/' || !isdigit((unsigned char)end[1])) return -1;
    long n = strtol(end + 1, &end, 10);
    if (*end || n < 1 || n > MMT_SHARD_MAX || i >= n) return -1;
    *index = (int)i;
    *count = (int)n;
    return 0;
}

int mmt_shard_select(mmt_problem *problems, size_t *n, int index, int count)
{
    /* which problems repeat an earlier one, decided on the whole list before it shrinks */
    char *repeat = calloc(*n ? *n : 1, 1);
    if (!repeat) return -1;
    for (size_t j = 0; j < *n; j++)
        for (size_t e = 0; e < j && !repeat[j]; e++) repeat[j] = (char)mmt_problem_equal(&problems[e], &problems[j]);
    size_t kept = 0, distinct = 0;
    for (size_t j = 0; j < *n; j++)
        if (!repeat[j] && distinct++ % (size_t)count == (size_t)index) problems[kept++] = problems[j];
    free(repeat);
    *n = kept;
    return 0;
}
