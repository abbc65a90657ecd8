/* exit_codes.h - mmtune's exit codes, the same for every command. */
#ifndef MMT_EXIT_CODES_H
#define MMT_EXIT_CODES_H

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BAD_INPUT = 2 /* nothing is written then */ };

#endif
