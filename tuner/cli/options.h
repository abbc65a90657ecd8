/* options.h - mmtune's command line read into options: the command, its options checked
 * against what the command takes, bad input said in one line (exit 2, nothing written). */
#ifndef MMT_CLI_OPTIONS_H
#define MMT_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct mmt_cli_options {
    const char *command, *device, *shapes, *db, *strategy, *space, *landscape;
    const char *html; /* report --html FILE */
    char given[32]; /* the options given, by their getopt values */
    size_t budget;
    double budget_s;    /* 0: no time budget */
    double budget_frac; /* 0: no fraction of the candidates */
    int seeds, warm, batch; /* replay */
    int unseen;             /* replay --unseen, bench --unseen N */
    size_t unseen_n;        /* bench: shapes drawn per mode */
    const char *budget_text;
    uint64_t seed;
    int fresh, quiet, json, classic_only;
    int no_wait; /* another process measuring the device: refuse rather than wait */
    int jobs; /* -1: the default */
    const char *problem; /* --problem TEXT */
    int from_misses;
    size_t top; /* 0: not given */
    int shard_index, shard_count; /* --shard I/N; count 0: not given */
} mmt_cli_options;

/* Reads argv into *o: EXIT_OK, or the exit status with the reason on stderr (--help and
 * --version print and exit 0). */
int mmt_cli_parse(int argc, char **argv, mmt_cli_options *o);

#endif
