/* explain.h - mmtune explain [KNOB]: what each knob of the tables' configurations means,
 * read from the comments of the search spaces (the `params:` lines of each search_spaces/NAME.yaml,
 * embedded in the binary), so the words and the spaces never part. */
#ifndef MMT_EXPLAIN_H
#define MMT_EXPLAIN_H

/* argv[1] is "explain": every template's knobs, or the one named by argv[2] in each
 * template that has it; the exit code (2 for an unknown knob or extra words). */
int mmt_explain_main(int argc, char **argv);

#endif
